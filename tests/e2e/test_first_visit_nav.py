"""A server's very first visit: the sidebar never lists Streamlit's automatic pages/ entries (with "app")."""

from __future__ import annotations

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.e2e.conftest import serve_app

FIRST_LOAD = 120_000  # ms: a fresh server, the first page (kernels from the numba cache or compiled)


def test_first_visit_on_a_fresh_server_sends_only_the_registered_pages(browser):
    """Every navigation message the browser receives lists the app's pages, never the automatic list."""
    with serve_app() as (url, _):
        page = browser.new_page()
        frames: list = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
        try:
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_selector(".st-key-pg_plot .js-plotly-plot", timeout=FIRST_LOAD)
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
    assert all("app" not in names and "Playground" in names for names in lists), lists
