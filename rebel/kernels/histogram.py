"""Stage 2, histograms: per feature over the bins (root) and per leaf (deeper layers).

Root: reads ``bins`` (d, N) uint8 and dw (N, K) float64 (wp - wm, or the logistic gradient g); writes ``hist``
(d, n_bins, K). Leaf: reads bins, ``leaf`` (N,) int32 and ``e`` (N,) float64 (u - v); writes ``hist``
(n_leaves, d, n_bins). Every bin adds its samples in order n = 0..N-1, so both drivers give the same bits.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.extending import overload

from .lanes import LanePlanType, lane_passes, plan_fits
from .simd import _add_row, _c_rows


@njit(cache=True, nogil=True)
def _root_histogram_block(bins, dw, hist, j, width, lanes):
    """hist[j : j + width] (width 1, 2 or 4) over dw; every bin adds its samples in order n = 0..N-1.

    Four features with K <= LANE_PASS_MAX_CLASSES: one pass per pair of SIMD widths that tile the K lanes
    (K = 10: 8 + 2, one pass; K = 7: 4 + 2, then 1), each with no width test inside its sample loop (about 2x
    faster than ``_add_row`` at K = 2 and 1.5x at K = 10); ``lanes`` (a ``LanePlan`` or None) says which
    passes compile (``lanes.lane_passes``). Otherwise one pass adding whole rows (``rows_of_four``, two
    features, or one at a time).
    """
    hist[j : j + width] = 0.0
    n_samples = bins.shape[1]
    n_classes = dw.shape[1]
    if not (_c_rows(dw) and _c_rows(hist[j : j + width])):
        for jj in range(j, j + width):
            row, h = bins[jj], hist[jj]
            for n in range(n_samples):
                for k in range(n_classes):
                    h[row[n], k] += dw[n, k]
        return
    row_bytes = np.uintp(8 * n_classes)
    src = dw.ctypes.data
    g0 = hist[j].ctypes.data
    step = row_bytes * np.uintp(hist.shape[1])  # from one feature's histogram to the next
    if width == 4 and plan_fits(lanes, n_classes):
        lane_passes(lanes, n_classes, bins, src, g0, step, row_bytes, j)
        return
    if width == 4 and rows_of_four(lanes, bins, src, g0, step, row_bytes, j, n_classes):
        return
    if width == 2:
        r0, r1 = bins[j], bins[j + 1]
        g1 = g0 + step
        for n in range(n_samples):
            _add_row(g0 + row_bytes * np.uintp(r0[n]), src, n_classes)
            _add_row(g1 + row_bytes * np.uintp(r1[n]), src, n_classes)
            src += row_bytes
        return
    for jj in range(width):  # single features (and four, where a fit's plan compiles no ``rows_of_four``)
        row, g, s = bins[j + jj], g0 + step * np.uintp(jj), src
        for n in range(n_samples):
            _add_row(g + row_bytes * np.uintp(row[n]), s, n_classes)
            s += row_bytes


def rows_of_four(lanes, bins, src, g0, step, row_bytes, j, n_classes):
    """Histograms j..j+3 in one pass adding whole rows; True when it ran (compiled code only)."""
    raise NotImplementedError("rows_of_four runs in compiled kernels only")


@overload(rows_of_four)
def _ol_rows_of_four(lanes, bins, src, g0, step, row_bytes, j, n_classes):
    """Compiled only where four features can need it: K > LANE_PASS_MAX_CLASSES, or no plan. A fit's plan of
    K <= LANE_PASS_MAX_CLASSES adds four features by lane passes, so there it is ``False`` (no code)."""
    if isinstance(lanes, LanePlanType) and lanes.n_classes > 0:
        return lambda lanes, bins, src, g0, step, row_bytes, j, n_classes: False

    def four(lanes, bins, src, g0, step, row_bytes, j, n_classes):
        g1 = g0 + step
        g2 = g1 + step
        g3 = g2 + step
        r0, r1, r2, r3 = bins[j], bins[j + 1], bins[j + 2], bins[j + 3]
        for n in range(bins.shape[1]):
            _add_row(g0 + row_bytes * np.uintp(r0[n]), src, n_classes)
            _add_row(g1 + row_bytes * np.uintp(r1[n]), src, n_classes)
            _add_row(g2 + row_bytes * np.uintp(r2[n]), src, n_classes)
            _add_row(g3 + row_bytes * np.uintp(r3[n]), src, n_classes)
            src += row_bytes
        return True

    return four


@njit(cache=True, nogil=True)
def root_histograms_plain(bins, dw, hist):
    """``root_histograms`` by plain loops, one feature after another (the same bits: every bin adds its samples
    in order n = 0..N-1). What a round run by the interpreter on one thread calls (``tree.interpreted_drivers``):
    it compiles in about a tenth of the time of the SIMD drivers with their lane passes (0.16-0.23 s against
    1.4-1.9 s of CPU, wine, empty cache) and does not depend on K; it adds about half as fast, on fits small
    enough to be interpreted."""
    hist[:] = 0.0
    n_samples, n_classes = dw.shape
    for j in range(bins.shape[0]):
        row, h = bins[j], hist[j]
        for n in range(n_samples):
            for k in range(n_classes):
                h[row[n], k] += dw[n, k]


@njit(cache=True, nogil=True, inline="always")
def _root_histogram_blocks(bins, dw, hist, b, lanes):
    """Block b of ``root_histograms``: features 4b..4b+3, the last block's remainder in pairs and singles."""
    n_features = bins.shape[0]
    j = 4 * b
    stop = min(j + 4, n_features)
    while j < stop:
        width = 4 if stop - j >= 4 else (2 if stop - j >= 2 else 1)
        _root_histogram_block(bins, dw, hist, j, width, lanes)
        j += width


@njit(cache=True, nogil=True, parallel=True)
def root_histograms(bins, dw, hist, lanes=None):
    """hist[j, b, k] = sum of dw[n, k] over samples n with bins[j, n] == b. hist: (d, n_bins, K).

    Threads own blocks of features (one pass over dw feeds several histograms; no two threads ever add into the
    same histogram); each bin's sum runs over n in order, so any thread count gives the same bits. ``lanes``:
    the fit's ``LanePlan`` (compiles only its K's lane passes), or None (every pair of widths compiles).
    """
    for b in prange((bins.shape[0] + 3) // 4):
        _root_histogram_blocks(bins, dw, hist, b, lanes)


@njit(cache=True, nogil=True)
def root_histograms_serial(bins, dw, hist, lanes=None):
    """``root_histograms`` on one thread (small problems, where launching threads costs more than it saves)."""
    for b in range((bins.shape[0] + 3) // 4):
        _root_histogram_blocks(bins, dw, hist, b, lanes)


@njit(cache=True, nogil=True, inline="always")
def _leaf_histogram_block(bins, leaf, e, hist, b):
    """hist[:, 4b : 4b + 4] in one pass over leaf and e (fewer features in the last block)."""
    j = 4 * b
    stop = min(j + 4, bins.shape[0])
    hist[:, j:stop, :] = 0.0
    if stop - j == 4:
        r0, r1, r2, r3 = bins[j], bins[j + 1], bins[j + 2], bins[j + 3]
        for n in range(bins.shape[1]):
            lf = leaf[n]
            v = e[n]
            hist[lf, j, r0[n]] += v
            hist[lf, j + 1, r1[n]] += v
            hist[lf, j + 2, r2[n]] += v
            hist[lf, j + 3, r3[n]] += v
    else:
        for jj in range(j, stop):
            row = bins[jj]
            for n in range(bins.shape[1]):
                hist[leaf[n], jj, row[n]] += e[n]


@njit(cache=True, nogil=True, parallel=True)
def leaf_histograms(bins, leaf, e, hist):
    """hist[l, j, b] = sum of e[n] over samples in leaf l with bins[j, n] == b. hist: (n_leaves, d, n_bins).
    Threads own blocks of 4 features (one pass over leaf and e each)."""
    for b in prange((bins.shape[0] + 3) // 4):
        _leaf_histogram_block(bins, leaf, e, hist, b)


@njit(cache=True, nogil=True)
def leaf_histograms_serial(bins, leaf, e, hist):
    """``leaf_histograms`` on one thread."""
    for b in range((bins.shape[0] + 3) // 4):
        _leaf_histogram_block(bins, leaf, e, hist, b)
