"""X as the engine sees it: validation, missing values and categorical features, for fit and for predict.

``fit_input`` validates X (NaN allowed: a missing value; infinity refused), turns categorical columns into codes
(``rebel.categorical``) and, when X has NaN or categorical features, plans the engine columns
(``rebel.columns``) and sets the model's ``is_categorical_``, ``categories_`` and ``columns_*`` arrays; numeric
X without NaN is left as it is (the paper's path, bit for bit). ``predict_input`` repeats the same steps with
the fitted categories and columns.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from sklearn.utils.validation import validate_data

from . import categorical as cat
from . import columns as col

_NOT_FINITE = (
    "X contains infinity or a value too large for float64: every cell must be a finite number, or NaN for a "
    "missing value. Replace the infinite values (e.g. by NaN) or drop those rows."
)
_FITTED = ("is_categorical_", "categories_", "columns_source_", "columns_kind_", "columns_code_")


def checked(validate, *args, **kwargs):
    """scikit-learn's input validation with the project's own messages for a missing label and infinite X."""
    try:
        return validate(*args, **kwargs)
    except ValueError as exc:
        text = str(exc)
        if "Input y" in text:
            raise ValueError(
                "y contains NaN or infinity; give every row a class label or drop the unlabelled rows."
            ) from None
        if "infinity" in text:
            raise ValueError(_NOT_FINITE) from None
        raise


def fit_input(model, X, y):
    """(Z, y, columns): the engine's X (N, d') float64 (X itself without NaN and categories), the validated y,
    and the ``Columns`` (None for numeric X without NaN). Sets or clears the model's fitted table arrays."""
    mask = cat.categorical_mask(X, model.categorical_features, _width(X))
    X, categories = cat.encode_categories(X, mask, None)
    X, y = checked(validate_data, model, X, y, dtype=np.float64, order="C", ensure_all_finite="allow-nan")
    if mask.shape[0] != X.shape[1]:  # X was not 2-D before validation: no categorical features
        mask = np.zeros(X.shape[1], dtype=bool)
    X = writeable(X)
    for name in _FITTED:
        if hasattr(model, name):
            delattr(model, name)
    if not col.needs_columns(X, mask):
        return X, y, None
    n_categories = [0 if c is None else len(c) for c in (categories or [None] * X.shape[1])]
    columns = col.plan_columns(X, mask, n_categories)
    model.is_categorical_ = mask
    model.categories_ = categories if categories is not None else [None] * X.shape[1]
    model.columns_source_ = columns.source
    model.columns_kind_ = columns.kind
    model.columns_code_ = columns.code
    return col.encode(X, columns), y, columns


def writeable(X: np.ndarray) -> np.ndarray:
    """X, or a copy when it is read-only (joblib hands its worker processes big arrays as read-only memory
    maps): numba types a read-only array apart and would compile every kernel again for it."""
    return X if X.flags.writeable else X.copy()


def _width(X) -> int:
    """The number of columns of a 2-D X, else 0 (scikit-learn's validation then names the problem)."""
    try:
        shape = np.shape(X)
    except (ValueError, TypeError):
        return 0
    return int(shape[1]) if len(shape) == 2 else 0


def fitted_columns(model) -> col.Columns | None:
    """The model's engine columns, None for a model of numeric data without NaN."""
    if not hasattr(model, "columns_source_"):
        return None
    return col.Columns(model.columns_source_, model.columns_kind_, model.columns_code_)


def predict_input(model, X) -> np.ndarray:
    """The engine's X for prediction (the columns the model trained on), validated against the fitted model."""
    mask = getattr(model, "is_categorical_", None)
    if mask is not None:
        X, _ = cat.encode_categories(X, mask, model.categories_)
    X = checked(
        validate_data, model, X, reset=False, dtype=np.float64, order="C", ensure_all_finite="allow-nan"
    )
    columns = fitted_columns(model)
    return writeable(X) if columns is None else col.encode(X, columns)


def column_thresholds(columns: col.Columns | None):
    """The thresholds function ``rebel.fitting.train`` uses for these columns (None: ``fit_thresholds``)."""
    return None if columns is None else partial(col.fit_column_thresholds, columns)
