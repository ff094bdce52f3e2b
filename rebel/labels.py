"""Class labels as the user wrote them: ``labels_as_written`` keeps text, numbers and big integers apart and
refuses missing or mixed labels with a message naming the first bad entry."""

from __future__ import annotations

import numbers

import numpy as np


def _label_kind(value) -> str:
    if value is None or (isinstance(value, float | np.floating) and np.isnan(value)):
        return "missing"
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing markers
        return "missing"
    if isinstance(value, str | np.str_ | bytes):
        return "text"
    if isinstance(value, bool | np.bool_ | numbers.Number):
        return "number"
    return type(value).__name__


def labels_as_written(y):
    """Labels ``y`` as the user wrote them: an ndarray (numeric or text dtype) or an object array, never text
    that numpy made out of mixed values. Integers beyond int64 stay exact Python ints (object array), so
    ``11111111111111111111`` and ``22222222222222222222`` stay two classes. Missing labels (None, NaN) and text
    mixed with numbers (``[0, "0", 1]``) raise a ValueError naming the problem."""
    if y is None:
        raise ValueError(
            "RebelClassifier requires y to be passed, but the target y is None; give one class label per row of X."
        )
    raw = y.to_numpy() if hasattr(y, "to_numpy") else y
    if isinstance(raw, np.ndarray) and raw.dtype != object:
        if raw.dtype.kind == "f" and np.isnan(raw).any():
            i = int(np.flatnonzero(np.isnan(raw.reshape(-1)))[0])
            raise ValueError(
                f"y[{i}] is NaN, a missing label; give every row a class or drop the unlabelled rows."
            )
        return raw
    obj = np.asarray(raw, dtype=object)
    kinds = {}
    for i, value in enumerate(obj.reshape(-1)):
        kinds.setdefault(_label_kind(value), (i, value))
    if "missing" in kinds:
        i, value = kinds["missing"]
        raise ValueError(
            f"y[{i}] is {value!r}, a missing label; give every row a class or drop the unlabelled rows."
        )
    if len(kinds) > 1:
        (k1, (i1, v1)), (k2, (i2, v2)) = list(kinds.items())[:2]
        raise ValueError(
            f"y mixes label types: y[{i1}] = {v1!r} is {k1} but y[{i2}] = {v2!r} is {k2}. Give every label the "
            "same type (all text or all numbers), e.g. convert them all to text."
        )
    if isinstance(raw, np.ndarray):
        return raw
    arr = np.asarray(raw)
    return obj if arr.dtype.kind not in "biufUS" else arr


def _all_integers(y: np.ndarray) -> bool:
    return all(isinstance(v, numbers.Integral) for v in y.reshape(-1))
