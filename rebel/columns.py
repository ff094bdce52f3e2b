"""The engine's columns for a table with missing values (NaN) or categorical features.

The engine splits one column at a time on ``x > tau`` (bin codes ``bins >= i``). A table with NaN or categories
is given to it as *engine columns* derived from the features, so that its split search, unchanged, also chooses
where missing values go and which category to separate; ``encode`` builds them from X for training and for
prediction alike (one source of truth: a model predicts with the columns it trained on).

- a numeric feature without NaN in training: itself (``PLAIN``). At prediction a NaN goes left (``NaN > tau``
  is false), as if it were below every value;
- a numeric feature with NaN in training: two columns, the same candidate thresholds on both, NaN sent left
  in one (``NAN_LEFT``: NaN stays NaN, below every threshold; its first threshold is -inf, so that a split
  can also separate the missing rows from all the others) and right in the other (``NAN_RIGHT``: NaN becomes
  +inf, above every threshold; its last threshold is the largest float). Each split is the best over both,
  so it sends the missing rows to the side of the lower loss, as scikit-learn's HistGradientBoosting does
  with its missing-values bin;
- a categorical feature (codes from ``rebel.categorical``): one indicator column per category seen in training
  (``CATEGORY``: 1.0 where the feature equals it, threshold 0.5), and one for the missing value when training
  had some. A split sends one category (or the missing rows) one way and the rest the other: one-vs-rest, as
  LightGBM does for few categories. Why not sorting categories by a statistic per split (LightGBM's many-vs-many,
  HistGradientBoosting's): REBEL's split criterion (paper S.6, a sum over classes of sqrt(sp_k sm_k)) has no
  one-dimensional gradient statistic to sort K-class, cost-weighted sums by, so an order would be a heuristic;
  one-vs-rest candidates are scored exactly by the engine's own criterion, and deeper trees and later rounds
  combine them into any subset. Its cost: one column per category (so at most
  ``rebel.categorical.MAX_CATEGORIES``). A category never seen in training has every indicator 0: it goes
  with "the rest" at every split.

``Columns`` holds the mapping as plain arrays: ``source`` (engine column -> feature), ``kind`` and ``code``
(the category code of an indicator, NaN for the missing-value indicator). Models of numeric data without NaN
have no ``Columns``: they train on X itself, bit for bit as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .binning import MAX_THRESHOLDS, fit_thresholds

PLAIN, NAN_LEFT, NAN_RIGHT, CATEGORY = 0, 1, 2, 3
KIND_NAMES = ("plain", "nan-left", "nan-right", "category")
_LARGEST = np.finfo(np.float64).max


@dataclass
class Columns:
    source: np.ndarray  # (d',) int64: the feature each engine column comes from
    kind: np.ndarray  # (d',) int8: PLAIN, NAN_LEFT, NAN_RIGHT or CATEGORY
    code: np.ndarray  # (d',) float64: an indicator's category code (NaN: the missing value's), else NaN

    @property
    def has_nan_pairs(self) -> bool:
        return bool(np.any(self.kind == NAN_LEFT))


def needs_columns(X: np.ndarray, categorical: np.ndarray) -> bool:
    """Whether a fit on X (N, d) float64 needs engine columns: some NaN or some categorical feature."""
    return bool(categorical.any()) or bool(np.isnan(X).any())


def plan_columns(X: np.ndarray, categorical: np.ndarray, n_categories: list[int]) -> Columns:
    """The engine columns of training data X (N, d) (NaN for missing, category codes in categorical columns);
    ``n_categories[j]``: the number of categories of categorical feature j."""
    source, kind, code = [], [], []
    missing = np.isnan(X).any(axis=0)
    for j in range(X.shape[1]):
        if categorical[j]:
            codes = [float(c) for c in range(n_categories[j])] + ([np.nan] if missing[j] else [])
            source += [j] * len(codes)
            kind += [CATEGORY] * len(codes)
            code += codes
        elif missing[j]:
            source += [j, j]
            kind += [NAN_LEFT, NAN_RIGHT]
            code += [np.nan, np.nan]
        else:
            source.append(j)
            kind.append(PLAIN)
            code.append(np.nan)
    return Columns(np.array(source, dtype=np.int64), np.array(kind, dtype=np.int8), np.array(code))


def encode(X: np.ndarray, columns: Columns) -> np.ndarray:
    """The engine columns (N, d') float64, C-contiguous, of X (N, d) (see the module's docstring)."""
    out = np.empty((X.shape[0], columns.source.shape[0]))
    for c in range(columns.source.shape[0]):
        x = X[:, columns.source[c]]
        kind = columns.kind[c]
        if kind == CATEGORY:
            code = columns.code[c]
            out[:, c] = np.isnan(x) if np.isnan(code) else (x == code)
        elif kind == NAN_RIGHT:
            out[:, c] = np.where(np.isnan(x), np.inf, x)
        else:
            out[:, c] = x
    return out


def _pad(thresholds: np.ndarray, width: int) -> np.ndarray:
    """Thresholds padded to ``width`` by repeating the last (the same candidate again; ties go to the first)."""
    return np.concatenate((thresholds, np.repeat(thresholds[-1:], width - thresholds.shape[0])))


def fit_column_thresholds(columns: Columns, Z: np.ndarray, n_thresholds: int, binning: str):
    """Candidate thresholds (d', W) and usable mask (d',) of engine columns Z (N, d') (the training rows).

    W is ``n_thresholds`` + 1 when some feature has a NaN pair (its extra candidate separates the missing rows
    from the others), at most MAX_THRESHOLDS (then the pairs' numeric candidates are one fewer). A numeric
    column's candidates are ``rebel.binning.fit_thresholds``'s on its finite values; an indicator's are 0.5."""
    pairs = columns.has_nan_pairs
    width = min(n_thresholds + 1, MAX_THRESHOLDS) if pairs else n_thresholds
    numeric = width - 1 if pairs else n_thresholds  # of a NaN pair's columns
    thresholds = np.empty((Z.shape[1], width))
    usable = np.zeros(Z.shape[1], dtype=bool)
    for c in range(Z.shape[1]):
        z = Z[:, c]
        kind = columns.kind[c]
        if kind == CATEGORY:
            thresholds[c] = 0.5
            usable[c] = z.size > 0 and z.min() < z.max()
            continue
        finite = z[np.isfinite(z)]
        if kind == PLAIN:
            thr, ok = fit_thresholds(z[:, None], n_thresholds, binning)
            thresholds[c], usable[c] = _pad(thr[0], width), ok[0]
            continue
        if finite.size:
            thr, ok = fit_thresholds(finite[:, None], numeric, binning)
            thr = thr[0]
        else:
            thr, ok = np.zeros(numeric), [False]
        missing = finite.size < z.size
        thresholds[c] = np.concatenate(([-np.inf], thr) if kind == NAN_LEFT else (thr, [_LARGEST]))
        usable[c] = ok[0] or (missing and finite.size > 0)
    return np.ascontiguousarray(thresholds), usable


def feature_of(columns: Columns | None, engine_columns: np.ndarray) -> np.ndarray:
    """The feature index of each engine column in ``engine_columns`` (itself without ``Columns``)."""
    return engine_columns if columns is None else columns.source[engine_columns]
