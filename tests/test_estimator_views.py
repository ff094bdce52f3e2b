"""The estimator's views of a fitted model: leaf ids, weak-learner outputs, staged scores with the bias, the
posterior, the parameter table and the class cap; and the two-step staged decision of rebel.baselines."""

import numpy as np
import pytest

from rebel import RebelClassifier
from rebel.baselines import TwoStepClassifier, staged_min_risk_indices
from rebel.costs import min_risk_class
from rebel.estimator import posterior_from_scores
from rebel.params import MAX_CLASSES, MAX_DEPTH

from . import naive


def _data(n=240, K=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    X = rng.normal(size=(n, 2)) + 1.2 * np.column_stack([y == 0, y == 1])
    return X, y


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_apply_and_weak_learner_outputs_match_the_definitions(depth):
    X, y = _data()
    model = RebelClassifier(n_estimators=12, max_depth=depth, n_thresholds=20).fit(X, y)
    X_new = np.random.default_rng(1).normal(scale=2, size=(70, 2))
    leaves = model.apply(X_new)
    f = model.weak_learner_outputs(X_new)
    assert leaves.shape == f.shape == (70, 12) and f.dtype == np.int8
    np.testing.assert_array_equal(
        leaves, naive.tree_leaves(X_new, model.tree_features_, model.tree_thresholds_, depth)
    )
    np.testing.assert_array_equal(f, model.tree_leaf_signs_[np.arange(12), leaves])
    # H = a0 + sum_t f_t a_t from the outputs equals the decision function.
    np.testing.assert_allclose(
        model.a0_ + f @ model.a_, model.decision_function(X_new), rtol=1e-12, atol=1e-12
    )


def test_staged_decision_function_with_the_bias_starts_at_a0():
    X, y = _data()
    model = RebelClassifier(n_estimators=7, max_depth=2, n_thresholds=20).fit(X, y)
    with_bias = list(model.staged_decision_function(X, include_bias=True))
    without = list(model.staged_decision_function(X))
    assert len(with_bias) == 8 and len(without) == 7
    np.testing.assert_array_equal(with_bias[0], np.tile(model.a0_, (X.shape[0], 1)))
    for a, b in zip(with_bias[1:], without, strict=True):
        np.testing.assert_array_equal(a, b)
    staged = model.staged_class_indices(X)
    np.testing.assert_array_equal(staged, np.argmax(np.array(with_bias), axis=2))


def test_posterior_from_scores_is_the_normalised_sigma_2h():
    H = np.array([[0.3, -1.0, 2.0], [800.0, -800.0, 0.0]])
    p = 1 / (1 + np.exp(-2 * np.clip(H, -350, 350)))
    np.testing.assert_allclose(posterior_from_scores(H), p / p.sum(1, keepdims=True))
    X, y = _data()
    model = RebelClassifier(n_estimators=5, n_thresholds=20).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), posterior_from_scores(model.decision_function(X)))


def test_staged_min_risk_indices_is_the_two_step_after_every_round():
    X, y = _data()
    C = np.array([[0, 1, 5], [1, 0, 1], [10, 1, 0]], float)
    model = RebelClassifier(n_estimators=9, max_depth=2, n_thresholds=20).fit(X, y)
    staged = staged_min_risk_indices(model, X, C)
    assert staged.shape == (10, X.shape[0]) and staged.dtype == np.int16
    for t, H in enumerate(model.staged_decision_function(X, include_bias=True)):
        np.testing.assert_array_equal(staged[t], min_risk_class(posterior_from_scores(H), C))
    two_step = TwoStepClassifier(RebelClassifier(n_estimators=9, max_depth=2, n_thresholds=20), C).fit(X, y)
    np.testing.assert_array_equal(two_step.classes_[staged[-1]], two_step.predict(X))
    np.testing.assert_array_equal(staged_min_risk_indices(model, X, C, include_bias=False), staged[1:])
    cost_sensitive = RebelClassifier(cost_matrix=C, n_estimators=3, n_thresholds=20).fit(X, y)
    with pytest.raises(ValueError, match="cost_matrix=None"):
        staged_min_risk_indices(cost_sensitive, X, C)


@pytest.mark.parametrize(
    ("name", "value", "match"),
    [
        ("max_depth", MAX_DEPTH + 1, "max_depth must be in"),
        ("max_depth", 0, "max_depth must be in"),
        ("n_estimators", 2.5, "n_estimators must be a whole number"),
        ("n_thresholds", 256, "n_thresholds must be in"),
    ],
)
def test_parameter_limits_come_from_the_params_table(name, value, match):
    X, y = _data(60)
    with pytest.raises(ValueError, match=match):
        RebelClassifier(**{name: value}).fit(X, y)


def test_more_classes_than_the_cap_are_refused():
    n = MAX_CLASSES + 1
    X = np.arange(2 * n, dtype=float).reshape(-1, 1)
    y = np.arange(2 * n) % n
    with pytest.raises(ValueError, match=f"at most {MAX_CLASSES}"):
        RebelClassifier(n_estimators=1).fit(X, y)
