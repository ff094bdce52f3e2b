"""A page link clicked just as the Playground's viewport script has a new size to send: the next page is drawn.

Streamlit folds a rerun asked for before the previous request's run has started into that run, with the newer
request's page. The viewport script (``rebel.ui.viewport.WATCH``) commits its hidden text box 300 ms after a
resize; committed between a click on a page link and the start of that page's run, it turned the run into a run
of the Playground, and the page clicked stayed blank (seen under load). Here the window is made certain: the
server is stopped (SIGSTOP) while the window is resized and the link clicked, for longer than the script's delay,
then resumed. The script must send nothing in that window, and the page clicked must be drawn.
"""

from __future__ import annotations

import os
import signal

import pytest

from benchmarks.bench_browser import open_playground
from tests.e2e.conftest import NAV_LINKS, serve_app, settle

pytestmark = pytest.mark.browser

LOAD = 240_000  # ms

COUNT_COMMITS = """() => {
  window.__viewportCommits = 0;
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.target.closest && e.target.closest('.st-key-pg_viewport')) window.__viewportCommits++;
  }, true);
}"""


def test_a_page_link_clicked_as_the_window_is_resized_opens_that_page(browser):
    with serve_app() as (url, proc):
        page, _ = open_playground(browser, url)
        settle(page, LOAD)
        page.evaluate(COUNT_COMMITS)
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            page.locator(NAV_LINKS, has_text="Theory").first.click()
            page.set_viewport_size({"width": 1280, "height": 760})  # the script's 300 ms delay starts
            page.wait_for_timeout(1200)  # the delay is over while the server has not started the new run
            commits = page.evaluate("window.__viewportCommits")
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        assert commits == 0, "the viewport script committed a size after a page link was clicked"
        page.locator("[data-testid='stMain'] h1", has_text="Theory").first.wait_for(timeout=LOAD)
        settle(page, LOAD)
        assert page.locator("[data-testid='stMain'] h1", has_text="Theory").count() == 1
        assert page.locator("[data-testid='stException']").count() == 0
        # back on the Playground, the script still sends a new size (it waits only while a page run is pending)
        page.locator(NAV_LINKS, has_text="Playground").first.click()
        page.locator(".st-key-pg_plot .js-plotly-plot .main-svg").first.wait_for(timeout=LOAD)
        settle(page, LOAD)
        page.set_viewport_size({"width": 1280, "height": 700})
        page.wait_for_function(
            "() => (document.querySelector('.st-key-pg_viewport input') || {}).value === '700x' + "
            "Math.floor(document.querySelector('div.st-key-pg_plot').getBoundingClientRect().width)",
            timeout=LOAD,
        )
