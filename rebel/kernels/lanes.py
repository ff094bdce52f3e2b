"""The lane passes of the root histogram: per sample, two fixed-width SIMD adds of its dw row into four
features' histogram rows (``_lane_pass4``), one compiled loop per pair of widths (``_lane_pass``).

Reads ``bins`` (d, N) uint8 and dw (N, K) float64 at byte addresses; writes four features' rows of ``hist``
(d, n_bins, K). Called by ``histogram._root_histogram_block`` for K <= LANE_PASS_MAX_CLASSES.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .simd import _add0, _add1, _add2, _add4, _add8

# Up to this many classes the root histogram adds rows with fixed SIMD widths (``_lane_pass``); above it, in
# several passes, it would be slower than adding whole rows (measured at K = 20 and 50).
LANE_PASS_MAX_CLASSES = 16


@njit(cache=True, nogil=True, inline="always")
def _lane_pass4(add_a, add_b, off_b, bins, src, g0, step, row_bytes, j):
    """Histograms j..j+3 of one group of lanes: per sample, ``add_a`` at the row's start and ``add_b`` at byte
    ``off_b``, both of fixed width, into each feature's bin row. src, g0: the lanes' first byte in dw's row 0
    and in feature j's histogram; step: bytes between two features' histograms."""
    g1 = g0 + step
    g2 = g1 + step
    g3 = g2 + step
    r0, r1, r2, r3 = bins[j], bins[j + 1], bins[j + 2], bins[j + 3]
    for n in range(bins.shape[1]):
        d0 = g0 + row_bytes * np.uintp(r0[n])
        d1 = g1 + row_bytes * np.uintp(r1[n])
        d2 = g2 + row_bytes * np.uintp(r2[n])
        d3 = g3 + row_bytes * np.uintp(r3[n])
        add_a(d0, src)
        add_b(d0 + off_b, src + off_b)
        add_a(d1, src)
        add_b(d1 + off_b, src + off_b)
        add_a(d2, src)
        add_b(d2 + off_b, src + off_b)
        add_a(d3, src)
        add_b(d3 + off_b, src + off_b)
        src += row_bytes


@njit(cache=True, nogil=True, inline="always")
def _lane_width(left):
    """The widest SIMD add (8, 4, 2 or 1 lanes) that fits in ``left`` lanes."""
    return 8 if left >= 8 else (4 if left >= 4 else (2 if left >= 2 else 1))


@njit(cache=True, nogil=True)
def _lane_pass(wa, wb, bins, src, g0, step, row_bytes, j):
    """``_lane_pass4`` with its two widths (wa in 8, 4, 2, 1; wb <= wa, 0 for none) fixed at compile time: one
    sample loop per pair, so no width is tested inside the loop."""
    off = np.uintp(8 * wa)
    if wa == 8:
        if wb == 8:
            _lane_pass4(_add8, _add8, off, bins, src, g0, step, row_bytes, j)
        elif wb == 4:
            _lane_pass4(_add8, _add4, off, bins, src, g0, step, row_bytes, j)
        elif wb == 2:
            _lane_pass4(_add8, _add2, off, bins, src, g0, step, row_bytes, j)
        elif wb == 1:
            _lane_pass4(_add8, _add1, off, bins, src, g0, step, row_bytes, j)
        else:
            _lane_pass4(_add8, _add0, off, bins, src, g0, step, row_bytes, j)
    elif wa == 4:
        if wb == 2:
            _lane_pass4(_add4, _add2, off, bins, src, g0, step, row_bytes, j)
        elif wb == 1:
            _lane_pass4(_add4, _add1, off, bins, src, g0, step, row_bytes, j)
        else:
            _lane_pass4(_add4, _add0, off, bins, src, g0, step, row_bytes, j)
    elif wa == 2:
        if wb == 1:
            _lane_pass4(_add2, _add1, off, bins, src, g0, step, row_bytes, j)
        else:
            _lane_pass4(_add2, _add0, off, bins, src, g0, step, row_bytes, j)
    else:
        _lane_pass4(_add1, _add0, off, bins, src, g0, step, row_bytes, j)
