"""A page link clicked just as one of the Playground's scripts has something to write: the next page is drawn, and
gets nothing of the Playground's.

Streamlit folds a rerun asked for before the previous request's run has started into that run, with the newer
request's page. The viewport script (``rebel.ui.viewport.WATCH``) commits its hidden text box 300 ms after a
resize; committed between a click on a page link and the start of that page's run, it turned the run into a run
of the Playground, and the page clicked stayed blank (seen under load). Here the window is made certain: the
server is stopped (SIGSTOP) while the window is resized and the link clicked, for longer than the script's delay,
then resumed. The script must send nothing in that window, and the page clicked must be drawn.

The round in the address bar (``rebel.ui.playground.widgets.ROUND_IN_LINK``) is written 250 ms after the replay's
slider stops. A page link clicked within those 250 ms changes the address; a write after that put the Playground's
``t`` into the other page's address. That test runs the script itself beside a stand-in plot, so the timing is
certain.
"""

from __future__ import annotations

import os
import re
import signal

import pytest

from benchmarks.bench_browser import open_playground
from rebel.ui.playground.widgets import ROUND_IN_LINK
from tests.e2e.conftest import NAV_LINKS, set_run_state, settle

pytestmark = pytest.mark.browser

LOAD = 240_000  # ms

COUNT_COMMITS = """() => {
  window.__viewportCommits = 0;
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.target.closest && e.target.closest('.st-key-pg_viewport')) window.__viewportCommits++;
  }, true);
}"""


@pytest.fixture
def server(app_server):
    """The session's server (``app_server``): the first test stops it for a moment and resumes it."""
    return app_server


def test_a_page_link_clicked_as_the_window_is_resized_opens_that_page(browser, server):
    url, proc = server
    page, _ = open_playground(browser, url)
    try:
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
    finally:
        page.close()


def test_a_preset_picked_by_its_picture_as_the_window_is_resized_stays(browser, server):
    """A rerun the page asks for carries every widget's value as the browser shows it. The viewport script's size
    commit, sent after a click on a preset's picture and before the click's run has sent back the preset box it
    changed, carries the preset before; taken after that run's callbacks, it is the user's choice of the old preset
    (in the suite the picture clicked sometimes never turned primary). The script must send nothing from the user's
    click until the run it asked for is over. Here the window is made certain: the server is stopped while the
    picture is clicked and the window resized, for longer than the script's delay; then the preset clicked stays."""
    from tests.e2e.conftest import open_preset_pictures

    url, proc = server
    side = "[data-testid='stSidebar']"
    page, _ = open_playground(browser, url)
    try:
        settle(page, LOAD)
        open_preset_pictures(page)
        page.locator(f"{side} .st-key-w_thumb_xor button").first.wait_for(timeout=LOAD)
        settle(page, LOAD)
        page.evaluate(COUNT_COMMITS)
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            page.locator(f"{side} .st-key-w_thumb_xor button").first.click()
            page.set_viewport_size({"width": 1280, "height": 760})  # the script's 300 ms delay starts
            page.wait_for_timeout(1200)  # the delay is over while the server has not drawn the click's run
            commits = page.evaluate("window.__viewportCommits")
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        assert commits == 0, "the viewport script committed a size while the click's run was under way"
        page.locator(f"{side} .st-key-w_thumb_xor [data-testid='stBaseButton-primary']").wait_for(
            timeout=LOAD
        )
        settle(
            page, LOAD
        )  # the size the script sends once the run is over does not bring the old preset back
        page.wait_for_function(
            "() => (document.querySelector('.st-key-pg_viewport input') || {}).value.startsWith('760x')",
            timeout=LOAD,
        )
        settle(page, LOAD)
        assert page.locator(f"{side} .st-key-w_thumb_xor [data-testid='stBaseButton-primary']").count() == 1
    finally:
        page.close()


# A stand-in for the replay figure, enough for ``ROUND_IN_LINK``: plotly's event hook and its slider's state.
FAKE_PLOT = """() => {
  const box = document.createElement('div');
  box.className = 'st-key-pg_plot';
  const gd = document.createElement('div');
  gd.className = 'js-plotly-plot';
  gd.handlers = {};
  gd.on = (name, f) => { gd.handlers[name] = f; };
  gd.layout = {sliders: [{active: 12, steps: Array.from({length: 101}, (_, t) => ({label: String(t)}))}]};
  box.appendChild(gd);
  document.body.appendChild(box);
  window.__gd = gd;
}"""


@pytest.mark.parametrize("leave", ["history.pushState(null, '', '/Theory?depth=2')", "window.__gd.remove()"])
def test_the_round_is_written_only_while_its_plot_is_on_the_page_it_came_from(browser, server, leave):
    """``ROUND_IN_LINK`` writes the round 250 ms after the slider stops. A page link clicked in that time changes
    the address (and the plot leaves the page when the next page is drawn): the round must not go into the other
    page's address, nor be written for a plot no longer drawn."""
    url, _ = server
    page = browser.new_page()
    try:
        page.goto(f"{url}/_stcore/health")  # the app's origin, no app: the script runs on its own
        page.evaluate(FAKE_PLOT)
        page.evaluate(_script_body(ROUND_IN_LINK))
        page.wait_for_function("() => 'plotly_sliderchange' in window.__gd.handlers")
        page.evaluate("() => window.__gd.handlers.plotly_sliderchange()")  # a scrub to round 12
        page.wait_for_timeout(600)
        assert re.search(r"[?&]t=12\b", page.url), page.url  # written where the plot is
        page.evaluate(
            "() => { window.__gd.layout.sliders[0].active = 30; window.__gd.handlers.plotly_sliderchange(); }"
        )
        page.evaluate(leave)  # within the 250 ms
        page.wait_for_timeout(600)
        assert not re.search(r"[?&]t=30\b", page.url), page.url
    finally:
        page.close()


def _script_body(html: str) -> str:
    """The JavaScript of a ``<script>...</script>`` block, as a function body for ``page.evaluate``."""
    code = html.strip().removeprefix("<script>").removesuffix("</script>")
    return "() => {" + code + "}"


# A stand-in first page for the viewport script's button (``viewport.rest_button``): the app's run state, a drawn
# plot and the hidden button, which counts its presses.
FAKE_FIRST_PAGE = """() => {
  const app = document.createElement('div');
  app.setAttribute('data-testid', 'stApp');
  const plot = document.createElement('div');
  plot.className = 'st-key-pg_plot';
  const gd = document.createElement('div');
  gd.className = 'js-plotly-plot';
  gd._fullLayout = {};
  plot.appendChild(gd);
  const rest = document.createElement('div');
  rest.className = 'st-key-pg_rest';
  const b = document.createElement('button');
  window.__presses = 0;
  b.addEventListener('click', () => { window.__presses += 1; });
  rest.appendChild(b);
  app.append(plot, rest);
  document.body.appendChild(app);
}"""


@pytest.mark.parametrize("its_run_starts", [True, False], ids=["its run starts", "no run comes"])
def test_the_first_pages_button_is_pressed_again_only_when_no_run_came(browser, server, its_run_starts):
    """The first page's button stays on the page until a run completes without it. Pressed again 3 s later while
    its run was under way (a slow machine), the press carried every widget's value as the browser showed it
    before the user's first clicks (a preset picked by its picture came back as the one before). Once a run has
    started after the press, the script presses no more; with no run at all, it presses again (the page is never
    left half-drawn)."""
    from rebel.ui.viewport import WATCH

    url, _ = server
    page = browser.new_page()
    try:
        page.goto(f"{url}/_stcore/health")  # the app's origin, no app: the script runs on its own
        page.evaluate(FAKE_FIRST_PAGE)
        set_run_state(page, "notRunning")
        page.evaluate(_script_body(WATCH))
        page.wait_for_function("window.__presses === 1", timeout=10_000)
        if its_run_starts:  # the press's run: under way, then over with the button still there (interrupted)
            set_run_state(page, "running")
            page.wait_for_timeout(100)
            set_run_state(page, "notRunning")
            page.wait_for_timeout(4000)  # past the script's 3 s between presses
            assert page.evaluate("window.__presses") == 1
        else:
            page.wait_for_function("window.__presses === 2", timeout=10_000)
    finally:
        page.close()
