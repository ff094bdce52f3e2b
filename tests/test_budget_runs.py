"""The app's budget for a page's whole run (``rebel.budget.run_cost`` / ``check_run``, limit ``run_work``) on the
pages that train many models per run: REBEL vs two-step (``studies.fig3_cost``), Real data
(``real_runs.real_cost``) and Example costs (``example_costs.example_cost_cost``).

- Each cost function counts the fits its run makes (checked against the datasets the run really draws).
- An over-budget combination of the page's widgets is refused before any work with the budget's message
  (amount, how it was counted, limit, reason, fix); no run is stored, no exception element, the widgets keep
  their values.
- The largest settings the budget admits start (the smallest data keeps the test short).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rebel import budget
from rebel.baselines import available_estimators
from rebel.data import Dataset
from rebel.experiments import example_costs as ec
from rebel.experiments import real_runs as rr
from rebel.experiments import studies
from rebel.params import INT_PARAMS
from rebel.ui.state import AppState

from .apptest_pages import open_page

TIMEOUT = 300
VS, REAL, EC = "pages/2_REBEL_vs_two_step.py", "pages/6_Real_data.py", "pages/7_Example_costs.py"
RUN_LIMIT = budget.limit_of("run_work", app=True)
FIT_LIMIT = budget.limit_of("fit_work", app=True)
ROUNDS, DEPTH = INT_PARAMS["n_estimators"].app_high, INT_PARAMS["max_depth"].app_high


def _open(page: str, state: AppState | None = None, **widgets) -> AppTest:
    return open_page(page, TIMEOUT, state, **widgets)


def _errors(at: AppTest) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in at.error)).replace("\u2060", "")


def _assert_refused(at: AppTest, run_key: str, *parts: str) -> None:
    errors = _errors(at)
    assert errors.startswith("Not computed: this request needs"), errors
    assert "allows at most" in errors and "because" in errors and "Lower the number of" in errors, errors
    for part in parts:
        assert part in errors, (part, errors)
    assert run_key not in at.session_state  # no run started


# ---------------------------------------------------------------------------------------------- the counting
def test_run_cost_sums_every_fit_and_check_run_checks_each_fit_and_the_total():
    small, big = budget.fit_cost(100, 2, 3, 10, 1), budget.fit_cost(1000, 2, 5, 1000, 4)
    run = budget.run_cost([(3, small), (2, big), (0, big)], "3 small + 2 big")
    assert run.n_fits == 5 and run.work == 3 * small.work + 2 * big.work
    assert run.detail.startswith("5 fits: 3 small + 2 big; the largest 1,000 points")
    assert budget.check_run(run) is run
    with pytest.raises(budget.BudgetError, match=r"work for one page's run.*\(200 fits: many"):
        budget.check_run(budget.run_cost([(200, big)], "many"))
    with pytest.raises(budget.BudgetError, match="work for one training run"):
        budget.check_run(budget.run_cost([(1, budget.fit_cost(10**6, 2, 5, 1000, 4))], "one"))
    assert (
        budget.check_run(budget.run_cost([(200, big)], "many"), app=False).n_fits == 200
    )  # engine: no limit


@pytest.mark.parametrize("source", ["random", "playground"])
def test_fig3_cost_counts_the_fits_of_the_datasets_the_run_draws(source):
    ds = studies.fig3_trials("random", 1, 1, seed=3)[0][0] if source == "playground" else None
    cost = studies.fig3_cost(
        source, 3, 2, 50, 2, seed=5, dataset=ds, posterior="calibrated-temperature", sweep_depths=True
    )
    drawn = studies.fig3_trials(source, 3, 2, seed=5, dataset=ds)
    expected = sum(
        (2 + 4) * budget.fit_cost(d.X_train.shape[0], d.X_train.shape[1], d.n_classes, 50, depth).work
        for d, _ in drawn
        for depth in (1, 2, 3)
    )
    assert cost.n_fits == 3 * 3 * 6 and cost.work == expected


def test_example_cost_cost_counts_the_fits_of_the_protocol_splits():
    cost = ec.example_cost_cost(2, 3, [0.0, 1.5], 40, 3, seed=7)
    from rebel.experiments.splits import protocol_splits

    splits, _ = protocol_splits(2, 3, 7)
    per = 1 + 2 * 3 * 2
    expected = sum(
        per * budget.fit_cost(s.X_train.shape[0], s.X_train.shape[1], s.n_classes, 40, 3).work for s in splits
    )
    assert cost.n_fits == 2 * per and cost.work == expected


def test_real_cost_counts_rebel_and_each_installed_baseline_stump_only_ones_at_depth_1():
    ds = rr.load_real("iris")
    cost = rr.real_cost(ds, rr.REAL_METHODS, 30, 3)
    runnable = [m for m in rr.REAL_METHODS if m in available_estimators()]
    N, d = ds.X_train.shape
    stumps = sum(m in rr.STUMP_ONLY for m in runnable)
    deep = budget.fit_cost(N, d, 3, 30, 3).work
    assert cost.n_fits == 1 + len(runnable)
    assert cost.work == (1 + len(runnable) - stumps) * deep + stumps * budget.fit_cost(N, d, 3, 30, 1).work


def test_real_data_runs_can_only_exceed_the_run_limit_through_one_fit_or_the_calibrated_two_step():
    """Page 6 trains at most 1 + all baselines models, each within the one-fit limit once checked: without the
    calibrated two-step its run total stays under the run limit whatever its widgets and data, so its refusals
    name the one fit. The calibrated two-step adds 1 + CALIBRATED_FOLDS fits, which can pass the run limit:
    that refusal names the page's run."""
    assert (1 + len(rr.REAL_METHODS)) * FIT_LIMIT <= RUN_LIMIT
    assert (1 + len(rr.REAL_METHODS) + 1 + rr.CALIBRATED_FOLDS) * FIT_LIMIT > RUN_LIMIT
    ds = rr.load_real("digits")
    cost = rr.real_cost(ds, rr.REAL_METHODS, 300, 2, calibrated=True)
    runnable = [m for m in rr.REAL_METHODS if m in available_estimators()]
    assert cost.n_fits == 1 + len(runnable) + 1 + rr.CALIBRATED_FOLDS
    with pytest.raises(budget.BudgetError, match="one page's run of several trainings.*calibrated two-step"):
        budget.check_run(cost, app=True)


def test_the_widgets_maxima_are_over_the_run_budget_on_the_study_pages():
    """So the check is what holds the budget on pages 2 and 7: their widgets alone would admit 4x-25x it."""
    fig3 = studies.fig3_cost(
        "random", 20, 40, ROUNDS, DEPTH, posterior="calibrated-isotonic", sweep_depths=True
    )
    lo, hi = ec.LIMITS["n_datasets"][1], ec.LIMITS["n_costs"][1]
    example = ec.example_cost_cost(lo, hi, ec.LAMBDA_CHOICES, ROUNDS, DEPTH)
    assert fig3.work > RUN_LIMIT and example.work > RUN_LIMIT


# ------------------------------------------------------------------------------------------------- the pages
def test_vs_page_refuses_an_over_budget_run_before_any_work_and_keeps_the_inputs():
    widgets = {"w2_n_datasets": 20, "w2_n_costs": 40, "w2_n_rounds": ROUNDS, "w2_max_depth": DEPTH}
    at = _open(VS, **widgets)
    _assert_refused(
        at, "vs_run", "one page's run of several trainings", "820 fits: 20 dataset(s)", "6,000,000,000"
    )
    for key, value in widgets.items():
        assert at.slider(key=key).value == value


def _tiny() -> Dataset:
    """Twelve training points without a mixture (like an upload): page 2 uses it as it is, one dataset."""
    X = np.random.default_rng(0).normal(size=(18, 2))
    y = np.arange(18) % 2
    return Dataset(X[:12], y[:12], X[12:], y[12:], (0, 1))


def test_vs_page_starts_at_its_widgets_maxima_on_the_smallest_data():
    state = AppState(dataset=_tiny(), cost_matrix=1.0 - np.eye(2))
    widgets = {"w2_n_datasets": 20, "w2_n_costs": 40, "w2_n_rounds": ROUNDS, "w2_max_depth": DEPTH}
    at = _open(VS, state=state, w2_source="playground", w2_sweep=True, **widgets)
    assert not at.error, _errors(at)
    run = at.session_state["vs_run"]
    assert run.done == run.planned == 40 and run.settings["depths"] == [1, 2, 3, 4]


def test_real_page_refuses_an_over_budget_run_before_any_work_and_keeps_the_inputs():
    at = _open(REAL, w6_rounds=300, w6_depth=DEPTH)
    _assert_refused(at, "real_run", "work for one training run", "1,347 points x 64 features x 300 rounds")
    assert at.slider(key="w6_rounds").value == 300 and at.slider(key="w6_depth").value == DEPTH


def test_real_page_starts_at_its_widgets_maxima_on_the_smallest_data():
    methods = available_estimators()
    at = _open(REAL, w6_dataset="iris", w6_rounds=300, w6_depth=DEPTH, w6_methods=methods)
    assert not at.error, _errors(at)
    run = at.session_state["real_run"]
    assert run.dataset.name == "iris" and run.done == run.planned == 1 + len(methods)


def test_example_costs_page_refuses_an_over_budget_run_before_any_work_and_keeps_the_inputs():
    widgets = {
        "w7_n_datasets": ec.LIMITS["n_datasets"][1],
        "w7_n_costs": ec.LIMITS["n_costs"][1],
        "w7_n_rounds": ROUNDS,
        "w7_max_depth": DEPTH,
        "w7_lambdas": list(ec.LAMBDA_CHOICES),
    }
    at = _open(EC, **widgets)
    _assert_refused(at, "ec_run", "one page's run of several trainings", "4,820 fits: 20 dataset(s)")
    assert at.multiselect(key="w7_lambdas").value == list(ec.LAMBDA_CHOICES)
    for key in ("w7_n_datasets", "w7_n_costs", "w7_n_rounds", "w7_max_depth"):
        assert at.slider(key=key).value == widgets[key]


def test_example_costs_page_starts_at_the_largest_rounds_and_depth():
    """The protocol's data is fixed (1,000 training points), so the largest fits with the fewest of them."""
    at = _open(EC, w7_n_datasets=1, w7_n_costs=1, w7_n_rounds=ROUNDS, w7_max_depth=DEPTH, w7_lambdas=[3.0])
    assert not at.error, _errors(at)
    run = at.session_state["ec_run"]
    assert run.done == run.planned == 1 and run.settings["n_rounds"] == ROUNDS
