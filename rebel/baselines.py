"""Baselines REBEL is compared against (paper Sec. 5): the two-step "standard method" and boosting peers.

- ``TwoStepClassifier``: fits any posterior estimator on the data alone, then predicts the minimum-risk class
  ``argmin_k sum_y p(y|x) C[y, k]`` (the costs enter only at test time): ``rebel.minrisk.MinRiskClassifier``
  uncalibrated, with a 0-1 ``RebelClassifier`` by default.
- ``AdaBoostMH``: discrete AdaBoost.MH (Schapire & Singer 1999): one shared stump per round with a vote
  ``v_l = +-1`` per class and one weight alpha, i.e. ``H(x) = sum_t phi_t(x) a_t`` with ``a_t = alpha_t v_t``.
- ``OneVsAllAdaBoost``: K independent discrete binary AdaBoosts (class l against the rest), one stump per class
  and round.
- ``make_estimator``: REBEL, the two above, scikit-learn's AdaBoost (SAMME), HistGradientBoosting and LightGBM
  (when installed) under one name each, and ``staged_posteriors`` / ``staged_scores`` for every one of them.

AdaBoost.MH and 1-vs-all use the engine's threshold machinery (``rebel.binning``: the same uniform thresholds,
``x > tau`` goes right, the first (feature, threshold) wins ties) and an exhaustive stump search, vectorised in
numpy: one sparse (d * n_bins, N) indicator product gives every feature's per-bin sums of the signed weights
``D = w * Y`` (N, K), a cumulative sum over bins gives every stump's per-class edge at once.
Their posterior estimate is ``sigma(2 H_l)`` normalised over l (the minimiser of the exponential loss on the
label-vs-rest problems, Friedman, Hastie & Tibshirani 2000), the same formula as ``RebelClassifier``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .binning import BINNINGS, bin_data, fit_thresholds
from .estimator import RebelClassifier, posterior_from_scores
from .init_params import store_params
from .minrisk import MinRiskClassifier
from .params import check_param
from .staged import (  # noqa: F401 (the staged posteriors and scores, as they were in this module)
    HAS_LIGHTGBM,
    _as_2d_scores,
    _check_rebel_posterior,
    _unfrozen,
    lightgbm,
    min_risk_stages,
    staged_min_risk_indices,
    staged_min_risk_posteriors,
    staged_posteriors,
    staged_scores,
)

EDGE_SMOOTHING = (
    1e-10  # alpha = 1/2 ln((1 + r + eps) / (1 - r + eps)): finite when a stump is perfect (r = 1)
)
TIE_TOLERANCE = 1e-12  # edges within this (relative to the best) are tied; the first stump in order wins
_CHUNK = 16384  # rows per block when evaluating stumps


# --------------------------------------------------------------------------------------------------------------
# Two-step (standard) method
# --------------------------------------------------------------------------------------------------------------


class TwoStepClassifier(MinRiskClassifier):
    """The paper's "standard method": ``rebel.minrisk.MinRiskClassifier`` without calibration and with a 0-1
    ``RebelClassifier()`` as the default posterior estimator (``estimator=None``).

    The prediction is ``classes_[argmin_k sum_y p(y|x) C[y, k]]``; ``decision_function`` is the negative
    expected cost ``-(P @ C)``, so its argmax is the prediction. Wrap an already fitted model in
    ``sklearn.frozen.FrozenEstimator`` to reuse it across several cost matrices without refitting.
    """

    def __init__(self, estimator=None, cost_matrix=None, calibration=None, n_folds=5, random_state=0):
        super().__init__(estimator, cost_matrix, calibration, n_folds, random_state)

    def _default_estimator(self):
        return RebelClassifier()


# --------------------------------------------------------------------------------------------------------------
# Discrete AdaBoost.MH and 1-vs-all AdaBoost on the engine's thresholds
# --------------------------------------------------------------------------------------------------------------


def _bin_indicator(bins: np.ndarray, n_bins: int) -> sp.csr_matrix:
    """Sparse (d * n_bins, N) 0/1 matrix: row ``j * n_bins + b`` marks the samples in bin b of feature j."""
    n_features, n_samples = bins.shape
    rows = (np.arange(n_features)[:, None] * n_bins + bins).ravel()
    cols = np.tile(np.arange(n_samples), n_features)
    return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_features * n_bins, n_samples))


def stump_edges(indicator: sp.csr_matrix, D: np.ndarray, n_features: int, n_bins: int) -> np.ndarray:
    """Per-class edges ``gamma[j, i - 1, l] = sum_n D[n, l] phi_ji(x_n)`` of every stump (d, n_thresholds, K).

    ``phi_ji = +1`` where ``x_j > tau_ji`` (bins >= i), else -1, so ``gamma = total - 2 * (sum over bins < i)``.
    """
    hist = np.asarray(indicator @ D).reshape(n_features, n_bins, D.shape[1])
    left = np.cumsum(hist, axis=1)[:, :-1]
    return D.sum(axis=0) - 2.0 * left


def first_best(edges: np.ndarray) -> np.ndarray:
    """Index along axis 0 of the first edge within ``TIE_TOLERANCE`` of the column's best (ties to the first
    stump in feature-then-threshold order, so rounding in how edges are summed never changes the choice)."""
    best = edges.max(axis=0)
    return np.argmax(edges >= best - TIE_TOLERANCE * np.abs(best), axis=0)


def alpha_from_edge(r):
    """Discrete AdaBoost weight ``1/2 ln((1 + r) / (1 - r))`` for an edge r in [0, 1] (smoothed at r = 1)."""
    r = np.clip(r, 0.0, 1.0)
    return 0.5 * np.log((1.0 + r + EDGE_SMOOTHING) / (1.0 - r + EDGE_SMOOTHING))


class _StumpBoosting(ClassifierMixin, BaseEstimator):
    """Shared fit/predict machinery: per round, each class l has a stump ``(feature, threshold)`` and an output
    ``a[t, l]`` (alpha times vote or polarity), so ``H_l(x) = sum_t a[t, l] phi_tl(x)``."""

    def __init__(self, n_estimators=100, n_thresholds=200, binning="uniform"):
        store_params(self, locals())

    def _check_params(self):
        check_param("n_estimators", self.n_estimators)
        check_param("n_thresholds", self.n_thresholds)
        if self.binning not in BINNINGS:
            raise ValueError(f"binning must be one of {BINNINGS}; got {self.binning!r}.")

    def fit(self, X, y):
        """Train ``n_estimators`` rounds on X (N, d) and labels y (N,)."""
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        K = len(self.classes_)
        if K < 2:
            raise ValueError(
                f"y has only one class ({self.classes_[0]!r}); a classifier needs at least 2 classes. "
                "Add samples of another class."
            )
        self.thresholds_, self.feature_usable_ = fit_thresholds(X, self.n_thresholds, self.binning)
        bins = bin_data(X, self.thresholds_)
        n_bins = self.thresholds_.shape[1] + 1
        # Y[n, l] = +1 if y_n = l else -1 (the label-vs-rest signs)
        Y = np.where(y_idx[:, None] == np.arange(K)[None, :], 1.0, -1.0)
        # A constant feature has no useful threshold; if every feature is constant, the stumps are constants.
        mask = self.feature_usable_ if self.feature_usable_.any() else np.ones_like(self.feature_usable_)
        T = int(self.n_estimators)
        self.stump_features_ = np.zeros((T, K), dtype=np.intp)
        self.stump_thr_idx_ = np.zeros((T, K), dtype=np.intp)  # 1-based: bins >= i (x > tau_i) goes right
        self.a_ = np.zeros((T, K))
        self.edges_ = np.zeros((T, K) if self._per_class else T)
        self._boost(bins, _bin_indicator(bins, n_bins), Y, mask)
        self.stump_thresholds_ = self.thresholds_[self.stump_features_, self.stump_thr_idx_ - 1]
        self.n_estimators_ = T
        return self

    def _stump_outputs(self, X):
        """phi (N, T, K) in {-1, +1}: whether each row passes each round's stump for each class."""
        return np.where(X[:, self.stump_features_] > self.stump_thresholds_, 1.0, -1.0)

    def _validate_X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64, order="C")

    def decision_function(self, X):
        """Scores ``H_l(x) = sum_t a[t, l] phi_tl(x)`` (N, K); the prediction is their argmax."""
        X = self._validate_X(X)
        out = np.empty((X.shape[0], len(self.classes_)))
        for s in range(0, X.shape[0], _CHUNK):
            out[s : s + _CHUNK] = np.einsum("ntk,tk->nk", self._stump_outputs(X[s : s + _CHUNK]), self.a_)
        return out

    def staged_decision_function(self, X):
        """Yield H after each round t = 1..n_estimators_ (arrays of shape (N, K))."""
        X = self._validate_X(X)
        H = np.zeros((X.shape[0], len(self.classes_)))
        for t in range(self.n_estimators_):
            phi = np.where(X[:, self.stump_features_[t]] > self.stump_thresholds_[t], 1.0, -1.0)
            H += phi * self.a_[t]
            yield H.copy()

    def predict(self, X):
        """``classes_[argmax_l H_l(x)]`` (ties to the first class)."""
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]

    def staged_predict(self, X):
        for H in self.staged_decision_function(X):
            yield self.classes_[np.argmax(H, axis=1)]

    def predict_proba(self, X):
        """Posterior estimate ``sigma(2 H_l)`` normalised over l."""
        return posterior_from_scores(self.decision_function(X))

    def staged_predict_proba(self, X):
        for H in self.staged_decision_function(X):
            yield posterior_from_scores(H)


class AdaBoostMH(_StumpBoosting):
    """Discrete AdaBoost.MH with shared stumps and per-class votes (Schapire & Singer 1999).

    Weights ``w[n, l]`` on (sample, label) pairs start uniform (1 / NK). Each round picks the stump phi (same
    for all classes) maximising the edge ``r = sum_l |gamma_l|``, ``gamma_l = sum_n w[n, l] Y[n, l] phi(x_n)``,
    sets the votes ``v_l = sign(gamma_l)`` and ``alpha = 1/2 ln((1 + r) / (1 - r))``, and reweights
    ``w[n, l] *= exp(-alpha v_l phi(x_n) Y[n, l])``. ``a_[t] = alpha_t v_t``. On K = 2 this is binary AdaBoost
    (``H_0 = -H_1`` = the AdaBoost score of class 0 against class 1).

    Parameters: ``n_estimators`` (rounds T), ``n_thresholds`` and ``binning`` as in ``RebelClassifier``.
    Fitted: ``classes_``, ``thresholds_``, ``feature_usable_``, ``stump_features_`` / ``stump_thr_idx_`` /
    ``stump_thresholds_`` (T, K; equal across classes), ``a_`` (T, K), ``edges_`` (T,).
    """

    _per_class = False

    def _boost(self, bins, indicator, Y, mask):
        n_samples, K = Y.shape
        n_features, n_bins = mask.shape[0], self.thresholds_.shape[1] + 1
        W = np.full((n_samples, K), 1.0 / (n_samples * K))
        for t in range(int(self.n_estimators)):
            gamma = stump_edges(indicator, W * Y, n_features, n_bins)
            edge = np.abs(gamma).sum(axis=2)
            edge[~mask] = -np.inf
            j, i = np.unravel_index(first_best(edge.ravel()), edge.shape)
            r = edge[j, i]
            a = alpha_from_edge(r) * np.where(gamma[j, i] >= 0, 1.0, -1.0)
            self.stump_features_[t], self.stump_thr_idx_[t], self.a_[t], self.edges_[t] = j, i + 1, a, r
            phi = np.where(bins[j] > i, 1.0, -1.0)  # threshold index i + 1: bins >= i + 1 goes right
            W *= np.exp(-phi[:, None] * a[None, :] * Y)
            W /= W.sum()


class OneVsAllAdaBoost(_StumpBoosting):
    """1-vs-all discrete AdaBoost: K binary AdaBoosts with stumps, class l against the rest.

    Class l keeps its own weights ``w[:, l]`` (start 1 / N) and each round picks its own stump and polarity
    ``rho`` maximising ``|gamma_l|``; ``a_[t, l] = rho alpha`` with ``alpha = 1/2 ln((1 + r) / (1 - r))``,
    ``r = |gamma_l|``. The prediction is ``argmax_l H_l(x)``. On K = 2 both problems pick the same stumps and
    ``H_0 = -H_1`` is binary AdaBoost.

    Fitted: as ``AdaBoostMH`` with stumps differing per class and ``edges_`` (T, K).
    """

    _per_class = True

    def _boost(self, bins, indicator, Y, mask):
        n_samples, K = Y.shape
        n_features, n_bins = mask.shape[0], self.thresholds_.shape[1] + 1
        W = np.full((n_samples, K), 1.0 / n_samples)
        cls = np.arange(K)
        for t in range(int(self.n_estimators)):
            gamma = stump_edges(indicator, W * Y, n_features, n_bins)  # (d, n_thr, K)
            edge = np.abs(gamma)
            edge[~mask] = -np.inf
            flat = first_best(edge.reshape(-1, K))  # per class
            j, i = np.unravel_index(flat, edge.shape[:2])
            r = edge[j, i, cls]
            a = alpha_from_edge(r) * np.where(gamma[j, i, cls] >= 0, 1.0, -1.0)
            self.stump_features_[t], self.stump_thr_idx_[t], self.a_[t], self.edges_[t] = j, i + 1, a, r
            phi = np.where(bins[j, :].T > i, 1.0, -1.0)  # (N, K): class l's stump on every sample
            W *= np.exp(-phi * a[None, :] * Y)
            W /= W.sum(axis=0, keepdims=True)


# --------------------------------------------------------------------------------------------------------------
# Named estimators for the experiments and the CLI
# --------------------------------------------------------------------------------------------------------------

ESTIMATORS = {
    "rebel": "REBEL",
    "adaboost_mh": "AdaBoost.MH",
    "one_vs_all": "1-vs-all AdaBoost",
    "samme": "AdaBoost SAMME (sklearn)",
    "hgb": "HistGradientBoosting",
    "lightgbm": "LightGBM",
}


def available_estimators() -> list:
    """Names accepted by ``make_estimator`` in this environment (``lightgbm`` only when it is installed)."""
    return [name for name in ESTIMATORS if name != "lightgbm" or HAS_LIGHTGBM]


def make_estimator(
    name: str,
    n_estimators: int = 100,
    max_depth: int = 1,
    cost_matrix=None,
    random_state=None,
    n_thresholds: int = 200,
):
    """A cost-blind estimator by name (see ``ESTIMATORS``) with ``n_estimators`` rounds of depth ``max_depth``.

    ``cost_matrix`` is only accepted for ``rebel`` (cost-sensitive training); every other method is trained
    on the data alone (wrap it in ``TwoStepClassifier`` for the minimum-risk decision). AdaBoost.MH and 1-vs-all
    are stump learners by definition (``max_depth`` must be 1). HistGradientBoosting and LightGBM use
    ``max_depth`` with ``2**max_depth`` leaves, their default learning rate 0.1 and no early stopping.
    """
    if name not in ESTIMATORS:
        raise ValueError(f"estimator name {name!r} is unknown; choose one of {list(ESTIMATORS)}.")
    if cost_matrix is not None and name != "rebel":
        raise ValueError(f"{name} is trained cost-blind; pass cost_matrix to TwoStepClassifier instead.")
    if name in ("adaboost_mh", "one_vs_all") and max_depth != 1:
        raise ValueError(f"{name} uses stumps by definition; got max_depth={max_depth}, use max_depth=1.")
    if name == "rebel":
        return RebelClassifier(
            cost_matrix=cost_matrix,
            n_estimators=n_estimators,
            max_depth=max_depth,
            n_thresholds=n_thresholds,
            random_state=random_state,
        )
    if name == "adaboost_mh":
        return AdaBoostMH(n_estimators=n_estimators, n_thresholds=n_thresholds)
    if name == "one_vs_all":
        return OneVsAllAdaBoost(n_estimators=n_estimators, n_thresholds=n_thresholds)
    if name == "samme":
        from sklearn.ensemble import AdaBoostClassifier
        from sklearn.tree import DecisionTreeClassifier

        return AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=max_depth), n_estimators=n_estimators, random_state=random_state
        )
    if name == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(
            max_iter=n_estimators,
            max_depth=max_depth,
            max_leaf_nodes=max(2, 2**max_depth),
            early_stopping=False,
            random_state=random_state,
        )
    if not HAS_LIGHTGBM:
        raise ValueError("lightgbm is not installed; install it (pip install lightgbm) or drop 'lightgbm'.")
    return lightgbm.LGBMClassifier(
        n_estimators=n_estimators,
        max_depth=max_depth,
        num_leaves=max(2, 2**max_depth),
        n_jobs=1,
        deterministic=True,
        force_row_wise=True,
        verbose=-1,
        random_state=0 if random_state is None else random_state,
    )
