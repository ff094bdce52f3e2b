"""Heavy page work, a few at a time: at most ``SLOTS`` (one per core) trainings or regions figures of a server
process run at once; the others wait their turn.

Ten sessions that open ten configurations at the Playground's limits each train a pair and build its figure
(seconds of Python-level round loops each). Run all at once on two cores, the ten threads contend for the
interpreter's lock: each took several times its own time, every session waited for all the others, and the
server's event loop got its turn less often. Queued one per core, the first sessions are drawn first and the whole
wave finishes sooner.

``heavy_work()`` is a context manager around one such piece of work. A thread already inside one does not take a
second slot (nested work is part of its turn). A thread that has waited ``WAIT_SECONDS`` for a slot goes ahead
without one (and logs it), so no chain of waits can hold a session for longer than that. The slots are taken only
around work that computes (a fit, a figure build), never around a cache lookup, so a session whose pair is already
trained does not wait behind another session's training.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading

LOG = logging.getLogger("rebel.ui")

SLOTS = max(1, os.cpu_count() or 1)  # heavy pieces of work at once in one server process
WAIT_SECONDS = 120.0  # a thread waits at most this long for a slot, then goes ahead without one


class WorkSlots:
    """``n`` slots for heavy work across threads, re-entrant per thread (``take``)."""

    def __init__(self, n: int = SLOTS, wait_seconds: float = WAIT_SECONDS):
        if int(n) < 1:
            raise ValueError(f"n (slots) must be at least 1; got {n!r}.")
        self.n, self.wait_seconds = int(n), float(wait_seconds)
        self._free = threading.BoundedSemaphore(self.n)
        self._mine = threading.local()  # this thread's depth inside ``take``
        self._lock = threading.Lock()
        self.busy = 0  # slots held now
        self.most = 0  # the most slots ever held at once

    @contextlib.contextmanager
    def take(self, what: str = "work"):
        """Hold a slot for the duration of the block (or none when this thread already holds one, or when none
        came free within ``wait_seconds``)."""
        depth = getattr(self._mine, "depth", 0)
        got = False
        if depth == 0:
            got = self._free.acquire(timeout=self.wait_seconds)
            if not got:
                LOG.warning("%s went ahead without a work slot after %.0f s", what, self.wait_seconds)
            else:
                with self._lock:
                    self.busy += 1
                    self.most = max(self.most, self.busy)
        self._mine.depth = depth + 1
        try:
            yield
        finally:
            self._mine.depth = depth
            if got:
                with self._lock:
                    self.busy -= 1
                self._free.release()


HEAVY = WorkSlots()


def heavy_work(what: str = "work"):
    """A slot of the process's ``HEAVY`` slots for the block (see the module's text)."""
    return HEAVY.take(what)
