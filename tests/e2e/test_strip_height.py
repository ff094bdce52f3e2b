"""The cost-by-round strip in presentation mode with twelve classes at 1280 x 720, in Chromium, sidebar open and
collapsed: its plotting area (where the REBEL and two-step curves run) is at least ``STRIP_MIN_PX`` high, the
legend's rows leave it that room, its key lies outside it, and no text of the plot leaves its box or overlaps
another (``layout_checks``). Screenshots ``strip_12_classes_<sidebar>.png`` go to tests/e2e/screenshots/."""

from __future__ import annotations

import pytest

from tests.e2e.layout_checks import (
    STRIP_MIN_PX,
    plot_text_problems,
    strip_height_problems,
    strip_key_problems,
    wait_plot_fits_box,
)
from tests.e2e.test_one_screen import _assert_on_screen, _scroll_top, _set_sidebar, _twelve_class_link
from tests.e2e.test_sidebar_open_layout import _FOLDED, _open, _wait_large_fonts

pytestmark = pytest.mark.browser

W, H = 1280, 720


@pytest.mark.parametrize("sidebar", ["collapsed", "open"])
def test_the_cost_strip_keeps_room_for_its_curves_with_twelve_classes(
    app_url, browser, screenshot_dir, sidebar
):
    page = _open(browser, app_url, _twelve_class_link(last_round=True))
    try:
        _wait_large_fonts(page, True)
        page.wait_for_function(_FOLDED, timeout=60_000)  # presentation mode folds the sidebar away once
        page.wait_for_timeout(600)  # the main area's transition
        _set_sidebar(page, sidebar == "open")
        wait_plot_fits_box(page)  # the figure drawn for the box the sidebar leaves
        _scroll_top(page)
        page.wait_for_timeout(300)
        page.screenshot(path=str(screenshot_dir / f"strip_12_classes_{sidebar}.png"))
        when = f"12 classes, presentation mode, {W}x{H}, sidebar {sidebar}"
        problems = strip_height_problems(page, STRIP_MIN_PX) + strip_key_problems(page)
        problems += plot_text_problems(page)
        assert not problems, f"{when}:\n  " + "\n  ".join(problems)
        _assert_on_screen(page, W, H, when, square=False)
    finally:
        page.close()
