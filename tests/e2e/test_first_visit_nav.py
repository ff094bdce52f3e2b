"""A server's very first visit: the sidebar lists exactly the app's pages, never Streamlit's automatic list of a
pages/ folder (with an extra "app" entry), whether the server is make run's or a plain ``streamlit run app.py``."""

from __future__ import annotations

import ast

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.e2e.conftest import ROOT, serve_app

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
    """Every navigation message the browser receives lists exactly the app's pages, and so does the sidebar."""
    expected = _page_titles()
    assert len(expected) >= 9 and "Playground" in expected
    assert not (ROOT / "pages").exists(), "a pages/ folder beside app.py turns on Streamlit's automatic list"
    with serve_app(plain=plain) as (url, _):
        page = browser.new_page()
        page.set_viewport_size({"width": 1280, "height": 720})
        frames: list = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
        try:
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_selector(".st-key-pg_plot .js-plotly-plot", timeout=FIRST_LOAD)
            shown = page.locator("[data-testid='stSidebarNav'] a").all_inner_texts()
        finally:
            page.close()
    lists = []
    for frame in frames:
        if isinstance(frame, (bytes, bytearray)):
            msg = ForwardMsg()
            msg.ParseFromString(bytes(frame))
            if msg.HasField("navigation"):
                lists.append([p.page_name for p in msg.navigation.app_pages])
    assert lists, "no navigation message arrived"
    assert all(names == expected for names in lists), lists
    assert [s.strip().splitlines()[-1] for s in shown] == expected, shown  # without the icon's name
