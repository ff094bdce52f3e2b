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
