"""Short links (``rebel.ui.short_link``): a lesson scene as ``?scene=N``, a preset plus the fields that differ from
it, old ``?cfg=`` links still loading, and bad parameters named with their fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import config as cf
from rebel.ui import lessons as ls
from rebel.ui import short_link as sl

FAST = {"n_estimators": 5, "max_depth": 1, "n_thresholds": 16}


@pytest.mark.parametrize("i", range(len(ls.SCENES)))
def test_a_scene_is_its_number(i):
    params = sl.link_params(ls.SCENES[i].config, lesson=True)
    assert params == {"scene": str(i + 1)}
    assert "scene" not in sl.link_params(ls.SCENES[i].config)  # the same settings outside a lesson
    cfg, scene = sl.config_from_params(params)
    assert scene == i and cfg.key() == ls.SCENES[i].config.key()


def test_a_preset_with_one_cost_edited_is_a_short_link_that_loads_the_same_configuration():
    cfg = cf.preset_config("airport")
    assert sl.link_params(cfg) == {"p": cfg.preset}
    C = cfg.cost_matrix.copy()
    C[-1, 0] = 35.0
    edited = cf.Config(cfg.spec, C, {**cfg.hyper, "max_depth": 3}, cfg.preset, "vector")
    params = sl.link_params(edited)
    assert set(params) == {"p", "d"}
    full = cf.encode_query(edited)
    print(
        f"\nshort link {sum(len(k) + len(v) + 2 for k, v in params.items())} characters, full {len(full) + 4}"
    )
    assert len(params["d"]) < len(full) / 3
    back, scene = sl.config_from_params(params)
    assert scene is None and back.key() == edited.key()
    np.testing.assert_array_equal(back.cost_matrix, C)


def test_old_full_links_still_load_and_a_custom_mixture_keeps_one():
    cfg = cf.preset_config("fig7", FAST)
    assert sl.config_from_params({"cfg": cf.encode_query(cfg)})[0].key() == cfg.key()
    custom = cf.Config(cfg.spec, cfg.cost_matrix, cfg.hyper, "", cfg.engine)
    assert set(sl.link_params(custom)) == {"cfg"}
    assert sl.config_from_params({}) is None


@pytest.mark.parametrize(
    "params, named",
    [
        ({"scene": "0"}, "scene='0'"),
        ({"scene": "99"}, "scene='99'"),
        ({"scene": "two"}, "scene='two'"),
        ({"p": "nowhere"}, "p='nowhere'"),
        ({"p": "airport", "d": "%%%"}, "'d' parameter is damaged"),
        (
            {"p": "airport", "d": cf.pack_query({"format": "x"})},
            "'d' parameter is damaged",
        ),  # a field it may not set
        ({"p": "airport", "d": cf.pack_query({"cost_matrix": [[0, -1], [1, 0]]})}, "cost"),
    ],
)
def test_a_bad_parameter_is_named_with_its_fix(params, named):
    with pytest.raises(ValueError, match=None) as info:
        sl.config_from_params(params)
    assert named in str(info.value), str(info.value)


def _playground() -> AppTest:
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=240)
    at.switch_page("pages/1_Playground.py")
    return at


def test_a_scene_link_opens_the_scene_with_its_lesson_bar():
    at = _playground()
    at.query_params["scene"] = "3"
    at.run()
    assert not at.exception
    assert at.session_state[ls.SCENE_KEY] == 2
    assert "Lesson, scene 3 of" in " ".join(m.value for m in at.markdown)
    assert "What to notice" in " ".join(m.value for m in at.info)  # its notice and question lead the tray
    assert at.query_params["scene"] in ("3", ["3"])
    assert "cfg" not in at.query_params


def test_a_bad_scene_link_says_so_and_shows_the_default_preset():
    at = _playground()
    at.query_params["scene"] = "42"
    at.run()
    assert not at.exception
    shown = " ".join(e.value for e in at.error).replace("\\", "")  # (shown as plain text: escaped)
    assert "scene='42' is not a scene number" in shown and "Showing the default preset" in shown


def test_an_open_scene_shows_its_checked_numbers_in_the_tray():
    at = _playground()
    at.query_params["scene"] = "1"
    at.run()
    assert not at.exception
    tests = ls.SCENES[0].evidence().tests
    shown = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "Checked on this draw" in shown and tests and all(t in shown for t in tests), (tests, shown)


def test_a_diff_with_a_hostile_class_name_is_refused_at_the_name_door():
    spec = cf.preset_config("airport").to_dict()["spec"]
    for row in spec["mixture"]:
        if row["class"] == "weapon":
            row["class"] = "wea\x1b[2Jpon"
    with pytest.raises(ValueError, match="control"):
        sl.config_from_params({"p": "airport", "d": cf.pack_query({"spec": spec})})
