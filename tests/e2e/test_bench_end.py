"""The browser benchmark's end mark, on a page built for it: a latency ends at the paint of the frame that first
shows the change, never before the change is in the page and never a frame later.

The page holds a stand-in for the regions chart (the hooks ``benchmarks.bench_browser`` reads: the chart's box,
its plot at the box's size, the round in the slider's label). A key press makes the page change the round after a
long task, either inside an animation callback (as plotly's replay steps do) or in a task between frames (as a
new chart is mounted). The assertions are orderings of the page's own clock, not durations: the measured end comes
after the code that made the change has finished (a frame cannot be painted while it runs) and before the
callbacks of the frame after the painting one.
"""

from __future__ import annotations

import pytest

from benchmarks import bench_browser as bb

pytestmark = pytest.mark.browser

_PAGE = """<html><body style="margin:0">
<div class="st-key-regions"><div data-testid="stPlotlyChart" style="width:400px;height:300px">
<div class="js-plotly-plot" style="width:400px;height:300px"><svg width="400" height="300">
<g class="slider-group"><text class="slider-label" x="10" y="20">round t = 5 of 10</text></g></svg></div></div></div>
<script>
  const gd = document.querySelector('.js-plotly-plot');
  gd._fullLayout = {width: 400, height: 300}; gd.data = []; gd.layout = {};
  const busy = (ms) => { const end = performance.now() + ms; while (performance.now() < end) {} };
  window.marks = {};
  const change = (round) => {
    busy(60);
    document.querySelector('.slider-label').textContent = `round t = ${round} of 10`;
    busy(120);  // the rest of the task that made the change: no frame is painted before it ends
    window.marks.done = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { window.marks.later = performance.now(); }));
  };
  window.addEventListener('keydown', (e) => {
    const round = Number(e.key);
    if (window.where === 'frame') requestAnimationFrame(() => change(round));
    else setTimeout(() => change(round), 0);
  });
</script></body></html>"""


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 800, "height": 600})
    page = context.new_page()
    page.set_content(_PAGE)
    bb._install(page)
    try:
        yield page
    finally:
        context.close()


@pytest.mark.parametrize("where", ["frame", "task"])
def test_a_latency_ends_at_the_paint_of_the_frame_that_shows_the_change(page, where):
    page.evaluate("w => { window.where = w; }", where)
    for round_ in (6, 7, 8):
        painted = bb._measure(page, lambda r=round_: page.keyboard.press(str(r)), want_round=round_)
        t0, done, later = page.evaluate(
            "() => { const m = window.marks; window.marks = {}; return [window.__bench.t0, m.done, m.later]; }"
        )
        end = t0 + painted
        assert done <= end, f"{where}: ended at {end:.1f} ms, before the change's task ended at {done:.1f} ms"
        assert end <= later, (
            f"{where}: ended at {end:.1f} ms, after the callbacks of the frame after the painting one "
            f"({later:.1f} ms)"
        )
        assert painted.polled is not None
