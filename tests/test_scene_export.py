"""``python -m rebel export-scene``: one self-contained HTML file of a lesson scene or a saved configuration (the
page itself runs in tests/e2e/test_scene_file_browser.py)."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from rebel.__main__ import main
from rebel.ui.browser.scene import scene_data, scene_html
from rebel.ui.config import preset_config, session_json
from rebel.ui.lessons import SCENES


def _data_of(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="scene-data">(.*?)</script>', html, re.DOTALL)
    return json.loads(found.group(1))


def test_export_scene_writes_one_offline_file(tmp_path, capsys):
    out = tmp_path / "scene.html"
    assert main(["export-scene", "--scene", "1", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "scene written to" in capsys.readouterr().out
    assert not re.search(r"\b(src|href)\s*=", html)  # no external script, style, image or link
    assert "default-src 'none'" in html  # and the page may not fetch anything
    data = _data_of(html)
    scene = SCENES[0]
    assert data["title"] == scene.title
    assert np.array_equal(data["costMatrix"], scene.config.cost_matrix)
    assert data["problem"]["nRounds"] == scene.config.hyper["n_estimators"]
    P = np.frombuffer(base64.b64decode(data["twoStep"]["P"][-1]), dtype="<f8")
    assert np.allclose(P.reshape(-1, len(data["classes"])).sum(axis=1), 1.0)  # posteriors, bit-exact floats


def test_export_scene_from_a_session_file(tmp_path):
    cfg = preset_config("xor", {"n_estimators": 5, "max_depth": 1, "n_thresholds": 20})
    session = tmp_path / "session.json"
    session.write_text(session_json(cfg), encoding="utf-8")
    out = tmp_path / "xor.html"
    assert main(["export-scene", "--config", str(session), "-o", str(out)]) == 0
    assert _data_of(out.read_text(encoding="utf-8"))["problem"]["nRounds"] == 5


def test_export_scene_refuses_bad_input(tmp_path, capsys):
    assert main(["export-scene", "--scene", str(len(SCENES) + 1), "-o", str(tmp_path / "x.html")]) == 2
    assert f"scenes 1 to {len(SCENES)}" in capsys.readouterr().err
    with pytest.raises(ValueError, match="paper engine only"):
        scene_data(preset_config("xor", engine="vector"))


def test_scene_text_cannot_end_its_script():
    data = {"title": "</script><b>x</b>", "notice": "</script>", "question": "", "classes": []}
    html = scene_html(data)
    assert html.count("</script>") == 4  # the data's, the engine's, the shared code's, the page's
    assert "<b>x</b>" not in html


def test_the_lessons_page_offers_each_paper_scene_as_an_offline_file():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from rebel.ui import lesson_widgets as lw
    from rebel.ui import lessons as ls

    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=240)
    at.switch_page("pages/0_Lessons.py")
    at.run()
    assert not at.exception
    keys = {b.proto.id for b in at.get("download_button")}
    paper = [i for i, s in enumerate(ls.SCENES) if s.config.engine == "paper"]
    assert len(at.get("download_button")) == len(paper) and keys
    html = lw.scene_file(paper[0])
    assert html.lstrip().lower().startswith("<!doctype html") and "http://" not in html.split("<script>")[0]
