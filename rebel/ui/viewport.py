"""The browser's viewport height and plot width, known to the server, so the Playground's regions are drawn once.

Why: Streamlit's plotly chart measures its box after it mounts and draws the figure again whenever the measured
height or width differs from the figure's own. A new chart with no height of its own was drawn at 450 px, then
again at its box's height: every cost edit drew the regions replay (about 1,700 SVG markers and three layout
images) twice. On a session's first chart the width is not known when it mounts either: drawn hidden, it was shown
only after the rest of the page had rendered (0.6-0.7 s later on a 2-core machine). A figure whose size equals its
box's, in whole pixels, is drawn once and shown at once. The plot box is ``round(down, 100vh - top, 1px)`` high
and ``round(down, 100%, 1px)`` wide (CSS), so the server can compute its height from the viewport's
(``plot_height``); its width the browser measures.

How the server learns them: ``report()`` mounts a small component, a fixed script with no user text, which sends
``"<viewport height>x<plot width>"`` once the plot box is on the page and again when either changes (a window
resized, the sidebar folded: a rerun with the new size), and keeps it in a cookie (``COOKIE``), which a later
session of the same browser reads on its first run (``st.context.cookies``). A session whose browser has not told
its size yet (a browser's first visit: the component mounts after the page's charts) draws as before and takes the
size from its next change of the picture on (``figure_size``). Where the size is not known or no longer right (a
window resized since the cookie was written, a test without a browser) the chart falls back to Streamlit's own
measuring: the picture is right, drawn twice.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import streamlit as st

COOKIE = "rebel_vp"  # "<viewport height>x<plot box width>", px
KEY = "pg_viewport"  # the component's widget key: its state "size" is the size the browser sent last
HEIGHTS = (200, 10_000)  # px: viewport heights taken as real (a cookie or a message outside is ignored)
WIDTHS = (100, 10_000)  # px: plot widths taken as real
NEWS = "_viewport_news"  # set by the reporter's rerun (``report``'s callback), popped by ``figure_size``
DRAWN = "_viewport_drawn"  # the size the regions figure was last made at (``figure_size``)


class Viewport(NamedTuple):
    """What the server knows of the browser: the viewport's height and the plot box's width, in px."""

    height: int
    width: int


# The reporter: fixed text (no user input reaches it). Every 250 ms it reads the viewport's height and the plot
# box's width (``div.st-key-pg_plot``, whole pixels by its CSS), keeps them in a cookie and sends them when they
# changed and held for two reads (a sidebar sliding open sends its end, not every step); the first size a page
# sends goes at once. It never sends what the server already knows (``data``) or what it sent last, so it cannot
# start a loop of reruns.
_JS = """
export default function ({ data, setStateValue }) {
  const known = data || {};
  let last = null;
  const check = () => {
    const box = document.querySelector("div.st-key-pg_plot");
    if (!box) return;
    const h = Math.round(window.innerHeight);
    const w = Math.floor(box.getBoundingClientRect().width);
    if (!(h > 0 && w > 0)) return;
    const size = h + "x" + w;
    const stable = size === last;
    last = size;
    document.cookie = "rebel_vp=" + size + "; path=/; max-age=31536000; SameSite=Lax";
    if (known.size === size || window.__rebelViewportSent === size) return;
    if (!stable && window.__rebelViewportSent !== undefined) return;
    window.__rebelViewportSent = size;
    setStateValue("size", size);
  };
  check();
  const timer = setInterval(check, 250);
  return () => clearInterval(timer);
}
"""
_CSS = ":host {display: none;}"
_SIZE = re.compile(r"([0-9]{1,5})x([0-9]{1,5})")


def parse_size(value) -> Viewport | None:
    """``"<height>x<width>"`` from the browser (component state or cookie text) as a ``Viewport``, or None when it
    is anything else or outside ``HEIGHTS`` / ``WIDTHS``."""
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


@st.cache_resource
def _component():
    import streamlit.components.v2 as components

    return components.component("rebel_viewport", js=_JS, css=_CSS)


def report() -> Viewport | None:
    """Mount the reporter (once per run, at the top of the page) and return what is known now: the size the
    browser sent in this session, else its cookie's, else None."""
    cookie = _cookie_size()
    known = None if cookie is None else f"{cookie.height}x{cookie.width}"
    result = _component()(key=KEY, data={"size": known}, on_size_change=_news)
    sent = parse_size(getattr(result, "size", None))
    return sent if sent is not None else cookie


def _news() -> None:
    """The reporter's change callback: this rerun was caused by a new size (``figure_size`` reads it)."""
    st.session_state[NEWS] = True


def figure_size(known: Viewport | None) -> Viewport | None:
    """The size to make the regions figure at: ``known`` (``report``'s), except in a rerun the reporter itself
    caused, which keeps the size of the figure already drawn: a new size there would only draw the same picture
    again (a new figure is a new chart), while the chart on the page follows its box by itself. The next change
    of the picture takes the new size."""
    ss = st.session_state
    size = ss.get(DRAWN, known) if ss.pop(NEWS, False) else known
    ss[DRAWN] = size
    return size


def plot_height(viewport: Viewport | None, top: int, minimum: int) -> int | None:
    """The height in px of a box ``round(down, max(100vh - top, minimum), 1px)`` high, or None when the viewport
    is not known."""
    return None if viewport is None else max(int(minimum), int(viewport.height) - int(top))
