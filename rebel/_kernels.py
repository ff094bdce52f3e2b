"""Compiled kernels of the REBEL engine (numba). Each one has a slow, obvious twin of the same name in
``tests/naive.py``, and a test comparing the two.

Stages, in the order data flows through them (one section each below):

1. binning            raw X -> uint8 bin codes
2. histograms         per-feature (root) and per-leaf (deeper layers) sums over bins
3. split search       the root stump criterion and the deeper-layer leaf criterion
4. a*                 the closed-form output vector and the weight total it leaves
5. round update       H and the weights move past a round (the weight update)
6. tree growth        one depth-D tree (``grow_tree``) and the round loop (``boost_rounds``)
7. prediction         tree outputs, leaf ids, scores and staged class indices on raw features
8. variants           logistic loss (Newton steps, line search), vector leaves, shrinkage

Paper equation -> function (the decomposition and the loss live in Python, the rest here):

=====================================================  ===========================================
decomposition c = beta 1 + c+, c- (S.3-S.5)            ``rebel.costs.decompose``
loss L (Eq. 2, F = exp)                                ``rebel.booster.training_loss``
stump criterion sum_k sqrt(sp_k sm_k) (S.6)            ``stump_criterion``; all candidates: ``root_scan``
leaf criterion of a deeper layer u_n, v_n (Sec. 4)     ``leaf_costs``; all candidates: ``leaf_scan``
a* = 1/2 (ln sm - ln sp) (S.6)                         ``a_star`` (sums: ``split_sums``)
loss after a round sum_k sp e^a + sm e^-a (Eq. 7)      ``round_total``
weight update wp e^{f a}, wm e^{-f a} (S.6)            ``apply_round``
model H(x) = a0 + sum_t f_t(x) a_t (Eq. 3)             ``predict_blocks``
=====================================================  ===========================================

Variants beyond the paper (section 8; DESIGN.md "Variants"; paper mode never calls them):

=====================================================  ===========================================
F(x) = ln(1 + e^x) (Eq. 1, logistic member)            ``softplus``; its loss sum ``logistic_loss_sum``
logistic gradient g and hessian h per (n, k)           ``logistic_stats``
vector leaf a_lk: exp 1/2 ln(Wm/Wp), logistic -G/H     ``leaf_value``
vector-leaf criterion sum_l sum_k (2 sqrt(Wp Wm))      ``leaf_objective``, ``vector_criterion``
binary-leaf Newton gain sum_k G^2 / H, step a          ``newton_root_scan``, ``newton_a``
binary-leaf Newton leaf criterion u_n, v_n             ``newton_leaf_costs`` (then ``leaf_scan``)
step with leaf values (and the exp weight update)      ``apply_leaf_values``
model with leaf values a0 + sum_t v_t(leaf_t(x))       ``predict_leaf_values``
=====================================================  ===========================================

Arrays they read and write:
- ``bins``      (d, N) uint8, feature-major bin codes: ``bins[j, n]`` = number of thresholds of feature j that are
                strictly below ``X[n, j]``. Threshold index ``i`` (1-based) sends ``bins[j, n] >= i`` right,
                which is exactly ``X[n, j] > tau_i``.
- ``wp, wm``    (N, K) float64 multi-class weights ``w+ = c+ * e^H`` and ``w- = c- * e^-H`` (S.6), renormalised
                by the booster so that their grand total is 1.
- ``dw``        (N, K) float64 ``wp - wm``. The root scan needs only its histogram: for a stump f,
                ``sp + sm = T`` (the column totals of wp + wm, the same for every f) and
                ``sp - sm = sum_n f_n dw_n``, so ``sp = (T + delta) / 2`` and ``sm = (T - delta) / 2``.
- trees         heap-ordered: internal node ``i`` has children ``2i+1`` (left, ``x <= tau``) and ``2i+2``
                (right, ``x > tau``); ``features``/``thr_idx``/``thresholds`` have ``2^D - 1`` entries and
                ``leaf_signs`` (+1/-1) has ``2^D``.
- ``TrainState``, ``RoundWork``, ``Forest``: the training loop's arrays, passed as three named tuples.

Every kernel writes into preallocated outputs and allocates nothing proportional to N.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange
from numba.core import types
from numba.extending import intrinsic

from . import _threading  # noqa: F401  (selects numba's threading layer before any parallel kernel runs)

# Relative size of the term added to every component of sp and sm before a* = (ln sm - ln sp) / 2, so that a
# class separated perfectly by a weak learner gets a large but finite a* (|a*| <= ~ln(1e9 K) / 2 ~ 11-13).
SMOOTHING = 1e-9
# A deeper-layer split must beat keeping the parent copy by more than this fraction of the leaf's weight;
# otherwise rounding in (V + R) versus U would replace a copy by a split that sends every sample one way.
LEAF_TOL = 1e-12
# Below this many (sample, feature) pairs, binning and prediction run on one thread: launching threads costs
# more than it saves.
PARALLEL_MIN_WORK = 200_000
# Training runs its parallel drivers only when each thread gets at least this many histogram adds a round,
# N d (K + D - 1) / threads (``train_in_parallel``): a round launches D + 1 parallel regions between serial
# passes, and below this the threads' start-up, the data moving between cores and the waits at each region's
# end cost more than the split saves. Measured on 2 threads (50 rounds, depth 2): parallel is 7-11% slower at
# 2e4-7.5e4 adds a thread, even at 1.5e5-2.2e5 (N=5k d=20 K=2; N=2k d=20 K=10), 10-23% faster at 1.5e5-6e5 with
# N >= 10k (N=20k, d=20, K=2: 6e5 adds a thread, 0.77 of the serial time).
PARALLEL_MIN_ADDS_PER_THREAD = 200_000
# Row chunks of the weight update: a fixed number, so its column totals, and every bit of a fit, do not depend
# on the thread count or on the serial/parallel choice.
UPDATE_CHUNKS = 8
# Up to this many classes the root histogram adds rows with fixed SIMD widths (``_lane_pass``); above it, in
# several passes, it would be slower than adding whole rows (measured at K = 20 and 50).
LANE_PASS_MAX_CLASSES = 16
# float64 entries of padding after each chunk's column sums in the weight update (one 64-byte cache line).
PART_PAD = 8


class TrainState(NamedTuple):
    """What the round loop moves forward: the weights, the training scores and the cost rows they are built on."""

    wp: np.ndarray  # (N, K) c+ e^H, total 1 after every round
    wm: np.ndarray  # (N, K) c- e^-H
    H: np.ndarray  # (N, K) training scores
    cost_rows: np.ndarray  # (N, K) per-sample costs (for the training risk)


class RoundWork(NamedTuple):
    """Work arrays of one round, allocated once per fit (``rebel.grower.round_work``)."""

    dw: np.ndarray  # (N, K) wp - wm
    w_total: np.ndarray  # (K,) column totals of wp + wm
    dw_total: np.ndarray  # (K,) column totals of dw
    hist: np.ndarray  # (d, n_bins, K) root histograms of dw
    leaf_hist: np.ndarray  # (2^(D-1), d, n_bins) leaf histograms of u - v (empty for stumps)
    f: np.ndarray  # (N,) int8 the tree's outputs on the training samples
    leaf: np.ndarray  # (N,) int32 their leaf ids
    e: np.ndarray  # (N,) u - v (leaf criterion)
    u_tot: np.ndarray  # (2^(D-1),) per-leaf totals of u
    v_tot: np.ndarray  # (2^(D-1),) per-leaf totals of v
    sp: np.ndarray  # (K,) split sums
    sm: np.ndarray  # (K,)
    parallel: bool  # parallel histogram and update drivers
    n_chunks: int  # row chunks of the parallel update


class Forest(NamedTuple):
    """Per-round outputs of the round loop (T rows each)."""

    features: np.ndarray  # (T, 2^D - 1) int32
    thr_idx: np.ndarray  # (T, 2^D - 1) int32
    leaf_signs: np.ndarray  # (T, 2^D) int8
    A: np.ndarray  # (T, K) output vectors
    layer_totals: np.ndarray  # (T, D) weight total after each layer, relative to 1 before the round
    round_totals: np.ndarray  # (T,) weight total after the round, relative to 1 before it
    risks: np.ndarray  # (T,) training risk after the round


def pick(parallel_kernel, serial_kernel, work):
    """The parallel or the serial driver of a kernel, by the amount of work (serial when numba has 1 thread)."""
    return parallel_kernel if work >= PARALLEL_MIN_WORK and numba.get_num_threads() > 1 else serial_kernel


def train_in_parallel(n_samples: int, n_features: int, n_classes: int, depth: int) -> bool:
    """Whether a fit's rounds use the parallel drivers: by the histogram adds each of numba's threads gets a
    round (PARALLEL_MIN_ADDS_PER_THREAD). Both drivers give the same bits."""
    threads = numba.get_num_threads()
    adds = n_samples * n_features * (n_classes + depth - 1)
    return threads > 1 and adds / threads >= PARALLEL_MIN_ADDS_PER_THREAD


def update_chunks(n_samples: int) -> int:
    """Row chunks of the weight update (at least 1024 rows each, at most UPDATE_CHUNKS)."""
    return max(1, min(UPDATE_CHUNKS, n_samples // 1024))


# --------------------------------------------------------------------------------------------------------------
# 1. Binning: raw X -> uint8 bin codes
# --------------------------------------------------------------------------------------------------------------


BIN_BLOCK = 256  # rows per block in bin_features


@njit(cache=True, nogil=True)
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
        _bin_rows(X, thresholds, bins, start, min(start + BIN_BLOCK, n_samples))


# --------------------------------------------------------------------------------------------------------------
# 2. Histograms: per feature (root) and per leaf (deeper layers)
# --------------------------------------------------------------------------------------------------------------


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


@njit(cache=True, nogil=True)
def _c_rows(a):
    """True when a 2-D or 3-D float64 array's last axis is contiguous and its rows follow each other."""
    step = 8
    for ax in range(a.ndim - 1, -1, -1):
        if a.shape[ax] > 1 and a.strides[ax] != step:
            return False
        step *= a.shape[ax]
    return True


@njit(cache=True, nogil=True, inline="always")
def _add0(dst, src):
    """No add: the absent second width of a lane pass."""


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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _root_histogram_block(bins, dw, hist, j, width):
    """hist[j : j + width] (width 1, 2 or 4) over dw; every bin adds its samples in order n = 0..N-1.

    Four features with K <= LANE_PASS_MAX_CLASSES: one pass per pair of SIMD widths that tile the K lanes
    (K = 10: 8 + 2, one pass; K = 7: 4 + 2, then 1), each with no width test inside its sample loop (about 2x
    faster than ``_add_row`` at K = 2 and 1.5x at K = 10). Otherwise one pass adding whole rows.
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
    if width == 4 and n_classes <= LANE_PASS_MAX_CLASSES:
        k = 0
        while k < n_classes:
            wa = _lane_width(n_classes - k)
            wb = _lane_width(n_classes - k - wa) if n_classes - k > wa else 0
            _lane_pass(wa, wb, bins, src + np.uintp(8 * k), g0 + np.uintp(8 * k), step, row_bytes, j)
            k += wa + wb
        return
    g1 = g0 + step
    g2 = g1 + step
    g3 = g2 + step
    r0 = bins[j]
    if width == 4:
        r1, r2, r3 = bins[j + 1], bins[j + 2], bins[j + 3]
        for n in range(n_samples):
            _add_row(g0 + row_bytes * np.uintp(r0[n]), src, n_classes)
            _add_row(g1 + row_bytes * np.uintp(r1[n]), src, n_classes)
            _add_row(g2 + row_bytes * np.uintp(r2[n]), src, n_classes)
            _add_row(g3 + row_bytes * np.uintp(r3[n]), src, n_classes)
            src += row_bytes
    elif width == 2:
        r1 = bins[j + 1]
        for n in range(n_samples):
            _add_row(g0 + row_bytes * np.uintp(r0[n]), src, n_classes)
            _add_row(g1 + row_bytes * np.uintp(r1[n]), src, n_classes)
            src += row_bytes
    else:
        for n in range(n_samples):
            _add_row(g0 + row_bytes * np.uintp(r0[n]), src, n_classes)
            src += row_bytes


@njit(cache=True, nogil=True)
def _root_histogram_blocks(bins, dw, hist, b):
    """Block b of ``root_histograms``: features 4b..4b+3, the last block's remainder in pairs and singles."""
    n_features = bins.shape[0]
    j = 4 * b
    stop = min(j + 4, n_features)
    while j < stop:
        width = 4 if stop - j >= 4 else (2 if stop - j >= 2 else 1)
        _root_histogram_block(bins, dw, hist, j, width)
        j += width


@njit(cache=True, nogil=True, parallel=True)
def root_histograms(bins, dw, hist):
    """hist[j, b, k] = sum of dw[n, k] over samples n with bins[j, n] == b. hist: (d, n_bins, K).

    Threads own blocks of features (one pass over dw feeds several histograms; no two threads ever add into the
    same histogram); each bin's sum runs over n in order, so any thread count gives the same bits.
    """
    for b in prange((bins.shape[0] + 3) // 4):
        _root_histogram_blocks(bins, dw, hist, b)


@njit(cache=True, nogil=True)
def root_histograms_serial(bins, dw, hist):
    """``root_histograms`` on one thread (small problems, where launching threads costs more than it saves)."""
    for b in range((bins.shape[0] + 3) // 4):
        _root_histogram_blocks(bins, dw, hist, b)


@njit(cache=True, nogil=True)
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


# --------------------------------------------------------------------------------------------------------------
# 3. Split search: the root stump criterion and the leaf criterion of a deeper layer
# --------------------------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def stump_criterion(sp, sm):
    """The root stump criterion sum_k sqrt(sp_k sm_k) (S.6): the loss after the round with a = a* is
    proportional to twice it, so the best stump minimises it. ``root_scan`` evaluates it on every candidate."""
    total = 0.0
    for k in range(sp.shape[0]):
        total += np.sqrt(sp[k] * sm[k])
    return total


@njit(cache=True, nogil=True)
def root_scan(hist, dw_total, w_total, usable):
    """Best root stump (rho = +1) minimising sum_k sqrt(sp_k sm_k) (S.6).

    Candidates run over usable features j ascending, thresholds i = 1..n_bins-1 ascending; a new best must be
    strictly lower (first wins ties). Returns (feature, threshold index, objective); feature -1 if none.
    With delta = (sum over right - sum over left) of dw, sp = (T + delta) / 2 and sm = (T - delta) / 2, so
    sqrt(sp sm) = sqrt(max((T + delta)(T - delta), 0)) / 2 exactly (powers of two scale without rounding); a
    whole feature's thresholds are scored class by class in branch-free loops.
    """
    n_features, n_bins, n_classes = hist.shape
    best_j = -1
    best_i = 0
    best = np.inf
    obj = np.empty(n_bins - 1)
    prod = np.empty(n_bins - 1)
    for j in range(n_features):
        if not usable[j]:
            continue
        obj[:] = 0.0
        for k in range(n_classes):
            left = 0.0
            T = w_total[k]
            D = dw_total[k]
            for i in range(n_bins - 1):
                left += hist[j, i, k]
                delta = D - 2.0 * left
                prod[i] = (T + delta) * (T - delta)
            for i in range(n_bins - 1):
                obj[i] += 0.5 * np.sqrt(max(prod[i], 0.0))
        for i in range(n_bins - 1):
            if obj[i] < best:
                best = obj[i]
                best_j = j
                best_i = i + 1
    return best_j, best_i, best


@njit(cache=True, nogil=True)
def leaf_costs(wp, wm, leaf, a, e_out, u_tot, v_tot):
    """Per-sample u - v for the deeper-layer search (Sec. 4, step 2), and per-leaf totals of u and v.

    u_n = <wp_n, e^a> + <wm_n, e^-a> is the sample's loss if it gets +1, v_n the same with a negated.
    Two samples at a time: their sums over k are independent chains that the CPU overlaps (every sum keeps
    its order, so the bits are those of one sample at a time).
    """
    n_samples, n_classes = wp.shape
    ea = np.exp(a)
    ema = np.exp(-a)
    u_tot[:] = 0.0
    v_tot[:] = 0.0
    n = 0
    while n + 2 <= n_samples:
        u0, v0, u1, v1 = 0.0, 0.0, 0.0, 0.0
        for k in range(n_classes):
            p0, m0, p1, m1 = wp[n, k], wm[n, k], wp[n + 1, k], wm[n + 1, k]
            u0 += p0 * ea[k] + m0 * ema[k]
            v0 += p0 * ema[k] + m0 * ea[k]
            u1 += p1 * ea[k] + m1 * ema[k]
            v1 += p1 * ema[k] + m1 * ea[k]
        e_out[n] = u0 - v0
        e_out[n + 1] = u1 - v1
        u_tot[leaf[n]] += u0
        v_tot[leaf[n]] += v0
        u_tot[leaf[n + 1]] += u1
        v_tot[leaf[n + 1]] += v1
        n += 2
    if n < n_samples:
        u, v = 0.0, 0.0
        for k in range(n_classes):
            u += wp[n, k] * ea[k] + wm[n, k] * ema[k]
            v += wp[n, k] * ema[k] + wm[n, k] * ea[k]
        e_out[n] = u - v
        u_tot[leaf[n]] += u
        v_tot[leaf[n]] += v


@njit(cache=True, nogil=True)
def leaf_scan(hist, u_tot, v_tot, base_signs, usable, best_feature, best_thr, best_polarity):
    """For each leaf choose the stump (feature, threshold, polarity) minimising its samples' loss (Sec. 4).

    Keeping the leaf's parent copy (every sample keeps sign ``base_signs[l]``) costs U or V; a split with
    polarity +1 costs V + R and with -1 costs U - R, R being the sum of u - v over the samples sent right.
    Candidates: usable features ascending, thresholds ascending, polarity +1 before -1; a split replaces the
    copy (and a later candidate an earlier one) only when lower by more than LEAF_TOL * (U + V).
    Leaves that keep the copy get best_feature = -1.
    """
    n_leaves, n_features, n_bins = hist.shape
    for lf in range(n_leaves):
        U = u_tot[lf]
        V = v_tot[lf]
        tol = LEAF_TOL * (U + V)
        best = U if base_signs[lf] > 0 else V
        best_feature[lf] = -1
        best_thr[lf] = 0
        best_polarity[lf] = base_signs[lf]
        E = U - V
        for j in range(n_features):
            if not usable[j]:
                continue
            left = 0.0
            for i in range(1, n_bins):
                left += hist[lf, j, i - 1]
                right = E - left
                loss_plus = V + right
                if loss_plus < best - tol:
                    best = loss_plus
                    best_feature[lf] = j
                    best_thr[lf] = i
                    best_polarity[lf] = 1
                loss_minus = U - right
                if loss_minus < best - tol:
                    best = loss_minus
                    best_feature[lf] = j
                    best_thr[lf] = i
                    best_polarity[lf] = -1


# --------------------------------------------------------------------------------------------------------------
# 4. a*: split sums, the closed form, the weight total it leaves
# --------------------------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def split_sums(wp, wm, f, sp, sm):
    """sp = sum_{f=+1} wp + sum_{f=-1} wm and sm = sum_{f=+1} wm + sum_{f=-1} wp (S.6), K-vectors.

    Each component is summed over n in order; contiguous rows are added as SIMD rows (the same bits)."""
    n_samples, n_classes = wp.shape
    sp[:] = 0.0
    sm[:] = 0.0
    if _c_rows(wp) and _c_rows(wm) and _c_rows(sp) and _c_rows(sm):
        row_bytes = np.uintp(8 * n_classes)
        p, m = wp.ctypes.data, wm.ctypes.data
        to_p, to_m = sp.ctypes.data, sm.ctypes.data
        for n in range(n_samples):
            pos = f[n] > 0  # a select, not a branch: f follows the data, so a branch would mispredict often
            _add_row(to_p, p if pos else m, n_classes)
            _add_row(to_m, m if pos else p, n_classes)
            p += row_bytes
            m += row_bytes
        return
    for n in range(n_samples):
        if f[n] > 0:
            for k in range(n_classes):
                sp[k] += wp[n, k]
                sm[k] += wm[n, k]
        else:
            for k in range(n_classes):
                sp[k] += wm[n, k]
                sm[k] += wp[n, k]


@njit(cache=True, nogil=True)
def a_star(sp, sm, out):
    """Closed-form a* = (ln(sm + eps) - ln(sp + eps)) / 2 with eps = SMOOTHING * total / K (S.6)."""
    n_classes = sp.shape[0]
    total = 0.0
    for k in range(n_classes):
        total += sp[k] + sm[k]
    eps = max(SMOOTHING * total / n_classes, 1e-300)
    for k in range(n_classes):
        out[k] = 0.5 * (np.log(sm[k] + eps) - np.log(sp[k] + eps))


@njit(cache=True, nogil=True)
def round_total(sp, sm, a):
    """Weight total after adding f a: sum_k sp_k e^{a_k} + sm_k e^{-a_k} (Eq. 7 without constants)."""
    total = 0.0
    for k in range(sp.shape[0]):
        total += sp[k] * np.exp(a[k]) + sm[k] * np.exp(-a[k])
    return total


@njit(cache=True, nogil=True)
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


# --------------------------------------------------------------------------------------------------------------
# 5. Round update: H and the weights move past a round (the weight update)
# --------------------------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _apply_round_rows(wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_part, dw_part, start, stop):
    """apply_round on rows start..stop; column totals go to w_part / dw_part, returns the rows' cost sum.

    f and the argmax follow the data, so both are selects, not branches (a mispredicted branch a row cost more
    than the row's arithmetic): H + (-a) is H - a, and the products keep their order, so the bits are those of
    the branching form."""
    n_classes = wp.shape[1]
    risk = 0.0
    w_part[:] = 0.0
    dw_part[:] = 0.0
    na = -a
    for n in range(start, stop):
        pos = f[n] > 0
        for k in range(n_classes):  # e^a and e^-a are read before H is written: numba cannot tell that H is
            up = ea[k] if pos else ema[k]  # another array, and would read them again after the write
            down = ema[k] if pos else ea[k]
            H[n, k] += a[k] if pos else na[k]
            p = wp[n, k] * up * scale
            m = wm[n, k] * down * scale
            wp[n, k] = p
            wm[n, k] = m
            dw[n, k] = p - m
            w_part[k] += p + m
            dw_part[k] += p - m
        best = 0
        top = H[n, 0]
        for k in range(1, n_classes):  # the first of equal maxima, as np.argmax
            h = H[n, k]
            higher = h > top
            best = k if higher else best
            top = h if higher else top
        risk += cost_rows[n, best]
    return risk


@njit(cache=True, nogil=True)
def _half_sums(parts):
    """sum(parts[:h]) + sum(parts[h:]) with h = ceil(n / 2), each half summed in order: a fixed order, the one
    numba's two-thread reduction used here before (so fits recorded then keep their bits)."""
    h = (parts.shape[0] + 1) // 2
    first = 0.0
    for c in range(h):
        first += parts[c]
    second = 0.0
    for c in range(h, parts.shape[0]):
        second += parts[c]
    return first + second


@njit(cache=True, nogil=True)
def _chunk_totals(w_parts, dw_parts, risks, w_total, dw_total, n_samples):
    """Column totals and the mean risk from the per-chunk parts, in a fixed order (``_half_sums``)."""
    for k in range(w_total.shape[0]):
        w_total[k] = _half_sums(w_parts[:, k])
        dw_total[k] = _half_sums(dw_parts[:, k])
    return _half_sums(risks) / max(n_samples, 1)


@njit(cache=True, nogil=True)
def _apply_round_buffers(wp, a, n_chunks):
    """e^a, e^-a and the per-chunk parts (w_parts, dw_parts (n_chunks, K + PART_PAD), risks (n_chunks,)) of
    ``apply_round``. A chunk writes its row's first K entries once a sample; the padding keeps two chunks' rows a
    cache line apart, so two threads never write the same line (when they did, by where the array landed, a
    2-thread fit at N=20k took 0.108 s instead of 0.060)."""
    n_classes = wp.shape[1]
    w_parts = np.empty((n_chunks, n_classes + PART_PAD))
    dw_parts = np.empty((n_chunks, n_classes + PART_PAD))
    return np.exp(a), np.exp(-a), w_parts, dw_parts, np.empty(n_chunks)


@njit(cache=True, nogil=True)
def _apply_round_chunk(wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_parts, dw_parts, risks, c):
    """Chunk ``c`` of ``apply_round`` (rows [c size, (c + 1) size), size = ceil(N / n_chunks)): writes its rows
    of H, wp, wm, dw and its parts w_parts[c], dw_parts[c], risks[c]."""
    n_samples = wp.shape[0]
    n_chunks = risks.shape[0]
    size = (n_samples + n_chunks - 1) // n_chunks
    start = min(c * size, n_samples)
    stop = min(start + size, n_samples)
    risks[c] = _apply_round_rows(
        wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_parts[c], dw_parts[c], start, stop
    )


@njit(cache=True, nogil=True, parallel=True)
def apply_round(wp, wm, H, f, a, scale, cost_rows, dw, w_total, dw_total, n_chunks):
    """Add the round's f a to H and move the weights to the next round, in one pass over the samples.

    H += f a; wp <- wp e^{f a} scale; wm <- wm e^{-f a} scale, where ``scale`` = 1 / (their new total), known
    beforehand in closed form (sum_k sp_k e^{a_k} + sm_k e^{-a_k}, S.6), so the weights are renormalised every
    round without a second pass. Writes dw = wp - wm and the column totals of wp + wm and of dw; returns the
    risk mean_n cost_rows[n, argmax_k H[n, k]] (ties to the lowest k). Threads own row chunks; the totals are
    summed per chunk and then in chunk order, so a given ``n_chunks`` gives the same bits on any thread count.
    """
    ea, ema, w_parts, dw_parts, risks = _apply_round_buffers(wp, a, n_chunks)
    for c in prange(n_chunks):
        _apply_round_chunk(wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_parts, dw_parts, risks, c)
    return _chunk_totals(w_parts, dw_parts, risks, w_total, dw_total, wp.shape[0])


@njit(cache=True, nogil=True)
def apply_round_serial(wp, wm, H, f, a, scale, cost_rows, dw, w_total, dw_total, n_chunks):
    """``apply_round`` on one thread, chunk after chunk (the same bits as the parallel driver)."""
    ea, ema, w_parts, dw_parts, risks = _apply_round_buffers(wp, a, n_chunks)
    for c in range(n_chunks):
        _apply_round_chunk(wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_parts, dw_parts, risks, c)
    return _chunk_totals(w_parts, dw_parts, risks, w_total, dw_total, wp.shape[0])


# --------------------------------------------------------------------------------------------------------------
# 6. Tree growth and the round loop
# --------------------------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def eval_tree_binned(bins, features, thr_idx, leaf_signs, depth, f_out, leaf_out):
    """f_out[n] = tree output (+1/-1) and leaf_out[n] = leaf index for each binned sample.

    Depths 1 and 2 test every node of the tree on every sample and select the leaf (no load depends on an
    earlier test, so the loop runs as SIMD: 15-17x the node-by-node walk); deeper trees walk node by node."""
    n_samples = bins.shape[1]
    if depth == 1:
        r, t = bins[features[0]], thr_idx[0]
        s0, s1 = leaf_signs[0], leaf_signs[1]
        for n in range(n_samples):
            right = r[n] >= t
            leaf_out[n] = np.int32(right)
            f_out[n] = s1 if right else s0
        return
    if depth == 2:
        r0, r1, r2 = bins[features[0]], bins[features[1]], bins[features[2]]
        t0, t1, t2 = thr_idx[0], thr_idx[1], thr_idx[2]
        s0, s1, s2, s3 = leaf_signs[0], leaf_signs[1], leaf_signs[2], leaf_signs[3]
        for n in range(n_samples):
            right = r0[n] >= t0
            c1 = r1[n] >= t1  # both children's tests, then a select: a branch here would stop the SIMD loop
            c2 = r2[n] >= t2
            c = c2 if right else c1
            leaf_out[n] = 2 * np.int32(right) + np.int32(c)
            f_out[n] = (s3 if c else s2) if right else (s1 if c else s0)
        return
    first_leaf = (1 << depth) - 1
    for n in range(n_samples):
        node = 0
        for _ in range(depth):
            node = 2 * node + 1 + np.int64(bins[features[node], n] >= thr_idx[node])
        leaf = node - first_leaf
        leaf_out[n] = leaf
        f_out[n] = leaf_signs[leaf]


@njit(cache=True, nogil=True)
def set_layer(features, thr_idx, leaf_signs, old_signs, best_feature, best_thr, best_polarity):
    """Write a new layer of 2n nodes below the n = ``old_signs.shape[0]`` current leaves (heap positions
    n - 1 .. 2n - 2): leaf l splits on (best_feature[l], best_thr[l]) with polarity best_polarity[l], or, when
    best_feature[l] < 0, copies its parent's split so that its samples take the same branch and keep their sign
    ``old_signs[l]`` (the function is unchanged). Rewrites leaf_signs[:2n]."""
    n_leaves = old_signs.shape[0]
    first_leaf = n_leaves - 1
    for lf in range(n_leaves):
        pos = first_leaf + lf
        if best_feature[lf] >= 0:
            features[pos] = best_feature[lf]
            thr_idx[pos] = best_thr[lf]
            rho = best_polarity[lf]
        else:
            # Copy of the parent: the leaf's samples take the same branch again and keep their sign s.
            parent = (pos - 1) // 2
            features[pos] = features[parent]
            thr_idx[pos] = thr_idx[parent]
            rho = -old_signs[lf] if pos % 2 == 1 else old_signs[lf]
        leaf_signs[2 * lf] = -rho
        leaf_signs[2 * lf + 1] = rho


@njit(cache=True, nogil=True)
def grow_tree(bins, usable, depth, state, work, features, thr_idx, leaf_signs, a, layer_totals):
    """Grow one depth-``depth`` tree and its a on the current weights (paper Sec. 4, DESIGN.md section 2).

    Reads ``state`` (wp, wm) and ``work``'s dw = wp - wm and the column totals of wp + wm and of dw (as
    ``apply_round`` leaves them). Writes the heap-ordered tree (features, thr_idx: 2^depth - 1; leaf_signs:
    2^depth), a (K,), the tree's outputs ``work.f`` and leaf ids ``work.leaf`` on the training samples, and
    layer_totals[l] = weight total after layer l + 1 (relative to the total 1 before the round). Depth 1 is the
    root stump (rho = +1) jointly optimised with a*. Each further layer copies every leaf's parent split,
    chooses per leaf the stump that minimises the leaf's loss with a fixed (``leaf_scan``), then recomputes a
    (``_layer_choose_a``). Returns False when no feature is usable (then the tree is f == +1 and a is the
    bias step).
    """
    wp, wm = state.wp, state.wm
    w = work
    n_classes = wp.shape[1]
    if w.parallel:
        root_histograms(bins, w.dw, w.hist)
    else:
        root_histograms_serial(bins, w.dw, w.hist)
    j, i, _ = root_scan(w.hist, w.dw_total, w.w_total, usable)
    if j < 0:
        features[:] = 0
        thr_idx[:] = 1
        leaf_signs[:] = 1
        w.f[:] = 1
        w.leaf[:] = 0
        split_sums(wp, wm, w.f, w.sp, w.sm)
        a_star(w.sp, w.sm, a)
        layer_totals[:] = round_total(w.sp, w.sm, a)
        return False
    features[0] = j
    thr_idx[0] = i
    leaf_signs[0] = -1
    leaf_signs[1] = 1
    eval_tree_binned(
        bins, features, thr_idx, leaf_signs, np.int64(1), w.f, w.leaf
    )  # not a literal: one signature
    split_sums(wp, wm, w.f, w.sp, w.sm)
    a_star(w.sp, w.sm, a)
    layer_totals[0] = round_total(w.sp, w.sm, a)
    a_new = np.empty(n_classes)
    for d in range(1, depth):
        n_leaves = 1 << d
        u_tot = w.u_tot[:n_leaves]
        v_tot = w.v_tot[:n_leaves]
        leaf_costs(wp, wm, w.leaf, a, w.e, u_tot, v_tot)
        if w.parallel:
            leaf_histograms(bins, w.leaf, w.e, w.leaf_hist[:n_leaves])
        else:
            leaf_histograms_serial(bins, w.leaf, w.e, w.leaf_hist[:n_leaves])
        best_feature = np.empty(n_leaves, dtype=np.int32)
        best_thr = np.empty(n_leaves, dtype=np.int32)
        best_polarity = np.empty(n_leaves, dtype=np.int8)
        old_signs = leaf_signs[:n_leaves].copy()
        leaf_scan(
            w.leaf_hist[:n_leaves], u_tot, v_tot, old_signs, usable, best_feature, best_thr, best_polarity
        )
        set_layer(features, thr_idx, leaf_signs, old_signs, best_feature, best_thr, best_polarity)
        eval_tree_binned(bins, features, thr_idx, leaf_signs, d + 1, w.f, w.leaf)
        split_sums(wp, wm, w.f, w.sp, w.sm)
        a_star(w.sp, w.sm, a_new)
        layer_totals[d] = _layer_choose_a(w.sp, w.sm, a, a_new)
    return True


@njit(cache=True, nogil=True)
def boost_rounds(t_start, t_stop, bins, usable, depth, state, work, forest, learning_rate=1.0):
    """Rounds t_start..t_stop-1 of the REBEL loop in one call: grow a tree (``grow_tree``), then move H and the
    weights past it (``apply_round``, rescaled by the closed-form ``round_total``).

    Writes round t's tree into forest.features[t], thr_idx[t], leaf_signs[t], its a into A[t], the per-layer
    weight totals into layer_totals[t], the round's weight total (relative to 1 before it) into round_totals[t]
    and the training risk after it into risks[t]. ``learning_rate`` < 1 shrinks each a after its tree is grown.
    """
    for t in range(t_start, t_stop):
        a = forest.A[t]
        grow_tree(
            bins,
            usable,
            depth,
            state,
            work,
            forest.features[t],
            forest.thr_idx[t],
            forest.leaf_signs[t],
            a,
            forest.layer_totals[t],
        )
        if learning_rate != 1.0:  # shrinkage (a variant; paper mode takes the full step)
            a *= learning_rate
        total = round_total(work.sp, work.sm, a)
        forest.round_totals[t] = total
        forest.risks[t] = _update_weights(state, work, work.f, a, total)


@njit(cache=True, nogil=True)
def _update_weights(state, work, f, a, total):
    """``apply_round`` (parallel or serial driver, as ``work.parallel`` says) with scale = 1 / ``total``;
    returns the training risk after the round."""
    scale = 1.0 / total if total > 0.0 else 1.0
    s, w = state, work
    if w.parallel:
        return apply_round(s.wp, s.wm, s.H, f, a, scale, s.cost_rows, w.dw, w.w_total, w.dw_total, w.n_chunks)
    return apply_round_serial(
        s.wp, s.wm, s.H, f, a, scale, s.cost_rows, w.dw, w.w_total, w.dw_total, w.n_chunks
    )


# --------------------------------------------------------------------------------------------------------------
# 7. Prediction on raw features: tree outputs, leaf ids, scores, staged class indices
# --------------------------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _leaf_of(x, features, thresholds, depth):
    """Leaf index of one raw sample in one heap-ordered tree (x > tau goes right)."""
    node = 0
    for _ in range(depth):
        # Branch-free: the comparison is unpredictable, and a mispredicted branch costs more than the walk.
        node = 2 * node + 1 + np.int64(x[features[node]] > thresholds[node])
    return node - ((1 << depth) - 1)


@njit(cache=True, nogil=True)
def _tree_outputs_one(x, features, thresholds, leaf_signs, depth, out):
    for t in range(features.shape[0]):
        out[t] = leaf_signs[t, _leaf_of(x, features[t], thresholds[t], depth)]


@njit(cache=True, nogil=True, parallel=True)
def tree_outputs(X, features, thresholds, leaf_signs, depth, out):
    """out[n, t] = f_t(X[n]) in {-1, +1} for every round t, on raw features."""
    for n in prange(X.shape[0]):
        _tree_outputs_one(X[n], features, thresholds, leaf_signs, depth, out[n])


@njit(cache=True, nogil=True)
def tree_outputs_serial(X, features, thresholds, leaf_signs, depth, out):
    """``tree_outputs`` on one thread."""
    for n in range(X.shape[0]):
        _tree_outputs_one(X[n], features, thresholds, leaf_signs, depth, out[n])


@njit(cache=True, nogil=True)
def _tree_leaves_one(x, features, thresholds, depth, out):
    for t in range(features.shape[0]):
        out[t] = _leaf_of(x, features[t], thresholds[t], depth)


@njit(cache=True, nogil=True, parallel=True)
def tree_leaves(X, features, thresholds, depth, out):
    """out[n, t] = leaf id (0 .. 2^depth - 1) of X[n] in round t's tree, on raw features."""
    for n in prange(X.shape[0]):
        _tree_leaves_one(X[n], features, thresholds, depth, out[n])


@njit(cache=True, nogil=True)
def tree_leaves_serial(X, features, thresholds, depth, out):
    """``tree_leaves`` on one thread."""
    for n in range(X.shape[0]):
        _tree_leaves_one(X[n], features, thresholds, depth, out[n])


PREDICT_BLOCK = 128  # rows per block in predict_blocks


@njit(cache=True, nogil=True)
def _block_transpose(X, start, stop):
    """Rows start..stop of X as a feature-major (d, rows) array."""
    Xt = np.empty((X.shape[1], stop - start))
    for n in range(stop - start):
        for j in range(X.shape[1]):
            Xt[j, n] = X[start + n, j]
    return Xt


@njit(cache=True, nogil=True)
def _block_tree_values(Xt, features, thresholds, leaf_signs, depth, val):
    """val[0, n] = f(x_n) (+-1) for one tree on a feature-major block, without data-dependent branches.

    Bottom-up: a node's value is its right subtree's value where x > tau and its left subtree's elsewhere.
    """
    n_nodes = (1 << depth) - 1
    size = Xt.shape[1]
    for i in range(n_nodes - 1, -1, -1):
        xr = Xt[features[i]]
        thr = thresholds[i]
        vi = val[i]
        left = 2 * i + 1
        # Arithmetic blends (exact: every value is +-1) vectorise where a select on the comparison does not.
        if left >= n_nodes:
            s_left = np.float64(leaf_signs[left - n_nodes])
            step = np.float64(leaf_signs[left + 1 - n_nodes]) - s_left
            for n in range(size):
                vi[n] = s_left + step * np.float64(xr[n] > thr)
        else:
            v_left = val[left]
            v_right = val[left + 1]
            for n in range(size):
                vi[n] = v_left[n] + (v_right[n] - v_left[n]) * np.float64(xr[n] > thr)


@njit(cache=True, nogil=True)
def _predict_block(X, start, stop, a0, features, thresholds, leaf_signs, A, depth, scores, staged):
    """Scores of rows start..stop, tree by tree over the whole block (feature-major, branch-free).

    Writes scores[n] = a0 + sum_t f_t(x_n) A[t] (Eq. 3) when ``scores`` has rows, and staged[t, n] = argmax_k
    of the scores after t rounds, t = 0..T (t = 0: a0 alone; ties to the lowest k) when ``staged`` has rows.
    (One signature for both uses: the unused output is an empty array, which halves compilation.)
    """
    n_rounds, n_classes = A.shape
    Xt = _block_transpose(X, start, stop)
    size = stop - start
    acc = np.empty((n_classes, size))
    for k in range(n_classes):
        acc[k, :] = a0[k]
    val = np.empty(((1 << depth) - 1, size))
    best_val = np.empty(size)
    best = np.empty(size, dtype=np.int64)
    for t in range(n_rounds + 1):
        if t > 0:
            _block_tree_values(Xt, features[t - 1], thresholds[t - 1], leaf_signs[t - 1], depth, val)
            f = val[0]
            for k in range(n_classes):
                ak = A[t - 1, k]
                row = acc[k]
                for n in range(size):
                    row[n] += ak * f[n]
        if staged.shape[0] > 0:
            for n in range(size):  # a loop, not best_val[:] = acc[0]: that copy compiles ~2 s of error text
                best_val[n] = acc[0, n]
            best[:] = 0
            for k in range(1, n_classes):
                row = acc[k]
                for n in range(size):
                    better = row[n] > best_val[n]
                    best_val[n] = row[n] if better else best_val[n]
                    best[n] = k if better else best[n]
            for n in range(size):
                staged[t, start + n] = best[n]
    if scores.shape[0] > 0:
        for n in range(size):
            for k in range(n_classes):
                scores[start + n, k] = acc[k, n]


@njit(cache=True, nogil=True, parallel=True)
def predict_blocks(X, a0, features, thresholds, leaf_signs, A, depth, scores, staged):
    """Scores (N, K) and/or staged class indices (T + 1, N) int16 on raw features (see ``_predict_block``);
    threads own blocks of PREDICT_BLOCK rows."""
    n_samples = X.shape[0]
    n_blocks = (n_samples + PREDICT_BLOCK - 1) // PREDICT_BLOCK
    for b in prange(n_blocks):
        start = b * PREDICT_BLOCK
        stop = min(start + PREDICT_BLOCK, n_samples)
        _predict_block(X, start, stop, a0, features, thresholds, leaf_signs, A, depth, scores, staged)


@njit(cache=True, nogil=True)
def predict_blocks_serial(X, a0, features, thresholds, leaf_signs, A, depth, scores, staged):
    """``predict_blocks`` on one thread."""
    n_samples = X.shape[0]
    for start in range(0, n_samples, PREDICT_BLOCK):
        stop = min(start + PREDICT_BLOCK, n_samples)
        _predict_block(X, start, stop, a0, features, thresholds, leaf_signs, A, depth, scores, staged)


# --------------------------------------------------------------------------------------------------------------
# 8. Variants beyond the paper (DESIGN.md "Variants"): loss="logistic", leaves="vector", learning_rate.
#    Paper mode never calls anything in this section. Per (sample, class) the two statistics of a round are
#    P, Q = (wp, wm) for the exp loss and (g, h) = (gradient, hessian) for the logistic loss.
# --------------------------------------------------------------------------------------------------------------

LOSS_EXP = 0
LOSS_LOGISTIC = 1
# Ridge of every Newton denominator, relative to the mean hessian per class: keeps an empty or hessian-free
# leaf's value finite (0) while leaving every other value unchanged to ~1e-9.
NEWTON_RIDGE = 1e-9
# Halvings of a logistic step before the line search gives up (the step is then 0: the loss cannot increase).
LINE_SEARCH_STEPS = 60


class VariantWork(NamedTuple):
    """Work arrays of the variant growers, allocated once per fit (``rebel.grower.variant_work``)."""

    g: np.ndarray  # (N, K) logistic gradient
    h: np.ndarray  # (N, K) logistic hessian
    hist_p: np.ndarray  # (d, n_bins, K) one node's histogram of P
    hist_q: np.ndarray  # (d, n_bins, K) one node's histogram of Q
    node_p: np.ndarray  # (2^(D+1) - 1, K) per heap node: sums of P
    node_q: np.ndarray  # (2^(D+1) - 1, K) sums of Q
    node_n: np.ndarray  # (2^(D+1) - 1,) int64 training samples in the node
    node_values: np.ndarray  # (2^(D+1) - 1, K) the step of every node, were it a leaf
    order: np.ndarray  # (N,) int64 samples sorted by node
    starts: np.ndarray  # (2^D + 1,) int64 offsets of each node's samples in ``order``
    node: np.ndarray  # (N,) int64 heap node of every sample at the current layer
    values: np.ndarray  # (2^D, K) the round's leaf values (steps)
    layer_loss: np.ndarray  # (D,) loss after each layer (exp: weight total relative to 1; logistic: sum)


@njit(cache=True, nogil=True)
def softplus(x):
    """F(x) = ln(1 + e^x) without overflow (the logistic member of the paper's family, Eq. 1)."""
    return max(x, 0.0) + np.log1p(np.exp(-abs(x)))


@njit(cache=True, nogil=True)
def sigmoid(x):
    """s(x) = 1 / (1 + e^-x) without overflow."""
    if x >= 0.0:
        return 1.0 / (1.0 + np.exp(-x))
    z = np.exp(x)
    return z / (1.0 + z)


@njit(cache=True, nogil=True)
def logistic_stats(H, cp, cm, g, h):
    """Per (n, k): g = cp s(H) - cm s(-H) and h = (cp + cm) s(H) s(-H), the gradient and hessian of the loss
    cp F(H) + cm F(-H) in H."""
    n_samples, n_classes = H.shape
    for n in range(n_samples):
        for k in range(n_classes):
            s = sigmoid(H[n, k])
            g[n, k] = cp[n, k] * s - cm[n, k] * (1.0 - s)
            h[n, k] = (cp[n, k] + cm[n, k]) * s * (1.0 - s)


@njit(cache=True, nogil=True)
def logistic_loss_sum(H, cp, cm, node, values, scale):
    """sum_n sum_k cp F(H + scale v) + cm F(-(H + scale v)) with v = values[node[n]] (scale 0: the loss at H)."""
    n_samples, n_classes = H.shape
    total = 0.0
    for n in range(n_samples):
        for k in range(n_classes):
            x = H[n, k] + scale * values[node[n], k]
            total += cp[n, k] * softplus(x) + cm[n, k] * softplus(-x)
    return total


@njit(cache=True, nogil=True)
def line_search(H, cp, cm, node, values, target):
    """The largest scale in 1, 1/2, 1/4, ... whose step keeps the logistic loss <= target, and that loss;
    (0, loss at H) when none does within LINE_SEARCH_STEPS halvings."""
    scale = 1.0
    for _ in range(LINE_SEARCH_STEPS):
        loss = logistic_loss_sum(H, cp, cm, node, values, scale)
        if loss <= target:
            return scale, loss
        scale *= 0.5
    return 0.0, logistic_loss_sum(H, cp, cm, node, values, 0.0)


@njit(cache=True, nogil=True)
def leaf_value(p, q, loss_id, learning_rate, eps, lam):
    """One class's step in a leaf with statistic sums (p, q): exp 1/2 ln((q + eps) / (p + eps)) (a* smoothed),
    logistic the Newton step -p / (q + lam); times the learning rate."""
    if loss_id == LOSS_EXP:
        return learning_rate * 0.5 * (np.log(q + eps) - np.log(p + eps))
    return -learning_rate * p / (q + lam)


@njit(cache=True, nogil=True)
def leaf_objective(p, q, loss_id, learning_rate, eps, lam):
    """One class's loss in a leaf after its step v = ``leaf_value``: exp p e^v + q e^-v (exactly the weight
    it leaves; sum_k 2 sqrt(p q) at the unsmoothed optimum), logistic the Newton model p v + q v^2 / 2."""
    v = leaf_value(p, q, loss_id, learning_rate, eps, lam)
    if loss_id == LOSS_EXP:
        return p * np.exp(v) + q * np.exp(-v)
    return p * v + 0.5 * q * v * v


@njit(cache=True, nogil=True)
def vector_criterion(p, q, loss_id, learning_rate, eps, lam):
    """The vector-leaf split criterion of one node: sum_k ``leaf_objective`` (lower is better)."""
    total = 0.0
    for k in range(p.shape[0]):
        total += leaf_objective(p[k], q[k], loss_id, learning_rate, eps, lam[k])
    return total


@njit(cache=True, nogil=True)
def node_histograms(bins, P, Q, order, start, stop, hist_p, hist_q):
    """hist_p[j, b, k] = sum of P[n, k] over the samples order[start:stop] with bins[j, n] == b; same for Q."""
    hist_p[:] = 0.0
    hist_q[:] = 0.0
    n_classes = P.shape[1]
    for j in range(bins.shape[0]):
        row = bins[j]
        hp = hist_p[j]
        hq = hist_q[j]
        for s in range(start, stop):
            n = order[s]
            b = row[n]
            for k in range(n_classes):
                hp[b, k] += P[n, k]
                hq[b, k] += Q[n, k]


@njit(cache=True, nogil=True)
def vector_scan(hist_p, hist_q, p_tot, q_tot, usable, loss_id, learning_rate, eps, lam, best):
    """Best split (feature, threshold index) of one node by ``vector_criterion`` of its two children: usable
    features ascending, thresholds ascending, a new best strictly below ``best`` (first wins ties). Returns
    (feature, threshold index, criterion); feature -1 if nothing beats ``best``."""
    n_features, n_bins, n_classes = hist_p.shape
    left_p = np.empty(n_classes)
    left_q = np.empty(n_classes)
    best_j = -1
    best_i = 0
    for j in range(n_features):
        if not usable[j]:
            continue
        left_p[:] = 0.0
        left_q[:] = 0.0
        for i in range(1, n_bins):
            crit = 0.0
            for k in range(n_classes):
                left_p[k] += hist_p[j, i - 1, k]
                left_q[k] += hist_q[j, i - 1, k]
                crit += leaf_objective(left_p[k], left_q[k], loss_id, learning_rate, eps, lam[k])
                crit += leaf_objective(
                    p_tot[k] - left_p[k], q_tot[k] - left_q[k], loss_id, learning_rate, eps, lam[k]
                )
            if crit < best:
                best = crit
                best_j = j
                best_i = i
    return best_j, best_i, best


@njit(cache=True, nogil=True)
def sort_by_node(node, first, count, order, starts):
    """Counting sort of the samples by their heap node (first .. first + count - 1): their indices in
    ``order``, node c's at order[starts[c]:starts[c + 1]]."""
    starts[: count + 1] = 0
    for n in range(node.shape[0]):
        starts[node[n] - first + 1] += 1
    for c in range(count):
        starts[c + 1] += starts[c]
    fill = starts[:count].copy()
    for n in range(node.shape[0]):
        c = node[n] - first
        order[fill[c]] = n
        fill[c] += 1


@njit(cache=True, nogil=True)
def _split_node(bins, P, Q, vw, node_id, start, stop, feature, thr):
    """Send node_id's samples to its children by (feature, thr) and sum their statistics."""
    left = 2 * node_id + 1
    for child in (left, left + 1):
        vw.node_p[child] = 0.0
        vw.node_q[child] = 0.0
        vw.node_n[child] = 0
    for s in range(start, stop):
        n = vw.order[s]
        child = left + np.int64(bins[feature, n] >= thr)
        vw.node[n] = child
        vw.node_n[child] += 1
        vw.node_p[child] += P[n]
        vw.node_q[child] += Q[n]


@njit(cache=True, nogil=True)
def _node_values(vw, first, count, loss_id, learning_rate, eps, lam):
    """node_values of the nodes first .. first + count - 1; an empty node takes its parent's values."""
    for c in range(count):
        i = first + c
        if vw.node_n[i] == 0 and i > 0:
            vw.node_values[i] = vw.node_values[(i - 1) // 2]
            continue
        for k in range(vw.node_p.shape[1]):
            vw.node_values[i, k] = leaf_value(
                vw.node_p[i, k], vw.node_q[i, k], loss_id, learning_rate, eps, lam[k]
            )


@njit(cache=True, nogil=True)
def grow_vector_tree(
    bins, usable, depth, P, Q, H, cp, cm, loss_id, learning_rate, eps, lam, vw, features, thr_idx
):
    """Grow one depth-``depth`` tree with a K-vector per leaf (leaves="vector"), layer by layer.

    Every node at a layer takes the split (``vector_scan``) that lowers ``vector_criterion`` of its samples the
    most, or copies its parent's split (its samples all take the same branch again; the root always splits)
    when none lowers it by more than LEAF_TOL of its weight. Exp: the criterion is the exact weight the step
    leaves, so no layer increases the loss. Logistic: each layer's Newton values get a line search on the
    true loss against the previous layer's loss; a layer that cannot lower it is undone and growth stops.
    Writes features/thr_idx (heap order), vw.values (2^depth, K) the steps (learning rate included),
    vw.node[n] the leaf (0 .. 2^depth - 1) of every sample, vw.layer_loss[l] the loss after layer l + 1
    (exp: weight total relative to the total before the round; logistic: the loss sum).
    """
    n_samples, n_classes = P.shape
    vw.node[:] = 0
    vw.node_n[0] = n_samples
    for k in range(n_classes):
        vw.node_p[0, k] = P[:, k].sum()
        vw.node_q[0, k] = Q[:, k].sum()
    _node_values(vw, 0, 1, loss_id, learning_rate, eps, lam)
    best_loss = (
        logistic_loss_sum(H, cp, cm, vw.node, vw.node_values, 0.0) if loss_id == LOSS_LOGISTIC else 0.0
    )
    scale = 1.0
    stopped = False
    for d in range(depth):
        first = (1 << d) - 1
        count = 1 << d
        sort_by_node(vw.node, first, count, vw.order, vw.starts)
        total = 0.0
        for c in range(count):
            i = first + c
            start, stop = vw.starts[c], vw.starts[c + 1]
            crit = vector_criterion(vw.node_p[i], vw.node_q[i], loss_id, learning_rate, eps, lam)
            j = -1
            thr = 1
            if not stopped and stop > start:
                tol = 0.0
                for k in range(n_classes):
                    tol += abs(vw.node_p[i, k]) + vw.node_q[i, k]
                node_histograms(bins, P, Q, vw.order, start, stop, vw.hist_p, vw.hist_q)
                bound = np.inf if i == 0 else crit - LEAF_TOL * tol
                j, thr, found = vector_scan(
                    vw.hist_p,
                    vw.hist_q,
                    vw.node_p[i],
                    vw.node_q[i],
                    usable,
                    loss_id,
                    learning_rate,
                    eps,
                    lam,
                    bound,
                )
                if j >= 0:
                    crit = found
            if j < 0:
                j, thr = (features[(i - 1) // 2], thr_idx[(i - 1) // 2]) if i > 0 else (0, 1)
            features[i] = j
            thr_idx[i] = thr
            _split_node(bins, P, Q, vw, i, start, stop, j, thr)
            total += crit
        _node_values(vw, first + count, 2 * count, loss_id, learning_rate, eps, lam)
        if loss_id == LOSS_EXP:
            vw.layer_loss[d] = total
            continue
        if stopped:
            vw.layer_loss[d] = best_loss
            continue
        s, loss = line_search(H, cp, cm, vw.node, vw.node_values, best_loss)
        if s > 0.0:
            best_loss = loss
            scale = s
        elif d == 0:  # no step lowers the loss: the round adds nothing
            stopped = True
            scale = 0.0
        else:  # undo the layer: its nodes copy their parents' splits, so the function stays the last layer's
            stopped = True
            for c in range(count):
                i = first + c
                features[i] = features[(i - 1) // 2]
                thr_idx[i] = thr_idx[(i - 1) // 2]
                _split_node(bins, P, Q, vw, i, vw.starts[c], vw.starts[c + 1], features[i], thr_idx[i])
            _node_values(vw, first + count, 2 * count, loss_id, learning_rate, eps, lam)
        vw.layer_loss[d] = best_loss
    leaves = 1 << depth
    for lf in range(leaves):
        for k in range(n_classes):
            vw.values[lf, k] = scale * vw.node_values[leaves - 1 + lf, k]
    for n in range(n_samples):
        vw.node[n] -= leaves - 1


@njit(cache=True, nogil=True)
def apply_leaf_values(H, wp, wm, node, values, scale, reweight, cost_rows):
    """H += values[node[n]] (the round's step); with ``reweight`` (exp loss) also wp <- wp e^v scale and
    wm <- wm e^-v scale. Returns the training risk mean_n cost_rows[n, argmax_k H[n, k]] (ties to the lowest k)."""
    n_samples, n_classes = H.shape
    risk = 0.0
    for n in range(n_samples):
        v = values[node[n]]
        best = 0
        for k in range(n_classes):
            H[n, k] += v[k]
            if reweight:
                wp[n, k] *= np.exp(v[k]) * scale
                wm[n, k] *= np.exp(-v[k]) * scale
            if H[n, k] > H[n, best]:
                best = k
        risk += cost_rows[n, best]
    return risk / max(n_samples, 1)


@njit(cache=True, nogil=True)
def newton_root_scan(hist, g_total, h_total, lam, usable):
    """Best root stump for binary leaves under the logistic loss: the largest Newton gain
    sum_k G_k(f)^2 / (h_total_k + lam_k), G(f) = sum_n f_n g_n = g_total - 2 (sum over the left). Usable
    features and thresholds ascending; a new best must be strictly larger. Returns (feature, threshold index,
    gain); feature -1 if none."""
    n_features, n_bins, n_classes = hist.shape
    best_j = -1
    best_i = 0
    best = -np.inf
    left = np.empty(n_classes)
    for j in range(n_features):
        if not usable[j]:
            continue
        left[:] = 0.0
        for i in range(1, n_bins):
            gain = 0.0
            for k in range(n_classes):
                left[k] += hist[j, i - 1, k]
                G = g_total[k] - 2.0 * left[k]
                gain += G * G / (h_total[k] + lam[k])
            if gain > best:
                best = gain
                best_j = j
                best_i = i
    return best_j, best_i, best


@njit(cache=True, nogil=True)
def newton_a(g, h, f, lam, a):
    """Newton output vector of binary leaves: a_k = -sum_n f_n g_nk / (sum_n h_nk + lam_k) (f^2 = 1)."""
    n_samples, n_classes = g.shape
    a[:] = 0.0
    hs = np.zeros(n_classes)
    for n in range(n_samples):
        for k in range(n_classes):
            a[k] += f[n] * g[n, k]
            hs[k] += h[n, k]
    for k in range(n_classes):
        a[k] = -a[k] / (hs[k] + lam[k])


@njit(cache=True, nogil=True)
def newton_leaf_costs(g, h, leaf, a, e_out, u_tot, v_tot):
    """The deeper-layer leaf criterion of binary leaves under the logistic loss (Newton model of the step f a):
    u_n = sum_k g a + h a^2 / 2 if the sample gets +1, v_n = sum_k -g a + h a^2 / 2 if -1; e = u - v and
    per-leaf totals of u and v, as ``leaf_costs`` gives them for the exp loss (so ``leaf_scan`` serves both)."""
    n_samples, n_classes = g.shape
    u_tot[:] = 0.0
    v_tot[:] = 0.0
    for n in range(n_samples):
        lin = 0.0
        quad = 0.0
        for k in range(n_classes):
            lin += g[n, k] * a[k]
            quad += 0.5 * h[n, k] * a[k] * a[k]
        e_out[n] = 2.0 * lin
        u_tot[leaf[n]] += quad + lin
        v_tot[leaf[n]] += quad - lin


@njit(cache=True, nogil=True)
def _signed_values(leaf_signs, a, step, out):
    """out[l] = leaf_signs[l] a step for the tree's current leaves (binary leaves as leaf values)."""
    for lf in range(out.shape[0]):
        for k in range(a.shape[0]):
            out[lf, k] = leaf_signs[lf] * a[k] * step


@njit(cache=True, nogil=True)
def grow_newton_tree(
    bins, usable, depth, H, cp, cm, learning_rate, lam, work, vw, features, thr_idx, leaf_signs, a
):
    """Grow one depth-``depth`` binary-leaf tree f and its a under the logistic loss (Newton steps).

    Root: ``newton_root_scan`` on the histograms of g. a: ``newton_a``, times the learning rate and the line
    search's scale (the true loss never increases). Deeper layers as in ``grow_tree``, with the Newton model's
    u, v (``newton_leaf_costs``) in ``leaf_scan``; a layer whose line search cannot lower the loss below the
    previous layer's is undone (its nodes become copies) and growth stops. Reads vw.g, vw.h; writes the
    tree, a (the step), work.f / work.leaf on the training samples and vw.layer_loss (loss sums per layer).
    """
    w = work
    n_classes = H.shape[1]
    if w.parallel:
        root_histograms(bins, vw.g, w.hist)
    else:
        root_histograms_serial(bins, vw.g, w.hist)
    g_total = np.empty(n_classes)
    h_total = np.empty(n_classes)
    for k in range(n_classes):
        g_total[k] = vw.g[:, k].sum()
        h_total[k] = vw.h[:, k].sum()
    j, i, _ = newton_root_scan(w.hist, g_total, h_total, lam, usable)
    features[:] = 0
    thr_idx[:] = 1
    leaf_signs[:] = 1
    if j >= 0:
        features[0] = j
        thr_idx[0] = i
        leaf_signs[0] = -1
    eval_tree_binned(
        bins, features, thr_idx, leaf_signs, np.int64(1), w.f, w.leaf
    )  # not a literal: one signature
    newton_a(vw.g, vw.h, w.f, lam, a)
    values = vw.node_values
    values[:] = 0.0
    best_loss = logistic_loss_sum(H, cp, cm, w.leaf, values, 0.0)
    _signed_values(leaf_signs[:2], a, learning_rate, values[:2])
    scale, loss = line_search(H, cp, cm, w.leaf, values, best_loss)
    stopped = scale == 0.0
    best_loss = min(loss, best_loss)
    vw.layer_loss[0] = best_loss
    a_new = np.empty(n_classes)
    step = np.empty(n_classes)
    for d in range(1, depth):
        n_leaves = 1 << d
        old_signs = leaf_signs[:n_leaves].copy()
        best_feature = np.full(n_leaves, -1, dtype=np.int32)
        best_thr = np.ones(n_leaves, dtype=np.int32)
        best_polarity = np.ones(n_leaves, dtype=np.int8)
        if not stopped:
            step[:] = a * (learning_rate * scale)
            newton_leaf_costs(vw.g, vw.h, w.leaf, step, w.e, w.u_tot[:n_leaves], w.v_tot[:n_leaves])
            if w.parallel:
                leaf_histograms(bins, w.leaf, w.e, w.leaf_hist[:n_leaves])
            else:
                leaf_histograms_serial(bins, w.leaf, w.e, w.leaf_hist[:n_leaves])
            leaf_scan(
                w.leaf_hist[:n_leaves],
                w.u_tot[:n_leaves],
                w.v_tot[:n_leaves],
                old_signs,
                usable,
                best_feature,
                best_thr,
                best_polarity,
            )
        set_layer(features, thr_idx, leaf_signs, old_signs, best_feature, best_thr, best_polarity)
        eval_tree_binned(bins, features, thr_idx, leaf_signs, d + 1, w.f, w.leaf)
        if not stopped:
            newton_a(vw.g, vw.h, w.f, lam, a_new)
            _signed_values(leaf_signs[: 2 * n_leaves], a_new, learning_rate, values[: 2 * n_leaves])
            s, loss = line_search(H, cp, cm, w.leaf, values, best_loss)
            if s > 0.0:
                a[:] = a_new
                scale = s
                best_loss = loss
            else:  # undo the layer: copies keep every sample's sign, so f is the last layer's
                stopped = True
                best_feature[:] = -1
                set_layer(features, thr_idx, leaf_signs, old_signs, best_feature, best_thr, best_polarity)
                eval_tree_binned(bins, features, thr_idx, leaf_signs, d + 1, w.f, w.leaf)
        vw.layer_loss[d] = best_loss
    for k in range(n_classes):
        a[k] *= learning_rate * scale


@njit(cache=True, nogil=True)
def _predict_values_rows(X, start, stop, a0, features, thresholds, leaf_values, depth, scores, staged):
    """Rows start..stop of ``predict_leaf_values``."""
    n_rounds = features.shape[0]
    n_classes = a0.shape[0]
    h = np.empty(n_classes)
    for n in range(start, stop):
        h[:] = a0
        if staged.shape[0] > 0:
            staged[0, n] = np.argmax(h)
        for t in range(n_rounds):
            v = leaf_values[t, _leaf_of(X[n], features[t], thresholds[t], depth)]
            for k in range(n_classes):
                h[k] += v[k]
            if staged.shape[0] > 0:
                staged[t + 1, n] = np.argmax(h)
        if scores.shape[0] > 0:
            scores[n] = h


@njit(cache=True, nogil=True, parallel=True)
def predict_leaf_values(X, a0, features, thresholds, leaf_values, depth, scores, staged):
    """Vector-leaf models: scores[n] = a0 + sum_t leaf_values[t, leaf_t(x_n)] (N, K) and/or staged[t, n] =
    argmax_k of the scores after t rounds (T + 1, N) int16 (ties to the lowest k), whichever is not empty.
    Threads own blocks of PREDICT_BLOCK rows."""
    n_samples = X.shape[0]
    n_blocks = (n_samples + PREDICT_BLOCK - 1) // PREDICT_BLOCK
    for b in prange(n_blocks):
        start = b * PREDICT_BLOCK
        stop = min(start + PREDICT_BLOCK, n_samples)
        _predict_values_rows(X, start, stop, a0, features, thresholds, leaf_values, depth, scores, staged)


@njit(cache=True, nogil=True)
def predict_leaf_values_serial(X, a0, features, thresholds, leaf_values, depth, scores, staged):
    """``predict_leaf_values`` on one thread."""
    _predict_values_rows(
        X, np.int64(0), X.shape[0], a0, features, thresholds, leaf_values, depth, scores, staged
    )
