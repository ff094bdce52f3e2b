"""A server's very first visit: the sidebar lists exactly the app's pages, never Streamlit's automatic list of the
pages/ folder (with an extra "app" entry), whether the server is make run's or a plain ``streamlit run app.py``."""

from __future__ import annotations

import ast

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Navigation_pb2 import Navigation

from tests.e2e.conftest import NAV_LINKS, ROOT, serve_app

FIRST_LOAD = 120_000  # ms: a fresh server, the first page (kernels from the numba cache or compiled)


def _page_titles() -> list:
    """The titles app.py gives its st.Page entries, in order (read from its source: importing it runs it)."""
    tree = ast.parse((ROOT / "app.py").read_text())
    return [
        kw.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Page"
        for kw in node.keywords
        if kw.arg == "title"
    ]


@pytest.mark.parametrize("plain", [False, True], ids=["make-run", "plain-streamlit-run"])
def test_first_visit_on_a_fresh_server_lists_only_the_registered_pages(browser, plain):
    """No navigation message the browser receives shows a list (Streamlit's would hold an extra "app" entry on a
    plain server's first visit), the last one is app.py's own, and the sidebar's links are exactly the app's
    pages."""
    expected = _page_titles()
    assert len(expected) >= 9 and "Playground" in expected
    with serve_app(plain=plain) as (url, _):
        page = browser.new_page()
        page.set_viewport_size({"width": 1280, "height": 720})
        frames: list = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
        try:
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_selector(".st-key-pg_plot .js-plotly-plot", timeout=FIRST_LOAD)
            page.locator(NAV_LINKS).first.wait_for(timeout=FIRST_LOAD)
            shown = page.locator(NAV_LINKS).all_inner_texts()
            automatic = page.locator("[data-testid='stSidebarNav']").count()
        finally:
            page.close()
    lists = []
    for frame in frames:
        if isinstance(frame, (bytes, bytearray)):
            msg = ForwardMsg()
            msg.ParseFromString(bytes(frame))
            if msg.HasField("navigation"):
                names = [p.page_name for p in msg.navigation.app_pages]
                lists.append((names, msg.navigation.position))
    assert lists, "no navigation message arrived"
    assert all(position == Navigation.Position.HIDDEN for _, position in lists), lists
    assert lists[-1][0] == expected, lists
    assert automatic == 0, "Streamlit's own page list is shown"
    assert [s.strip().splitlines()[-1] for s in shown] == expected, shown  # without the icon's name
