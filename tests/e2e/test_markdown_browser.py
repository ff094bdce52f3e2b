"""Streamlit's own rendering of hostile names (Debian chromium driven by Playwright, app on a free port).

A link whose class names and preset name are bare URLs, markdown links and images, colour/icon/emoji
directives and LaTeX opens the Playground; it and the three pages the attack broke (Cost gallery, Cost sweep,
Trees and depth) are opened through the sidebar in the same session. No ``<a>`` or ``<img>`` pointing at the
payload's host, no KaTeX and no coloured or icon element from the payload appears in the page, while the names
are shown as typed. This checks in the browser what ``tests/test_injection.py`` models with markdown-it-py.
"""

from __future__ import annotations

import pytest

from rebel.ui import config as cf
from tests.e2e.conftest import settle
from tests.e2e.test_all_pages import FIRST_LOAD, _no_exception, _open_page
from tests.test_injection import HOSTILE, _hostile_doc, _link

pytestmark = pytest.mark.browser

LIVE = """() => {
  const main = document.body;
  const hits = [];
  // a link to this same page (Streamlit's "skip to content" link, the page's own address plus a fragment; the
  // sidebar's link to the page being shown, its address) is not a link anyone wrote; the address carries the
  // page's settings, so it may hold the names
  const here = location.href.split('#')[0];
  for (const a of main.querySelectorAll('a[href]')) {
    if (a.href.split('#')[0] === here) continue;
    if (a.href.includes('evil')) hits.push('a ' + a.href);
  }
  for (const i of main.querySelectorAll('img')) if ((i.src || '').includes('evil')) hits.push('img ' + i.src);
  for (const k of main.querySelectorAll('.katex')) if (k.textContent.includes('EVIL')) hits.push('katex');
  for (const s of main.querySelectorAll('span[style*="color"], [data-testid="stIconMaterial"]'))
    if (s.textContent.includes('EVIL') || s.textContent === 'skull') hits.push('styled ' + s.outerHTML.slice(0, 80));
  if (main.innerText.includes('\\u{1F480}')) hits.push('emoji skull');
  return hits;
}"""


def _assert_inert(page, where: str) -> None:
    _no_exception(page, where)
    hits = page.evaluate(LIVE)
    assert not hits, f"{where}: {hits}"


@pytest.mark.parametrize("pages", [("Cost gallery", "Cost sweep", "Trees and depth")])
def test_hostile_names_stay_inert_in_the_browser(app_url, browser, pages):
    doc = _hostile_doc(hyper__n_estimators=10, hyper__max_depth=1, hyper__n_thresholds=16)
    page = browser.new_page()
    page.goto(f"{app_url}/?{cf.QUERY_KEY}={_link(doc)}", wait_until="domcontentloaded")
    page.locator(".st-key-pg_plot .js-plotly-plot .slider-label").first.wait_for(timeout=FIRST_LOAD)
    settle(page, FIRST_LOAD)
    shown = page.inner_text("body").replace("\u2060", "")
    assert all(name in shown for name in HOSTILE), "the class names are not shown as typed"
    _assert_inert(page, "Playground")
    for title in pages:
        _open_page(page, title)
        _assert_inert(page, title)
    page.close()
