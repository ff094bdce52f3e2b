"""A first visit in Chromium: the regions plot is drawn before the rest of the page arrives, then the whole page
(cost editor, sidebar) follows by itself, around the same chart (``widgets.start_plot_first``).

An init script notes, on every animation frame, whether the regions chart has been drawn and whether the cost
editor's cells and the sidebar's preset box are on the page (``benchmarks.bench_browser.WHOLE_PAGE``), and keeps
the chart's element: the chart drawn first must be the one still on the page once it is whole (the whole-page run
sends the same figure, which Streamlit keeps)."""

from __future__ import annotations

import json

import pytest

from benchmarks.bench_browser import HOOKS, WHOLE_PAGE

pytestmark = pytest.mark.browser

PAGE_LOAD = 240_000

_ORDER_JS = r"""
(() => {
  const O = window.__order = {};
  const tick = () => {
    const gd = document.querySelector(SELECTORS.map((s) => s + ' .js-plotly-plot').join(', '));
    if (!O.plot && gd && gd._fullLayout && gd._fullLayout.width) {
      O.plot = performance.now();
      O.wholeAtPlot = !!document.querySelector(WHOLE);
      window.__firstChart = gd;
    }
    if (!O.whole && document.querySelector(WHOLE)) O.whole = performance.now();
    if (!O.plot || !O.whole) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();
"""


def _wait_cost_cells(page, n: int) -> None:
    """Until the cost editor has its ``n`` cells (``WHOLE_PAGE`` holds from its first cell; the others stream in
    after it, seen a moment later under load)."""
    page.wait_for_function(
        "n => document.querySelectorAll('.st-key-cost_editor input').length === n", arg=n, timeout=30_000
    )


def test_a_first_visit_draws_the_regions_first_then_the_whole_page_around_the_same_chart(browser, app_url):
    page = browser.new_page()
    try:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.add_init_script(
            _ORDER_JS.replace("SELECTORS", json.dumps(HOOKS["regions"])).replace(
                "WHOLE", json.dumps(WHOLE_PAGE)
            )
        )
        page.goto(app_url)
        page.wait_for_function("window.__order.plot && window.__order.whole", timeout=PAGE_LOAD)
        order = page.evaluate("window.__order")
        assert order["wholeAtPlot"] is False, "the cost editor and sidebar came with the plot, not after it"
        assert order["plot"] < order["whole"]
        # the whole page holds the chart drawn first (not a new one), with its cost editor and presets
        same = "sel => { const gd = document.querySelector(sel); return gd === window.__firstChart && gd.isConnected; }"
        assert page.evaluate(same, ", ".join(f"{s} .js-plotly-plot" for s in HOOKS["regions"]))
        _wait_cost_cells(page, 9)  # airport: 3 x 3
        assert page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').count() >= 1
    finally:
        page.close()


def test_the_rest_of_the_page_comes_even_when_the_plot_cannot_be_drawn(browser, app_url):
    """plotly's code never arrives (its request fails): the watcher presses the button after 8 s all the same, so
    the cost editor and the sidebar are never lost behind a plot that does not draw."""
    page = browser.new_page()
    try:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.route("**/PlotlyChart*.js", lambda route: route.abort())
        page.goto(app_url)
        page.locator(".st-key-pg_rest").wait_for(state="attached", timeout=PAGE_LOAD)  # the plot sent alone
        page.wait_for_function(f"!!document.querySelector({json.dumps(WHOLE_PAGE)})", timeout=30_000)
        _wait_cost_cells(page, 9)
        assert page.locator(".st-key-pg_plot .js-plotly-plot").count() == 0  # the plot was never drawn
    finally:
        page.close()
