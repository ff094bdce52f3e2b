"""The REBEL round loop (Eq. 3, S.6): bias a0, then one weak learner and output vector per round.

Reads binned training data and per-sample cost rows (N, K); writes a ``BoostResult`` of plain ndarrays.

Weights: ``wp = c+ * e^H`` and ``wm = c- * e^-H`` are updated multiplicatively each round and rescaled to total 1
(a global rescale changes neither the chosen f nor a*), while ``log_total`` tracks the log of their true
total, so the loss ``L = mean(beta) + exp(log_total) / (2N)`` (DESIGN.md section 1) never overflows. ``H`` on the
training samples is kept alongside for the empirical risk.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import _kernels as kern
from .costs import decompose
from .tree import GrowBuffers, Tree


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
    # The total after a0, in the units of total0 (sp and sm are sums of the weights before any rescaling).
    total = kern.round_total(buf.sp, buf.sm, a0)
    risk0 = _apply(buf, wp, wm, H, ones, a0, total, cost_rows)
    log_total += _log_or_neginf(total / total0) if total0 > 0 else 0.0
    log_total0 = log_total

    n_nodes, n_leaves = (1 << depth) - 1, 1 << depth
    features = np.zeros((n_rounds, n_nodes), dtype=np.int32)
    thr_idx = np.zeros((n_rounds, n_nodes), dtype=np.int32)
    leaf_signs = np.zeros((n_rounds, n_leaves), dtype=np.int8)
    A = np.zeros((n_rounds, n_classes))
    layer_totals = np.ones((n_rounds, depth))
    round_totals = np.ones(n_rounds)
    risks = np.empty(n_rounds)

    def run(t_start: int, t_stop: int) -> None:
        kern.boost_rounds(
            t_start,
            t_stop,
            bins,
            wp,
            wm,
            H,
            usable,
            depth,
            buf.parallel,
            cost_rows,
            buf.dw,
            buf.w_total,
            buf.dw_total,
            buf.hist,
            buf.leaf_hist,
            buf.f,
            buf.leaf,
            buf.e,
            buf.u_tot,
            buf.v_tot,
            buf.sp,
            buf.sm,
            buf.n_chunks,
            features,
            thr_idx,
            leaf_signs,
            A,
            layer_totals,
            round_totals,
            risks,
        )

    done = n_rounds
    if callback is None:
        run(0, n_rounds)  # the whole loop in one compiled call
    elif callback(0, {"loss": loss_of(log_total), "risk": risk0, "a": a0}) is False:
        done = 0
    else:
        for t in range(n_rounds):
            run(t, t + 1)
            log_total += _log_or_neginf(round_totals[t])
            tree = Tree(depth, features[t], thr_idx[t], leaf_signs[t])
            info = {"loss": loss_of(log_total), "risk": risks[t], "a": A[t], "tree": tree}
            if callback(t + 1, info) is False:
                done = t + 1
                break

    # Loss after each round from the log of the running weight total (DESIGN.md section 1).
    with np.errstate(divide="ignore"):
        log_round = np.log(round_totals[:done])
        log_layers = np.log(layer_totals[:done])
    log_before = log_total0 + np.concatenate(([0.0], np.cumsum(log_round)))
    train_loss = mean_beta + np.exp(log_before) / (2 * n_samples)
    train_risk = np.concatenate(([risk0], risks[:done]))
    layer_loss = mean_beta + np.exp(log_before[:-1, None] + log_layers) / (2 * n_samples)
    return BoostResult(
        a0=a0,
        features=features[:done].copy(),
        thr_idx=thr_idx[:done].copy(),
        leaf_signs=leaf_signs[:done].copy(),
        A=A[:done].copy(),
        train_loss=train_loss,
        train_risk=train_risk,
        layer_loss=layer_loss,
        H=H,
    )


def _apply(buf, wp, wm, H, f, a, total, cost_rows) -> float:
    """Move H and the weights past a round (``kern.apply_round``) and return the training risk."""
    scale = 1.0 / total if total > 0 else 1.0
    return buf.apply_round(wp, wm, H, f, a, scale, cost_rows, buf.dw, buf.w_total, buf.dw_total, buf.n_chunks)


def _log_or_neginf(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf
