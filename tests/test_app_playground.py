"""AppTest of the Playground page (streamlit.testing.v1): every interaction runs without an exception."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rebel.data import PRESETS
from rebel.ui import config as cf
from rebel.ui.components import GRID_MAX_CLASSES
from rebel.ui.state import STATE_KEY, AppState

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 60  # the first run compiles (or loads) the numba kernels


def _state(at: AppTest) -> AppState:
    """The app's shared state (rebel.ui.state.AppState)."""
    return at.session_state[STATE_KEY]


def _run(at: AppTest) -> AppTest:
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.fixture
def app() -> AppTest:
    return _run(AppTest.from_file(APP, default_timeout=TIMEOUT))


def _charts(at: AppTest) -> list:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _numbers_line(at: AppTest) -> str:
    """The regions figure's numbers line (round t and test costs) as first shown."""
    chart = _regions_chart(at)
    return next(d["text"][0] for d in chart["data"] if d.get("name") == "numbers")


def _errors(at: AppTest) -> str:
    """The error messages as the user reads them (the app backslash-escapes every punctuation mark)."""
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in at.error))


def _misses(at: AppTest, c: str) -> int:
    """Test points of class c that the trained REBEL model in session state predicts as another class."""
    ds, model = _state(at).dataset, _state(at).trained.rebel
    truth = ds.y_test == c
    return int(np.sum(model.predict(ds.X_test[truth]) != c))


def _apply_cost(at: AppTest, kind: str, **params) -> AppTest:
    at.selectbox(key="w_cost_preset").set_value(kind)
    _run(at)
    if "c" in params:
        at.selectbox(key="w_cost_class").set_value(params["c"])
    if "m" in params:
        at.number_input(key="w_cost_m").set_value(params["m"])
    at.button(key="w_apply_cost").click()
    return _run(at)


def cost_cell(at: AppTest, i: int, j: int):
    """The cost editor's cell (row i, column j as shown): its key ends with "_<i>_<j>" (``components.cost_cell_key``)."""
    return next(
        w for w in at.text_input if w.key and w.key.startswith("w_costs_") and w.key.endswith(f"_{i}_{j}")
    )


def _edit_cost(at: AppTest, row: int, column: str, value) -> int:
    """Type ``value`` into the cost editor's cell (row, column = class name) and commit it; returns the editor
    version before the edit."""
    v = at.session_state["w_costs_v"]
    j = [str(c) for c in _state(at).classes].index(column)
    cost_cell(at, row, j).input("" if value is None else str(value))
    _run(at)
    return v


def test_first_load_shows_charts_and_trains_both_models(app):
    state = _state(app)
    assert state.preset == cf.DEFAULT_PRESET
    assert state.trained.rebel.n_estimators_ == cf.DEFAULT_HYPER["n_estimators"]
    assert state.trained.posterior_model.cost_matrix_.tolist() == (1 - np.eye(3)).tolist()
    assert (
        state.trained.two_step.cost_matrix_.tolist() == state.cost_matrix.tolist()
    )  # costs at decision time
    assert len(app.get("plotly_chart")) == 1  # the regions replay (the Details tab opens on text)
    assert f"t = {state.trained.rebel.n_estimators_}</b> of" in _numbers_line(app)
    assert not app.error
    assert app.query_params["p"] in (cf.DEFAULT_PRESET, [cf.DEFAULT_PRESET])  # the configuration's short link


def test_preset_change_follows_classes(app):
    app.selectbox(key="w_preset").set_value("fig7")
    _run(app)
    assert _state(app).dataset.classes == ("A", "B", "C", "D")
    np.testing.assert_array_equal(_state(app).cost_matrix, PRESETS["fig7"].cost_matrix)
    assert _state(app).trained.rebel.classes_.tolist() == ["A", "B", "C", "D"]


def test_cost_preset_change(app):
    _apply_cost(app, "uniform")
    np.testing.assert_array_equal(_state(app).cost_matrix, 1 - np.eye(3))
    np.testing.assert_array_equal(_state(app).trained.rebel.cost_matrix_, 1 - np.eye(3))
    app.button(key="w_normalize").click()
    _run(app)
    assert not app.error


def test_cost_cell_edit_and_bad_cell(app):
    _edit_cost(app, 0, "liquid", 5.0)
    assert _state(app).cost_matrix[0, 1] == 5.0
    assert _state(app).trained.rebel.cost_matrix_[0, 1] == 5.0
    _edit_cost(app, 2, "harmless", None)
    assert "truth is 'weapon'" in _errors(app) and "'harmless'" in _errors(app)
    assert _state(app).cost_matrix[2, 0] == 20.0  # the last valid matrix stays in use


def _regions_chart(at: AppTest) -> dict:
    return next(c for c in _charts(at) if c.get("frames"))  # the replay: the one chart with frames


def test_n_estimators_change_and_scrubber(app):
    app.slider(key="w_n_estimators").set_value(30)
    _run(app)
    pair = _state(app).trained
    assert pair.rebel.n_estimators_ == 30
    chart = _regions_chart(app)
    assert chart["layout"]["sliders"][0]["active"] == 30  # a new model opens at its last round
    assert not [s for s in app.slider if s.key == "t"]  # one round control: the figure's own slider
    # every frame carries its round's numbers: the numbers line and the cost strip's marker
    for t in (0, 7, 30):
        frame = next(f for f in chart["frames"] if f["name"] == f"t{t}")
        line = next(d["text"][0] for d in frame["data"] if "text" in d)
        assert f"t = {t}</b> of 30" in line and f"REBEL {pair.metrics(t).cost:.3f}" in line, line
        assert f"two-step {pair.metrics(t, 'two-step').cost:.3f}" in line
        assert {"x": [t, t]}.items() <= next(d for d in frame["data"] if d.get("x") == [t, t]).items()
    for key in ("w_show_bayes", "w_show_two", "w_show_dis", "w_show_w"):
        app.toggle(key=key).set_value(True)
    _run(app)
    chart = _regions_chart(app)
    names = {tr.get("name") for tr in chart["data"]}
    images = {im.get("name") for im in chart["layout"].get("images", [])}
    assert {"Bayes-optimal boundaries", "two-step boundaries", "REBEL ≠ two-step"} <= names, names
    assert "disagreement" in images  # the disagreement overlay is a layout image that follows t


def test_replay_runs_in_the_browser(app):
    """Play and the scrubber are the regions figure's own: one frame per round t = 0..T, a slider over them and
    Play / Pause buttons (no server round trip per frame)."""
    T = _state(app).trained.rebel.n_estimators_
    chart = _regions_chart(app)
    assert len(chart["frames"]) == T + 1
    assert len(chart["layout"]["sliders"][0]["steps"]) == T + 1
    labels = [b["label"] for menu in chart["layout"]["updatemenus"] for b in menu["buttons"]]
    assert any("Play" in label for label in labels) and any("Pause" in label for label in labels)


def test_bad_csv_upload_keeps_dataset(app):
    before = _state(app).dataset
    app.file_uploader(key="w_csv_upload").set_value(("bad.csv", b"x,y,label\n1,oops,a\n2,3,b\n", "text/csv"))
    _run(app)
    assert "CSV file not loaded" in _errors(app) and "oops" in _errors(app)
    assert _state(app).dataset is before


def test_good_csv_upload_replaces_dataset(app):
    rows = "\n".join(f"{i % 7},{i % 5},{'ab'[i % 2]},{'train' if i % 3 else 'test'}" for i in range(60))
    app.file_uploader(key="w_csv_upload").set_value(
        ("points.csv", f"x,y,label,split\n{rows}\n".encode(), "text/csv")
    )
    _run(app)
    assert _state(app).data_source == "csv"
    assert _state(app).dataset.classes == ("a", "b")
    assert _state(app).cost_matrix.shape == (2, 2)
    assert _state(app).trained.rebel.classes_.tolist() == ["a", "b"]


def _link_config(at: AppTest) -> cf.Config:
    from rebel.ui.short_link import LINK_KEYS, config_from_params

    first = lambda v: v[0] if isinstance(v, list) else v
    return config_from_params({k: first(at.query_params[k]) for k in LINK_KEYS if k in at.query_params})[0]


def test_the_engine_choice_is_in_the_link_and_survives_a_preset(app):
    app.selectbox(key="w_engine").set_value("vector")
    _run(app)
    assert _link_config(app).engine == "vector"
    app.selectbox(key="w_preset").set_value("fig7")
    _run(app)
    assert _state(app).engine == "vector" and app.selectbox(key="w_engine").value == "vector"
    assert _link_config(app).engine == "vector"


def test_many_classes_edit_one_entry_at_a_time(app):
    """Above GRID_MAX_CLASSES classes the costs are a read-only table and one entry is edited at a time."""
    K = GRID_MAX_CLASSES + 2
    rows = "\n".join(f"{(i % K) * 3 + (i % 5) * 0.1},{(i * 7) % 11},c{i % K}" for i in range(K * 20))
    app.file_uploader(key="w_csv_upload").set_value(("k.csv", f"x,y,label\n{rows}\n".encode(), "text/csv"))
    _run(app)
    assert len(_state(app).classes) == K
    assert not [
        w for w in app.text_input if w.key and w.key.startswith("w_costs_") and w.key.endswith("_0_1")
    ]
    heads = [m.value for m in app.markdown if "rows = truth" in m.value]
    assert heads and "pick an entry under the table" in heads[0] and "type a number" not in heads[0]
    next(s for s in app.selectbox if s.label == "Truth").set_value(3)
    next(s for s in app.selectbox if s.label == "Prediction").set_value(5)
    _run(app)
    cost_cell(app, 3, 5).input("9")
    _run(app)
    assert _state(app).cost_matrix[3, 5] == 9.0 and _state(app).trained.rebel.cost_matrix_[3, 5] == 9.0
    cost_cell(app, 3, 5).input("-1")
    _run(app)
    assert "is negative" in _errors(app) and _state(app).cost_matrix[3, 5] == 9.0


def test_cost_editor_header_asks_for_typing_in_the_grid(app):
    """At most GRID_MAX_CLASSES classes the costs are a grid of cells, and the header says to type in them."""
    heads = [m.value for m in app.markdown if "rows = truth" in m.value]
    assert len(_state(app).classes) <= GRID_MAX_CLASSES
    assert heads and "type a number and press Enter" in heads[0]


def test_csv_with_number_labels_and_fn_costs(app):
    rows = "\n".join(f"{i % 7},{(i * 3) % 5},{(3, 7)[i % 2]}" for i in range(80))
    app.file_uploader(key="w_csv_upload").set_value(("n.csv", f"x,y,label\n{rows}\n".encode(), "text/csv"))
    _run(app)
    assert _state(app).dataset.classes == (3, 7)
    _apply_cost(app, "fn", c=7, m=4.0)
    np.testing.assert_array_equal(_state(app).cost_matrix, [[0, 1], [4, 0]])
    assert not app.error


def test_bad_session_upload_keeps_configuration(app):
    before = _state(app).cost_matrix.copy()
    app.file_uploader(key="w_session_upload").set_value(("s.json", b"{not json", "application/json"))
    _run(app)
    assert "Session file not loaded" in _errors(app)
    np.testing.assert_array_equal(_state(app).cost_matrix, before)
    bad = cf.preset_config("xor").to_dict()
    bad["cost_matrix"] = [[0, -1], [1, 0]]
    app.file_uploader(key="w_session_upload").set_value(
        ("s.json", json.dumps(bad).encode(), "application/json")
    )
    _run(app)
    assert "costs must be >= 0" in _errors(app)
    assert _state(app).preset == cf.DEFAULT_PRESET


def test_session_upload_restores_configuration(app):
    cfg = cf.preset_config("xor", {"n_estimators": 25, "max_depth": 1, "n_thresholds": 50})
    app.file_uploader(key="w_session_upload").set_value(
        ("s.json", cf.session_json(cfg).encode(), "application/json")
    )
    _run(app)
    assert _state(app).dataset.classes == ("defect", "ok")
    assert _state(app).trained.rebel.n_estimators_ == 25
    assert app.slider(key="w_n_estimators").value == 25


def test_url_query_string_configuration():
    cfg = cf.preset_config("fig7", {"n_estimators": 20, "max_depth": 1, "n_thresholds": 64})
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[cf.QUERY_KEY] = cf.encode_query(cfg)
    _run(at)
    assert _state(at).dataset.classes == ("A", "B", "C", "D")
    assert _state(at).trained.rebel.n_estimators_ == 20
    np.testing.assert_array_equal(_state(at).cost_matrix, cfg.cost_matrix)
    assert not at.error


def test_a_link_restores_the_whole_view():
    """Every view setting changed from its default: round t, all overlays, the Details tab, presentation mode
    (with the configuration); each comes back, and the page writes the same view into its own address."""
    cfg = cf.preset_config("fig7", {"n_estimators": 20, "max_depth": 1, "n_thresholds": 64})
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[cf.QUERY_KEY] = cf.encode_query(cfg)
    view = {"t": "7", "show": "bayes,two,dis,weights", "details": "Cost curves", "present": "1"}
    for key, value in view.items():
        at.query_params[key] = value
    _run(at)
    assert _state(at).trained.rebel.n_estimators_ == 20
    chart = _regions_chart(at)
    assert chart["layout"]["sliders"][0]["active"] == 7  # the replay opens at the link's round
    assert "<b>t = 7</b> of 20" in _numbers_line(at)
    for key in ("w_show_bayes", "w_show_two", "w_show_dis", "w_show_w", "w_present"):
        assert at.toggle(key=key).value is True, key
    assert at.session_state["w_details"] == "Cost curves"
    assert chart["layout"]["font"]["size"] > 14  # presentation mode is on
    names = {tr.get("name") for tr in chart["data"]}
    assert {"Bayes-optimal boundaries", "two-step boundaries", "REBEL ≠ two-step"} <= names
    for key, value in view.items():
        assert at.query_params[key] == [value] or at.query_params[key] == value, (key, at.query_params[key])
    assert not at.warning and not at.error


def test_a_link_with_a_bad_view_opens_with_a_note():
    cfg = cf.preset_config("fig7", {"n_estimators": 20, "max_depth": 1, "n_thresholds": 64})
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[cf.QUERY_KEY] = cf.encode_query(cfg)
    at.query_params["t"] = "soon"
    at.query_params["show"] = "bayes,sparkles"
    _run(at)
    text = " ".join(w.value for w in at.warning)
    assert "soon" in text and "sparkles" in text
    assert _regions_chart(at)["layout"]["sliders"][0]["active"] == 20 and at.toggle(key="w_show_bayes").value


def test_damaged_url_falls_back_to_default():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[cf.QUERY_KEY] = "not-a-configuration"
    _run(at)
    assert "link's configuration could not be used" in _errors(at)
    assert _state(at).preset == cf.DEFAULT_PRESET


def test_mixture_edit_adds_a_class(app):
    app.session_state["w_details"] = "Clusters"  # the clusters table is one of the detail views
    _run(app)
    v = app.session_state["mixture_editor_v"]
    row = {
        "class": "knife",
        "mean_x": -3.0,
        "mean_y": -3.0,
        "std_x": 0.5,
        "std_y": 0.5,
        "corr": 0.0,
        "angle": 0.0,
        "weight": 0.1,
    }
    app.session_state[f"w_mixture_{v}"] = {"edited_rows": {}, "added_rows": [row], "deleted_rows": []}
    _run(app)
    assert "knife" in _state(app).dataset.classes
    C = _state(app).cost_matrix
    assert C.shape == (4, 4) and C[3, 0] == 20.0  # weapon's row kept by name, the new class got 0-1 costs


def test_fn_costs_reduce_misses_of_that_class(app):
    app.selectbox(key="w_preset").set_value("fig7")
    _run(app)
    _apply_cost(app, "uniform")
    uniform_misses = _misses(app, "C")
    _apply_cost(app, "fn", c="C", m=10.0)
    np.testing.assert_array_equal(_state(app).trained.rebel.cost_matrix_[2], [10, 10, 0, 10])
    fn_misses = _misses(app, "C")
    assert fn_misses < 0.5 * uniform_misses, (uniform_misses, fn_misses)


def test_edits_survive_a_visit_to_another_page(app):
    others = sorted(p for p in (Path(APP).parent / "pages").glob("*.py") if not p.name.startswith("1_"))
    if not others:
        pytest.skip("no other page is registered yet")
    _edit_cost(app, 1, "weapon", 7.0)
    # Another page drops the Playground's widget keys and the editors' edit state; plain keys stay.
    app.switch_page(str(others[0].relative_to(Path(APP).parent))).run(timeout=TIMEOUT)
    app.switch_page("pages/1_Playground.py")
    _run(app)
    assert _state(app).cost_matrix[1, 2] == 7.0
    assert _state(app).trained.rebel.cost_matrix_[1, 2] == 7.0
    assert app.slider(key="w_n_estimators").value == cf.DEFAULT_HYPER["n_estimators"]


# ------------------------------------------------------------------------------------- Playground v2 behaviour
@pytest.mark.parametrize(
    ("typed", "reason"),
    [("-5", "is negative"), ("abc", "is not a number"), ("1e12", "at most 1,000,000"), ("", "is empty")],
)
def test_a_refused_cost_says_why_and_the_old_value_stays(app, typed, reason):
    v = _edit_cost(app, 2, "harmless", typed)
    assert reason in _errors(app) and "It stays 20" in _errors(app)
    assert _state(app).cost_matrix[2, 0] == 20.0
    assert _state(app).trained.rebel.cost_matrix_[2, 0] == 20.0
    assert app.session_state["w_costs_v"] > v  # the editor was redrawn from the stored values


def test_scientific_notation_is_stored_as_typed(app):
    _edit_cost(app, 2, "harmless", "1e3")
    assert not app.error
    assert _state(app).cost_matrix[2, 0] == 1000.0 and _state(app).trained.rebel.cost_matrix_[2, 0] == 1000.0


def _log_entry(at: AppTest):
    """The log control's "Entry, truth → prediction" box."""
    return next(s for s in at.selectbox if s.label == "Entry, truth → prediction")


def test_log_scale_control_sets_the_selected_entry(app):
    _log_entry(app).set_value((2, 0))
    _run(app)
    slider = next(s for s in app.select_slider if s.key.startswith("w_log_value_2_0_"))
    slider.set_value(200.0)
    _run(app)
    assert _state(app).cost_matrix[2, 0] == 200.0
    assert _state(app).trained.rebel.cost_matrix_[2, 0] == 200.0


def test_log_entry_box_names_the_entry_it_edits_after_a_preset_change(app):
    """airport's "harmless → liquid" picked, then fig7: the browser keeps a widget's own value while its id
    stays, so the box must be a new widget (new id) showing its default, the entry that the slider edits."""
    _log_entry(app).set_value((0, 1))
    _run(app)
    old = _log_entry(app)
    assert old.options[old.index] == "harmless → liquid"
    app.selectbox(key="w_preset").set_value("fig7")
    _run(app)
    box = _log_entry(app)
    assert box.id != old.id  # not the widget that shows "harmless → liquid" in the browser
    shown = box.options[box.proto.default]
    i, j = box.value
    assert shown == f"{'ABCD'[i]} → {'ABCD'[j]}"
    slider = next(s for s in app.select_slider if s.key.startswith(f"w_log_value_{i}_{j}_"))
    slider.set_value(200.0)
    _run(app)
    assert _state(app).cost_matrix[i, j] == 200.0


def test_too_many_points_are_refused_with_a_message_and_the_field_reverts(app):
    app.number_input(key="w_n_points").set_value(99_999_999)
    _run(app)
    assert "99999999" in _errors(app) and "20 to 20000" in _errors(app)
    assert app.number_input(key="w_n_points").value == 1500
    assert _state(app).spec.n_points == 1500


def test_costs_survive_a_csv_detour(app):
    """Airport preset, an edited cost, upload sample_data/xor.csv, back to the designed mixture: the airport
    costs (with the edit) come back, remembered by class names."""
    _edit_cost(app, 2, "liquid", "30")
    before = _state(app).cost_matrix.copy()
    csv = (Path(APP).parent / "sample_data" / "xor.csv").read_bytes()
    app.file_uploader(key="w_csv_upload").set_value(("xor.csv", csv, "text/csv"))
    _run(app)
    assert _state(app).data_source == "csv" and _state(app).cost_matrix.shape == (2, 2)
    app.button(key="w_back_to_mixture").click()
    _run(app)
    assert _state(app).data_source == "mixture"
    np.testing.assert_array_equal(_state(app).cost_matrix, before)
    assert _state(app).trained.rebel.cost_matrix_[2, 1] == 30.0


def test_banner_says_when_costs_differ_from_the_preset_story(app):
    assert not app.warning
    _apply_cost(app, "uniform")
    assert "differ from this preset's suggested ones" in " ".join(w.value for w in app.warning)
    _apply_cost(app, "suggested")
    assert not app.warning


def test_fast_dice_clicks_each_draw_a_new_seed(app):
    """Eight fast clicks on the dice: each rerun request carries the browser's seed field as it was before the
    first click (the server's answers have not arrived yet); every click still moves the seed on."""
    seed = _state(app).spec.seed or 0
    app.button(key="w_redraw").click()
    stale = app._tree.get_widget_states()  # the seed field still shows `seed`, the dice's trigger is set
    for _ in range(8):
        app._run(stale, timeout=TIMEOUT)
        assert not app.exception, [e.message for e in app.exception]
    assert app.session_state["w_seed"] == seed + 8 and _state(app).spec.seed == seed + 8
    app.number_input(key="w_seed").set_value(3)  # a typed seed is kept, and the next click starts from it
    _run(app)
    app.button(key="w_redraw").click()
    _run(app)
    assert _state(app).spec.seed == 4


def test_diagonal_warning_names_the_class(app):
    _edit_cost(app, 1, "liquid", "0.5")
    warned = re.sub(r"\\(.)", r"\1", " ".join(w.value for w in app.warning))
    assert "predicting class 'liquid' when the truth is 'liquid' costs 0.5" in warned, warned


def test_verdict_and_lesson_on_the_first_screen(app):
    text = " ".join(m.value for m in app.markdown)
    assert "The two-step method is cheaper here" in text and "Ignoring the costs" in text
    assert "the two-step method is cheaper here" in " ".join(i.value for i in app.info)


def test_costs_survive_a_preset_detour(app):
    _edit_cost(app, 2, "liquid", "7")
    edited = _state(app).cost_matrix.copy()
    app.selectbox(key="w_preset").set_value("fig7")
    _run(app)
    np.testing.assert_array_equal(_state(app).cost_matrix, PRESETS["fig7"].cost_matrix)
    app.selectbox(key="w_preset").set_value("airport")
    _run(app)
    np.testing.assert_array_equal(_state(app).cost_matrix, edited)
    assert "earlier costs for these classes are back" in " ".join(i.value for i in app.info)
    assert "differ from this preset's suggested ones" in " ".join(w.value for w in app.warning)


def test_lecture_downloads_and_presentation_mode(app):
    app.session_state["w_details"] = "Lecture"
    _run(app)
    buttons = app.get("download_button")
    labels = [b.label for b in buttons]
    # one download button per file (drawn on the click), never a separate "make" button
    assert labels.count("Regions at t (PNG)") == 1 and labels.count("Replay (GIF)") == 1
    # and no click reruns the page (its rerun would revoke a file built on the click before the browser asks)
    assert len(buttons) >= 5 and all(b.proto.ignore_rerun for b in buttons), [
        (b.label, b.proto) for b in buttons
    ]
    assert not [b for b in app.button if "GIF" in b.label or "PNG" in b.label]
    app.radio(key="w_slide_size").set_value("square (1080x1080)")
    _run(app)
    labels = [b.label for b in app.get("download_button")]
    assert labels.count("Regions at t (PNG)") == 1 and labels.count("Replay (GIF)") == 1
    before = _regions_chart(app)["layout"]
    app.toggle(key="w_present").set_value(True)
    _run(app)
    layout = _regions_chart(app)["layout"]
    assert "width" not in layout and "height" not in layout  # the plot still fills its box (the viewport)
    assert layout["font"]["size"] > 14
    # the projector layout: the regions take the plot's full height, only two numbers lines stay above them
    assert layout["yaxis"]["domain"] == [0, 1] and layout["margin"]["t"] < before["margin"]["t"]
    assert layout["xaxis3"]["domain"][0] > layout["xaxis"]["domain"][1]  # the cost strip beside the regions
    assert (
        layout["sliders"][0]["currentvalue"]["font"]["size"]
        > before["sliders"][0]["currentvalue"]["font"]["size"]
    )


def test_a_first_visit_opens_how_to_read_and_draws_no_chart_below_the_first_screen(app):
    """The Details tab a session opens with is text (``DEFAULT_DETAIL_VIEW``): the before/after chart is drawn
    once it is chosen, and a link leaves the default tab out."""
    from rebel.ui.playground.link import DEFAULT_DETAIL_VIEW, encode_view

    assert DEFAULT_DETAIL_VIEW == "How to read" and app.session_state["w_details"] == DEFAULT_DETAIL_VIEW
    assert any("**Costs** (right)" in m.value for m in app.markdown)
    charts = len(app.get("plotly_chart"))
    app.session_state["w_details"] = "Before / after"
    _run(app)
    assert len(app.get("plotly_chart")) == charts + 1
    assert "details" not in encode_view(None, (), DEFAULT_DETAIL_VIEW, False)
    assert encode_view(None, (), "Before / after", False)["details"] == "Before / after"


def test_a_cost_edit_sends_the_new_regions_before_the_cost_editor(app, monkeypatch):
    """The server trains and sends the regions' chart first, then the cost editor and the message tray: the
    browser has nothing else to draw while the model trains, and draws the new picture first. The edit itself
    (a cell, the log control) is stored by its widget's callback before the run, so the chart has the new costs."""
    from streamlit.runtime.scriptrunner_utils import script_run_context as src

    sent = []
    enqueue = src.ScriptRunContext.enqueue

    def record(self, msg):
        if msg.HasField("delta") and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            kind = element.WhichOneof("type")
            sent.append((kind, element.plotly_chart.spec if kind == "plotly_chart" else None))
        return enqueue(self, msg)

    monkeypatch.setattr(src.ScriptRunContext, "enqueue", record)
    _log_entry(app).set_value((2, 0))
    _run(app)
    sent.clear()
    slider = next(s for s in app.select_slider if s.key.startswith("w_log_value_2_0_"))
    slider.set_value(200.0)
    _run(app)
    regions = next(i for i, (kind, spec) in enumerate(sent) if kind == "plotly_chart" and '"frames"' in spec)
    first_cost_widget = next(i for i, (kind, _) in enumerate(sent) if kind in ("text_input", "select_slider"))
    assert regions < first_cost_widget, sent[: first_cost_widget + 1]
    assert _state(app).trained.rebel.cost_matrix_[2, 0] == 200.0
