"""The page ``make run``'s server sends asks for the chart bundle from its ``<head>`` (``rebel.ui.chart_preload``):
every preloaded file is served, and a new browser draws the Playground with the bundle fetched once, by the
preload (the chart's own ``import()`` finds it in the module map instead of fetching it again)."""

from __future__ import annotations

import re
import urllib.request

import pytest

from rebel.ui import chart_preload

pytestmark = pytest.mark.browser

PAGE_LOAD = 240_000
_LINK = re.compile(r'<link rel="modulepreload" crossorigin href="\./([^"]+)">')


def _get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read()


@pytest.mark.parametrize("path", ["/", "/Lessons"], ids=["root", "a-page-url"])
def test_the_served_page_preloads_the_chart_bundle_and_every_preloaded_file_is_served(app_url, path):
    status, kind, body = _get(app_url + path)
    page = body.decode("utf-8")
    assert status == 200 and kind.startswith("text/html")
    preloaded = _LINK.findall(page)
    bundles = [p for p in preloaded if re.fullmatch(r"static/js/PlotlyChart\.[\w-]+\.js", p)]
    assert len(bundles) == 1, preloaded
    assert page.index(bundles[0]) < page.index("</head>")
    for href in preloaded:
        status, kind, body = _get(f"{app_url}/{href}")
        assert status == 200 and "javascript" in kind and body, href
    status, _, body = _get(f"{app_url}/{bundles[0]}")
    assert len(body) > 1_000_000  # plotly.js itself, not an HTML fallback


def test_a_new_browser_draws_the_playground_with_the_bundle_fetched_once_by_the_preload(chromium, app_url):
    context = chromium.new_context(viewport={"width": 1280, "height": 720})  # no cache of its own
    try:
        page = context.new_page()
        page.goto(f"{app_url}/?present=1", wait_until="commit")
        page.locator(".st-key-pg_plot .js-plotly-plot .main-svg").first.wait_for(timeout=PAGE_LOAD)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.st-key-pg_plot .slider-label')]"
            ".some(e => /t = \\d+/.test(e.textContent))",
            timeout=PAGE_LOAD,
        )
        fetched = page.evaluate(
            "performance.getEntriesByType('resource').filter(e => /PlotlyChart\\.[^/]*\\.js$/.test(e.name))"
            ".map(e => [e.name, e.startTime])"
        )
        loaded = page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
    finally:
        context.close()
    assert len(fetched) == 1, fetched
    # by the <head>'s preload: the chart's own import() runs only after the page's scripts and the server's message
    assert fetched[0][1] < loaded, (fetched, loaded)
    assert fetched[0][0].rsplit("/", 1)[1].startswith(chart_preload.BUNDLE + ".")
