"""Cost matrices: validation, the decomposition of supplement S.3-S.5, and the minimum-risk rule.

Convention everywhere in the project: ``C[y, k]`` is the cost of predicting class ``k`` when the truth is
``y`` (rows = truth, columns = prediction, both in ``classes_`` order). A per-sample cost array (N x K) holds
one such row per sample (example-dependent costs).

Arrays written here are plain float64 ndarrays; nothing in this module is compiled. Preset cost matrices
(x m FN/FP, random, taxonomy, specs) live in ``rebel.cost_presets``. ``label_indices`` maps labels to
the row/column index of their class (the one label -> index helper).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np


class CostWarning(UserWarning):
    """A cost matrix is valid but unusual (e.g. a non-zero diagonal)."""


def _as_float_array(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} must contain only numbers; could not convert it to floats ({exc}). "
            "Replace text or empty cells by non-negative numbers."
        ) from None
    return arr


# Largest accepted cost: the decomposition multiplies and sums costs (c+ * c- up to (K * max)^2 for K <= 50
# classes), which must stay below the float64 maximum (about 1.8e308) or training yields NaN scores.
MAX_COST = 1e150
# Smallest accepted positive cost: below it (subnormal floats) a cost keeps only a few significant bits, so the
# ratios that define the problem are lost before training starts.
MIN_COST = float(np.finfo(np.float64).tiny)
# Training scales the cost rows by a power of two (exact) so that the largest is in [0.5, 1) whenever the loss is
# logistic or the largest cost lies outside this range (docs/DESIGN.md "Cost scale"); inside it paper mode runs
# on the costs as given, bit for bit.
SAFE_COST_RANGE = (1e-3, 1e3)


def _aligned(value, classes, name: str, square: bool):
    """A pandas DataFrame of costs reordered to ``classes`` by its labels (columns = predicted class, and for a
    square matrix index = true class). A DataFrame with default integer labels (0..n-1 on both axes of a matrix,
    or on its columns) is read by position, like an array. Anything else is returned unchanged."""
    if classes is None or not hasattr(value, "columns") or not hasattr(value, "index"):
        return value
    import pandas as pd

    axes = [("columns (predicted class)", value.columns)]
    if square:
        axes.append(("index (true class)", value.index))
    if all(isinstance(labels, pd.RangeIndex) and labels.start == 0 for _, labels in axes):
        return value
    wanted = [c.item() if isinstance(c, np.generic) else c for c in classes]
    for where, labels in axes:
        got = [c.item() if isinstance(c, np.generic) else c for c in labels]
        missing = [c for c in wanted if c not in got]
        extra = [c for c in got if c not in wanted]
        doubled = sorted({repr(c) for c in got if got.count(c) > 1})
        if missing or extra or doubled:
            parts = [f"missing {missing}" if missing else "", f"not a class {extra}" if extra else "",
                     f"repeated {doubled}" if doubled else ""]  # fmt: skip
            raise ValueError(
                f"{name}'s {where} labels do not match the classes {wanted}: "
                + "; ".join(p for p in parts if p)
                + ". Label each row and column with one class, exactly as the labels are written in y."
            )
    return value.loc[classes, classes] if square else value.loc[:, classes]


def scaled_cost_rows(cost_rows: np.ndarray, loss: str, name: str = "the costs") -> tuple[np.ndarray, float]:
    """Cost rows scaled by a power of two (exact, ratios unchanged) so the largest is in [0.5, 1), when the loss
    is logistic or the largest cost is outside ``SAFE_COST_RANGE``; else the rows as given and scale 1.

    Refuses (ValueError) rows whose scaled entries or decomposition (c+, c-) hold a positive number below the
    smallest normal float64: their ratios to the largest cost are lost in float64."""
    top = float(cost_rows.max())
    low, high = SAFE_COST_RANGE
    if loss != "logistic" and low <= top <= high:
        return cost_rows, 1.0
    scale = math.ldexp(1.0, -math.frexp(top)[1])
    rows = cost_rows * scale
    dec = decompose(rows)
    lost = (cost_rows > 0) & (rows < MIN_COST)  # underflowed, to zero or to a subnormal
    for part in (dec.cp, dec.cm):
        lost |= (part > 0) & (part < MIN_COST)
    if lost.any():
        smallest = float(cost_rows[cost_rows > 0].min())
        raise ValueError(
            f"{name} span too wide a range to train on: the smallest positive cost ({smallest:.3g}) is less than "
            f"{MIN_COST:.3g} times the largest ({top:.3g}), beyond float64 precision. Only ratios matter: raise "
            "the smallest costs (or set them to 0) or lower the largest."
        )
    return rows, scale


def _check_entries(arr: np.ndarray, name: str, row_label: str) -> None:
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name}{list(idx)} is {float(arr[idx])!r}; every {row_label} entry must be a finite number. "
            "Replace it by a non-negative finite cost."
        )
    neg = arr < 0
    if neg.any():
        idx = tuple(int(i) for i in np.argwhere(neg)[0])
        raise ValueError(
            f"{name}{list(idx)} is {float(arr[idx])!r}; costs must be >= 0. Use 0 for a free outcome and a "
            "positive number for a costly one."
        )
    tiny = (arr > 0) & (arr < MIN_COST)
    if tiny.any():
        idx = tuple(int(i) for i in np.argwhere(tiny)[0])
        raise ValueError(
            f"{name}{list(idx)} is {float(arr[idx])!r}, below the smallest normal float64 ({MIN_COST:.3g}): its "
            "ratio to the other costs cannot be represented. Only the ratios between costs matter: multiply all "
            "of them by the same large number, or use 0 if this outcome should be free."
        )
    huge = arr > MAX_COST
    if huge.any():
        idx = tuple(int(i) for i in np.argwhere(huge)[0])
        raise ValueError(
            f"{name}{list(idx)} is {float(arr[idx])!r}; costs must be at most {MAX_COST:g} (larger ones overflow "
            "in training). Only the ratios between costs matter: divide all of them by the same number."
        )


def validate_cost_matrix(
    cost_matrix, n_classes: int | None = None, name: str = "cost_matrix", classes=None
) -> np.ndarray:
    """Return ``cost_matrix`` as a validated float64 (K, K) array.

    A pandas DataFrame labelled with class names (index = truth, columns = prediction) is aligned to ``classes``
    by its labels (a missing, extra or repeated label is a ValueError naming it); unlabelled input is read in
    sorted class order. Raises ``ValueError`` naming the problem: not square, wrong K, non-finite or negative entries, all zero.
    A non-zero diagonal is allowed (correct answers may cost something) but warns with ``CostWarning``.
    """
    C = _as_float_array(_aligned(cost_matrix, classes, name, square=True), name)
    if C.ndim != 2 or C.shape[0] != C.shape[1]:
        raise ValueError(
            f"{name} must be a square K x K array (rows = true class, columns = predicted class); "
            f"got shape {C.shape}."
        )
    if C.shape[0] < 2:
        raise ValueError(f"{name} must be at least 2 x 2 (two classes); got shape {C.shape}.")
    if n_classes is not None and C.shape[0] != n_classes:
        raise ValueError(
            f"{name} is {C.shape[0]} x {C.shape[1]} but the data has {n_classes} classes; give one row and one "
            f"column per class (a {n_classes} x {n_classes} matrix, in sorted class order)."
        )
    _check_entries(C, name, "cost")
    if not (C > 0).any():
        raise ValueError(
            f"{name} is all zeros, so every prediction is free and there is nothing to learn; "
            "set the cost of at least one mistake to a positive number (e.g. 1 off the diagonal)."
        )
    diag = np.diag(C)
    if (diag != 0).any():
        k = int(np.flatnonzero(diag != 0)[0])
        where = f"{name}[{k}, {k}] = {float(diag[k])!r}"
        if classes is not None and len(classes) == C.shape[0]:  # name the class, index in brackets
            c = classes[k].item() if isinstance(classes[k], np.generic) else classes[k]
            where = (
                f"predicting class {c!r} when the truth is {c!r} costs {float(diag[k])!r} ({name}[{k}, {k}])"
            )
        warnings.warn(
            f"{where}: correct predictions are usually free (zero diagonal). The matrix is used as given.",
            CostWarning,
            stacklevel=2,
        )
    return C


def validate_sample_cost(
    sample_cost, n_samples: int, n_classes: int, name: str = "sample_cost", classes=None
) -> np.ndarray:
    """Return example-dependent costs as a validated float64 (N, K) array (one cost row per sample); a pandas
    DataFrame with class names as columns is aligned to ``classes`` by those labels (rows stay in order)."""
    S = _as_float_array(_aligned(sample_cost, classes, name, square=False), name)
    if S.ndim != 2 or S.shape != (n_samples, n_classes):
        raise ValueError(
            f"{name} must have shape (n_samples, n_classes) = ({n_samples}, {n_classes}), one cost row per "
            f"training sample; got shape {S.shape}."
        )
    _check_entries(S, name, "cost")
    if not (S > 0).any():
        raise ValueError(f"{name} is all zeros; at least one mistake must have a positive cost.")
    return S


def uniform_costs(n_classes: int) -> np.ndarray:
    """The 0-1 cost matrix: every mistake costs 1, correct predictions are free."""
    if int(n_classes) < 2:
        raise ValueError(f"n_classes must be >= 2; got {n_classes!r}.")
    return 1.0 - np.eye(int(n_classes))


@dataclass(frozen=True)
class Decomposition:
    """Per-row decomposition of cost vectors (S.3-S.5). Arrays have one row per cost vector.

    beta   : (N,)   constant part, ``beta = sum_k c_k - (K-1) max_k c_k``
    cp     : (N, K) ``c+ = c - beta`` (>= 0)
    cm     : (N, K) ``c- = max(c) - c`` (>= 0)
    c_star : (N,)   ``c* = 2 <sqrt(c+ * c-), 1>``, the per-sample minimum of the coupled exponential sum
    H_star : (N, K) ``H* = (ln c- - ln c+) / 2``, the per-sample optimal score (may be +-inf)
    """

    beta: np.ndarray
    cp: np.ndarray
    cm: np.ndarray
    c_star: np.ndarray
    H_star: np.ndarray


def decompose(costs) -> Decomposition:
    """Decompose each cost row into ``beta 1 + c+`` and ``c- = max(c) 1 - c`` (supplement S.3/S.4, S.5)."""
    c = np.atleast_2d(np.asarray(costs, dtype=np.float64))
    K = c.shape[1]
    phi = c.max(axis=1)
    beta = c.sum(axis=1) - (K - 1) * phi
    # beta <= min(c) always; clip the last-ulp negatives that subtraction can leave.
    cp = np.maximum(c - beta[:, None], 0.0)
    cm = np.maximum(phi[:, None] - c, 0.0)
    c_star = 2.0 * np.sqrt(cp * cm).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        H_star = 0.5 * (np.log(cm) - np.log(cp))
    H_star = np.where((cp == 0) & (cm == 0), 0.0, H_star)
    return Decomposition(beta=beta, cp=cp, cm=cm, c_star=c_star, H_star=H_star)


def expected_risks(posterior, cost_matrix) -> np.ndarray:
    """Expected cost of predicting each class, ``sum_y p(y|x) C[y, k]`` (N, K), for posteriors (N, K) and one
    matrix C (K, K) or one matrix per row (N, K, K)."""
    P = np.asarray(posterior, dtype=np.float64)
    C = np.asarray(cost_matrix, dtype=np.float64)
    return P @ C if C.ndim == 2 else np.einsum("ny,nyk->nk", P, C)


def min_risk_class(posterior, cost_matrix) -> np.ndarray:
    """Index of the minimum-expected-cost class ``argmin_k sum_y p(y|x) C[y, k]`` for each row of posteriors,
    under one cost matrix (K, K) or one per row (N, K, K) (``expected_risks``).

    Ties go to the lowest class index.
    """
    return np.argmin(expected_risks(posterior, cost_matrix), axis=1)


def random_guess_cost(cost_matrix, priors=None) -> float:
    """Expected cost of guessing a class uniformly at random: ``sum_y p(y) mean_k C[y, k]``.

    ``priors`` defaults to uniform class priors. Summed with ``math.fsum`` (correctly rounded), not a BLAS dot
    product, whose summation order depends on the CPU: normalized cost matrices are the same bits everywhere.
    """
    C = np.asarray(cost_matrix, dtype=np.float64)
    K = C.shape[0]
    p = np.full(K, 1.0 / K) if priors is None else np.asarray(priors, dtype=np.float64)
    row_means = [math.fsum(row) / K for row in C.tolist()]
    return math.fsum(float(pk) * m for pk, m in zip(p.tolist(), row_means))


def label_indices(y, classes, fix: str = "relabel the point or add the class") -> np.ndarray:
    """Indices of labels ``y`` into the sorted class names ``classes`` (the one label -> index helper); a
    ValueError names the first label that is not a class and ``fix`` says what to do about it."""
    names, y = np.asarray(classes), np.asarray(y).reshape(-1)
    numeric = names.dtype.kind in "biuf" and y.dtype.kind in "biuf"
    if not (numeric or names.dtype.kind == y.dtype.kind == "U"):  # mixed or object labels: Python comparisons
        names, y = names.astype(object), y.astype(object)
    try:
        idx = np.clip(np.searchsorted(names, y), 0, len(names) - 1)
        bad = np.flatnonzero(names[idx] != y)
    except TypeError:  # labels of another type than the classes (e.g. "a" against 0, 1): none can match
        idx, bad = np.zeros(len(y), dtype=np.int64), np.arange(len(y))
    if bad.size:
        label = y[bad[0]]
        label = label.item() if isinstance(label, np.generic) else label
        shown = [c.item() if isinstance(c, np.generic) else c for c in names]
        raise ValueError(f"label {label!r} is not one of the classes {shown}; {fix}.")
    return idx.astype(np.intp)
