"""A new session's first run of the Playground (``widgets.start_plot_first``): with a browser behind the session,
the regions plot goes alone, with a hidden button after the main area; the browser's press of it (once the plot
is drawn) brings the whole page (cost editor, message tray, details, sidebar) with the same chart, not a new one.
With no browser behind it (this harness, by default), nothing would press it, so the first run draws everything.

The browser's side (the press comes once the plot is drawn, and the page is then whole) is
``tests/e2e/test_plot_first_browser.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import viewport
from rebel.ui.playground import widgets as side

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 60


def _run(at: AppTest) -> AppTest:
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _regions_spec(at: AppTest) -> str:
    specs = [el.proto.spec for el in at.get("plotly_chart") if json.loads(el.proto.spec).get("frames")]
    assert len(specs) == 1, f"{len(specs)} regions charts on the page"
    return specs[0]


def _cost_cells(at: AppTest) -> list:
    return [w for w in at.text_input if (w.key or "").startswith(f"{side.COSTS}_")]


def _sidebar_presets(at: AppTest) -> list:
    return [w for w in at.sidebar.selectbox if w.key == "w_preset"]


def _report_boxes(at: AppTest) -> list:
    return [w for w in at.text_input if w.key == viewport.INPUT]


def _rest_buttons(at: AppTest) -> list:
    return [w for w in at.button if w.key == viewport.REST]


@pytest.fixture
def browser_behind(monkeypatch):
    monkeypatch.setattr(viewport, "browser_behind", lambda: True)


def test_with_a_browser_the_first_run_sends_the_plot_alone_then_its_press_brings_the_whole_page(
    browser_behind,
):
    at = _run(AppTest.from_file(APP, default_timeout=TIMEOUT))
    spec = _regions_spec(at)
    assert _cost_cells(at) == []  # the cost editor waits
    assert _sidebar_presets(at) == []  # so does the sidebar
    assert at.text_input.len == 0  # no text box at all (not even the size's)
    assert len(_rest_buttons(at)) == 1
    assert at.session_state[side.PLOT_FIRST] == side.PLOT_FIRST_WAITING

    _rest_buttons(at)[0].click()  # what the browser does once the plot is drawn
    _run(at)
    assert len(_cost_cells(at)) == 9  # airport: 3 x 3
    assert len(_sidebar_presets(at)) == 1
    assert len(_report_boxes(at)) == 1
    assert _rest_buttons(at) == []
    assert side.PLOT_FIRST not in at.session_state
    assert _regions_spec(at) == spec  # the same chart: the browser keeps the one it drew

    _run(at)  # and every later run draws everything
    assert len(_cost_cells(at)) == 9 and len(_sidebar_presets(at)) == 1


def test_with_no_browser_behind_the_session_the_first_run_draws_everything():
    at = _run(AppTest.from_file(APP, default_timeout=TIMEOUT))
    assert len(_cost_cells(at)) == 9
    assert len(_sidebar_presets(at)) == 1
    assert len(_report_boxes(at)) == 1
    assert _rest_buttons(at) == []
    assert side.PLOT_FIRST not in at.session_state


def test_with_a_browser_a_first_run_without_a_model_draws_everything(browser_behind, monkeypatch):
    """Training failed (no plot to wait for): nothing would press the button, so nothing waits."""
    from rebel.ui.playground import compute

    def fail(*args, **kwargs):
        raise ValueError("no model here")

    monkeypatch.setattr(compute, "train_pair", fail)
    at = _run(AppTest.from_file(APP, default_timeout=TIMEOUT))
    assert "no model here" in " ".join(e.value for e in at.error)
    assert _rest_buttons(at) == []
    assert len(_cost_cells(at)) == 9
    assert len(_sidebar_presets(at)) == 1
    assert side.PLOT_FIRST not in at.session_state
