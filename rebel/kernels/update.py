"""Stage 5, the weight update: H and the weights move past a round (S.6), in one pass over the samples.

Reads the tree's outputs f (N,) int8, a (K,), the scale and cost_rows (N, K); writes H, wp, wm, dw = wp - wm
(N, K), the column totals of wp + wm and of dw (K,), and returns the training risk. Rows go in UPDATE_CHUNKS
fixed chunks (so the bits do not depend on the thread count or on the driver).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# float64 entries of padding after each chunk's column sums in the weight update (one 64-byte cache line).
PART_PAD = 8


@njit(cache=True, nogil=True, inline="always")
def _apply_round_rows(wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_part, dw_part, start, stop):
    """apply_round on rows start..stop; column totals go to w_part / dw_part, returns the rows' cost sum.

    f and the argmax follow the data, so both are selects, not branches (a mispredicted branch a row cost more
    than the row's arithmetic): H + (-a) is H - a, and the products keep their order, so the bits are those of
    the branching form. -a is taken per element: an array expression (``na = -a``) compiles a ufunc loop, 0.1-0.2 s
    of a first fit's CPU."""
    n_classes = wp.shape[1]
    risk = 0.0
    for k in range(n_classes):  # loops, not w_part[:] = 0.0 (in a parallel driver that would be a parfor)
        w_part[k] = 0.0
        dw_part[k] = 0.0
    for n in range(start, stop):
        pos = f[n] > 0
        for k in range(n_classes):  # e^a and e^-a are read before H is written: numba cannot tell that H is
            up = ea[k] if pos else ema[k]  # another array, and would read them again after the write
            down = ema[k] if pos else ea[k]
            H[n, k] += a[k] if pos else -a[k]
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


@njit(cache=True, nogil=True, inline="always")
def _apply_round_pair(wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_part, dw_part, start, stop):
    """``_apply_round_rows`` for K = 2: the same operations in the same order (so the same bits), with the four
    column totals in registers, stored once at the end (a total added to in memory waits for its last store to
    be read back: 0.68 ms against 0.56 for N = 100k on this project's 2-core machine)."""
    ea0, ea1, ema0, ema1, a0, a1 = ea[0], ea[1], ema[0], ema[1], a[0], a[1]
    w0 = 0.0
    w1 = 0.0
    d0 = 0.0
    d1 = 0.0
    risk = 0.0
    for n in range(start, stop):
        pos = f[n] > 0
        h0 = H[n, 0] + (a0 if pos else -a0)
        h1 = H[n, 1] + (a1 if pos else -a1)
        H[n, 0] = h0
        H[n, 1] = h1
        p0 = wp[n, 0] * (ea0 if pos else ema0) * scale
        m0 = wm[n, 0] * (ema0 if pos else ea0) * scale
        p1 = wp[n, 1] * (ea1 if pos else ema1) * scale
        m1 = wm[n, 1] * (ema1 if pos else ea1) * scale
        wp[n, 0] = p0
        wm[n, 0] = m0
        dw[n, 0] = p0 - m0
        wp[n, 1] = p1
        wm[n, 1] = m1
        dw[n, 1] = p1 - m1
        w0 += p0 + m0
        d0 += p0 - m0
        w1 += p1 + m1
        d1 += p1 - m1
        risk += cost_rows[n, 1 if h1 > h0 else 0]  # the first of equal maxima, as np.argmax
    w_part[0] = w0
    w_part[1] = w1
    dw_part[0] = d0
    dw_part[1] = d1
    return risk


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True, inline="always")
def _chunk_totals(w_parts, dw_parts, risks, w_total, dw_total, n_samples):
    """Column totals and the mean risk from the per-chunk parts, in a fixed order (``_half_sums``)."""
    for k in range(w_total.shape[0]):
        w_total[k] = _half_sums(w_parts[:, k])
        dw_total[k] = _half_sums(dw_parts[:, k])
    return _half_sums(risks) / (n_samples if n_samples > 1 else 1)  # noqa: FURB136 (as below)


@njit(cache=True, nogil=True, inline="always")
def _apply_round_buffers(wp, a, n_chunks):
    """e^a, e^-a and the per-chunk parts (w_parts, dw_parts (n_chunks, K + PART_PAD), risks (n_chunks,)) of
    ``apply_round``. A chunk writes its row's first K entries once a sample; the padding keeps two chunks' rows a
    cache line apart, so two threads never write the same line (when they did, by where the array landed, a
    2-thread fit at N=20k took 0.108 s instead of 0.060)."""
    n_classes = wp.shape[1]
    w_parts = np.empty((n_chunks, n_classes + PART_PAD))
    dw_parts = np.empty((n_chunks, n_classes + PART_PAD))
    ea = np.empty(n_classes)
    ema = np.empty(n_classes)
    for k in range(n_classes):  # a loop, not np.exp(a): inlined into a parallel driver that would be a parfor
        ea[k] = np.exp(a[k])
        ema[k] = np.exp(-a[k])
    return ea, ema, w_parts, dw_parts, np.empty(n_chunks)


@njit(cache=True, nogil=True, inline="always")
def _apply_round_chunk(wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_parts, dw_parts, risks, c):
    """Chunk ``c`` of ``apply_round`` (rows [c size, (c + 1) size), size = ceil(N / n_chunks)): writes its rows
    of H, wp, wm, dw and its parts w_parts[c], dw_parts[c], risks[c]."""
    n_samples = wp.shape[0]
    n_chunks = risks.shape[0]
    size = (n_samples + n_chunks - 1) // n_chunks
    start = min(c * size, n_samples)
    stop = min(start + size, n_samples)
    # K = 2 in a loop of its own (the same bits); only here, in the chunked drivers (2,048 samples and more):
    # compiled into apply_round_single too, it doubled that kernel's compile time, a small first fit's largest
    if wp.shape[1] == 2:
        risks[c] = _apply_round_pair(
            wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_parts[c], dw_parts[c], start, stop
        )
    else:
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


@njit(cache=True, nogil=True)
def apply_round_single(wp, wm, H, f, a, scale, cost_rows, dw, w_total, dw_total, n_chunks):
    """``apply_round`` with ``n_chunks`` = 1 (fewer than 2048 samples, ``common.update_chunks``) in one plain
    pass: the same operations in the same order as the chunked drivers (their totals of one chunk's parts are
    (0 + part) + 0), so the same bits. What the bias step and a round run by the interpreter on one thread call
    (``tree.interpreted_drivers``): it compiles in about half the time of ``apply_round_serial``."""
    n_samples, n_classes = wp.shape
    ea = np.empty(n_classes)
    ema = np.empty(n_classes)
    for k in range(n_classes):
        ea[k] = np.exp(a[k])
        ema[k] = np.exp(-a[k])
    risk = _apply_round_rows(wp, wm, H, f, ea, ema, a, scale, cost_rows, dw, w_total, dw_total, 0, n_samples)
    for k in range(n_classes):  # _chunk_totals of one chunk: its _half_sums
        w_total[k] = (0.0 + w_total[k]) + 0.0
        dw_total[k] = (0.0 + dw_total[k]) + 0.0
    # max(n_samples, 1) as a select: the builtin compiles an overload of its own on a first fit
    return ((0.0 + risk) + 0.0) / (n_samples if n_samples > 1 else 1)  # noqa: FURB136
