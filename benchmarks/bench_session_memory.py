"""Where a default Playground session's memory goes.

Two measurements:

1. **Server RSS per session** (``make run``'s server on a free port, sessions opened with
   ``bench_classroom``'s websocket-protocol client): RSS after the first session, then after ``--n`` more
   sessions on the same default configuration (what caches shared across sessions can save), then after
   ``--n`` sessions each on its own configuration (another cost in its ``?cfg=`` link: nothing shared). Per
   session = the RSS increase / n. RSS is read after a pause and a memory-release tick of the server.
2. **What a session holds** (in this process, the Playground run once under Streamlit's ``AppTest``): the
   deep size of every ``st.session_state`` entry (numpy arrays by ``nbytes``, other objects by
   ``sys.getsizeof``, each object counted once), and inside the cross-page state, each trained pair's parts
   (the staged regions grid, the two models, the dataset) and whether it is the one copy kept for all sessions
   (``rebel.ui.state.SHARED_PAIRS``) or the session's own. Plus the size of the messages a default run sends
   to the browser (the figures' JSON with their per-round region images), which Streamlit keeps in its
   per-session message cache.

Run: ``python -m benchmarks.bench_session_memory [--n 8]``.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np
import psutil

from benchmarks._common import free_port, load_average

MIB = 2**20
ROOT = Path(__file__).resolve().parents[1]


def deep_size(obj, seen: set | None = None) -> int:
    """Bytes reachable from ``obj`` (numpy arrays by nbytes, each object once)."""
    seen = set() if seen is None else seen
    total, stack = 0, [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, type | type(sys)):
            continue
        seen.add(id(o))
        if isinstance(o, np.ndarray):  # a view's memory is its base's: counted once, with the base
            total += sys.getsizeof(np.empty(0)) + (o.nbytes if o.base is None else 0)
            if o.base is not None:
                stack.append(o.base)
            continue
        try:
            total += sys.getsizeof(o)
        except TypeError:
            continue
        stack.extend(r for r in gc.get_referents(o) if not callable(r) or hasattr(r, "__dict__"))
    return total


def _settled_rss(proc: psutil.Process, wait: float) -> float:
    time.sleep(wait)
    return min(proc.memory_info().rss for _ in range(5) if time.sleep(0.4) is None) / MIB


def server_per_session(n: int, wait: float) -> dict:
    from benchmarks.bench_browser import start_app, stop_app
    from benchmarks.bench_classroom import WsStudent
    from rebel.ui import config as cf

    proc, url = start_app(free_port())
    server = psutil.Process(proc.pid)
    students = []
    out = {}
    try:
        out["idle"] = _settled_rss(server, 2)

        def _open(query: str = "") -> None:
            s = WsStudent(url, query)
            s.run()
            students.append(s)
            out.setdefault("first_run_bytes", s.received)

        _open()
        out["one"] = _settled_rss(server, wait)
        for _ in range(n):
            _open()
        out["same"] = _settled_rss(server, wait)
        for i in range(n):
            cfg = cf.preset_config(cf.DEFAULT_PRESET)
            cfg.cost_matrix[-1][0] = 50 + i  # another cost: nothing in common with the others' models
            _open(f"{cf.QUERY_KEY}={cf.encode_query(cfg)}")
        out["distinct"] = _settled_rss(server, wait)
    finally:
        for s in students:
            s.close()
        stop_app(proc)
    return out


def session_breakdown() -> dict:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages" / "1_Playground.py"), default_timeout=600)
    at.run()
    assert not at.exception, at.exception
    state = at.session_state
    seen: set = set()
    entries = {}
    keys = [str(k) for k in state]  # the script's own keys (widgets' and the app's)
    for key in keys:
        try:
            entries[key] = deep_size(state[key], seen)
        except (KeyError, AttributeError):
            continue
    parts = {}
    from rebel.ui.state import SHARED_PAIRS

    shared = {id(v) for v in list(SHARED_PAIRS._items.values())}
    app_state = next((state[k] for k in keys if type(state[k]).__name__ == "AppState"), None)
    if app_state is not None:
        for key, (_group, value) in list(app_state.models._items.items()):
            fields = vars(value) if hasattr(value, "__dict__") else {}
            sizes = {name: deep_size(v) for name, v in fields.items()}  # fields and computed-once parts
            pieces = dict(sorted(sizes.items(), key=lambda kv: -kv[1])[:6])
            if hasattr(value, "regions"):
                pieces["regions is"] = f"{value.regions.dtype} {value.regions.shape}"
                pieces["held in"] = (
                    "the process-wide SHARED_PAIRS (one copy for all sessions on this configuration)"
                    if id(value) in shared
                    else "this session only"
                )
            parts[f"{_group} {key[:12]}"] = pieces or {type(value).__name__: deep_size(value)}
    return {"entries": entries, "pairs": parts}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8, help="sessions opened in each of the two groups")
    ap.add_argument(
        "--wait", type=float, default=12.0, help="seconds before reading RSS (release tick: 10 s)"
    )
    args = ap.parse_args(argv)
    print(f"bench_session_memory: {load_average()}")
    r = server_per_session(args.n, args.wait)
    print(
        f"server RSS: idle {r['idle']:.0f} MiB, one default session {r['one']:.0f} MiB "
        f"(+{r['one'] - r['idle']:.0f}); +{args.n} sessions on the same configuration {r['same']:.0f} MiB "
        f"(+{(r['same'] - r['one']) / args.n:.1f} MiB each); +{args.n} sessions each on its own costs "
        f"{r['distinct']:.0f} MiB (+{(r['distinct'] - r['same']) / args.n:.1f} MiB each)"
    )
    b = session_breakdown()
    print(
        f"messages of a default session's first run (figures, images, widgets): {r['first_run_bytes'] / MIB:.2f} MiB"
    )
    print("one default session's st.session_state (deep size, each object counted once, largest first):")
    for key, size in sorted(b["entries"].items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {size / MIB:8.2f} MiB  {key}")
    for key, pieces in b["pairs"].items():
        text = ", ".join(
            f"{k} {v / MIB:.2f} MiB" if isinstance(v, int) else f"{k} {v}" for k, v in pieces.items()
        )
        print(f"  its cross-page cache, {key}...: {text}")
    print(f"load at the end: {load_average()}")
    return {"server": r, **b}


if __name__ == "__main__":
    main()
