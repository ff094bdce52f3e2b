"""Two classes: REBEL trained with costs (0, 1; r, 0) and the exp loss decides as the two-step method on the 0-1
model with threshold 1 / (1 + r) (docs/REPRODUCTION.md, "Two classes: cost-sensitive REBEL is the two-step
method"). Tolerance: the two fits' scores agree up to the engine's smoothing of a* and rounding (< 1e-6 here,
measured 2e-8); decisions are compared on every point whose 0-1 score is not within ``TIE_BAND`` of the
threshold, and the fixed seeds below have no such point."""

from __future__ import annotations

import numpy as np
import pytest

from rebel.baselines import TwoStepClassifier
from rebel.estimator import RebelClassifier
from rebel.experiments.binary import binary_equivalence, cost_ratio


def _problem(seed: int):
    """A random binary problem: a noisy curved boundary in d dimensions, unequal priors, a random cost ratio."""
    rng = np.random.default_rng([42, seed])
    d = int(rng.integers(2, 6))
    X = rng.normal(size=(int(rng.integers(120, 400)), d))
    score = X @ rng.normal(size=d) + 0.7 * X[:, 0] ** 2 + rng.normal(scale=0.8, size=len(X))
    y = np.where(score > np.quantile(score, rng.uniform(0.2, 0.8)), "b", "a")
    r = float(np.exp(rng.uniform(-3, 3)))
    return X, y, rng.normal(size=(600, d)), r, rng


@pytest.mark.parametrize("seed", range(12))
def test_rebel_with_binary_costs_decides_as_the_two_step_threshold(seed):
    X, y, X_eval, r, rng = _problem(seed)
    params = {"n_estimators": int(rng.integers(5, 60)), "max_depth": int(rng.integers(1, 4))}
    C = np.array([[0.0, 1.0], [r, 0.0]])
    eq = binary_equivalence(X, y, X_eval, C, **params)
    assert eq.same_learners
    assert eq.shift_error < 1e-6
    assert eq.ties == 0
    assert np.array_equal(eq.rebel, eq.two_step)
    # the same threshold read directly off sigma(2 H), and the project's own two-step wrapper, agree
    assert np.array_equal(eq.rebel, (eq.posterior > 1 / (1 + r)).astype(int))
    two = TwoStepClassifier(RebelClassifier(**params), C).fit(X, y)
    rebel = RebelClassifier(cost_matrix=C, **params).fit(X, y)
    assert np.array_equal(rebel.predict(X_eval), two.predict(X_eval))


@pytest.mark.parametrize("options", [{"learning_rate": 0.3}, {"leaves": "vector", "learning_rate": 0.3}])
def test_the_equivalence_holds_for_the_exp_loss_variants(options):
    X, y, X_eval, r, _ = _problem(99)
    eq = binary_equivalence(X, y, X_eval, [[0, 1], [r, 0]], n_estimators=40, max_depth=2, **options)
    assert eq.ties == 0 and eq.agree == len(X_eval)


def test_a_matrix_with_costly_correct_decisions_reduces_to_its_ratio():
    """(c00, c01; c10, c11) acts through (c01 - c00) and (c10 - c11) only: same decisions as (0, 1; r, 0)."""
    X, y, X_eval, _, _ = _problem(5)
    C = np.array([[0.5, 2.5], [7.0, 1.0]])  # rows = truth a, b
    assert cost_ratio(C) == pytest.approx(3.0)
    general = binary_equivalence(X, y, X_eval, C, n_estimators=30)
    ratio = binary_equivalence(X, y, X_eval, [[0, 1], [cost_ratio(C), 0]], n_estimators=30)
    assert np.array_equal(general.rebel, ratio.rebel) and np.array_equal(general.rebel, general.two_step)


def test_the_logistic_loss_is_not_covered():
    X, y, X_eval, r, _ = _problem(1)
    with pytest.raises(ValueError, match="exp loss only"):
        binary_equivalence(X, y, X_eval, [[0, 1], [r, 0]], loss="logistic")
    # and it does differ there: logistic REBEL with costs is not the shifted 0-1 model
    costly = RebelClassifier(cost_matrix=[[0, 1], [r, 0]], loss="logistic", n_estimators=40, max_depth=2)
    two = TwoStepClassifier(RebelClassifier(loss="logistic", n_estimators=40, max_depth=2), [[0, 1], [r, 0]])
    assert not np.array_equal(costly.fit(X, y).predict(X_eval), two.fit(X, y).predict(X_eval))


@pytest.mark.parametrize(
    ("C", "match"),
    [([[0, 1, 1], [1, 0, 1], [1, 1, 0]], "2 x 2"), ([[1, 1], [2, 0]], "dearer than the right")],
)
def test_matrices_outside_the_result_are_refused(C, match):
    with pytest.raises(ValueError, match=match):
        cost_ratio(C)


def test_a_fig3_run_on_a_binary_dataset_ties_every_trial_and_says_why():
    """The REBEL-vs-two-step page on two classes (the xor preset redrawn, its costs then random ones): paper
    mode against the same engine's sigma(2H) two-step ties every trial, and the run's summary says why."""
    from rebel.data import PRESETS
    from rebel.experiments import studies
    from rebel.ui import vs_two_step as vs

    p = PRESETS["xor"]
    run = studies.fig3_run(
        source="playground",
        dataset=p.dataset(),
        cost_matrix=p.cost_matrix,
        n_datasets=2,
        n_costs=3,
        n_rounds=10,
    )
    trials = run.trials
    assert len(trials) == 6 and trials["tie"].all() and not trials["win"].any()
    assert (trials["rebel_cost"] == trials["two_step_cost"]).all()
    assert str(vs.BINARY_NOTE) in str(vs.fig3_text(run))
