"""The Playground at 1280 x 720 with the sidebar OPEN, in Chromium: presentation mode on and off, with and without
a lesson scene, and with twelve classes. No text of the regions plot (numbers, verdict, legend, tick labels,
titles, the strip's key, the round control) reaches past the plot's box or the viewport's right edge, no two of
them overlap, the numbers' headline stays clear of the lesson bar, and no class name of the cost grid is split
inside a word ("harml ess"). The seven lesson scenes are checked the same way, sidebar open and collapsed, in
tests/e2e/test_lesson_screen.py. Screenshots ``sidebar_open_<case>.png`` go to tests/e2e/screenshots/."""

from __future__ import annotations

import pytest

from benchmarks import bench_browser as bb
from tests.e2e.layout_checks import assert_screen_is_clean, cost_table_problems, wait_plot_fits_box
from tests.e2e.test_one_screen import _assert_on_screen, _scroll_top, _set_sidebar, _twelve_class_link

pytestmark = pytest.mark.browser

W, H = 1280, 720
# the 12 x 12 cost table's texts: 10 px (a ~260 px column; 20 px would not fit twelve costs across)
MIN_TABLE_FONT_PX = 10


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


@pytest.mark.parametrize(
    "name, query, present",
    [
        ("presentation", "", True),
        ("plain", "", False),
        ("scene1_plain", "?scene=1", False),
    ],
)
def test_sidebar_open_has_no_clipped_overlapping_or_split_text(
    app_url, browser, screenshot_dir, name, query, present
):
    page = _open(browser, app_url, query)
    try:
        if present:  # switched on by its switch
            page.locator(".st-key-w_present label").first.click()
        _check(page, name, present, screenshot_dir)
    finally:
        page.close()


def test_sidebar_open_with_twelve_classes(app_url, browser, screenshot_dir):
    page = _open(browser, app_url, _twelve_class_link())
    try:
        _check(page, "12_classes", True, screenshot_dir)
        _assert_on_screen(page, W, H, "12 classes, sidebar open", square=False)
        problems = cost_table_problems(page, MIN_TABLE_FONT_PX)
        assert not problems, "12 classes, sidebar open: the cost table is cramped:\n  " + "\n  ".join(
            problems
        )
    finally:
        page.close()
