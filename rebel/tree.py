"""Greedy growth of one depth-D weak learner and its output vector a (paper Sec. 4, DESIGN.md section 2).

Reads the binned data and the current weights ``wp``/``wm`` (total 1); writes a ``Tree`` (heap-ordered
``features``, ``thr_idx``, ``leaf_signs``) plus the tree's outputs ``f`` on the training samples and ``a``.

Depth 1 is the stump jointly optimised with a* (rho = +1). Each further layer: (1) every leaf becomes a copy of
its parent's split (the function is unchanged); (2) holding a fixed, each new stump's feature, threshold and
polarity minimise the loss of the samples in that leaf; (3) a is recomputed in closed form. Step (3) keeps, per
class, the previous a_k wherever the smoothed closed form would be worse, so no layer ever increases the loss.
The growth itself is compiled (``_kernels.grow_tree``, run round after round by ``_kernels.boost_rounds``);
this module holds its work buffers and the ``Tree`` record handed to training callbacks.
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
    """Work arrays for ``_kernels.grow_tree``, allocated once per fit (nothing proportional to N per round)."""

    def __init__(self, n_samples: int, n_features: int, n_classes: int, n_bins: int, max_depth: int):
        self.dw = np.empty((n_samples, n_classes))
        self.w_total = np.empty(n_classes)
        self.dw_total = np.empty(n_classes)
        self.hist = np.empty((n_features, n_bins, n_classes))
        self.f = np.empty(n_samples, dtype=np.int8)
        self.leaf = np.empty(n_samples, dtype=np.int32)
        self.e = np.empty(n_samples)
        n_leaves = 1 << (max_depth - 1)
        self.leaf_hist = np.empty((n_leaves if max_depth > 1 else 0, n_features, n_bins))
        self.u_tot = np.empty(n_leaves)
        self.v_tot = np.empty(n_leaves)
        self.sp = np.empty(n_classes)
        self.sm = np.empty(n_classes)
        self.parallel = n_samples * n_features * n_classes >= kern.PARALLEL_MIN_WORK
        self.apply_round = kern.pick(kern.apply_round, kern.apply_round_serial, n_samples * n_classes * 8)
        self.n_chunks = max(1, min(numba.get_num_threads() * 4, n_samples // 1024))
