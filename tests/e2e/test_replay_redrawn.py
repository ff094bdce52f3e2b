"""A retrained model's replay keeps its round when the chart is drawn again only for its box, in Chromium.

Presentation mode plays a retrained model's replay by itself ("Replay after retraining"). The figure the server
draws for it opens at t = 0 with an autoplay token. When the box then changes size (a window resized, or, on a busy
machine, the sidebar folding away only after the retrain's run), the server draws the figure again for the new
box. That figure used to open at the last round, so a replay that had started, or been paused, jumped to its end.
Now the figure drawn again carries the same token, and the page's script puts it back where the replay was: at the
round it was paused at, playing on from the round reached (once: the animation that played the figure before is
stopped), or at the last round once it has ended. And any figure the server draws while a replay plays (a new
model's, without a token) stops the animation of the figure before.

The edit here goes to the server: the disagreement overlay is on (``&show=dis`` in the link), and with an overlay
on the server draws every edit. Every wait is on a state of the page (the round shown, the figure made for a new box), never on a time.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from benchmarks import bench_browser as bb
from rebel.ui.config import DEFAULT_HYPER
from tests.e2e.layout_checks import wait_projector_ticks

pytestmark = pytest.mark.browser

PLOT = ".st-key-pg_plot .js-plotly-plot"
# The airport in presentation mode, opened at its last round (``&t=T``: the link's own replay is not played; the
# replays these tests watch are the retrained model's)
LINK = f"/?p=airport&present=1&show=dis&t={DEFAULT_HYPER['n_estimators']}"
PAUSE_AT = 5  # the round at which the page presses Pause, once the retrained model's replay has reached it

# The round the slider shows, the figure's height and its autoplay token (None while no chart is drawn).
_STATE = """sel => { const gd = document.querySelector(sel);
  const s = gd && gd.layout && gd.layout.sliders && gd.layout.sliders[0];
  if (!s || !gd._fullLayout) return null;
  return {active: s.active, T: s.steps.length - 1, height: gd._fullLayout.height,
          token: (gd.layout.meta && gd.layout.meta.autoplay) || null,
          playing: !!(gd._transitionData && gd._transitionData._animationRaf)}; }"""

# Press Pause (the figure's third button) from the page itself, the first time a chart with a new autoplay token
# (not ``old``, the one a link's presentation mode played) shows a round at or past PAUSE_AT: the round paused at
# does not depend on how fast the test sees it.
_PAUSE_WHEN_REACHED = """([sel, at, old]) => { window.__paused = null; const timer = setInterval(() => {
  const gd = document.querySelector(sel);
  const s = gd && gd.layout && gd.layout.sliders && gd.layout.sliders[0];
  const token = s && gd.layout.meta && gd.layout.meta.autoplay;
  if (!token || token === old || s.active < at) return;
  clearInterval(timer);
  gd.querySelectorAll('.updatemenu-button')[2].dispatchEvent(new MouseEvent('click', {bubbles: true}));
  window.__paused = true; }, 5); }"""


# From now on, in order: every frame plotly's animation applies to the chart (listened to again whenever the chart
# is plotted anew, which drops its listeners) as ["frame", t], and the round its slider shows on each animation
# frame as ["slider", t], once the page's script has put a figure drawn again in place (``links.ROUND_IN_LINK``;
# before that it shows its t = 0), after ["figure", 0] for each figure so put in place (as far as looked at: two
# drawn between two looks show as one); and ["start", t] for each animation started through ``window.Plotly``
# (the page script's, putting a replay back, and this test's), by its first round.
_RECORD = """sel => { const log = window.__replayLog = [];
  if (!window.__animateLogged) {  // every animation the page's script (or this test) starts, by its first round
    window.__animateLogged = true; const animate = window.Plotly.animate;
    window.Plotly.animate = function (gd, frames) {
      if (Array.isArray(frames) && frames.length && frames[0] !== null)
        window.__replayLog.push(['start', Number(String(frames[0]).slice(1))]);
      return animate.apply(this, arguments); }; }
  const look = () => {
  const gd = document.querySelector(sel);
  if (gd && gd.on && gd._ev !== gd.__logEv) { gd.__logEv = gd._ev;
    gd.on('plotly_animatingframe', e => log.push(['frame', Number(String(e.name).slice(1))])); }
  const s = gd && gd.layout && gd.layout.sliders && gd.layout.sliders[0];
  if (s && gd.__rebelFigure === gd.layout) {
    if (gd.layout !== window.__loggedLayout) { window.__loggedLayout = gd.layout; log.push(['figure', 0]); }
    log.push(['slider', s.active]); }
  requestAnimationFrame(() => setTimeout(look, 0)); };
  look(); }"""

# Play on from the round shown (or from t = 0 at the last), slowly (a frame every ``ms``, so that the figure drawn
# for a new box comes while it plays however busy the machine), with the Play button's own settings otherwise;
# keeps the animation's state as window.__played.
_PLAY_SLOWLY = """([sel, ms]) => { const gd = document.querySelector(sel), s = gd.layout.sliders[0];
  const names = gd._transitionData._frames.map(f => f.name), args = gd.layout.updatemenus[0].buttons[0].args[1];
  window.__played = gd._transitionData;
  window.Plotly.animate(gd, names.slice(s.active < names.length - 1 ? s.active : 0), Object.assign({}, args,
    {frame: Object.assign({}, args.frame, {duration: ms}), mode: 'immediate'})); }"""


def _state(page) -> dict | None:
    return page.evaluate(_STATE, PLOT)


def _wait_still(page, timeout: int = 60_000) -> dict:
    """The chart's state once no animation runs and the page is idle."""
    page.wait_for_function(
        """sel => { const gd = document.querySelector(sel);
             return gd && gd._transitionData && !gd._transitionData._animationRaf; }""",
        arg=PLOT,
        timeout=timeout,
    )
    bb._settle(page)
    return _state(page)


def _resize(page, size: tuple) -> dict:
    """Resize the window and wait for the figure the server draws for the new box: its points image is made for
    the new plot area (``layout.meta.points_image`` ends with that area's size; the chart on the page follows its
    box by itself first, so its own size says nothing of the server's figure); its state once still."""
    area = "sel => JSON.stringify(document.querySelector(sel).layout.meta.points_image.slice(-2))"
    before = page.evaluate(area, PLOT)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.wait_for_function(
        """([sel, before]) => { const gd = document.querySelector(sel);
             const m = gd && gd.layout && gd.layout.meta;
             return !!(m && m.points_image) && JSON.stringify(m.points_image.slice(-2)) !== before; }""",
        arg=[PLOT, before],
        timeout=90_000,
    )
    return _wait_still(page)


def test_a_replay_drawn_again_for_its_box_stays_at_its_round(app_url, browser):
    """Paused mid-replay, then the window resized: the figure drawn for the new box shows the round paused at (it
    showed the last round). Played to its end, then resized again: the figure shows the last round (not t = 0)."""
    page, _ = bb.open_playground(browser, app_url + LINK, (1280, 720))
    try:
        wait_projector_ticks(page, 17)
        opened = _wait_still(page)
        assert page.locator(".st-key-w_autoplay input").first.is_checked()
        page.evaluate(_PAUSE_WHEN_REACHED, [PLOT, PAUSE_AT, opened["token"]])
        bb.edit_cost(page, "7")()
        try:
            page.wait_for_function("() => window.__paused === true", timeout=90_000)
        except PlaywrightTimeout:
            raise AssertionError(
                f"the replay never showed t = {PAUSE_AT} with its token: {_state(page)}"
            ) from None
        paused = _wait_still(page)
        assert paused["token"] and PAUSE_AT <= paused["active"] < paused["T"], paused

        # drawn again for a larger box: the same token, at the round paused at
        redrawn = _resize(page, (1440, 900))
        assert redrawn["token"] == paused["token"], (paused, redrawn)
        assert redrawn["active"] == paused["active"], (
            f"paused at t = {paused['active']}, drawn again: {redrawn}"
        )

        # played to its end, then drawn again for a smaller box: the last round
        page.locator(f"{PLOT} .updatemenu-button").first.click()
        page.wait_for_function(
            "sel => { const gd = document.querySelector(sel), s = gd && gd.layout && gd.layout.sliders[0];"
            " return !!s && s.active === s.steps.length - 1; }",
            arg=PLOT,
            timeout=90_000,
        )
        ended = _wait_still(page)
        assert ended["active"] == ended["T"], ended
        again = _resize(page, (1280, 720))
        assert again["active"] == again["T"], f"the replay had ended; drawn again: {again}"
    finally:
        page.close()


def test_a_replay_drawn_again_while_it_plays_goes_on_once_and_forwards(app_url, browser):
    """Playing, then the window resized: the figure drawn for the new box plays on from the round the replay had
    reached, once. (The animation that was playing the figure before runs on by itself after the chart is plotted
    anew: left running beside the replay put back, the rounds were played twice and the slider stepped back.)"""
    page, _ = bb.open_playground(browser, app_url + LINK, (1280, 720))
    try:
        wait_projector_ticks(page, 17)
        opened = _wait_still(page)
        page.evaluate(_PAUSE_WHEN_REACHED, [PLOT, PAUSE_AT, opened["token"]])
        bb.edit_cost(page, "7")()
        page.wait_for_function("() => window.__paused === true", timeout=90_000)
        paused = _wait_still(page)
        assert paused["token"] and PAUSE_AT <= paused["active"] < paused["T"], paused

        page.evaluate(_RECORD, PLOT)
        page.evaluate(_PLAY_SLOWLY, [PLOT, 400])
        page.wait_for_function(
            "n => window.__replayLog.filter(([what]) => what === 'frame').length >= n", arg=2, timeout=60_000
        )
        assert _resize(page, (1440, 900))["token"] == paused["token"]
        try:
            page.wait_for_function(
                "sel => { const gd = document.querySelector(sel), s = gd && gd.layout && gd.layout.sliders[0];"
                " return !!s && gd.__rebelFigure === gd.layout && s.active === s.steps.length - 1; }",
                arg=PLOT,
                timeout=90_000,
            )
        except PlaywrightTimeout:
            raise AssertionError(f"the replay did not play on to its end: {_state(page)}") from None
        redrawn = _wait_still(page)
        log = page.evaluate("window.__replayLog")
        frames = [t for what, t in log if what == "frame"]
        shown = [t for what, t in log if what == "slider"]
        drawn = sum(what == "figure" for what, _ in log) - 1  # (the first: the figure playing slowly)
        assert drawn >= 1, log
        # one loop, forwards: a round is applied again only where the replay was put back, from that round
        starts = [t for what, t in log if what == "start"]
        assert starts[:1] == [paused["active"]], starts  # (this test's own, first: the log sees the starts)
        again = {t: frames.count(t) - 1 - starts.count(t) for t in set(frames)}
        assert frames == sorted(frames) and max(again.values()) <= 0, (
            f"rounds played while {drawn} figure(s) were drawn again: {frames}; animations started at {starts}"
        )
        assert shown == sorted(shown) and shown[-1] == redrawn["T"], f"the slider went back: {shown}"
    finally:
        page.close()


def test_a_replay_started_with_play_plays_on_in_the_figure_drawn_for_its_box(app_url, browser):
    """No token (the link's round, no retrain): the replay started with Play, then the window resized while it
    plays. The figure drawn for the new box (the same picture, ``layout.meta.picture``) plays on from the round
    reached: it opened at the link's last round and the replay stopped there (seen in the points test on a scene
    link, whose presentation mode folds the sidebar after the page's run, when Play came before that redraw)."""
    page, _ = bb.open_playground(browser, app_url + LINK, (1280, 720))
    try:
        wait_projector_ticks(page, 17)
        opened = _wait_still(page)
        assert opened["token"] is None and opened["active"] == opened["T"], opened
        # 150 ms a frame: under the 250 ms a round must stay for the page to write it into the address, which the
        # next run would send as the link's round, a new picture (a replay at Play's pace writes none either); a
        # figure the server draws again meanwhile (the folded sidebar's box) plays on at this pace
        page.evaluate(_PLAY_SLOWLY, [PLOT, 150])
        page.wait_for_function(
            "sel => { const gd = document.querySelector(sel), s = gd && gd.layout && gd.layout.sliders[0];"
            " if (s && s.active >= 2) { window.__before = gd.layout; return true; } return false; }",
            arg=PLOT,
            timeout=60_000,
        )
        page.set_viewport_size({"width": 1440, "height": 900})
        page.wait_for_function(  # the figure drawn for the new box, its frames in
            "sel => { const gd = document.querySelector(sel); return !!gd && !!gd.layout"
            " && gd.layout !== window.__before && !!(gd._transitionData && gd._transitionData._frames.length); }",
            arg=PLOT,
            timeout=90_000,
        )
        try:
            page.wait_for_function(
                "sel => { const gd = document.querySelector(sel), s = gd && gd.layout && gd.layout.sliders[0];"
                " return !!s && gd.layout !== window.__before && !!gd._transitionData._animationRaf"
                " && s.active >= 2 && s.active < s.steps.length - 1; }",
                arg=PLOT,
                timeout=30_000,
            )
        except PlaywrightTimeout:
            raise AssertionError(
                f"the figure drawn for the new box did not play on: {_state(page)}"
            ) from None
    finally:
        page.close()


def test_a_figure_drawn_while_the_replay_plays_stops_its_animation(app_url, browser):
    """Not in presentation mode, no token: the replay playing (slowly: its rounds would take minutes), then a cost
    edited, which the server draws (an overlay is on). The new model's figure stops the animation that played the
    one before (left running, it went on applying the old model's rounds to the new figure until its end)."""
    page, _ = bb.open_playground(browser, f"{app_url}/?p=airport&show=dis", (1280, 720))
    try:
        _wait_still(page)
        page.evaluate(_PLAY_SLOWLY, [PLOT, 2000])
        page.wait_for_function("() => !!window.__played._animationRaf", timeout=30_000)
        bb.edit_cost(page, "7")()
        page.wait_for_function(  # the new model's figure: the chart plotted anew
            "sel => { const gd = document.querySelector(sel); return !!gd && !!gd._transitionData"
            " && gd._transitionData !== window.__played && !!gd._fullLayout; }",
            arg=PLOT,
            timeout=90_000,
        )
        try:  # (left running, it goes on for about 190 s)
            page.wait_for_function("() => !window.__played._animationRaf", timeout=60_000)
        except PlaywrightTimeout:
            raise AssertionError("the animation of the figure before runs on over the new figure") from None
    finally:
        page.close()
