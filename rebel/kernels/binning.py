"""Stage 1, binning: raw X -> uint8 bin codes.

Reads X (N, d) float64 and thresholds (d, n_thresholds) sorted ascending; writes ``bins`` (d, N) uint8 with
``bins[j, n]`` = number of thresholds of feature j strictly below ``X[n, j]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

BIN_BLOCK = 256  # rows per block in bin_features


@njit(cache=True, nogil=True, inline="always")
def _bin_rows(X, thresholds, bins, start, stop):
    """bins[:, start:stop] = number of thresholds strictly below X[start:stop] (thresholds sorted ascending).

    A branch-free binary search (lower bound) taken one step at a time over the whole row block: the searches
    of different samples are independent, so they overlap instead of waiting on each other's loads; the block's
    column is copied first, so X (N, d) is read row block by row block, not one strided column at a time.
    """
    n_thr = thresholds.shape[1]
    m = stop - start
    xs = np.empty(m)
    base = np.empty(m, dtype=np.int64)
    for j in range(X.shape[1]):
        thr = thresholds[j]
        for i in range(m):
            xs[i] = X[start + i, j]
            base[i] = 0
        size = n_thr
        while size > 1:
            half = size >> 1
            for i in range(m):
                b = base[i]
                base[i] = b + half if thr[b + half] < xs[i] else b
            size -= half
        out = bins[j]
        for i in range(m):
            out[start + i] = base[i] + (thr[base[i]] < xs[i])


@njit(cache=True, nogil=True, parallel=True)
def bin_features(X, thresholds, bins):
    """bins[j, n] = #{i : thresholds[j, i] < X[n, j]} for raw X (N, d); bins: (d, N) uint8. Threads own row
    blocks of BIN_BLOCK rows."""
    n_samples = X.shape[0]
    for b in prange((n_samples + BIN_BLOCK - 1) // BIN_BLOCK):
        _bin_rows(X, thresholds, bins, b * BIN_BLOCK, min((b + 1) * BIN_BLOCK, n_samples))


@njit(cache=True, nogil=True)
def bin_features_serial(X, thresholds, bins):
    """``bin_features`` on one thread."""
    n_samples = X.shape[0]
    for start in range(0, n_samples, BIN_BLOCK):
        stop = start + BIN_BLOCK  # min(stop, n_samples) as a select: the builtin compiles an overload
        _bin_rows(X, thresholds, bins, start, stop if stop < n_samples else n_samples)  # noqa: FURB136
