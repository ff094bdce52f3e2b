"""The lane passes of the root histogram: per sample, two fixed-width SIMD adds of its dw row into four
features' histogram rows (``_lane_pass4``), one compiled loop per pair of widths.

Reads ``bins`` (d, N) uint8 and dw (N, K) float64 at byte addresses; writes four features' rows of ``hist``
(d, n_bins, K). Called by ``histogram._root_histogram_block`` for K <= LANE_PASS_MAX_CLASSES.

``LanePlan(K)``: the class count as a compile-time constant (its numba type carries K). A kernel given one
compiles only the passes of that K (``lane_passes``); without one (``None``) it compiles the loop of every pair
of widths and picks at run time (``_lane_pass``). A fit passes its plan in ``RoundWork.lanes``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

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
    sample loop per pair, so no width is tested inside the loop (every pair compiles: the kernels without a
    ``LanePlan``)."""
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


_width = _lane_width.py_func  # the same rule in plain Python (``plan_widths``)


def plan_widths(n_classes: int) -> tuple[tuple[int, int], ...]:
    """The (wa, wb) pairs of SIMD widths that tile K lanes, in order (K = 10: ((8, 2),); K = 7: ((4, 2), (1, 0))),
    as ``lane_passes`` runs them; () above LANE_PASS_MAX_CLASSES. Plain Python (the twin of the run-time loop)."""
    if n_classes > LANE_PASS_MAX_CLASSES:
        return ()
    pairs, k = [], 0
    while k < n_classes:
        wa = _width(n_classes - k)
        wb = _width(n_classes - k - wa) if n_classes - k > wa else 0
        pairs.append((wa, wb))
        k += wa + wb
    return tuple(pairs)


def plan_key(n_classes: int) -> int:
    """The K a ``LanePlan`` carries: K itself up to LANE_PASS_MAX_CLASSES, 0 above (no lane passes), so every
    K > LANE_PASS_MAX_CLASSES shares one compiled round loop."""
    return int(n_classes) if n_classes <= LANE_PASS_MAX_CLASSES else 0


class LanePlan:
    """The class count K of a fit as a compile-time constant for the root histogram's lane passes (0: none)."""

    __slots__ = ("n_classes",)

    def __init__(self, n_classes: int):
        self.n_classes = plan_key(n_classes)

    def __repr__(self) -> str:
        return f"LanePlan({self.n_classes})"


class LanePlanType(types.Dummy):
    """numba type of a ``LanePlan``: K is part of the type, so each K compiles its own passes (no data)."""

    def __init__(self, n_classes: int):
        self.n_classes = n_classes
        super().__init__(name=f"LanePlan({n_classes})")


@typeof_impl.register(LanePlan)
def _typeof_lane_plan(val, c):
    return LanePlanType(val.n_classes)


register_model(LanePlanType)(models.OpaqueModel)


@unbox(LanePlanType)
def _unbox_lane_plan(typ, obj, c):
    return NativeValue(c.context.get_dummy_value())


def plan_fits(lanes, n_classes):
    """True when the lane passes run for ``n_classes`` (<= LANE_PASS_MAX_CLASSES, and the plan's K if any)."""
    return n_classes <= LANE_PASS_MAX_CLASSES if lanes is None else n_classes == lanes.n_classes


def lane_passes(lanes, n_classes, bins, src, g0, step, row_bytes, j):
    """Every lane pass of K = dw's row length (see ``plan_widths``); compiled code only (``_ol_lane_passes``)."""
    raise NotImplementedError("lane_passes runs in compiled kernels only")


@overload(plan_fits)
def _ol_plan_fits(lanes, n_classes):
    if isinstance(lanes, LanePlanType):
        k_plan = lanes.n_classes
        if k_plan == 0:
            return lambda lanes, n_classes: False
        return lambda lanes, n_classes: n_classes == k_plan
    return lambda lanes, n_classes: n_classes <= LANE_PASS_MAX_CLASSES


_ADDS = {8: _add8, 4: _add4, 2: _add2, 1: _add1, 0: _add0}


@overload(lane_passes)
def _ol_lane_passes(lanes, n_classes, bins, src, g0, step, row_bytes, j):
    """With a ``LanePlan``: straight-line code of that K's passes only (one or two sample loops). Without:
    the run-time loop over the pairs, through ``_lane_pass`` (every pair compiles)."""
    if not isinstance(lanes, LanePlanType):

        def run_time(lanes, n_classes, bins, src, g0, step, row_bytes, j):
            k = 0
            while k < n_classes:
                wa = _lane_width(n_classes - k)
                wb = _lane_width(n_classes - k - wa) if n_classes - k > wa else 0
                _lane_pass(wa, wb, bins, src + np.uintp(8 * k), g0 + np.uintp(8 * k), step, row_bytes, j)
                k += wa + wb

        return run_time
    pairs = plan_widths(lanes.n_classes)
    if not pairs:
        return lambda lanes, n_classes, bins, src, g0, step, row_bytes, j: None
    (wa1, wb1), second = pairs[0], pairs[1:]
    a1, b1, off1 = _ADDS[wa1], _ADDS[wb1], 8 * wa1
    if not second:

        def one(lanes, n_classes, bins, src, g0, step, row_bytes, j):
            _lane_pass4(a1, b1, np.uintp(off1), bins, src, g0, step, row_bytes, j)

        return one
    (wa2, wb2), k2 = second[0], 8 * (wa1 + wb1)
    a2, b2, off2 = _ADDS[wa2], _ADDS[wb2], 8 * wa2

    def two(lanes, n_classes, bins, src, g0, step, row_bytes, j):
        _lane_pass4(a1, b1, np.uintp(off1), bins, src, g0, step, row_bytes, j)
        _lane_pass4(a2, b2, np.uintp(off2), bins, src + np.uintp(k2), g0 + np.uintp(k2), step, row_bytes, j)

    return two
