"""A class renamed in the Playground's clusters table, in Chromium: the time from the Enter that commits the new
name to the first frame whose regions legend shows it, and where that time goes.

Starts ``streamlit run app.py`` (``bench_browser.start_app``), opens the Playground on the fig7 preset with the
clusters table open (``OPEN``) at ``--viewport`` and renames class C's only cluster ``--renames`` times (new
names each time, kept in the same sorted place; ``--moving``: alternately to the end of the sorted order and
back). Each rename is timed in the page from the browser's own keydown of the Enter that commits the name
(capture phase, so Playwright's round trip is not counted) to:

- ``runs``: each time the page showed a script running (``data-test-script-state`` of Streamlit's app turning
  ``running`` and back), as (start, end);
- ``figure``: the first regions figure after the Enter (a new ``layout`` object on the chart);
- ``legend``: the first animation frame whose regions legend names the new class (the figure drawn);
- ``sidebar``: the first frame whose sidebar names it (the whole page's run has reached the sidebar).

Each line also names the runs the server made for the rename (``watch_runs``: ``page`` for the whole page's,
``fragment`` for the main area's; a run stopped before its first line is left out) and how many regions charts
they sent.

Run: ``python -m benchmarks.bench_rename [--renames 7] [--viewport 1280x720] [--present] [--moving] [--root DIR]``
(``--root``: another checkout to serve, e.g. the code before a change). Prints one line per rename, then the
median Enter-to-legend time with its min and max and the load averages (``os.getloadavg()``) before and after. A
test asserts what the page shows and which runs a rename takes (``tests/e2e/test_rename_relabel_browser.py``),
never a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from benchmarks import bench_browser as bb
from benchmarks._common import CHROMIUM, CHROMIUM_ARGS, free_port

OPEN = "?p=fig7&details=Clusters"  # four classes A..D; class C's only cluster is the table's row 4
RENAMED_ROW = 4
ROW_PX = 35  # the data editor's header and row height
CLASS_X = 60  # px from the grid's left edge: inside the class column (after the row markers)

# The page's recorder (``page.evaluate(ARM_JS, name)`` before the Enter): times from the Enter that commits the
# typed name (the browser's keydown on the grid's cell editor, capture phase) to the script runs' starts and ends,
# the first new regions figure, the first frame whose legend / cost editor / sidebar names the new class.
ARM_JS = """(name) => {
  const app = () => document.querySelector("[data-testid='stApp']");
  const plot = () => document.querySelector('.st-key-pg_plot .js-plotly-plot');
  const gd0 = plot(), layout = gd0 && gd0.layout;
  const T = window.__rename = {name, enter: null, runs: [], figure: null, legend: null, seen: null,
                               sidebar: null};
  const named = (sel) => [...document.querySelectorAll(sel)].some(e => e.textContent.trim() === name);
  const inSidebar = () => {
    const s = document.querySelector("[data-testid='stSidebar']");
    return !!s && s.textContent.includes(name);
  };
  let state = null;
  document.addEventListener('keydown', e => {
    if (e.key !== 'Enter' || T.enter !== null || !e.target.classList.contains('gdg-input')) return;
    T.enter = performance.now();  // the Enter that commits the typed name (not the one opening the cell)
    T.epoch = performance.timeOrigin + T.enter;  // (the same moment in ms since 1970, for the server's logs)
    state = app() && app().getAttribute('data-test-script-state');
    new MutationObserver(() => {
      const now = app() && app().getAttribute('data-test-script-state'), t = performance.now() - T.enter;
      if (now === state) return;
      if (now === 'running') T.runs.push([t, null]);
      else if (state === 'running' && T.runs.length) T.runs[T.runs.length - 1][1] = t;
      state = now;
    }).observe(app(), {attributes: true, attributeFilter: ['data-test-script-state']});
    const tick = () => {
      const t = performance.now() - T.enter, gd = plot();
      if (T.figure === null && gd && gd.layout !== layout) T.figure = t;
      if (T.legend === null && named('.st-key-pg_plot .legendtext')) T.legend = t;
      if (T.seen === null && named('.st-key-cost_editor [data-testid="stCaptionContainer"]')) T.seen = t;
      if (T.sidebar === null && inSidebar()) T.sidebar = t;
      if (T.legend === null || T.seen === null || T.sidebar === null) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, {capture: true});
}"""
DONE_JS = "() => { const T = window.__rename; return T.legend !== null && T.seen !== null; }"


def watch_runs(page) -> list:
    """The script runs the server starts for ``page`` from now on, in order, read from its websocket's messages:
    each ``{"run": "page" | "fragment", "end": how it ended (``ForwardMsg.ScriptFinishedStatus``'s name, None
    while it runs), "charts": the keys of the Plotly charts it sent}`` (``"fragment"``: a run of a part of the
    page, its main area). Returns the list, which grows as runs start; call it before the page opens."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    runs: list = []

    def frame(payload) -> None:
        if isinstance(payload, str):
            return
        msg = ForwardMsg.FromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            runs.append(
                {"run": "fragment" if msg.metadata.run.fragment_ids else "page", "end": None, "charts": []}
            )
        elif runs and kind == "script_finished":
            runs[-1]["end"] = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
        elif runs and kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            if element.WhichOneof("type") == "plotly_chart":
                runs[-1]["charts"].append(element.plotly_chart.id)

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    return runs


def open_clusters(page, url: str, present: bool = False) -> None:
    """The Playground at ``OPEN`` (``present``: in presentation mode) with its clusters table in view, the page
    idle."""
    page.goto(f"{url}/{OPEN}" + ("&present=1" if present else ""))
    page.wait_for_selector(".st-key-pg_plot .js-plotly-plot .legendtext", timeout=240_000)
    bb._install(page)
    idle(page)
    page.locator("[data-testid='stDataFrame']").last.scroll_into_view_if_needed()


IDLE_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector("[data-testid='stStatusWidget']");
}"""


def idle(page) -> None:
    """Wait until no script runs and the regions plot has been unchanged for a while (``bb._settle``), twice: a
    run the browser asks for right after one is caught by the second look."""
    for _ in range(2):
        page.wait_for_function(IDLE_JS, timeout=120_000, polling=100)
        bb._settle(page, quiet_ms=500)


def type_class(page, row: int, name: str, commit: bool = True) -> None:
    """Open the class cell of the clusters table's ``row`` (a click on its place in the canvas grid, Enter) and
    type ``name`` (and Enter, with ``commit``). While the page reruns the table can move under the pointer (the
    message tray above it grows) or be drawn again as it is clicked; a cell editor that has not opened after
    5 s is asked for again at the table's new place, as a person would click again (at most 4 tries)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    grid = page.locator("[data-testid='stDataFrame']").last
    cell = page.locator(".gdg-input:not([disabled])").first
    for attempt in range(4):
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        page.mouse.click(box["x"] + CLASS_X, box["y"] + ROW_PX * (row + 1) + ROW_PX / 2)
        page.keyboard.press("Enter")  # opens the cell's editor
        try:
            cell.wait_for(timeout=5_000)
            break
        except PlaywrightTimeout:
            if attempt == 3:
                raise
            page.keyboard.press("Escape")
    cell.fill(name)
    if commit:
        cell.press("Enter")


def done(runs: list) -> list:
    """The runs that did their work: a run the server stopped before its first line (for a run asked for in the
    same moment: ``FINISHED_EARLY_FOR_RERUN``, nothing sent) left out."""
    return [r for r in runs if r["end"] != "FINISHED_EARLY_FOR_RERUN" or r["charts"]]


def rename(page, row: int, name: str, runs: list | None = None) -> dict:
    """Rename the class of the clusters table's ``row`` to ``name`` and wait until the page shows it and is idle;
    returns the recorder's times (ms from the Enter; ``ARM_JS``) and, given the page's ``watch_runs`` list, the
    runs (``done``) the server made for it as ``server``."""
    page.evaluate(ARM_JS, name)
    if runs is not None:
        runs.clear()
    type_class(page, row, name)
    page.wait_for_function(DONE_JS, timeout=120_000)
    idle(page)
    return {**page.evaluate("window.__rename"), "server": None if runs is None else done(runs)}


def names(n: int, moving: bool) -> list[str]:
    """``n`` new names for class C of fig7 (no word of the page contains them): between B and D in the sorted
    order (``Crn0``, ``Crn1``, ...), or with ``moving`` alternately after D (``Zrn0``, ...) and back."""
    return [f"{'Z' if moving and k % 2 == 0 else 'C'}rn{k}" for k in range(n)]


def _ms(v) -> str:
    return "-" if v is None else f"{v:.0f}"


def line(name: str, T: dict) -> str:
    runs = " ".join(f"[{_ms(a)}..{_ms(b)}]" for a, b in T["runs"])
    server = ""
    if T.get("server") is not None:
        charts = sum(1 for r in T["server"] for c in r["charts"] if "-regions_" in c)
        server = f"; server runs {[r['run'] for r in T['server']]}, regions charts sent {charts}"
    return (
        f"{name!r}: legend {_ms(T['legend'])} ms; figure {_ms(T['figure'])}, cost editor {_ms(T['seen'])}, "
        f"sidebar {_ms(T['sidebar'])}; running in the page {runs}{server}"
    )


def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--renames", type=int, default=7, help="renames timed (>= 5; the median is printed)")
    ap.add_argument("--viewport", default="1280x720", help="browser window WIDTHxHEIGHT")
    ap.add_argument(
        "--moving", action="store_true", help="every other rename moves the class in the sorted order"
    )
    ap.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    ap.add_argument("--present", action="store_true", help="presentation mode (?present=1)")
    ap.add_argument("--root", default=None, help="the checkout of the project to serve (default: this one)")
    args = ap.parse_args(argv)
    if args.renames < 5:
        ap.error(f"argument --renames: at least 5 renames are needed for a median; got {args.renames}.")
    width, height = bb.viewport_size(ap, args.viewport)
    if not Path(CHROMIUM).exists():
        ap.error(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    root = Path(args.root).resolve() if args.root else bb.ROOT
    if not (root / "app.py").is_file():
        ap.error(f"argument --root: {args.root!r} has no app.py; give a checkout of the project.")
    proc, url = bb.start_app(args.port or free_port(), root)
    samples, before = [], load()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": width, "height": height})
                runs = watch_runs(page)
                open_clusters(page, url, args.present)
                rename(page, RENAMED_ROW, "Crnw")  # untimed: the first rename's code paths warmed
                for name in names(args.renames, args.moving):
                    T = rename(page, RENAMED_ROW, name, runs)
                    samples.append(T)
                    print(line(name, T), f"(load {load()})", flush=True)
            finally:
                browser.close()
    finally:
        bb.stop_app(proc)
    legend = [T["legend"] for T in samples]
    mode = " in presentation mode" if args.present else ""
    print(
        f"rename{mode}, Enter to the new name in the legend: median {statistics.median(legend):.0f} ms "
        f"(min {min(legend):.0f}, max {max(legend):.0f}, n = {len(legend)}) at {width}x{height}; "
        f"load average (1, 5, 15 min) before: {before}, after: {load()}; {os.cpu_count()} cores"
    )
    return samples


if __name__ == "__main__":
    main()
