"""Candidate thresholds per feature and uint8 bin codes (DESIGN.md section 2).

``binning="uniform"`` (paper footnote 1): for a feature with training range [lo, hi],
``tau_i = lo + i (hi - lo) / (n_thresholds + 1)`` for i = 1..n_thresholds, strictly inside the range.
``binning="quantile"``: thresholds at midpoints between distinct values when there are few of them, otherwise
at distinct empirical quantiles strictly inside the range, padded by repeating the last one (a repeated
threshold is the same candidate twice, and ties go to the first).

Writes ``thresholds`` (d, n_thresholds) float64, ``usable`` (d,) bool (False for constant features, which have no
useful threshold and are never chosen) and ``bins`` (d, N) uint8 with ``bins[j, n] = #{i : tau_ji < X[n, j]}``,
so that threshold index i (1-based) sends ``bins >= i`` right exactly when ``X[n, j] > tau_ji``.
"""

from __future__ import annotations

import numpy as np

from . import kernels as kern
from ._threading import parallel_guard

MAX_THRESHOLDS = 255
BINNINGS = ("uniform", "quantile")


def check_n_thresholds(n_thresholds) -> int:
    if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, (int, np.integer)):
        # ValueError like every other bad parameter (scikit-learn's parameter errors are ValueErrors too).
        raise ValueError(f"n_thresholds must be an integer in [1, {MAX_THRESHOLDS}]; got {n_thresholds!r}.")  # noqa: TRY004
    if not 1 <= n_thresholds <= MAX_THRESHOLDS:
        raise ValueError(
            f"n_thresholds must be in [1, {MAX_THRESHOLDS}] (bin codes are uint8); got {n_thresholds}. "
            "The paper uses 200."
        )
    return int(n_thresholds)


def midpoints(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(a + b) / 2 without overflow: the usual formula, and a/2 + b/2 only where a + b overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        mid = 0.5 * (a + b)
    far = ~np.isfinite(mid)
    if far.any():
        mid = np.where(far, 0.5 * a + 0.5 * b, mid)
    return mid


def uniform_thresholds(lo: np.ndarray, hi: np.ndarray, n_thresholds: int) -> np.ndarray:
    """``tau_i = lo + i (hi - lo) / (n_thresholds + 1)``, i = 1..n_thresholds (paper footnote 1), shape (d, n).

    Where ``hi - lo`` overflows float64 (features spanning more than about 1.8e308) the same formula runs on
    lo/2 and hi/2 and the result is doubled (exact scalings by a power of two), so the thresholds stay finite
    and strictly inside the range; elsewhere the result is the plain formula, bit for bit.
    """
    i = np.arange(1, n_thresholds + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        thresholds = lo[:, None] + i[None, :] * ((hi - lo)[:, None] / (n_thresholds + 1))
        far = ~np.isfinite(hi - lo)
    if far.any():
        half_lo, half_hi = 0.5 * lo[far], 0.5 * hi[far]
        scaled = half_lo[:, None] + i[None, :] * ((half_hi - half_lo)[:, None] / (n_thresholds + 1))
        thresholds[far] = 2.0 * scaled
    return thresholds


def _quantiles(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """np.quantile, computed on x/2 (then doubled) when interpolating between values would overflow."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.quantile(x, q)
    if not np.isfinite(out).all():
        out = 2.0 * np.quantile(0.5 * x, q)
    return out


def _quantile_thresholds(x: np.ndarray, n_thresholds: int) -> np.ndarray:
    lo, hi = x.min(), x.max()
    values = np.unique(x)
    if values.size <= n_thresholds + 1:
        cand = midpoints(values[:-1], values[1:])
    else:
        q = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
        cand = np.unique(_quantiles(x, q))
    cand = cand[(cand > lo) & (cand < hi)]
    if cand.size == 0:
        cand = midpoints(np.array([lo]), np.array([hi]))
    out = np.empty(n_thresholds)
    out[: cand.size] = cand[:n_thresholds]
    out[cand.size :] = cand[-1]
    return out


def fit_thresholds(X: np.ndarray, n_thresholds: int, binning: str = "uniform"):
    """Thresholds (d, n_thresholds) and the usable-feature mask (d,) from training data X (N, d)."""
    n_thresholds = check_n_thresholds(n_thresholds)
    if binning not in BINNINGS:
        raise ValueError(f"binning must be one of {BINNINGS}; got {binning!r}.")
    lo = X.min(axis=0)
    hi = X.max(axis=0)
    usable = hi > lo
    if binning == "uniform":
        thresholds = uniform_thresholds(lo, hi, n_thresholds)
    else:
        thresholds = np.empty((X.shape[1], n_thresholds))
        for j in range(X.shape[1]):
            thresholds[j] = _quantile_thresholds(X[:, j], n_thresholds) if usable[j] else lo[j]
    return np.ascontiguousarray(thresholds), usable


def bin_data(X: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Feature-major uint8 codes: bins[j, n] = number of thresholds of feature j strictly below X[n, j].

    Counting thresholds < x means x equal to a threshold stays left (x > tau goes right), as in prediction.
    """
    X = np.asarray(X, dtype=np.float64)
    n_samples, n_features = X.shape
    bins = np.empty((n_features, n_samples), dtype=np.uint8)
    kernel = kern.pick(kern.bin_features, kern.bin_features_serial, n_samples * n_features)
    # guarded: even one thread may run the parallel driver (``kernels.one_thread_runs_parallel``)
    with parallel_guard():
        kernel(X, np.ascontiguousarray(thresholds, dtype=np.float64), bins)
    return bins


# A prediction of at most this many (row, round) pairs runs on bin codes (``binned_scores``), through kernels a
# fit has compiled, instead of compiling the prediction kernel (0.9 s of CPU on a first predict); above it the
# prediction kernel is faster (one call, not one per round).
BINNED_PREDICT_MAX = 1 << 16


def binned_scores(X, a0, features, thresholds, leaf_signs, A, depth: int) -> np.ndarray | None:
    """Scores a0 + sum_t f_t(x) A[t] (Eq. 3) of a binary-leaf model on raw X (N, d), (N, K), on bin codes.

    The codes are taken against the model's own thresholds (per feature the distinct thresholds its trees
    test, sorted, padded with +inf), so ``bins >= i`` is exactly ``x > tau`` and every score adds the same
    terms in the same order as ``kernels.predict_blocks``: the same bits. Runs the kernels a fit compiles
    (binning, ``eval_tree_binned``) once per round. None when a feature tests more than MAX_THRESHOLDS distinct
    thresholds (no uint8 codes)."""
    n_samples, n_features = X.shape
    feats, thr = features.ravel(), thresholds.ravel()
    order = np.lexsort((thr, feats))
    f_sorted, t_sorted = feats[order], thr[order]
    first = np.ones(f_sorted.shape[0], dtype=bool)  # first node of each distinct (feature, threshold)
    first[1:] = (f_sorted[1:] != f_sorted[:-1]) | (t_sorted[1:] != t_sorted[:-1])
    u_feat, u_thr = f_sorted[first], t_sorted[first]
    counts = np.bincount(u_feat, minlength=n_features)
    if counts.max(initial=0) > MAX_THRESHOLDS:
        return None
    rank = np.arange(u_feat.shape[0]) - (np.cumsum(counts) - counts)[u_feat]  # 0-based within the feature
    table = np.full((n_features, max(int(counts.max(initial=0)), 1)), np.inf)
    table[u_feat, rank] = u_thr
    thr_idx = np.empty(feats.shape[0], dtype=np.int32)
    thr_idx[order] = rank[np.cumsum(first) - 1] + 1
    thr_idx = thr_idx.reshape(features.shape)
    bins = bin_data(X, table)
    features = np.ascontiguousarray(features, dtype=np.int32)
    leaf_signs = np.ascontiguousarray(leaf_signs, dtype=np.int8)
    scores = np.empty((n_samples, a0.shape[0]))
    scores[:] = a0
    f = np.empty(n_samples, dtype=np.int8)
    leaf = np.empty(n_samples, dtype=np.int32)
    for t in range(features.shape[0]):
        if depth == 1:  # a stump's own kernel: what a stump fit compiled
            kern.eval_stump_binned(bins, features[t], thr_idx[t], leaf_signs[t], f, leaf)
        else:
            kern.eval_tree_binned(bins, features[t], thr_idx[t], leaf_signs[t], int(depth), f, leaf)
        scores += f[:, None] * A[t]  # (+-1) a_tk exactly, added round after round as in the kernel
    return scores
