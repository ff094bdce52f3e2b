"""Greedy growth of one depth-D weak learner and its output vector a (paper Sec. 4, DESIGN.md section 2).

Reads the binned data and the current weights ``wp``/``wm`` (total 1); writes a ``Tree`` (heap-ordered
``features``, ``thr_idx``, ``leaf_signs``) plus the tree's outputs ``f`` on the training samples and ``a``.

Depth 1 is the stump jointly optimised with a* (rho = +1). Each further layer: (1) every leaf becomes a copy of
its parent's split (the function is unchanged); (2) holding a fixed, each new stump's feature, threshold and
polarity minimise the loss of the samples in that leaf; (3) a is recomputed in closed form. Step (3) keeps, per
class, the previous a_k wherever the smoothed closed form would be worse, so no layer ever increases the loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from . import _kernels as kern


@dataclass
class Tree:
    """One weak learner in flat heap order (plain ndarrays)."""

    depth: int
    features: np.ndarray  # (2^D - 1,) int32
    thr_idx: np.ndarray  # (2^D - 1,) int32, 1-based threshold index: bins >= thr_idx goes right
    leaf_signs: np.ndarray  # (2^D,) int8, +1 / -1


class GrowBuffers:
    """Work arrays for ``grow_tree``, allocated once per fit (nothing proportional to N per round)."""

    def __init__(self, n_samples: int, n_features: int, n_classes: int, n_bins: int, max_depth: int):
        self.dw = np.empty((n_samples, n_classes))
        self.w_total = np.empty(n_classes)
        self.dw_total = np.empty(n_classes)
        self.hist = np.empty((n_features, n_bins, n_classes))
        self.f = np.empty(n_samples, dtype=np.int8)
        self.leaf = np.empty(n_samples, dtype=np.int32)
        self.e = np.empty(n_samples)
        n_leaves = 1 << (max_depth - 1)
        self.leaf_hist = np.empty((n_leaves, n_features, n_bins)) if max_depth > 1 else None
        self.u_tot = np.empty(n_leaves)
        self.v_tot = np.empty(n_leaves)
        self.sp = np.empty(n_classes)
        self.sm = np.empty(n_classes)
        work = n_samples * n_features
        self.root_histograms = kern.pick(kern.root_histograms, kern.root_histograms_serial, work * n_classes)
        self.leaf_histograms = kern.pick(kern.leaf_histograms, kern.leaf_histograms_serial, work)
        self.apply_round = kern.pick(kern.apply_round, kern.apply_round_serial, n_samples * n_classes * 8)
        self.n_chunks = max(1, min(numba.get_num_threads() * 4, n_samples // 1024))


def _bias_tree(depth: int) -> Tree:
    """f == +1 everywhere: used only when no feature has a usable threshold."""
    n_nodes = (1 << depth) - 1
    return Tree(
        depth,
        np.zeros(n_nodes, dtype=np.int32),
        np.ones(n_nodes, dtype=np.int32),
        np.ones(1 << depth, dtype=np.int8),
    )


def _round_loss(sp: np.ndarray, sm: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Per-class weight total after adding f a: sp e^a + sm e^-a (Eq. 7 without constants)."""
    return sp * np.exp(a) + sm * np.exp(-a)


def _deepen(tree: Tree, best_feature, best_thr, best_polarity) -> Tree:
    """Add one layer: leaf l becomes the stump chosen for it, or a copy of its parent where none was chosen."""
    depth = tree.depth
    n_leaves = 1 << depth
    first_leaf = n_leaves - 1
    features = np.empty(2 * n_leaves - 1, dtype=np.int32)
    thr_idx = np.empty(2 * n_leaves - 1, dtype=np.int32)
    features[:first_leaf] = tree.features
    thr_idx[:first_leaf] = tree.thr_idx
    leaf_signs = np.empty(2 * n_leaves, dtype=np.int8)
    for lf in range(n_leaves):
        pos = first_leaf + lf
        if best_feature[lf] >= 0:
            features[pos] = best_feature[lf]
            thr_idx[pos] = best_thr[lf]
            rho = int(best_polarity[lf])
        else:
            parent = (pos - 1) // 2
            features[pos] = tree.features[parent]
            thr_idx[pos] = tree.thr_idx[parent]
            s = int(tree.leaf_signs[lf])
            # Samples in a left child went left at the parent and go left again in the copy (and likewise
            # right), so the reachable new leaf keeps the sign s.
            rho = -s if pos % 2 == 1 else s
        leaf_signs[2 * lf] = -rho
        leaf_signs[2 * lf + 1] = rho
    return Tree(depth + 1, features, thr_idx, leaf_signs)


def grow_tree(bins, wp, wm, usable, depth: int, buf: GrowBuffers):
    """Grow one depth-``depth`` tree on the current weights.

    Expects ``buf.dw``, ``buf.w_total`` and ``buf.dw_total`` to hold ``wp - wm`` and the column totals of
    ``wp + wm`` and of ``wp - wm`` (``kern.apply_round`` leaves them so). Returns ``(tree, a, layer_totals)``:
    ``buf.f`` holds the tree's outputs on the training samples afterwards, and ``layer_totals[l]`` is the weight
    total (relative to 1 before the round) after layer l + 1.
    """
    buf.root_histograms(bins, buf.dw, buf.hist)
    j, i, _ = kern.root_scan(buf.hist, buf.dw_total, buf.w_total, usable)
    if j < 0:
        tree = _bias_tree(depth)
        buf.f[:] = 1
        buf.leaf[:] = 0
        kern.split_sums(wp, wm, buf.f, buf.sp, buf.sm)
        a = np.empty_like(buf.sp)
        kern.a_star(buf.sp, buf.sm, a)
        total = _round_loss(buf.sp, buf.sm, a).sum()
        return tree, a, np.full(depth, total)

    tree = Tree(1, np.array([j], np.int32), np.array([i], np.int32), np.array([-1, 1], np.int8))
    kern.eval_tree_binned(bins, tree.features, tree.thr_idx, tree.leaf_signs, 1, buf.f, buf.leaf)
    kern.split_sums(wp, wm, buf.f, buf.sp, buf.sm)
    a = np.empty_like(buf.sp)
    kern.a_star(buf.sp, buf.sm, a)
    layer_totals = [_round_loss(buf.sp, buf.sm, a).sum()]

    for _ in range(1, depth):
        n_leaves = 1 << tree.depth
        u_tot, v_tot = buf.u_tot[:n_leaves], buf.v_tot[:n_leaves]
        kern.leaf_costs(wp, wm, buf.leaf, a, buf.e, u_tot, v_tot)
        leaf_hist = buf.leaf_hist[:n_leaves]
        buf.leaf_histograms(bins, buf.leaf, buf.e, leaf_hist)
        best_feature = np.empty(n_leaves, dtype=np.int32)
        best_thr = np.empty(n_leaves, dtype=np.int32)
        best_polarity = np.empty(n_leaves, dtype=np.int8)
        kern.leaf_scan(leaf_hist, u_tot, v_tot, tree.leaf_signs, usable, best_feature, best_thr, best_polarity)
        tree = _deepen(tree, best_feature, best_thr, best_polarity)
        kern.eval_tree_binned(bins, tree.features, tree.thr_idx, tree.leaf_signs, tree.depth, buf.f, buf.leaf)
        kern.split_sums(wp, wm, buf.f, buf.sp, buf.sm)
        a_new = np.empty_like(a)
        kern.a_star(buf.sp, buf.sm, a_new)
        new_loss = _round_loss(buf.sp, buf.sm, a_new)
        old_loss = _round_loss(buf.sp, buf.sm, a)
        a = np.where(new_loss <= old_loss, a_new, a)
        layer_totals.append(np.minimum(new_loss, old_loss).sum())
    return tree, a, np.array(layer_totals)
