"""``rebel.experiments.example_costs``: the per-example cost formula, lambda = 0 reduces to the class matrix on
both sides, the run stops between datasets and keeps what is done, bad lambdas are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from rebel.costs import min_risk_class
from rebel.estimator import RebelClassifier
from rebel.experiments import example_costs as ec
from rebel.experiments.diagnostics import class_averaged, example_costs


def test_example_costs_scale_each_row_along_x1_with_the_class_sign():
    C = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    X = np.array([[0.0, 9.0], [1.0, 9.0], [-2.0, 0.0], [5.0, 1.0]])
    y = np.array([0, 1, 2, 0])
    signs = np.array([1.0, -1.0, 1.0])
    rows = example_costs(C, y, X, 2.5, signs)
    expected = C[y] * np.exp(2.5 * signs[y] * X[:, 0] / 5)[:, None]
    np.testing.assert_allclose(rows, expected)
    np.testing.assert_array_equal(example_costs(C, y, X, 0.0, signs), C[y])
    np.testing.assert_allclose(class_averaged(rows, y, 3)[0], rows[[0, 3]].mean(axis=0))


def test_lambda_zero_is_the_class_matrix_on_both_sides():
    run = ec.example_cost_run(n_datasets=1, n_costs=2, lambdas=[0.0], n_rounds=15, max_depth=1)
    split = run.splits[0]
    for j, C in enumerate(run.costs[0]):
        row = run.trials[run.trials["cost_id"] == j].iloc[0]
        rebel = RebelClassifier(C, 15, 1).fit(split.X_train, split.y_train)
        pred = np.argmax(rebel.decision_function(split.X_test), axis=1)
        assert row["rebel_cost"] == pytest.approx(C[split.y_test, pred].mean())
        P = (
            RebelClassifier(n_estimators=15, max_depth=1)
            .fit(split.X_train, split.y_train)
            .predict_proba(split.X_test)
        )
        assert row["two_step_cost"] == pytest.approx(C[split.y_test, min_risk_class(P, C)].mean())


def test_run_stops_between_datasets_and_regions_cover_the_grid():
    calls = []
    run = ec.example_cost_run(
        progress=lambda done, total, label: calls.append(done) or done < 4,
        n_datasets=3,
        n_costs=2,
        lambdas=[1.5, 5.0],
        n_rounds=10,
    )
    assert run.cancelled and run.done == 4 and run.planned == 12 and len(run.splits) == 1
    xs, ys = np.linspace(-2, 2, 7), np.linspace(-1, 1, 5)
    r = ec.example_cost_regions(run, 5.0, xs, ys)
    assert r["rebel"].shape == r["two_step"].shape == (5, 7)
    assert r["train_cost"].shape == (len(run.splits[0].y_train),) and (r["train_cost"] > 0).all()


@pytest.mark.parametrize(
    ("lambdas", "message"),
    [
        ([], "choose at least one lambda"),
        ([1.0, 11.0], "lambda 11.0 is outside [0, 10]"),
        ([float("nan")], "lambda nan is outside [0, 10]"),
        (["x"], "lambda values must be numbers"),
    ],
)
def test_bad_lambdas_are_refused(lambdas, message):
    with pytest.raises(ValueError, match=None) as err:
        ec.example_cost_run(n_datasets=1, n_costs=1, lambdas=lambdas, n_rounds=5)
    assert message in str(err.value)


def test_regressed_two_step_averages_the_nearest_rows_of_each_class():
    """The cost model of the cost-regressing two-step is a kNN mean per true class, checked by a naive loop;
    with the exact cost rows of a test point the decision is that point's minimum-risk class."""
    from rebel.experiments.diagnostics import regressed_costs, regressed_two_step

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(60, 2)), np.repeat([0, 1, 2], 20)
    rows = rng.random((60, 3)) * (1 - np.eye(3)[y])
    Xt = rng.normal(size=(7, 2))
    C_hat = regressed_costs(X, y, rows, Xt, 3, k=5)
    for n in range(7):
        for c in range(3):
            idx = np.flatnonzero(y == c)
            near = idx[np.argsort(((X[idx] - Xt[n]) ** 2).sum(axis=1), kind="stable")[:5]]
            np.testing.assert_allclose(C_hat[n, c], rows[near].mean(axis=0))
    P = rng.dirichlet(np.ones(3), size=7)
    risk = np.array([P[n] @ C_hat[n] for n in range(7)])
    np.testing.assert_array_equal(regressed_two_step(P, C_hat), np.argmin(risk, axis=1))


def test_example_cost_trials_carry_every_two_step_baseline():
    run = ec.example_cost_run(n_datasets=1, n_costs=1, lambdas=[3.0], n_rounds=10, max_depth=1)
    row = run.trials.iloc[0]
    for col in ("two_step_cost", "regressed_cost", "weighted_cost", "bayes_cost"):
        assert np.isfinite(row[col]) and row[col] >= 0
    assert row["bayes_cost"] <= min(row["two_step_cost"], row["regressed_cost"], row["weighted_cost"]) + 0.05


def test_example_text_judges_rebel_against_the_strongest_baseline():
    import pandas as pd

    from rebel.ui.example_costs import example_text

    rows = [
        {"lambda": 3.0, "dataset": f"d{i}", "cost_id": j, "rebel_cost": 0.5, "two_step_cost": 0.7,
         "regressed_cost": 0.4 + 0.01 * i, "weighted_cost": 0.45, "bayes_cost": 0.3}
        for i in range(4)
        for j in range(3)
    ]  # fmt: skip
    run = ec.ExampleCostRun(pd.DataFrame(rows), [], [], {}, 12)
    text = example_text(run)
    assert "class-averaged two-step 0.700 (REBEL wins 100 % (95 % CI 100–100 %))" in text
    assert "Strongest baseline: cost-regressing two-step (kNN)" in text
    assert "not cheaper than the strongest two-step baseline at any λ" in text
