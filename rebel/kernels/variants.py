"""Stage 8, the variants beyond the paper (DESIGN.md "Variants"; paper mode never calls them): the logistic loss
F(x) = ln(1 + e^x), its gradient and hessian, the line search, a leaf's value and objective (exp and logistic),
and the step with leaf values. Per (sample, class) the two statistics of a round are P, Q = (wp, wm) for the exp
loss and (g, h) for the logistic loss.

Reads H, cp, cm (N, K) float64 and statistic sums; writes g, h (N, K) (``logistic_stats``) and H, wp, wm
(``apply_leaf_values``). The growers are ``vector_tree`` and ``newton_tree``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

LOSS_EXP = 0


LOSS_LOGISTIC = 1


# Ridge of every Newton denominator, relative to the mean hessian per class: keeps an empty or hessian-free
# leaf's value finite (0) while leaving every other value unchanged to ~1e-9.
NEWTON_RIDGE = 1e-9


# Halvings of a logistic step before the line search gives up (the step is then 0: the loss cannot increase).
LINE_SEARCH_STEPS = 60


# Most Newton iterations of an exp-loss leaf step under l2_regularization > 0 (kept inside a shrinking bracket,
# bisection when a step leaves it); the iteration stops once a step moves v by less than 1e-12 (1 + |v|).
EXP_L2_STEPS = 60


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
    hist_n: (
        np.ndarray
    )  # (d, n_bins) int64 one node's row counts per bin (min_samples_leaf > 1 only, else empty)
    leaf_counts: (
        np.ndarray
    )  # (2^(D-1), d, n_bins) row counts per leaf and bin (binary leaves, min_samples_leaf)
    ones: np.ndarray  # (N,) 1.0 per row: the "statistic" whose leaf histograms are those counts


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
def exp_l2_step(p, q, l2):
    """argmin_v p e^v + q e^-v + l2 v^2 / 2 (p, q > 0, l2 > 0): the root of p e^v - q e^-v + l2 v, which lies
    between 0 and the unregularised step 1/2 ln(q / p); Newton from the regularised Newton step at 0, kept in
    that bracket (bisection when a step leaves it)."""
    v0 = 0.5 * (np.log(q) - np.log(p))
    lo, hi = min(v0, 0.0), max(v0, 0.0)
    v = min(max((q - p) / (p + q + l2), lo), hi)
    for _ in range(EXP_L2_STEPS):
        ep = p * np.exp(v)
        em = q * np.exp(-v)
        phi = ep - em + l2 * v
        if phi > 0.0:
            hi = v
        else:
            lo = v
        nv = v - phi / (ep + em + l2)
        if not lo <= nv <= hi:
            nv = 0.5 * (lo + hi)
        done = abs(nv - v) <= 1e-12 * (1.0 + abs(v))
        v = nv
        if done:
            break
    return v


@njit(cache=True, nogil=True)
def leaf_value(p, q, loss_id, learning_rate, eps, lam, l2):
    """One class's step in a leaf with statistic sums (p, q): exp 1/2 ln((q + eps) / (p + eps)) (a* smoothed),
    logistic the Newton step -p / (q + lam + l2); times the learning rate. ``l2`` (l2_regularization, in the
    statistics' units) is added to the hessian as in scikit-learn's HistGradientBoosting; for the exp loss, whose
    step has no Newton denominator, the step minimises (p + eps) e^v + (q + eps) e^-v + l2 v^2 / 2 (``exp_l2_step``;
    l2 = 0: the closed form above). Both shrink toward 0 as l2 grows."""
    if loss_id == LOSS_EXP:
        if l2 > 0.0:
            return learning_rate * exp_l2_step(p + eps, q + eps, l2)
        return learning_rate * 0.5 * (np.log(q + eps) - np.log(p + eps))
    return -learning_rate * p / (q + lam + l2)


@njit(cache=True, nogil=True)
def leaf_objective(p, q, loss_id, learning_rate, eps, lam, l2):
    """One class's regularised loss in a leaf after its step v = ``leaf_value``: exp p e^v + q e^-v (exactly the
    weight it leaves; sum_k 2 sqrt(p q) at the unsmoothed optimum) + l2 v^2 / 2, logistic the Newton model
    p v + (q + l2) v^2 / 2 (at learning rate 1: -p^2 / (2 (q + lam + l2)), scikit-learn's gain up to -1/2)."""
    v = leaf_value(p, q, loss_id, learning_rate, eps, lam, l2)
    if loss_id == LOSS_EXP:
        if l2 > 0.0:
            return p * np.exp(v) + q * np.exp(-v) + 0.5 * l2 * v * v
        return p * np.exp(v) + q * np.exp(-v)
    return p * v + 0.5 * (q + l2) * v * v


@njit(cache=True, nogil=True)
def vector_criterion(p, q, loss_id, learning_rate, eps, lam, l2):
    """The vector-leaf split criterion of one node: sum_k ``leaf_objective`` (lower is better)."""
    total = 0.0
    for k in range(p.shape[0]):
        total += leaf_objective(p[k], q[k], loss_id, learning_rate, eps, lam[k], l2)
    return total


@njit(cache=True, nogil=True)
def apply_leaf_values(H, wp, wm, node, values, scale, reweight, cost_rows):
    """H += values[node[n]] (the round's step); with ``reweight`` (exp loss) also wp <- wp e^v scale and
    wm <- wm e^-v scale. Returns the training risk mean_n cost_rows[n, argmax_k H[n, k]] (ties to the lowest k).
    The factors e^v scale and e^-v scale are computed once per (leaf, class), not once per (sample, class):
    the same values, so the same weights to the bit."""
    n_samples, n_classes = H.shape
    n_factors = values.shape[0] if reweight else 0
    up = np.empty((n_factors, n_classes))
    down = np.empty((n_factors, n_classes))
    for lf in range(n_factors):
        for k in range(n_classes):
            up[lf, k] = np.exp(values[lf, k]) * scale
            down[lf, k] = np.exp(-values[lf, k]) * scale
    risk = 0.0
    for n in range(n_samples):
        lf = node[n]
        best = 0
        for k in range(n_classes):
            H[n, k] += values[lf, k]
            if reweight:
                wp[n, k] *= up[lf, k]
                wm[n, k] *= down[lf, k]
            if H[n, k] > H[n, best]:
                best = k
        risk += cost_rows[n, best]
    return risk / max(n_samples, 1)
