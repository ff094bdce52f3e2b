"""Numba threading-layer choice, made before any parallel kernel is compiled.

Streamlit runs each browser session in its own thread, and numba's ``workqueue`` layer aborts when two threads
launch parallel kernels at once. We ask for a thread-safe layer (OpenMP or TBB); if neither loads, parallel
kernels run one call at a time under a lock.
"""

from __future__ import annotations

import contextlib
import os
import threading

import numba

if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER_PRIORITY = ["omp", "tbb", "workqueue"]

_LOCK = threading.RLock()


def threading_layer() -> str:
    """The layer numba loaded ('omp', 'tbb' or 'workqueue'); only known after a parallel kernel has run."""
    try:
        return numba.threading_layer()
    except ValueError:
        return "not loaded yet"


@contextlib.contextmanager
def parallel_guard():
    """Serialise parallel kernel launches when only the thread-unsafe workqueue layer is available."""
    if threading_layer() in ("omp", "tbb"):
        yield
    else:
        with _LOCK:
            yield
