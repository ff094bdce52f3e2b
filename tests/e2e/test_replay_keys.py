"""The replay from the keyboard, in Chromium: Home and End go to the first and last round, ← and → step one round,
Space plays and pauses (the round moves, then stays), and typing in a cost cell leaves the replay alone."""

from __future__ import annotations

import pytest

from benchmarks import bench_browser as bb

pytestmark = pytest.mark.browser

_ROUND = """() => { const t = document.querySelector('.st-key-pg_plot .slider-group > text.slider-label');
  const m = t && /t = (\\d+) of (\\d+)/.exec(t.textContent); return m ? [Number(m[1]), Number(m[2])] : null; }"""


def _at(page, t: int) -> None:
    page.wait_for_function(f"() => ({_ROUND})()?.[0] === {t}", timeout=30_000)


def test_keys_step_play_and_pause_the_replay(app_url, browser):
    page, _ = bb.open_playground(browser, app_url)
    try:
        # the keys' script comes with the rest of the page, after the plot (a busy machine: seconds later)
        page.wait_for_function("() => window.__rebelReplayKeys === true", timeout=120_000)
        _, T = page.evaluate(_ROUND)
        page.evaluate(
            "() => document.activeElement && document.activeElement.blur()"
        )  # no field has the focus
        page.keyboard.press("Home")
        _at(page, 0)
        page.keyboard.press("ArrowRight")
        _at(page, 1)
        page.keyboard.press("ArrowRight")
        _at(page, 2)
        page.keyboard.press("ArrowLeft")
        _at(page, 1)
        page.keyboard.press("End")
        _at(page, T)
        page.keyboard.press("Home")
        _at(page, 0)
        page.keyboard.press("Space")  # plays
        page.wait_for_function(f"() => ({_ROUND})()?.[0] >= 3", timeout=30_000)
        page.keyboard.press("Space")  # pauses
        page.wait_for_function(
            f"""() => new Promise(done => {{ const a = ({_ROUND})()[0];
                 setTimeout(() => done(({_ROUND})()[0] === a), 600); }})""",
            timeout=30_000,
        )  # the round stays put once paused
        paused = page.evaluate(_ROUND)[0]
        assert 3 <= paused < T
        # keys typed into a cost cell are the cell's: the round does not move
        cell = page.locator(".st-key-cost_editor input").first
        cell.click()
        cell.press("End")
        cell.press("ArrowLeft")
        page.wait_for_timeout(300)
        assert page.evaluate(_ROUND)[0] == paused
    finally:
        page.close()
