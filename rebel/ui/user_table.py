"""A user's own CSV table for the Real data page: any number of feature columns and a label column chosen by
the user, numeric features with missing cells (NaN) and text features as categories.

``read_user_table`` reads the cells as text (``rebel.data.files.read_table``: UTF-8, header, column names through
the name door, at most the app's rows and ``MAX_FEATURES`` columns) after checking the file's size;
``default_label`` picks the label column to offer first (one named label/class/y/target, else the last);
``user_dataset`` turns the table into a ``Dataset`` split at random (stratified) or by a ``split`` column, the
mask of its categorical features and the engine's column count (``rebel.columns``: a NaN pair per numeric
feature with missing cells, one indicator per category). Every refusal is a ``ValueError`` naming the column,
the line or the value and the fix. No streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rebel import budget
from rebel.categorical import MAX_CATEGORIES
from rebel.data import Dataset
from rebel.data.files import (
    SPLIT_COLUMN,
    _check_classes,
    _parse_labels,
    _split_mask,
    read_table,
    split_dataset,
)
from rebel.names import clean_names, shown

MAX_BYTES = budget.limit_of("file_bytes", app=True)
MAX_ROWS = budget.limit_of("rows", app=True)
LABEL_NAMES = (
    "label",
    "class",
    "y",
    "target",
)  # a column of one of these names is offered as the label first
MISSING = ("", "nan", "NaN", "NA", "N/A", "null", "NULL", "?")  # cells read as a missing value
TEST_FRACTION = 0.25


@dataclass
class UserData:
    """The user's table as the page trains on it: the dataset, which features are categorical (their values are
    category codes, NaN missing), each categorical feature's categories, and the engine's column count."""

    dataset: Dataset
    categorical: np.ndarray  # (d,) bool
    categories: dict  # feature name -> its categories (text) in code order
    n_columns: int  # engine columns (rebel.columns): what the budget counts
    n_missing: int  # missing feature cells

    @property
    def is_table(self) -> bool:
        """Whether the data has missing values or categories (fewer baselines take them)."""
        return bool(self.categorical.any() or self.n_missing)


def read_user_table(data: bytes) -> pd.DataFrame:
    """The cells of an uploaded CSV file as text, one column per name (see the module docstring)."""
    if len(data) > MAX_BYTES:
        raise budget.BudgetError(
            f"the CSV file is {len(data):,} bytes; the app reads at most {MAX_BYTES:,} "
            f"({budget.LIMITS['file_bytes'].reason}). {budget.LIMITS['file_bytes'].fix}"
        )
    df = read_table(bytes(data), max_rows=MAX_ROWS)
    if len(df.columns) < 2:
        raise ValueError(
            f"the CSV file has one column {shown(df.columns[0])}; give feature columns and a label column, "
            "separated by commas."
        )
    return df


def default_label(columns) -> str:
    """The label column to offer first: one named label, class, y or target (in that order, any case), else
    the last column."""
    lower = {str(c).lower(): c for c in reversed(list(columns))}
    for name in LABEL_NAMES:
        if name in lower:
            return lower[name]
    return list(columns)[-1]


def _feature(df: pd.DataFrame, col: str, first_line: int):
    """(values float64 (N,), categories or None, missing count): a numeric column (missing cells NaN) or a text
    column as category codes. A column of numbers with a few text cells is refused at its first text cell."""
    raw = df[col].str.strip()
    missing = raw.isin(MISSING).to_numpy()
    if missing.all():
        raise ValueError(f"column {shown(col)} has no values (every cell is empty); drop the column.")
    as_num = pd.to_numeric(raw.where(~missing), errors="coerce").to_numpy(dtype=np.float64)
    text = ~missing & np.isnan(as_num)
    if not text.any():
        bad = np.flatnonzero(np.isinf(as_num))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"CSV line {i + first_line}, column {shown(col)}: the value {shown(raw.iloc[i])} is infinite; "
                "use a finite number, or leave the cell empty for a missing value."
            )
        return as_num, None, int(missing.sum())
    if text.sum() < (~missing).sum() / 2:  # mostly numbers: the text cells are typos, not categories
        i = int(np.flatnonzero(text)[0])
        raise ValueError(
            f"CSV line {i + first_line}, column {shown(col)}: the value {shown(raw.iloc[i])} is not a number, "
            "though most of the column is; correct it, or leave the cell empty for a missing value."
        )
    values = clean_names(raw.where(~missing).to_numpy(dtype=object), f"column {shown(col)}: the category")
    codes, categories = pd.factorize(values, sort=True)
    if len(categories) > MAX_CATEGORIES:
        raise ValueError(
            f"column {shown(col)} holds {len(categories):,} different texts; a categorical feature takes at most "
            f"{MAX_CATEGORIES} categories. Group its values, or drop the column (an id or free text)."
        )
    out = codes.astype(np.float64)
    out[codes < 0] = np.nan
    return out, [str(c) for c in categories], int(missing.sum())


def user_dataset(df: pd.DataFrame, label: str, name: str = "", seed: int = 0) -> UserData:
    """The table ``df`` (``read_user_table``) with ``label`` as its class column: the other columns are features
    (but ``split``, a column of train/test, when it is not the label); without a split column the rows are split
    at random, ``TEST_FRACTION`` held out (stratified)."""
    columns = list(df.columns)
    if label not in columns:
        raise ValueError(f"label column {shown(label)} is not in the file; choose one of its columns.")
    first = df.attrs.get("first_line", 2)
    split = SPLIT_COLUMN if SPLIT_COLUMN in columns and label != SPLIT_COLUMN else None
    features = [c for c in columns if c not in (label, split)]
    if not features:
        raise ValueError(f"the file has no feature column besides the label {shown(label)}; add one.")
    X = np.empty((len(df), len(features)))
    categorical = np.zeros(len(features), dtype=bool)
    categories, n_missing, n_columns = {}, 0, 0
    for j, col in enumerate(features):
        X[:, j], cats, missing = _feature(df, col, first)
        n_missing += missing
        if cats is not None:
            categorical[j], categories[col] = True, cats
            n_columns += len(cats) + (missing > 0)
        else:
            n_columns += 2 if missing else 1
    y = _parse_labels(df[label], label, first)
    where = f"the label column {shown(label)}"
    _check_classes(y, where)
    if split is None:
        classes, counts = np.unique(y, return_counts=True)
        if counts.min() < 2:
            raise ValueError(
                f"class {shown(classes[np.argmin(counts)])} of {where} has only 1 row; a random split needs at "
                "least 2 rows of each class (is this the column of classes? else add rows or drop the class)."
            )
        ds = split_dataset(X, y, TEST_FRACTION, seed, features, name)
    else:
        test = _split_mask(df, split)
        _check_classes(y[~test], "the training split")
        if not test.any():
            raise ValueError(
                f"the {split!r} column marks no row 'test'; mark some rows 'test' or drop the column."
            )
        ds = Dataset(
            X[~test], y[~test], X[test], y[test], tuple(np.unique(y).tolist()), tuple(features), name
        )
    missing = sorted(set(ds.classes) - set(ds.y_train.tolist()), key=str)
    if missing:
        raise ValueError(
            f"class {shown(missing[0])} of {where} has no training rows (too few rows of it to split); add rows "
            "of it or relabel them."
        )
    return UserData(ds, categorical, categories, n_columns, n_missing)
