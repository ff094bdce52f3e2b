"""A class on one machine: ``python -m benchmarks.bench_classroom --class 100`` (``bench_classroom``'s class mode).

What it runs: ``make classroom``'s set-up (``rebel.ui.classroom``: the kernels prepared once, ``--replicas``
replicas of ``make run``'s server with the Makefile's SAFETY flags, HAProxy in front with its cookie affinity and
least-connections balancing) on free localhost ports. Then:

1. the lecturer opens the link (one session, kept open: the picture on the projector);
2. N students open it at times drawn uniformly over ``--arrival`` seconds (default 45: "now you try"), each as a
   browser does on a first visit: the page's first run (its regions plot alone, the first picture), the hidden
   "rest of the page" button pressed once the plot is there, and the viewport watcher's size commit;
3. a quiet ``--quiet-window`` (default 10 s) with every session open and nobody acting: the replicas' idle CPU;
4. for ``--duration`` seconds each student acts every 5-15 s (uniform; the first action 0-10 s in): a cost edit
   (``--scrubs``, default 20 %, are scrubs instead).

A cost edit is sent exactly as the page sends one the browser computed (``rebel/ui/browser/playground_costs.js``:
REBEL retrained in a Web Worker, the chart repainted in the page): the new matrix as the JSON the script writes
into the hidden text box ``pg_browser_costs`` (``{"key", "C", "n", "failed", "painted", "projector", "calibrated", ...}``), committed
with Enter; that rerun is all the server sees of it. The scene's key and costs come from the payload the server put
on the page (``window.__rebelPgData``). A scrub moves the regions figure's own slider, which replays in the
browser: nothing is sent. Students use the ``ws`` client of ``bench_classroom`` (Streamlit's websocket protocol):
the server does what a browser's session makes it do; nothing is rendered.

Reported: first picture (the page requested -> the regions plot of the first run received; before the websocket
the student fetches the page and the scripts it names, through the balancer, keeping its affinity cookie as a
browser does: ``fetch_page``) p50/p95/max; the page's
first visit as a whole (first picture + rest of the page + viewport runs); each edit's rerun (sent -> script
finished) p50/p95; the replicas' CPU seconds (psutil: each replica's process and its children) per first visit and
per cost edit (the edit phase's CPU minus the quiet window's idle rate, and raw); replica RSS; errors; students per
replica; the load average at each phase. Needs ``haproxy`` (``make classroom`` installs it).

``--chromium-students K``: K real Chromium pages among the students (Playwright; first picture = navigation -> the
regions plot painted, cost edits typed and committed in the page), to check that the ws students' figures are
representative; they share the cores with the servers. ``--visit-cost K``: before the class, K first visits one
at a time on replica r1 (warmed at launch), each run's replica CPU seconds and bytes sent.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import psutil

from benchmarks._common import free_port, load_average

FIRST_PICTURE_TARGET = 3.0  # seconds, p95
PAYLOAD = "window.__rebelPgData = "
BROWSER_INPUT = "pg_browser_costs"  # rebel.ui.playground.browser_costs.INPUT
REST = "pg_rest"  # rebel.ui.viewport.REST
VIEWPORT = "pg_viewport"  # rebel.ui.viewport.INPUT
VIEWPORT_SIZE = "720x469"  # rebel.ui.viewport.UNKNOWN: the size a first visit's figure is made for
COSTS = (5, 10, 20, 40, 80)


def js_number(v: float):
    """A number as ``JSON.stringify`` writes it (an integral float without ``.0``)."""
    return int(v) if float(v).is_integer() else float(v)


def scene_of(body: str) -> dict | None:
    """The browser-cost payload of an ``st.html`` element's text (``script_element("__rebelPgData", ...)``)."""
    at = body.find(PAYLOAD)
    if at < 0:
        return None
    data, _ = json.JSONDecoder().raw_decode(body, at + len(PAYLOAD))
    return data if isinstance(data, dict) and data.get("key") else None


def edit_message(
    scene: dict, C: list, n: int, costs: dict | None = None, cell: dict | None = None, page: str = "student"
) -> str:
    """What ``playground_costs.js`` writes into the hidden text box after painting an edit (``tell``): ``n`` the
    edit's number on the page ``page`` (its id), ``costs`` the test costs after the last round that the page
    computed ({"REBEL", "twoStep", "Bayes", "blind"}), ``cell`` the cell typed ({"i", "j", "text"})."""
    rows = [[js_number(c) for c in row] for row in C]
    msg = {"key": scene["key"], "C": rows, "page": page, "n": n, "failed": None, "painted": True}
    msg["projector"] = bool(scene.get("projector"))
    msg["calibrated"] = bool(scene.get("calibrated"))  # (the page holds the calibrated posteriors)
    msg["costs"] = costs
    msg["cell"] = cell
    return json.dumps(msg, separators=(",", ":"))


def typed_cell(scene: dict, C: list) -> dict | None:
    """The cell of ``C`` that differs from the scene's costs, as the page names the cell typed; None if none."""
    K = scene["problem"]["K"]
    before = scene["problem"]["costMatrix"]
    for i in range(K):
        for j in range(K):
            if float(C[i][j]) != float(before[i * K + j]):
                return {"i": i, "j": j, "text": str(js_number(C[i][j]))}
    return None


_POOL: list = []
_POOL_LOCK = threading.Lock()
POOL_SIZE = 16


def edit_pool(size: int = POOL_SIZE, seed: int = 0) -> list:
    """The cost edits students make on the page without a link (the default preset): ``size`` matrices, each one
    off-diagonal cell of the default's changed, with the test costs after the last round that the page computes
    for it (its engine equals the server's, ``tests/test_browser_engine.py``), computed here once, by the engine,
    before the class (the page tells the server these numbers). Returns [(C rows, costs)]."""
    from rebel.ui.config import DEFAULT_PRESET, preset_config
    from rebel.ui.playground import actions
    from rebel.ui.playground import compute as pg
    from rebel.ui.state import AppState
    from rebel.ui.variants import engine_options

    with _POOL_LOCK:
        if len(_POOL) >= size:
            return _POOL[:size]
        state = AppState()
        actions.apply_config(state, preset_config(DEFAULT_PRESET))
        rng = random.Random(seed)
        K = len(state.dataset.classes)
        cells = [(a, b) for a in range(K) for b in range(K) if a != b]
        while len(_POOL) < size:
            C = np.array(state.cost_matrix, dtype=np.float64)
            i, j = rng.choice(cells)
            C[i, j] = float(rng.choice(COSTS) + rng.randint(1, 9))
            pair = pg.train_pair(
                state.dataset, C, state.hyper, cache=state.models, engine=engine_options(state.engine)
            )
            T, tc = pair.n_rounds, pair.test_costs
            costs = {"REBEL": float(tc["REBEL"][T]), "twoStep": float(tc["two-step"][T]),
                     "Bayes": pair.bayes_test_cost, "blind": float(tc["blind"][T])}  # fmt: skip
            _POOL.append((C.tolist(), costs))
        return _POOL[:size]


def fetch_page(url: str) -> tuple[int, dict]:
    """What a browser fetches before it opens the websocket on a first visit: the page, then the scripts and style
    sheets the page names (not the chunks those scripts load later, such as the chart library's), with the
    balancer's affinity cookie from the first answer. Returns (bytes received, headers for the websocket)."""
    import urllib.request

    opener = urllib.request.build_opener()
    headers = {"Accept-Encoding": "gzip, deflate", "User-Agent": "bench_classroom"}

    def get(path: str):
        with opener.open(urllib.request.Request(url + path, headers=headers), timeout=120) as r:
            return r.read(), r.headers.get_all("Set-Cookie") or []

    html, cookies = get("/")
    jar = "; ".join(c.split(";", 1)[0] for c in cookies)
    if jar:
        headers["Cookie"] = jar
    total = len(html)
    for ref in re.findall(r'(?:src|href)="\./(static/[^"]+\.(?:js|css))"', html.decode("utf-8", "replace")):
        total += len(get("/" + ref)[0])
    return total, ({"Cookie": jar} if jar else {})


def new_student(url: str, headers: dict | None = None):
    """A ``bench_classroom.WsStudent`` that also keeps the last browser-cost payload and its replica's name."""
    from benchmarks.bench_classroom import WsStudent

    class ClassStudent(WsStudent):
        def __init__(self, url: str, headers: dict | None = None):
            self.scene = None
            self.replica = "?"
            super().__init__(url, headers=headers)
            response = getattr(self.ws, "response", None)
            if response is not None:
                self.replica = response.headers.get("X-Replica", "?")

        def on_element(self, etype: str, proto) -> None:
            if etype == "html":
                found = scene_of(proto.body)
                if found is not None:
                    self.scene = found

    return ClassStudent(url, headers)


@dataclass
class ClassTally:
    first: list = field(default_factory=list)  # seconds to the first picture
    visit: list = field(default_factory=list)  # seconds for the whole first visit (three runs)
    edits: list = field(default_factory=list)  # seconds per cost edit's rerun
    page: list = field(default_factory=list)  # bytes of the page and its scripts fetched
    scrubs: int = 0
    errors: list = field(default_factory=list)
    replicas: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, name: str, value) -> None:
        with self.lock:
            getattr(self, name).append(value)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


def widget_state(wid: str):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState()
    state.id = wid
    return state


def first_visit(url: str, tally: ClassTally):
    """A browser's first visit, returned as the open student: the page and its scripts fetched (``fetch_page``),
    the websocket opened, the first run (the first picture: from the page's request to the regions plot), the rest
    of the page, the size."""
    t0 = time.perf_counter()
    size, headers = fetch_page(url)
    student = new_student(url, headers)
    tally.note("page", size)
    opened = time.perf_counter() - t0
    seconds, exc = student.run()
    tally.note("first", opened + seconds)
    for e in exc:
        tally.error(f"first run: {e}")
    for key, fill in ((REST, "trigger"), (VIEWPORT, "size")):
        if key not in student.widgets:
            tally.error(f"first visit: no widget {key} on the page")
            continue
        _, _, frag, wid = student.widgets[key]
        state = widget_state(wid)
        if fill == "trigger":
            state.trigger_value = True
        else:
            state.string_value = VIEWPORT_SIZE
        _, exc = student.run(state, frag)
        for e in exc:
            tally.error(f"first visit ({key}): {e}")
    tally.note("visit", time.perf_counter() - t0)
    with tally.lock:
        tally.replicas[student.replica] = tally.replicas.get(student.replica, 0) + 1
    return student


def cost_edit(student, rng: random.Random, n: int) -> tuple[float, list]:
    """One browser-computed cost edit: a random off-diagonal cell to a new cost, told to the server as the page
    does; returns (seconds of the rerun, exceptions)."""
    scene = student.scene
    if scene is None:
        raise RuntimeError("the server sent no browser-cost payload: cost edits would run on the server")
    if BROWSER_INPUT not in student.widgets:
        raise RuntimeError(f"no widget {BROWSER_INPUT} on the page")
    C, costs = rng.choice(edit_pool())
    if len(C) != scene["problem"]["K"]:
        raise RuntimeError("the class's page is not the default preset's: its cost edits have no known costs")
    student.costs = C
    _, _, frag, wid = student.widgets[BROWSER_INPUT]
    state = widget_state(wid)
    state.string_value = edit_message(scene, C, n, costs, typed_cell(scene, C))
    t0 = time.perf_counter()
    _, exc = student.run(state, frag)
    return time.perf_counter() - t0, exc


def _pct(values: list, q: float) -> float:
    from benchmarks.bench_classroom import percentile

    return percentile(values, q)


def _summary(name: str, values: list) -> str:
    if not values:
        return f"{name}: none"
    return (
        f"{name}: n={len(values)} p50={statistics.median(values):.2f} s p95={_pct(values, 0.95):.2f} s "
        f"max={max(values):.2f} s"
    )


def start_room(replicas: int):
    """``make classroom``'s set-up on free ports (``rebel.ui.classroom``, bound to 127.0.0.1); returns the
    started ``Classroom`` and its URL."""
    from rebel.ui import classroom

    port = free_port()
    base = free_port()
    while base <= port < base + replicas or any(not classroom._port_free(base + i) for i in range(replicas)):
        base = free_port()
    args = classroom.parse_args(
        ["--replicas", str(replicas), "--port", str(port), "--bind", "127.0.0.1", "--base-port", str(base),
         "--quiet", "--no-restart", "--", *server_flags()]
    )  # fmt: skip
    room = classroom.Classroom(args)
    url = f"http://127.0.0.1:{port}"
    try:
        room.start()
        deadline = time.monotonic() + 30
        while not classroom.healthy(url):  # HAProxy listening, with a replica up behind it
            if time.monotonic() > deadline:
                raise RuntimeError(f"HAProxy at {url} did not answer its health check within 30 s")
            time.sleep(0.2)
    except BaseException:
        room.stop()
        raise
    return room, url


def server_flags() -> list:
    """The Makefile's SAFETY flags: what ``make classroom`` passes its replicas (read from the Makefile, its one
    source)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    match = re.search(r"^SAFETY\s*:?=\s*((?:.*\\\n)*.*)$", text, flags=re.MULTILINE)
    if match is None:
        raise RuntimeError("the Makefile has no SAFETY variable")
    return match.group(1).replace("\\\n", " ").split()


def run_class(args: argparse.Namespace) -> dict:
    """The class mode (``bench_classroom --class N``): start the room, run the class, stop everything."""
    from benchmarks.classroom_probes import Replicas, visit_costs
    from benchmarks.classroom_students import chromium_student, ws_student

    print(f"bench_classroom --class {args.class_size}: {args.replicas} replicas behind HAProxy "
          f"(rebel.ui.classroom), {psutil.cpu_count()} cores; {load_average()} at the start")  # fmt: skip
    if args.note:
        print(f"NOTE: {args.note}")
    print(f"students arrive uniformly over {args.arrival:.0f} s after the lecturer; then a {args.quiet_window:.0f} s"
          f" quiet window; then {args.duration:.0f} s of a cost edit ({100 - args.scrubs:.0f} %) or a scrub "
          f"({args.scrubs:.0f} %, in the browser: nothing sent) every 5-15 s each")  # fmt: skip
    print("client: ws (Streamlit's websocket protocol; a cost edit is the browser-computed edit's hidden-text-box "
          "commit, as playground_costs.js sends it)")  # fmt: skip
    pool = edit_pool()  # before the clock: the numbers the page would compute for each edit
    print(
        f"{len(pool)} cost edits, each with the test costs the page computes for it (by the engine, beforehand)"
    )
    me = psutil.Process()
    client0 = sum(me.cpu_times()[:2])
    room, url = start_room(args.replicas)
    tally = ClassTally()
    try:
        mon = Replicas([r.proc.pid for r in room.replicas])
        mon.start()
        print(
            f"replicas up; RSS before any visit: {[round(b / 2**20) for b in mon.rss()]} MiB; {load_average()}"
        )
        t0 = time.perf_counter()
        lecturer = first_visit(url, tally)
        print(f"lecturer's first visit: first picture {tally.first[0]:.2f} s, whole visit "
              f"{time.perf_counter() - t0:.2f} s (replica {lecturer.replica})")  # fmt: skip
        tally.first.clear(), tally.visit.clear(), tally.page.clear(), tally.replicas.clear()
        if args.visit_cost:
            print(f"one student at a time on replica r1 ({args.visit_cost} visits; {load_average()}):")
            visit_costs(room.replicas[0].url, room.replicas[0].proc.pid, args.visit_cost)
        rng = random.Random(args.seed)
        acting = threading.Event()
        stop_at = [float("inf")]
        start = time.monotonic() + 1.0
        arrivals = sorted(start + rng.uniform(0, args.arrival) for _ in range(args.class_size))
        cpu0 = mon.cpu()
        threads = [
            threading.Thread(
                target=ws_student,
                args=(url, tally, args.seed * 1000 + i, at, acting, stop_at, args.scrubs / 100),
                daemon=True,
            )
            for i, at in enumerate(arrivals)
        ]
        browsers = ClassTally()  # Chromium students: first pictures, cost edits and scrubs ("visit")
        threads += [
            threading.Thread(
                target=chromium_student,
                args=(url, browsers, args.seed * 1000 + 999 - i, start + rng.uniform(0, args.arrival), acting,
                      stop_at, args.scrubs / 100),
                daemon=True,
            )
            for i in range(args.chromium_students)
        ]  # fmt: skip
        for th in threads:
            th.start()
        deadline = time.monotonic() + args.arrival + 300
        while (
            len(tally.visit) + len(tally.errors) < args.class_size
            or len(browsers.first) + len(browsers.errors) < args.chromium_students
        ) and time.monotonic() < deadline:
            time.sleep(0.5)
        arrived_after = time.monotonic() - start
        cpu_open = mon.cpu() - cpu0
        load_open = load_average()
        time.sleep(2.0)
        q0, w0 = mon.cpu(), time.monotonic()
        time.sleep(args.quiet_window)
        idle_rate = (mon.cpu() - q0) / (time.monotonic() - w0)
        load_quiet = load_average()
        stop_at[0] = time.monotonic() + args.duration
        c0, w0 = mon.cpu(), time.monotonic()
        acting.set()
        for th in threads:
            th.join(timeout=args.duration + 200)
        wall = time.monotonic() - w0
        cpu_edits = mon.cpu() - c0
        mon.stop()
        lecturer.close()
        rss = [round(b / 2**20) for b in mon.peak]
    finally:
        room.stop()
    n_edits = len(tally.edits) + len(browsers.edits)  # (Chromium pages' edits reach it too)
    res = {
        "first": tally.first, "visit": tally.visit, "edits": tally.edits, "errors": tally.errors,
        "cpu_per_visit": cpu_open / max(1, len(tally.visit)), "idle_rate": idle_rate,
        "cpu_per_edit_raw": cpu_edits / n_edits if n_edits else float("nan"),
        "cpu_per_edit": (cpu_edits - idle_rate * wall) / n_edits if n_edits else float("nan"),
        "rss": rss, "replicas": dict(tally.replicas), "scrubs": tally.scrubs,
    }  # fmt: skip
    print(f"all {len(tally.visit)} students' first visits done {arrived_after:.0f} s after the first could "
          f"start; students per replica {res['replicas']}; {load_open}")  # fmt: skip
    print(_summary("first picture (page requested -> regions plot of the first run)", tally.first))
    print(_summary("whole first visit (page, first run, rest of the page, viewport size)", tally.visit))
    if tally.page:
        print(
            f"page and the scripts it names, fetched per student: {statistics.median(tally.page) / 1e6:.1f} MB"
        )
    print(f"replicas' CPU per first visit: {res['cpu_per_visit']:.2f} s (all replicas' CPU over the arrival / "
          "visits)")  # fmt: skip
    print(f"quiet window ({args.quiet_window:.0f} s, {len(tally.visit) + 1} sessions open): replicas' idle CPU "
          f"{idle_rate * 100:.1f} % of one core; {load_quiet}")  # fmt: skip
    print(_summary("cost edit's rerun (sent -> script finished)", tally.edits))
    print(f"cost edits {n_edits}, scrubs {tally.scrubs} (in the browser) over {wall:.0f} s; replicas' CPU per "
          f"cost edit: {res['cpu_per_edit'] * 1000:.1f} ms above idle ({res['cpu_per_edit_raw'] * 1000:.1f} ms "
          "raw)")  # fmt: skip
    print(f"replica RSS peak: {rss} MiB; errors: {len(tally.errors)}; this client's own CPU (on the same cores): "
          f"{sum(me.cpu_times()[:2]) - client0:.0f} s")  # fmt: skip
    for text in tally.errors[:5]:
        print(f"    error: {text}")
    if args.chromium_students:
        print(f"Chromium students ({args.chromium_students}, among the ws students, same cores):")
        print("  " + _summary("first picture (navigation -> regions painted with its round)", browsers.first))
        print("  " + _summary("cost edit (Enter -> regions painted)", browsers.edits))
        print("  " + _summary("scrub (click -> round painted)", browsers.visit))
        print(f"  errors: {len(browsers.errors)}")
        for text in browsers.errors[:3]:
            print(f"    error: {text}")
    p95 = _pct(tally.first, 0.95)
    verdict = "meets" if p95 <= FIRST_PICTURE_TARGET and not tally.errors else "does not meet"
    print(f"first picture p95 {p95:.2f} s {verdict} the target (<= {FIRST_PICTURE_TARGET:g} s, no errors) with "
          f"{args.class_size} students on {args.replicas} replicas; {load_average()} at the end")  # fmt: skip
    return res


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--class",
        dest="class_size",
        type=int,
        default=None,
        metavar="N",
        help="class mode: N students through HAProxy onto --replicas replicas (e.g. 100)",
    )
    ap.add_argument(
        "--chromium-students", type=int, default=0, help="class mode: real Chromium students besides the N"
    )
    ap.add_argument(
        "--visit-cost",
        type=int,
        default=0,
        help="class mode: first time K visits alone on one replica (CPU, bytes)",
    )
    ap.add_argument("--replicas", type=int, default=2, help="class mode: replicas (default 2)")
    ap.add_argument(
        "--arrival", type=float, default=45.0, help="class mode: seconds over which students arrive"
    )
    ap.add_argument(
        "--quiet-window", type=float, default=10.0, help="class mode: idle seconds before the edits"
    )
    ap.add_argument(
        "--scrubs", type=float, default=20.0, help="class mode: percent of actions that are scrubs"
    )
    ap.add_argument(
        "--note", default="", help="class mode: a line for the printout's header (the machine's state)"
    )
