"""Server memory: freed buffers go back to the system (``rebel.ui.guard.release_memory``), and one release
thread runs per server. The soak test (tests/e2e/test_soak.py) checks the whole server with real browsers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rebel.ui.guard import expire_closed_sessions, release_memory, start_memory_release

MIB = 1024 * 1024


SESSION_SCRIPT = """
import gc, os, threading
import numpy as np, psutil
from rebel.ui.guard import release_memory

keep = []

def session():
    warm = np.ones(2_000_000)  # freeing a large block raises glibc's mmap threshold: what follows is heap
    del warm
    blocks = []
    for _ in range(300):
        blocks.append(np.ones(100_000))  # 800 kB each, 240 MB in all
        keep.append(np.ones(10))  # small long-lived objects between them keep the heap from shrinking
    del blocks

thread = threading.Thread(target=session)
thread.start()
thread.join()
gc.collect()
proc = psutil.Process(os.getpid())
before = proc.memory_info().rss
release_memory()
print(before - proc.memory_info().rss)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_release_memory_returns_freed_heap_pages_of_a_session_thread():
    """Buffers a script thread frees stay in glibc's heap (RSS does not fall) until released. Run in a fresh
    interpreter, so the heap holds only this scenario."""
    out = subprocess.run(
        [sys.executable, "-c", SESSION_SCRIPT], capture_output=True, text=True, check=True, timeout=300
    )
    released = int(out.stdout.strip().splitlines()[-1])
    assert released > 100 * MIB, f"released {released / MIB:.0f} MiB of the 240 MiB freed"


def test_the_release_thread_is_a_daemon():
    thread = start_memory_release(interval=3600)
    assert thread.daemon and thread.is_alive() and thread.name == "rebel-memory-release"


def test_expiring_closed_sessions_outside_a_server_does_nothing():
    """No Streamlit server in this process: nothing to expire, and no error (the soak test covers a server)."""
    assert expire_closed_sessions() == 0
    release_memory()


FREEZE_SCRIPT = """
import gc, weakref
import plotly.graph_objects  # a loaded heap, as the server's after the pages' imports
from rebel.ui.guard import freeze_loaded_heap

class Node:
    pass

old = Node(); old.me = old  # a cycle alive at the freeze: out of the collector's reach from then on
frozen = freeze_loaded_heap()
tracked_after = len(gc.get_objects())  # what a full collection walks now
new = Node(); new.me = new  # a cycle a session makes later
gone = weakref.ref(new)
del new
gc.collect()
print(frozen, gc.get_freeze_count(), tracked_after, gone() is None)
"""


def test_freezing_the_loaded_heap_leaves_later_cycles_collectable():
    """After ``freeze_loaded_heap`` a full collection walks only objects made later (the loaded modules' are
    frozen), and a reference cycle made later is still collected. Run in a fresh interpreter (a freeze lasts)."""
    out = subprocess.run(
        [sys.executable, "-c", FREEZE_SCRIPT], capture_output=True, text=True, check=True, timeout=300
    )
    frozen, count, tracked_after, collected = out.stdout.split()
    assert int(frozen) == int(count) > 10_000  # plotly alone makes tens of thousands of objects
    assert int(tracked_after) < int(frozen) // 10
    assert collected == "True"


FREE_SCRIPT = """
import os, sys, threading
import numpy as np, psutil
from rebel.ui.guard import fix_mmap_threshold

if sys.argv[1] == "fixed":
    assert fix_mmap_threshold()
keep = []
proc = psutil.Process(os.getpid())
freed = []

def session():
    warm = np.ones(4_000_000)  # a 32 MB block freed: glibc's default raises its mmap threshold to 32 MB
    del warm
    blocks = []
    for _ in range(150):
        blocks.append(np.ones(200_000))  # 1.6 MB each, 240 MB in all
        keep.append(np.ones(10))  # small long-lived objects between them
    before = proc.memory_info().rss
    del blocks
    freed.append(before - proc.memory_info().rss)

thread = threading.Thread(target=session)
thread.start()
thread.join()
print(freed[0])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_fixed_mmap_threshold_returns_a_session_threads_large_buffers_when_freed():
    """With ``fix_mmap_threshold`` (set by ``start_memory_release``), blocks of 1 MB and more have pages of their
    own and go back to the system as soon as they are freed; with glibc's moving threshold they stay in the heap
    (the server's memory after sessions closed varied from run to run: tests/e2e/test_soak.py)."""
    freed = {}
    for mode in ("fixed", "default"):
        out = subprocess.run(
            [sys.executable, "-c", FREE_SCRIPT, mode], capture_output=True, text=True, check=True, timeout=300
        )
        freed[mode] = int(out.stdout.strip().splitlines()[-1])
    assert freed["fixed"] > 200 * MIB, f"freed {freed['fixed'] / MIB:.0f} of 240 MiB with the fixed threshold"
    assert freed["default"] < 100 * MIB, f"freed {freed['default'] / MIB:.0f} MiB with glibc's default"
