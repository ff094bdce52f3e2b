"""Uploaded datasets kept once by content, where every replica of the app reads them (``rebel.ui.uploads`` puts
their key in the Playground's link).

An uploaded CSV file is stored under its content hash (``upload_key``: SHA-256, 32 hex digits) in a store that
all replicas share. Two stores, chosen by ``REBEL_UPLOAD_STORE`` (``python -m rebel.ui.classroom --store`` sets it for its replicas):

- ``DirStore`` (a path; the default is a directory in the system's temporary directory): one file per upload,
  written atomically; the oldest go once the directory holds more than ``max_bytes`` or they are older than
  ``max_age`` seconds (reading a file renews its age). Replicas on one machine share it.
- ``RedisStore`` (``redis://host:port/db``, optionally ``redis://:password@host:port/db``): one key per upload
  with a time to live of ``max_age`` (renewed on reading), for replicas on several machines. It speaks Redis's
  protocol (RESP) over a socket: no client library. The server bounds the bytes (``maxmemory``; the classroom's
  own redis-server is started with a bound and least-recently-used eviction).

Store failures raise ``StoreError`` (an ``OSError``) with what to do. Standard library only (the classroom
command imports it): no streamlit, numpy or pandas here.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

from rebel import budget

ENV = "REBEL_UPLOAD_STORE"
MAX_UPLOAD_BYTES = budget.limit_of("file_bytes", app=True)  # no stored upload is read beyond this
KEY_CHARS = 32  # hex digits of SHA-256 kept: 128 bits
MAX_BYTES = 256 * 2**20  # what a directory store keeps at most (uploads are at most 5 MB each)
MAX_AGE = 7 * 24 * 3600  # seconds an upload is kept after it was last stored or read
REDIS_TIMEOUT = 3.0  # seconds for a Redis connection or answer
_KEY = re.compile(f"[0-9a-f]{{{KEY_CHARS}}}")


class StoreError(OSError):
    """The store could not be reached or refused a request; the message says which store and what to do."""


def upload_key(data: bytes) -> str:
    """The content hash an upload is stored under."""
    return hashlib.sha256(bytes(data)).hexdigest()[:KEY_CHARS]


def check_key(key) -> str:
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(
            f"upload key {str(key)[:40]!r} is not {KEY_CHARS} hex digits; copy the full link again."
        )
    return key


class DirStore:
    """Uploads as files ``<key>.csv`` in ``root`` (created, owner-only), bounded by bytes and age."""

    def __init__(self, root, max_bytes: int = MAX_BYTES, max_age: float = MAX_AGE):
        self.root, self.max_bytes, self.max_age = Path(root), int(max_bytes), float(max_age)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"DirStore({str(self.root)!r})"

    def _path(self, key: str) -> Path:
        return self.root / f"{check_key(key)}.csv"

    def put(self, data: bytes) -> str:
        key = upload_key(data)
        path = self._path(key)
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            if path.exists():
                os.utime(path)
            else:
                tmp = path.with_name(f".{key}.{os.getpid()}.{threading.get_ident()}.tmp")
                tmp.write_bytes(data)
                os.replace(tmp, path)  # atomic: a replica reading at once sees all of it or nothing
        except OSError as exc:
            raise StoreError(
                f"the upload store {self.root} could not be written ({exc}); check its path and space."
            ) from None
        self.prune()
        return key

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        try:
            if path.stat().st_size > MAX_UPLOAD_BYTES:
                return None
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(
                f"the upload store {self.root} could not be read ({exc}); check its path."
            ) from None
        if upload_key(data) != key:  # damaged on disk: as good as gone
            return None
        try:
            os.utime(path)
        except OSError:
            pass
        return data

    def prune(self) -> None:
        """Remove uploads older than ``max_age``, then the oldest until at most ``max_bytes`` are kept."""
        with self._lock:
            entries = []
            for p in self.root.glob("*.csv"):
                try:
                    st = p.stat()
                except FileNotFoundError:
                    continue
                entries.append((st.st_mtime, st.st_size, p))
            entries.sort()
            now, total = time.time(), sum(size for _, size, _ in entries)
            for mtime, size, p in entries:
                if now - mtime <= self.max_age and total <= self.max_bytes:
                    break
                p.unlink(missing_ok=True)
                total -= size


class RedisStore:
    """Uploads as Redis keys ``rebel:upload:<key>`` with a time to live of ``max_age`` seconds."""

    PREFIX = "rebel:upload:"

    def __init__(self, url: str, max_age: float = MAX_AGE, timeout: float = REDIS_TIMEOUT):
        u = urlparse(url)
        if u.scheme != "redis" or not u.hostname:
            raise ValueError(
                f"store {url!r} is not a Redis address; give redis://host:port/db, e.g. redis://127.0.0.1:6379/0."
            )
        try:
            self.db = int((u.path or "/0").strip("/") or 0)
            self.port = u.port or 6379
        except ValueError:
            raise ValueError(
                f"store {url!r}: the port and the database must be numbers, e.g. redis://127.0.0.1:6379/0."
            ) from None
        self.host, self.password = u.hostname, unquote(u.password) if u.password else None
        self.max_age, self.timeout = int(max_age), float(timeout)

    def __repr__(self) -> str:
        return f"RedisStore('redis://{self.host}:{self.port}/{self.db}')"

    def call(self, *args):
        """One command on a fresh connection (after AUTH and SELECT when needed); its reply."""
        try:
            with socket.create_connection((self.host, self.port), timeout=self.timeout) as sock:
                reader = sock.makefile("rb")
                commands = ([("AUTH", self.password)] if self.password else []) + (
                    [("SELECT", self.db)] if self.db else []
                )
                for command in [*commands, args]:
                    sock.sendall(_resp(command))
                    reply = _read_reply(reader)
                return reply
        except OSError as exc:
            raise StoreError(
                f"the upload store redis://{self.host}:{self.port}/{self.db} could not be reached ({exc}); start it or check --store."
            ) from None

    def put(self, data: bytes) -> str:
        key = upload_key(data)
        self.call("SET", self.PREFIX + key, bytes(data), "EX", self.max_age)
        return key

    def get(self, key: str) -> bytes | None:
        data = self.call("GETEX", self.PREFIX + check_key(key), "EX", self.max_age)
        return data if data is not None and upload_key(data) == key else None


def _resp(args) -> bytes:
    """A command as a RESP array of bulk strings."""
    parts = [a if isinstance(a, bytes) else str(a).encode() for a in args]
    return b"".join([b"*%d\r\n" % len(parts), *(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)])


def _read_reply(reader):
    line = reader.readline(1024)
    if not line.endswith(b"\r\n"):
        raise StoreError("the Redis server closed the connection or sent a malformed reply")
    kind, body = line[:1], line[1:-2]
    if kind == b"+":
        return body.decode()
    if kind == b"-":
        raise StoreError(f"the Redis server refused the request: {body.decode(errors='replace')[:200]}")
    if kind == b":":
        return int(body)
    if kind == b"$":
        n = int(body)
        if n < 0:
            return None
        if n > MAX_UPLOAD_BYTES:
            raise StoreError(
                f"the Redis server sent {n:,} bytes for one upload; at most {MAX_UPLOAD_BYTES:,} are read"
            )
        data = reader.read(n + 2)
        return data[:-2]
    if kind == b"*":
        n = int(body)
        return None if n < 0 else [_read_reply(reader) for _ in range(min(n, 16))]
    raise StoreError(f"the Redis server sent an unknown reply {line[:40]!r}")


def default_dir() -> Path:
    """The directory store used when ``REBEL_UPLOAD_STORE`` is not set: one per user in the temporary directory."""
    return (
        Path(tempfile.gettempdir()) / f"rebel-explorer-uploads-{os.getuid() if hasattr(os, 'getuid') else 0}"
    )


def open_store(where: str | None = None):
    """The store at ``where``: ``redis://...`` or a directory path (``None``: ``REBEL_UPLOAD_STORE``, else
    ``default_dir``)."""
    where = os.environ.get(ENV, "") if where is None else str(where)
    if where.startswith("redis://"):
        return RedisStore(where)
    return DirStore(where or default_dir())


_STORE: list = []


def store():
    """This process's store (``open_store`` once)."""
    if not _STORE:
        _STORE.append(open_store())
    return _STORE[0]
