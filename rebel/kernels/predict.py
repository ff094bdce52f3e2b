"""Stage 7, prediction on raw features (x > tau goes right): tree outputs, leaf ids, scores (Eq. 3) and staged
class indices, for binary-leaf models (``predict_blocks``) and vector-leaf ones (``predict_leaf_values``).

Reads X (N, d) float64 and the model's arrays (a0 (K,); per round features, thresholds (T, 2^D - 1), leaf_signs
(T, 2^D) and A (T, K), or leaf values (T, 2^D, K)); writes scores (N, K) and/or staged (T + 1, N) int16, tree
outputs (N, T) int8 or leaf ids (N, T) int32.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


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


@njit(cache=True, nogil=True, inline="always")
def _n_blocks(n_samples):
    """How many blocks of PREDICT_BLOCK rows cover ``n_samples`` rows (the last one may be shorter)."""
    return (n_samples + PREDICT_BLOCK - 1) // PREDICT_BLOCK


@njit(cache=True, nogil=True, inline="always")
def _block_rows(b, n_samples):
    """Rows [start, stop) of block ``b``: PREDICT_BLOCK rows, the last block what is left of ``n_samples``."""
    start = b * PREDICT_BLOCK
    return start, min(start + PREDICT_BLOCK, n_samples)


@njit(cache=True, nogil=True, inline="always")
def _block_transpose(X, start, stop):
    """Rows start..stop of X as a feature-major (d, rows) array."""
    Xt = np.empty((X.shape[1], stop - start))
    for n in range(stop - start):
        for j in range(X.shape[1]):
            Xt[j, n] = X[start + n, j]
    return Xt


@njit(cache=True, nogil=True, inline="always")
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
    (One signature for both uses: the unused output is an empty array, which halves compilation.) Not inlined:
    both drivers call this one compiled block (per block of PREDICT_BLOCK rows, no slower), and the parallel
    driver's chunk then allocates nothing (on an empty numba cache: the scores' two drivers 3.8 -> 2.8 s CPU).
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
    for b in prange(_n_blocks(X.shape[0])):
        start, stop = _block_rows(b, X.shape[0])
        _predict_block(X, start, stop, a0, features, thresholds, leaf_signs, A, depth, scores, staged)


@njit(cache=True, nogil=True)
def predict_blocks_serial(X, a0, features, thresholds, leaf_signs, A, depth, scores, staged):
    """``predict_blocks`` on one thread."""
    for b in range(_n_blocks(X.shape[0])):
        start, stop = _block_rows(b, X.shape[0])
        _predict_block(X, start, stop, a0, features, thresholds, leaf_signs, A, depth, scores, staged)


@njit(cache=True, nogil=True)
def _predict_values_rows(X, start, stop, a0, features, thresholds, leaf_values, depth, scores, staged):
    """Rows start..stop of ``predict_leaf_values``."""
    n_rounds = features.shape[0]
    n_classes = a0.shape[0]
    h = np.empty(n_classes)
    for n in range(start, stop):
        for k in range(n_classes):  # a loop, not h[:] = a0 (a copy compiles its shape-error text)
            h[k] = a0[k]
        if staged.shape[0] > 0:
            staged[0, n] = np.argmax(h)
        for t in range(n_rounds):
            v = leaf_values[t, _leaf_of(X[n], features[t], thresholds[t], depth)]
            for k in range(n_classes):
                h[k] += v[k]
            if staged.shape[0] > 0:
                staged[t + 1, n] = np.argmax(h)
        if scores.shape[0] > 0:
            for k in range(n_classes):  # a loop, not a row copy (that compiles its shape-error text)
                scores[n, k] = h[k]


@njit(cache=True, nogil=True, parallel=True)
def predict_leaf_values(X, a0, features, thresholds, leaf_values, depth, scores, staged):
    """Vector-leaf models: scores[n] = a0 + sum_t leaf_values[t, leaf_t(x_n)] (N, K) and/or staged[t, n] =
    argmax_k of the scores after t rounds (T + 1, N) int16 (ties to the lowest k), whichever is not empty.
    Threads own blocks of PREDICT_BLOCK rows."""
    for b in prange(_n_blocks(X.shape[0])):
        start, stop = _block_rows(b, X.shape[0])
        _predict_values_rows(X, start, stop, a0, features, thresholds, leaf_values, depth, scores, staged)


@njit(cache=True, nogil=True)
def predict_leaf_values_serial(X, a0, features, thresholds, leaf_values, depth, scores, staged):
    """``predict_leaf_values`` on one thread."""
    _predict_values_rows(
        X, np.int64(0), X.shape[0], a0, features, thresholds, leaf_values, depth, scores, staged
    )
