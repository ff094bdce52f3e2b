"""The viewport size the server learns from the browser (``rebel.ui.viewport``): what it accepts, the plot height
it gives (which must equal what the page's CSS makes of the same viewport, or Streamlit draws the chart twice),
when a new size is taken, and the cost table's rows in presentation mode. The script that writes the size is
fixed text."""

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


def test_beside_a_narrow_plot_the_cost_table_gives_room_to_the_stacked_entry_boxes():
    """The sidebar open at 1280 x 720 (a plot box narrower than high): the costs' column stacks its entry boxes
    (``screen._STACK_CSS``), and the presentation table takes ``NARROW_TABLE_GIVES`` px less, no less than its
    rows' least height; a wide plot box at the same height keeps the default room."""
    from rebel.ui.playground import screen

    narrow, wide = viewport.Viewport(720, 554), viewport.Viewport(720, 800)
    assert screen.narrow_plot(narrow) and not screen.narrow_plot(wide)
    room = screen.cost_table_height(narrow)
    assert room == screen.cost_table_height(wide) - screen.NARROW_TABLE_GIVES
    assert (
        ui.table_row_px(12, True, room)
        == ui.ROW_PX
        < ui.table_row_px(12, True, screen.cost_table_height(wide))
    )
    for px in (screen.CONTROLS_STACK_PX, screen.ENTRY_STACK_PX):  # in both modes
        assert f"@container (max-width: {px}px)" in screen.ONE_SCREEN_CSS_PRESENT
        assert f"@container (max-width: {px}px)" in screen.ONE_SCREEN_CSS
    # presentation mode's 20 px texts: the controls stack in a column as many times wider
    for px, present in (
        (screen.CONTROLS_STACK_PX, screen.CONTROLS_STACK_PX_PRESENT),
        (screen.ENTRY_STACK_PX, screen.ENTRY_STACK_PX_PRESENT),
    ):
        assert present == round(px * screen.PRESENT_NAME_SCALE)
        assert f"@container (max-width: {present}px)" in screen.ONE_SCREEN_CSS_PRESENT
        assert f"@container (max-width: {present}px)" not in screen.ONE_SCREEN_CSS


def test_no_component_and_the_script_is_fixed_text():
    """The size comes back through a hidden text box written by a fixed script (``st.html`` of a module constant
    with ``unsafe_allow_javascript``): no component anywhere in the app (a mounted component slowed Play for the
    page's life), and the script reads only sizes, no text of the page's or the user's."""
    users = [
        p.relative_to(ROOT).as_posix()
        for p in [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "rebel").rglob("*.py")]
        if "streamlit.components" in p.read_text()
    ]
    assert users == []
    tree = ast.parse((ROOT / "rebel/ui/viewport.py").read_text())
    fixed = static_names(tree)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    (html,) = [n for n in calls if getattr(n.func, "attr", "") == "html"]
    assert all(_is_fixed(a, fixed) for a in html.args)
    js = viewport.WATCH
    assert "innerHeight" in js and "getBoundingClientRect().width" in js and "innerHTML" not in js
    assert f".st-key-{viewport.INPUT} input" in js and "'rebel_vp=' + size" in js
    assert "el.value === size" in js  # writes (and reruns) only when the size changed
    assert f".st-key-{viewport.REST} button" in js  # presses the first page's hidden button (``rest_button``)


def test_the_hidden_box_is_the_one_the_page_hides():
    assert f"div.st-key-{viewport.BOX} {{display: none !important;}}" in side.ONE_SCREEN_CSS
    assert f"div.st-key-{viewport.BOX} {{display: none !important;}}" in side.ONE_SCREEN_CSS_PRESENT


def test_a_new_size_is_taken_with_a_new_picture_only(monkeypatch):
    """The same picture keeps the size it was drawn at (a new size would make it a new chart, drawn again for
    nothing); the next picture takes the size known then."""
    state: dict = {}
    monkeypatch.setattr(viewport.st, "session_state", state)
    new = viewport.Viewport(720, 469)
    assert viewport.figure_size(None, "a") is None  # a first visit: nothing known, the chart measures its box
    assert viewport.figure_size(new, "a") is None  # the address now has the size: the same picture keeps None
    assert viewport.figure_size(new, "b") == new  # a cost edit: the new picture takes the size
    wider = viewport.Viewport(900, 600)
    assert viewport.figure_size(wider, "b") == new  # the window resized: the chart follows its box by itself
    assert viewport.figure_size(wider, "c") == wider


def test_a_first_visit_is_taken_to_be_a_projector_only_with_a_browser_behind(monkeypatch):
    known = viewport.Viewport(900, 564)
    monkeypatch.setattr(viewport, "browser_behind", lambda: True)
    assert viewport.or_guess(None) == viewport.UNKNOWN == viewport.Viewport(720, 469)
    assert viewport.or_guess(known) == known
    monkeypatch.setattr(viewport, "browser_behind", lambda: False)  # a test harness: the chart fills its box
    assert viewport.or_guess(None) is None and viewport.or_guess(known) == known


def _keep_app():
    import streamlit as st

    from rebel.ui import viewport

    st.session_state["known"] = viewport.known()
    viewport.keep()


def test_the_text_box_wins_over_the_cookie_and_bad_values_are_unknown(monkeypatch):
    """What the browser wrote in this session wins over its cookie, and anything that is not a size is ignored
    (the last real size stays)."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(viewport, "_cookie_size", lambda: viewport.parse_size("900x600"))
    at = AppTest.from_function(_keep_app).run()
    assert at.session_state["known"] == viewport.Viewport(900, 600)
    at.text_input(key=viewport.INPUT).input("720x469").run()
    assert at.session_state["known"] == viewport.Viewport(720, 469)
    at.text_input(key=viewport.INPUT).input("javascript:alert(1)").run()
    assert at.session_state["known"] == viewport.Viewport(720, 469)
    monkeypatch.setattr(viewport, "_cookie_size", lambda: viewport.parse_size("<b>"))
    at2 = AppTest.from_function(_keep_app).run()
    assert at2.session_state["known"] is None
    assert not at.exception and not at2.exception


def test_a_replay_drawn_again_only_for_its_box_keeps_its_autoplay_token(monkeypatch):
    """A retrain's token is taken once and remembered: the runs after it that draw the same pair and view (the box
    reported late, a resized window) get the same token, so the figure opens at t = 0 and the page's script puts
    the replay back where it was (``tests/e2e/test_replay_redrawn.py``); anything else changed, or a chart the
    browser repainted: no token, and the figure opens at the page's round."""
    from rebel.ui.playground import screen

    S = {}
    monkeypatch.setattr(screen, "S", S)
    view = (("two", False),), True, False, 0
    S[screen.AUTOPLAY] = "play-1"
    assert screen.replay_token("pair-a", view, True) == "play-1" and screen.AUTOPLAY not in S
    assert screen.replay_token("pair-a", view, True) == "play-1"  # drawn again for its box
    assert screen.replay_token("pair-a", view, True) == "play-1"
    toggled = ((("two", True),), True, False, 0)
    assert screen.replay_token("pair-a", toggled, True) is None  # a toggle: not kept
    assert screen.replay_token("pair-a", view, True) is None  # (and forgotten)
    S[screen.AUTOPLAY] = "play-2"
    assert screen.replay_token("pair-b", view, True) == "play-2"
    assert screen.replay_token("pair-c", view, True) is None  # another pair
    S[screen.AUTOPLAY] = "play-3"
    assert screen.replay_token("pair-b", view, False) is None  # a chart the browser repainted
    assert screen.AUTOPLAY not in S
    assert screen.replay_token("pair-b", view, True) is None
    S[screen.AUTOPLAY] = "play-4"
    assert screen.replay_token("pair-d", view, True) == "play-4"
    monkeypatch.setattr(screen, "page_visit", lambda: 2)  # another page, then this one again
    assert screen.replay_token("pair-d", view, True) is None


def test_a_page_entered_from_another_counts_a_new_visit():
    """``guard.run_page`` counts a visit each time the session runs another page than the last run's."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_visits_app)
    at.session_state["go"] = "A"
    at.run()
    first = at.session_state["visit"]
    at.run()  # the same page again: the same visit
    assert at.session_state["visit"] == first
    at.session_state["go"] = "B"
    at.run()
    assert at.session_state["visit"] == first + 1
    at.session_state["go"] = "A"
    at.run()
    assert at.session_state["visit"] == first + 2 and not at.exception


def _visits_app():
    import streamlit as st

    from rebel.ui import guard

    class Page:  # (a ``st.navigation`` page: its title, and its run)
        def __init__(self, title):
            self.title = title

        def run(self):
            st.session_state["visit"] = guard.page_visit()

    guard.run_page(Page(st.session_state["go"]))
