"""The calibrated two-step on the Playground: its "Calibrated two-step" switch, and the calibration lesson scene,
put the calibrated two-step's test cost in the message tray, the same number the scene's check decides on."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import lessons as ls
from rebel.ui.playground import calibrated
from rebel.ui.state import STATE_KEY

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def _tray(at: AppTest) -> str:
    return " ".join(s.value for s in at.success).replace("\\", "")


def test_the_switch_shows_the_calibrated_two_steps_cost():
    at = AppTest.from_file(APP, default_timeout=240)
    at.switch_page("pages/1_Playground.py")
    at.run()
    assert "Calibrated two-step" not in _tray(at)
    at.toggle(key="w_show_cal").set_value(True)
    at.run()
    assert not at.exception
    pair = at.session_state[STATE_KEY].trained
    shown = _tray(at)
    assert "Calibrated two-step" in shown and "test cost" in shown
    n = calibrated.costs(pair)
    assert f"{n['two-step, calibrated posterior']:.3f}" in shown


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
