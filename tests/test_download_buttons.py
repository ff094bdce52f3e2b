"""Every download button of the app is ``rebel.ui.components.download``: its click never reruns the page. The
browser sends a download button's rerun before it asks for a file built on the click, and the rerun revokes that
file (Streamlit gives a file built on the click a new id on every run), so the download sometimes never came
(seen beside busy loops on the sidebar's session file). Checked on the source of ``app.py``, ``pages/`` and
``rebel/ui/``: a ``download_button`` call anywhere else fails the build."""

from __future__ import annotations

import ast
from pathlib import Path

from rebel.ui import components as ui

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "rebel" / "ui").rglob("*.py")])
HOME = ("rebel/ui/components.py", "download")  # the one place that calls st.download_button


def bypasses(files, root: Path = ROOT) -> list[str]:
    """Calls of ``download_button`` outside ``components.download``, as ``path:line``."""
    found = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        homes = {
            id(n)
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef) and (str(path.relative_to(root)), f.name) == HOME
            for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and id(node) not in homes:
                name = (
                    node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                )
                if name == "download_button":
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_every_download_button_is_the_one_that_never_reruns():
    assert FILES and not bypasses(FILES), bypasses(FILES)


def test_a_download_button_called_directly_fails_the_check(tmp_path):
    page = tmp_path / "pages" / "9_X.py"
    page.parent.mkdir()
    page.write_text('import streamlit as st\nst.download_button("a", b"x")\n', encoding="utf-8")
    assert bypasses([page], tmp_path) == ["pages/9_X.py:2"]


def test_download_asks_for_no_rerun_and_names_the_type_by_the_files_ending():
    calls = []

    class Where:
        def download_button(self, label, data, **kw):
            calls.append((label, data, kw))

    build = lambda: b"{}"
    ui.download(Where(), "Session *bold*", build, "s.json", key="k")
    ui.download(Where(), "Replay", b"...", "r.mp4", ":material/movie:", disabled=True)
    (label, data, kw), (_, _, kw2) = calls
    assert data is build and kw["on_click"] == "ignore" and kw["mime"] == "application/json"
    assert kw["key"] == "k" and kw["icon"] == ":material/download:" and "*bold*" not in label
    assert kw2["on_click"] == "ignore" and kw2["mime"] == "video/mp4" and kw2["icon"] == ":material/movie:"
    assert kw2["disabled"] is True
