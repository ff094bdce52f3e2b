"""AppTest of the REBEL-vs-two-step page's options (posterior, engine options, cost part, capacity sweep) and
of the Costs-per-example page: no exception, the expected charts, the main controls change the output, bad
values give a message."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.test_app_pages_b import _charts

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 120
VS = "pages/2_REBEL_vs_two_step.py"
EC = "pages/7_Example_costs.py"


def _open(page: str, **widgets) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in widgets.items():
        at.session_state[key] = value
    at.switch_page(page)
    return _run(at)


def _run(at: AppTest) -> AppTest:
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _text(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


def _errors(at: AppTest) -> str:
    """Error messages with the markdown escapes of ``rebel.ui.components.show_error`` removed."""
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in at.error))


SMALL = {"w2_n_datasets": 2, "w2_n_costs": 2, "w2_n_rounds": 12}


def test_vs_page_shows_the_capacity_plot_and_the_setting():
    at = _open(VS, **SMALL)
    titles = list(_charts(at))
    assert "REBEL's win rate against capacity (test points)" in titles
    assert "Both sides: exp loss, binary leaves, learning rate 1 (the paper's REBEL)" in _text(at)
    assert "win rate ranges from" in _text(at)
    assert "reliability on the first dataset" in titles
    assert "bootstrap over the 2 dataset(s)" in _text(at) and "Sign test" not in _text(at)
    assert "REBEL's win rate against the calibrated two-step method" in titles
    assert "No regime favours REBEL" in _text(at) and "seed 4813" in _text(at)
    assert "Mean test cost of each method per regime (1 = the cheapest there)" in titles
    assert "is cheaper than the chosen two-step method in 0 of 11 regimes" in _text(at)


def test_vs_page_offers_the_calibrated_two_step():
    at = _open(VS, **SMALL, w2_posterior="calibrated-isotonic")
    assert at.session_state["vs_run"].settings["posterior"] == "calibrated-isotonic"
    assert "isotonic-calibrated on out-of-fold predictions" in _text(at)


def test_vs_page_options_reach_both_sides_and_the_sweep_adds_depths():
    at = _open(VS, **SMALL)
    at.selectbox(key="w2_posterior").set_value("samme")
    at.selectbox(key="w2_leaves").set_value("vector")
    at.number_input(key="w2_learning_rate").set_value(0.5)
    at.checkbox(key="w2_sweep").check()
    at.button(key="w2_run").click()
    _run(at)
    run = at.session_state["vs_run"]
    assert run.settings["posterior"] == "samme"
    assert run.settings["variant"] == {"leaves": "vector", "learning_rate": 0.5}
    assert sorted(run.grid["depth"].unique()) == [1, 2, 3]
    capacity = _charts(at)["REBEL's win rate against capacity (test points)"]
    assert [t["name"] for t in capacity["data"]] == ["stumps (depth 1)", "depth 2", "depth 3"]
    assert "AdaBoost SAMME (scikit-learn) with the same depth and rounds" in _text(at)
    names = [t["name"] for t in _charts(at)["reliability on the first dataset"]["data"]]
    assert names[0] == "perfectly calibrated" and len(names) == 5  # diagonal, 3 same-engine posteriors, SAMME
    assert names[-1].startswith("AdaBoost SAMME (scikit-learn) (ECE ")


def test_vs_page_cost_switch_shows_training_costs():
    at = _open(VS, **SMALL)
    test_text = _text(at)
    at.radio(key="w2_part").set_value("train")
    _run(at)
    titles = list(_charts(at))
    assert "training cost per trial (4 trials)" in titles
    assert "REBEL's win rate against capacity (training points)" in titles
    assert "lower training cost" in _text(at) and _text(at) != test_text


def test_vs_page_bad_learning_rate_gives_a_message():
    at = _open(VS, **SMALL)
    at.number_input(key="w2_learning_rate").set_value(0.0)
    at.button(key="w2_run").click()
    _run(at)
    errors = _errors(at)
    assert "The comparison could not run" in errors and "learning_rate must be in (0, 1]" in errors


def test_example_costs_page_defaults_show_win_rate_and_regions():
    at = _open(EC, w7_n_datasets=2, w7_n_costs=2, w7_n_rounds=30)
    run = at.session_state["ec_run"]
    assert run.done == run.planned == 2 * 2 * 4 and not run.cancelled
    titles = list(_charts(at))
    assert "REBEL trained on each point's own costs" in titles
    assert "two-step: posterior + class-averaged costs" in titles
    assert any("win rate" in json.dumps(spec["layout"]) for spec in _charts(at).values())
    text = _text(at)
    assert "λ = 5, 4 trials: REBEL's mean test cost" in text and "cost-regressing two-step (kNN)" in text
    assert "λ = 0 every point of a class has the same costs" in text and "95 % CI" in text


def test_example_costs_page_controls_change_the_run_and_empty_lambdas_are_refused():
    at = _open(EC, w7_n_datasets=1, w7_n_costs=2, w7_n_rounds=20)
    at.multiselect(key="w7_lambdas").set_value([3.0, 8.0])
    at.selectbox(key="w7_engine").set_value("vector")
    at.button[0].click()
    _run(at)
    run = at.session_state["ec_run"]
    assert run.settings["lambdas"] == [3.0, 8.0]
    assert run.settings["variant"] == {"leaves": "vector", "learning_rate": 0.3}
    assert sorted(run.trials["lambda"].unique()) == [3.0, 8.0]
    before = at.session_state["ec_run"]
    at.multiselect(key="w7_lambdas").set_value([])
    at.button[0].click()
    _run(at)
    assert "choose at least one lambda" in _errors(at)
    assert at.session_state["ec_run"] is before  # the last good run stays


# ------------------------------------------------------------------------------------------ Playground engine
def test_playground_engine_choice_trains_both_models_with_vector_leaves():
    from rebel.ui.state import STATE_KEY

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    _run(at)
    state = at.session_state[STATE_KEY]
    paper = state.trained
    assert paper.rebel.leaves == "binary" and at.selectbox(key="w_engine").value == "paper"
    at.selectbox(key="w_engine").set_value("vector")
    _run(at)
    state = at.session_state[STATE_KEY]
    vector = state.trained
    assert state.engine == "vector" and vector.key != paper.key
    assert vector.rebel.leaves == "vector" and vector.posterior_model.leaves == "vector"
    assert vector.rebel.learning_rate == vector.posterior_model.learning_rate == 0.3
    assert vector.hyper == paper.hyper  # same capacity, only the engine changed
    assert not (vector.regions == paper.regions).all()
    at.switch_page(VS)
    _run(at)
    at.switch_page("pages/1_Playground.py")
    _run(at)
    assert at.selectbox(key="w_engine").value == "vector"  # kept across a page switch
