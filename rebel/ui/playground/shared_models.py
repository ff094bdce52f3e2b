"""A class opening one link trains once: concurrent Playground trainings of the same configuration share one build.

The trained pairs of a server process are shared by its sessions (``rebel.ui.state.SHARED_PAIRS``, looked up by
``compute.train_pair``), but only once one is stored: when 30 students open the lecturer's link within a few
seconds on a replica that has not trained it yet, each session's run missed the store and trained the same pair,
and the replica's one core did the same seconds of work 30 times over while every student waited.

``one_build_at_a_time(train_pair)`` wraps the training so that a call whose configuration (``call_key``: the data,
the cost matrix, the settings, the grid size and the engine options) is being trained by another thread waits for
that training to end and then calls ``train_pair`` itself, which finds the pair in the shared store: one training
for the class. What a waiting call returns always comes from its own call with its own arguments, so a key that
matched two different configurations could only make a call wait, never hand it another configuration's model.
A build that fails (or takes longer than ``WAIT_SECONDS``) lets the waiting calls train for themselves. Calls that
do not use the shared store (no session cache and no ``shared`` store given) are not held.

Bounds: ``InFlight`` holds one entry (a key and an event) per configuration being trained at this moment, dropped
when its training ends; the pairs themselves stay bounded by the shared store (``SHARED_PAIR_LIMIT`` pairs and
``SHARED_PAIR_BYTES`` of arrays).
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable

import numpy as np

from rebel.ui.config import content_key, dataset_key

WAIT_SECONDS = 300.0  # a waiting call trains for itself after this long (a training at the app's limits)


class InFlight:
    """Builds by key, one at a time per key across threads: ``run(key, build)``."""

    def __init__(self, wait_seconds: float = WAIT_SECONDS):
        self.wait_seconds = float(wait_seconds)
        self._lock = threading.Lock()
        self._building: dict[str, tuple[threading.Event, int]] = {}  # key -> (done, builder's thread id)
        self._waiting: dict[str, int] = {}  # key -> calls waiting for its build now

    def __len__(self) -> int:
        """Keys being built now."""
        with self._lock:
            return len(self._building)

    def waiting(self, key: str) -> int:
        """Calls waiting now for the build of ``key``."""
        with self._lock:
            return self._waiting.get(key, 0)

    def run(self, key: str, build: Callable[[], object]):
        """``build()``; while another thread runs a build of ``key``, first wait for it to end (at most
        ``wait_seconds``). Only builds of the same key wait for each other."""
        me = threading.get_ident()
        with self._lock:
            found = self._building.get(key)
            if found is None:
                done = threading.Event()
                self._building[key] = (done, me)
        if found is not None:
            done, builder = found
            if builder != me:  # (a build of the key inside its own build does not wait for itself)
                self._count(key, +1)
                try:
                    done.wait(self.wait_seconds)
                finally:
                    self._count(key, -1)
            return build()
        try:
            return build()
        finally:
            with self._lock:
                self._building.pop(key, None)
            done.set()

    def _count(self, key: str, step: int) -> None:
        with self._lock:
            n = self._waiting.get(key, 0) + step
            if n:
                self._waiting[key] = n
            else:
                self._waiting.pop(key, None)


PAIR_BUILDS = InFlight()


def call_key(dataset, cost_matrix, hyper, grid_size=None, engine=None) -> str:
    """Key of a ``train_pair`` call's configuration: the dataset's content and name, the cost matrix as given,
    the settings, the grid size and the engine options."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    names = list(getattr(dataset, "feature_names", []) or [])
    return content_key(
        "pair call", dataset_key(dataset), dataset.name, names, C, dict(hyper), grid_size, dict(engine or {})
    )


def one_build_at_a_time(train_pair: Callable, builds: InFlight | None = None) -> Callable:
    """``train_pair`` with concurrent calls of one configuration sharing one training (see the module's text)."""
    builds = PAIR_BUILDS if builds is None else builds
    signature = inspect.signature(train_pair)

    @functools.wraps(train_pair)
    def shared_build(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        if a.get("cache") is None and a.get("shared") is None:  # no shared store: nothing to share
            return train_pair(*args, **kwargs)
        try:
            key = call_key(a["dataset"], a["cost_matrix"], a["hyper"], a.get("grid_size"), a.get("engine"))
        except (TypeError, ValueError):  # an argument train_pair will refuse with its own message
            return train_pair(*args, **kwargs)
        return builds.run(key, lambda: train_pair(*args, **kwargs))

    shared_build.builds = builds
    return shared_build
