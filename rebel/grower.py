"""Greedy growth of one depth-D weak learner and its output vector a (paper Sec. 4, DESIGN.md section 2).

Reads the binned data and the current weights ``wp``/``wm`` (total 1); writes a ``Tree`` (heap-ordered
``features``, ``thr_idx``, ``leaf_signs``) plus the tree's outputs ``f`` on the training samples and ``a``.

Depth 1 is the stump jointly optimised with a* (rho = +1). Each further layer: (1) every leaf becomes a copy of
its parent's split (the function is unchanged); (2) holding a fixed, each new stump's feature, threshold and
polarity minimise the loss of the samples in that leaf; (3) a is recomputed in closed form. Step (3) keeps, per
class, the previous a_k wherever the smoothed closed form would be worse, so no layer ever increases the loss.
The growth itself is compiled (``kernels.grow_tree``, run round after round by ``kernels.boost_rounds``, or
by the interpreter on the same source and kernels: ``kernels.boost_rounds_interpreted``);
this module allocates its work arrays (``round_work``, ``new_forest``) and holds the ``Tree`` record handed to
training callbacks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels as kern


@dataclass
class Tree:
    """One weak learner in flat heap order (plain ndarrays)."""

    depth: int
    features: np.ndarray  # (2^D - 1,) int32
    thr_idx: np.ndarray  # (2^D - 1,) int32, 1-based threshold index: bins >= thr_idx goes right
    leaf_signs: np.ndarray  # (2^D,) int8, +1 / -1


def round_work(
    n_samples: int, n_features: int, n_classes: int, n_bins: int, max_depth: int
) -> kern.RoundWork:
    """Work arrays for ``kernels.grow_tree``, allocated once per fit (nothing proportional to N per round)."""
    n_leaves = 1 << (max_depth - 1)
    return kern.RoundWork(
        dw=np.empty((n_samples, n_classes)),
        w_total=np.empty(n_classes),
        dw_total=np.empty(n_classes),
        hist=np.empty((n_features, n_bins, n_classes)),
        leaf_hist=np.empty((n_leaves if max_depth > 1 else 0, n_features, n_bins)),
        f=np.empty(n_samples, dtype=np.int8),
        leaf=np.empty(n_samples, dtype=np.int32),
        e=np.empty(n_samples),
        u_tot=np.empty(n_leaves),
        v_tot=np.empty(n_leaves),
        sp=np.empty(n_classes),
        sm=np.empty(n_classes),
        parallel=kern.train_in_parallel(n_samples, n_features, n_classes, max_depth),
        n_chunks=kern.update_chunks(n_samples),
        lanes=kern.LanePlan(n_classes),
    )


def new_forest(n_rounds: int, depth: int, n_classes: int) -> kern.Forest:
    """Empty per-round outputs for ``kernels.boost_rounds``."""
    n_nodes, n_leaves = (1 << depth) - 1, 1 << depth
    return kern.Forest(
        features=np.zeros((n_rounds, n_nodes), dtype=np.int32),
        thr_idx=np.zeros((n_rounds, n_nodes), dtype=np.int32),
        leaf_signs=np.zeros((n_rounds, n_leaves), dtype=np.int8),
        A=np.zeros((n_rounds, n_classes)),
        layer_totals=np.ones((n_rounds, depth)),
        round_totals=np.ones(n_rounds),
        risks=np.empty(n_rounds),
    )


def tree_of(forest: kern.Forest, t: int, depth: int) -> Tree:
    """Round t's tree as a ``Tree`` record (views into the forest's arrays)."""
    return Tree(depth, forest.features[t], forest.thr_idx[t], forest.leaf_signs[t])


def variant_work(
    n_samples: int, n_features: int, n_classes: int, n_bins: int, depth: int, min_samples_leaf: int = 1
) -> kern.VariantWork:
    """Work arrays for the variant growers (``kernels.grow_vector_tree``, ``kernels.grow_newton_tree``); the
    row counts of ``min_samples_leaf`` only when it is above 1 (else empty)."""
    n_nodes = (1 << (depth + 1)) - 1
    counted = min_samples_leaf > 1
    return kern.VariantWork(
        g=np.empty((n_samples, n_classes)),
        h=np.empty((n_samples, n_classes)),
        hist_p=np.empty((n_features, n_bins, n_classes)),
        hist_q=np.empty((n_features, n_bins, n_classes)),
        node_p=np.zeros((n_nodes, n_classes)),
        node_q=np.zeros((n_nodes, n_classes)),
        node_n=np.zeros(n_nodes, dtype=np.int64),
        node_values=np.zeros((n_nodes, n_classes)),
        order=np.empty(n_samples, dtype=np.int64),
        starts=np.empty((1 << depth) + 1, dtype=np.int64),
        node=np.zeros(n_samples, dtype=np.int64),
        values=np.zeros((1 << depth, n_classes)),
        layer_loss=np.zeros(depth),
        hist_n=np.zeros((n_features if counted else 0, n_bins), dtype=np.int64),
        leaf_counts=np.zeros(((1 << (depth - 1)) if counted else 0, n_features, n_bins)),
        ones=np.ones(n_samples if counted else 0),
    )
