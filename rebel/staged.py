"""Posteriors and scores of a fitted model after every boosting round, for every estimator the project compares:
``staged_posteriors`` (p(y|x), N x K, a stage at a time), ``staged_scores`` (the argmax's scores), the two-step's
minimum-risk decisions at every round (``staged_min_risk_indices``, ``min_risk_stages``). Below the estimators that
use them (``rebel.minrisk``, ``rebel.baselines``).
"""

from __future__ import annotations

import numpy as np

from .costs import min_risk_class
from .estimator import RebelClassifier, posterior_from_scores

try:  # LightGBM is optional (the "bench" extra)
    import lightgbm
except ImportError:  # pragma: no cover - depends on the environment
    lightgbm = None

HAS_LIGHTGBM = lightgbm is not None


def _unfrozen(estimator):
    """The estimator inside a ``sklearn.frozen.FrozenEstimator`` (or the estimator itself)."""
    from sklearn.frozen import FrozenEstimator

    return estimator.estimator if isinstance(estimator, FrozenEstimator) else estimator


def _check_rebel_posterior(est) -> None:
    if not hasattr(est, "predict_proba"):
        raise ValueError(
            "this RebelClassifier was trained with a cost matrix, so it estimates the minimum-risk class, "
            "not posteriors; fit it with cost_matrix=None to use it as a posterior estimator."
        )


def staged_posteriors(estimator, X):
    """Yield the fitted ``estimator``'s posterior estimates p(y|x) (N, K) after each boosting round.

    Works for ``RebelClassifier`` (0-1 costs), ``AdaBoostMH``, ``OneVsAllAdaBoost``, any estimator with
    ``staged_predict_proba`` (scikit-learn AdaBoost, HistGradientBoosting) and LightGBM's ``LGBMClassifier``.
    """
    est = _unfrozen(estimator)
    if isinstance(est, RebelClassifier):
        yield from _rebel_staged_posteriors(est, X)
    elif hasattr(est, "staged_predict_proba"):
        yield from est.staged_predict_proba(X)
    elif HAS_LIGHTGBM and isinstance(est, lightgbm.LGBMClassifier):
        yield from _lightgbm_staged_proba(est, X)
    else:
        raise TypeError(
            f"{type(est).__name__} has no staged posteriors; use an estimator with staged_predict_proba "
            "(or RebelClassifier, AdaBoostMH, OneVsAllAdaBoost, LGBMClassifier)."
        )


def _rebel_staged_posteriors(est: RebelClassifier, X, **kwargs):
    """A 0-1 ``RebelClassifier``'s posterior after each round, through the formula its loss implies (the same
    as its ``predict_proba``: sigma(2H) for the exp loss, sigma(H) for the logistic loss)."""
    _check_rebel_posterior(est)
    loss = getattr(est, "loss_", "exp")
    for H in est.staged_risk_scores(X, **kwargs):
        yield posterior_from_scores(H, loss)


def staged_scores(estimator, X):
    """Yield the fitted ``estimator``'s class scores (N, K) after each round; the prediction is their argmax.

    Scores are REBEL's ``staged_risk_scores`` (the K-vector H for every K) or ``decision_function``'s
    (AdaBoost.MH, 1-vs-all, SAMME, the two-step negative expected cost), otherwise the posteriors (the argmax of
    a monotone transform is the same class).
    """
    est = _unfrozen(estimator)
    if hasattr(est, "staged_risk_scores"):
        yield from est.staged_risk_scores(X)
    elif hasattr(est, "staged_decision_function"):
        for S in est.staged_decision_function(X):
            yield _as_2d_scores(S)
    else:
        yield from staged_posteriors(est, X)


def staged_min_risk_posteriors(estimator, X, include_bias=True):
    """The posteriors ``staged_min_risk_indices`` decides on: one (N, K) array a stage, as a generator (t = 1..T,
    or t = 0..T for a ``RebelClassifier`` with ``include_bias``). They do not depend on the costs: a caller that
    decides under several cost matrices may keep them and pass them to ``min_risk_stages``."""
    est = _unfrozen(estimator)
    if isinstance(est, RebelClassifier):
        return _rebel_staged_posteriors(est, X, include_bias=include_bias)
    return staged_posteriors(est, X)


def min_risk_stages(stages, cost_matrix, n_points: int) -> np.ndarray:
    """The minimum-risk class of every stage's posteriors (N, K): shape (stages, N) int16."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    rows = [min_risk_class(P, C).astype(np.int16) for P in stages]  # int16 as they come: 1/4 of int64
    return np.array(rows, dtype=np.int16).reshape(-1, n_points)


def staged_min_risk_indices(estimator, X, cost_matrix, include_bias=True) -> np.ndarray:
    """The two-step decision after every round: class index ``argmin_k sum_y p_t(y|x) C[y, k]`` of the fitted
    posterior ``estimator`` (see ``staged_posteriors``) at t = 1..T, or t = 0..T for a ``RebelClassifier`` with
    ``include_bias`` (t = 0: a0 alone). Shape (stages, N) int16, one stage in memory at a time; a REBEL
    posterior runs on the compiled staged scores."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    return min_risk_stages(staged_min_risk_posteriors(estimator, X, include_bias), C, np.shape(X)[0])


def _as_2d_scores(S: np.ndarray) -> np.ndarray:
    """Binary scikit-learn decision values (N,) score class 1; turn them into (N, 2) scores [0, s]."""
    S = np.asarray(S)
    if S.ndim == 1:
        return np.column_stack([np.zeros_like(S), S])
    return S


def _lightgbm_staged_proba(est, X):
    """LightGBM posteriors after each iteration: raw scores summed tree by tree, then softmax / sigmoid."""
    X = np.asarray(X, dtype=np.float64)
    booster = est.booster_
    raw = None
    for t in range(booster.current_iteration()):
        step = booster.predict(X, raw_score=True, start_iteration=t, num_iteration=1)
        raw = step if raw is None else raw + step
        if raw.ndim == 1:
            p1 = 1.0 / (1.0 + np.exp(-raw))
            yield np.column_stack([1.0 - p1, p1])
        else:
            z = np.exp(raw - raw.max(axis=1, keepdims=True))
            yield z / z.sum(axis=1, keepdims=True)
