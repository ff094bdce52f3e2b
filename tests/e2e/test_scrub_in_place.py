"""The replay's scrub painted in place (``rebel/ui/browser/chart_in_place.js``): in Chromium at 1280 x 720 on the
default preset, a click on the regions figure's slider paints that round's frame without plotly's animation (which
recomputed the whole figure for every step), and what it leaves on the chart is what plotly itself draws from the
chart's data (``Plotly.redraw``: the mistakes' crosses, the numbers, the strip's round marker, the regions image);
Play afterwards goes on from the round scrubbed to, and the slider follows it; a scrub while it plays stops it at the
round scrubbed to."""

from __future__ import annotations

import pytest

from benchmarks import bench_browser as bb
from tests.e2e.conftest import settle

pytestmark = pytest.mark.browser

PLOT = ".st-key-pg_plot .js-plotly-plot"
ROUND = 37  # scrubbed to; the page opens at the last round
BACK = 12  # scrubbed to while the replay plays

# What a round leaves on the chart: every scatter trace's marker translations and texts as drawn, and the regions
# image's source; ``redraw``: after plotly drew the whole chart again from its data.
_DRAWN = """async ([sel, redraw]) => { const gd = document.querySelector(sel);
  if (redraw) await window.Plotly.redraw(gd);
  const traces = {};
  gd.data.forEach((tr, i) => { const cd = gd.calcdata[i], g = cd && cd[0] && cd[0].node3 && cd[0].node3.node();
    if (!g) return;
    traces[tr.name + ':' + i] = {markers: [...g.querySelectorAll('path.point')].map(e => e.getAttribute('transform')).sort(),
                                 text: [...g.querySelectorAll('g.textpoint')].map(e => e.outerHTML)}; });
  const image = [...gd.querySelectorAll('.imagelayer image')].find(e => e.__data__ && e.__data__._index === 0);
  return {traces, image: image.getAttribute('href'), source: gd.layout.images[0].source,
          t: gd.layout.sliders[0].active}; }"""
# Counts plotly's animations and notes the frames plotly animates (Play's).
_WATCH = """sel => { const gd = document.querySelector(sel); window.__animations = 0; window.__animated = [];
  const animate = window.Plotly.animate;
  window.Plotly.animate = function (...a) { window.__animations += 1; return animate.apply(this, a); };
  gd.on('plotly_animatingframe', e => window.__animated.push(String(e.name))); }"""
_FRAMES = "n => new Promise(done => { const step = k => k ? requestAnimationFrame(() => step(k - 1)) : done(); step(n); })"
_ROUND = """sel => { const t = document.querySelector(sel + ' .slider-group > text.slider-label');
  const m = t && /t = (\\d+)/.exec(t.textContent); return m ? Number(m[1]) : null; }"""


def test_a_scrub_is_painted_in_place_as_plotly_draws_it_and_play_goes_on_from_there(app_url, browser):
    bb.VIEWPORT.update(width=1280, height=720)
    try:
        page, _ = bb.open_playground(browser, app_url)
    finally:
        bb.VIEWPORT.update(width=1440, height=900)
    try:
        settle(page)
        # the page took the slider over (its steps run no command; chart_in_place.scrubbable)
        page.wait_for_function(
            "sel => document.querySelector(sel).layout.sliders[0].steps.every(s => s.execute === false)",
            arg=PLOT,
            timeout=30_000,
        )
        before = page.evaluate(_DRAWN, [PLOT, False])
        page.evaluate(_WATCH, PLOT)
        bb.scrub(page, ROUND)
        page.wait_for_function(f"sel => ({_ROUND})(sel) === {ROUND}", arg=PLOT, timeout=30_000)
        scrubbed = page.evaluate(_DRAWN, [PLOT, False])
        animations, animated = page.evaluate("[window.__animations, window.__animated]")
        frame_image = page.evaluate(
            "([sel, r]) => document.querySelector(sel)._transitionData._frameHash['t' + r].layout.images[0].source",
            [PLOT, ROUND],
        )
        redrawn = page.evaluate(_DRAWN, [PLOT, True])
        # Play goes on from the round scrubbed to (its first frame is the next one) and the slider follows it
        page.evaluate("window.__animated = []")
        page.locator(f"{PLOT} .updatemenu-button").first.click()
        page.wait_for_function("() => window.__animated.length >= 3", timeout=30_000)
        played = page.evaluate("window.__animated.slice(0, 3)")
        page.wait_for_function(f"sel => ({_ROUND})(sel) > {ROUND + 1}", arg=PLOT, timeout=30_000)
        # a scrub while it plays stops the replay there: 30 animation frames later it still shows that round
        bb.scrub(page, BACK)
        page.wait_for_function(f"sel => ({_ROUND})(sel) === {BACK}", arg=PLOT, timeout=30_000)
        page.evaluate("window.__animated = []")
        page.evaluate(_FRAMES, 30)
        stayed = page.evaluate(_ROUND, PLOT), page.evaluate("window.__animated")
        redrawn_back = page.evaluate(_DRAWN, [PLOT, False]), page.evaluate(_DRAWN, [PLOT, True])
    finally:
        page.close()

    assert animations == 0  # no plotly animation for the scrub
    assert animated == [f"t{ROUND}"]  # the chart's listeners heard it as a one-frame animation
    assert (
        scrubbed["t"] == ROUND and scrubbed["image"] == scrubbed["source"] == frame_image != before["image"]
    )
    assert scrubbed["traces"] != before["traces"]  # the round's traces moved
    assert scrubbed == redrawn  # as plotly draws the chart's data
    assert played == [f"t{ROUND + 1}", f"t{ROUND + 2}", f"t{ROUND + 3}"]
    assert stayed == (BACK, [])  # no frame of the replay after the scrub
    # (after Play, plotly's calcdata of the traces its frames did not move hold no element: compared where both do)
    back, again = redrawn_back
    assert {"mistake", "numbers", "round marker"} <= {k.rsplit(":", 1)[0] for k in back["traces"]}
    assert back["traces"].keys() <= again["traces"].keys()
    assert {k: again["traces"][k] for k in back["traces"]} == back["traces"] and back["t"] == again[
        "t"
    ] == BACK
    assert back["image"] == again["image"]
