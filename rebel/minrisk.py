"""The two cost-sensitive methods around any classifier: the calibrated two-step and cost-weighted training.

- ``MinRiskClassifier``: fits any classifier with ``predict_proba`` (LightGBM, HistGradientBoosting, a 0-1
  ``RebelClassifier``, logistic regression) on the data alone, calibrates its posterior by cross-fitting
  (``rebel.calibration``: temperature, sigmoid or isotonic on out-of-fold posteriors) and predicts the minimum
  expected cost class ``argmin_k sum_y p(y|x) C[y, k]``. The costs enter only at decision time, so
  ``predict(X, cost_matrix=C2)`` decides under another matrix, or under one matrix per example (N, K, K),
  without refitting.
- ``CostWeightedClassifier``: fits any classifier that takes ``sample_weight`` with each training point
  weighted by its mean mistake cost ``w_n = sum_k c_n[k] / (K - 1)`` (``mistake_weights``; c_n its cost row:
  ``C[y_n]`` or a row of ``sample_cost``), so its posterior q(y|x) is proportional to p(y|x) times the mean
  weight of class y; the decision undoes that: ``argmin_k sum_y q(y|x) C[y, k] / wbar_y`` (``wbar_y`` the mean
  weight of class y's training points, C the class-averaged cost rows). This is the cost-weighting rule of the
  example-cost study (``rebel.experiments.diagnostics.weighted_two_step``).
- ``expected_cost_scorer(C)``: a scorer for ``GridSearchCV`` / ``cross_val_score``: minus the mean cost
  ``C[y, prediction]`` (greater is better, as scikit-learn's scorers are), C in the estimator's class order.

``baselines.TwoStepClassifier`` is ``MinRiskClassifier`` with no calibration and a 0-1 ``RebelClassifier`` by
default (the paper's "standard method").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import _safe_indexing, get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .calibration import CALIBRATIONS, crossfit_calibrator
from .costs import (
    _check_entries,
    expected_risks,
    label_indices,
    min_risk_class,
    uniform_costs,
    validate_cost_matrix,
    validate_sample_cost,
)
from .init_params import store_params

__all__ = [
    "CostWeightedClassifier",
    "MinRiskClassifier",
    "expected_cost",
    "expected_cost_scorer",
    "mistake_weights",
]


def decision_costs(cost_matrix, fitted: np.ndarray, n_points: int, classes) -> np.ndarray:
    """The costs to decide with: ``fitted`` (K, K) when ``cost_matrix`` is None, else ``cost_matrix`` checked:
    one (K, K) matrix for every point, or one matrix per point (N, K, K) (``C_n[y, k]``: the cost of predicting
    k for point n when its truth is y)."""
    if cost_matrix is None:
        return fitted
    K = len(classes)
    if not hasattr(cost_matrix, "columns") and np.ndim(cost_matrix) == 3:
        C = np.asarray(cost_matrix, dtype=np.float64)
        if C.shape != (n_points, K, K):
            raise ValueError(
                f"cost_matrix per example must have shape (n_samples, K, K) = ({n_points}, {K}, {K}): one "
                f"matrix C_n[truth, prediction] per point; got shape {C.shape}."
            )
        _check_entries(C, "cost_matrix", "cost")
        return C
    return validate_cost_matrix(cost_matrix, n_classes=K, classes=classes)


def expected_cost(y_idx: np.ndarray, pred_idx: np.ndarray, C: np.ndarray) -> float:
    """Mean cost ``C[y_n, pred_n]`` (C (K, K), or (N, K, K) per point) of class-index predictions."""
    if C.ndim == 3:
        return float(C[np.arange(len(y_idx)), y_idx, pred_idx].mean())
    return float(C[y_idx, pred_idx].mean())


def mistake_weights(cost_rows: np.ndarray) -> np.ndarray:
    """Each point's training weight: the mean of its cost row over the K - 1 mistakes, ``sum_k c_n[k] / (K - 1)``
    (the diagonal is the free correct answer)."""
    rows = np.asarray(cost_rows, dtype=np.float64)
    return rows.sum(axis=1) / max(rows.shape[1] - 1, 1)


def _label(c):
    """A class label as the user wrote it (a numpy scalar as its Python value)."""
    return c.item() if isinstance(c, np.generic) else c


def _indexable(X):
    """X as it is when rows can be taken from it (array, DataFrame, sparse matrix), else as a numpy array."""
    return X if hasattr(X, "iloc") or isinstance(X, np.ndarray) or sp.issparse(X) else np.asarray(X)


def _checked_target(X, y) -> np.ndarray:
    """y as a 1-d array of classification labels, not of one class only (scikit-learn's messages)."""
    if y is None:
        raise ValueError("this classifier requires y to be passed, but the target y is None.")
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    if len(np.unique(y)) == 1:
        raise ValueError(
            f"y has only one class ({_label(np.unique(y)[0])!r}); a classifier needs at least 2 classes. "
            "Add samples of another class."
        )
    return y


def _binary_or_all(S: np.ndarray) -> np.ndarray:
    """Class scores (N, K) as scikit-learn gives them: for two classes one column, positive for the second
    class (``S[:, 1] - S[:, 0]``; a tie goes to the first class, as the prediction's)."""
    return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S


def _tags_of(tags, estimator):
    """This wrapper's scikit-learn tags with the wrapped estimator's input tags (NaN, categories, sparse)."""
    inner = get_tags(estimator)
    tags.input_tags.allow_nan = inner.input_tags.allow_nan
    tags.input_tags.sparse = inner.input_tags.sparse
    tags.input_tags.categorical = inner.input_tags.categorical
    tags.input_tags.string = inner.input_tags.string
    return tags


def _fold_params(fit_params: dict, n: int, idx) -> dict:
    """``fit_params`` with every per-sample array (length n) cut to the rows ``idx``."""
    return {
        k: _safe_indexing(v, idx) if np.ndim(v) >= 1 and len(v) == n else v for k, v in fit_params.items()
    }


class MinRiskClassifier(ClassifierMixin, BaseEstimator):
    """A classifier's calibrated posterior plus the minimum expected cost decision (the calibrated two-step).

    Parameters
    ----------
    estimator : classifier with ``predict_proba`` or None
        Fitted on (X, y) alone (costs are not used in training); None means scikit-learn's
        ``HistGradientBoostingClassifier()``. Wrap an already fitted model in ``sklearn.frozen.FrozenEstimator``
        (with ``calibration=None``) to reuse it.
    cost_matrix : array-like (K, K) or None
        ``C[y, k]``: the cost of predicting k when the truth is y, in sorted class order (or a DataFrame labelled
        with class names); None means 0-1 costs (the most probable class).
    calibration : "temperature", "sigmoid", "isotonic" or None
        How the posterior is calibrated: a map fitted on out-of-fold posteriors of ``n_folds`` clones, applied to
        the estimator fitted on all points (scikit-learn's ``CalibratedClassifierCV`` with ``ensemble=False``,
        on the posterior). None: the estimator's posterior as is.
    n_folds : int
        Cross-fitting folds; fewer when the smallest class has fewer points (at least 2 a class are needed to
        calibrate; with fewer the posterior is used as is and ``calibrated_`` is False).
    random_state : int
        Seed of the fold assignment.

    ``predict(X, cost_matrix=None)`` decides under the fitted matrix, another (K, K) matrix, or one matrix per
    example (N, K, K), without refitting. ``decision_function`` is the negative expected cost.
    """

    def __init__(
        self, estimator=None, cost_matrix=None, calibration="temperature", n_folds=5, random_state=0
    ):
        store_params(self, locals())

    def _default_estimator(self):
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier()

    def __sklearn_tags__(self):
        est = self._default_estimator() if self.estimator is None else self.estimator
        return _tags_of(super().__sklearn_tags__(), est)

    def fit(self, X, y, **fit_params):
        """Fit (and calibrate) the posterior estimator on (X, y); validate ``cost_matrix``."""
        if self.calibration is not None and self.calibration not in CALIBRATIONS:
            raise ValueError(
                f"calibration is {self.calibration!r}; choose one of {[*CALIBRATIONS, None]} (None: no calibration)."
            )
        est = self._default_estimator() if self.estimator is None else self.estimator
        y_arr, X = _checked_target(X, y), _indexable(X)
        self.estimator_ = clone(est).fit(X, y_arr, **fit_params)
        if not hasattr(
            self.estimator_, "predict_proba"
        ):  # checked after fit: REBEL has it only for 0-1 costs
            raise ValueError(
                f"estimator {type(est).__name__} has no predict_proba; the two-step method needs posterior "
                "estimates (use e.g. RebelClassifier() with 0-1 costs, HistGradientBoostingClassifier() or "
                "AdaBoostMH())."
            )
        self.classes_ = np.asarray(self.estimator_.classes_)
        if hasattr(self.estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.estimator_.feature_names_in_
        self.n_features_in_ = getattr(self.estimator_, "n_features_in_", np.shape(X)[1])  # (a bare estimator)
        K = len(self.classes_)
        self.cost_matrix_ = (
            uniform_costs(K)
            if self.cost_matrix is None
            else validate_cost_matrix(self.cost_matrix, n_classes=K, classes=self.classes_)
        )
        self.calibrator_ = None
        if self.calibration is not None:
            y_idx = label_indices(y_arr, self.classes_)
            smallest = int(np.bincount(y_idx, minlength=K).min())
            folds = min(int(self.n_folds), smallest)
            if folds >= 2:
                self.calibrator_ = crossfit_calibrator(
                    lambda: clone(est),
                    X,
                    y_arr,
                    y_idx,
                    self.calibration,
                    folds,
                    self.random_state,
                    lambda idx: _fold_params(fit_params, len(y_idx), idx),
                )
        self.calibrated_ = self.calibrator_ is not None
        return self

    def predict_proba(self, X):
        """The calibrated posterior p(y|x) (N, K), columns in ``classes_`` order."""
        check_is_fitted(self)
        P = self.estimator_.predict_proba(X)
        return P if self.calibrator_ is None else self.calibrator_.predict_proba(P)

    def risks(self, X, cost_matrix=None):
        """The expected cost of predicting each class, ``sum_y p(y|x) C[y, k]`` (N, K, every K), under the
        fitted ``cost_matrix_`` or ``cost_matrix`` ((K, K) or one per example (N, K, K)); its argmin is the
        prediction."""
        P = self.predict_proba(X)
        return expected_risks(P, decision_costs(cost_matrix, self.cost_matrix_, len(P), self.classes_))

    def decision_function(self, X, cost_matrix=None):
        """Negative expected cost ``-sum_y p(y|x) C[y, k]`` (N, K), whose argmax is the prediction; for two
        classes one column (N,), positive where the second class costs less (scikit-learn's convention)."""
        return _binary_or_all(-self.risks(X, cost_matrix))

    def predict(self, X, cost_matrix=None):
        """The minimum expected cost class under the fitted ``cost_matrix_``, or under ``cost_matrix`` (one
        (K, K) matrix, or one per example (N, K, K)) given here, with no refitting. Ties: the first class."""
        P = self.predict_proba(X)
        idx = min_risk_class(P, decision_costs(cost_matrix, self.cost_matrix_, len(P), self.classes_))
        return self.classes_[idx]

    def _staged(self, X):
        from .staged import staged_posteriors

        check_is_fitted(self)
        if self.calibrator_ is not None:
            raise ValueError(
                "staged posteriors are the uncalibrated model's after each round; set calibration=None to read them."
            )
        return staged_posteriors(self.estimator_, X)

    def staged_predict_proba(self, X):
        """Yield the estimator's posteriors after each round (see ``baselines.staged_posteriors``)."""
        yield from self._staged(X)

    def staged_decision_function(self, X):
        """Yield the negative expected cost after each round of the posterior estimator (one column for two
        classes, as ``decision_function``)."""
        for P in self._staged(X):
            yield _binary_or_all(-expected_risks(P, self.cost_matrix_))

    def staged_predict(self, X):
        """Yield the minimum-risk class after each round of the posterior estimator."""
        for P in self._staged(X):
            yield self.classes_[min_risk_class(P, self.cost_matrix_)]

    def expected_cost(self, X, y, cost_matrix=None):
        """Mean cost ``C[y, prediction]`` on (X, y) under ``cost_matrix_`` (or ``cost_matrix``)."""
        P = self.predict_proba(X)
        C = decision_costs(cost_matrix, self.cost_matrix_, len(P), self.classes_)
        y_idx = label_indices(y, self.classes_, "that label was not seen in training")
        return expected_cost(y_idx, min_risk_class(P, C), C)


class CostWeightedClassifier(ClassifierMixin, BaseEstimator):
    """Cost-weighted training: any classifier taking ``sample_weight`` fitted with each point weighted by its
    mean mistake cost, decided by ``argmin_k sum_y q(y|x) C[y, k] / wbar_y`` (see the module docstring).

    Parameters
    ----------
    estimator : classifier with ``predict_proba`` and a ``sample_weight`` fit argument, or None
        None means scikit-learn's ``HistGradientBoostingClassifier()``.
    cost_matrix : array-like (K, K) or None
        ``C[y, k]`` in sorted class order (None: 0-1 costs, every weight 1). ``fit(X, y, sample_cost=S)`` takes
        example-dependent cost rows (N, K) instead; the decision then uses their class averages.
    """

    def __init__(self, estimator=None, cost_matrix=None):
        store_params(self, locals())

    def __sklearn_tags__(self):
        from sklearn.ensemble import HistGradientBoostingClassifier

        est = HistGradientBoostingClassifier() if self.estimator is None else self.estimator
        return _tags_of(super().__sklearn_tags__(), est)

    def fit(self, X, y, sample_cost=None):
        """Fit the estimator with weights from the cost rows (``cost_matrix[y_n]`` or ``sample_cost[n]``)."""
        from sklearn.ensemble import HistGradientBoostingClassifier

        y_arr, X = _checked_target(X, y), _indexable(X)
        classes = np.unique(y_arr)
        K = len(classes)
        C = uniform_costs(K) if self.cost_matrix is None else None
        if C is None:
            C = validate_cost_matrix(self.cost_matrix, n_classes=K, classes=classes)
        y_idx = label_indices(y_arr, classes)
        rows = (
            C[y_idx]
            if sample_cost is None
            else validate_sample_cost(sample_cost, len(y_idx), K, classes=classes)
        )
        w = mistake_weights(rows)
        wbar = np.bincount(y_idx, w, minlength=K) / np.maximum(np.bincount(y_idx, minlength=K), 1)
        if np.any(wbar <= 0):
            k = int(np.flatnonzero(wbar <= 0)[0])
            raise ValueError(
                f"every mistake on class {_label(classes[k])!r} costs 0, so its training points get weight 0 and cannot "
                "be learned; give at least one mistake on it a positive cost."
            )
        est = HistGradientBoostingClassifier() if self.estimator is None else self.estimator
        self.estimator_ = clone(est).fit(X, y_arr, sample_weight=w)
        self.classes_ = np.asarray(self.estimator_.classes_)
        if hasattr(self.estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.estimator_.feature_names_in_
        self.n_features_in_ = getattr(self.estimator_, "n_features_in_", np.shape(X)[1])  # (a bare estimator)
        self.cost_matrix_ = np.stack(
            [rows[y_idx == k].mean(axis=0) if np.any(y_idx == k) else C[k] for k in range(K)]
        )
        self.class_weights_ = wbar
        return self

    def predict_proba(self, X):
        """The weighted model's posterior q(y|x) (N, K): p(y|x) tilted towards the classes costly to miss."""
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)

    def decision_function(self, X, cost_matrix=None):
        """Negative cost-weighted risk ``-sum_y q(y|x) C[y, k] / wbar_y`` (N, K), whose argmax is the prediction;
        for two classes one column (N,), positive where the second class costs less."""
        return _binary_or_all(-self.risks(X, cost_matrix))

    def risks(self, X, cost_matrix=None):
        """The cost-weighted risk of predicting each class, ``sum_y q(y|x) C[y, k] / wbar_y`` (N, K, every K),
        with the training costs or ``cost_matrix``; its argmin is the prediction."""
        Q = self.predict_proba(X)
        Q = Q / self.class_weights_[None, :]
        C = decision_costs(cost_matrix, self.cost_matrix_, len(Q), self.classes_)
        return expected_risks(Q, C)

    def predict(self, X, cost_matrix=None):
        """``argmin_k sum_y q(y|x) C[y, k] / wbar_y`` with the training costs (or ``cost_matrix``: (K, K) or one
        matrix per example (N, K, K)). Ties: the first class."""
        idx = np.argmin(self.risks(X, cost_matrix), axis=1)
        return self.classes_[idx]


def expected_cost_scorer(cost_matrix):
    """A scorer ``scorer(estimator, X, y)`` = minus the mean cost ``C[y, prediction]`` (greater is better, like
    scikit-learn's ``neg_*`` scorers), for ``GridSearchCV(scoring=...)`` and ``cross_val_score``. C (K, K) is in
    the fitted estimator's ``classes_`` order (sorted labels), or a DataFrame labelled with class names."""

    def scorer(estimator, X, y) -> float:
        classes = np.asarray(estimator.classes_)
        C = validate_cost_matrix(cost_matrix, n_classes=len(classes), classes=classes)
        fix = "that label was not seen in training; the scorer's cost matrix covers the fitted classes"
        truth = label_indices(y, classes, fix)
        return -expected_cost(truth, label_indices(estimator.predict(X), classes), C)

    return scorer
