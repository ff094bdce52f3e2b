"""Baselines: the two-step rule, AdaBoost.MH and 1-vs-all against naive loops, staged scores against refits."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator

from rebel import RebelClassifier
from rebel.baselines import (
    EDGE_SMOOTHING,
    TIE_TOLERANCE,
    AdaBoostMH,
    OneVsAllAdaBoost,
    TwoStepClassifier,
    available_estimators,
    make_estimator,
    posterior_from_scores,
    staged_min_risk_indices,
    staged_posteriors,
    staged_scores,
)
from rebel.binning import fit_thresholds
from rebel.cost_presets import random_costs
from rebel.costs import min_risk_class
from rebel.data import bayes_min_risk, bayes_posterior, make_dataset, mixture_classes, paper_random_spec


# ------------------------------------------------------------------------------------------- naive references
def first_within_tolerance(candidates):
    """The first (edge, ...) tuple whose edge is within TIE_TOLERANCE of the best (the documented tie rule)."""
    best = max(c[0] for c in candidates)
    return next(c for c in candidates if c[0] >= best - TIE_TOLERANCE * abs(best))


def stump_outputs(X, thresholds, usable):
    """Every candidate stump in the naive loops' order: (feature j, threshold index i, phi in {-1, +1}^n)."""
    for j in range(X.shape[1]):
        if not usable[j]:
            continue
        for i in range(thresholds.shape[1]):
            yield j, i, np.where(X[:, j] > thresholds[j, i], 1.0, -1.0)


def naive_binary_adaboost(X, s, thresholds, usable, n_rounds):
    """Discrete AdaBoost with stumps over the given thresholds, by loops: (features, thr_idx, signed alphas)."""
    n = X.shape[0]
    w = np.full(n, 1.0 / n)
    out = []
    for _ in range(n_rounds):
        candidates = []
        for j, i, phi in stump_outputs(X, thresholds, usable):
            g = float(np.sum(w * s * phi))
            candidates.append((abs(g), j, i, g))
        r, j, i, g = first_within_tolerance(candidates)
        alpha = 0.5 * np.log((1 + r + EDGE_SMOOTHING) / (1 - r + EDGE_SMOOTHING))
        a = alpha if g >= 0 else -alpha
        phi = np.where(X[:, j] > thresholds[j, i], 1.0, -1.0)
        w = w * np.exp(-a * s * phi)
        w /= w.sum()
        out.append((j, i + 1, a))
    return out


def naive_adaboost_mh(X, y, thresholds, usable, n_rounds):
    """Discrete AdaBoost.MH by loops over (feature, threshold) and classes: list of (feature, thr_idx, a (K,))."""
    n = X.shape[0]
    K = y.max() + 1
    Y = np.where(y[:, None] == np.arange(K), 1.0, -1.0)
    W = np.full((n, K), 1.0 / (n * K))
    out = []
    for _ in range(n_rounds):
        candidates = []
        for j, i, phi in stump_outputs(X, thresholds, usable):
            gamma = [float(np.sum(W[:, k] * Y[:, k] * phi)) for k in range(K)]
            candidates.append((sum(abs(g) for g in gamma), j, i, gamma))
        r, j, i, gamma = first_within_tolerance(candidates)
        alpha = 0.5 * np.log((1 + r + EDGE_SMOOTHING) / (1 - r + EDGE_SMOOTHING))
        a = np.array([alpha if g >= 0 else -alpha for g in gamma])
        phi = np.where(X[:, j] > thresholds[j, i], 1.0, -1.0)
        W = W * np.exp(-phi[:, None] * a[None, :] * Y)
        W /= W.sum()
        out.append((j, i + 1, a))
    return out


def score_of(stumps, X, thresholds):
    F = np.zeros(X.shape[0])
    for j, i, a in stumps:
        F += a * np.where(X[:, j] > thresholds[j, i - 1], 1.0, -1.0)
    return F


@pytest.fixture(scope="module")
def binary_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + 0.7 * X[:, 1] ** 2 + 0.5 * rng.normal(size=80) > 0.5).astype(int)
    return X, y


@pytest.fixture(scope="module")
def mixture_data():
    spec = paper_random_spec(1)
    ds = make_dataset(spec)
    return spec.mixture, ds


# ------------------------------------------------------------------------------------------- two-step
class BayesPosterior(ClassifierMixin, BaseEstimator):
    """The exact posterior of a Gaussian mixture, wrapped as a fitted-on-nothing classifier."""

    def __init__(self, mixture=None):
        self.mixture = mixture

    def fit(self, X, y):
        self.classes_ = np.asarray(mixture_classes(self.mixture), dtype=object)
        return self

    def predict_proba(self, X):
        return bayes_posterior(self.mixture, X)


def test_two_step_with_perfect_posterior_is_the_bayes_rule(mixture_data):
    mixture, ds = mixture_data
    K = len(ds.classes)
    for seed in range(3):
        C = random_costs(K, seed)
        model = TwoStepClassifier(BayesPosterior(mixture), C).fit(ds.X_train, ds.y_train)
        bayes = np.asarray(ds.classes, dtype=object)[bayes_min_risk(mixture, ds.X_test, C)]
        np.testing.assert_array_equal(model.predict(ds.X_test), bayes)
        P = bayes_posterior(mixture, ds.X_test)
        np.testing.assert_allclose(model.decision_function(ds.X_test), -(P @ C))


def test_two_step_zero_one_costs_is_max_posterior(mixture_data):
    _, ds = mixture_data
    model = TwoStepClassifier(RebelClassifier(n_estimators=20)).fit(ds.X_train, ds.y_train)
    P = model.predict_proba(ds.X_test)
    np.testing.assert_array_equal(model.predict(ds.X_test), model.classes_[np.argmax(P, axis=1)])
    np.testing.assert_array_equal(model.predict(ds.X_test), model.estimator_.predict(ds.X_test))


def test_two_step_reuses_a_frozen_model(mixture_data):
    _, ds = mixture_data
    base = RebelClassifier(n_estimators=15).fit(ds.X_train, ds.y_train)
    C = random_costs(len(ds.classes), 1)
    model = TwoStepClassifier(FrozenEstimator(base), C).fit(ds.X_train[:10], ds.y_train[:10])
    assert model.estimator_.estimator is base
    expected = base.classes_[np.argmin(base.predict_proba(ds.X_test) @ C, axis=1)]
    np.testing.assert_array_equal(model.predict(ds.X_test), expected)
    staged = list(model.staged_predict(ds.X_test))
    assert len(staged) == 15
    np.testing.assert_array_equal(staged[-1], expected)
    assert model.expected_cost(ds.X_test, ds.y_test) == pytest.approx(
        C[np.searchsorted(base.classes_, ds.y_test), np.searchsorted(base.classes_, expected)].mean()
    )


def test_two_step_errors_name_the_fix(mixture_data):
    _, ds = mixture_data
    with pytest.raises(ValueError, match="3 x 3|classes"):
        TwoStepClassifier(AdaBoostMH(n_estimators=2), np.ones((2, 2)) - np.eye(2)).fit(ds.X_train, ds.y_train)
    with pytest.raises(ValueError, match="predict_proba"):
        TwoStepClassifier(RebelClassifier(cost_matrix=random_costs(3, 0), n_estimators=2)).fit(
            ds.X_train, ds.y_train
        )


# ------------------------------------------------------------------------------------------- AdaBoost.MH / 1-vs-all
@pytest.mark.parametrize("cls", [AdaBoostMH, OneVsAllAdaBoost])
def test_reduces_to_binary_adaboost_on_two_classes(cls, binary_data):
    X, y = binary_data
    T = 12
    model = cls(n_estimators=T, n_thresholds=16).fit(X, y)
    thresholds, usable = fit_thresholds(X, 16, "uniform")
    s = np.where(y == 0, 1.0, -1.0)  # class 0 against class 1
    ref = naive_binary_adaboost(X, s, thresholds, usable, T)
    for k in range(2):
        np.testing.assert_array_equal(model.stump_features_[:, k], [j for j, _, _ in ref])
        np.testing.assert_array_equal(model.stump_thr_idx_[:, k], [i for _, i, _ in ref])
    np.testing.assert_allclose(model.a_[:, 0], [a for _, _, a in ref], rtol=1e-10)
    np.testing.assert_allclose(model.a_[:, 1], -model.a_[:, 0], rtol=1e-12)
    H = model.decision_function(X)
    F = score_of(ref, X, thresholds)
    np.testing.assert_allclose(H[:, 0], F, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(H[:, 1], -F, rtol=1e-9, atol=1e-12)
    assert np.all((model.predict(X) == 0) == (F >= 0))  # argmax of (F, -F) is sign(F), ties to class 0


def test_adaboost_mh_matches_naive_loops_on_three_classes(mixture_data):
    _, ds = mixture_data
    X, y = ds.X_train[:150], np.unique(ds.y_train[:150], return_inverse=True)[1]
    T = 8
    model = AdaBoostMH(n_estimators=T, n_thresholds=12).fit(X, y)
    thresholds, usable = fit_thresholds(X, 12, "uniform")
    ref = naive_adaboost_mh(X, y, thresholds, usable, T)
    np.testing.assert_array_equal(model.stump_features_[:, 0], [j for j, _, _ in ref])
    np.testing.assert_array_equal(model.stump_thr_idx_[:, 0], [i for _, i, _ in ref])
    np.testing.assert_allclose(model.a_, np.array([a for _, _, a in ref]), rtol=1e-10)


def test_one_vs_all_is_k_binary_adaboosts(mixture_data):
    _, ds = mixture_data
    X, y = ds.X_train[:150], np.unique(ds.y_train[:150], return_inverse=True)[1]
    model = OneVsAllAdaBoost(n_estimators=6, n_thresholds=12).fit(X, y)
    thresholds, usable = fit_thresholds(X, 12, "uniform")
    H = model.decision_function(X)
    for k in range(3):
        ref = naive_binary_adaboost(X, np.where(y == k, 1.0, -1.0), thresholds, usable, 6)
        np.testing.assert_allclose(H[:, k], score_of(ref, X, thresholds), rtol=1e-9, atol=1e-12)


def test_separable_data_stays_finite():
    X = np.r_[np.zeros((20, 1)), np.ones((20, 1)), 2 * np.ones((20, 1))] + np.linspace(0, 0.1, 60)[:, None]
    y = np.repeat([0, 1, 2], 20)
    for cls in (AdaBoostMH, OneVsAllAdaBoost):
        model = cls(n_estimators=300, n_thresholds=10).fit(X, y)
        assert np.all(np.isfinite(model.a_))
        assert np.all(np.isfinite(model.predict_proba(X)))
        assert np.mean(model.predict(X) == y) == 1.0


def test_constant_features_are_never_chosen(binary_data):
    X, y = binary_data
    Xc = np.column_stack([np.full(len(y), 2.0), X])
    model = AdaBoostMH(n_estimators=5, n_thresholds=8).fit(Xc, y)
    assert np.all(model.stump_features_ > 0)


def test_parameter_errors():
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1] * 3)
    with pytest.raises(ValueError, match="n_estimators"):
        AdaBoostMH(n_estimators=0).fit(X, y)
    with pytest.raises(ValueError, match="only one class"):
        OneVsAllAdaBoost(n_estimators=2).fit(X, np.zeros(6))
    with pytest.raises(ValueError, match="stumps by definition"):
        make_estimator("adaboost_mh", 5, max_depth=2)
    with pytest.raises(ValueError, match="unknown"):
        make_estimator("svm", 5)
    with pytest.raises(ValueError, match="TwoStepClassifier"):
        make_estimator("hgb", 5, cost_matrix=np.ones((2, 2)) - np.eye(2))


def test_posterior_formula_binary_is_sigmoid():
    F = np.linspace(-3, 3, 7)
    P = posterior_from_scores(np.column_stack([F, -F]))
    np.testing.assert_allclose(P[:, 0], 1 / (1 + np.exp(-2 * F)))


@pytest.mark.parametrize("loss", ["exp", "logistic"])
def test_staged_min_risk_indices_agree_with_predict_proba(loss, mixture_data):
    """The two-step decision after every round uses the posterior the model's own loss implies: at the last
    round it is the minimum-risk class of ``predict_proba`` on every point (sigma(2H) for a logistic model
    disagreed on about 15 % of them)."""
    _, ds = mixture_data
    X, y, Xt = ds.X_train[:300], ds.y_train[:300], ds.X_test[:200]
    K = len(np.unique(y))
    C = random_costs(K, np.random.default_rng(3))
    model = RebelClassifier(n_estimators=12, max_depth=2, loss=loss).fit(X, y)
    staged = staged_min_risk_indices(model, Xt, C, include_bias=False)
    assert staged.shape == (12, len(Xt))
    np.testing.assert_array_equal(staged[-1], min_risk_class(model.predict_proba(Xt), C))
    posts = list(staged_posteriors(model, Xt))
    np.testing.assert_allclose(posts[-1], model.predict_proba(Xt), rtol=1e-9, atol=1e-12)
    for t in (0, 5):
        np.testing.assert_array_equal(staged[t], min_risk_class(posts[t], C))


# ------------------------------------------------------------------------------------------- staged = fewer rounds
@pytest.mark.parametrize("name", available_estimators())
def test_staged_scores_equal_fresh_fits_with_fewer_rounds(name, mixture_data):
    _, ds = mixture_data
    X, y, Xt = ds.X_train[:300], ds.y_train[:300], ds.X_test[:100]
    full = make_estimator(name, 8, random_state=0).fit(X, y)
    scores = list(staged_scores(full, Xt))
    posts = list(staged_posteriors(full, Xt))
    assert len(scores) == len(posts) == 8
    for t in (1, 3):
        short = make_estimator(name, t, random_state=0).fit(X, y)
        np.testing.assert_allclose(posts[t - 1], short.predict_proba(Xt), rtol=1e-7, atol=1e-10)
        np.testing.assert_array_equal(
            np.argmax(scores[t - 1], axis=1), np.searchsorted(short.classes_, short.predict(Xt))
        )
    np.testing.assert_allclose(posts[-1], full.predict_proba(Xt), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("name", ["adaboost_mh", "one_vs_all", "rebel"])
def test_two_step_staged_equals_fresh_two_step(name, mixture_data):
    _, ds = mixture_data
    C = random_costs(3, 5)
    X, y, Xt = ds.X_train[:300], ds.y_train[:300], ds.X_test[:100]
    full = TwoStepClassifier(make_estimator(name, 6), C).fit(X, y)
    staged = list(full.staged_decision_function(Xt))
    short = TwoStepClassifier(make_estimator(name, 2), C).fit(X, y)
    np.testing.assert_allclose(staged[1], short.decision_function(Xt), rtol=1e-9)
    np.testing.assert_array_equal(list(full.staged_predict(Xt))[1], short.predict(Xt))
