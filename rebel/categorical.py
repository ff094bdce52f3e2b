"""Categorical features: which columns of X hold categories, and their category codes.

``categorical_features`` takes the forms of scikit-learn's HistGradientBoosting parameter of the same name:

- ``"from_dtype"`` (default): the columns of a pandas DataFrame whose dtype is ``category``, or text (object or
  string columns: a table read from a CSV keeps its text columns so); a numpy array has none;
- ``None``: no categorical features;
- a boolean mask (d,), integer column indices, or column names (a DataFrame's).

A categorical column becomes float codes before scikit-learn's validation: the index of the value in the
column's categories learnt in ``fit`` (``categories_[j]``: a pandas ``category`` column's categories in their
order, else the distinct values in sorted order, observed ones only), NaN where the value is missing (NaN, None,
``pd.NA``) and ``UNKNOWN`` (-1) for a value ``fit`` never saw. ``rebel.columns`` turns the codes into the
engine's one-vs-rest columns.
"""

from __future__ import annotations

import numbers
import reprlib

import numpy as np

UNKNOWN = -1.0  # the code of a category fit never saw
MAX_CATEGORIES = 255  # per feature, as HistGradientBoosting's max_bins (each category is an engine column)


def _is_frame(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "iloc") and hasattr(X, "dtypes")


def _is_text_or_category(dtype) -> bool:
    import pandas as pd

    return isinstance(dtype, pd.CategoricalDtype) or not (
        pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
    )


def categorical_mask(X, spec, n_features: int) -> np.ndarray:
    """(d,) bool: the columns of X that ``spec`` (``categorical_features``) makes categorical."""
    mask = np.zeros(n_features, dtype=bool)
    if spec is None:
        return mask
    if isinstance(spec, str):
        if spec != "from_dtype":
            raise ValueError(
                f"categorical_features={spec!r} is not understood; use 'from_dtype', None, a boolean mask, "
                "column indices or column names."
            )
        if _is_frame(X):
            mask[:] = [_is_text_or_category(dtype) for dtype in X.dtypes]
        return mask
    items = np.asarray(spec)
    if items.ndim != 1:
        raise ValueError(
            f"categorical_features must be 1-D (a mask, indices or names); got shape {items.shape}."
        )
    if items.size == 0:
        return mask
    if items.dtype == bool:
        if items.shape[0] != n_features:
            raise ValueError(
                f"categorical_features is a boolean mask of {items.shape[0]} entries but X has {n_features} "
                "features; give one entry per column."
            )
        return items.copy()
    if items.dtype.kind in "iu":
        bad = (items < -n_features) | (items >= n_features)
        if bad.any():
            raise ValueError(
                f"categorical_features holds column index {int(items[bad][0])}, but X has {n_features} "
                f"features (indices 0..{n_features - 1})."
            )
        mask[items] = True
        return mask
    names = [str(c) for c in X.columns] if _is_frame(X) else None
    if names is None:
        raise ValueError(
            "categorical_features holds column names, but X has no column names; pass a pandas DataFrame or "
            "give column indices."
        )
    for name in items:
        if str(name) not in names:
            raise ValueError(
                f"categorical_features names column {reprlib.repr(name)}, which X does not have; X's columns "
                f"are {reprlib.repr(names)}."
            )
        mask[names.index(str(name))] = True
    return mask


def _is_missing(value) -> bool:
    if value is None:
        return True
    if isinstance(value, float | np.floating) and np.isnan(value):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def learn_categories(values, name: str) -> np.ndarray:
    """The categories of one column (its observed, non-missing values): a pandas ``category`` column's in their
    order, else sorted; refused beyond MAX_CATEGORIES."""
    dtype = getattr(values, "dtype", None)
    if dtype is not None and type(dtype).__name__ == "CategoricalDtype":
        seen = set(values.dropna().unique())
        cats = np.array([c for c in dtype.categories if c in seen], dtype=object)
    else:
        raw = (
            values.to_numpy(dtype=object) if hasattr(values, "to_numpy") else np.asarray(values, dtype=object)
        )
        present = [v for v in raw if not _is_missing(v)]
        kinds = {isinstance(v, numbers.Number) for v in present}
        if len(kinds) > 1:
            raise ValueError(
                f"categorical feature {name} mixes numbers and text; give every category the same type "
                "(e.g. all text)."
            )
        cats = np.array(sorted(set(present)), dtype=object)
    if cats.shape[0] > MAX_CATEGORIES:
        raise ValueError(
            f"categorical feature {name} has {cats.shape[0]} categories; at most {MAX_CATEGORIES} are "
            "supported. Group the rare categories into one, or encode the feature as numbers."
        )
    return cats


def category_codes(values, categories: np.ndarray) -> np.ndarray:
    """Codes of one column's values: index in ``categories``, NaN if missing, UNKNOWN if never seen."""
    import pandas as pd

    raw = values.to_numpy(dtype=object) if hasattr(values, "to_numpy") else np.asarray(values, dtype=object)
    codes = pd.Index(categories, dtype=object).get_indexer(pd.Index(raw, dtype=object)).astype(np.float64)
    codes[codes < 0] = UNKNOWN
    codes[np.asarray(pd.isna(raw), dtype=bool)] = np.nan
    return codes


def _name(X, j: int) -> str:
    return f"{str(X.columns[j])!r} (column {j})" if _is_frame(X) else f"column {j}"


def encode_categories(X, mask: np.ndarray, categories: list | None):
    """X with its categorical columns replaced by float codes (a DataFrame stays a DataFrame with the same
    column names, for scikit-learn's feature-name checks; an array becomes an object array only when needed).
    ``categories`` None learns them (fit) and returns them; else uses them (predict). Returns (X, categories)
    where categories has one entry per feature (None for numeric ones)."""
    if not mask.any():
        return X, categories
    learn = categories is None
    if learn:
        categories = [None] * mask.shape[0]
    if _is_frame(X):
        out = X.copy()
        for j in np.flatnonzero(mask):
            col = X.iloc[:, j]
            if learn:
                categories[j] = learn_categories(col, _name(X, j))
            out.isetitem(j, category_codes(col, categories[j]))
        return out, categories
    arr = np.asarray(X)
    if arr.ndim != 2:
        return X, categories  # scikit-learn's validation names the problem
    out = np.array(arr, dtype=object if arr.dtype.kind in "OUS" else np.float64, copy=True)
    for j in np.flatnonzero(mask):
        if learn:
            categories[j] = learn_categories(arr[:, j], _name(X, j))
        out[:, j] = category_codes(arr[:, j], categories[j])
    return out, categories
