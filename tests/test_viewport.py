"""The viewport height the server learns from the browser (``rebel.ui.viewport``): what it accepts, the plot height
it gives (which must equal what the page's CSS makes of the same viewport, or Streamlit draws the chart twice),
and the cost table's rows in presentation mode. The reporter is the one component in the app: fixed code, and
only a number of the server's goes into it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from rebel.ui import components as ui
from rebel.ui import viewport
from rebel.ui.playground import widgets as side
from tests.test_markdown_calls import _is_fixed, static_names

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "value, expected",
    [
        ("720x469", (720, 469)),
        (" 1080x1203 ", (1080, 1203)),
        ("200x100", (200, 100)),
        ("10000x10000", (10000, 10000)),
    ],
)
def test_a_whole_size_in_range_is_taken(value, expected):
    assert viewport.parse_size(value) == viewport.Viewport(*expected)


@pytest.mark.parametrize(
    "value",
    [None, "", "abc", "720", "720x", "x469", "720px x 469", "720.5x469", "720x469.5", "-720x469", "199x469",
     "720x99", "10001x469", "720x10001", "99999999999999999999x469", "720X469", "720x469;", "<script>x1",
     720, ["720x469"], {"size": "720x469"}, b"720x469"],
)  # fmt: skip
def test_anything_else_from_the_browser_is_ignored(value):
    """A cookie or a component message is the browser's text: anything but ``<height>x<width>`` in whole px within
    range is treated as unknown (the chart then measures its box), never an error."""
    assert viewport.parse_size(value) is None


def _css_box_height(viewport_height: int) -> int:
    """The plot box's height as the page's CSS computes it: ``round(down, max(100vh - T px, M px), 1px)``."""
    m = re.search(r"height: round\(down, max\(100vh - (\d+)px, (\d+)px\), 1px\)", side._PLOT_BOX_CSS)
    assert m, side._PLOT_BOX_CSS
    top, minimum = int(m.group(1)), int(m.group(2))
    return max(viewport_height - top, minimum)


@pytest.mark.parametrize("h", [200, 420, 471, 600, 720, 768, 900, 1080, 1440, 2160])
def test_the_figure_height_equals_the_css_box_for_every_viewport(h):
    assert side.plot_height(viewport.Viewport(h, 500)) == _css_box_height(h)


def test_an_unknown_viewport_leaves_the_height_to_the_chart():
    assert side.plot_height(None) is None
    assert side.cost_table_height(None) is None


def test_the_box_width_is_whole_pixels_too():
    assert "width: round(down, 100%, 1px)" in side._PLOT_BOX_CSS


@pytest.mark.parametrize("k", [5, 8, 12])
def test_the_presentation_cost_table_grows_with_the_screen_and_fits_its_room(k):
    """At 720 px high the table keeps its default room (it fitted the projector before); a taller screen gives
    larger rows (and fonts, half a row), never more than the room or ``TABLE_ROW_LARGE``."""
    room = {h: side.cost_table_height(viewport.Viewport(h, 800)) for h in (720, 900, 1080)}
    rows = {h: ui.table_row_px(k, True, room[h]) for h in room}
    assert rows[720] == ui.table_row_px(k, True)  # the default room
    assert rows[720] <= rows[900] <= rows[1080] <= ui.TABLE_ROW_LARGE
    for h, row in rows.items():
        assert row * (k + 1) <= max(room[h], ui.ROW_PX * (k + 1))
    assert ui.table_row_px(12, True, room[1080]) // 2 >= 16  # "13 px at 1920x1080" was too small
    assert ui.table_row_px(k, False, 5000) == ui.ROW_PX  # outside presentation mode: unchanged


def test_the_reporter_is_the_only_component_and_runs_fixed_code():
    """``streamlit.components`` appears in ``rebel/ui/viewport.py`` only; there its html/js/css are fixed text
    written in the source, and the data passed in is the cookie's size, parsed and written again."""
    users = [
        p.relative_to(ROOT).as_posix()
        for p in [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "rebel").rglob("*.py")]
        if "streamlit.components" in p.read_text()
    ]
    assert users == ["rebel/ui/viewport.py"]
    tree = ast.parse((ROOT / "rebel/ui/viewport.py").read_text())
    fixed = static_names(tree)
    calls = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "component"
    ]
    assert len(calls) == 1
    for kw in calls[0].keywords:
        if kw.arg in ("html", "css", "js"):
            assert _is_fixed(kw.value, fixed), f"the component's {kw.arg} is not fixed text"
    mounts = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and any(k.arg == "data" for k in n.keywords)
    ]
    assert len(mounts) == 1
    data = next(k.value for k in mounts[0].keywords if k.arg == "data")
    assert ast.unparse(data) == "{'size': known}"
    source = ast.unparse(tree)
    assert "cookie = _cookie_size()" in source  # parse_size's Viewport or None
    assert "known = None if cookie is None else f'{cookie.height}x{cookie.width}'" in source


def test_the_script_only_sends_a_size_that_differs_from_what_the_server_knows():
    """No rerun loop: the script compares with the server's value and with what it sent last."""
    js = viewport._JS
    assert "known.size === size || window.__rebelViewportSent === size" in js
    assert 'setStateValue("size", size)' in js
    assert "innerHeight" in js and 'document.querySelector("div.st-key-pg_plot")' in js


def test_a_rerun_the_reporter_caused_keeps_the_drawn_size(monkeypatch):
    """The reporter's own rerun keeps the size the regions figure was drawn at (the same figure, no new chart);
    the next change takes the new size."""
    state: dict = {}
    monkeypatch.setattr(viewport.st, "session_state", state)
    new = viewport.Viewport(720, 469)
    assert viewport.figure_size(None) is None  # a first visit: nothing known, the chart measures its box
    viewport._news()  # the browser tells its size: its rerun draws the same figure as before
    assert viewport.figure_size(new) is None
    assert viewport.figure_size(new) == new  # a cost edit: the new figure takes the size
    viewport._news()  # the window resized: the chart follows its box by itself
    assert viewport.figure_size(viewport.Viewport(900, 600)) == new
    assert viewport.figure_size(viewport.Viewport(900, 600)) == viewport.Viewport(900, 600)
