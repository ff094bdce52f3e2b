"""Shared helpers for the benchmark scripts: one thread setting, interleaved repeated timing, peers, tables.

Method (the same for every comparison):
- One thread setting governs every system: ``REBEL_BENCH_THREADS`` (default 2) is the thread count of the wall
  clock table; the CPU table always uses 1 thread. ``thread_limit(n)`` sets numba's threads (REBEL),
  OpenMP/BLAS threads through threadpoolctl (scikit-learn HGB) and the peers get ``n_jobs=n``.
- Systems run interleaved (A B C A B C ...), ``repeat`` >= 5 times, after one small untimed warm-up fit each;
  every call records its wall time (``time.perf_counter``) and the process CPU time (``time.process_time``).
- Tables give min and median of each system and the ratio REBEL / system of each (below 1: REBEL is faster).
- ``REBEL_BENCH_CLOCKS=cpu`` takes the CPU table alone.
- Single-thread CPU time is the robust number on a shared machine (a descheduled process does not accrue it);
  the wall time at ``REBEL_BENCH_THREADS`` threads shows what a user waits. Each table prints the load average.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

from rebel.ui.classroom import healthy  # noqa: F401 (the one health check of a served app, for the benchmarks)

CPU = "cpu"  # single-thread process CPU time
WALL = "wall"  # wall time at n_threads() threads
DEFAULT_REPEAT = 5
N_BINS = 255  # bins per feature for every system (REBEL: 254 thresholds = 255 bins)


def n_threads() -> int:
    """The thread count of the wall-clock tables, for every system (REBEL_BENCH_THREADS, default 2)."""
    return int(os.environ.get("REBEL_BENCH_THREADS", "2"))


def clocks() -> tuple:
    """The tables to take: REBEL_BENCH_CLOCKS, default "cpu,wall" ("cpu" alone skips the wall-clock table, which
    is meaningless on a machine loaded beyond its cores)."""
    names = tuple(
        c.strip() for c in os.environ.get("REBEL_BENCH_CLOCKS", f"{CPU},{WALL}").split(",") if c.strip()
    )
    bad = set(names) - {CPU, WALL}
    if bad or not names:
        raise ValueError(f"REBEL_BENCH_CLOCKS must list 'cpu' and/or 'wall'; got {names!r}.")
    return names


def load_average() -> str:
    """The 1-minute load average now, as text ('load 0.42 on 2 cores')."""
    try:
        one = os.getloadavg()[0]
    except OSError:
        return "load n/a"
    return f"load {one:.2f} on {os.cpu_count()} cores"


@contextlib.contextmanager
def thread_limit(threads: int):
    """Run every system on ``threads`` threads: numba (REBEL) and every OpenMP/BLAS pool (HGB, and the peers'
    runtimes, which also get ``n_jobs=threads`` from ``peers``)."""
    import numba
    from threadpoolctl import threadpool_limits

    most = numba.config.NUMBA_NUM_THREADS
    if threads > most:
        warnings.warn(f"numba has {most} threads; REBEL runs on {most}, not {threads}", stacklevel=2)
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, most))
    try:
        with threadpool_limits(limits=threads):
            yield
    finally:
        numba.set_num_threads(before)


@dataclass
class Samples:
    """Per-call wall and CPU seconds of one system."""

    wall: list = field(default_factory=list)
    cpu: list = field(default_factory=list)

    def of(self, clock: str) -> list:
        return self.wall if clock == WALL else self.cpu

    def min(self, clock: str) -> float:
        return min(self.of(clock))

    def median(self, clock: str) -> float:
        return statistics.median(self.of(clock))


def median_of(fn: Callable[[], object], repeat: int = 20) -> float:
    """Median wall seconds of ``repeat`` calls of one system (latency benchmarks, no comparison)."""
    return statistics.median(timed(fn)[0] for _ in range(repeat))


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one call."""
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def interleaved(
    systems: dict[str, Callable[[], object]],
    repeat: int = DEFAULT_REPEAT,
    warm: dict[str, Callable[[], object]] | None = None,
) -> dict[str, Samples]:
    """Time every system ``repeat`` times in the order A B C A B C ...; ``warm[name]()`` runs once, untimed,
    before the first round (first-call costs: thread pools, page faults, numba dispatch)."""
    for name, fn in (warm or {}).items():
        if name in systems:
            fn()
    out = {name: Samples() for name in systems}
    for _ in range(repeat):
        for name, fn in systems.items():
            wall, cpu = timed(fn)
            out[name].wall.append(wall)
            out[name].cpu.append(cpu)
    return out


@dataclass
class Comparison:
    """Results of one comparison: per clock, each system's samples (CPU: 1 thread; wall: n_threads())."""

    title: str
    baseline: str
    threads: int
    results: dict = field(default_factory=dict)  # clock -> {name: Samples}
    loads: dict = field(default_factory=dict)  # clock -> load average text when that table was taken

    def ratio(self, name: str, clock: str, stat: str = "median") -> float:
        """baseline / name on ``stat`` ('min' or 'median') of ``clock`` (below 1: the baseline is faster)."""
        res = self.results[clock]
        return getattr(res[self.baseline], stat)(clock) / getattr(res[name], stat)(clock)

    def rows(self, clock: str) -> list:
        res = self.results[clock]
        rows = []
        for name, s in res.items():
            rows.append(
                (
                    name,
                    f"{s.min(clock):.3f}",
                    f"{s.median(clock):.3f}",
                    f"{self.ratio(name, clock, 'min'):.2f}",
                    f"{self.ratio(name, clock, 'median'):.2f}",
                )
            )
        return rows

    def print(self) -> None:
        for clock in self.results:
            label = "1-thread CPU seconds" if clock == CPU else f"{self.threads}-thread wall seconds"
            n = len(next(iter(self.results[clock].values())).of(clock))
            print(f"\n{self.title} -- {label}, {n} interleaved repeats, {self.loads[clock]}")
            short = self.baseline.split()[0]
            print_table(
                self.rows(clock),
                ["system", "min", "median", f"{short}/this min", f"{short}/this median"],
            )


def compare(
    title: str,
    make_systems: Callable[[int], dict[str, Callable[[], object]]],
    repeat: int = DEFAULT_REPEAT,
    warm: Callable[[int], dict[str, Callable[[], object]]] | None = None,
    baseline: str = "REBEL",
) -> Comparison:
    """Interleaved timing of ``make_systems(threads)`` for each clock: CPU at 1 thread, wall at n_threads().

    ``make_systems(threads)`` returns {name: zero-argument callable}; ``warm(threads)`` the untimed first calls.
    """
    threads = n_threads()
    comp = Comparison(title, baseline, threads)
    for clock in clocks():
        th = 1 if clock == CPU else threads
        with thread_limit(th):
            comp.loads[clock] = load_average()
            comp.results[clock] = interleaved(make_systems(th), repeat, warm(th) if warm else None)
    comp.print()
    if CPU in comp.results and WALL in comp.results:
        for name, s in comp.results[CPU].items():
            if s.median(CPU) > 1.15 * s.median(WALL):
                print(f"  note: {name} used more CPU than wall time at 1 thread (a second thread was busy)")
    return comp


def peers(n_estimators: int, depth: int, threads: int, n_bins: int = N_BINS, vector_leaf: bool = False):
    """Model factories of the peers: ``n_estimators`` boosting rounds of depth-``depth`` trees, ``n_bins`` bins,
    ``threads`` threads. A multi-class round is K trees for each peer; ``vector_leaf=True`` gives XGBoost's
    ``multi_output_tree`` instead (one tree a round with a K-vector per leaf, the shape of a REBEL round)."""
    out = {}
    if vector_leaf:
        import xgboost as xgb

        out["XGBoost multi_output_tree"] = lambda: xgb.XGBClassifier(
            n_estimators=n_estimators,
            max_depth=depth,
            tree_method="hist",
            multi_strategy="multi_output_tree",
            max_bin=n_bins,
            n_jobs=threads,
        )
        return out
    with contextlib.suppress(ImportError):
        import lightgbm as lgb

        out["LightGBM"] = lambda: lgb.LGBMClassifier(
            n_estimators=n_estimators,
            num_leaves=2**depth,
            max_depth=depth,
            max_bin=n_bins,
            min_child_samples=1,
            n_jobs=threads,
            verbose=-1,
        )
    with contextlib.suppress(ImportError):
        import xgboost as xgb

        out["XGBoost hist"] = lambda: xgb.XGBClassifier(
            n_estimators=n_estimators,
            max_depth=depth,
            tree_method="hist",
            max_bin=n_bins,
            n_jobs=threads,
        )
    from sklearn.ensemble import HistGradientBoostingClassifier

    out["sklearn HGB"] = lambda: HistGradientBoostingClassifier(  # threads: threadpoolctl in thread_limit
        max_iter=n_estimators,
        max_depth=depth,
        max_leaf_nodes=2**depth,
        max_bins=n_bins,
        early_stopping=False,
        min_samples_leaf=1,
    )
    return out


def rebel(n_estimators: int, depth: int, n_bins: int = N_BINS, **kw):
    """A REBEL factory with the peers' bin count (n_bins - 1 thresholds)."""
    from rebel import RebelClassifier

    return lambda: RebelClassifier(n_estimators=n_estimators, max_depth=depth, n_thresholds=n_bins - 1, **kw)


def rebel_serial(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` on REBEL's serial path: numba on one thread and the serial drivers, whatever its size and whatever
    this process has compiled (``rebel.kernels.common.serial_on_one_thread``); both paths give the same bits."""

    def run():
        import numba

        from rebel.kernels.common import serial_on_one_thread

        before = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            with serial_on_one_thread():
                return fn()
        finally:
            numba.set_num_threads(before)

    return run


def verdict(value: float, target: float) -> str:
    return "met" if value <= target else f"missed ({value / target:.2f}x the target)"


def print_table(rows, headers):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(str(h).ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))


# ------------------------------------------------------------------- the app in a real browser (shared with e2e)
CHROMIUM = "/usr/bin/chromium"  # Debian's chromium, driven by Playwright
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_FLAGS = [  # make run's settings that matter here; the rest come from .streamlit/config.toml
    "--server.address",
    "127.0.0.1",
    "--server.headless",
    "true",
    "--browser.gatherUsageStats",
    "false",
]


def server_command(app: str, port: int) -> list[str]:
    """``make run``'s server for ``app`` on ``port``: the launcher ``rebel.ui.launch`` (``streamlit run`` that
    starts the first page's imports and kernels at launch) with the flags above."""
    return [sys.executable, "-m", "rebel.ui.launch", app, "--server.port", str(port), *SERVER_FLAGS]


def free_port() -> int:
    """A localhost TCP port free now (for ``streamlit run --server.port``)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc) -> None:
    """Stop a server process this code started (that one only): SIGTERM, and SIGKILL if still there after 10 s."""
    import subprocess

    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
