"""The Playground at 1280 x 720 with the sidebar OPEN, in Chromium: presentation mode on and off, with and without
a lesson scene, and with twelve classes. No text of the regions plot (numbers, verdict, legend, tick labels,
titles, the strip's key, the round control) reaches past the plot's box or the viewport's right edge, no two of
them overlap, the numbers' headline stays clear of the lesson bar, and no class name of the cost grid is split
inside a word ("harml ess"), the chart's toolbar lies over no text of the plot, the costs' entry boxes and buttons
show their whole text ("defect → ok", "Cost presets"), and the first screen (plot, cost matrix, round control,
numbers) stays inside the viewport. The seven lesson scenes are checked the same way, sidebar open and collapsed, in
tests/e2e/test_lesson_screen.py. At 1280 x 720 and 1440 x 900, sidebar open and collapsed, presentation mode on and
off, the chart's toolbar (plotly's modebar, shown on hover) never lies over the heading "REBEL's minimum-risk
class" or any other text of the plot. Screenshots ``sidebar_open_<case>.png`` and ``toolbar_<case>.png`` go to
tests/e2e/screenshots/."""

from __future__ import annotations

import pytest

from benchmarks import bench_browser as bb
from rebel.ui import lessons as ls
from rebel.ui.figures.palette import class_colors
from tests.e2e.layout_checks import (
    SMALL_COSTS_TEXTS,
    assert_screen_is_clean,
    control_text_problems,
    cost_table_problems,
    modebar_problems,
    present_table_problems,
    wait_plot_fits_box,
)
from tests.e2e.test_one_screen import (
    _assert_on_screen,
    _scroll_top,
    _set_sidebar,
    _twelve_class_costs,
    _twelve_class_link,
)

pytestmark = pytest.mark.browser

W, H = 1280, 720
# The 12 x 12 cost table's texts: 20 px, as everywhere in presentation mode. With the sidebar open at 1280 x 720
# the costs' column is 258 px and a cell of the table about 13 px wide: a cost at 20 px ("3.4" is 25 px) cannot
# fit, so the table hides its costs there (its shades and the entry box under it say them) and keeps its rows'
# names and its columns' coloured squares at 20 px.
MIN_TABLE_FONT_PX = 20


def _open(browser, app_url: str, query: str = ""):
    bb.VIEWPORT.update(width=W, height=H)
    try:
        page, _ = bb.open_playground(browser, f"{app_url}/{query}")
    finally:
        bb.VIEWPORT.update(width=1440, height=900)
    return page


def _wait_large_fonts(page, present: bool) -> None:
    page.wait_for_function(
        "big => { const t = document.querySelector('.st-key-pg_plot .xtick text');"
        " return t && (parseFloat(getComputedStyle(t).fontSize) >= 20) === big; }",
        arg=present,
        timeout=90_000,
    )


_FOLDED = """() => { const s = document.querySelector('[data-testid="stSidebar"]');
  return !s || s.getAttribute('aria-expanded') === 'false' || s.getBoundingClientRect().right <= 1; }"""


def _check(page, name: str, present: bool, screenshot_dir) -> None:
    _wait_large_fonts(page, present)
    if present:  # presentation mode folds the sidebar away once: open it again, as a lecturer would
        page.wait_for_function(_FOLDED, timeout=60_000)
        page.wait_for_timeout(600)  # the main area's transition
    _set_sidebar(page, True)
    bb._settle(page)
    wait_plot_fits_box(page)  # the figure drawn again for the box the sidebar leaves
    _scroll_top(page)
    page.wait_for_timeout(300)
    page.screenshot(path=str(screenshot_dir / f"sidebar_open_{name}.png"))
    assert_screen_is_clean(page, f"{name}, 1280x720, sidebar open")
    _assert_on_screen(page, W, H, f"{name}, sidebar open", square=False)  # the controls pushed nothing off


@pytest.mark.parametrize(
    "name, query, present",
    [
        ("presentation", "", True),
        ("plain", "", False),
        ("scene1_plain", "?scene=1", False),
        # xor: "defect → ok"; at the last round, where the replay the link plays first ends
        ("scene5_presentation", f"?scene=5&present=1&t={ls.SCENES[4].config.hyper['n_estimators']}", True),
    ],
)
def test_sidebar_open_has_no_clipped_overlapping_or_split_text(
    app_url, browser, screenshot_dir, name, query, present
):
    page = _open(browser, app_url, query)
    try:
        if present and "present=1" not in query:  # switched on by its switch
            page.locator(".st-key-w_present label").first.click()
        _check(page, name, present, screenshot_dir)
    finally:
        page.close()


def test_sidebar_open_with_twelve_classes(app_url, browser, screenshot_dir):
    page = _open(browser, app_url, _twelve_class_link(last_round=True))
    try:
        _check(page, "12_classes", True, screenshot_dir)
        _assert_on_screen(page, W, H, "12 classes, sidebar open", square=False)
        C, names = _twelve_class_costs()
        problems = cost_table_problems(page, MIN_TABLE_FONT_PX, numbers=False)
        problems += present_table_problems(page, C, names, class_colors(12))
        small = page.evaluate(SMALL_COSTS_TEXTS, MIN_TABLE_FONT_PX)
        problems += [f"{text!r} at {px} px" for text, px in small]
        assert not problems, "12 classes, sidebar open: the cost table is cramped:\n  " + "\n  ".join(
            problems
        )
    finally:
        page.close()


@pytest.mark.parametrize("sidebar", ["open", "collapsed"])
@pytest.mark.parametrize("present", [True, False], ids=["presentation", "plain"])
@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)], ids=["1280x720", "1440x900"])
def test_the_toolbar_never_covers_a_text_of_the_plot(
    app_url, browser, screenshot_dir, size, present, sidebar
):
    w, h = size
    page, _ = bb.open_playground(browser, app_url, size)
    try:
        if present:  # switched on by its switch, which folds the sidebar away once
            page.locator(".st-key-w_present label").first.click()
            _wait_large_fonts(page, True)
            page.wait_for_function(_FOLDED, timeout=60_000)
            page.wait_for_timeout(600)  # the main area's transition
        _set_sidebar(page, sidebar == "open")
        bb._settle(page)
        wait_plot_fits_box(page)
        _scroll_top(page)
        box = page.locator(".st-key-pg_plot").first.bounding_box()
        # the toolbar shows on hover
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.locator(".st-key-pg_plot .modebar").first.wait_for(state="visible")
        mode = "presentation" if present else "plain"
        page.screenshot(path=str(screenshot_dir / f"toolbar_{w}x{h}_{mode}_{sidebar}.png"))
        when = f"{w}x{h}, {mode}, sidebar {sidebar}"
        problems = modebar_problems(page) + control_text_problems(page)
        assert not problems, f"{when}:\n  " + "\n  ".join(problems)
        _assert_on_screen(page, w, h, when, square=False)
    finally:
        page.close()
