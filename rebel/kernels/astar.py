"""Stage 4, a*: the split sums sp, sm of a tree's outputs, the closed form a* (S.6) and the weight total it
leaves (Eq. 7).

Reads wp, wm (N, K) float64 and the tree's outputs f (N,) int8; writes sp, sm (K,) and a (K,).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload, register_jitable

from .common import SMOOTHING
from .simd import _add_row, _c_rows


@njit(cache=True, nogil=True)
def split_sums(wp, wm, f, sp, sm):
    """sp = sum_{f=+1} wp + sum_{f=-1} wm and sm = sum_{f=+1} wm + sum_{f=-1} wp (S.6), K-vectors.

    Each component is summed over n in order; contiguous rows are added as SIMD rows, two classes in registers
    (the same bits)."""
    if wp.shape[1] == 2:
        _split_sums_pair(wp, wm, f, sp, sm)
        return
    for k in range(wp.shape[1]):
        sp[k] = 0.0
        sm[k] = 0.0
    _split_sums_by_layout(wp, wm, f, sp, sm)


@register_jitable
def _split_sums_pair(wp, wm, f, sp, sm):
    """``split_sums`` for K = 2: the four sums in registers, stored once at the end. A row added to sp and sm in
    memory (``_split_sums_rows``) waits for the previous row's store to be read back: at K = 2 that wait was the
    loop's whole time (0.33 ms against 0.10 for N = 100k on this project's 2-core machine)."""
    p0 = 0.0
    p1 = 0.0
    m0 = 0.0
    m1 = 0.0
    for n in range(wp.shape[0]):
        pos = f[n] > 0  # selects, not branches (as below)
        a0, a1, b0, b1 = wp[n, 0], wp[n, 1], wm[n, 0], wm[n, 1]
        p0 += a0 if pos else b0
        p1 += a1 if pos else b1
        m0 += b0 if pos else a0
        m1 += b1 if pos else a1
    sp[0] = p0
    sp[1] = p1
    sm[0] = m0
    sm[1] = m1


@register_jitable
def _split_sums_rows(wp, wm, f, sp, sm):
    """``split_sums`` on arrays whose rows are contiguous and follow each other (``simd._c_rows``): each sample's
    row goes to sp and sm as SIMD row adds."""
    n_samples, n_classes = wp.shape
    row_bytes = np.uintp(8 * n_classes)
    p, m = wp.ctypes.data, wm.ctypes.data
    to_p, to_m = sp.ctypes.data, sm.ctypes.data
    for n in range(n_samples):
        pos = f[n] > 0  # a select, not a branch: f follows the data, so a branch would mispredict often
        _add_row(to_p, p if pos else m, n_classes)
        _add_row(to_m, m if pos else p, n_classes)
        p += row_bytes
        m += row_bytes


@register_jitable
def _split_sums_strided(wp, wm, f, sp, sm):
    """``split_sums`` on arrays of any layout, element by element."""
    n_samples, n_classes = wp.shape
    for n in range(n_samples):
        if f[n] > 0:
            for k in range(n_classes):
                sp[k] += wp[n, k]
                sm[k] += wm[n, k]
        else:
            for k in range(n_classes):
                sp[k] += wm[n, k]
                sm[k] += wp[n, k]


def _split_sums_by_layout(wp, wm, f, sp, sm):
    """Add the rows to sp and sm by the fastest loop their layout allows (compiled code only)."""
    raise NotImplementedError("_split_sums_by_layout runs in compiled kernels only")


@overload(_split_sums_by_layout)
def _ol_split_sums_by_layout(wp, wm, f, sp, sm):
    """Chosen when ``split_sums`` is typed: arrays numba types as C-contiguous compile the SIMD loop alone (the
    strided one beside it would add 0.2-0.3 s of CPU to a first fit's compile); other layouts test at run time."""
    if all(a.layout == "C" for a in (wp, wm, sp, sm)):
        return _split_sums_rows

    def by_layout(wp, wm, f, sp, sm):
        if _c_rows(wp) and _c_rows(wm) and _c_rows(sp) and _c_rows(sm):
            _split_sums_rows(wp, wm, f, sp, sm)
        else:
            _split_sums_strided(wp, wm, f, sp, sm)

    return by_layout


@njit(cache=True, nogil=True)
def a_star(sp, sm, out):
    """Closed-form a* = (ln(sm + eps) - ln(sp + eps)) / 2 with eps = SMOOTHING * total / K (S.6)."""
    n_classes = sp.shape[0]
    total = 0.0
    for k in range(n_classes):
        total += sp[k] + sm[k]
    eps = SMOOTHING * total / n_classes
    # max(eps, 1e-300) as numba computes it, as a select: the builtin would compile an overload on a first fit
    eps = 1e-300 if 1e-300 >= eps else eps  # noqa: FURB136
    for k in range(n_classes):
        out[k] = 0.5 * (np.log(sm[k] + eps) - np.log(sp[k] + eps))


@njit(cache=True, nogil=True)
def round_total(sp, sm, a):
    """Weight total after adding f a: sum_k sp_k e^{a_k} + sm_k e^{-a_k} (Eq. 7 without constants)."""
    total = 0.0
    for k in range(sp.shape[0]):
        total += sp[k] * np.exp(a[k]) + sm[k] * np.exp(-a[k])
    return total


@njit(cache=True, nogil=True, inline="always")
def _layer_choose_a(sp, sm, a, a_new):
    """Step (3) of a deeper layer: per class, the closed-form a_k unless the previous a_k gives a lower loss.

    Returns the weight total after the round with the chosen a (written into ``a``).
    """
    total = 0.0
    for k in range(sp.shape[0]):
        new_loss = sp[k] * np.exp(a_new[k]) + sm[k] * np.exp(-a_new[k])
        old_loss = sp[k] * np.exp(a[k]) + sm[k] * np.exp(-a[k])
        if new_loss <= old_loss:
            a[k] = a_new[k]
            total += new_loss
        else:
            total += old_loss
    return total
