"""Exercise links (``rebel.ui.playground.exercise``): ``?hide=`` names groups of controls a lecturer hides; unknown
names are named in a message; the hidden set stays with the session and in the address."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from rebel.ui.playground import exercise

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def test_parse_keeps_known_groups_and_names_the_rest():
    groups, problems = exercise.parse(" Training, data,,nonsense ")
    assert groups == ("data", "training")
    assert len(problems) == 1 and "hide='nonsense' is not a group of controls" in problems[0]
    assert exercise.encode(groups) == "data,training" and exercise.encode(()) is None
    assert exercise.parse(None) == ((), [])


def test_an_exercise_link_hides_its_groups_and_keeps_them_in_the_address():
    at = AppTest.from_file(APP, default_timeout=240)
    at.switch_page("pages/1_Playground.py")
    at.query_params["hide"] = "data,training,files,view,details,sparkles"
    at.run()
    assert not at.exception
    assert at.session_state[exercise.KEY] == ("data", "details", "files", "training", "view")
    warned = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "hide='sparkles' is not a group of controls" in warned
    assert at.query_params["hide"] in (
        "data,details,files,training,view",
        ["data,details,files,training,view"],
    )
    styles = " ".join(h.proto.body for h in at.get("html"))
    for group in ("data", "training", "files", "view", "details"):
        assert f"div.st-key-{exercise.box(group)}" in styles
    assert any("This exercise hides" in c.value for c in at.sidebar.caption)
    # the cost matrix stays the student's: an edit retrains
    before = at.session_state["_exercise_hidden"]
    at.run()
    assert at.session_state[exercise.KEY] == before


def test_without_the_parameter_nothing_is_hidden():
    at = AppTest.from_file(APP, default_timeout=240)
    at.switch_page("pages/1_Playground.py")
    at.run()
    assert not at.exception
    assert at.session_state[exercise.KEY] == ()
    assert "hide" not in at.query_params
    assert not any("pg_hide_" in h.proto.body for h in at.get("html"))


def test_each_group_has_the_style_that_hides_its_box():
    for group in exercise.GROUPS:
        css = getattr(exercise, f"HIDE_{group.upper()}")
        assert f"div.st-key-{exercise.box(group)} {{display: none !important;}}" in css
