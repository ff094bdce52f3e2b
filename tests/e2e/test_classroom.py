"""A class through the balancer: ``python -m rebel.ui.classroom`` (what ``make classroom`` runs) with 2 replicas
behind HAProxy, driven by real Chromium sessions, then one replica killed.

- ``SESSIONS`` students, each in its own browser context (its own cookies, as on its own machine), open their own
  ``?cfg=`` link (distinct costs and rounds), wait for the regions plot (its region images are inline PNG
  layout images: checked present) and the session's media files (the download buttons' files, served over HTTP
  by the replica holding the session: checked 200), edit a cost in the cost editor and see the link follow the edit.
- Two more students upload a CSV, one on each replica (the upload is an HTTP PUT to the replica that holds the
  session: it works only with affinity), into the command's upload store (a redis-server it starts, when one is
  installed; else a directory).
- Every HTTP answer through the balancer is < 400, no page shows an exception or a JavaScript error, and both
  replicas hold sessions (HAProxy's SERVERID cookie).
- One replica is killed (its whole process group, SIGKILL: a crash). Every session it held reconnects through the
  balancer to the other replica (its cookie now names that one) and comes back with the same dataset, costs and
  rounds: the cost editor shows the edited cost, the regions plot the session's number of rounds, and the link
  the same configuration. The student who uploaded on it gets the same points back: the other replica reads them
  from the store.
- SIGINT to the command stops everything it started: no replica, helper or haproxy process is left.

An uploaded CSV survives its replica in each store alone (``test_an_upload_survives_its_replica``, in
``make soak``): the replicas keep it in one upload store (a directory, or a redis-server the command starts) and
the link names it, so the student moved to the other replica gets the same points back.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np
import psutil
import pytest

from benchmarks._common import free_port, healthy
from benchmarks.bench_browser import HOOKS
from rebel.ui import classroom, upload_store
from rebel.ui import config as cf
from tests.e2e.conftest import open_preset_pictures, settle
from tests.test_packaging import _make_variable

# a cold numba cache compiles the kernels before the replicas start: more than the suite's 600 s per test
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(1500)]

ROOT = Path(__file__).resolve().parents[2]
# two a replica (HAProxy balances by least connections): several sessions fail over together (the load on a
# server is `make soak`'s)
SESSIONS = 4
START_TIMEOUT = 420.0  # s: the command prepares the kernels, then two replicas start on a shared machine
LOAD_MS = 300_000
FAST = {"n_estimators": 10, "max_depth": 2, "n_thresholds": 32}


def _config(i: int) -> cf.Config:
    """Student i's configuration: the airport preset, its own seed, weapon->harmless cost and rounds."""
    base = cf.preset_config("airport", dict(FAST, n_estimators=FAST["n_estimators"] + i))
    d = base.to_dict()
    d["spec"]["seed"] = 100 + i
    d["cost_matrix"][2][0] = 30 + i
    return cf.Config.from_dict(d)


def _edited_cost(i: int) -> int:
    return 60 + i


def _link_config(url: str) -> cf.Config:
    from rebel.ui.short_link import config_from_params

    return config_from_params({k: v[0] for k, v in parse_qs(urlparse(url).query).items()})[0]


def _descendants(pid: int) -> set:
    try:
        return {(p.pid, p.create_time()) for p in psutil.Process(pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return set()


def _cmdlines(procs: set) -> list:
    out = []
    for pid, _ in procs:
        try:
            out.append((pid, " ".join(psutil.Process(pid).cmdline())))
        except psutil.NoSuchProcess:
            pass
    return out


def _alive(procs: set) -> list:
    left = []
    for pid, created in procs:
        try:
            p = psutil.Process(pid)
            if p.create_time() == created and p.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{pid}: {' '.join(p.cmdline())[:120]}")
        except psutil.NoSuchProcess:
            pass
    return left


@contextlib.contextmanager
def _classroom(*extra: str):
    """The command with 2 replicas on free ports (and ``extra`` arguments); yields (url, supervisor process,
    {replica name: port}, the processes it started) and checks at the end that SIGINT stopped every process it
    started."""
    try:
        haproxy = classroom.find_haproxy()
    except SystemExit as exc:
        pytest.skip(f"{exc} (.ci/run and make classroom install it)")
    port, base = free_port(), free_port()
    while not classroom._port_free(base + 1) or port in (base, base + 1):
        base = free_port()
    safety = _make_variable("SAFETY").split()  # make run's flags: one source of truth, the Makefile
    env = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")))
    cmd = [sys.executable, "-m", "rebel.ui.classroom", "--replicas", "2", "--port", str(port)]
    cmd += ["--base-port", str(base), "--bind", "127.0.0.1", "--no-restart", "--haproxy", haproxy, "--quiet"]
    cmd += list(extra)
    with tempfile.TemporaryFile() as log:
        sup = subprocess.Popen([*cmd, "--", *safety], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        started = set()
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not healthy(url):
                if sup.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    pytest.fail(
                        f"the classroom did not start:\n{log.read().decode(errors='replace')[-3000:]}"
                    )
                time.sleep(0.5)
            started |= _descendants(sup.pid)
            yield url, sup, {"r1": base, "r2": base + 1}, started
        finally:
            started |= _descendants(sup.pid)
            if sup.poll() is None:
                sup.send_signal(signal.SIGINT)
            try:
                sup.wait(timeout=60)
            except subprocess.TimeoutExpired:  # the test fails below; do not leave it running
                classroom.stop_group(sup)
            log.seek(0)
            output = log.read().decode(errors="replace")
        assert "stopped haproxy and every replica" in output, output[-3000:]
        assert not _alive(started), f"processes left after SIGINT: {_alive(started)}"
        ports = {str(base), str(base + 1), str(port)}
        for p in psutil.process_iter(["cmdline"]):
            line = " ".join(p.info["cmdline"] or [])
            assert not ("rebel.ui.launch" in line and set(line.split()) & ports), (
                f"replica left: {line[:160]}"
            )


def _store(tmp: Path) -> list[str]:
    """The command's upload store: a redis-server it starts when one is installed (.ci/run installs it), else a
    directory."""
    redis = shutil.which("redis-server") or "/usr/bin/redis-server"
    if os.path.exists(redis):
        return ["--store", f"redis://127.0.0.1:{free_port()}/1", "--redis-server", redis]
    return ["--store", str(tmp / "uploads")]


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    where = _store(tmp_path_factory.mktemp("room"))
    with _classroom(*where) as r:
        yield (*r, where)


class Student:
    """One browser context (its own cookies) on one page, recording HTTP answers and JavaScript errors."""

    def __init__(self, browser, url: str, link: str | None):
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page = self.context.new_page()
        self.responses: list = []
        self.errors: list = []
        self.page.on(
            "response", lambda r: self.responses.append((r.status, r.url, r.headers.get("x-replica")))
        )
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        query = f"?{cf.QUERY_KEY}={link}" if link else ""
        self.page.goto(f"{url}/{query}", wait_until="domcontentloaded", timeout=LOAD_MS)

    def replica(self) -> str:
        return next((c["value"] for c in self.context.cookies() if c["name"] == "SERVERID"), "")

    def settle(self, timeout: int = LOAD_MS) -> None:
        settle(self.page, timeout, pauses=(500, 500))

    def rounds(self) -> int:
        """The regions replay's number of rounds: the label of its round slider's last step (t = 0..T)."""
        self.page.wait_for_function(
            "() => [...document.querySelectorAll('.st-key-pg_plot .js-plotly-plot')]"
            ".some(gd => gd.layout && gd.layout.sliders && gd.layout.sliders[0].steps.length > 1)",
            timeout=LOAD_MS,
            polling=250,
        )
        return int(
            self.page.evaluate(
                "() => { const gd = document.querySelector('.st-key-pg_plot .js-plotly-plot');"
                " const steps = gd.layout.sliders[0].steps; return steps[steps.length - 1].label; }"
            )
        )

    def region_images(self) -> int:
        """Region images painted in the plots: inline PNG layout images (not media files)."""
        hrefs = self.page.eval_on_selector_all(
            ".js-plotly-plot .imagelayer image",
            "els => els.map(e => e.getAttribute('href') || e.getAttribute('xlink:href') || '')",
        )
        return sum(h.startswith("data:image/png") for h in hrefs)

    def media(self) -> list:
        """HTTP answers for the session's media files (/media/...: the sidebar's preset pictures and the download
        buttons' files), which exist only on the replica that holds the session."""
        return [(st, u, r) for st, u, r in self.responses if "/media/" in u and "/static/" not in u]

    def wait_for_media(self, timeout: int = LOAD_MS) -> list:
        """``media`` once the browser has fetched some: the student opens the sidebar's "Presets as pictures"
        (drawn only while open), whose pictures arrive after the run that sent them has ended (the sessions share
        one Chromium on 2 cores)."""
        open_preset_pictures(self.page)
        deadline = time.monotonic() + timeout / 1000
        while not self.media() and time.monotonic() < deadline:
            self.page.wait_for_timeout(250)
        return self.media()

    def cost_cell(self):
        cell = self.page.locator(HOOKS["cost_cell"].format(i=2, j=0)).first
        cell.wait_for(timeout=LOAD_MS)
        return cell

    def check_clean(self, who: str) -> None:
        shown = self.page.locator("[data-testid='stException']")
        assert shown.count() == 0, f"{who}: {shown.first.inner_text()[:500]}"
        assert not self.errors, f"{who}: JavaScript errors {self.errors}"
        bad = [r for r in self.responses if r[0] >= 400]
        assert not bad, f"{who}: HTTP errors through the balancer {bad[:5]}"


_CSV_NAMES = ("larch", "rowan")  # the uploads' class names: the page names them when it uses the points


def _upload(student, name: str, data: bytes) -> None:
    """The student uploads ``data`` as points (the Playground's sidebar) and the page uses them."""
    box = student.page.locator("[data-testid='stFileUploader']", has_text="Upload points")
    box.locator("input[type=file]").set_input_files({"name": name, "mimeType": "text/csv", "buffer": data})
    student.page.get_by_text("Using the uploaded CSV points").first.wait_for(timeout=LOAD_MS)
    student.settle()


def _age(store: list, data: bytes):
    """Make the upload of ``data`` old in ``store`` (the command's ``--store`` arguments); returns a function that
    says whether a replica has read it since (a reading renews its age)."""
    key = upload_store.upload_key(data)
    if store[1].startswith("redis://"):
        redis = upload_store.open_store(store[1])
        assert redis.get(key), "the upload is not in the redis store"
        redis.call("EXPIRE", redis.PREFIX + key, 100)
        return lambda: redis.call("TTL", redis.PREFIX + key) > 1000
    path = Path(store[1]) / f"{key}.csv"
    assert path.exists(), f"the upload is not in the store's directory: {list(path.parent.iterdir())}"
    old = time.time() - 1000
    os.utime(path, (old, old))
    return lambda: path.stat().st_mtime > old + 500


def _comes_back(student, survivor: str, read_again, names) -> None:
    """After its replica died: the student reconnects to ``survivor``, whose next whole-page run reads the upload
    from the store (``read_again``) and the page uses the same points again, saying so."""
    deadline = time.monotonic() + LOAD_MS / 1000
    while student.replica() != survivor:
        assert time.monotonic() < deadline, "the uploader did not reconnect through the balancer"
        student.page.wait_for_timeout(500)
    # Streamlit's page does not run again by itself when it reconnects while idle, and a click in the main area (a
    # fragment the new replica does not know) is dropped: the student's next whole-page run does it (here the
    # rerun key; a sidebar setting or a reload alike), in a new session on the survivor. The balancer's cookie
    # names the survivor as soon as the page's first request reached it, which can be before the page's new
    # session is up: a rerun key pressed then is dropped. So it is pressed again every 5 s until the survivor has
    # read the upload (a rerun too many is harmless).
    pressed = -1.0
    while not read_again():
        assert time.monotonic() < deadline, f"the survivor {survivor} never read the upload from the store"
        if time.monotonic() - pressed >= 5.0:
            student.page.locator("body").press("r")
            pressed = time.monotonic()
        student.page.wait_for_timeout(500)
    student.page.get_by_text("The uploaded points of this link are back").first.wait_for(timeout=LOAD_MS)
    student.settle()
    student.page.get_by_text("Using the uploaded CSV points").first.wait_for(timeout=LOAD_MS)
    text = student.page.locator("body").inner_text()
    assert all(name in text for name in names) and "are gone" not in text, text[:1000]
    assert "upload" in parse_qs(urlparse(student.page.url).query), student.page.url
    shown = student.page.locator("[data-testid='stException']")
    assert shown.count() == 0 and not student.errors, (shown.count(), student.errors)


def _csv_bytes(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    rows = [f"{x:.3f},{y:.3f},{_CSV_NAMES[int(x > 0)]}" for x, y in rng.normal(size=(80, 2))]
    return ("x,y,label\n" + "\n".join(rows) + "\n").encode()


def test_a_class_through_the_balancer_survives_a_replica(room, chromium):
    url, _sup, ports, started, store = room
    students = [Student(chromium, url, cf.encode_query(_config(i))) for i in range(SESSIONS)]
    for i, s in enumerate(students):
        assert s.rounds() == _config(i).hyper["n_estimators"]
        s.settle()
        assert s.region_images() > 0, f"student {i}: no region image in the plots"
        assert s.wait_for_media() and all(r[0] == 200 and r[2] == s.replica() for r in s.media()), (
            f"student {i} on {s.replica()}: media files {s.media()}"
        )
    where = {i: s.replica() for i, s in enumerate(students)}
    assert set(where.values()) == {"r1", "r2"}, f"sessions not spread over both replicas: {where}"

    # A cost edit in every session; the link follows it (the app wrote it from its state).
    for i, s in enumerate(students):
        cell = s.cost_cell()
        cell.fill(str(_edited_cost(i)))
        cell.press("Enter")
    for i, s in enumerate(students):
        deadline = time.monotonic() + LOAD_MS / 1000
        while _link_config(s.page.url).cost_matrix[2][0] != _edited_cost(i):
            assert time.monotonic() < deadline, f"student {i}: the link did not follow the cost edit"
            s.page.wait_for_timeout(250)
        s.settle()
        s.check_clean(f"student {i} after the cost edit")

    # A CSV upload on each replica (an HTTP PUT to the replica that holds the session).
    uploaders, extra = [], []  # extra sessions stay open until then: HAProxy sends the next one elsewhere
    for _ in range(6):
        u = Student(chromium, url, None)
        u.rounds()
        u.settle()
        (extra if u.replica() in {x.replica() for x in uploaders} else uploaders).append(u)
        if len(uploaders) == 2:
            break
    for u in extra:
        u.context.close()
    assert {u.replica() for u in uploaders} == {"r1", "r2"}, "could not open a session on each replica"
    victim = where[0]  # the replica to be killed: student 0's
    survivor = "r2" if victim == "r1" else "r1"
    for k, u in enumerate(uploaders):
        _upload(u, f"class{k}.csv", _csv_bytes(k))
        puts = [r for r in u.responses if "/_stcore/upload_file/" in r[1]]
        assert puts and all(200 <= r[0] < 300 and r[2] == u.replica() for r in puts), (
            f"upload on {u.replica()}: {puts}"
        )
        u.check_clean(f"CSV upload on {u.replica()}")
    # the upload on the replica to be killed must come back on the other (the other uploader's is done)
    stranded = next(k for k, u in enumerate(uploaders) if u.replica() == victim)
    uploaders[1 - stranded].context.close()
    read_again = _age(store, _csv_bytes(stranded))

    # Kill the replica holding student 0 (a crash: its whole process group, SIGKILL).
    _kill_replica(started, ports[victim])
    moved = [i for i, r in where.items() if r == victim]
    for i in moved:
        s = students[i]
        deadline = time.monotonic() + LOAD_MS / 1000
        while s.replica() != survivor:
            assert time.monotonic() < deadline, f"student {i} did not reconnect through the balancer"
            s.page.wait_for_timeout(500)
        s.settle()
        want = _config(i)
        assert s.rounds() == want.hyper["n_estimators"], f"student {i}: rounds lost"
        assert float(s.cost_cell().input_value()) == _edited_cost(i), f"student {i}: cost edit lost"
        back = _link_config(s.page.url)
        assert back.to_dict()["spec"] == want.to_dict()["spec"] and back.hyper == want.hyper
        assert back.cost_matrix[2][0] == _edited_cost(i)
        assert s.region_images() > 0
        s.check_clean(f"student {i} after its replica died")
    _comes_back(uploaders[stranded], survivor, read_again, _CSV_NAMES)
    for i, s in enumerate(students):  # the others were not disturbed
        if i not in moved:
            assert s.replica() == survivor
            s.check_clean(f"student {i} on the surviving replica")
    print(
        f"\nclassroom: {SESSIONS} sessions {where}; killed {victim}, {len(moved)} sessions back on {survivor}, "
        f"and the upload made on {victim} ({'redis' if store[1].startswith('redis://') else 'directory'} store)"
    )
    for s in (*students, uploaders[stranded]):
        s.context.close()


def _kill_replica(started: set, port: int) -> None:
    """Kill the replica serving ``port`` (a crash: its whole process group, SIGKILL)."""
    pid = next(pid for pid, line in _cmdlines(started) if "rebel.ui.launch" in line and str(port) in line)
    os.killpg(pid, signal.SIGKILL)


def _labelled_csv() -> bytes:
    rng = np.random.default_rng(7)
    rows = [
        f"{x:.3f},{y:.3f},{('alder', 'birch', 'cedar')[i % 3]}"
        for i, (x, y) in enumerate(rng.normal(size=(90, 2)))
    ]
    return ("x,y,label\n" + "\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("store", ["directory", "redis"])
def test_an_upload_survives_its_replica(store, chromium, tmp_path):
    """The attack's reproducer: a student's uploaded points were lost when their replica died (the page fell back
    to the airport preset without a word). Now the student, moved to the other replica, gets them back. (The
    class test checks it too, in the store it runs with: redis when installed.)"""
    if store == "redis":
        redis = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not os.path.exists(redis):
            pytest.skip("redis-server is not installed (.ci/run installs it)")
        where = ["--store", f"redis://127.0.0.1:{free_port()}/1", "--redis-server", redis]
    else:
        where = ["--store", str(tmp_path / "uploads")]
    with _classroom(*where) as (url, _sup, ports, started):
        s = Student(chromium, url, None)
        s.rounds()
        s.settle()
        _upload(s, "trees.csv", _labelled_csv())
        link = parse_qs(urlparse(s.page.url).query)
        assert "upload" in link and cf.QUERY_KEY not in link, s.page.url
        if store == "directory":
            assert [p.name for p in (tmp_path / "uploads").iterdir()] == [
                f"{upload_store.upload_key(_labelled_csv())}.csv"
            ]
        read_again = _age(where, _labelled_csv())
        victim = s.replica()
        survivor = "r2" if victim == "r1" else "r1"
        _kill_replica(started, ports[victim])
        _comes_back(s, survivor, read_again, ("alder", "birch", "cedar"))
        print(f"\nupload store {store}: the points came back on {survivor} after {victim} was killed")
        s.context.close()
