"""The REBEL round loop (Eq. 3, S.6): bias a0, then one weak learner and output vector per round.

Reads binned training data and per-sample cost rows (N, K); writes a ``BoostResult`` of plain ndarrays.

Weights: ``wp = c+ * e^H`` and ``wm = c- * e^-H`` are updated multiplicatively each round and rescaled to total 1
(a global rescale changes neither the chosen f nor a*), while ``log_total`` tracks the log of their true
total, so the loss ``L = mean(beta) + exp(log_total) / (2N)`` (DESIGN.md section 1) never overflows. ``H`` on the
training samples is kept alongside for the empirical risk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import _kernels as kern
from .costs import decompose
from .tree import GrowBuffers, grow_tree


@dataclass
class BoostResult:
    a0: np.ndarray  # (K,)
    features: np.ndarray  # (T, 2^D - 1) int32
    thr_idx: np.ndarray  # (T, 2^D - 1) int32
    leaf_signs: np.ndarray  # (T, 2^D) int8
    A: np.ndarray  # (T, K) output vectors a_t
    train_loss: np.ndarray  # (T + 1,) loss L after a0 and after each round
    train_risk: np.ndarray  # (T + 1,) empirical risk after a0 and after each round
    layer_loss: np.ndarray  # (T, D) loss L of the model if round t's tree stopped after layer l + 1
    H: np.ndarray  # (N, K) final training scores


def boost(
    bins: np.ndarray,
    usable: np.ndarray,
    cost_rows: np.ndarray,
    n_rounds: int,
    depth: int,
    n_bins: int,
    callback: Callable[[int, dict], object] | None = None,
) -> BoostResult:
    """Train ``n_rounds`` rounds of depth-``depth`` trees. ``callback(t, info)`` runs after a0 (t = 0) and after
    each round; returning ``False`` stops training early (the result then holds the rounds done so far)."""
    n_features, n_samples = bins.shape
    n_classes = cost_rows.shape[1]
    dec = decompose(cost_rows)
    wp = np.ascontiguousarray(dec.cp)
    wm = np.ascontiguousarray(dec.cm)
    mean_beta = float(dec.beta.mean())
    H = np.zeros((n_samples, n_classes))
    total0 = float(wp.sum() + wm.sum())
    log_total = math.log(total0) if total0 > 0 else -math.inf

    def loss_of(log_t: float) -> float:
        return mean_beta + math.exp(log_t) / (2 * n_samples)

    # a0: the closed form with f == +1 on the initial weights (H = 0); apply_round rescales to total 1.
    buf = GrowBuffers(n_samples, n_features, n_classes, n_bins, depth)
    ones = np.ones(n_samples, dtype=np.int8)
    kern.split_sums(wp, wm, ones, buf.sp, buf.sm)
    a0 = np.empty(n_classes)
    kern.a_star(buf.sp, buf.sm, a0)
    total = kern.round_total(buf.sp, buf.sm, a0)  # relative to total0: the sums are of wp, wm before rescaling
    risk0 = _apply(buf, wp, wm, H, ones, a0, total, cost_rows)
    log_total += _log_or_neginf(total / total0) if total0 > 0 else 0.0

    n_nodes, n_leaves = (1 << depth) - 1, 1 << depth
    features = np.zeros((n_rounds, n_nodes), dtype=np.int32)
    thr_idx = np.zeros((n_rounds, n_nodes), dtype=np.int32)
    leaf_signs = np.zeros((n_rounds, n_leaves), dtype=np.int8)
    A = np.zeros((n_rounds, n_classes))
    train_loss = np.empty(n_rounds + 1)
    train_risk = np.empty(n_rounds + 1)
    layer_loss = np.empty((n_rounds, depth))
    train_loss[0] = loss_of(log_total)
    train_risk[0] = risk0

    done = 0
    if callback is not None and callback(0, {"loss": train_loss[0], "risk": train_risk[0], "a": a0}) is False:
        return _truncate(a0, features, thr_idx, leaf_signs, A, train_loss, train_risk, layer_loss, H, 0)
    for t in range(n_rounds):
        tree, a, layer_totals = grow_tree(bins, wp, wm, usable, depth, buf)
        for lyr in range(depth):
            layer_loss[t, lyr] = loss_of(log_total + _log_or_neginf(layer_totals[lyr]))
        total = kern.round_total(buf.sp, buf.sm, a)
        risk = _apply(buf, wp, wm, H, buf.f, a, total, cost_rows)
        log_total += _log_or_neginf(total)
        features[t], thr_idx[t], leaf_signs[t], A[t] = tree.features, tree.thr_idx, tree.leaf_signs, a
        train_loss[t + 1] = loss_of(log_total)
        train_risk[t + 1] = risk
        done = t + 1
        if callback is not None:
            info = {"loss": train_loss[t + 1], "risk": train_risk[t + 1], "a": a, "tree": tree}
            if callback(t + 1, info) is False:
                break
    return _truncate(a0, features, thr_idx, leaf_signs, A, train_loss, train_risk, layer_loss, H, done)


def _apply(buf, wp, wm, H, f, a, total, cost_rows) -> float:
    """Move H and the weights past a round (``kern.apply_round``) and return the training risk."""
    scale = 1.0 / total if total > 0 else 1.0
    return buf.apply_round(wp, wm, H, f, a, scale, cost_rows, buf.dw, buf.w_total, buf.dw_total, buf.n_chunks)


def _log_or_neginf(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def _truncate(a0, features, thr_idx, leaf_signs, A, train_loss, train_risk, layer_loss, H, done) -> BoostResult:
    return BoostResult(
        a0=a0,
        features=features[:done].copy(),
        thr_idx=thr_idx[:done].copy(),
        leaf_signs=leaf_signs[:done].copy(),
        A=A[:done].copy(),
        train_loss=train_loss[: done + 1].copy(),
        train_risk=train_risk[: done + 1].copy(),
        layer_loss=layer_loss[:done].copy(),
        H=H,
    )
