"""First visits to the Playground with and without the chart bundle's preload, interleaved, and where each went.

Starts one server of this tree per arm (``REBEL_CHART_PRELOAD`` set to the arm's value, see
``rebel.ui.chart_preload``; "0" is Streamlit's page unchanged), one throwaway visit each, then ``--visits`` first
visits per arm, each in a new browser context, taken in turn (A B A B ..., the order swapped every round) so the
arms see the same load. A first visit is timed as ``bench_browser`` times it (navigation start to the end of the
frame that first paints the regions plot with its round, ``open_playground``), at ``--viewport`` and with
``--present`` in presentation mode.

Each visit's breakdown, in ms since navigation start: ``dcl`` Streamlit's page DOMContentLoaded; ``ws`` its
websocket open; ``msg`` the server's first message; ``fetch`` the chart bundle's fetch (start-end, resource
timing); ``chart`` the first chart element in the page; ``eval`` the chart bundle's longest script entry in a
long animation frame (start+duration); ``paint`` the first visit's end. Then per arm the median, min and max,
the load averages and the phases' medians, and for each arm against the first the median of the paired
differences (the two visits of a round, taken one after the other) with a distribution-free interval: of the
paint, of ``busy`` (the main thread's animation frames of 100 ms or more before the paint, CPU work that a loaded machine
stretches) and of ``wait`` (the paint less ``busy``: the page waiting for the network and the server).

Run: ``python -m benchmarks.bench_chart_preload [--arms 0,1] [--visits 5] [--viewport 1280x720] [--present]``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics

from benchmarks import bench_browser as bb
from benchmarks._common import CHROMIUM, CHROMIUM_ARGS, free_port

# Recorder, run before the page's scripts (measurement only): the websocket's open and first message, the first
# chart element, and every long animation frame's scripts.
_RECORD_JS = r"""
(() => {
  const R = window.__fv = {ws: null, msg: null, chart: null, frames: []};
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...args) {
      super(...args);
      this.addEventListener('open', () => { if (R.ws === null) R.ws = performance.now(); });
      this.addEventListener('message', () => { if (R.msg === null) R.msg = performance.now(); });
    }
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) R.frames.push({start: e.startTime, dur: e.duration,
      scripts: e.scripts.map((s) => [s.sourceURL.split('/').pop(), s.startTime, s.duration, s.invoker])});
  }).observe({type: 'long-animation-frame', buffered: true});
  const look = () => {
    if (document.querySelector('[data-testid="stPlotlyChart"]')) R.chart = performance.now();
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();
"""

_COLLECT_JS = r"""
(() => {
  const R = window.__fv, nav = performance.getEntriesByType('navigation')[0];
  const bundle = performance.getEntriesByType('resource').find((r) => /PlotlyChart\.[^/]*\.js/.test(r.name));
  let ev = null;
  for (const f of R.frames) for (const [src, start, dur] of f.scripts)
    if (/PlotlyChart/.test(src) && (ev === null || dur > ev[1])) ev = [start, dur];
  return {dcl: nav.domContentLoadedEventEnd, ws: R.ws, msg: R.msg, chart: R.chart,
    fetch: bundle ? [bundle.startTime, bundle.responseEnd] : null, eval: ev,
    late: performance.getEntriesByType('resource')
      .filter((r) => /\.js$/.test(r.name) && r.startTime > nav.domContentLoadedEventEnd)
      .map((r) => [r.name.split('/').pop().split('.')[0], r.initiatorType, r.startTime, r.responseEnd]),
    long: R.frames.filter((f) => f.dur >= 100).map((f) => [f.start, f.dur])};
})()
"""


def visit(browser, url: str) -> dict:
    """One first visit in a new browser context: its time (``bench_browser.open_playground``) and breakdown."""
    context = browser.new_context(viewport=bb.VIEWPORT)
    try:
        context.add_init_script(_RECORD_JS)
        page, painted = bb.open_playground(context, url)
        out = page.evaluate(_COLLECT_JS)
        out["paint"] = float(painted)
        # the main thread's long-frame time before the paint, and the rest: time spent waiting (network, server)
        out["busy"] = sum(
            min(start + dur, out["paint"]) - start for start, dur in out["long"] if start < out["paint"]
        )
        out["wait"] = out["paint"] - out["busy"]
        out["load"] = bb.load1()
        return out
    finally:
        context.close()


LATE_SHOWN = 4  # the first lazily loaded chunks a visit fetched after DOMContentLoaded


def _fmt(row: dict) -> str:
    def t(v):
        return "-" if v is None else f"{v:.0f}"

    fetch = "-" if row["fetch"] is None else f"{row['fetch'][0]:.0f}-{row['fetch'][1]:.0f}"
    ev = "-" if row["eval"] is None else f"{row['eval'][0]:.0f}+{row['eval'][1]:.0f}"
    long = " ".join(f"{s:.0f}+{d:.0f}" for s, d in row["long"])
    late = " ".join(f"{n} {s:.0f}-{e:.0f}" for n, _, s, e in row["late"][:LATE_SHOWN])
    return (
        f"paint {row['paint']:6.0f}  dcl {t(row['dcl'])}  ws {t(row['ws'])}  msg {t(row['msg'])}  "
        f"fetch {fetch}  chart {t(row['chart'])}  eval {ev}  load {row['load']:.2f}  long frames: {long}"
        f"  js fetched after DOMContentLoaded: {late or '-'}"
    )


def median_interval(values: list) -> tuple[float, float, float]:
    """A distribution-free interval for the median of ``values``: the order statistics (j, n + 1 - j) with the
    largest j whose coverage is >= 95 % (the extremes when n is too small for that); returns (low, high,
    coverage)."""
    xs, n = sorted(values), len(values)
    tail = [math.comb(n, i) / 2**n for i in range(n + 1)]
    j = 1
    while j < n // 2 and 1 - 2 * sum(tail[: j + 1]) >= 0.95:
        j += 1
    return xs[j - 1], xs[n - j], 1 - 2 * sum(tail[:j])


def _phases(rows: list) -> str:
    """Medians of a visit's phases (ms): DOMContentLoaded, the server's first message, the wait from that
    message to the bundle's evaluation, the evaluation, and from its end to the paint."""

    def med(f):
        values = [f(r) for r in rows if r["eval"] is not None and r["msg"] is not None]
        return statistics.median(values) if values else float("nan")

    return (
        f"(medians: dcl {med(lambda r: r['dcl']):.0f}, msg {med(lambda r: r['msg']):.0f}, "
        f"msg->eval {med(lambda r: r['eval'][0] - r['msg']):.0f}, eval {med(lambda r: r['eval'][1]):.0f}, "
        f"eval end->paint {med(lambda r: r['paint'] - r['eval'][0] - r['eval'][1]):.0f}; "
        f"long frames before the paint {med(lambda r: r['busy']):.0f}, the rest {med(lambda r: r['wait']):.0f})"
    )


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--arms", default="0,1", help="REBEL_CHART_PRELOAD values, one server each (e.g. 0,fetch,1)"
    )
    ap.add_argument("--visits", type=int, default=5, help="first visits per arm (>= 5)")
    ap.add_argument("--viewport", default="1280x720", help="browser window WIDTHxHEIGHT")
    ap.add_argument("--present", action="store_true", help="presentation mode (?present=1)")
    args = ap.parse_args(argv)
    if args.visits < 5:
        ap.error(f"argument --visits: at least 5 visits per arm are needed; got {args.visits}.")
    width, height = bb.viewport_size(ap, args.viewport)
    bb.VIEWPORT.update(width=width, height=height)
    bb.PRESENT["on"] = args.present
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    from playwright.sync_api import sync_playwright

    servers, rows = {}, {arm: [] for arm in arms}
    before = os.environ.get("REBEL_CHART_PRELOAD")
    try:
        for arm in arms:
            os.environ["REBEL_CHART_PRELOAD"] = arm
            servers[arm] = bb.start_app(free_port())
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for arm in arms:  # the throwaway visit: each server warm
                visit(browser, servers[arm][1])
            for k in range(args.visits):
                for arm in arms if k % 2 == 0 else arms[::-1]:
                    row = visit(browser, servers[arm][1])
                    rows[arm].append(row)
                    print(f"[{arm}] {_fmt(row)}", flush=True)
            browser.close()
    finally:
        for proc, _ in servers.values():
            bb.stop_app(proc)
        if before is None:
            os.environ.pop("REBEL_CHART_PRELOAD", None)
        else:
            os.environ["REBEL_CHART_PRELOAD"] = before
    mode = ", presentation mode" if args.present else ""
    print(f"== first visit, viewport {width}x{height}{mode}, {args.visits} visits per arm, interleaved")
    for arm in arms:
        paints = [r["paint"] for r in rows[arm]]
        loads = [r["load"] for r in rows[arm]]
        print(
            f"REBEL_CHART_PRELOAD={arm:<5} median {statistics.median(paints):7.0f} ms  min {min(paints):6.0f}  "
            f"max {max(paints):6.0f}  n={len(paints)}  load {min(loads):.2f}-{max(loads):.2f}  "
            f"{_phases(rows[arm])}"
        )
    for arm in arms[1:]:  # each round's two visits were taken one after the other: their difference
        for what in ("paint", "busy", "wait"):
            diffs = [b[what] - a[what] for a, b in zip(rows[arms[0]], rows[arm], strict=True)]
            low, high, cover = median_interval(diffs)
            print(
                f"{arm} - {arms[0]} ({what}): median of the paired differences {statistics.median(diffs):+.0f} ms, "
                f"{cover:.0%} interval [{low:+.0f}, {high:+.0f}] ms (order statistics), "
                f"lower in {sum(d < 0 for d in diffs)} of {len(diffs)} rounds"
            )
    print(f"load average at the end (1, 5, 15 min): {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return rows


if __name__ == "__main__":
    main()
