"""Start loading Streamlit's plotly chart code in the browser as soon as a page opens (cheap to import: only
pathlib and streamlit, so ``app.py`` may call it before ``st.navigation``).

Streamlit's frontend fetches and compiles its plotly chunk (``static/js/PlotlyChart.<hash>.js``, ~4.7 MB) only
when the first chart arrives, after the page's script has run on the server. ``preload_plotly`` sends, as the
page's first element, a fixed script that imports that very chunk (same URL, so the browser evaluates it once and
Streamlit's own import later finds it loaded): the download and compilation overlap the server's run. The
element is hidden (``display: none``), so it takes no room; if the chunk is not found (another Streamlit build),
nothing is sent.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import streamlit as st

MARK = "rebel-preload"  # class of the hidden element that carries the script


@functools.cache
def plotly_chunk() -> str | None:
    """File name of Streamlit's plotly chart chunk in its static files, or None if there is not exactly one."""
    found = sorted((Path(st.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    return found[0].name if len(found) == 1 else None


def preload_script(chunk: str) -> str:
    """The fixed HTML of ``preload_plotly``: a hidden mark and a script importing ``chunk`` relative to the
    frontend's own entry script (so a server under a base path works too). Once per browser tab."""
    return (
        f"<style>[data-testid='stElementContainer']:has(.{MARK}) {{display: none;}}</style>"
        f"<span class='{MARK}'></span><script>(() => {{"
        "if (window.__rebelPlotlyPreload) return; window.__rebelPlotlyPreload = true;"
        "const main = document.querySelector('script[src*=\"static/js/index.\"]');"
        f"if (main) import(new URL({json.dumps('./' + chunk)}, main.src).href).catch(() => {{}});"
        "})();</script>"
    )


def preload_plotly() -> None:
    """Send ``preload_script`` (fixed text, no user input) if Streamlit's plotly chunk is known."""
    chunk = plotly_chunk()
    if chunk is not None:
        st.html(preload_script(chunk), unsafe_allow_javascript=True)
