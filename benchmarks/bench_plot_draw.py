"""What drawing the Playground's regions figure costs the browser, and how much of it is the point markers.

A cost edit, a preset and a toggle each bring a new regions figure, which plotly draws from scratch (Streamlit
mounts a new chart). This times that draw alone, outside Streamlit, in Debian's Chromium: the replay figure of a
preset at the 1280 x 720 plot size, drawn with ``Plotly.newPlot`` into a page that holds nothing else, from the
call to the end of the rendering task of the frame that shows it (a message posted from the next animation
callback runs after it). Four variants, their draws interleaved one by one:

- ``markers``: the figure with its points as SVG markers (about 1,500, one element each: what the app sends when
  the figure's size is not fixed, and sent for every figure before the points image);
- ``as sent``: the figure as the app sends it once the plot's size is known: the points as one image under
  hover-only traces (``compute.points_as_image``);
- ``points hover-only``: the point traces with ``mode="none"``: no markers drawn, hover on the points still works
  (the script hovers over the plot and counts the labels);
- ``no points``: the point traces hidden;
- ``points scattergl``: the point traces as ``scattergl`` (WebGL; in this browser without a GPU, software GL).

The difference between ``markers`` and ``no points`` is what the markers cost every new figure; the points image
saves all of it but the image's own draw (``as sent`` against ``no points``).

With ``--update``, it also times what a chart updated in place would cost instead of a new mount (a component that
keeps one plotly div): the figure after a cost edit (``EDIT``: one off-diagonal cost doubled), drawn over the
figure before it, interleaved with its mount:

- ``edit: mount``: the new figure drawn from scratch (what Streamlit does: the edit's chart is a new element);
- ``edit: react``: ``Plotly.react`` of the new figure over the old one, every object new;
- ``edit: react, points kept``: the same, with every trace that did not change (the ~1,500 points) passed as the
  very objects already drawn, so plotly can tell they did not change.

plotly.js is the copy bundled with the ``plotly`` Python package (no network); its version is printed (the app's
copy is the one in Streamlit's bundle, plotly.js 4.2.0 with Streamlit 1.67).

Run: ``python -m benchmarks.bench_plot_draw [--preset airport] [--repeat 15] [--update]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

VARIANTS = ("markers", "as sent", "points hover-only", "no points", "points scattergl")
PLOT_HEIGHT = 668  # px: the regions plot's height at 1280 x 720 (``playground.widgets.plot_height``)
PLOT_WIDTH = 780

_DRAW_JS = """async (fig) => {
  const raf = () => new Promise((r) => requestAnimationFrame(r));
  const gd = document.getElementById('gd');
  Plotly.purge(gd);
  await raf(); await raf();
  const t0 = performance.now();
  await Plotly.newPlot(gd, {data: fig.data, layout: fig.layout, frames: fig.frames,
                            config: {displayModeBar: false}});
  await raf();
  const channel = new MessageChannel();
  await new Promise((r) => { channel.port1.onmessage = r; channel.port2.postMessage(0); });
  return performance.now() - t0;
}"""


UPDATES = ("edit: mount", "edit: react", "edit: react, points kept")
EDIT = (0, 1)  # the cost edit of ``--update``: this entry doubled

# Draw the figure before the edit (untimed), then time the edit's figure: mounted anew, or updated in place.
_UPDATE_JS = """async ([before, after, how]) => {
  const raf = () => new Promise((r) => requestAnimationFrame(r));
  const gd = document.getElementById('gd');
  const config = {displayModeBar: false};
  Plotly.purge(gd);
  if (how !== 'edit: mount') {
    await Plotly.newPlot(gd, {data: before.data, layout: before.layout, frames: before.frames, config});
  }
  let data = after.data;
  if (how === 'edit: react, points kept') {
    data = after.data.map((tr, i) => i < gd.data.length && JSON.stringify(tr) === JSON.stringify(before.data[i])
                                     ? gd.data[i] : tr);
  }
  await raf(); await raf();
  const t0 = performance.now();
  const draw = how === 'edit: mount' ? Plotly.newPlot : Plotly.react;
  await draw(gd, {data, layout: after.layout, frames: after.frames, config});
  await raf();
  const channel = new MessageChannel();
  await new Promise((r) => { channel.port1.onmessage = r; channel.port2.postMessage(0); });
  return performance.now() - t0;
}"""


def replay_spec(preset: str, edit: tuple | None = None, image: bool = False) -> tuple[dict, int]:
    """The Playground's replay figure of ``preset`` (``compute.replay_of``, trained as the app trains it) at its
    last round and the 1280 x 720 plot size, as plotly JSON, and its number of data points (train and test); with
    ``edit`` (i, j), after that cost is doubled; with ``image``, its points as one image
    (``compute.points_as_image``), else as SVG markers."""
    import numpy as np
    import plotly.io as pio

    from rebel.ui import config as cf
    from rebel.ui.playground import compute as pg

    cfg = cf.preset_config(preset)
    ds = cf.dataset_from_config(cfg)
    C = np.array(cfg.cost_matrix, dtype=float)
    if edit is not None:
        C[edit] *= 2.0
    pair = pg.train_pair(ds, C, dict(cfg.hyper))
    fig = pg.replay_of(pair, pair.n_rounds, height=PLOT_HEIGHT)  # the Playground's figure, no overlay
    fig.update_layout(width=PLOT_WIDTH)
    if image and not pg.points_as_image(fig):
        raise RuntimeError("the figure's points could not be drawn as an image")
    return json.loads(pio.to_json(fig, validate=False)), len(ds.X_train) + len(ds.X_test)


def point_trace_indices(spec: dict) -> list[int]:
    """The traces that draw the data points (markers with a hover text per point: train and test per class)."""
    return [
        i
        for i, tr in enumerate(spec["data"])
        if tr.get("mode") == "markers" and "hovertemplate" in tr and tr.get("customdata") is not None
    ]


def variant(spec: dict, name: str) -> dict:
    """``spec`` with its point traces drawn as ``name`` says (``VARIANTS``)."""
    out = json.loads(json.dumps(spec))
    for i in point_trace_indices(out):
        if name == "points hover-only":
            out["data"][i]["mode"] = "none"
        elif name == "no points":
            out["data"][i]["visible"] = False
        elif name == "points scattergl":
            out["data"][i]["type"] = "scattergl"
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="airport", help="the preset whose replay figure is drawn")
    ap.add_argument("--repeat", type=int, default=15, help="draws of each variant (>= 5)")
    ap.add_argument("--update", action="store_true", help="also time a cost edit's figure updated in place")
    args = ap.parse_args(argv)
    if args.repeat < 5:
        ap.error(f"argument --repeat: at least 5 draws are needed for a median; got {args.repeat}.")
    import plotly
    from playwright.sync_api import sync_playwright

    from benchmarks._common import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        ap.error(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium).")
    spec, n_points = replay_spec(args.preset)
    specs = {name: variant(spec, name) for name in VARIANTS}
    specs["as sent"] = replay_spec(args.preset, image=True)[0]
    edited = replay_spec(args.preset, EDIT)[0] if args.update else None
    updates = UPDATES if args.update else ()
    js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "draw.html"
        page_file.write_text(
            f"<html><body style='margin:0'><div id='gd' style='width:{PLOT_WIDTH}px;height:{PLOT_HEIGHT}px'>"
            f"</div><script src='{js.as_uri()}'></script></body></html>"
        )
        times: dict = {name: [] for name in (*VARIANTS, *updates)}
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(page_file.as_uri())
            version = page.evaluate("Plotly.version")
            for name in VARIANTS:  # warm-up draw of each
                page.evaluate(_DRAW_JS, specs[name])
            for name in updates:
                page.evaluate(_UPDATE_JS, [spec, edited, name])
            for _ in range(args.repeat):
                for name in VARIANTS:
                    times[name].append(page.evaluate(_DRAW_JS, specs[name]))
                for name in updates:
                    times[name].append(page.evaluate(_UPDATE_JS, [spec, edited, name]))
            hovered = _hover_labels(page, specs["points hover-only"])
            browser.close()
    load = os.getloadavg()[0]
    print(
        f"regions figure of {args.preset!r} ({n_points} points in {len(point_trace_indices(spec))} traces, "
        f"{len(json.dumps(spec)) // 1000} kB), "
        f"plotly.js {version}, {args.repeat} draws each, interleaved; load {load:.2f}"
    )
    base = statistics.median(times["markers"])
    for name in VARIANTS:
        med = statistics.median(times[name])
        print(
            f"  {name:<18} median {med:7.1f} ms  min {min(times[name]):7.1f} ms  ({med / base:.2f} of markers)"
        )
    if updates:
        mount = statistics.median(times[UPDATES[0]])
        print(
            f"  after the edit C{list(EDIT)} x 2 ({len(json.dumps(edited)) // 1000} kB), load {os.getloadavg()[0]:.2f}:"
        )
        for name in updates:
            med = statistics.median(times[name])
            print(
                f"  {name:<26} median {med:7.1f} ms  min {min(times[name]):7.1f} ms  ({med / mount:.2f} of a mount)"
            )
    print(f"  hover labels over the points with hover-only traces: {hovered[0]} of {hovered[1]} positions")
    return times


def _hover_labels(page, spec: dict) -> tuple[int, int]:
    """Positions over the plot area (of ``spec`` drawn) at which a hover label shows: (shown, tried)."""
    page.evaluate(
        "f => Plotly.newPlot('gd', {data: f.data, layout: f.layout, config: {displayModeBar: false}})", spec
    )
    box = page.locator(".nsewdrag").first.bounding_box()
    shown = 0
    tried = 20
    for k in range(tried):
        page.mouse.move(box["x"] + box["width"] * (0.2 + 0.03 * k), box["y"] + box["height"] * 0.55)
        page.wait_for_timeout(80)
        shown += page.locator(".hoverlayer .hovertext").count() > 0
    return shown, tried


if __name__ == "__main__":
    main()
