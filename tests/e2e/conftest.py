"""Fixtures for real-browser tests: the app on a free localhost port and Debian's chromium via Playwright."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from benchmarks._common import CHROMIUM as CHROMIUM_PATH
from benchmarks._common import CHROMIUM_ARGS, free_port, healthy, stop_process

ROOT = Path(__file__).resolve().parents[2]
# The sidebar's page links: app.py draws them (st.page_link); Streamlit's own list is turned off.
NAV_LINKS = "[data-testid='stSidebar'] a[data-testid='stPageLink-NavLink']"
CHROMIUM = Path(CHROMIUM_PATH)
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"

# What "the page is drawn" means for every browser test (one definition, ``settle``): Streamlit's app says its
# script run is over, no status widget, progress bar or spinner shows, and every chart in view has drawn (a
# chart whose plotly code is still loading, or that is still mounting, has no ``main-svg`` yet).
IDLE = """() => {
    const app = document.querySelector("[data-testid='stApp']");
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    // (a first page's hidden button: the run that brings the rest of that page has not come yet)
    if (document.querySelector(
        "[data-testid='stStatusWidget'], [data-testid='stProgress'], [data-testid='stSpinner'], .st-key-pg_rest"))
        return false;
    // (a cost edit the page computes, or has told the server and the server has not acknowledged yet)
    const pg = window.__rebelPg;
    if (pg && (pg.computing > 0 || pg.unacked)) return false;
    return [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
        .filter(chart => chart.offsetParent !== null)
        .every(chart => chart.querySelector('.main-svg'));
}"""


def settle(page, timeout: int = 240_000, pauses: tuple = (600, 400)) -> None:
    """Wait until the page is drawn and idle (``IDLE``), once after each pause: a rerun the browser asks for
    right after a run (the Playground's viewport script, a widget's callback) is caught by the second look."""
    for pause in pauses:
        page.wait_for_timeout(pause)
        page.wait_for_function(IDLE, timeout=timeout, polling=250)


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode} before becoming healthy")
        if healthy(url):
            return
        time.sleep(0.3)
    raise RuntimeError(f"streamlit did not answer {url}/_stcore/health within {timeout:.0f} s")


@contextlib.contextmanager
def serve_app(*extra_args: str, plain: bool = False):
    """``make run``'s server (``python -m rebel.ui.launch app.py``: ``streamlit run`` that prepares the first
    page at launch), or with ``plain`` a bare ``streamlit run app.py``, on a free localhost port (plus
    ``extra_args``); yields (url, process) and stops that process (this one only) on exit."""
    port = free_port()
    env = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")))
    url = f"http://127.0.0.1:{port}"
    args = ["--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true"]
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                *(("streamlit", "run") if plain else ("rebel.ui.launch",)),
                "app.py",
                *args,
                *extra_args,
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_healthy(url, proc)
            yield url, proc
        finally:
            stop_process(proc)


@pytest.fixture(scope="session")
def app_server():
    """The app on a free port for the whole session: (url, its process). Every browser test that needs no server of
    its own shares it (a test that stops it for a while resumes it before it ends)."""
    with serve_app() as (url, proc):
        yield url, proc


@pytest.fixture(scope="session")
def app_url(app_server):
    """The session's app (``app_server``)."""
    return app_server[0]


@pytest.fixture(scope="session")
def playwright():
    """One Playwright driver for the whole session: its sync API allows only one running at a time, so every
    browser fixture below starts from this one."""
    if not CHROMIUM.exists():
        message = (
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run this test"
        )
        if os.environ.get("REBEL_REQUIRE_BROWSER"):  # `make test`: a browser test that cannot run fails
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright):
    """One persistent Chromium context (one profile, one cookie jar) shared by the page tests."""
    with tempfile.TemporaryDirectory(prefix="rebel-chromium-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1500, "height": 1300},
        )
        try:
            yield context
        finally:
            context.close()


def open_preset_pictures(page) -> None:
    """Open the Playground sidebar's preset pictures (drawn only while their expander is open)."""
    from rebel.ui.playground.widgets import PRESET_PICTURES

    page.locator("[data-testid='stSidebar'] [data-testid='stExpander'] summary").filter(
        has_text=PRESET_PICTURES
    ).first.click()


def forget_storage(browser, url: str) -> None:
    """Clear the shared profile's localStorage for ``url``'s origin, as a new visitor has it. Streamlit keeps the
    sidebar's folded state there: a test that folds it would otherwise leave every later test a folded sidebar,
    its page links and widgets off screen."""
    blank = browser.new_page()
    try:
        blank.goto(f"{url}/_stcore/health")
        blank.evaluate("localStorage.clear()")
    finally:
        blank.close()


@pytest.fixture(autouse=True)
def _new_visitor_storage(request):
    """Before every test that uses the shared profile (``browser``) on the session's app (``app_url`` or
    ``app_server``): no storage left by an earlier test (``forget_storage``). Module-scoped pages call
    ``forget_storage`` themselves (they open before this runs)."""
    if "browser" in request.fixturenames and {"app_url", "app_server"} & set(request.fixturenames):
        forget_storage(request.getfixturevalue("browser"), request.getfixturevalue("app_server")[0])


@pytest.fixture(scope="session")
def chromium(playwright):
    """A Chromium browser for tests that need several independent contexts (their own cookies each)."""
    launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    try:
        yield launched
    finally:
        launched.close()


@pytest.fixture
def page(browser):
    """A new tab at 1280x720 (a projector's screen), closed after the test."""
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        yield page
    finally:
        page.close()


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


def set_run_state(page, state: str) -> None:
    """Set the run state (``notRunning``, ``running``) of a stand-in app element (``[data-testid=stApp]``) that a
    test built for a script run on its own, as Streamlit's page sets its own."""
    page.evaluate(
        "s => document.querySelector('[data-testid=stApp]').setAttribute('data-test-script-state', s)", state
    )
