"""Soak test: waves of concurrent real Chromium sessions at the app's limits, with server memory and health.

Waves of Playground sessions open together, each from its own ``?cfg=`` link at the app's limits (every link
different, so every session misses the caches and trains). Each session must render its charts without an
exception element. Meanwhile ``/_stcore/health`` is polled and the server's RSS sampled. After the sessions close (the server drops
disconnected sessions after ``--server.disconnectedSessionTTL``, passed short here to keep the test short), the
RSS must settle within ``RSS_FACTOR`` of the RSS with one session open: the caches are bounded, and closed
sessions' memory goes back to the system (``rebel.ui.guard.release_memory``).

The figures (sessions, waves, one-session, peak and settled RSS, health misses) are printed (``pytest -s``).

Three loads, all run by ``make soak`` (``tests/conftest.py``'s ``SOAK``), none by ``make test``: ``sessions`` (3
sessions at once of 300 stump rounds on 2,000 points, the light one, which runs without ``REBEL_SOAK`` too; the
sessions render and the server stays healthy, but they add too little memory for the RSS bound to tell),
``limits`` (4 sessions x 2 waves of 1000 stump rounds on 2,000 points) and ``attack`` (10 sessions at once at the Playground's maxima that ``rebel.budget`` admits: 20,000
points, 1000 rounds of depth-4 trees, 255 thresholds, the vector engine). ``limits`` and ``attack`` are load runs
of several minutes: ``make soak`` (``REBEL_SOAK=1``) runs them. ``attack`` also bounds the slowest health answer
(``HEALTH_MAX``) and appends its figures, with the load average, to ``benchmarks/results/soak.txt``; its sessions
open the Lecture view and download every slide export it offers (PNG, GIF, MP4; a replay over the export budget
shows why instead).
"""

from __future__ import annotations

import os
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from rebel.params import MAX_APP_POINTS as MAX_POINTS
from rebel.ui import config as cf
from rebel.ui.config import dataset_from_config
from rebel.ui.guard import MEMORY_RELEASE_SECONDS
from rebel.ui.playground.compute import check_pair_budget
from rebel.ui.variants import engine_options
from tests.e2e.conftest import serve_app
from tests.e2e.test_slides_browser import _download

pytestmark = pytest.mark.browser

RSS_FACTOR = 1.5
SESSION_TTL = 5  # seconds the server keeps a closed session (default 120)
HEALTH_MAX = 2.0  # seconds: the slowest health answer allowed under the attack's load
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "soak.txt"


@dataclass(frozen=True)
class Load:
    name: str
    sessions: int
    waves: int
    hyper: dict
    n_points: int
    engine: str = "paper"
    render_timeout_ms: int = 240_000
    timeout: int = 600  # seconds for the whole test (pytest-timeout)
    exports: bool = False  # each session opens the Lecture view and downloads every slide export offered
    # the settled RSS checked against RSS_FACTOR: the loads whose sessions add more than that factor at their peak
    # (the light load's 3 sessions added 0.24x one session: a bound it could not cross)
    rss_bound: bool = True


LOADS = [
    # make test's: sessions that train at once, then close (the checks of the loads below, at a lighter load)
    Load("sessions", 3, 1, {"n_estimators": 300, "max_depth": 1, "n_thresholds": 255}, 2000, rss_bound=False),
    # the most rounds: the largest grids; 4 sessions at once in each wave (8 took 45-90 s a wave on 2 quiet cores
    # and over the render timeout beside other work: `make soak`'s attack is the heavy load)
    Load(
        "limits",
        4,
        2,
        {"n_estimators": 1000, "max_depth": 1, "n_thresholds": 255},
        2000,
        render_timeout_ms=480_000,
        timeout=1200,
    ),
    # the attack: every session at the Playground's maxima, all at once
    Load(
        "attack",
        10,
        1,
        {"n_estimators": 1000, "max_depth": 4, "n_thresholds": 255},
        MAX_POINTS,
        "vector",
        render_timeout_ms=1_500_000,
        timeout=2400,
        exports=True,
    ),
]


def _link(load: Load, i: int) -> str:
    """A distinct configuration of ``load`` (cost of one mistake varies with i); refused if over the budget."""
    d = cf.preset_config("airport", load.hyper, load.engine).to_dict()
    d["spec"]["n_points"] = load.n_points
    d["spec"]["seed"] = i
    d["cost_matrix"][0][1] = 1.0 + i / 10
    cfg = cf.Config.from_dict(d)
    check_pair_budget(dataset_from_config(cfg), {**cfg.hyper, **engine_options(cfg.engine)}, 0)
    return cf.encode_query(cfg)


class _Monitor(threading.Thread):
    """Samples the server's RSS and polls its health endpoint until stopped."""

    def __init__(self, url: str, pid: int):
        super().__init__(daemon=True)
        self.url, self.proc = url, psutil.Process(pid)
        self.peak = 0
        self.health_checks = self.health_misses = 0
        self.latencies: list[float] = []
        self.load_max = 0.0
        self.miss_reasons: list[str] = []
        self._halt = threading.Event()

    def rss(self) -> int:
        return self.proc.memory_info().rss

    def run(self):
        last_health = 0.0
        while not self._halt.is_set():
            self.peak = max(self.peak, self.rss())
            self.load_max = max(self.load_max, os.getloadavg()[0])
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


def _open(browser, url: str, link: str, exports: bool = False):
    page = browser.new_page()
    # the Details tab on the before/after chart (a session opens on text): each session builds and draws both
    # charts, the heaviest view a person opens; or on the Lecture view, whose slide exports the session downloads
    view = "Lecture" if exports else "Before%20%2F%20after"
    page.goto(f"{url}/?{cf.QUERY_KEY}={link}&details={view}", wait_until="domcontentloaded")
    return page


def _wait_rendered(page, timeout_ms: int, exports: bool = False) -> None:
    ready = (
        "document.querySelector(\"[data-testid='stDownloadButton'] button\") && [...document.querySelectorAll("
        "\"[data-testid='stDownloadButton']\")].some(b => b.innerText.includes('Replay (MP4)'))"
        if exports
        else "document.querySelectorAll('.js-plotly-plot').length >= 2"  # the regions replay, before / after
    )
    page.wait_for_function(
        f"{ready} || document.querySelector(\"[data-testid='stException']\")", timeout=timeout_ms
    )
    assert page.locator("[data-testid='stException']").count() == 0, page.inner_text("body")[:2000]


def _export_all(page) -> dict:
    """Download every slide export the Lecture view offers (the replays refused by the budget show why instead);
    returns {label: bytes, or the refusal}."""
    out = {}
    for label in ("Regions at t (PNG)", "Replay (GIF)", "Replay (MP4)"):
        button = page.locator("[data-testid='stDownloadButton']", has_text=label).first.locator("button")
        if button.is_disabled():
            shown = page.get_by_text(f"{label} not offered").first.inner_text()
            assert "fewer points" in shown, shown
            out[label] = "refused"
        else:
            out[label] = len(_download(page, label))
            assert out[label] > 1000, (label, out[label])
    return out


def _settled_rss(monitor: _Monitor, wait: float = 2 * MEMORY_RELEASE_SECONDS + 2) -> int:
    """RSS once closed sessions are dropped (after the TTL and one memory-release tick): the lowest sample over
    two more ticks (each trims the heap; one 6 s window gave 1.37x one session alone and 1.58x in a full run)."""
    time.sleep(SESSION_TTL + MEMORY_RELEASE_SECONDS + 2)
    samples = []
    end = time.monotonic() + wait
    while time.monotonic() < end:
        samples.append(monitor.rss())
        time.sleep(0.5)
    return min(samples)


def _figures(load: Load, monitor: _Monitor, times: dict, one_session, settled) -> str:
    mib = 1024 * 1024
    lat = sorted(monitor.latencies) or [float("nan")]
    rss = "RSS " + ", ".join(
        f"{name} {v / mib:.0f} MiB" for name, v in (("one session", one_session), ("settled", settled)) if v
    )
    ratio = f" ({settled / one_session:.2f}x one session)" if settled and one_session else ""
    return (
        f"soak {load.name}: {load.sessions} sessions x {load.waves} waves, {load.n_points} points, {load.hyper}, "
        f"engine {load.engine}; {rss}{ratio}, peak {monitor.peak / mib:.0f} MiB; health {monitor.health_checks} "
        f"checks, {monitor.health_misses} misses, p95 {lat[int(0.95 * (len(lat) - 1))]:.2f} s, slowest "
        f"{lat[-1]:.2f} s; rendered in {', '.join(f'{k} {v:.0f} s' for k, v in times.items())}; load average "
        f"max {monitor.load_max:.1f} (2 cores)"
    )


# The limits' load runs 3-5 minutes on 2 cores, the attack's 10-15 minutes and bounds a wall-clock figure (the
# slowest health answer): load runs, not part of `make test`; `make soak` (REBEL_SOAK=1) runs them and records the
# attack's figures.
SOAK_OPT_IN = pytest.mark.skipif(
    os.environ.get("REBEL_SOAK") != "1", reason="the heavy soak loads run with `make soak` (REBEL_SOAK=1)"
)


@pytest.mark.parametrize(
    "load",
    [
        pytest.param(
            load,
            marks=[pytest.mark.timeout(load.timeout)] + ([SOAK_OPT_IN] if load.name != "sessions" else []),
        )
        for load in LOADS
    ],
    ids=lambda x: x.name,
)
def test_waves_of_sessions_at_the_limits_keep_the_server_healthy_and_bounded(soak_server, browser, load):
    url, pid = soak_server
    monitor = _Monitor(url, pid)
    monitor.start()
    start = time.monotonic()
    times: dict = {}
    one_session = settled = exported = None
    try:
        page = _open(browser, url, _link(load, 1000), load.exports)
        _wait_rendered(page, load.render_timeout_ms, load.exports)
        if load.exports:
            exported = _export_all(page)
        times["one session"] = time.monotonic() - start
        time.sleep(2)
        one_session = monitor.rss()
        page.close()
        for wave in range(load.waves):
            t0 = time.monotonic()
            links = [_link(load, wave * load.sessions + i) for i in range(load.sessions)]
            pages = [_open(browser, url, link, load.exports) for link in links]
            for page in pages:
                _wait_rendered(page, load.render_timeout_ms, load.exports)
            for page in pages if load.exports else ():
                _export_all(page)
            times[f"wave {wave + 1}"] = time.monotonic() - t0
            for page in pages:
                page.close()
        if load.rss_bound:
            settled = _settled_rss(monitor)
    finally:
        monitor.stop()
        line = _figures(load, monitor, times, one_session, settled)
        if load.exports:
            line += f"; one session's exports {exported or 'not reached'}"
        print("\n" + line)
        if load.name == "attack":
            with RESULTS.open("a", encoding="utf-8") as f:
                f.write(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} {line}\n")
    assert monitor.health_misses == 0, monitor.miss_reasons
    if load.rss_bound:
        assert settled <= RSS_FACTOR * one_session
    if load.name == "attack":
        assert max(monitor.latencies) <= HEALTH_MAX, line
