"""Real-browser checks of the whole app (Debian chromium driven by Playwright, app on a free localhost port).

- The sidebar lists exactly the 10 registered pages (no automatic "app" entry) and pages use the wide layout.
- Every page loads through the sidebar at 1440 x 900 with no exception element and no JavaScript error; each is
  saved full length as ``page_<n>_<title>.png`` under tests/e2e/screenshots/ for a person to look at.
- A bad CSV upload shows the error and keeps the dataset; a good one replaces it.
- Page switches keep the Playground's dataset and cost matrix (a distinctive cost from a link, then a CSV).
- The lesson path: a scene's button opens the Playground on that scene, its bar's "Next scene" goes on.
"""

from __future__ import annotations

import re
import socket
import urllib.error
import urllib.request

import numpy as np
import pytest

from benchmarks.bench_browser import HOOKS, VIEWPORT
from rebel.ui import config as cf
from tests.e2e.conftest import NAV_LINKS, settle
from tests.e2e.test_first_screen import full_screenshot

pytestmark = pytest.mark.browser

FIRST_LOAD = 240_000  # ms: a cold start compiles the numba kernels
PAGE_LOAD = 180_000
PAGES = {  # sidebar title -> the page's own title
    "Playground": None,  # no heading: the first screen is the regions figure and the costs
    "Lessons": "Lessons",
    "REBEL vs two-step": "REBEL vs the two-step method",
    "Risk-score paths": "Risk-score paths",
    "Cost gallery": "Cost-sensitivity gallery",
    "Trees and depth": "Trees and depth",
    "Real data": "Real data",
    "Costs per example": "Costs known per example",
    "Cost sweep": "Cost sweep",
    "Theory": "Theory on your problem",
}
MARK = 37  # a cost no preset uses: weapon predicted as harmless
FAST = {"n_estimators": 20, "max_depth": 2, "n_thresholds": 32}


def _marked_link() -> str:
    cfg = cf.preset_config("airport", FAST)
    C = cfg.cost_matrix.copy()
    C[2, 0] = MARK
    return cf.encode_query(cf.Config(cfg.spec, C, cfg.hyper, "airport"))


def _no_exception(page, where: str) -> None:
    shown = page.locator("[data-testid='stException']")
    assert shown.count() == 0, f"{where}: {shown.first.inner_text()[:500]}"


def _open_page(page, title: str) -> None:
    page.locator(NAV_LINKS, has_text=title).first.click()
    if PAGES[title] is None:  # the Playground has no heading (one screen): wait for its regions figure
        page.locator(".st-key-pg_plot .js-plotly-plot .slider-label").first.wait_for(timeout=PAGE_LOAD)
    else:
        page.get_by_role("heading", name=PAGES[title]).first.wait_for(timeout=PAGE_LOAD)
    settle(page, PAGE_LOAD)


def _weapon_cost_text(page) -> str:
    """The cost editor's cell (truth weapon, prediction harmless), as shown."""
    cell = page.locator(HOOKS["cost_cell"].format(i=2, j=0)).first
    cell.wait_for(timeout=PAGE_LOAD)
    return cell.input_value()


def _upload_csv(page, name: str, data: bytes) -> None:
    uploader = page.locator("[data-testid='stFileUploader']", has_text="Upload points")
    uploader.locator("input[type=file]").set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": data}
    )
    settle(page, PAGE_LOAD)


@pytest.fixture(scope="module")
def app_page(app_url, browser):
    """One browser tab on the Playground at 1440 x 900, opened from a link with a distinctive cost."""
    page = browser.new_page()
    page.set_viewport_size(VIEWPORT)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(f"{app_url}/?{cf.QUERY_KEY}={_marked_link()}", wait_until="domcontentloaded")
    # the Playground has no heading (one screen): its regions figure names itself in its numbers lines
    page.wait_for_selector(".st-key-pg_plot .js-plotly-plot .slider-label", timeout=FIRST_LOAD)
    settle(page, FIRST_LOAD)
    yield page
    page.close()


def test_sidebar_lists_the_registered_pages_and_layout_is_wide(app_page, screenshot_dir):
    links = app_page.locator(NAV_LINKS)
    texts = [t.strip() for t in links.all_inner_texts()]  # icon (emoji or Material name) + title
    assert len(texts) == len(PAGES), f"sidebar entries: {texts}"
    assert all(t.endswith(title) for t, title in zip(texts, PAGES)), f"sidebar entries: {texts}"
    width = app_page.locator("[data-testid='stMainBlockContainer']").bounding_box()["width"]
    viewport = app_page.viewport_size["width"]
    sidebar = app_page.locator("[data-testid='stSidebar']").bounding_box()["width"]
    assert width > 0.8 * (viewport - sidebar), (
        f"main column {width:.0f}px of {viewport - sidebar:.0f}px: centred"
    )
    app_page.screenshot(path=str(screenshot_dir / "all_pages_playground.png"))
    _no_exception(app_page, "Playground")


def test_bad_csv_upload_shows_the_error_and_keeps_the_dataset(app_page, screenshot_dir):
    assert str(MARK) in _weapon_cost_text(app_page)
    _upload_csv(app_page, "bad.csv", b"x,y,label\n1,oops,a\n2,3,b\n")
    alert = app_page.locator("[data-testid='stAlert']", has_text="CSV file not loaded").first
    alert.wait_for(timeout=30_000)
    assert "oops" in alert.inner_text() and "previous dataset is still in use" in alert.inner_text()
    alert.scroll_into_view_if_needed()
    app_page.screenshot(path=str(screenshot_dir / "all_pages_bad_csv.png"))
    assert str(MARK) in _weapon_cost_text(app_page)
    assert app_page.get_by_text("Using the uploaded CSV points").count() == 0
    _no_exception(app_page, "Playground after a bad CSV")


def test_every_page_loads_and_switches_keep_the_costs(app_page, screenshot_dir):
    saved = []
    for n, title in enumerate(PAGES):
        if n:
            _open_page(app_page, title)
        _no_exception(app_page, title)
        saved.append(screenshot_dir / f"page_{n}_{re.sub(r'[^a-z0-9]+', '_', title.lower()).strip('_')}.png")
        full_screenshot(app_page, saved[-1])
    assert all(p.stat().st_size > 10_000 for p in saved)  # real pictures, not blank pages
    _open_page(app_page, "Playground")
    _no_exception(app_page, "Playground (back)")
    assert str(MARK) in _weapon_cost_text(app_page), "the link's cost was lost after visiting the other pages"
    assert not app_page.errors, f"JavaScript errors: {app_page.errors}"


def test_lesson_scenes_open_in_the_playground_one_click_each(app_url, browser, screenshot_dir):
    page = browser.new_page()
    page.goto(f"{app_url}/Lessons", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Lessons").first.wait_for(timeout=FIRST_LOAD)
    settle(page, FIRST_LOAD)
    page.screenshot(path=str(screenshot_dir / "lessons_page.png"), full_page=True)
    page.locator(".st-key-w_lesson_2 button").click()
    page.locator(".st-key-pg_plot .js-plotly-plot .slider-label").first.wait_for(timeout=PAGE_LOAD)
    settle(page, PAGE_LOAD)
    _no_exception(page, "scene 3")
    assert "scene 3 of" in page.locator("[data-testid='stMain']").inner_text()
    page.screenshot(path=str(screenshot_dir / "lesson_scene_3.png"))
    page.locator(".st-key-w_lesson_next button").click()
    settle(page, PAGE_LOAD)
    _no_exception(page, "scene 4")
    assert "scene 4 of" in page.locator("[data-testid='stMain']").inner_text()
    assert "scene=4" in page.url  # the scene's short link (rebel.ui.short_link)
    page.screenshot(path=str(screenshot_dir / "lesson_scene_4.png"))
    page.close()


def test_a_good_csv_survives_page_switches(app_page, screenshot_dir):
    rng = np.random.default_rng(0)
    rows = "\n".join(f"{x:.3f},{y:.3f},{'ab'[int(x + y > 0)]}" for x, y in rng.normal(size=(200, 2)))
    _upload_csv(app_page, "points.csv", f"x,y,label\n{rows}\n".encode())
    app_page.get_by_text("Using the uploaded CSV points").first.wait_for(timeout=30_000)
    for title in ("Theory", "Playground"):
        _open_page(app_page, title)
        _no_exception(app_page, title)
    assert app_page.get_by_text("Using the uploaded CSV points").count() >= 1, "the CSV dataset was lost"
    editor = app_page.locator(HOOKS["cost_editor"][0]).first.inner_text()
    assert "harmless" not in editor and {"a", "b"} <= set(editor.split())
    app_page.screenshot(path=str(screenshot_dir / "all_pages_csv_back.png"))
    assert not app_page.errors, f"JavaScript errors: {app_page.errors}"


def test_server_refuses_uploads_without_the_xsrf_token(app_url):
    request = urllib.request.Request(
        f"{app_url}/_stcore/upload_file/some-session/some-file", data=b"x,y,label\n", method="PUT"
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 403


def test_server_listens_on_localhost_only(app_url):
    port = int(app_url.rsplit(":", 1)[1])
    addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    try:  # the address of the default route (a UDP "connect" sends nothing)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.connect(("192.0.2.1", 9))
            addresses.add(u.getsockname()[0])
    except OSError:
        pass
    external = sorted(a for a in addresses if not a.startswith("127."))
    if not external:
        pytest.skip("this machine has no non-loopback IPv4 address to try")
    for address in external:
        with socket.socket() as s, pytest.raises(OSError):
            s.settimeout(2)
            s.connect((address, port))
