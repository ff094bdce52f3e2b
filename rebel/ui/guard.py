"""The page boundary and the server's memory.

``app.py`` runs every page through ``run_page``, and pages wrap their fragments in ``components.guarded`` and
their widget callbacks in ``components.guarded_callback``, so no exception reaches a user as a traceback. An
unexpected error is logged on the server with its traceback and shown to the user as one escaped message
(``components.show_error``); the session state is untouched, so the user's data, costs and settings stay.
Streamlit's own control flow (``st.rerun``, ``st.stop``) derives from BaseException and passes through.

``start_memory_release`` (started once per server by ``app.py``) returns the memory of closed sessions to the
system every few seconds (``release_memory``): it drops the sessions whose disconnected TTL has passed, then
collects and trims the heap. ``freeze_loaded_heap`` (once per server, after the pages' imports) keeps the
collector's full passes off the loaded modules' objects.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import os
import sys
import threading
import time

import streamlit as st

from rebel.budget import BudgetError
from rebel.ui.components import UNEXPECTED_KEY, show_error, show_refusal, unexpected_message

LOG = logging.getLogger("rebel.ui")
MEMORY_RELEASE_SECONDS = 10.0


PAGE_NICE = 10  # CPU niceness of a session's script thread (the server's event loop keeps 0)


def lower_priority(nice: int = PAGE_NICE) -> None:
    """Run the calling thread (a session's script run, and the kernel threads it starts, which inherit it) at
    niceness ``nice``: the server's event loop, which answers health checks and streams every session's
    elements, keeps the CPU first when many sessions train at once. Linux only (per-thread priorities); a
    no-op elsewhere or when the thread already runs at that priority or lower."""
    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    try:
        if os.getpriority(os.PRIO_PROCESS, tid) < nice:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
    except OSError:
        pass


VISIT_KEY = "_page_visit"  # (the page's title, how many times a page was entered in this session)


def page_visit() -> int:
    """The number of this visit of the page running (it grows each time the session enters a page from another)."""
    return int(st.session_state.get(VISIT_KEY, (None, 0))[1])


def run_page(page) -> None:
    """Run a ``st.navigation`` page; any ``Exception`` becomes a logged traceback and a clear message (a request
    over ``rebel.budget`` just its message). Messages of failed callbacks (``guarded_callback``) are shown
    first. The run's thread is lowered in CPU priority first (``lower_priority``). A run of another page than the
    last run's counts a new visit (``page_visit``)."""
    lower_priority()
    title, visits = st.session_state.get(VISIT_KEY, (None, 0))
    name = getattr(page, "title", None)
    if name != title:
        st.session_state[VISIT_KEY] = (name, visits + 1)
    for message in st.session_state.pop(UNEXPECTED_KEY, []):
        show_error(message)
    try:
        page.run()
    except BudgetError as exc:  # a request over the budget, refused before any work: say what to lower
        show_refusal(exc)
    except Exception as exc:
        LOG.exception("page %r failed", getattr(page, "title", page))
        show_error(unexpected_message(exc, "This page"))


# ------------------------------------------------------------------------------ returning memory to the system
def _glibc(name: str):
    """The C library's function ``name`` (None where there is none: not glibc)."""
    try:
        return getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):
        return None


_TRIM = _glibc("malloc_trim")  # hands freed heap pages back to the system
_MALLOPT = _glibc("mallopt")

# bytes: larger blocks (numpy buffers of a fit, a grid, a figure) get pages of their own
MMAP_THRESHOLD = 1 << 20
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number for it (malloc.h)


def fix_mmap_threshold(nbytes: int = MMAP_THRESHOLD) -> bool:
    """Serve every block of ``nbytes`` or more from pages of its own (``mallopt(M_MMAP_THRESHOLD)``; glibc only),
    which go back to the system as soon as the block is freed.

    By default glibc raises this threshold each time such a block is freed, up to 32 MB: after a few sessions
    the server's numpy buffers of up to 32 MB came from the heaps its session threads share, where one live
    block above them kept freed ones from being returned (``malloc_trim`` included), so the memory left after
    sessions closed varied from run to run. Returns whether it was set."""
    return _MALLOPT is not None and bool(_MALLOPT(_M_MMAP_THRESHOLD, int(nbytes)))


def expire_closed_sessions() -> int:
    """Forget sessions whose browser left more than ``server.disconnectedSessionTTL`` seconds ago; returns how many.

    Streamlit keeps closed sessions (with their state: datasets, models, figures) in a TTL cache that only drops
    expired entries when another session is stored, so on a quiet server the last sessions' memory was never
    freed. This reaps them on time. It reads Streamlit's session manager, which has no public API for this: with
    another Streamlit layout it does nothing (the soak test, tests/e2e/test_soak.py, would then fail)."""
    try:
        from streamlit.runtime import Runtime

        manager = Runtime.instance()._session_mgr
        lock, expire = manager._storage_lock, manager._session_storage._cache.expire
    except (AttributeError, RuntimeError):  # no server running, or another Streamlit layout
        return 0
    with lock:
        return len(expire())


def release_memory(collect: bool = True) -> None:
    """Drop expired closed sessions, collect garbage cycles and return freed heap pages to the system.

    The server runs each session's script in its own thread, and freed numpy buffers of a few MB stay in glibc's
    per-thread heaps (RSS does not fall) unless trimmed; closed sessions' models would otherwise keep the
    server's RSS near its peak. ``collect=False`` collects only if this call dropped a session: a full
    collection holds the interpreter for ~0.1-0.2 s with numba, scikit-learn and plotly loaded (the app turns
    off Streamlit's collection after every script run for the same reason)."""
    if expire_closed_sessions() or collect:
        gc.collect()
    if _TRIM is not None:
        _TRIM(0)


def freeze_loaded_heap() -> int:
    """Collect once, then move every object alive now out of the collector's reach (``gc.freeze``); returns how
    many were moved.

    Called once per server after the pages' modules are imported (numba, scikit-learn, plotly, Streamlit: a few
    hundred thousand long-lived objects). A full collection walks every tracked object, so with them in reach the
    collector's automatic full passes, which a session's first run or an edit allocating a figure's frames
    triggers, held the interpreter for 0.1-0.3 s each; frozen, they walk only what sessions allocated. Frozen
    objects are still freed by reference counting; only reference cycles among them (module-level objects,
    alive for the server's life anyway) are never collected."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


FULL_COLLECT_EVERY = 6  # ticks of the release thread between unconditional collections (one a minute)


def stored_session_count() -> int | None:
    """Sessions the server holds (connected and recently closed), or None outside a server."""
    try:
        from streamlit.runtime import Runtime

        return len(Runtime.instance()._session_mgr.list_sessions())
    except (AttributeError, RuntimeError):
        return None


def start_memory_release(interval: float = MEMORY_RELEASE_SECONDS) -> threading.Thread:
    """A daemon thread calling ``release_memory`` every ``interval`` seconds (start one per server); it collects
    garbage when the server holds fewer sessions than at the last tick and every ``FULL_COLLECT_EVERY`` ticks."""

    def loop():
        tick, last = 0, None
        while True:
            time.sleep(interval)
            tick += 1
            count = stored_session_count()  # fewer than last time: Streamlit dropped closed sessions itself
            fewer = None not in (count, last) and count < last
            release_memory(collect=fewer or tick % FULL_COLLECT_EVERY == 0)  # collects if it drops sessions
            last = count

    fix_mmap_threshold()
    thread = threading.Thread(target=loop, name="rebel-memory-release", daemon=True)
    thread.start()
    return thread
