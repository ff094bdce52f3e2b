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
is parsed strictly (``parse_size``) and otherwise ignored. A browser's very first visit draws as before. A new size
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


# The watcher: fixed text, installed once per window. A ResizeObserver on the plot box and the window's resize
# events; 300 ms after a change (a sidebar sliding open counts once), and once the plot is drawn (on a first visit
# the rerun would slow its first picture), it reads the viewport's height and the box's width, keeps them in a
# cookie and, when the hidden text box holds another size, writes the size there and commits it (input, then
# Enter); while the text box is not on the page yet (the run that draws the plot sends it last), it looks again
# 300 ms later, reading no layout. Once a second it looks for a new box or an emptied text box (a page left and
# opened again); no layout is read then, so the replay's Play is not slowed.
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
  let leaving = 0, sawRun = false;
  const app = () => document.querySelector("[data-testid='stApp']");
  const state = () => { const a = app(); return a ? a.getAttribute('data-test-script-state') : null; };
  const leave = () => { leaving = Date.now(); sawRun = false; };
  const busy = (s) => s === 'running' || s === 'rerunRequested';
  const running = () => { if (leaving && busy(state())) sawRun = true; };
  if (app()) {
    new MutationObserver(running).observe(app(), {attributes: true, attributeFilter: ['data-test-script-state']});
  }
  document.addEventListener('click', (e) => {
    const t = e.target;
    if (t && t.closest && t.closest("a[data-testid='stPageLink-NavLink'], [data-testid='stSidebarNav'] a")) leave();
  }, true);
  window.addEventListener('popstate', leave);
  const waiting = () => {
    if (!leaving) return false;
    running();
    if (!busy(state()) && (sawRun || Date.now() - leaving > 10000)) leaving = 0;  // its run is over, or none came
    return leaving !== 0;
  };
  const send = () => {
    if (waiting()) { later(); return; }
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
  let restSince = 0, restPressed = 0, restTimer = 0, restStarted = 0;
  const rest = () => {
    const b = document.querySelector('.st-key-pg_rest button');
    if (!b) {
      restSince = 0;
      if (Date.now() - restStarted > 2000) { clearInterval(restTimer); restTimer = 0; }
      return;
    }
    restStarted = 0;
    if (!restSince) restSince = Date.now();
    if (waiting()) return;
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
    """The watcher (``WATCH``, fixed text; it installs itself once per window)."""
    st.html(WATCH, unsafe_allow_javascript=True)


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
