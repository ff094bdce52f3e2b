"""Real-browser check of the Playground: load, wait for the charts, move the scrubber, save a screenshot."""

from __future__ import annotations

import io
import re

import pytest

from benchmarks import bench_browser as bb
from rebel.ui.figures.palette import region_colors
from tests.e2e.conftest import settle
from tests.e2e.layout_checks import wait_plot_fits_box

pytestmark = pytest.mark.browser

ROUND = re.compile(r"t = (\d+) of (\d+) · test cost per point")  # the numbers lines of the regions figure


def _hex_rgb(color: str) -> tuple:
    return tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))


def _region_pixel_share(png: bytes, n_classes: int) -> float:
    """Share of the image's pixels within a small distance of one of the region colours."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB").resize((300, 300))
    targets = [_hex_rgb(c) for c in region_colors(n_classes)]
    pixels = list(img.get_flattened_data()) if hasattr(img, "get_flattened_data") else list(img.getdata())
    close = sum(1 for p in pixels if any(sum(abs(a - b) for a, b in zip(p, t)) < 24 for t in targets))
    return close / len(pixels)


def _round_shown(page) -> tuple:
    """``(t, T)`` from the regions figure's numbers lines (they follow the figure's own round slider)."""
    texts = page.locator(".js-plotly-plot .textpoint text").all_text_contents()
    t, T = next(ROUND.search(x).groups() for x in texts if ROUND.search(x))
    return int(t), int(T)


def test_playground_renders_and_scrubs(app_url, browser, screenshot_dir):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(app_url, wait_until="domcontentloaded")
    # The regions replay (its numbers lines name the round); the Details tab opens on text ("How to read").
    page.wait_for_selector(".js-plotly-plot .slider-label", timeout=240_000)  # cold numba cache compiles
    t, T = _round_shown(page)
    assert t == T > 0
    assert page.locator("[data-testid='stException']").count() == 0
    # the whole first page, and the chart drawn again for its box once the browser has told its size (beside two
    # busy loops a look in between caught the plot area mid-redraw: 6 % of its pixels in region colours)
    settle(page)
    bb._install(page)  # (the bench's page hooks, which its settle reads)
    wait_plot_fits_box(page)

    # Scrub with the figure's own slider: click the rail at round 5; picture and numbers follow, in the browser.
    plot = page.locator(".st-key-pg_plot").first
    tick = plot.locator(".slider-tick-rect").nth(5).bounding_box()
    rail = plot.locator(".slider-rail-rect").first.bounding_box()
    page.mouse.click(tick["x"] + tick["width"] / 2, rail["y"] + rail["height"] / 2)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot .textpoint text')].some("
        "e => e.textContent.includes('t = 5 of'))",
        timeout=30_000,
    )
    assert _round_shown(page) == (5, T)

    chart_png = _screenshot_regions(page, screenshot_dir / "regions.png")
    page.set_viewport_size({"width": 1500, "height": 2600})
    page.wait_for_timeout(1000)
    page.screenshot(path=str(screenshot_dir / "playground.png"))
    n_classes = 3  # the default preset (airport): harmless, liquid, weapon
    share = _region_pixel_share(chart_png, n_classes)
    assert share > 0.3, f"the regions plot looks blank: only {share:.0%} of its pixels have region colours"
    assert page.locator("[data-testid='stException']").count() == 0
    assert not errors, f"JavaScript errors in the page: {errors}"


def _screenshot_regions(page, path) -> bytes:
    """Screenshot of the regions chart; re-locate it if a rerun replaced the element meanwhile."""
    for attempt in range(5):
        chart = page.locator(".st-key-pg_plot .stPlotlyChart").first
        plot_area = chart.locator(".draglayer .xy > .nsewdrag").first  # the regions' axes only
        try:
            chart.scroll_into_view_if_needed(timeout=5_000)
            page.wait_for_timeout(500)
            chart.screenshot(path=str(path), timeout=10_000)
            return plot_area.screenshot(timeout=10_000)
        except Exception:  # element detached by a rerun: try again
            if attempt == 4:
                raise
            page.wait_for_timeout(1000)
    raise AssertionError("unreachable")


def test_replay_plays_in_the_browser(app_url, browser, screenshot_dir):
    """Play inside the regions figure: the round counter moves with no server round trip per frame."""
    page = browser.new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(app_url, wait_until="domcontentloaded")
    page.wait_for_selector(".js-plotly-plot .slider-label", timeout=240_000)
    page.wait_for_timeout(1500)
    counter = page.locator(".js-plotly-plot .slider-label").first
    assert counter.text_content().strip().startswith("round t = 100")
    page.locator(".js-plotly-plot .updatemenu-button", has_text="from t = 0").first.click()
    page.wait_for_timeout(1200)
    seen = int(re.search(r"t = (\d+)", counter.text_content()).group(1))
    assert 0 < seen < 100, seen  # playing from t = 0, some frames in after ~1 s
    page.screenshot(path=str(screenshot_dir / "replay_playing.png"))
    assert page.locator("[data-testid='stException']").count() == 0
