"""The calibrated two-step on the Playground: its "Calibrated two-step" switch, and the calibration lesson scene,
put the calibrated two-step's test cost in the numbers line over the regions (every round's) and in the message
tray, the same number the scene's check decides on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import lessons as ls
from rebel.ui.playground import calibrated
from rebel.ui.state import STATE_KEY

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def _tray(at: AppTest) -> str:
    return " ".join(s.value for s in at.success).replace("\\", "")


def _numbers_lines(at: AppTest) -> list:
    """The regions chart's numbers line of every round (its frames' and the one shown)."""
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "regions_" in c.proto.id)
    shown = [tr["text"][0] for tr in spec["data"] if tr.get("name") == "numbers"]
    index = next(i for i, tr in enumerate(spec["data"]) if tr.get("name") == "numbers")
    frames = [d["text"][0] for f in spec["frames"] for i, d in zip(f["traces"], f["data"]) if i == index]
    return shown + frames


def test_the_switch_shows_the_calibrated_two_steps_cost():
    at = AppTest.from_file(APP, default_timeout=240)
    at.switch_page("pages/1_Playground.py")
    at.run()
    assert "Calibrated two-step" not in _tray(at)
    assert not any("calibrated" in text for text in _numbers_lines(at))
    at.toggle(key="w_show_cal").set_value(True)
    at.run()
    assert not at.exception
    pair = at.session_state[STATE_KEY].trained
    shown = _tray(at)
    assert "Calibrated two-step" in shown and "test cost" in shown
    n = calibrated.costs(pair)
    assert f"{n['two-step, calibrated posterior']:.3f}" in shown
    lines = _numbers_lines(at)
    assert len(lines) > pair.n_rounds
    cal = f"calibrated two-step: <b>{n['two-step, calibrated posterior']:.3f}</b> at t = {pair.n_rounds}"
    assert all(cal in text for text in lines)


@pytest.mark.parametrize("i", [i for i, s in enumerate(ls.SCENES) if s.shows_calibrated])
def test_the_calibration_scene_shows_its_number_on_the_playground(i):
    at = AppTest.from_file(APP, default_timeout=240)
    at.switch_page("pages/1_Playground.py")
    at.query_params["scene"] = str(i + 1)
    at.run()
    assert not at.exception
    scene = ls.SCENES[i]
    numbers = scene.evidence().numbers
    value = next(v for k, v in numbers.items() if "calibrated posterior" in k)
    assert f"{value:.3f}" in _tray(at)
    assert all(f"calibrated two-step: <b>{value:.3f}</b>" in text for text in _numbers_lines(at))
