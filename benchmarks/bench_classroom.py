"""Capacity of one server process: S students at once, each acting like a student.

One ``make run`` server (``rebel.ui.launch app.py``, kernels compiled first) on a free localhost port. For each S
in ``--sessions`` (default 1 5 10 20 40), S sessions open the Playground together, then for ``--duration``
seconds each does, in random order, about one action every 10 s (a uniform pause of 5-15 s): a cost edit (a new
cost in the cost editor's weapon -> harmless cell), a preset (another preset), a scrub (the "Boosting round t"
slider one step). Reported per S: actions, median and 95th percentile of action -> updated regions, errors, the
server's CPU (process CPU seconds / wall seconds: 100 % is one core) and RSS (peak), and the load average.

Two kinds of client, named in the printout:
- ``ws``: a light client speaking Streamlit's websocket protocol as the browser does (``/_stcore/stream``, the
  ``BackMsg``/``ForwardMsg`` protobufs that ship with streamlit): it sends the widget's new value in a
  ``rerun_script`` message (with the widget's fragment id when the widget is in a fragment, as the browser
  does) and times until the server sends the regions plot of that run. It does not render anything, so it
  measures the server alone; the server does exactly the work it does for a browser.
- ``chromium``: real Chromium pages (Playwright, one browser per session), for S in ``--chromium`` (1 5 8):
  times from the input event to the painted regions plot (``benchmarks.bench_browser``'s method). The browsers
  share the machine's cores with the server, so these times include the browsers' own work. The Chromium scrub
  moves the regions figure's own slider, which replays in the browser with no server round trip.

Students per core = the largest S (ws client) whose p95 <= 1 s: a server process runs Python on one core at a
time (the interpreter lock), so one process is about one core's worth of students.

The server's CPU seconds per action give a second, load-independent figure: the most students a core could
hold by CPU alone at one action per 10 s.

Run: ``python -m benchmarks.bench_classroom [--sessions 1 5 10 20 40] [--duration 40] [--chromium 1 5 8]``.

Class mode, a whole class through ``make classroom``'s balancer and replicas, cost edits computed in the browser
(``benchmarks.classroom_class``): ``python -m benchmarks.bench_classroom --class 100 [--replicas 2]
[--arrival 45] [--duration 120]``.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import signal
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field

import psutil

from benchmarks import classroom_class
from benchmarks._common import free_port, load_average

ACTIONS = ("cost_edit", "preset", "scrub")
P95_TARGET = 1.0  # seconds
REPLY_TIMEOUT = 120.0


@dataclass
class Tally:
    times: dict = field(default_factory=lambda: {a: [] for a in ACTIONS})
    errors: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, action: str, seconds: float) -> None:
        with self.lock:
            self.times[action].append(seconds)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)

    def all(self) -> list:
        return [t for a in ACTIONS for t in self.times[a]]


def percentile(values: list, q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


# --------------------------------------------------------------------------------- websocket (light) client
class WsStudent:
    """One session over Streamlit's websocket protocol."""

    def __init__(self, url: str, query: str = "", headers: dict | None = None):
        from websockets.sync.client import connect

        self.query = (
            query  # the page's query string (a ?cfg= link), sent with every rerun as the browser does
        )
        self.received = 0  # bytes of ForwardMsgs received

        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(
            connect(
                url.replace("http://", "ws://") + "/_stcore/stream",
                subprotocols=["streamlit"],
                max_size=None,
                open_timeout=60,
                # frames the student has not read yet never stop the connection's reader: a full buffer (16
                # frames: the messages a run sends after its script finished pile up between a student's
                # actions) stopped it, and then no ping was answered (keepalive timeouts after a minute or two)
                max_queue=None,
                additional_headers=headers,  # (a cookie: the balancer's affinity, as a browser sends it)
            )
        )
        self.widgets: dict = {}  # key suffix -> (element type, proto, fragment id)
        self.page_hash = ""

    def close(self) -> None:
        self._stack.close()

    def run(self, widget=None, fragment_id: str = "") -> tuple[float, list]:
        """Send a rerun (with one widget's new state); return (seconds to the regions plot, exceptions)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_script_hash = self.page_hash
        if widget is not None:
            msg.rerun_script.widget_states.widgets.append(widget)
        if fragment_id:
            msg.rerun_script.fragment_id = fragment_id
        t0 = time.perf_counter()
        self.ws.send(msg.SerializeToString())
        return self._read_until_finished(t0)

    def _read_until_finished(self, t0: float) -> tuple[float, list]:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        regions_at, exceptions = None, []
        while True:
            f = ForwardMsg()
            data = self.ws.recv(timeout=REPLY_TIMEOUT)
            self.received += len(data)
            f.ParseFromString(data)
            kind = f.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = f.new_session.page_script_hash or self.page_hash
            elif kind == "delta" and f.delta.WhichOneof("type") == "new_element":
                el = f.delta.new_element
                etype = el.WhichOneof("type")
                proto = getattr(el, etype)
                if etype == "exception":
                    exceptions.append(f"{proto.type}: {proto.message[:200]}")
                self.on_element(etype, proto)
                wid = getattr(proto, "id", "")
                if wid:
                    self.widgets[wid.rsplit("-", 1)[-1]] = (etype, proto, f.delta.fragment_id, wid)
                    if etype == "plotly_chart" and "regions" in wid and regions_at is None:
                        regions_at = time.perf_counter()
            elif kind == "script_finished":
                end = time.perf_counter()
                return ((regions_at or end) - t0), exceptions

    def on_element(self, etype: str, proto) -> None:
        """Each element a run sends (a subclass keeps what it needs of them)."""

    def _widget(self, prefix: str):
        for suffix, value in self.widgets.items():
            if suffix.startswith(prefix):
                return value
        raise RuntimeError(f"no widget with key {prefix}* on the page")

    def action(self, name: str, rng: random.Random) -> tuple[float, list]:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        state = WidgetState()
        if name == "cost_edit":
            keys = [k for k in self.widgets if k.startswith("w_costs_") and k.endswith("_2_0")]
            _, _, frag, wid = self.widgets[max(keys, key=lambda k: int(k.split("_")[2]))]  # newest editor
            state.id, state.string_value = wid, f"{rng.choice((5, 10, 20, 40, 80)) + rng.random():.2f}"
        elif name == "preset":
            _, proto, frag, wid = self._widget("w_preset")
            state.id, state.string_value = wid, rng.choice(list(proto.options))
        else:
            _, proto, frag, wid = self._widget("t")
            top = int(proto.max)
            state.id = wid
            state.double_array_value.data.append(float(rng.randint(max(0, top - 10), top)))
        return self.run(state, frag)


def _act_until(act, rng: random.Random, tally: Tally, stop_at: list) -> None:
    """A student's actions until ``stop_at[0]`` (monotonic seconds): after 0-10 s (students do not act in step),
    a random ``ACTIONS`` entry every 5-15 s, done by ``act(name, rng)`` -> (seconds, errors) and tallied; an
    exception ends the student's session, tallied as an error."""
    try:
        time.sleep(rng.uniform(0, 10))
        while time.monotonic() < stop_at[0]:
            name = rng.choice(ACTIONS)
            seconds, errors = act(name, rng)
            tally.add(name, seconds)
            for e in errors:
                tally.error(f"{name}: {e}")
            time.sleep(rng.uniform(5, 15))
    except Exception as e:  # noqa: BLE001 (a failed session is an error of the run, reported)
        tally.error(f"{type(e).__name__}: {str(e)[:200]}")


def _ws_session(url: str, tally: Tally, stop_at: list, seed: int, ready: threading.Barrier) -> None:
    rng = random.Random(seed)
    student = None
    try:
        student = WsStudent(url)
        _, exc = student.run()
        for e in exc:
            tally.error(f"first run: {e}")
    except Exception as e:  # noqa: BLE001 (a failed session is an error of the run, reported)
        tally.error(f"open: {type(e).__name__}: {e}")
    ready.wait()
    if student is None:
        return
    try:
        _act_until(student.action, rng, tally, stop_at)
    finally:
        student.close()


# ---------------------------------------------------------------------------------------- Chromium client
def _chromium_session(url: str, tally: Tally, stop_at: list, seed: int, ready: threading.Barrier) -> None:
    from playwright.sync_api import sync_playwright

    from benchmarks import bench_browser as bb
    from benchmarks._common import CHROMIUM, CHROMIUM_ARGS

    rng = random.Random(seed)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = None
        try:
            page, _ = bb.open_playground(browser.new_context(viewport=bb.VIEWPORT), url)
            page.on("pageerror", lambda exc: tally.error(f"JavaScript: {exc}"))
        except Exception as e:  # noqa: BLE001
            tally.error(f"open: {type(e).__name__}: {e}")
        ready.wait()
        try:
            if page is not None:
                _act_until(lambda name, rng: _chromium_action(page, name, rng), rng, tally, stop_at)
        finally:
            browser.close()


def _chromium_action(page, name: str, rng: random.Random) -> tuple[float, list]:
    """One action of ``ACTIONS`` in a Chromium tab: (seconds until drawn, errors)."""
    from benchmarks import bench_browser as bb

    if name == "cost_edit":
        page.locator(bb.HOOKS["cost_cell"].format(i=2, j=0)).first.wait_for(timeout=60_000)
        value = str(rng.choice((5, 10, 20, 40, 80)) + rng.randint(1, 9))
        ms = bb._measure(page, None, prepare=lambda: bb.edit_cost(page, value))
    elif name == "preset":
        current, options = bb.preset_names(page)
        choice = rng.choice([o for o in options if o != current])
        ms = bb._measure(page, lambda: bb.pick_preset(page, choice))
    else:
        t, T = bb._current_round(page)
        target = T - 1 if t == T else T
        ms = bb._measure(page, lambda: bb.scrub(page, target), want_round=target)
    shown = page.locator("[data-testid='stException']").count()
    return ms / 1000, ["exception shown in the page"] if shown else []


# ----------------------------------------------------------------------------------------------- a level
class ServerMonitor(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.proc = psutil.Process(pid)
        self.peak_rss = 0
        self._halt = threading.Event()

    def run(self):
        while not self._halt.is_set():
            self.peak_rss = max(self.peak_rss, self.proc.memory_info().rss)
            time.sleep(0.5)

    def cpu(self) -> float:
        t = self.proc.cpu_times()
        return t.user + t.system

    def stop(self):
        self._halt.set()
        self.join(timeout=5)


def run_level(url: str, pid: int, method: str, sessions: int, duration: float, seed: int) -> dict:
    tally = Tally()
    ready = threading.Barrier(sessions + 1)
    target = _ws_session if method == "ws" else _chromium_session
    monitor = ServerMonitor(pid)
    monitor.start()
    threads = []
    stop_box = [0.0]

    def _start(i):
        return threading.Thread(
            target=target, args=(url, tally, stop_box, seed * 1000 + i, ready), daemon=True
        )

    stop_box[0] = time.monotonic() + 10**6  # set once every session is open
    threads = [_start(i) for i in range(sessions)]
    for th in threads:
        th.start()
    ready.wait()
    # every session is open: now the timed part
    stop_box[0] = time.monotonic() + duration
    cpu0, wall0 = monitor.cpu(), time.monotonic()
    for th in threads:
        th.join(timeout=duration + 4 * REPLY_TIMEOUT)
    wall = time.monotonic() - wall0
    cpu = monitor.cpu() - cpu0
    monitor.stop()
    times = tally.all()
    return {
        "method": method,
        "S": sessions,
        "actions": len(times),
        "median": statistics.median(times) if times else float("nan"),
        "p95": percentile(times, 0.95),
        "errors": len(tally.errors),
        "error_texts": tally.errors[:3],
        "cpu": cpu / wall,
        "cpu_per_action": cpu / len(times) if times else float("nan"),
        "rss_mib": monitor.peak_rss / 2**20,
        "load": load_average(),
        "per_action": {a: statistics.median(v) if v else float("nan") for a, v in tally.times.items()},
    }


def _row(r: dict) -> str:
    per = " ".join(f"{a}={v * 1000:.0f}" for a, v in r["per_action"].items())
    return (
        f"{r['method']:<8} S={r['S']:<3} actions={r['actions']:<4} median={r['median'] * 1000:7.0f} ms  "
        f"p95={r['p95'] * 1000:7.0f} ms  errors={r['errors']:<3} server CPU={r['cpu'] * 100:5.0f} %  "
        f"CPU/action={r['cpu_per_action'] * 1000:5.0f} ms  RSS peak={r['rss_mib']:6.0f} MiB  {r['load']}  (median ms: {per})"
    )


def main(argv=None) -> list:
    from benchmarks.bench_browser import start_app, stop_app

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[1, 5, 10, 20, 40])
    ap.add_argument("--duration", type=float, default=40.0, help="seconds of student activity per level")
    ap.add_argument(
        "--chromium",
        type=int,
        nargs="*",
        default=[1, 5, 8],
        help="S run with real Chromium pages (none: skip)",
    )
    ap.add_argument("--seed", type=int, default=0)
    classroom_class.add_arguments(ap)
    args = ap.parse_args(argv)
    if args.class_size is not None:
        if args.class_size < 1 or args.replicas < 1:
            ap.error(f"--class {args.class_size} --replicas {args.replicas}: give at least 1 of each.")
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # run_class's finally stops the room
        return classroom_class.run_class(args)
    if any(s < 1 for s in args.sessions):
        ap.error(f"--sessions {args.sessions}: every S must be at least 1.")
    print(f"bench_classroom: one server process, {psutil.cpu_count()} cores, {load_average()} at the start")
    print(f"each student: a cost edit, a preset or a scrub every 5-15 s (random), for {args.duration:.0f} s")
    print("ws = Streamlit websocket protocol client (protobuf BackMsg/ForwardMsg; server work only);")
    print("chromium = real Chromium pages (one browser each; includes the browsers' work on the same cores)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the finally below stops the server
    proc, url = start_app(free_port())
    rows = []
    try:
        levels = [("chromium", s) for s in args.chromium]
        levels += [("ws", s) for s in args.sessions]
        for method, s in levels:
            r = run_level(url, proc.pid, method, s, args.duration, args.seed)
            rows.append(r)
            print(_row(r), flush=True)
            for text in r["error_texts"]:
                print(f"    error: {text}")
    finally:
        stop_app(proc)
    ok = [r["S"] for r in rows if r["method"] == "ws" and r["p95"] <= P95_TARGET and r["errors"] == 0]
    if ok:
        print(
            f"students per core (one process) at p95 <= {P95_TARGET:g} s, ws client: {max(ok)} (of S tried)"
        )
    else:
        print(f"students per core at p95 <= {P95_TARGET:g} s: none of the S tried met it on this machine now")
    ws = [r for r in rows if r["method"] == "ws" and r["actions"]]
    if ws:  # the CPU budget: independent of how busy the machine is
        per_action = statistics.median(r["cpu_per_action"] for r in ws)
        print(
            f"server CPU per action (median over S): {per_action * 1000:.0f} ms; at one action per 10 s a core "
            f"holds at most {1 / (per_action / 10):.0f} students by CPU (100 % busy: keep to about half)"
        )
    print(f"load at the end: {load_average()}")
    return rows


if __name__ == "__main__":
    main()
