"""The lesson path (rebel.ui.lessons, pages/0_Lessons.py): every scene's "what to notice" claim holds for the
numbers the Playground computes for its configuration, and on redraws of its data as often as its text says; one
click restores that configuration exactly, and the Playground's lesson bar leads on (or back) from there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import config as cf
from rebel.ui import lessons as ls
from rebel.ui.state import STATE_KEY, ModelCache
from rebel.ui.text import visible

APP = str(Path(__file__).resolve().parent.parent / "app.py")
LESSONS = "pages/0_Lessons.py"
PLAYGROUND = "pages/1_Playground.py"
TIMEOUT = 120  # the first run compiles (or loads) the numba kernels
CACHE = ModelCache(
    {"model": 160, "pair": 1}
)  # shared by the claim checks: scenes and redraws refit the same models


def _fit(cfg: cf.Config):
    return ls.fit_scene(cfg, cache=CACHE)


def test_the_path_has_five_to_eight_scenes_each_complete():
    assert 5 <= len(ls.SCENES) <= 8
    assert len({s.config.key() for s in ls.SCENES}) == len(ls.SCENES)  # each scene shows something else
    for scene in ls.SCENES:
        sentences = re.split(r"(?<=[.!?])\s+", scene.notice.strip())
        assert len(sentences) == 2, scene.notice
        assert scene.question.rstrip().endswith("?"), scene.question
        assert scene.claim and scene.title
        # the scene survives a shared link: it is a full, valid Playground configuration
        assert cf.decode_query(cf.encode_query(scene.config)).key() == scene.config.key()
        low, high = scene.band
        assert 0 <= low <= high <= ls.REDRAWS
        # the redraws are new draws, never the scene's own
        assert not ls.REDRAW_SEED <= scene.config.spec.seed < ls.REDRAW_SEED + ls.REDRAWS
        # a claim that may fail on more than 2 redraws in 10 says how often it holds
        assert low >= 8 or re.search(r"\bdraws?\b", scene.notice), (scene.title, scene.band)


@pytest.mark.parametrize("i", range(len(ls.SCENES)), ids=[s.title for s in ls.SCENES])
def test_what_to_notice_holds_for_the_numbers_the_playground_computes(i):
    scene = ls.SCENES[i]
    evidence = scene.evidence(_fit)
    print(f"\nscene {i + 1} {scene.title}: {scene.claim} -> {evidence.tests}")
    assert evidence.holds, (scene.claim, evidence.tests)


@pytest.mark.parametrize("i", range(len(ls.SCENES)), ids=[s.title for s in ls.SCENES])
def test_each_claim_holds_on_redraws_of_its_data_as_often_as_its_text_says(i):
    """Not one lucky seed: the claim is decided again on REDRAWS new draws of the scene's data (same mixture,
    costs and training settings) and must hold on as many of them as the scene's band says."""
    scene = ls.SCENES[i]
    redrawn = scene.redrawn(_fit)
    held = sum(e.holds for e in redrawn)
    low, high = scene.band
    print(
        f"\nscene {i + 1} {scene.title}: holds on {held} of {len(redrawn)} redraws (required: {low} to {high})"
    )
    for j, e in enumerate(redrawn):
        print(f"  seed {ls.REDRAW_SEED + j}: {'; '.join(e.tests)}")
    assert len(redrawn) == ls.REDRAWS >= 10
    assert low <= held <= high, [e.tests for e in redrawn if not e.holds]


def test_a_redraw_changes_the_data_and_nothing_else():
    scene = ls.SCENES[0]
    first, second = ls.redraw(scene.config, 0), ls.redraw(scene.config, 1)
    for cfg in (first, second):
        assert cfg.spec.seed != scene.config.spec.seed
        assert cfg.hyper == scene.config.hyper and cfg.engine == scene.config.engine
        assert (cfg.cost_matrix == scene.config.cost_matrix).all()
        assert (
            cfg.spec.mixture.equals(scene.config.spec.mixture)
            and cfg.spec.n_points == scene.config.spec.n_points
        )
    a, b = (cf.dataset_from_config(c) for c in (first, second))
    assert a.X_train.shape == b.X_train.shape and not (a.X_train == b.X_train).all()


def test_a_comparison_names_each_value_and_can_fail():
    numbers = {"REBEL": 0.5, "two-step": 0.25, "called": 7}
    assert ls.compare(numbers, "REBEL", "<", "two-step") == (False, "REBEL 0.500 < two-step 0.250: no")
    assert ls.compare(numbers, "REBEL", "<=", "two-step", 2) == (
        True,
        "REBEL 0.500 ≤ 2 × two-step 0.250: yes",
    )
    assert ls.compare(numbers, "called", ">=", 0.85) == (True, "called 7 ≥ 0.850: yes")


def test_a_claim_can_fail():
    """The checks decide on the numbers: the same check on a scene where it is false says so."""
    rebel_wins = next(s for s in ls.SCENES if s.title == "REBEL wins")
    two_step_wins = next(s for s in ls.SCENES if s.title == "The two-step method wins")
    assert not rebel_wins.check(two_step_wins.config, _fit).holds
    assert not two_step_wins.check(rebel_wins.config, _fit).holds


def test_the_calibration_scene_uses_the_playground_posterior_and_can_fail():
    """The calibration scene's "as trained" cost is the Playground's own two-step cost (same posterior model);
    on the stumps scene's XOR data (a sum of stumps cannot model it) temperature scaling does not lower the
    calibration error, and the claim fails."""
    calibration = next(s for s in ls.SCENES if s.title == "Calibration")
    pair = _fit(calibration.config)
    numbers = ls.calibrated_two_step(pair)
    assert numbers["two-step, posterior as trained"] == pytest.approx(
        pair.metrics(pair.n_rounds, "two-step").cost
    )
    stumps = next(s for s in ls.SCENES if s.title == "Stumps against depth")
    assert not calibration.check(stumps.config, _fit).holds


def test_the_numbers_button_lists_each_checked_value_by_name():
    i = next(k for k, s in enumerate(ls.SCENES) if s.title == "Calibration")
    at = _app_on(LESSONS)
    assert f"{len(ls.SCENES)} scenes, in order" in " ".join(c.value for c in at.caption)
    _click(at, f"w_lesson_numbers_{i}")
    expected = ls.SCENES[i].evidence(_fit)
    (table,) = at.dataframe
    assert dict(zip(table.value["quantity"], table.value["value"])) == {
        k: ls.number_text(v) for k, v in expected.numbers.items()
    }
    shown = [visible(m.value) for m in at.markdown]
    # each comparison the check made, with both values and their names, e.g. "ECE, calibrated 0.027 < ..."
    assert len(expected.tests) == 3
    for line in expected.tests:
        assert f"- {line}" in shown
    for name in ("ECE, calibrated", "ECE, as trained", "two-step, calibrated posterior", "REBEL"):
        value = ls.number_text(expected.numbers[name])
        assert any(f"{name} {value}" in m for m in shown), (name, value)
    captions = " ".join(visible(c.value) for c in at.caption)
    assert "Every comparison above holds on this draw" in captions
    assert f"redraws this scene's data {ls.REDRAWS} times" in captions
    assert "True" not in captions and not any("True" in m for m in shown)


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


def _app_on(page: str) -> AppTest:
    """A new session of the app, run on ``page``."""
    return _go(AppTest.from_file(APP, default_timeout=TIMEOUT), page)


def _go(at: AppTest, page: str) -> AppTest:
    """``at`` switched to ``page`` and run."""
    at.switch_page(page)
    return _run(at)


def _click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click()
    return _run(at)


def _slide(at: AppTest, key: str, value) -> AppTest:
    at.slider(key=key).set_value(value)
    return _run(at)


def _shown(at: AppTest) -> cf.Config:
    cfg = ls.state_config(at.session_state[STATE_KEY])
    assert cfg is not None
    return cfg


def _regions_drawn(at: AppTest) -> bool:
    return any("minimum-risk class" in el.proto.spec for el in at.get("plotly_chart"))


@pytest.mark.parametrize("i", range(len(ls.SCENES)), ids=[s.title for s in ls.SCENES])
def test_one_click_opens_the_scene_in_the_playground(i):
    at = _app_on(LESSONS)
    _click(at, f"w_lesson_{i}")
    scene = ls.SCENES[i]
    assert _shown(at).to_dict() == scene.config.to_dict()  # preset, spec, costs, hyper-parameters, engine
    assert at.query_params["scene"] == str(i + 1)  # the link too: the scene's short link
    assert _regions_drawn(at)
    # the Playground's widgets show the scene's settings
    for name, value in scene.config.hyper.items():
        assert at.session_state[f"w_{name}"] == value
    assert at.session_state["w_engine"] == scene.config.engine


def test_next_scene_on_the_playground_opens_the_following_scene():
    at = _app_on(LESSONS)
    _click(at, "w_lesson_3")
    _go(at, PLAYGROUND)  # AppTest reruns the page it was told, not the one st.switch_page went to
    assert _shown(at).key() == ls.SCENES[3].config.key()
    _click(at, "w_lesson_next")
    assert _shown(at).key() == ls.SCENES[4].config.key()
    assert at.session_state["w_max_depth"] == 1 and _regions_drawn(at)
    # after an edit the Playground no longer shows the scene, but the bar stays: it says so and offers the way
    # back to the scene beside "Next scene"
    assert "w_lesson_back" not in [b.key for b in at.button]
    _slide(at, "w_max_depth", 2)
    assert _shown(at).hyper["max_depth"] == 2
    assert {"w_lesson_next", "w_lesson_back"} <= {b.key for b in at.button}
    assert any("settings changed" in visible(m.value) for m in at.markdown)
    _click(at, "w_lesson_back")
    assert _shown(at).to_dict() == ls.SCENES[4].config.to_dict()
    assert at.session_state["w_max_depth"] == 1 and _regions_drawn(at)
    assert "w_lesson_back" not in [b.key for b in at.button]
    # an edit, then "Next scene": the scene after the one opened
    _slide(at, "w_max_depth", 3)
    _click(at, "w_lesson_next")
    assert _shown(at).key() == ls.SCENES[5].config.key()


def test_the_last_scene_leads_back_to_the_first_and_the_page_marks_the_shown_scene():
    last = len(ls.SCENES) - 1
    at = _app_on(LESSONS)
    _click(at, f"w_lesson_{last}")
    _go(at, PLAYGROUND)
    assert at.button(key="w_lesson_next").label == "Back to scene 1"
    _go(at, LESSONS)
    marks = [c.value for c in at.caption if c.value == "The Playground shows this scene now."]
    assert len(marks) == 1
    _go(at, PLAYGROUND)
    _click(at, "w_lesson_next")
    assert _shown(at).to_dict() == ls.SCENES[0].config.to_dict()
