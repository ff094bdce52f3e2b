"""Calibrating a posterior and measuring its calibration: the strongest two-step baseline's building blocks.

Nikolaou et al. ("Cost-sensitive boosting algorithms: Do we really need them?", Machine Learning 104, 2016)
found that cost-sensitive boosting variants perform alike once the 0-1 model's probabilities are calibrated, and
recommend a calibrated cost-blind booster with a shifted threshold. The multi-class form of that recipe is the
*calibrated two-step*: the 0-1 model's posterior P (N, K), mapped by a calibrator fitted on held-out (or
cross-fitted) points, then the minimum-risk rule ``argmin_k sum_y p(y|x) C[y, k]``.

- ``fit_calibrator(P, y, method)``: scikit-learn's ``CalibratedClassifierCV`` on the posterior itself
  (``"temperature"``: one inverse temperature on log P, multi-class; ``"sigmoid"``: Platt, one sigmoid per
  class against the rest, renormalised; ``"isotonic"``: one isotonic map per class, renormalised).
- ``CrossFitCalibrated``: a posterior estimator wrapper; the calibrator is fitted on out-of-fold posteriors of
  ``n_folds`` models and applied to the model fitted on all points (scikit-learn's ``ensemble=False``).
- ``reliability(P, y)``: reliability-diagram data (per probability bin: mean predicted probability, observed
  frequency, count) pooled over classes (every p(y = k | x) against 1[y = k]) or for the top class; ``ece``
  the count-weighted gap.

No streamlit or plotly here; the figure is ``rebel.ui.figures.calibration``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import _safe_indexing

from .init_params import store_params

CALIBRATIONS = {
    "temperature": "temperature scaling (one parameter, multi-class)",
    "sigmoid": "Platt scaling (a sigmoid per class vs rest)",
    "isotonic": "isotonic regression (per class vs rest)",
}
RELIABILITY_KINDS = ("classwise", "top")


class _GivenPosterior(ClassifierMixin, BaseEstimator):
    """A 'classifier' whose input already is a posterior (N, K): ``predict_proba(P) = P``. Lets scikit-learn's
    calibrators work on any model's posteriors, read at any round."""

    def __init__(self, n_classes: int = 2):
        store_params(self, locals())

    def fit(self, P, y=None):
        self.classes_ = np.arange(self.n_classes)
        return self

    def predict_proba(self, P):
        return np.asarray(P, dtype=np.float64)

    def predict(self, P):
        return np.argmax(np.asarray(P), axis=1)


def check_method(method: str) -> str:
    if method not in CALIBRATIONS:
        raise ValueError(f"calibration method is {method!r}; choose one of {list(CALIBRATIONS)}.")
    return method


def fit_calibrator(P, y, method: str = "temperature") -> CalibratedClassifierCV:
    """A calibrator of posteriors P (N, K) to labels y (N,) as class indices 0..K-1; call its
    ``predict_proba(P_new)`` to calibrate new posteriors of the same model."""
    P, y = np.asarray(P, dtype=np.float64), np.asarray(y)
    if P.ndim != 2 or P.shape[0] != y.shape[0]:
        raise ValueError(f"P has shape {P.shape} and y {y.shape}; give one posterior row (N, K) per label.")
    K = P.shape[1]
    if not np.array_equal(np.unique(y), np.arange(K)):
        raise ValueError(
            f"y must hold every class index 0..{K - 1} (the calibrator learns each class); got {np.unique(y)}."
        )
    base = FrozenEstimator(_GivenPosterior(K).fit(P))
    return CalibratedClassifierCV(base, method=check_method(method)).fit(P, y)


def calibrate(P_cal, y_cal, P_new, method: str = "temperature") -> np.ndarray:
    """``P_new`` (M, K) mapped by the calibrator fitted on (``P_cal``, ``y_cal``)."""
    return fit_calibrator(P_cal, y_cal, method).predict_proba(np.asarray(P_new, dtype=np.float64))


def fold_indices(y, n_folds: int = 5, seed: int = 0) -> list:
    """Stratified (train, held-out) index pairs; every class needs at least ``n_folds`` points."""
    y = np.asarray(y)
    counts = np.bincount(np.unique(y, return_inverse=True)[1])
    if counts.min() < n_folds:
        raise ValueError(
            f"cross-fitting with n_folds={n_folds} needs at least {n_folds} points per class; the smallest "
            f"class has {counts.min()}. Use fewer folds or more data."
        )
    return list(StratifiedKFold(n_folds, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def crossfit_calibrator(make_model, X, y, y_idx, method, n_folds, seed=0, fold_params=None):
    """A calibrator (``fit_calibrator``) fitted on out-of-fold posteriors: ``n_folds`` models ``make_model()``
    each fitted on (X, y) without one stratified fold (``fold_params(train_rows)``: extra fit arguments) and read
    on that fold. X: an array or a DataFrame; y: the labels the model is fitted on; y_idx: their class indices."""
    y_idx = np.asarray(y_idx)
    oof = np.zeros((len(y_idx), int(y_idx.max()) + 1))
    for train, held in fold_indices(y_idx, n_folds, seed):
        extra = {} if fold_params is None else fold_params(train)
        model = make_model().fit(_safe_indexing(X, train), _safe_indexing(y, train), **extra)
        oof[held] = model.predict_proba(_safe_indexing(X, held))
    return fit_calibrator(oof, y_idx, method)


class CrossFitCalibrated(ClassifierMixin, BaseEstimator):
    """A posterior estimator calibrated by cross-fitting: ``n_folds`` clones of ``estimator`` give out-of-fold
    posteriors of every training point, a calibrator (``method``) is fitted on them, and it maps the posterior
    of ``estimator`` fitted on all points (``crossfit_calibrator``). ``rebel.minrisk.MinRiskClassifier`` is the
    same calibration with the minimum-risk decision."""

    def __init__(self, estimator=None, method: str = "temperature", n_folds: int = 5, random_state: int = 0):
        store_params(self, locals())

    def fit(self, X, y):
        from rebel.estimator import RebelClassifier

        check_method(self.method)
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        base = RebelClassifier() if self.estimator is None else self.estimator
        self.calibrator_ = crossfit_calibrator(
            lambda: clone(base), X, y_idx, y_idx, self.method, self.n_folds, self.random_state
        )
        self.estimator_ = clone(base).fit(X, y_idx)
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X):
        return self.calibrator_.predict_proba(self.estimator_.predict_proba(np.asarray(X, dtype=np.float64)))

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _staged_at(model, X, rounds) -> dict:
    """{t: posterior (N, K)} of a fitted 0-1 model after each round count t of ``rounds`` (the last stage where
    training stopped early)."""
    from rebel.staged import staged_posteriors

    wanted, out, P = set(rounds), {}, None
    for t, P in enumerate(staged_posteriors(model, X), start=1):
        if t in wanted:
            out[t] = P
    return {t: out.get(t, P) for t in rounds}


def crossfit_staged(make_model, X, y, evals, rounds, n_folds: int = 3, seed: int = 0) -> tuple:
    """Out-of-fold posteriors for calibrating a boosted model at every round count of ``rounds``:
    ``(oof, posts)`` with ``oof[t]`` (N, K) from ``n_folds`` models ``make_model()`` fitted without each fold,
    and ``posts[i][t]`` the posterior of ``make_model()`` fitted on all of (X, y) on ``evals[i]``. y: class
    indices 0..K-1. One fit per fold, read at every t through staged predictions."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    K = int(y.max()) + 1
    oof = {t: np.zeros((len(y), K)) for t in rounds}
    for train, held in fold_indices(y, n_folds, seed):
        for t, P in _staged_at(make_model().fit(X[train], y[train]), X[held], rounds).items():
            oof[t][held] = P
    full = make_model().fit(X, y)
    return oof, [_staged_at(full, E, rounds) for E in evals]


def reliability(P, y, n_bins: int = 10, kind: str = "classwise") -> pd.DataFrame:
    """Reliability-diagram data of posteriors P (N, K) for labels y (class indices): one row per non-empty bin
    of ``n_bins`` equal-width probability bins with ``lo, hi, predicted`` (mean probability), ``observed``
    (frequency of the event) and ``count``. ``kind="classwise"`` pools every p(y = k | x) against 1[y = k] (what
    the minimum-risk rule uses); ``"top"`` is the most probable class against being right."""
    P, y = np.asarray(P, dtype=np.float64), np.asarray(y)
    if kind not in RELIABILITY_KINDS:
        raise ValueError(f"kind is {kind!r}; choose one of {list(RELIABILITY_KINDS)}.")
    if kind == "top":
        prob, event = P.max(axis=1), (np.argmax(P, axis=1) == y).astype(float)
    else:
        prob = P.ravel()
        event = (y[:, None] == np.arange(P.shape[1])[None, :]).astype(float).ravel()
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    b = np.clip(np.digitize(prob, edges[1:-1]), 0, n_bins - 1)
    count = np.bincount(b, minlength=n_bins)
    keep = count > 0
    predicted = np.bincount(b, prob, minlength=n_bins)[keep] / count[keep]
    observed = np.bincount(b, event, minlength=n_bins)[keep] / count[keep]
    return pd.DataFrame(
        {
            "lo": edges[:-1][keep],
            "hi": edges[1:][keep],
            "predicted": predicted,
            "observed": observed,
            "count": count[keep],
        }
    )


def ece(table: pd.DataFrame) -> float:
    """Expected calibration error of a ``reliability`` table: count-weighted mean |predicted - observed|."""
    w = table["count"] / table["count"].sum()
    return float((w * (table["predicted"] - table["observed"]).abs()).sum())


__all__ = [
    "CALIBRATIONS",
    "RELIABILITY_KINDS",
    "CrossFitCalibrated",
    "calibrate",
    "check_method",
    "crossfit_calibrator",
    "crossfit_staged",
    "ece",
    "fit_calibrator",
    "fold_indices",
    "reliability",
]
