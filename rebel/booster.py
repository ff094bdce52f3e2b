"""The REBEL round loop (Eq. 3, S.6): bias a0, then one weak learner and output vector per round.

Reads binned training data and per-sample cost rows (N, K); writes a ``BoostResult`` of plain ndarrays.

Weights: ``wp = c+ * e^H`` and ``wm = c- * e^-H`` are updated multiplicatively each round and rescaled to total 1
(a global rescale changes neither the chosen f nor a*), while ``log_total`` tracks the log of their true
total, so the loss ``L = mean(beta) + exp(log_total) / (2N)`` (DESIGN.md section 1) never overflows. ``H`` on the
training samples is kept alongside for the empirical risk. ``training_loss`` is the same L straight from scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import kernels as kern
from .costs import decompose
from .grower import new_forest, round_work, tree_of
from .kernels import compiled


@dataclass(frozen=True)
class BoostInputs:
    """What every round loop trains on (paper mode's ``boost`` and the variants' ``boost_variant``): ``n_rounds``
    rounds of depth-``depth`` trees on binned features ``bins`` (d, N) uint8 of ``n_bins`` bins, splitting only
    the ``usable`` features (d,), with per-sample cost rows (N, K)."""

    bins: np.ndarray
    usable: np.ndarray
    cost_rows: np.ndarray
    n_rounds: int
    depth: int
    n_bins: int


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
    leaf_values: np.ndarray | None = None  # (T, 2^D, K) per-leaf steps of vector-leaf variants


def training_loss(H, cost_rows) -> float:
    """The loss L of Eq. 2 (F = exp) on scores H (N, K) and cost rows (N, K), DESIGN.md section 1:
    ``L = mean_n beta_n + (1/2N) sum_n (<c+_n, e^H_n> + <c-_n, e^-H_n>)``, an upper bound of the empirical risk.
    (The booster tracks the same L through the log of the running weight total instead of from H.)"""
    dec = decompose(cost_rows)
    H = np.asarray(H, dtype=np.float64)
    return float(
        dec.beta.mean() + ((dec.cp * np.exp(H)).sum() + (dec.cm * np.exp(-H)).sum()) / (2 * H.shape[0])
    )


def boost(
    inputs: BoostInputs,
    callback: Callable[[int, dict], object] | None = None,
    learning_rate: float = 1.0,
) -> BoostResult:
    """Train ``inputs.n_rounds`` rounds of depth-``inputs.depth`` trees. ``callback(t, info)`` runs after a0
    (t = 0) and after each round; returning ``False`` stops training early (the result then holds the rounds
    done so far). ``learning_rate`` < 1 shrinks every a_t (a variant; ``layer_loss`` then holds each layer's
    full step)."""
    bins, usable, cost_rows = inputs.bins, inputs.usable, inputs.cost_rows
    n_rounds, depth, n_bins = inputs.n_rounds, inputs.depth, inputs.n_bins
    n_features, n_samples = bins.shape
    n_classes = cost_rows.shape[1]
    dec = decompose(cost_rows)
    state = kern.TrainState(
        np.ascontiguousarray(dec.cp),
        np.ascontiguousarray(dec.cm),
        np.zeros((n_samples, n_classes)),
        cost_rows,
    )
    mean_beta = float(dec.beta.mean())
    work = round_work(n_samples, n_features, n_classes, n_bins, depth)
    a0, risk0, log_total0 = _bias_step(state, work)
    forest = new_forest(n_rounds, depth, n_classes)

    def loss_of(log_t: float) -> float:
        return mean_beta + math.exp(log_t) / (2 * n_samples)

    done = n_rounds
    boost_rounds = round_driver(work.parallel, n_classes, n_rounds, depth, n_samples, n_features)
    if callback is None:
        boost_rounds(0, n_rounds, bins, usable, depth, state, work, forest, learning_rate)  # one call
    elif callback(0, {"loss": loss_of(log_total0), "risk": risk0, "a": a0}) is False:
        done = 0
    else:
        log_total = log_total0
        for t in range(n_rounds):
            boost_rounds(t, t + 1, bins, usable, depth, state, work, forest, learning_rate)
            log_total += _log_or_neginf(forest.round_totals[t])
            info = {"loss": loss_of(log_total), "risk": forest.risks[t], "a": forest.A[t]}
            if callback(t + 1, {**info, "tree": tree_of(forest, t, depth)}) is False:
                done = t + 1
                break

    # Loss after each round from the log of the running weight total (DESIGN.md section 1).
    with np.errstate(divide="ignore"):
        log_round = np.log(forest.round_totals[:done])
        log_layers = np.log(forest.layer_totals[:done])
    log_before = log_total0 + np.concatenate(([0.0], np.cumsum(log_round)))
    return BoostResult(
        a0=a0,
        features=forest.features[:done].copy(),
        thr_idx=forest.thr_idx[:done].copy(),
        leaf_signs=forest.leaf_signs[:done].copy(),
        A=forest.A[:done].copy(),
        train_loss=mean_beta + np.exp(log_before) / (2 * n_samples),
        train_risk=np.concatenate(([risk0], forest.risks[:done])),
        layer_loss=mean_beta + np.exp(log_before[:-1, None] + log_layers) / (2 * n_samples),
        H=state.H,
    )


# The round driver (docs/DESIGN.md "The round driver"): the compiled round loop costs about 1.5 s of compile
# per class count on top of the kernels it calls. The interpreted one costs, over the compiled one (measured,
# 1 thread): its dispatch, 9 / 14 / 18 us a round of depth 1 / 2 / 3 (wine, K = 3), and 3-9 % of the rounds'
# work on bigger problems (N = 20k, d = 20, K = 2: 8.8 %; N = 20k, d = 50, K = 10: 3.9 %; N = 100k, d = 50,
# K = 2: 3.3 %). A fit runs the interpreted loop only while the compiled one is neither compiled in this process
# nor in the numba cache, the fit is small (its work, estimated at ADD_SECONDS a histogram add, N d (K + D - 1)
# a round, at most INTERPRETED_MAX_SECONDS: there the interpreter costs under 2 % of the compile it saves), and
# the interpreter's estimated cost over this process's interpreted fits stays within INTERPRETED_BUDGET, a
# fifth of that compile. Otherwise it compiles the loop (once: then it is cached).
INTERPRETED_LAYER_SECONDS = 10e-6  # dispatch a layer of a round, on the safe side
INTERPRETED_SHARE = 0.1  # of the rounds' work, on the safe side
ADD_SECONDS = 0.4e-9  # a histogram add's share of a round (1 thread; bench_fit's headline: 0.3-0.4 ns)
INTERPRETED_MAX_SECONDS = 0.25
INTERPRETED_BUDGET = 0.3
_interpreted_spent = [0.0]  # the interpreter's estimated cost over this process's interpreted fits, seconds


# kind -> (the compiled driver's name in ``rebel.kernels``, without "_serial"; the interpreted one)
_DRIVERS = {
    "rounds": ("boost_rounds", "boost_rounds_interpreted"),  # the paper's round loop
    "newton": ("grow_newton_tree", "grow_newton_tree_interpreted"),  # the logistic loss's binary-leaf grower
}


def round_driver(
    parallel: bool,
    n_classes: int,
    n_rounds: int,
    depth: int,
    n_samples: int,
    n_features: int,
    kind: str = "rounds",
) -> Callable:
    """The round loop a fit runs (``kind`` "newton": the Newton tree grower a logistic fit calls each round):
    the compiled ``kernels.boost_rounds`` (``parallel``) or ``boost_rounds_serial`` when it is compiled for
    ``n_classes`` (in this process or in the numba cache), the fit is big or the interpreter's budget is spent;
    else ``kernels.boost_rounds_interpreted`` (the same bits). Either compiles only the drivers it runs."""
    base, interpreted = _DRIVERS[kind]
    name = base if parallel else f"{base}_serial"
    work = _work_seconds(n_classes, n_rounds, depth, n_samples, n_features)
    cost = n_rounds * depth * INTERPRETED_LAYER_SECONDS + INTERPRETED_SHARE * work
    small = work <= INTERPRETED_MAX_SECONDS and _interpreted_spent[0] + cost <= INTERPRETED_BUDGET
    if not small or compiled.loop_is_compiled(getattr(kern, name), n_classes):
        return getattr(kern, name)
    _interpreted_spent[0] += cost
    return getattr(kern, interpreted)


def _work_seconds(n_classes: int, n_rounds: int, depth: int, n_samples: int, n_features: int) -> float:
    """The rounds' work of a fit, estimated from its histogram adds (1 thread)."""
    return n_rounds * n_samples * n_features * (n_classes + depth - 1) * ADD_SECONDS


def runs_compiled_loop(n_classes: int, n_rounds: int, depth: int, n_samples: int, n_features: int) -> bool:
    """Whether a fit of this size runs the compiled round loop (or Newton grower) even when it is not compiled
    yet (a big fit: ``round_driver``), so that a CLI compiles it before the progress bar."""
    return _work_seconds(n_classes, n_rounds, depth, n_samples, n_features) > INTERPRETED_MAX_SECONDS


def _bias_step(state: kern.TrainState, work: kern.RoundWork) -> tuple[np.ndarray, float, float]:
    """a0: the closed form with f == +1 on the initial weights (H = 0); the weights move past it and are
    rescaled to total 1. Returns a0, the training risk after it and the log of the true weight total."""
    wp, wm = state.wp, state.wm
    n_samples, n_classes = wp.shape
    total0 = float(wp.sum() + wm.sum())
    log_total = math.log(total0) if total0 > 0 else -math.inf
    ones = np.ones(n_samples, dtype=np.int8)
    kern.split_sums(wp, wm, ones, work.sp, work.sm)
    a0 = np.empty(n_classes)
    kern.a_star(work.sp, work.sm, a0)
    # The total after a0, in the units of total0 (sp and sm are sums of the weights before any rescaling).
    total = kern.round_total(work.sp, work.sm, a0)
    scale = 1.0 / total if total > 0 else 1.0
    apply_round = kern.interpreted_drivers(work)[2]  # run by the interpreter, whatever the round loop
    w = work
    risk0 = apply_round(
        wp, wm, state.H, ones, a0, scale, state.cost_rows, w.dw, w.w_total, w.dw_total, w.n_chunks
    )
    log_total += _log_or_neginf(total / total0) if total0 > 0 else 0.0
    return a0, risk0, log_total


def _log_or_neginf(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf
