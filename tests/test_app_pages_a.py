"""AppTest of the analysis pages Risk-score paths, Cost gallery, Cost sweep and Theory (streamlit.testing.v1):
each loads on its own defaults and on the Playground's shared state, and its main control changes its output."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from rebel.costs import uniform_costs
from rebel.data import PRESETS
from rebel.experiments import studies as sw
from rebel.ui import config as cf
from rebel.ui import state as ust
from rebel.ui.state import STATE_KEY, AppState

from .apptest_pages import open_page

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 60  # the first run compiles (or loads) the numba kernels
PATHS, GALLERY, SWEEP, THEORY = (
    "pages/3_Risk_paths.py",
    "pages/4_Cost_gallery.py",
    "pages/8_Cost_sweep.py",
    "pages/9_Theory.py",
)
FAST = {"n_estimators": 20, "max_depth": 2, "n_thresholds": 64}


def _run(at: AppTest) -> AppTest:
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _open(page: str, state: AppState | None = None, **widgets) -> AppTest:
    return open_page(page, TIMEOUT, state, **widgets)


def _state(at: AppTest) -> AppState:
    """The app's shared state (rebel.ui.state.AppState)."""
    return at.session_state[STATE_KEY]


def _charts(at: AppTest) -> list:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _array(v) -> np.ndarray:
    """A plotly JSON array: a list, or plotly's typed-array form {"dtype", "bdata" (base64)}."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v)


def _titles(at: AppTest) -> list:
    """Chart titles, wrapped lines joined by spaces."""
    return [c["layout"].get("title", {}).get("text", "").replace("<br>", " ") for c in _charts(at)]


def _captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def _fig7_state(hyper=FAST) -> AppState:
    """What the Playground shares after loading the fig7 preset (without running the Playground page)."""
    p = PRESETS["fig7"]
    return AppState(
        dataset=p.dataset(),
        cost_matrix=p.cost_matrix.copy(),
        hyper=dict(hyper),
        preset="fig7",
        data_source="mixture",
    )


# ------------------------------------------------------------------------------------- defaults, shared state
@pytest.mark.parametrize("page", [PATHS, GALLERY, SWEEP, THEORY])
def test_page_loads_on_its_defaults(page):
    at = _open(page)
    assert "Playground has not been opened" in _captions(at)
    assert len(at.get("plotly_chart")) >= 2
    assert not at.error and not at.warning


def test_pages_read_the_playgrounds_state():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    _run(at)  # the Playground: airport preset, trains REBEL
    at.slider(key="w_n_estimators").set_value(30)
    _run(at)
    cost_before = _state(at).cost_matrix.copy()
    for page in (PATHS, GALLERY, SWEEP, THEORY):
        at.switch_page(page)
        _run(at)
        assert "Using the Playground's dataset" in _captions(at), page
        assert not at.error, [e.value for e in at.error]
    np.testing.assert_array_equal(_state(at).cost_matrix, cost_before)
    assert at.session_state["gal_result"].problem.classes == ("harmless", "liquid", "weapon")
    assert at.session_state["sw_result"].entry == (
        2,
        0,
    )  # the airport's costly mistake: weapon taken for harmless
    assert "Showing the Playground's trained model." in _captions(at)  # Theory reuses the Playground's model
    assert len(at.session_state["th_diagnostics"]) == 30


def test_bad_shared_state_warns_and_is_kept():
    state = _fig7_state()
    state.cost_matrix = uniform_costs(3)  # does not fit the 4 classes
    for page in (PATHS, GALLERY, SWEEP, THEORY):
        at = _open(page, state)
        assert "could not be used" in " ".join(w.value for w in at.warning), page
        np.testing.assert_array_equal(_state(at).cost_matrix, uniform_costs(3))


# ------------------------------------------------------------------------------------------------ main controls
def test_paths_iteration_and_waypoints_change_the_scores():
    at = _open(PATHS, _fig7_state())
    profiles = at.session_state["rp_profiles"]
    assert set(profiles) == {"A", "B"} and set(profiles["A"]) == {"stumps", "depth-2 trees"}
    _, H = profiles["A"]["depth-2 trees"]
    assert np.ptp(H, axis=0).max() > 0.5  # after 20 rounds the scores vary along the path
    at.slider(key="rp_t").set_value(0)
    _run(at)
    _, H = at.session_state["rp_profiles"]["A"]["depth-2 trees"]
    assert np.ptp(H, axis=0).max() == 0  # t = 0: only a0, the same everywhere
    assert any("after t = 0 of 20 rounds" in t for t in _titles(at))
    assert any("along the paths at t = 0" in t for t in _titles(at))
    # Typed waypoints: a third path C
    v = at.session_state["rp_table_v"]
    at.session_state[f"rp_editor_{v}"] = {
        "edited_rows": {},
        "deleted_rows": [],
        "added_rows": [{"path": "C", "x": 0.0, "y": -4.0}, {"path": "C", "x": 0.0, "y": 4.0}],
    }
    _run(at)
    assert set(at.session_state["rp_profiles"]) == {"A", "B", "C"}
    at.slider(key="rp_t").set_value(15)
    _run(at)
    _state(at).hyper = {**FAST, "n_estimators": 10}  # the Playground trains fewer rounds
    _run(at)
    assert at.slider(key="rp_t").value == 10 and not at.warning
    at.button(key="rp_clear").click()
    _run(at)
    assert "No paths yet" in " ".join(i.value for i in at.info)


def test_gallery_fig7_behaviour_and_multiplier():
    """Fig. 7 on the fig7 preset: x10 FP for C keeps C's train precision >= the uniform model's; x10 FN keeps its
    train recall >= the uniform model's."""
    at = _open(GALLERY, _fig7_state({"n_estimators": 100, "max_depth": 2, "n_thresholds": 200}))
    gallery = at.session_state["gal_result"]
    assert (gallery.c, gallery.other, gallery.m) == (2, 1, 10.0) and gallery.complete
    t = gallery.table().set_index(["panel", "split"])
    assert t.loc[("c", "train"), "precision"] >= t.loc[("a", "train"), "precision"]
    assert t.loc[("d", "train"), "recall"] >= t.loc[("a", "train"), "recall"]
    assert "×10 false-positive cost for C" in " ".join(_titles(at))
    at.number_input(key="gal_m").set_value(3.0)
    _run(at)
    assert at.session_state["gal_result"].m == 3.0
    assert "(c) ×3 false-positive cost for C" in _titles(at)
    at.selectbox(key="gal_c").set_value("A")
    _run(at)
    assert "(d) ×3 false-negative cost for A" in _titles(at)
    legend = next(c for c in _charts(at) if c["layout"]["height"] < 100)  # the class legend above the panels
    assert [d["name"] for d in legend["data"]] == ["A", "B", "C", "D"]


def test_sweep_controls_change_the_curves():
    at = _open(SWEEP, _fig7_state())
    res = at.session_state["sw_result"]
    assert res.entry == (2, 0) and len(res.values) == 13 and res.complete  # fig7: C missed as A
    at.slider(key="sw_n").set_value(5)
    _run(at)
    assert len(at.session_state["sw_result"].values) == 5
    cost_fig = next(c for c in _charts(at) if c["layout"]["title"]["text"].startswith("test cost"))
    np.testing.assert_allclose(_array(cost_fig["data"][0]["x"]), np.geomspace(0.1, 100, 5))
    at.selectbox(key="sw_pred").set_value("C")
    _run(at)
    assert any("correct decision costs 0" in w.value for w in at.warning)
    at.number_input(key="sw_hi").set_value(0.05)
    at.selectbox(key="sw_pred").set_value("B")
    _run(at)
    assert any("Sweep range" in e.value for e in at.error)


def test_sweep_class_list_follows_the_chosen_entry():
    at = _open(SWEEP, _fig7_state())
    assert at.multiselect(key="sw_show").value == ["C", "A"]  # fig7: C missed as A
    at.selectbox(key="sw_pred").set_value("B")
    _run(at)
    assert at.multiselect(key="sw_show").value == ["C", "B"]
    at.multiselect(key="sw_show").set_value(["A", "B", "C"])
    _run(at)
    assert at.multiselect(key="sw_show").value == ["A", "B", "C"]  # the user's own choice stays
    at.selectbox(key="sw_truth").set_value("D")
    _run(at)
    assert at.multiselect(key="sw_show").value == ["D", "B"]


def test_stopped_sweep_waits_for_run():
    state = _fig7_state()
    problem = ust.problem_from_state(state)
    key = cf.content_key(problem.key, (2, 0), sw.sweep_values(0.1, 100, 13))
    at = _open(SWEEP, state, sw_stopped=key)  # as after a click on Stop during this sweep
    assert "Sweep stopped" in " ".join(i.value for i in at.info) and "sw_result" not in at.session_state
    at.button(key="sw_run").click()
    _run(at)
    assert at.session_state["sw_result"].complete


def test_theory_depth_and_binary_controls():
    at = _open(THEORY, _fig7_state())
    first = at.session_state["th_diagnostics"]
    assert len(first) == 20 and (first["ratio"] <= first["bound"] + 1e-9).all()
    at.selectbox(key="th_depth").set_value(1)
    _run(at)
    second = at.session_state["th_diagnostics"]
    assert not np.allclose(first["gamma"], second["gamma"])
    assert at.session_state["th_binary_demo"].rounds["max |H1 + H2|"].max() < 1e-9
    at.slider(key="th_bin_rounds").set_value(7)
    _run(at)
    assert len(at.session_state["th_binary_demo"].rounds) == 7


def _click(at: AppTest, x: float, y: float) -> AppTest:
    """A click on the paths plot, sent as the browser sends it: the chart's widget state, a plotly selection of
    one point (AppTest has no plotly-chart widget, so the state is appended to the other widgets' states)."""
    chart = next(c for c in at.get("plotly_chart") if c.proto.id and "rp_chart_" in c.proto.id)
    states = at._tree.get_widget_states()
    ws = WidgetState(id=chart.proto.id)
    sel = {"points": [{"x": x, "y": y}], "point_indices": [], "box": [], "lasso": []}
    ws.string_value = json.dumps({"selection": sel})
    states.widgets.append(ws)
    at._run(states, timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_paths_drawn_by_clicks_after_clear():
    """After "Clear paths", the first click starts path A and the next clicks extend it (not a new path each);
    picking "new path" starts B, whose later clicks extend B."""
    at = _open(PATHS, _fig7_state())
    at.button(key="rp_clear").click()
    _run(at)
    for x, y in [(-3.0, -3.0), (0.0, 0.0), (3.0, 2.0)]:
        _click(at, x, y)
    assert at.session_state["rp_paths"] == {"A": [[-3.0, -3.0], [0.0, 0.0], [3.0, 2.0]]}
    assert at.selectbox(key="rp_target").value == "A"
    at.selectbox(key="rp_target").set_value("➕ new path")
    _run(at)
    _click(at, -3.0, 3.0)
    _click(at, 3.0, -3.0)
    assert at.session_state["rp_paths"]["B"] == [[-3.0, 3.0], [3.0, -3.0]]
    assert set(at.session_state["rp_profiles"]) == {"A", "B"}
