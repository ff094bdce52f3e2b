"""A lecture's screen, in Chromium: every lesson scene opened by its short link (``?scene=N&present=1``) in
presentation mode fits one 1280 x 720 screen with the sidebar collapsed and open (the regions, the cost matrix, the
round control, the three numbers and the lesson bar with its buttons, nothing scrolled), and 1920 x 1080; every
text a room reads (the lesson bar, the numbers, the tick labels, the legend, the cost cells, the cost strip, the
round control, and every text of the costs' column on that screen) is at least 20 px; presentation mode's switch is
on that screen, and the mode survives opening the next scene; no text of the plot is clipped or overlaps another,
and no class name of the cost grid is split inside a word, and the cost strip's key lies outside the strip's
plotting area, never over its curves (``layout_checks``). Screenshots ``lesson_scene<N>_<w>x<h>_<sidebar>.png`` go
to tests/e2e/screenshots/ for a person to look at. At 1280 x 720 each scene's link carries its last round (the
screen the replay it plays by itself ends on, with no replay played: 7 replays of up to 300 rounds were most of the
test's time); at 1920 x 1080 the links play their replays, and the next scene's button plays its own."""

from __future__ import annotations

import pytest

from benchmarks import bench_browser as bb
from rebel.ui import lessons as ls
from rebel.ui.playground import widgets as side
from tests.e2e.layout_checks import (
    SMALL_COSTS_TEXTS,
    assert_screen_is_clean,
    strip_key_problems,
    wait_plot_fits_box,
    wait_projector_ticks,
)
from tests.e2e.test_one_screen import _assert_on_screen, _scroll_top, _set_sidebar

pytestmark = pytest.mark.browser

MIN_FONT_PX = 20

# computed font sizes (px) of the texts a room reads, the smallest of each kind
_FONTS = """bar => { const px = e => parseFloat(getComputedStyle(e).fontSize);
  const least = sel => { const els = [...document.querySelectorAll(sel)].filter(e => e.getBoundingClientRect().width > 0);
                         return els.length ? Math.min(...els.map(px)) : null; };
  const plot = '.st-key-pg_plot .js-plotly-plot ';
  return {'lesson bar': least(`.st-key-${bar} p`), numbers: least(plot + '.textpoint text'),
          ticks: least(plot + '.xy .xtick text, ' + plot + '.xy .ytick text'), legend: least(plot + '.legendtext'),
          'cost cells': least('.st-key-cost_editor input'), strip: least(plot + '.x3tick text, ' + plot + '.y3tick text'),
          'round control': least(plot + '.slider-group > text.slider-label, ' + plot + '.updatemenu-item-text')}; }"""


def _open_scene(browser, app_url: str, n: int, w: int, h: int, last_round: bool = False):
    """Scene n's short link at w x h; ``last_round``: with its last round in the link (``&t=T``), so the page opens
    where the replay it plays by itself ends, without playing it (the layout checked is the same)."""
    t = f"&t={ls.SCENES[n - 1].config.hyper['n_estimators']}" if last_round else ""
    page, _ = bb.open_playground(browser, f"{app_url}/?scene={n}&present=1{t}", (w, h))
    wait_projector_ticks(page, 20)
    page.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
        " return !s || s.getAttribute('aria-expanded') === 'false' || s.getBoundingClientRect().right <= 1; }",
        timeout=60_000,
    )  # presentation mode folds the sidebar away by itself
    page.wait_for_timeout(600)  # the main area's transition
    return page


def _assert_lesson_screen(page, n: int, w: int, h: int, sidebar: str, screenshot_dir) -> None:
    _set_sidebar(page, sidebar == "open")
    bb._settle(page)
    wait_plot_fits_box(page)  # the figure drawn again for the box the sidebar leaves
    _scroll_top(page)
    page.wait_for_timeout(300)
    bb._settle(page)  # (the screenshot is the lecture's screen: never a page faded by a run under way)
    page.screenshot(path=str(screenshot_dir / f"lesson_scene{n}_{w}x{h}_{sidebar}.png"))
    when = f"scene {n}, presentation mode, sidebar {sidebar}"
    _assert_on_screen(page, w, h, when, square=False)  # (a preset's plane keeps its data's aspect)
    for name in (side.LESSON_BAR, "pg_present"):  # the lesson bar and presentation mode's switch
        box = page.locator(f".st-key-{name}").first.bounding_box()
        assert box and box["y"] >= -0.5 and box["y"] + box["height"] <= h + 0.5, (name, box, when)
    assert page.locator(f".st-key-{side.LESSON_BAR}").first.text_content().count(f"scene {n} of") == 1
    fonts = page.evaluate(_FONTS, side.LESSON_BAR)
    print(f"\n{when} at {w}x{h}: smallest font px {fonts}")
    small = {k: v for k, v in fonts.items() if v is None or v < MIN_FONT_PX}
    assert not small, f"texts under {MIN_FONT_PX} px or missing ({when}): {small}"
    costs = page.evaluate(SMALL_COSTS_TEXTS, MIN_FONT_PX)
    assert not costs, f"texts of the costs' column under {MIN_FONT_PX} px ({when}): {costs}"
    assert_screen_is_clean(page, f"{when} at {w}x{h}")  # nothing clipped, overlapping or split inside a word
    # the strip's key above the strip, never over its curves (with the sidebar open, many classes may leave it
    # no room: then the lines' colours alone say which is which)
    problems = strip_key_problems(page, required=sidebar == "collapsed")
    assert not problems, f"{when} at {w}x{h}: " + "; ".join(problems)


@pytest.mark.parametrize("sidebar", ["collapsed", "open"])
def test_every_scene_fits_one_720p_screen_in_large_type(app_url, browser, screenshot_dir, sidebar):
    # at each scene's last round (the replays their links play first: the 1080p test below, test_replay_points)
    for n in range(1, len(ls.SCENES) + 1):
        page = _open_scene(browser, app_url, n, 1280, 720, last_round=True)
        try:
            _assert_lesson_screen(page, n, 1280, 720, sidebar, screenshot_dir)
        finally:
            page.close()


def test_a_scene_fits_1080p_and_presentation_mode_survives_next_scene(app_url, browser, screenshot_dir):
    page = _open_scene(browser, app_url, 6, 1920, 1080)
    try:
        _assert_lesson_screen(page, 6, 1920, 1080, "collapsed", screenshot_dir)
        page.locator(".st-key-w_lesson_next button").first.click()
        page.wait_for_function(
            f"() => (document.querySelector('.st-key-{side.LESSON_BAR}') || {{}}).textContent"
            "?.includes('scene 7 of')",
            timeout=120_000,
        )
        bb._settle(page)
        assert page.locator(".st-key-pg_present input[type=checkbox]").first.is_checked()
        _assert_lesson_screen(page, 7, 1920, 1080, "collapsed", screenshot_dir)
    finally:
        page.close()
