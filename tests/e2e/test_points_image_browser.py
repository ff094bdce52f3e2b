"""The Playground's data points drawn as one image (``compute.points_as_image``) look, in Chromium, like the
markers plotly draws, sit on the plot area exactly, keep their hover labels, and are what the app sends.

The regions figure of the airport preset at the 1280 x 720 plot size is drawn twice in a page of its own with
the plotly.js bundled with the ``plotly`` package: points as SVG markers, then points as the image. Their
pictures of the plot area must agree pixel for pixel but for antialiasing; the same image flipped upside down
must not (the comparison can fail)."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import plotly
import plotly.io as pio
import pytest
from PIL import Image

from benchmarks.bench_browser import HOOKS
from rebel.ui.figures.replay import POINTS_IMAGE, POINTS_IMAGE_META, POINTS_META
from rebel.ui.viewport import COOKIE
from tests.e2e.conftest import settle

pytestmark = pytest.mark.browser

HEIGHT, WIDTH = 668, 780  # the regions plot at 1280 x 720 (``benchmarks.bench_plot_draw``)


@pytest.fixture(scope="module")
def figures():
    """(the figure with SVG markers, the same with the points as an image, the plane's px size) as JSON."""
    from rebel.ui import config as cf
    from rebel.ui.figures import replay
    from rebel.ui.playground import compute as pg

    cfg = cf.preset_config("airport")
    ds = cf.dataset_from_config(cfg)
    pair = pg.train_pair(ds, np.array(cfg.cost_matrix, dtype=float), dict(cfg.hyper))
    built = []
    for _ in range(2):
        fig = pg.replay_of(pair, pair.n_rounds, height=HEIGHT)
        fig.update_layout(width=WIDTH)
        built.append(fig)
    assert pg.points_as_image(built[1])
    size = replay.plane_px(built[1])
    return [json.loads(pio.to_json(f, validate=False)) for f in built] + [size]


_DRAW = """async (fig) => {
  const gd = document.getElementById('gd');
  Plotly.purge(gd);
  await Plotly.newPlot(gd, {data: fig.data, layout: fig.layout, config: {displayModeBar: false}});
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  return {x: xa._offset, y: ya._offset, w: xa._length, h: ya._length, markers: gd.querySelectorAll('.point').length};
}"""


def _picture(page, spec: dict) -> tuple:
    box = page.evaluate(_DRAW, spec)
    page.wait_for_timeout(200)  # the image decoded
    clip = {"x": box["x"], "y": box["y"], "width": box["w"], "height": box["h"]}
    shot = Image.open(io.BytesIO(page.screenshot(clip=clip))).convert("RGB")
    return np.asarray(shot, dtype=np.float64), box


def _flipped(spec: dict) -> dict:
    out = json.loads(json.dumps(spec))
    image = next(im for im in out["layout"]["images"] if im.get("name") == POINTS_IMAGE)
    png = Image.open(io.BytesIO(base64.b64decode(image["source"].split(",", 1)[1])))
    buf = io.BytesIO()
    png.transpose(Image.Transpose.FLIP_TOP_BOTTOM).save(buf, "PNG")
    image["source"] = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    return out


def test_the_points_image_looks_like_the_markers_and_fills_the_plot_area(chromium, figures, tmp_path):
    svg, img, (W, H) = figures
    js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    page_file = tmp_path / "draw.html"
    page_file.write_text(
        f"<html><body style='margin:0'><div id='gd' style='width:{WIDTH}px;height:{HEIGHT}px'></div>"
        f"<script src='{js.as_uri()}'></script></body></html>"
    )
    page = chromium.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(page_file.as_uri())
        a, box_svg = _picture(page, svg)
        b, box_img = _picture(page, img)
        c, _ = _picture(page, _flipped(img))
        # the plot area plotly lays out is the one the image was drawn for
        assert abs(box_img["w"] - W) <= 1 and abs(box_img["h"] - H) <= 1, (box_img, (W, H))
        assert box_svg["markers"] > 1000 and box_img["markers"] < box_svg["markers"] / 4
        diff = np.abs(a - b).sum(axis=-1)
        wrong = np.abs(a - c).sum(axis=-1)
        Image.fromarray(np.hstack([a, b, c]).astype(np.uint8)).save(tmp_path / "svg_image_flipped.png")
        # summed over r, g, b (0-765): measured 6.5 and 2.5% of pixels over 60 (antialiasing), flipped 114 and 38%
        assert diff.mean() < 12.0 and (diff > 60).mean() < 0.05, (diff.mean(), (diff > 60).mean())
        assert wrong.mean() > 5 * diff.mean() and (wrong > 60).mean() > 0.2, (
            wrong.mean(),
            (wrong > 60).mean(),
        )
        # hovering over a point (one with no other within 12 px) shows its label: the traces keep their hover
        x, y, name = page.evaluate(
            """meta => { const gd = document.getElementById('gd');
                const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
                const r = gd.querySelector('.nsewdrag').getBoundingClientRect();
                const pts = [];
                for (const t of gd._fullData.filter(t => t.meta === meta))
                  for (let k = 0; k < t._length; k++) pts.push([xa.c2p(t.x[k]), ya.c2p(t.y[k]), t.name]);
                const alone = pts.find(p => pts.every(q => q === p || Math.hypot(p[0] - q[0], p[1] - q[1]) > 12));
                return [r.left + alone[0], r.top + alone[1], alone[2]]; }""",
            POINTS_META,
        )
        page.mouse.move(x, y)
        page.wait_for_timeout(150)
        label = " ".join(page.locator(".hoverlayer .hovertext").all_text_contents())
        assert name.split(" (")[0] in label, (name, label)
    finally:
        page.close()


# plotly's element of the points image (a layout image: its datum is the layout's image, named) in chart ``gd``
_IMG = "(gd => [...gd.querySelectorAll('image')].find(e => e.__data__ && e.__data__.name === 'points image'))"
# the browser's own redraw of the points (``viewport.POINTS_ZOOM``)
_OWN = "(gd => gd.querySelector('g.rebel-points image'))"

# Which points the regions chart shows: its points image, the browser's redraw and whether plotly's image is hidden
# under it.
_SHOWN = f"""sel => {{ const gd = document.querySelector(sel);  // (none while a rerun replaces the chart)
                     const img = gd && {_IMG}(gd);
                     return {{image: !!img, canvas: !!gd && !!{_OWN}(gd),
                             hidden: !!img && img.style.visibility === 'hidden'}}; }}"""


def _first_visit(browser, app_url: str, width: int, height: int) -> tuple:
    """A new visitor's Playground (no size cookie) at ``width`` x ``height``, drawn and idle: (page, the regions
    chart's selector)."""
    browser.clear_cookies(name=COOKIE)
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(app_url)
    settle(page)
    return page, ", ".join(f"{s} .js-plotly-plot" for s in HOOKS["regions"])


def test_a_first_visit_at_another_size_gets_its_points_drawn_at_their_own_size(browser, app_url):
    """A first visit's figure is made for a 1280 x 720 screen (``viewport.UNKNOWN``: the browser's size is not
    known yet). At 1440 x 900 Streamlit's chart draws it again at its box's size, a larger plot area than its
    points image was drawn for, so the browser draws the points again at their own size, in the image's place."""
    page, selector = _first_visit(browser, app_url, 1440, 900)
    try:
        # (plotly's image is hidden once the redrawn points' image is decoded: the points stay on screen meanwhile)
        page.wait_for_function(f"sel => ({_SHOWN})(sel).hidden", arg=selector, timeout=10_000)
        assert page.evaluate(_SHOWN, selector) == {"image": True, "canvas": True, "hidden": True}
        width, length, meta = page.evaluate(
            f"""sel => {{ const gd = document.querySelector(sel);
                        return [+{_OWN}(gd).getAttribute('width'), gd._fullLayout.xaxis._length,
                                gd._fullLayout.meta['{POINTS_IMAGE_META}']]; }}""",
            selector,
        )
        assert abs(width - length) <= 0.5 and abs(meta[4] - length) > 20, (width, length, meta)
    finally:
        page.close()


def test_the_playground_sends_its_points_as_one_image(browser, app_url):
    page, selector = _first_visit(browser, app_url, 1280, 720)
    try:
        # a first visit (no size known yet): the image drawn for ``viewport.UNKNOWN``, this very size, is shown
        assert page.evaluate(_SHOWN, selector) == {"image": True, "canvas": False, "hidden": False}
        page.wait_for_function("document.cookie.includes('rebel_vp=')", timeout=30_000)
        page.reload()  # now with the plot's size known (its cookie): the figure has a fixed size
        settle(page)
        state = page.evaluate(
            f"""([sel, META]) => {{ const gd = document.querySelector(sel); const img = {_IMG}(gd);
                        const pts = gd._fullData.filter(t => t.meta === META);
                        return {{images: gd._fullLayout.images.filter(i => i.name === 'points image').length,
                                modes: [...new Set(pts.map(t => t.mode))],
                                points: pts.reduce((n, t) => n + t._length, 0),
                                w: gd._fullLayout.xaxis._length,
                                natural: img ? img.getAttribute('width') : 0}}; }}""",
            [selector, POINTS_META],
        )
        assert state["images"] == 1 and state["modes"] == ["none"] and state["points"] > 1000, state
        assert abs(float(state["natural"]) - state["w"]) <= 1.5, state  # drawn at the plot area's width
        # zoomed in (a drag over the plot), the points are drawn again at their own size in the image's place
        # (``viewport.POINTS_ZOOM``); a double click brings back the image
        area = page.locator(f"{selector.split(',')[0]} .nsewdrag").first
        box = area.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.3)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.55, box["y"] + box["height"] * 0.55, steps=8)
        page.mouse.up()
        zoomed = f"""sel => {{ const gd = document.querySelector(sel); const own = {_OWN}(gd);
                              return own && {_IMG}(gd).style.visibility === 'hidden' ?
                                [+own.getAttribute('width'), gd._fullLayout.xaxis._length,
                                 {_IMG}(gd).style.visibility] : null; }}"""
        page.wait_for_function(zoomed, arg=selector, timeout=10_000)
        width, length, hidden = page.evaluate(zoomed, selector)
        assert abs(width - length) <= 0.5 and hidden == "hidden"
        page.wait_for_timeout(700)  # past plotly's double-click window since the drag's release
        area.dblclick()
        page.wait_for_function(
            f"""sel => {{ const gd = document.querySelector(sel);
                        return !{_OWN}(gd) && {_IMG}(gd).style.visibility === ''; }}""",
            arg=selector,
            timeout=10_000,
        )
    finally:
        page.close()
