"""``python -m rebel.ui.classroom``: serve a class from one machine (what ``make classroom`` starts).

Starts N replicas of the app (``python -m rebel.ui.launch app.py``, as ``make run`` does, with the server flags
given after ``--``; the Makefile passes its SAFETY flags) on localhost ports ``base-port``, ``base-port + 1``, ...,
and HAProxy in front of them on one address (``--bind``:``--port``), configured from ``deploy/haproxy.cfg``:
cookie-based session affinity (a student stays on the replica that holds their session, their uploads and
media files), websockets, and a health check on ``/_stcore/health`` that takes a failed replica out. A replica
that exits is started again (unless ``--no-restart``); its students reconnect through HAProxy to a live
replica meanwhile and get their configuration back from the ``?cfg=`` link in their address bar.

Uploaded points survive their replica: every replica keeps them in one upload store (``rebel.ui.upload_store``) and
the link names them, so a student moved to another replica gets them back. ``--store`` chooses it: a directory
(default: the app's own, one per user in the temporary directory, which replicas on one machine share) or
``redis://host:port/db`` for replicas on several machines; ``--redis-server`` starts a local redis-server for a
``redis://127.0.0.1:PORT/db`` store (bounded by ``--redis-maxmemory``, least recently used uploads evicted).

Ctrl-C (SIGINT) or SIGTERM stops everything this command started: HAProxy, every replica with the processes
it started (each replica runs in its own process group) and the redis-server it started.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from rebel.ui import upload_store
from rebel.ui.playground.warm_start import WARM_ENV

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "deploy" / "haproxy.cfg"
APP = ROOT / "app.py"
HAPROXY_CANDIDATES = ("haproxy", "/usr/sbin/haproxy")
REDIS_CANDIDATES = ("redis-server", "/usr/bin/redis-server")
HEALTH_TIMEOUT = 180.0  # seconds a replica may take to answer its health check (a cold numba cache compiles)
STOP_GRACE = 10.0  # seconds between SIGTERM and SIGKILL when stopping


@dataclass
class Replica:
    name: str
    port: int
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def default_replicas() -> int:
    """One replica per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def find_haproxy(explicit: str | None = None) -> str:
    """The haproxy executable; raise ``SystemExit`` with the fix when there is none."""
    for candidate in (explicit,) if explicit else HAPROXY_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    raise SystemExit(
        f"haproxy not found (looked for {explicit or ', '.join(HAPROXY_CANDIDATES)}); install it with "
        "'apt-get install haproxy' (make classroom does this), or give its path with --haproxy PATH."
    )


def find_redis(explicit: str = "redis-server") -> str:
    """The redis-server executable; raise ``SystemExit`` with the fix when there is none."""
    for candidate in (explicit, *REDIS_CANDIDATES):
        found = shutil.which(candidate)
        if found:
            return found
    raise SystemExit(
        f"redis-server not found (looked for {explicit}); install it with 'apt-get install redis-server', "
        "or give its path: --redis-server PATH."
    )


def render_config(replicas: list[Replica], bind: str, port: int, template: Path = TEMPLATE) -> str:
    """HAProxy's configuration: the template with the front address and one server line per replica."""
    servers = "\n".join(f"    server {r.name} 127.0.0.1:{r.port} check cookie {r.name}" for r in replicas)
    return string.Template(template.read_text()).substitute(bind=bind, port=port, servers=servers)


def _port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def healthy(url: str) -> bool:
    """True when the Streamlit server at ``url`` answers its health check with 200."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def replica_command(app: Path, port: int, server_flags: list[str]) -> list[str]:
    """``make run``'s server on ``port`` (the port last, so it wins over any port in ``server_flags``)."""
    return [sys.executable, "-m", "rebel.ui.launch", str(app), *server_flags, "--server.port", str(port)]


def stop_group(proc: subprocess.Popen | None, grace: float = STOP_GRACE) -> None:
    """Stop a process this module started and everything in its process group: SIGTERM, SIGKILL after
    ``grace`` seconds."""
    if proc is None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
            # the leader is gone; stragglers of its group (a compile helper) get the same signal
            try:
                os.killpg(proc.pid, signal.SIGKILL if sig == signal.SIGKILL else sig)
            except ProcessLookupError:
                pass
            break
        except subprocess.TimeoutExpired:
            continue
    if proc.poll() is None:
        proc.wait()


class Classroom:
    """The replicas and HAProxy; ``start()``, ``watch()`` (until a signal), ``stop()``."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.replicas = [Replica(f"r{i + 1}", args.base_port + i) for i in range(args.replicas)]
        self.haproxy: subprocess.Popen | None = None
        self.stopping = False
        self.env = dict(os.environ)
        self.env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
        self.env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), self.env.get("PYTHONPATH", "")) if p)
        if args.store:
            self.env[upload_store.ENV] = args.store  # every replica reads and writes the same upload store
        self.env.setdefault(WARM_ENV, "1")  # each replica trains the page's first pair at launch
        self.redis: subprocess.Popen | None = None
        self._config_dir = tempfile.TemporaryDirectory(prefix="rebel-classroom-")

    def log(self, text: str) -> None:
        print(f"[classroom] {text}", flush=True)

    def check_ports(self) -> None:
        busy = [r.port for r in self.replicas if not _port_free(r.port)]
        if not _port_free(self.args.port, "0.0.0.0" if self.args.bind in ("", "*") else self.args.bind):
            busy.insert(0, self.args.port)
        if busy:
            raise SystemExit(
                f"port(s) {busy} already in use; choose others with --port (the class's address) and "
                f"--base-port (the replicas use base-port .. base-port + N - 1), e.g. --base-port 9600."
            )

    def warm_cache(self) -> None:
        """Compile (first start) or load the kernels once, so N replicas do not all compile at the same time."""
        self.log("preparing the engine's kernels (compiles on the first start only) ...")
        subprocess.run(
            [sys.executable, "-c", "import rebel; rebel.warmup()"], cwd=ROOT, env=self.env, check=True
        )

    def start_replica(self, r: Replica) -> None:
        r.proc = subprocess.Popen(
            replica_command(self.args.app, r.port, self.args.server_flags),
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL if self.args.quiet else None,
            stderr=subprocess.DEVNULL if self.args.quiet else None,
            start_new_session=True,  # its own process group: stopping it stops its helpers too
        )
        self.log(f"replica {r.name}: pid {r.proc.pid}, {r.url}")

    def wait_healthy(self, replicas: list[Replica]) -> None:
        deadline = time.monotonic() + HEALTH_TIMEOUT
        waiting = list(replicas)
        while waiting:
            for r in list(waiting):
                if r.proc.poll() is not None:
                    raise SystemExit(f"replica {r.name} exited with code {r.proc.returncode} while starting")
                if healthy(r.url):
                    waiting.remove(r)
            if waiting and time.monotonic() > deadline:
                raise SystemExit(
                    f"replicas {[r.name for r in waiting]} not healthy after {HEALTH_TIMEOUT:.0f} s"
                )
            time.sleep(0.3)

    def write_config(self) -> Path:
        """Render HAProxy's configuration and have haproxy check it (before anything starts)."""
        path = Path(self._config_dir.name) / "haproxy.cfg"
        path.write_text(render_config(self.replicas, self.args.bind, self.args.port, self.args.template))
        check = subprocess.run(
            [self.args.haproxy, "-c", "-q", "-f", str(path)], check=False, capture_output=True, text=True
        )
        if check.returncode != 0:
            raise SystemExit(f"haproxy refused the configuration {path}:\n{check.stdout}{check.stderr}")
        return path

    def start_haproxy(self, path: Path) -> None:
        self.haproxy = subprocess.Popen(
            [self.args.haproxy, "-db", "-f", str(path)], start_new_session=True, env=self.env
        )
        self.log(f"haproxy: pid {self.haproxy.pid}, configuration {path}")

    def start_redis(self) -> None:
        """A local redis-server for the ``--store redis://127.0.0.1:PORT/db`` store (no disk files; bounded by
        ``--redis-maxmemory`` with least-recently-used eviction), once it answers."""
        store = upload_store.RedisStore(self.args.store)
        self.redis = subprocess.Popen(
            [self.args.redis_server, "--bind", store.host, "--port", str(store.port), "--save", "",
             "--appendonly", "no", "--maxmemory", self.args.redis_maxmemory, "--maxmemory-policy", "allkeys-lru",
             "--dir", self._config_dir.name],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            try:
                store.call("PING")
                break
            except upload_store.StoreError as exc:
                if self.redis.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(
                        f"redis-server did not start for --store {self.args.store}: {exc}"
                    ) from None
                time.sleep(0.2)
        self.log(f"redis-server: pid {self.redis.pid}, {store!r}")

    def start(self) -> None:
        self.check_ports()
        config = self.write_config()
        if self.args.redis_server:
            self.start_redis()
        self.log(f"upload store: {upload_store.open_store(self.env.get(upload_store.ENV))!r}")
        if not self.args.no_warmup:
            self.warm_cache()
        for r in self.replicas:
            self.start_replica(r)
        self.wait_healthy(self.replicas)
        self.start_haproxy(config)
        host = socket.gethostname() if self.args.bind in ("0.0.0.0", "", "*") else self.args.bind
        self.log(
            f"serving {len(self.replicas)} replicas at http://{host}:{self.args.port} "
            f"(bound to {self.args.bind or '*'}); Ctrl-C stops everything"
        )

    def watch(self) -> None:
        """Until stopped: restart a replica that exited (unless --no-restart); stop if HAProxy exits."""
        while not self.stopping:
            if self.haproxy is not None and self.haproxy.poll() is not None:
                self.log(f"haproxy exited with code {self.haproxy.returncode}; stopping")
                return
            for r in self.replicas:
                if r.proc is not None and r.proc.poll() is not None and not self.stopping:
                    self.log(
                        f"replica {r.name} exited with code {r.proc.returncode}; its students move to the others"
                    )
                    stop_group(r.proc, grace=1.0)  # anything left in its group
                    if self.args.no_restart:
                        r.proc = None
                    else:
                        self.start_replica(r)
            time.sleep(0.5)

    def stop(self) -> None:
        self.stopping = True
        stop_group(self.haproxy)
        for r in self.replicas:
            stop_group(r.proc)
        stop_group(self.redis)
        self._config_dir.cleanup()
        self.log("stopped haproxy and every replica" + (" and redis-server" if self.redis else ""))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    argv = list(sys.argv[1:] if argv is None else argv)
    server_flags: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, server_flags = argv[:cut], argv[cut + 1 :]
    ap = argparse.ArgumentParser(
        prog="python -m rebel.ui.classroom",
        description="Serve the app to a class: N replicas behind HAProxy with session affinity, on one address.",
        epilog="Arguments after '--' go to every replica's 'streamlit run' (make classroom passes the Makefile's "
        "SAFETY flags there). Example: python -m rebel.ui.classroom --replicas 2 --port 8501 -- "
        "--server.maxUploadSize 5",
    )
    ap.add_argument(
        "--replicas", "-n", type=int, default=default_replicas(), help="app processes (default: one per core)"
    )
    ap.add_argument(
        "--port", type=int, default=8501, help="the class's port, served by HAProxy (default 8501)"
    )
    ap.add_argument(
        "--bind",
        default="0.0.0.0",
        help="address HAProxy listens on (default 0.0.0.0: every interface, so students' machines reach it; "
        "127.0.0.1 for this machine only)",
    )
    ap.add_argument(
        "--base-port", type=int, default=None, help="first replica's localhost port (default: --port + 100)"
    )
    ap.add_argument("--haproxy", default=None, help="path of the haproxy executable (default: found on PATH)")
    ap.add_argument(
        "--template", type=Path, default=TEMPLATE, help=f"HAProxy configuration template ({TEMPLATE})"
    )
    ap.add_argument("--app", type=Path, default=APP, help="the app's script (default: app.py)")
    ap.add_argument("--no-restart", action="store_true", help="do not start a replica again when it exits")
    ap.add_argument(
        "--no-warmup", action="store_true", help="skip preparing the kernels before the replicas start"
    )
    ap.add_argument("--quiet", action="store_true", help="hide the replicas' own output")
    ap.add_argument(
        "--store",
        default="",
        help="where uploaded points are kept for every replica: a directory, or redis://host:port/db "
        f"(default: the app's directory, {upload_store.default_dir()})",
    )
    ap.add_argument(
        "--redis-server",
        nargs="?",
        const="redis-server",
        default=None,
        metavar="PATH",
        help="start a local redis-server (optionally its PATH) for a --store redis://127.0.0.1:PORT/db store",
    )
    ap.add_argument(
        "--redis-maxmemory", default="256mb", help="memory bound of the redis-server started (default 256mb)"
    )
    args = ap.parse_args(argv)
    if args.replicas < 1:
        ap.error(f"--replicas is {args.replicas}; give at least 1 (default: one per core).")
    if not 1 <= args.port <= 65535:
        ap.error(f"--port is {args.port}; give a TCP port from 1 to 65535, e.g. 8501.")
    if args.base_port is None:
        args.base_port = args.port + 100
    if not 1 <= args.base_port <= 65535 - args.replicas:
        ap.error(f"--base-port is {args.base_port}; give a port such that base-port + replicas <= 65535.")
    if args.base_port <= args.port < args.base_port + args.replicas:
        ap.error(
            f"--port {args.port} falls among the replicas' ports {args.base_port}..{args.base_port + args.replicas - 1}; "
            "choose another --base-port."
        )
    if not args.template.is_file():
        ap.error(f"--template {args.template} is not a file; give HAProxy's configuration template.")
    if not args.app.is_file():
        ap.error(f"--app {args.app} is not a file; give the app's script (app.py).")
    if args.store.startswith("redis://"):
        try:
            store = upload_store.RedisStore(args.store)
        except ValueError as exc:
            ap.error(f"--store: {exc}")
        if args.redis_server and store.host not in ("127.0.0.1", "localhost", "::1"):
            ap.error(
                f"--redis-server starts redis on this machine; --store names host {store.host!r}: use 127.0.0.1."
            )
    elif args.redis_server:
        ap.error(
            "--redis-server needs a --store redis://127.0.0.1:PORT/db to serve, e.g. redis://127.0.0.1:6390/0."
        )
    if args.redis_server:
        args.redis_server = find_redis(args.redis_server)
    args.haproxy = find_haproxy(args.haproxy)
    args.server_flags = server_flags
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    room = Classroom(args)

    def _on_signal(signum, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    try:
        room.start()
        room.watch()
    except KeyboardInterrupt:
        pass
    finally:
        # no second Ctrl-C in the middle of stopping
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        room.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
