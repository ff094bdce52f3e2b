"""Stage 6, tree growth and the round loop: one depth-D tree (paper Sec. 4) and rounds of the REBEL loop.

Reads ``bins`` (d, N) uint8, the usable-feature mask (d,) and a ``TrainState``; writes the ``RoundWork`` arrays,
the tree (heap order: ``features``, ``thr_idx`` (2^D - 1,), ``leaf_signs`` (2^D,)), a (K,) and the ``Forest``
rows of its rounds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .astar import _layer_choose_a, a_star, round_total, split_sums
from .common import interpreted
from .histogram import (
    leaf_histograms,
    leaf_histograms_serial,
    root_histograms,
    root_histograms_plain,
    root_histograms_serial,
)
from .split import leaf_costs, leaf_scan, root_scan
from .update import apply_round, apply_round_serial, apply_round_single


@njit(cache=True, nogil=True)
def eval_stump_binned(bins, features, thr_idx, leaf_signs, f_out, leaf_out):
    """``eval_tree_binned`` of a depth-1 tree (its root stump, node 0), one select a sample (a SIMD loop).
    Its own kernel so that a stump fit run by the interpreter compiles no deeper tree's loops (0.1 s of CPU
    against about 0.4 s for ``eval_tree_binned``, wine, empty cache)."""
    r, t = bins[features[0]], thr_idx[0]
    s0, s1 = leaf_signs[0], leaf_signs[1]
    for n in range(bins.shape[1]):
        right = r[n] >= t
        leaf_out[n] = np.int32(right)
        f_out[n] = s1 if right else s0


@njit(cache=True, nogil=True)
def eval_tree_binned(bins, features, thr_idx, leaf_signs, depth, f_out, leaf_out):
    """f_out[n] = tree output (+1/-1) and leaf_out[n] = leaf index for each binned sample.

    Depths 1 (``eval_stump_binned``) and 2 test every node of the tree on every sample and select the leaf (no
    load depends on an earlier test, so the loop runs as SIMD: 15-17x the node-by-node walk); deeper trees walk
    node by node."""
    n_samples = bins.shape[1]
    if depth == 1:
        eval_stump_binned(bins, features, thr_idx, leaf_signs, f_out, leaf_out)
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


@njit(cache=True, nogil=True, inline="always")
def _grow_tree_with(
    root_hist, leaf_hist, bins, usable, depth, state, work, features, thr_idx, leaf_signs, a, layer_totals
):
    """Grow one depth-``depth`` tree and its a on the current weights (paper Sec. 4, DESIGN.md section 2).

    Reads ``state`` (wp, wm) and ``work``'s dw = wp - wm and the column totals of wp + wm and of dw (as
    ``apply_round`` leaves them). Writes the heap-ordered tree (features, thr_idx: 2^depth - 1; leaf_signs:
    2^depth), a (K,), the tree's outputs ``work.f`` and leaf ids ``work.leaf`` on the training samples, and
    layer_totals[l] = weight total after layer l + 1 (relative to the total 1 before the round). Depth 1 is the
    root stump (rho = +1) jointly optimised with a*. Each further layer copies every leaf's parent split,
    chooses per leaf the stump that minimises the leaf's loss with a fixed (``leaf_scan``), then recomputes a
    (``_layer_choose_a``). Returns False when no feature is usable (then the tree is f == +1 and a is the
    bias step). ``root_hist``, ``leaf_hist``: the histogram drivers, fixed where this body is inlined
    (``grow_tree``, ``boost_rounds`` and their serial twins), so only the drivers a fit uses compile.
    """
    wp, wm = state.wp, state.wm
    w = work
    n_classes = wp.shape[1]
    root_hist(bins, w.dw, w.hist, w.lanes)
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
    eval_stump_binned(bins, features, thr_idx, leaf_signs, w.f, w.leaf)
    split_sums(wp, wm, w.f, w.sp, w.sm)
    a_star(w.sp, w.sm, a)
    layer_totals[0] = round_total(w.sp, w.sm, a)
    a_new = np.empty(n_classes)
    for d in range(1, depth):
        n_leaves = 1 << d
        u_tot = w.u_tot[:n_leaves]
        v_tot = w.v_tot[:n_leaves]
        leaf_costs(wp, wm, w.leaf, a, w.e, u_tot, v_tot)
        leaf_hist(bins, w.leaf, w.e, w.leaf_hist[:n_leaves])
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
def grow_tree(bins, usable, depth, state, work, features, thr_idx, leaf_signs, a, layer_totals):
    """One depth-``depth`` tree on the current weights with the parallel histogram drivers (``_grow_tree_with``:
    what it reads and writes)."""
    return _grow_tree_with(
        root_histograms, leaf_histograms, bins, usable, depth, state, work, features, thr_idx, leaf_signs, a,
        layer_totals,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def grow_tree_serial(bins, usable, depth, state, work, features, thr_idx, leaf_signs, a, layer_totals):
    """``grow_tree`` with the serial histogram drivers (the same bits)."""
    return _grow_tree_with(
        root_histograms_serial, leaf_histograms_serial, bins, usable, depth, state, work, features, thr_idx,
        leaf_signs, a, layer_totals,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def _boost_rounds_with(
    root_hist, leaf_hist, update, t_start, t_stop, bins, usable, depth, state, work, forest, learning_rate
):
    """Rounds t_start..t_stop-1 of the REBEL loop: grow a tree (``_grow_tree_with``), then move H and the
    weights past it (``update``: ``apply_round`` or its serial twin, rescaled by the closed-form ``round_total``).

    Writes round t's tree into forest.features[t], thr_idx[t], leaf_signs[t], its a into A[t], the per-layer
    weight totals into layer_totals[t], the round's weight total (relative to 1 before it) into round_totals[t]
    and the training risk after it into risks[t]. ``learning_rate`` < 1 shrinks each a after its tree is grown.
    """
    s, w = state, work
    for t in range(t_start, t_stop):
        a = forest.A[t]
        _grow_tree_with(
            root_hist, leaf_hist, bins, usable, depth, state, work, forest.features[t], forest.thr_idx[t],
            forest.leaf_signs[t], a, forest.layer_totals[t],
        )  # fmt: skip
        if learning_rate != 1.0:  # shrinkage (a variant; paper mode takes the full step)
            a *= learning_rate
        total = round_total(w.sp, w.sm, a)
        forest.round_totals[t] = total
        scale = 1.0 / total if total > 0.0 else 1.0
        forest.risks[t] = update(
            s.wp, s.wm, s.H, w.f, a, scale, s.cost_rows, w.dw, w.w_total, w.dw_total, w.n_chunks
        )


@njit(cache=True, nogil=True)
def boost_rounds(t_start, t_stop, bins, usable, depth, state, work, forest, learning_rate=1.0):
    """Rounds t_start..t_stop-1 of the REBEL loop with the parallel histogram and update drivers (what
    ``rebel.grower.round_work`` asks for with ``work.parallel``; ``_boost_rounds_with``: what it writes)."""
    _boost_rounds_with(
        root_histograms, leaf_histograms, apply_round, t_start, t_stop, bins, usable, depth, state, work,
        forest, learning_rate,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def boost_rounds_serial(t_start, t_stop, bins, usable, depth, state, work, forest, learning_rate=1.0):
    """``boost_rounds`` with the serial drivers (the same bits; a fit compiles only the one it runs)."""
    _boost_rounds_with(
        root_histograms_serial, leaf_histograms_serial, apply_round_serial, t_start, t_stop, bins, usable,
        depth, state, work, forest, learning_rate,
    )  # fmt: skip


def _root_histograms_plain(bins, dw, hist, lanes):
    """``root_histograms_plain`` called as the other root histogram drivers are; ``lanes`` is left out (its numba
    type carries K: passed on, it would compile the kernel once per class count)."""
    root_histograms_plain(bins, dw, hist)


def interpreted_drivers(work) -> tuple:
    """The root histogram, leaf histogram and weight update drivers of a round run by the interpreter (and of
    the bias step): with ``work.parallel`` the parallel ones; on one thread the plain root histogram
    (``root_histograms_plain``), the serial leaf histogram, and with one update chunk the one-pass update
    (``apply_round_single``), else ``apply_round_serial``. The same bits as the serial drivers, and compiled in
    a fraction of their time, which is what a first small fit waits for (the interpreter runs a fit only while
    the compiled loop is not compiled, and only a small one: ``rebel.booster.round_driver``)."""
    if work.parallel:
        return root_histograms, leaf_histograms, apply_round
    update = apply_round_single if work.n_chunks == 1 else apply_round_serial
    return _root_histograms_plain, leaf_histograms_serial, update


# The round loop's body run by the interpreter: the same source as the compiled loop, its tree growth too.
_boost_rounds_interpreted = interpreted(_boost_rounds_with, _grow_tree_with=_grow_tree_with.py_func)


def boost_rounds_interpreted(t_start, t_stop, bins, usable, depth, state, work, forest, learning_rate=1.0):
    """``boost_rounds`` (``work.parallel``) or ``boost_rounds_serial`` with its loop and tree growth run by the
    interpreter, calling the same kernels in the same order (the same bits): a fit needs only the kernels
    compiled, not the round loop, which compiles once per class count on top of them (about 1.5 s; docs/DESIGN.md
    "The round driver"). A round costs the interpreter about 10 kernel calls a layer."""
    drivers = interpreted_drivers(work)
    _boost_rounds_interpreted(
        *drivers, t_start, t_stop, bins, usable, depth, state, work, forest, float(learning_rate)
    )
