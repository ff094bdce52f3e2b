"""SIMD row adds: ``dst[0:K] += src[0:K]`` on float64 rows at byte addresses, in lanes of 8, 4, 2 and 1.

Reads and writes the rows it is given (histogram rows, weight rows, split sums); lane-wise IEEE addition, so every
sum has the bits of the scalar loop. Used by the histograms (``histogram``, ``lanes``) and the split sums
(``astar``).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import types
from numba.extending import intrinsic, overload


def _vector_add(width: int):
    """An intrinsic ``add(dst, src)``: the ``width`` float64 at byte address dst += those at src, as one SIMD add.

    Lane-wise IEEE addition, so the sums are bit-identical to ``width`` scalar additions. numba cannot prove that
    a histogram row and a weight row never overlap, so it leaves ``h[b, k] += dw[n, k]`` scalar; these adds say
    what the loop means.
    """

    @intrinsic
    def add(typingctx, dst, src):
        sig = types.void(types.uintp, types.uintp)

        def codegen(context, builder, signature, args):
            vec = ir.VectorType(ir.DoubleType(), width)
            dst_ptr = builder.inttoptr(args[0], vec.as_pointer())
            src_ptr = builder.inttoptr(args[1], vec.as_pointer())
            total = builder.fadd(builder.load(dst_ptr, align=8), builder.load(src_ptr, align=8))
            builder.store(total, dst_ptr, align=8)
            return context.get_dummy_value()

        return sig, codegen

    return add


_add8 = _vector_add(8)


_add4 = _vector_add(4)


_add2 = _vector_add(2)


_add1 = _vector_add(1)


@njit(cache=True, nogil=True, inline="always")
def _add0(dst, src):
    """No add: the absent second width of a lane pass."""


@njit(cache=True, nogil=True, inline="always")
def _add_row(dst, src, n_classes):
    """dst[0:K] += src[0:K] (float64 rows at byte addresses), in SIMD steps of 8, 4, 2 and 1."""
    k = 0
    while k + 8 <= n_classes:
        _add8(dst + np.uintp(8 * k), src + np.uintp(8 * k))
        k += 8
    if k + 4 <= n_classes:
        _add4(dst + np.uintp(8 * k), src + np.uintp(8 * k))
        k += 4
    if k + 2 <= n_classes:
        _add2(dst + np.uintp(8 * k), src + np.uintp(8 * k))
        k += 2
    if k < n_classes:
        _add1(dst + np.uintp(8 * k), src + np.uintp(8 * k))


def _c_rows(a):
    """True when a 2-D or 3-D float64 array's last axis is contiguous and its rows follow each other."""
    step = 8
    for ax in range(a.ndim - 1, -1, -1):
        if a.shape[ax] > 1 and a.strides[ax] != step:
            return False
        step *= a.shape[ax]
    return True


@overload(_c_rows)
def _ol_c_rows(a):
    """In compiled code: ``True`` for an array numba types as C-contiguous (its strides are those of C order),
    so the strided fallbacks beside it compile to nothing there; the test at run time otherwise."""
    if a.layout == "C":
        return lambda a: True
    return _c_rows
