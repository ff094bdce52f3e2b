"""Stage 8, variants: the vector-leaf grower (leaves="vector"), a K-vector per leaf, exp or logistic loss.

Reads ``bins`` (d, N) uint8, the statistics P, Q (N, K) and H, cp, cm (N, K); writes the tree (``features``,
``thr_idx``) and the ``VariantWork`` arrays (node sums, the sample order by node, the leaf values, the loss per
layer).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .common import LEAF_TOL
from .variants import (
    LOSS_EXP,
    LOSS_LOGISTIC,
    leaf_objective,
    leaf_value,
    line_search,
    logistic_loss_sum,
    vector_criterion,
)


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
def node_counts(bins, order, start, stop, hist_n):
    """hist_n[j, b] = number of the samples order[start:stop] with bins[j, n] == b (for min_samples_leaf)."""
    hist_n[:] = 0
    for j in range(bins.shape[0]):
        row = bins[j]
        for s in range(start, stop):
            hist_n[j, row[order[s]]] += 1


@njit(cache=True, nogil=True)
def vector_scan(
    hist_p, hist_q, p_tot, q_tot, usable, loss_id, learning_rate, eps, lam, l2, hist_n, n_tot, msl, best
):
    """Best split (feature, threshold index) of one node by ``vector_criterion`` of its two children: usable
    features ascending, thresholds ascending, a new best strictly below ``best`` (first wins ties). With
    ``msl`` (min_samples_leaf) > 1 only splits leaving each child none or at least ``msl`` of the node's
    ``n_tot`` rows (counts per bin in ``hist_n``) are candidates; msl = 1 reads no counts. Returns (feature,
    threshold index, criterion); feature -1 if nothing beats ``best``.

    A threshold whose bin below adds nothing (msl > 1: it holds no row; msl = 1: every statistic in it is
    0) is skipped: the sums start at +0.0 and a float sum is -0.0 only when both terms are, so adding zeros
    leaves them as they were, and its candidacy and criterion, to the bit, are those of the threshold before
    it, which was already tried (or not a candidate) and which it cannot strictly beat. A deeper node's rows
    fill few of the bins (K = 50, 1,000 rows, 255 thresholds, depth 4: 2,000 to 2,500 of a round's 7,650
    thresholds hold a row), and each threshold tried costs 2K leaf objectives of two logarithms and two
    exponentials each."""
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
        left_n = 0
        for i in range(1, n_bins):
            b = i - 1
            if msl > 1:
                left_n += hist_n[j, b]
                if i > 1 and hist_n[j, b] == 0:  # no row: the previous threshold's sums and candidacy
                    continue
                if 0 < left_n < msl or 0 < n_tot - left_n < msl:  # not a candidate: only move the sums
                    for k in range(n_classes):
                        left_p[k] += hist_p[j, b, k]
                        left_q[k] += hist_q[j, b, k]
                    continue
            elif i > 1:
                empty = True
                for k in range(n_classes):
                    if hist_p[j, b, k] != 0.0 or hist_q[j, b, k] != 0.0:
                        empty = False
                        break
                if empty:
                    continue
            crit = 0.0
            for k in range(n_classes):  # one loop for the sums and the criterion (the default path's speed)
                left_p[k] += hist_p[j, b, k]
                left_q[k] += hist_q[j, b, k]
                crit += leaf_objective(left_p[k], left_q[k], loss_id, learning_rate, eps, lam[k], l2)
                crit += leaf_objective(
                    p_tot[k] - left_p[k], q_tot[k] - left_q[k], loss_id, learning_rate, eps, lam[k], l2
                )
            if crit < best:
                best, best_j, best_i = crit, j, i
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
        for k in range(P.shape[1]):  # loops, not row adds: those compile ~2 s of shape-error text
            vw.node_p[child, k] += P[n, k]
            vw.node_q[child, k] += Q[n, k]


@njit(cache=True, nogil=True)
def _node_values(vw, first, count, loss_id, learning_rate, eps, lam, l2, msl):
    """node_values of the nodes first .. first + count - 1; an empty node, or one with fewer than ``msl`` rows
    (only below a root that had no split with min_samples_leaf rows a side), takes its parent's values."""
    for c in range(count):
        i = first + c
        if vw.node_n[i] < msl and i > 0:
            for k in range(vw.node_values.shape[1]):
                vw.node_values[i, k] = vw.node_values[(i - 1) // 2, k]
            continue
        for k in range(vw.node_p.shape[1]):
            vw.node_values[i, k] = leaf_value(
                vw.node_p[i, k], vw.node_q[i, k], loss_id, learning_rate, eps, lam[k], l2
            )


@njit(cache=True, nogil=True)
def _exp_weight_left(vw, first, count):
    """sum over the nodes first .. first + count - 1 and the classes of p e^v + q e^-v: the exp weight their
    steps leave (the layer's loss when the criterion also holds the l2 penalty or a node took its parent's step)."""
    total = 0.0
    for i in range(first, first + count):
        for k in range(vw.node_p.shape[1]):
            v = vw.node_values[i, k]
            total += vw.node_p[i, k] * np.exp(v) + vw.node_q[i, k] * np.exp(-v)
    return total


@njit(cache=True, nogil=True)
def grow_vector_tree(
    bins, usable, depth, P, Q, H, cp, cm, loss_id, learning_rate, eps, lam, l2, msl, vw, features, thr_idx
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
    ``l2`` (l2_regularization in the units of P, Q) enters every leaf value and criterion (``leaf_value``);
    ``msl`` (min_samples_leaf): a split must leave each child none or at least msl rows (``vector_scan``).
    """
    n_samples, n_classes = P.shape
    vw.node[:] = 0
    vw.node_n[0] = n_samples
    for k in range(n_classes):
        vw.node_p[0, k] = P[:, k].sum()
        vw.node_q[0, k] = Q[:, k].sum()
    _node_values(vw, 0, 1, loss_id, learning_rate, eps, lam, l2, msl)
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
            crit = vector_criterion(vw.node_p[i], vw.node_q[i], loss_id, learning_rate, eps, lam, l2)
            j = -1
            thr = 1
            if not stopped and stop > start:
                tol = 0.0
                for k in range(n_classes):
                    tol += abs(vw.node_p[i, k]) + vw.node_q[i, k]
                node_histograms(bins, P, Q, vw.order, start, stop, vw.hist_p, vw.hist_q)
                if msl > 1:
                    node_counts(bins, vw.order, start, stop, vw.hist_n)
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
                    l2,
                    vw.hist_n,
                    stop - start,
                    msl,
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
        _node_values(vw, first + count, 2 * count, loss_id, learning_rate, eps, lam, l2, msl)
        if loss_id == LOSS_EXP:
            if l2 > 0.0 or msl > 1:
                total = _exp_weight_left(vw, first + count, 2 * count)
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
            _node_values(vw, first + count, 2 * count, loss_id, learning_rate, eps, lam, l2, msl)
        vw.layer_loss[d] = best_loss
    leaves = 1 << depth
    for lf in range(leaves):
        for k in range(n_classes):
            vw.values[lf, k] = scale * vw.node_values[leaves - 1 + lf, k]
    for n in range(n_samples):
        vw.node[n] -= leaves - 1
