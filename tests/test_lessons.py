"""The lesson path (rebel.ui.lessons, pages/0_Lessons.py): every scene's "what to notice" claim holds for the
numbers the Playground computes for its configuration, and one click restores that configuration exactly."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import config as cf
from rebel.ui import lessons as ls
from rebel.ui.state import STATE_KEY, ModelCache

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PLAYGROUND = "pages/1_Playground.py"
TIMEOUT = 120  # the first run compiles (or loads) the numba kernels
CACHE = ModelCache({"model": 32, "pair": 1})  # shared by the claim checks (scenes refit the same models)


def _fit(cfg: cf.Config):
    return ls.fit_scene(cfg, cache=CACHE)


def test_the_path_has_five_to_seven_scenes_each_complete():
    assert 5 <= len(ls.SCENES) <= 7
    assert len({s.config.key() for s in ls.SCENES}) == len(ls.SCENES)  # each scene shows something else
    for scene in ls.SCENES:
        sentences = re.split(r"(?<=[.!?])\s+", scene.notice.strip())
        assert len(sentences) == 2, scene.notice
        assert scene.question.rstrip().endswith("?"), scene.question
        assert scene.claim and scene.title
        # the scene survives a shared link: it is a full, valid Playground configuration
        assert cf.decode_query(cf.encode_query(scene.config)).key() == scene.config.key()


@pytest.mark.parametrize("i", range(len(ls.SCENES)), ids=[s.title for s in ls.SCENES])
def test_what_to_notice_holds_for_the_numbers_the_playground_computes(i):
    scene = ls.SCENES[i]
    evidence = scene.evidence(_fit)
    print(f"\nscene {i + 1} {scene.title}: {scene.claim} -> {evidence.numbers}")
    assert evidence.holds, (scene.claim, evidence.numbers)


def test_a_claim_can_fail():
    """The checks decide on the numbers: the same check on a scene where it is false says so."""
    rebel_wins = next(s for s in ls.SCENES if s.title == "REBEL wins")
    two_step_wins = next(s for s in ls.SCENES if s.title == "The two-step method wins")
    assert not rebel_wins.check(two_step_wins.config, _fit).holds
    assert not two_step_wins.check(rebel_wins.config, _fit).holds


def test_the_calibration_scene_uses_the_playground_posterior_and_can_fail():
    """The calibration scene's "as trained" cost is the Playground's own two-step cost (same posterior model);
    on scene 1's settings (depth 2, 100 rounds) the posterior is not overconfident enough and the claim fails."""
    calibration = next(s for s in ls.SCENES if s.title == "Calibration")
    pair = _fit(calibration.config)
    numbers = ls.calibrated_two_step(pair)
    assert numbers["two-step, posterior as trained"] == pytest.approx(
        pair.metrics(pair.n_rounds, "two-step").cost
    )
    assert not calibration.check(ls.SCENES[0].config, _fit).holds


def test_the_numbers_button_shows_a_scenes_checked_values():
    i = next(k for k, s in enumerate(ls.SCENES) if s.title == "Calibration")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/0_Lessons.py")
    _run(at)
    assert f"{len(ls.SCENES)} scenes, in order" in " ".join(c.value for c in at.caption)
    at.button(key=f"w_lesson_numbers_{i}").click()
    _run(at)
    (table,) = at.dataframe
    shown = dict(zip(table.value["quantity"], table.value["value"]))
    expected = ls.SCENES[i].evidence(_fit).numbers
    assert shown.keys() == expected.keys()
    assert all(shown[k] == pytest.approx(v) for k, v in expected.items())
    assert any("Holds for these numbers: True" in c.value for c in at.caption)


def test_the_scene_data_does_not_import_streamlit():
    tree = ast.parse(Path(ls.__file__).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m.split(".")[0] == "streamlit" for m in imported), imported


def test_next_scene_walks_the_path_in_order():
    assert [ls.next_scene(i) for i in (None, 0, len(ls.SCENES) - 1)] == [0, 1, 0]


def _run(at: AppTest) -> AppTest:
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _shown(at: AppTest) -> cf.Config:
    cfg = ls.state_config(at.session_state[STATE_KEY])
    assert cfg is not None
    return cfg


def _regions_drawn(at: AppTest) -> bool:
    return any("minimum-risk class" in el.proto.spec for el in at.get("plotly_chart"))


@pytest.mark.parametrize("i", range(len(ls.SCENES)), ids=[s.title for s in ls.SCENES])
def test_one_click_opens_the_scene_in_the_playground(i):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/0_Lessons.py")
    _run(at)
    at.button(key=f"w_lesson_{i}").click()
    _run(at)
    scene = ls.SCENES[i]
    assert _shown(at).to_dict() == scene.config.to_dict()  # preset, spec, costs, hyper-parameters, engine
    assert at.query_params["scene"] == str(i + 1)  # the link too: the scene's short link
    assert _regions_drawn(at)
    # the Playground's widgets show the scene's settings
    for name, value in scene.config.hyper.items():
        assert at.session_state[f"w_{name}"] == value
    assert at.session_state["w_engine"] == scene.config.engine


def test_next_scene_on_the_playground_opens_the_following_scene():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/0_Lessons.py")
    _run(at)
    at.button(key="w_lesson_3").click()
    _run(at)
    at.switch_page(PLAYGROUND)  # AppTest reruns the page it was told, not the one st.switch_page went to
    _run(at)
    assert _shown(at).key() == ls.SCENES[3].config.key()
    at.button(key="w_lesson_next").click()
    _run(at)
    assert _shown(at).key() == ls.SCENES[4].config.key()
    assert at.session_state["w_max_depth"] == 1 and _regions_drawn(at)
    # after an edit the Playground no longer shows the scene: the bar goes away
    at.slider(key="w_max_depth").set_value(2)
    _run(at)
    assert _shown(at).hyper["max_depth"] == 2
    assert "w_lesson_next" not in [b.key for b in at.button]


def test_the_last_scene_leads_back_to_the_first_and_the_page_marks_the_shown_scene():
    last = len(ls.SCENES) - 1
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/0_Lessons.py")
    _run(at)
    at.button(key=f"w_lesson_{last}").click()
    _run(at)
    at.switch_page(PLAYGROUND)
    _run(at)
    assert at.button(key="w_lesson_next").label == "Back to scene 1"
    at.switch_page("pages/0_Lessons.py")
    _run(at)
    marks = [c.value for c in at.caption if c.value == "The Playground shows this scene now."]
    assert len(marks) == 1
    at.switch_page(PLAYGROUND)
    _run(at)
    at.button(key="w_lesson_next").click()
    _run(at)
    assert _shown(at).to_dict() == ls.SCENES[0].config.to_dict()
