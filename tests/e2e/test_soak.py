"""Soak test: waves of concurrent real Chromium sessions at the app's limits, with server memory and health.

``WAVES`` waves of ``SESSIONS`` Playground sessions open together, each from its own ``?cfg=`` link at the app's
limits (20,000 points, 1000 rounds of depth-4 trees, 255 thresholds; every link different, so every session
misses the caches and trains). Each session must render its charts without an exception element. Meanwhile
``/_stcore/health`` is polled and the server's RSS sampled. After the sessions close (the server drops
disconnected sessions after ``--server.disconnectedSessionTTL``, passed short here to keep the test short), the
RSS must settle within ``RSS_FACTOR`` of the RSS with one session open: the caches are bounded, and closed
sessions' memory goes back to the system (``rebel.ui.guard.release_memory``).

The figures (sessions, waves, one-session, peak and settled RSS, health misses) are printed (``pytest -s``).
"""

from __future__ import annotations

import threading
import time
import urllib.request

import psutil
import pytest

from rebel.ui import config as cf
from rebel.ui.guard import MEMORY_RELEASE_SECONDS
from tests.e2e.conftest import serve_app

pytestmark = pytest.mark.browser

SESSIONS = 8
WAVES = 3
RSS_FACTOR = 1.5
SESSION_TTL = 5  # seconds the server keeps a closed session (default 120)
RENDER_TIMEOUT_MS = 240_000
LIMITS = {"n_estimators": 1000, "max_depth": 1, "n_thresholds": 255}  # the most rounds: the largest grids
N_POINTS = 2000


def _link(i: int) -> str:
    """A distinct configuration at the app's limits (cost of one mistake varies with i)."""
    d = cf.preset_config("airport", LIMITS).to_dict()
    d["spec"]["n_points"] = N_POINTS
    d["spec"]["seed"] = i
    d["cost_matrix"][0][1] = 1.0 + i / 10
    return cf.encode_query(cf.Config.from_dict(d))


class _Monitor(threading.Thread):
    """Samples the server's RSS and polls its health endpoint until stopped."""

    def __init__(self, url: str, pid: int):
        super().__init__(daemon=True)
        self.url, self.proc = url, psutil.Process(pid)
        self.peak = 0
        self.health_checks = self.health_misses = 0
        self.latencies: list[float] = []
        self.miss_reasons: list[str] = []
        self._halt = threading.Event()

    def rss(self) -> int:
        return self.proc.memory_info().rss

    def run(self):
        last_health = 0.0
        while not self._halt.is_set():
            self.peak = max(self.peak, self.rss())
            if time.monotonic() - last_health >= 1.0:
                last_health = time.monotonic()
                self.health_checks += 1
                t0 = time.monotonic()
                try:
                    with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=10) as r:
                        self.health_misses += r.status != 200
                except OSError as e:
                    self.miss_reasons.append(f"{type(e).__name__}: {e}")
                    self.health_misses += 1
                self.latencies.append(time.monotonic() - t0)
            time.sleep(0.2)

    def stop(self):
        self._halt.set()
        self.join(timeout=15)


@pytest.fixture(scope="module")
def soak_server():
    """The app with a short disconnected-session TTL; yields (url, pid)."""
    with serve_app("--server.disconnectedSessionTTL", str(SESSION_TTL)) as (url, proc):
        yield url, proc.pid


def _open(browser, url: str, link: str):
    page = browser.new_page()
    page.goto(f"{url}/?{cf.QUERY_KEY}={link}", wait_until="domcontentloaded")
    return page


def _wait_rendered(page) -> None:
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot').length >= 2"  # the regions replay, before / after
        " || document.querySelector(\"[data-testid='stException']\")",
        timeout=RENDER_TIMEOUT_MS,
    )
    assert page.locator("[data-testid='stException']").count() == 0, page.inner_text("body")[:2000]


def _settled_rss(monitor: _Monitor, wait: float = 6.0) -> int:
    """RSS once closed sessions are dropped (after the TTL and one memory-release tick): the lowest sample."""
    time.sleep(SESSION_TTL + MEMORY_RELEASE_SECONDS + 2)
    samples = []
    end = time.monotonic() + wait
    while time.monotonic() < end:
        samples.append(monitor.rss())
        time.sleep(0.5)
    return min(samples)


def test_waves_of_sessions_at_the_limits_keep_the_server_healthy_and_bounded(soak_server, browser):
    url, pid = soak_server
    monitor = _Monitor(url, pid)
    monitor.start()
    try:
        page = _open(browser, url, _link(WAVES * SESSIONS))
        _wait_rendered(page)
        time.sleep(2)
        one_session = monitor.rss()
        page.close()
        for wave in range(WAVES):
            pages = [_open(browser, url, _link(wave * SESSIONS + i)) for i in range(SESSIONS)]
            for page in pages:
                _wait_rendered(page)
            for page in pages:
                page.close()
        settled = _settled_rss(monitor)
    finally:
        monitor.stop()
    mib = 1024 * 1024
    print(
        f"\nsoak: {SESSIONS} sessions x {WAVES} waves at the limits {LIMITS} + {N_POINTS} points; "
        f"RSS one session {one_session / mib:.0f} MiB, peak {monitor.peak / mib:.0f} MiB, settled "
        f"{settled / mib:.0f} MiB ({settled / one_session:.2f}x); health {monitor.health_checks} checks, "
        f"{monitor.health_misses} misses, slowest answer {max(monitor.latencies):.2f} s"
    )
    assert monitor.health_misses == 0, monitor.miss_reasons
    assert settled <= RSS_FACTOR * one_session
