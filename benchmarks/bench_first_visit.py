"""Where a first visit's time goes: a timeline of new browsers opening the Playground on a warm server.

``bench_browser`` times a first visit from the navigation to the painted regions (target 2.5 s at 1280 x 720).
This prints, for each of ``--visits`` new browser contexts (no cookie, no cache of their own), what happened
before that paint, on the page's own clock (ms from the navigation):

- ``page``: the HTML's response and Streamlit's ``DOMContentLoaded``; ``ws open``: the websocket to the server;
- ``msg``: the server's first messages; ``STYLE``: the one with the page's one-screen style; ``CHART``: the one
  with the regions figure's spec (its size in kB);
- ``fetch``: Streamlit's lazily loaded code (``PlotlyChart``: plotly.js, ~4.7 MB, requested by the hidden chart
  the page sends first, ``widgets.preload_charts``; ``Html``: the code drawing ``st.html``), start and end;
- ``long``: every long animation frame over 50 ms, its length and the two scripts that took the most of it;
- ``style in page``: the first animation frame on which the one-screen style is in the page; ``regions drawn``:
  the first on which the regions chart has been drawn; ``whole page drawn``: the first with the cost editor's cells
  and the sidebar's preset box (``bench_browser.WHOLE_PAGE``).

The server is warmed by one visit first (its shared cache holds the default model), so the server's part is the
page's run, not training. The websocket messages are stamped by Playwright as they reach it (a few ms late).

Run: ``python -m benchmarks.bench_first_visit [--visits 3] [--viewport 1280x720]``
"""

from __future__ import annotations

import argparse
import json
import time

from benchmarks._common import CHROMIUM, CHROMIUM_ARGS, free_port, load_average
from benchmarks.bench_browser import WHOLE_PAGE, start_app, stop_app

_PROBE = r"""
(() => {
  const log = window.__timeline = [];
  const at = (what) => log.push([what, Math.round(performance.now())]);
  let drawn = false, styled = false, whole = false;
  const tick = () => {
    if (!styled && [...document.querySelectorAll('style')].some(
        e => e.textContent.includes('div.st-key-pg_plot {height'))) { styled = true; at('style in page'); }
    for (const gd of document.querySelectorAll('.st-key-pg_plot .js-plotly-plot'))
      if (!drawn && gd._fullLayout && gd._fullLayout.width) { drawn = true; at('regions drawn'); }
    if (!whole && document.querySelector(WHOLE)) { whole = true; at('whole page drawn'); }
    if (!drawn || !whole) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration <= 50) continue;
      const top = [...(e.scripts || [])].sort((a, b) => b.duration - a.duration).slice(0, 2)
        .map(s => (s.sourceURL || '?').split('/').pop().split('.')[0] + ' ' + Math.round(s.duration));
      log.push(['long ' + Math.round(e.duration) + ' ms' + (top.length ? ' (' + top.join(', ') + ')' : ''),
                Math.round(e.startTime)]);
    }
  }).observe({type: 'long-animation-frame', buffered: true});
})();
"""

_RESOURCES = """performance.getEntriesByType('resource')
  .filter(e => /\\/(PlotlyChart|Html)\\.[^/]*\\.js$/.test(e.name))
  .map(e => [e.name.split('/').pop().split('.')[0], Math.round(e.startTime), Math.round(e.responseEnd)])"""
_NAVIGATION = """(() => { const e = performance.getEntriesByType('navigation')[0];
  return [Math.round(e.responseEnd), Math.round(e.domContentLoadedEventEnd)]; })()"""


def _visit(browser, url: str, width: int, height: int) -> list[tuple[int, str]]:
    """One first visit in a new context; its timeline as (ms from the navigation, event), in order."""
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.add_init_script(_PROBE.replace("WHOLE", json.dumps(WHOLE_PAGE)))
        messages = []

        def on_websocket(ws):
            messages.append(("ws open", time.time() * 1000))

            def received(payload):
                data = payload if isinstance(payload, bytes) else payload.encode()
                if b'"frames"' in data:
                    messages.append((f"CHART {len(data) // 1000} kB", time.time() * 1000))
                elif b"div.st-key-pg_plot {height" in data:
                    messages.append(("STYLE", time.time() * 1000))
                elif len(messages) < 3:
                    messages.append((f"msg {len(data)} B", time.time() * 1000))

            ws.on("framereceived", received)

        page.on("websocket", on_websocket)
        page.goto(url, wait_until="commit")
        page.locator(".st-key-pg_plot .slider-label").first.wait_for(timeout=240_000)
        page.wait_for_timeout(1500)  # the long tasks right after the paint
        origin = page.evaluate("performance.timeOrigin")
        events = [(round(ms - origin), what) for what, ms in messages]
        events += [(t, what) for what, t in page.evaluate("window.__timeline")]
        for name, start, end in page.evaluate(_RESOURCES):
            events += [(start, f"fetch {name} start"), (end, f"fetch {name} end")]
        response, loaded = page.evaluate(_NAVIGATION)
        events += [(response, "page: HTML received"), (loaded, "page: DOMContentLoaded")]
        return sorted(events)
    finally:
        context.close()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--visits", type=int, default=3, help="first visits timed (each a new browser context)")
    ap.add_argument("--viewport", default="1280x720", help="browser window WIDTHxHEIGHT")
    args = ap.parse_args(argv)
    width, height = (int(v) for v in args.viewport.lower().split("x"))
    from playwright.sync_api import sync_playwright

    proc, url = start_app(free_port())
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            _visit(browser, url, width, height)  # warms the server: its shared cache holds the default model
            for i in range(1, args.visits + 1):
                events = _visit(browser, url, width, height)
                print(f"first visit {i} ({args.viewport}), {load_average()}:")
                for t, what in events:
                    print(f"  {t:6d} ms  {what}")
            browser.close()
    finally:
        stop_app(proc)


if __name__ == "__main__":
    main()
