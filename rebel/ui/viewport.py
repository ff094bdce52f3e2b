"""The browser's viewport height and plot width, known to the server, so the Playground's regions are drawn once.

Why: Streamlit's plotly chart measures its box after it mounts and draws the figure again whenever the measured
height or width differs from the figure's own. A new chart with no height of its own was drawn at 450 px, then
again at its box's height: every cost edit drew the regions replay (about 1,700 SVG markers and three layout
images) twice, and the picture jumped. A figure whose size equals its box's, in whole pixels, is drawn once. The
plot box is ``round(down, max(100vh - top, minimum), 1px)`` high and ``round(down, 100%, 1px)`` wide (CSS), so the
server computes its height from the viewport's (``plot_height``); its width the browser measures.

How the server learns them (``keep``, at the end of every run of the Playground's main area, in a hidden box; read
by ``known`` at the start of the next): a fixed script (``WATCH``, no user text) watches the plot box and the
window; 300 ms after a change it writes ``"<viewport height>x<plot width>"`` into a hidden text box (``INPUT``) and
commits it, as a person pressing Enter would (a rerun of the main area that draws nothing new), and into a cookie
(``COOKIE``), which a later session of the same browser reads on its first run (``st.context.cookies``). The size
is parsed strictly (``parse_size``) and otherwise ignored. A browser's very first visit (no size known yet) is
taken to be a 1280 x 720 projector's (``UNKNOWN``): drawn once there, twice elsewhere, as before. A new size
is taken only with a new picture (``figure_size``): the same figure at a new size would be a new chart, drawn again
for nothing, while the chart on the page follows its box by itself. Where the size is not known or no longer right,
the chart falls back to Streamlit's own measuring: the picture is right, drawn twice.

The watcher also brings the rest of a session's first page (``rest_button``): that run sends the regions plot
alone and a hidden button, which the watcher presses once the plot is drawn (``widgets.start_plot_first``).

After a click on a page link (or a move in the history) the script commits nothing until the run that the click
asked for has started and ended: Streamlit folds a rerun asked for before that run starts into it, with the newer
request's page, so a commit from the page being left turned the new page's run into a run of the Playground, and
the new page stayed blank (``tests/e2e/test_viewport_nav.py``).

(A Streamlit component sending the size back was tried first: once one had been mounted on a page, even with an
empty script and unmounted again, the replay's Play ran at about 16-17 frames a second instead of 18-19.)
"""

from __future__ import annotations

import re
from typing import NamedTuple

import streamlit as st

COOKIE = "rebel_vp"  # "<viewport height>x<plot box width>", px
INPUT = "pg_viewport"  # the hidden text box the script writes the size into
BOX = "pg_viewport_box"  # the hidden container holding it and the script (the page's style sheet hides it)
HEIGHTS = (200, 10_000)  # px: viewport heights taken as real
WIDTHS = (100, 10_000)  # px: plot widths taken as real
SIZE = "_viewport_size"  # the size the browser sent last in this session (kept when the text box's key is dropped)
REST = "pg_rest"  # the hidden button the watcher presses to bring the rest of a first page (``rest_button``)
DRAWN = "_viewport_drawn"  # (what the regions figure showed, the size it was made at): ``figure_size``


class Viewport(NamedTuple):
    """What the server knows of the browser: the viewport's height and the plot box's width, in px."""

    height: int
    width: int


# What a browser whose size is not known yet (a first visit) is taken to be: a 1280 x 720 projector with the
# sidebar open (its plot box 469 px wide), the lecture's screen. The Playground makes a first visit's regions
# figure at this size: drawn once on such a screen; on any other, Streamlit's chart draws it again at its box's
# size (as every first visit was drawn before), and the browser draws its points again (``POINTS_ZOOM``).
UNKNOWN = Viewport(720, 469)


# The watcher: fixed text, installed once per window. A ResizeObserver on the plot box and the window's resize
# events; 300 ms after a change (a sidebar sliding open counts once), once the plot is drawn (on a first visit the
# rerun would slow its first picture) and while no run is under way (its request would carry every widget's value
# as the browser shows it, some older than what the run set: a preset picked by its picture came back as the one
# before), it reads the viewport's height and the box's width, keeps them in a cookie and, when the hidden text box
# holds another size, writes the size there and commits it (input, then Enter); while the text box is not on the
# page yet (the run that draws the plot sends it last), it looks again 300 ms later, reading no layout. Once a
# second it looks for a new box or an emptied text box (a page left and opened again); no layout is read then, so
# the replay's Play is not slowed.
WATCH = """<script>
(() => {
  // Installed once per window; sent again (a new mount), it only looks for the first page's button (``rest``).
  if (window.__rebelViewportWatch) { window.__rebelViewportWatch(); return; }
  const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  let box = null, observer = null, timer = 0, cookie = null;
  const input = () => document.querySelector('.st-key-pg_viewport input');
  // A page link clicked (or the history moved): no commit until the run it asked for has started and ended.
  // Streamlit folds a rerun asked for before that run starts into it, with the newer request's page: a commit
  // from the page being left would turn the new page's run into a run of this one, and the new page stays blank.
  // The same after the user's own click on a widget or Enter (``asked``; the scripts' own events are not
  // trusted): it may have asked for a run, and a commit sent before that run has sent what it changed would
  // carry the values the browser showed before (a preset picked by its picture came back as the one before it).
  const app = () => document.querySelector("[data-testid='stApp']");
  const state = () => { const a = app(); return a ? a.getAttribute('data-test-script-state') : null; };
  const busy = (s) => s === 'running' || s === 'rerunRequested';
  // One such request: ``ask()`` when it is made; ``open()`` is true until a run has been seen after it and is over,
  // or 10 s went by without one. A run is seen when the app's state changes to busy (``saw``); for a page link also
  // when the state is busy as ``open()`` looks (``nowToo``). After a click a run under way at the click may end
  // before the click's own run starts, so only a change counts.
  const request = (nowToo) => {
    let since = 0, seen = false;
    const saw = () => { if (since && busy(state())) seen = true; };
    const ask = () => { since = Date.now(); seen = false; };
    const open = () => {
      if (!since) return false;
      if (nowToo) saw();
      if (!busy(state()) && (seen || Date.now() - since > 10000)) since = 0;
      return since !== 0;
    };
    return {saw, ask, open};
  };
  const leaving = request(true), asked = request(false);
  let restRan = false;  // a run has started since the first page's button was last pressed (``rest``)
  const started = () => {
    leaving.saw();
    asked.saw();
    if (restPressed && busy(state())) restRan = true;
  };
  if (app()) {
    new MutationObserver(started).observe(app(), {attributes: true, attributeFilter: ['data-test-script-state']});
  }
  // what a click may ask a run with: Streamlit's widgets; not a chart's own controls (Play, the round slider) nor
  // the sidebar's fold and the app's menu (a size to send often follows them)
  const WIDGET = "button, input, label, summary, [role='option'], [role='tab'], [role='slider'], " +
    "[data-baseweb='select'], [data-testid='stDataFrame']";
  const NO_RUN = ".js-plotly-plot, [data-testid='stSidebarCollapseButton'], [data-testid='stExpandSidebarButton'], " +
    "[data-testid='stToolbar'], [data-testid='stMainMenu']";
  const ask = (e) => {
    const t = e.target;
    if (!e.isTrusted || !t || !t.closest || !t.closest(WIDGET) || t.closest(NO_RUN)) return;
    asked.ask();
  };
  document.addEventListener('click', (e) => {
    ask(e);
    const t = e.target;
    if (t && t.closest && t.closest("a[data-testid='stPageLink-NavLink'], [data-testid='stSidebarNav'] a")) leaving.ask();
  }, true);
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter') ask(e); }, true);
  window.addEventListener('popstate', leaving.ask);
  const send = () => {
    // not while a run is under way or may be asked for: its request would carry values the run has changed and
    // not yet sent
    if (leaving.open() || asked.open() || busy(state())) { later(); return; }
    if (!box || !box.isConnected) return;
    const gd = box.querySelector('.js-plotly-plot');
    if (!gd || !gd._fullLayout) { later(); return; }  // a first visit: after the plot is drawn, not during
    const el = input();
    if (!el) { later(); return; }  // the run that sends the text box is still under way (no layout read)
    const h = Math.round(window.innerHeight), w = Math.floor(box.getBoundingClientRect().width);
    if (!(h > 0 && w > 0)) return;
    const size = h + 'x' + w;
    if (cookie !== size) {
      cookie = size;
      document.cookie = 'rebel_vp=' + size + '; path=/; max-age=31536000; SameSite=Lax';
    }
    if (el.value === size) return;
    setValue.call(el, size);
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', keyCode: 13, bubbles: true}));
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(send, 300); };
  const watch = () => {
    const found = document.querySelector('div.st-key-pg_plot');
    if (found !== box) {
      box = found;
      if (observer) observer.disconnect();
      observer = null;
      if (box) { observer = new ResizeObserver(later); observer.observe(box); }
    } else if (box) {
      const el = input();
      if (el && el.value === '') later();
    }
  };
  // The rest of a session's first page (``rest_button``: a hidden button sent, with this script, by a run that
  // drew the regions plot alone): pressed once the plot is drawn, or after 8 s without one, so the page is never
  // left half-drawn; again 3 s later if its run has not replaced it yet. Looked for every 50 ms (no layout read)
  // only from a mount of this script (sent with the button) until the button is gone, up to 2 s if it never comes,
  // or from the once-a-second look (``watch``) seeing one.
  // Pressed again only while no run has started since the last press (``restRan``): once its run is under way the
  // button stays on the page until a run completes without it, and a press then would carry the widgets' values
  // as the browser showed them before the user's first clicks (a preset picked by its picture came back as the
  // one before).
  let restSince = 0, restPressed = 0, restTimer = 0, restStarted = 0;
  const rest = () => {
    const b = document.querySelector('.st-key-pg_rest button');
    if (!b) {
      restSince = 0;
      if (Date.now() - restStarted > 2000) { clearInterval(restTimer); restTimer = 0; }
      return;
    }
    restStarted = 0;
    if (!restSince) {  // a new first page's button
      restSince = Date.now();
      restRan = false;
    }
    if (leaving.open() || restRan) return;
    const gd = document.querySelector('div.st-key-pg_plot .js-plotly-plot');
    const drawn = !!gd && !!gd._fullLayout;
    if ((drawn || Date.now() - restSince > 8000) && Date.now() - restPressed > 3000) {
      restPressed = Date.now();
      b.click();
    }
  };
  const restSoon = () => {
    restStarted = Date.now();
    if (!restTimer) restTimer = setInterval(rest, 50);
  };
  window.__rebelViewportWatch = restSoon;
  watch();
  restSoon();
  setInterval(() => {
    watch();
    if (!restTimer && document.querySelector('.st-key-pg_rest button')) restSoon();
  }, 1000);
  window.addEventListener('resize', later);
})();
</script>"""

# Zoomed in, the image's points would grow with the plot (as its pixels do); in a plot area of another size than
# the image was drawn for (a first visit's figure, drawn before the server knows the box's size), they would be
# too large or too small. In the browser, after each draw of the chart and once a zoom or pan ends (plotly's
# ``plotly_afterplot`` and ``plotly_relayout``), when the axes no longer span the image's extent or the plot area
# is not the size it was drawn for (``layout.meta[replay.POINTS_IMAGE_META]``: [x0, x1, y0, y1, width px, height px];
# ``replay.points_as_image``), this script draws the points again at their own size for the axes and area as they
# are, on a canvas of the plot area at the screen's pixel density, with the shapes below (radius = size / 2, the
# outline stroked on the edge, mitred: as plotly and ``point_raster.points_image`` draw them), in the traces'
# order, and shows it in place of the image, in a group right after the image's layer (under the mistake crosses,
# clipped to the plot; the replay's frames leave both in place). Back at the image's extent and size (a double click), plotly's image shows again. Nothing is drawn again
# while the axes, the area and the pixel density stay as they were (a replay playing). It looks for new charts of
# the Playground twice a second. Its shapes and names are ``point_raster.SHAPES`` and ``replay``'s
# (``tests/test_point_raster.py`` checks them).
POINTS_ZOOM = """<script>
(() => {
  if (window.__rebelPointsZoom) return;
  window.__rebelPointsZoom = true;
  // replay.POINTS_META, replay.POINTS_IMAGE, replay.POINTS_IMAGE_META
  const META = 'points', IMAGE = 'points image', EXTENT = 'points_image';
  const SHAPES = {  // point_raster.SHAPES (r = 1, screen coordinates), to 4 decimals
    "circle": [
      [1,0],[0.9952,0.098],[0.9808,0.1951],[0.9569,0.2903],[0.9239,0.3827],[0.8819,0.4714],[0.8315,0.5556],
      [0.773,0.6344],[0.7071,0.7071],[0.6344,0.773],[0.5556,0.8315],[0.4714,0.8819],[0.3827,0.9239],
      [0.2903,0.9569],[0.1951,0.9808],[0.098,0.9952],[0,1],[-0.098,0.9952],[-0.1951,0.9808],
      [-0.2903,0.9569],[-0.3827,0.9239],[-0.4714,0.8819],[-0.5556,0.8315],[-0.6344,0.773],[-0.7071,0.7071],
      [-0.773,0.6344],[-0.8315,0.5556],[-0.8819,0.4714],[-0.9239,0.3827],[-0.9569,0.2903],[-0.9808,0.1951],
      [-0.9952,0.098],[-1,0],[-0.9952,-0.098],[-0.9808,-0.1951],[-0.9569,-0.2903],[-0.9239,-0.3827],
      [-0.8819,-0.4714],[-0.8315,-0.5556],[-0.773,-0.6344],[-0.7071,-0.7071],[-0.6344,-0.773],
      [-0.5556,-0.8315],[-0.4714,-0.8819],[-0.3827,-0.9239],[-0.2903,-0.9569],[-0.1951,-0.9808],
      [-0.098,-0.9952],[-0,-1],[0.098,-0.9952],[0.1951,-0.9808],[0.2903,-0.9569],[0.3827,-0.9239],
      [0.4714,-0.8819],[0.5556,-0.8315],[0.6344,-0.773],[0.7071,-0.7071],[0.773,-0.6344],[0.8315,-0.5556],
      [0.8819,-0.4714],[0.9239,-0.3827],[0.9569,-0.2903],[0.9808,-0.1951],[0.9952,-0.098]
    ],
    "square": [[1,1],[-1,1],[-1,-1],[1,-1]],
    "diamond": [[1.3,0],[0,1.3],[-1.3,0],[0,-1.3]],
    "triangle-up": [[-1.1547,0.5],[1.1547,0.5],[0,-1]],
    "triangle-down": [[-1.1547,-0.5],[1.1547,-0.5],[0,1]],
    "triangle-left": [[0.5,-1.1547],[0.5,1.1547],[-1,0]],
    "triangle-right": [[-0.5,-1.1547],[-0.5,1.1547],[1,0]],
    "pentagon": [[0.951,-0.309],[0.588,0.809],[-0.588,0.809],[-0.951,-0.309],[0,-1]],
    "hexagon": [[0.866,-0.5],[0.866,0.5],[0,1],[-0.866,0.5],[-0.866,-0.5],[0,-1]],
    "star": [
      [0.315,-0.4326],[1.3314,-0.4326],[0.5082,0.1652],[0.8232,1.1326],[0,0.5348],[-0.8232,1.1326],
      [-0.5082,0.1652],[-1.3314,-0.4326],[-0.315,-0.4326],[0,-1.4]
    ],
    "hourglass": [[1,1],[-1,1],[1,-1],[-1,-1]],
    "star-diamond": [
      [-1.2334,0.0484],[-1.0719,0.1119],[-0.9169,0.1898],[-0.7697,0.2815],[-0.6314,0.3863],
      [-0.5032,0.5032],[-0.3863,0.6314],[-0.2815,0.7697],[-0.1898,0.9169],[-0.1119,1.0719],
      [-0.0484,1.2334],[-0,1.4],[0.0484,1.2334],[0.1119,1.0719],[0.1898,0.9169],[0.2815,0.7697],
      [0.3863,0.6314],[0.5032,0.5032],[0.6314,0.3863],[0.7697,0.2815],[0.9169,0.1898],[1.0719,0.1119],
      [1.2334,0.0484],[1.4,0],[1.2334,-0.0484],[1.0719,-0.1119],[0.9169,-0.1898],[0.7697,-0.2815],
      [0.6314,-0.3863],[0.5032,-0.5032],[0.3863,-0.6314],[0.2815,-0.7697],[0.1898,-0.9169],
      [0.1119,-1.0719],[0.0484,-1.2334],[0,-1.4],[-0.0484,-1.2334],[-0.1119,-1.0719],[-0.1898,-0.9169],
      [-0.2815,-0.7697],[-0.3863,-0.6314],[-0.5032,-0.5032],[-0.6314,-0.3863],[-0.7697,-0.2815],
      [-0.9169,-0.1898],[-1.0719,-0.1119],[-1.2334,-0.0484],[-1.4,0]
    ]
  };
  const redraw = (gd) => {
    const fl = gd._fullLayout, data = gd._fullData;
    if (!fl || !data) return;
    const meta = fl.meta && fl.meta[EXTENT];
    // plotly's own layout image of the points (its datum is the layout's image, named)
    const el = [...gd.querySelectorAll('image')].find((e) => e.__data__ && e.__data__['name'] === IMAGE);
    // our groups: the one shown (right after plotly's layer) and one whose image is still being decoded (pending)
    const groups = () => [...gd.querySelectorAll('g.rebel-points')];
    const drop = (keep) => groups().forEach((g) => { if (g !== keep) g.remove(); });
    if (!el || !Array.isArray(meta)) {
      drop(null);
      return;
    }
    const xa = fl.xaxis, ya = fl.yaxis, [x0, x1, y0, y1, w0, h0] = meta;
    const W = xa._length, H = ya._length, d = window.devicePixelRatio || 1;
    const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(x1 - x0), Math.abs(y1 - y0));
    const sized = Math.abs(W - w0) <= 1 && Math.abs(H - h0) <= 1;
    if (sized && near(xa.range[0], x0) && near(xa.range[1], x1) && near(ya.range[0], y0) && near(ya.range[1], y1)) {
      drop(null);
      el.style.visibility = '';
      return;
    }
    const key = [xa.range, ya.range, W, H, d].join();
    const shown = groups().find((g) => !g.hasAttribute('data-pending') && g.previousSibling === el.parentNode);
    const pending = groups().some((g) => g.hasAttribute('data-pending'));
    if (gd.__rebelPointsKey === key && (pending || (shown && el.style.visibility === 'hidden'))) return;  // as drawn
    gd.__rebelPointsKey = key;
    drop(shown);  // (a stray group, or one still decoding for other axes)
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(W * d));
    canvas.height = Math.max(1, Math.round(H * d));
    const ctx = canvas.getContext('2d');
    ctx.scale(d, d);
    ctx.lineJoin = 'miter';
    ctx.miterLimit = 4;
    for (const t of data.filter((t) => t.meta === META && t.visible === true)) {
      const m = (gd.data[t.index] || {}).marker;  // as sent: a trace with no markers drawn has none in _fullData
      if (!m) continue;
      const open = String(m.symbol).endsWith('-open');
      const shape = SHAPES[String(m.symbol).replace(/-open$/, '')];
      if (!shape) continue;
      const r = m.size / 2, width = (m.line && m.line.width) || 0;
      for (let k = 0; k < t._length; k++) {
        const px = xa.c2p(t.x[k]), py = ya.c2p(t.y[k]);
        if (!(px > -4 * r && px < W + 4 * r && py > -4 * r && py < H + 4 * r)) continue;
        ctx.beginPath();
        shape.forEach(([sx, sy], i) => (i ? ctx.lineTo : ctx.moveTo).call(ctx, px + sx * r, py + sy * r));
        ctx.closePath();
        if (!open) { ctx.fillStyle = m.color; ctx.fill(); }
        if (width > 0) {
          ctx.lineWidth = width;
          ctx.strokeStyle = open ? m.color : m.line.color;
          ctx.stroke();
        }
      }
    }
    // in a group of its own right after the layer of plotly's image (over it, under every trace): plotly's
    // layer keeps only its own images; placed at the plot area's corner in that layer's frame, clipped as it is
    const img = document.createElementNS(el.namespaceURI, 'image');  // SVG's, as plotly's image
    img.setAttribute('x', parseFloat(el.getAttribute('x')) - xa.c2p(x0));
    img.setAttribute('y', parseFloat(el.getAttribute('y')) - ya.c2p(y1));
    img.setAttribute('width', W);
    img.setAttribute('height', H);
    img.setAttribute('preserveAspectRatio', 'none');
    img.setAttribute('href', canvas.toDataURL());
    const own = document.createElementNS(el.namespaceURI, 'g');
    own.setAttribute('class', 'rebel-points');
    own.setAttribute('data-pending', '');
    for (const a of ['transform', 'clip-path']) {
      const v = el.parentNode.getAttribute(a);
      if (v) own.setAttribute(a, v);
    }
    const clip = el.getAttribute('clip-path');
    if (clip) img.setAttribute('clip-path', clip);
    own.appendChild(img);
    // the points on screen stay until the new image is decoded (an image's data is decoded after it is set: shown
    // at once, the plot would have no points for that time)
    const swap = () => {
      if (!own.isConnected) return;  // replaced meanwhile by one for other axes
      own.removeAttribute('data-pending');
      if (shown) shown.remove();
      el.style.visibility = 'hidden';
    };
    img.addEventListener('load', swap, {once: true});
    img.addEventListener('error', swap, {once: true});
    (shown || el.parentNode).after(own);
  };
  const hook = () => {
    for (const gd of document.querySelectorAll('div.st-key-pg_plot .js-plotly-plot')) {
      // once per plot (plotly's event emitter: a chart drawn anew, or purged and drawn again, has a new one)
      if (typeof gd.on !== 'function' || !gd._ev || gd.__rebelPoints === gd._ev) continue;
      gd.__rebelPoints = gd._ev;
      const again = () => {
        try { redraw(gd); } catch (e) { console.warn('points redraw', e); }  // never in plotly's way
      };
      gd.on('plotly_relayout', again);
      gd.on('plotly_afterplot', again);
      again();  // drawn before this script came
    }
  };
  hook();
  setInterval(hook, 500);
})();
</script>"""

SCRIPTS = WATCH + POINTS_ZOOM  # what the hidden box sends (``_watcher``)

_SIZE = re.compile(r"([0-9]{1,5})x([0-9]{1,5})")


def parse_size(value) -> Viewport | None:
    """``"<height>x<width>"`` from the browser (its cookie or the hidden text box) as a ``Viewport``, or None when
    it is anything else or outside ``HEIGHTS`` / ``WIDTHS``."""
    m = _SIZE.fullmatch(value.strip()) if isinstance(value, str) else None
    if m is None:
        return None
    h, w = int(m.group(1)), int(m.group(2))
    if not (HEIGHTS[0] <= h <= HEIGHTS[1] and WIDTHS[0] <= w <= WIDTHS[1]):
        return None
    return Viewport(h, w)


def _cookie_size() -> Viewport | None:
    try:
        return parse_size(st.context.cookies.get(COOKIE))
    except Exception:  # noqa: BLE001 (no request behind this run, e.g. a test harness: nothing is known)
        return None


def browser_behind() -> bool:
    """Whether a browser is behind this session (its request's headers are known), to run the watcher; a test
    harness has none."""
    try:
        return bool(st.context.headers)
    except Exception:  # noqa: BLE001 (no request behind this run: nothing runs the watcher)
        return False


def known() -> Viewport | None:
    """The size known at the start of this run: the one the browser wrote into the text box in this session (kept
    when its key is dropped, on another page), else the browser's cookie, else None."""
    ss = st.session_state
    sent = parse_size(ss.get(INPUT))
    if sent is not None:
        ss[SIZE] = sent
    size = ss.get(SIZE)
    return size if size is not None else _cookie_size()


def keep() -> None:
    """Send what keeps the size known, in a hidden box: the text box and the watcher. Call it last in the run (the
    box's slot is below the first screen)."""
    with st.container(key=BOX):
        st.text_input("Viewport size", key=INPUT, label_visibility="collapsed")
        _watcher()


def rest_button() -> None:
    """After a run that drew the Playground's regions plot alone (a session's first): a hidden button that the
    watcher presses once the plot is drawn (``WATCH``). Outside the main area's fragment, so its press reruns the
    whole page. A button, not the text box: a browser reconnecting to another server sends its widgets' values
    back, so a text box could arrive already holding the size, and the watcher would never commit it."""
    with st.container(key=BOX):
        st.button("Rest of the page", key=REST)
        _watcher()


def _watcher() -> None:
    """The watcher (``WATCH``, fixed text; it installs itself once per window), and beside it the regions plot's
    redraw of its points image when zoomed (``POINTS_ZOOM``, fixed text too)."""
    st.html(SCRIPTS, unsafe_allow_javascript=True)


def or_guess(current: Viewport | None) -> Viewport | None:
    """``current``, or ``UNKNOWN`` when nothing is known yet and a browser is behind the session (its first visit:
    the figure is made for a projector's screen). With no browser behind (a test harness), None: the chart fills
    its box."""
    if current is not None or not browser_behind():
        return current
    return UNKNOWN


def figure_size(current: Viewport | None, picture) -> Viewport | None:
    """The size to make the regions figure at: ``current`` (the size known now), unless the figure shows the same
    ``picture`` (any hashable key of what it shows) as the one drawn last, which keeps its size: the same figure
    at a new size would be a new chart, drawn again for nothing, while the chart on the page follows its box by
    itself. A new picture takes the new size."""
    ss = st.session_state
    last = ss.get(DRAWN)
    size = last[1] if last is not None and last[0] == picture else current
    ss[DRAWN] = (picture, size)
    return size


def plot_height(viewport: Viewport | None, top: int, minimum: int) -> int | None:
    """The height in px of a box ``round(down, max(100vh - top, minimum), 1px)`` high, or None when the viewport
    is not known."""
    return None if viewport is None else max(int(minimum), int(viewport.height) - int(top))
