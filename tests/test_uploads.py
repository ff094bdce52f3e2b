"""Uploads kept by content in a store every replica reads (rebel.ui.upload_store), named in the Playground's link
(rebel.ui.uploads)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import upload_store, uploads
from rebel.ui.config import pack_query
from rebel.ui.state import STATE_KEY

APP = str(Path(__file__).resolve().parent.parent / "app.py")
REDIS = shutil.which("redis-server") or (
    "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
)


def _csv(seed: int = 0, n: int = 60) -> bytes:
    rng = np.random.default_rng(seed)
    rows = [
        f"{x:.3f},{y:.3f},{('north', 'south', 'east')[i % 3]}"
        for i, (x, y) in enumerate(rng.normal(size=(n, 2)))
    ]
    return ("x,y,label\n" + "\n".join(rows) + "\n").encode()


def test_dir_store_keeps_uploads_by_content_bounded_by_bytes_and_age(tmp_path):
    room = sum(len(_csv(i)) for i in range(3))  # three uploads fit, a fourth does not
    store = upload_store.DirStore(tmp_path / "s", max_bytes=room, max_age=3600)
    keys = [store.put(_csv(i)) for i in range(3)]
    assert keys[0] == upload_store.upload_key(_csv(0)) and len(set(keys)) == 3
    assert store.put(_csv(0)) == keys[0]  # stored once: the same content, the same key (and its age renewed)
    assert [store.get(k) for k in keys] == [_csv(i) for i in range(3)]
    assert oct((tmp_path / "s").stat().st_mode & 0o777) == "0o700"
    os.utime(
        tmp_path / "s" / f"{keys[1]}.csv", (time.time() - 600, time.time() - 600)
    )  # the least recently used
    store.put(_csv(3))  # over the bytes: the oldest goes
    assert store.get(keys[1]) is None and store.get(keys[2]) == _csv(2)
    old = time.time() - 7200
    os.utime(tmp_path / "s" / f"{keys[2]}.csv", (old, old))  # older than max_age: goes at the next prune
    store.prune()
    assert store.get(keys[2]) is None
    (tmp_path / "s" / f"{keys[0]}.csv").write_bytes(b"x,y,label\n1,2,tampered\n")  # damaged: as good as gone
    assert store.get(keys[0]) is None
    with pytest.raises(ValueError, match="not 32 hex digits"):
        store.get("../../etc/passwd")


def test_link_names_the_upload_its_split_and_costs():
    text = uploads.encode_link(
        upload_store.upload_key(b"a"), 0.25, 7, np.ones((2, 2)), {"n_estimators": 20}, "paper"
    )
    link = uploads.decode_link(text)
    assert (
        link["upload"] == upload_store.upload_key(b"a")
        and link["test_fraction"] == 0.25
        and link["seed"] == 7
    )
    assert link["hyper"]["n_estimators"] == 20 and link["cost_matrix"] == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(ValueError, match="damaged"):
        uploads.decode_link(text[:-5] + "!!!!!")
    bad = pack_query({"upload": "zz", "test_fraction": 0.2, "seed": 1, "cost_matrix": [], "hyper": {}})
    with pytest.raises(ValueError, match="not 32 hex digits"):
        uploads.decode_link(bad)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    if REDIS is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    port = _free_port()
    proc = subprocess.Popen(
        [
            REDIS,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        url = f"redis://127.0.0.1:{port}/2"
        deadline = time.monotonic() + 20
        while True:
            try:
                upload_store.RedisStore(url).call("PING")
                break
            except upload_store.StoreError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_redis_store_keeps_uploads_with_a_time_to_live(redis_url):
    store = upload_store.RedisStore(redis_url, max_age=600)
    key = store.put(_csv(1))
    assert store.get(key) == _csv(1) and 0 < store.call("TTL", store.PREFIX + key) <= 600
    assert store.get(upload_store.upload_key(b"never stored")) is None
    assert upload_store.open_store(redis_url).get(key) == _csv(
        1
    )  # as the replicas open it (REBEL_UPLOAD_STORE)
    with pytest.raises(upload_store.StoreError, match="could not be reached.*--store"):
        upload_store.RedisStore(f"redis://127.0.0.1:{_free_port()}/0").get(key)


@pytest.fixture
def store_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(upload_store.ENV, str(tmp_path / "uploads"))
    monkeypatch.setattr(upload_store, "_STORE", [])
    return tmp_path / "uploads"


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_a_new_session_finds_the_linked_upload_or_says_it_is_gone(store_dir):
    """The attack's reproducer: after an upload, a session elsewhere (another replica) with the same link fell back
    to the airport preset without a word. Now it gets the same points back, or a plain message when they are gone."""
    first = _run(AppTest.from_file(APP, default_timeout=120))
    first.file_uploader(key="w_csv_upload").set_value(("p.csv", _csv(5), "text/csv"))
    _run(first)
    state = first.session_state[STATE_KEY]
    text = first.query_params.get(uploads.QUERY_KEY)
    text = text[0] if isinstance(text, list) else text
    assert state.data_source == "csv" and text and "cfg" not in first.query_params
    assert (store_dir / f"{upload_store.upload_key(_csv(5))}.csv").read_bytes() == _csv(5)

    again = AppTest.from_file(APP, default_timeout=120)
    again.query_params[uploads.QUERY_KEY] = text
    _run(again)
    back = again.session_state[STATE_KEY]
    assert back.data_source == "csv" and back.dataset.classes == state.dataset.classes
    np.testing.assert_array_equal(back.dataset.X_test, state.dataset.X_test)  # split as when it was uploaded
    np.testing.assert_array_equal(back.cost_matrix, state.cost_matrix)
    assert "uploaded points of this link are back" in " ".join(i.value for i in again.info)

    (store_dir / f"{upload_store.upload_key(_csv(5))}.csv").unlink()  # the store lost it
    gone = AppTest.from_file(APP, default_timeout=120)
    gone.query_params[uploads.QUERY_KEY] = text
    _run(gone)
    errors = " ".join(e.value for e in gone.error).replace("\\", "")
    assert "uploaded points this link names are gone" in errors and "Upload the CSV file again" in errors
    assert gone.session_state[STATE_KEY].data_source == "mixture"
    assert not [i for i in gone.info if "Using the uploaded CSV points" in i.value]
