"""``rebel.experiments.versus`` and the REBEL-vs-two-step run: equal capacity on both sides, round checkpoints
read from staged predictions equal fresh fits, the posterior choice and engine options reach both sides, and
bad settings are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from rebel.data import make_dataset, paper_protocol
from rebel.estimator import RebelClassifier
from rebel.experiments import studies as ar
from rebel.experiments import versus
from rebel.experiments.splits import _as_split
from rebel.ui import vs_two_step as vs


@pytest.fixture(scope="module")
def problem():
    (spec, costs), *_ = paper_protocol(1, 2, 3)
    return _as_split(make_dataset(spec, "random 0"), "random 0"), costs


def _frame(rows):
    import pandas as pd

    return pd.DataFrame(rows, columns=versus.VERSUS_COLUMNS)


def test_zero_one_costs_make_rebel_the_two_step_model(problem):
    split, _ = problem
    K = split.n_classes
    zero_one = np.ones((K, K)) - np.eye(K)
    for variant in ({}, {"leaves": "vector", "learning_rate": 0.5}):
        df = _frame(versus.dataset_rows(split, [zero_one], "sigma", variant, (1, 2), (3, 12), n_jobs=1))
        assert len(df) == 2 * 2 * 2  # depths x rounds x parts
        np.testing.assert_array_equal(df["rebel_cost"], df["blind_cost"])
        np.testing.assert_array_equal(df["two_step_cost"], df["blind_cost"])


def test_checkpoints_equal_fresh_fits_and_train_part_is_training_cost(problem):
    split, costs = problem
    C = costs[1]
    df = _frame(versus.dataset_rows(split, [C], "sigma", {"loss": "logistic"}, (2,), (5, 20), n_jobs=1))
    for t in (5, 20):
        model = RebelClassifier(C, t, 2, loss="logistic").fit(split.X_train, split.y_train)
        for part, X, y in (("test", split.X_test, split.y_test), ("train", split.X_train, split.y_train)):
            row = df[(df["rounds"] == t) & (df["part"] == part)].iloc[0]
            assert row["rebel_cost"] == pytest.approx(
                C[y, np.argmax(model.decision_function(X), axis=1)].mean()
            )
    assert df["bayes_cost"].notna().all()


def test_posterior_choice_changes_the_two_step_side_only(problem):
    split, costs = problem
    out = {
        p: _frame(versus.dataset_rows(split, costs, p, {}, (1,), (10,), n_jobs=1))
        for p in ("sigma", "softmax", "samme")
    }
    for p in ("softmax", "samme"):
        np.testing.assert_array_equal(out[p]["rebel_cost"], out["sigma"]["rebel_cost"])
    assert not np.array_equal(out["samme"]["two_step_cost"], out["sigma"]["two_step_cost"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"posterior": "naive"}, "posterior is 'naive'; choose one of"),
        ({"variant": {"loss": "squared"}}, "loss must be one of ['exp', 'logistic']; got 'squared'"),
        ({"variant": {"learning_rate": 0.0}}, "learning_rate must be in (0, 1]; got 0.0"),
        ({"variant": {"n_thresholds": 3}}, "engine option 'n_thresholds' is not offered here"),
        ({"n_rounds": 0}, "n_estimators must be in [1, 1000]; got 0"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs, message):
    with pytest.raises(ValueError) as err:
        ar.fig3_run(**{"n_datasets": 1, "n_costs": 1, "n_rounds": 5, **kwargs})
    assert message in str(err.value)


def test_paper_options_are_dropped_from_the_variant_and_checkpoints_end_at_the_rounds():
    assert versus.check_variant({"loss": "exp", "leaves": "binary", "learning_rate": 1.0}) == {}
    assert versus.check_variant({"leaves": "vector", "learning_rate": 1}) == {"leaves": "vector"}
    assert versus.checkpoints(100) == [10, 25, 50, 100]
    assert versus.checkpoints(1) == [1]


def test_sweep_run_reads_every_depth_and_the_capacity_text_is_honest():
    run = ar.fig3_run(n_datasets=2, n_costs=2, n_rounds=8, sweep_depths=True, variant={"leaves": "vector"})
    assert run.done == run.planned == 4 and not run.cancelled
    assert sorted(run.grid["depth"].unique()) == [1, 2, 3]
    assert sorted(run.grid["rounds"].unique()) == versus.checkpoints(8)
    rates = vs.capacity_rates(run.grid, "test")
    assert len(rates) == 3 * len(versus.checkpoints(8)) and (rates["trials"] == 4).all()
    text = vs.capacity_text(rates)
    assert "win rate ranges from" in text
    lost_everywhere = rates.assign(win_rate=0.0, loss_rate=1.0)
    assert "two-step method wins more trials than REBEL at every capacity" in vs.capacity_text(
        lost_everywhere
    )
    assert "vector leaves" in vs.variant_text(run.settings)
    train = vs.fig3_text(run, part="train")
    assert "lower training cost" in train and "not how it generalises" in train


def test_calibrated_posterior_is_the_cross_fitted_calibration_of_the_same_engine(problem):
    """The "calibrated-isotonic" two-step equals, at every checkpoint, the minimum-risk rule on the 0-1 model's
    posterior mapped by an isotonic calibrator fitted on 3-fold out-of-fold posteriors; REBEL's side is
    unchanged."""
    from rebel.calibration import crossfit_staged, fit_calibrator
    from rebel.costs import min_risk_class

    split, costs = problem
    cal = _frame(versus.dataset_rows(split, costs, "calibrated-isotonic", {}, (2,), (4, 10), n_jobs=1))
    plain = _frame(versus.dataset_rows(split, costs, "sigma", {}, (2,), (4, 10), n_jobs=1))
    np.testing.assert_array_equal(cal["rebel_cost"], plain["rebel_cost"])
    oof, (test_P,) = crossfit_staged(
        lambda: RebelClassifier(n_estimators=10, max_depth=2, random_state=0),
        split.X_train,
        split.y_train,
        [split.X_test],
        (4, 10),
    )
    for t in (4, 10):
        P = fit_calibrator(oof[t], split.y_train, "isotonic").predict_proba(test_P[t])
        for j, C in enumerate(costs):
            row = cal[(cal["rounds"] == t) & (cal["part"] == "test") & (cal["cost_id"] == j)].iloc[0]
            assert row["two_step_cost"] == pytest.approx(C[split.y_test, min_risk_class(P, C)].mean())
    assert "out-of-fold" in vs.variant_text(
        {"posterior": "calibrated-isotonic", "max_depth": 2, "n_rounds": 10, "variant": {}}
    )
