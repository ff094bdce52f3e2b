"""Which kernels are compiled: in this process (a dispatcher's signatures) or in the numba cache (its index file).

Below the round loop, so that the loop's driver rule (``rebel.booster.round_driver``: run the compiled round loop
only once it is compiled for the fit's class count) asks it without importing anything above the engine's core;
``rebel.warmup`` builds its cold-cache checks and notices on ``kernel_is_cold``. Reads numba's cache index and a
dispatcher's signatures; writes nothing but this process's memo of compiled loops.
"""

from __future__ import annotations

from .lanes import plan_key

# Kernels compiled once per class count K (up to ``lanes.LANE_PASS_MAX_CLASSES``; one for all larger K): the
# round loop's type carries the fit's ``LanePlan`` (``RoundWork.lanes``), so only that K's lane passes compile.
PER_CLASS_COUNT = ("boost_rounds", "boost_rounds_serial", "grow_newton_tree", "grow_newton_tree_serial",
                   "root_histograms", "root_histograms_serial")  # fmt: skip

_LOOPS_COMPILED: set = set()  # (name, LanePlan key) of compiled loops this process has found


def kernel_is_cold(kernel, n_classes: int | None = None) -> bool:
    """True when the numba cache holds no entry for ``kernel`` (a numba dispatcher; for a kernel of
    PER_CLASS_COUNT with ``n_classes`` given: none for that K's plan); False when this numba cannot tell."""
    try:
        index = kernel._cache._cache_file._load_index()
    except (AttributeError, OSError, EOFError, TypeError, ValueError):  # numba internals moved
        return False
    if not index or n_classes is None or kernel.py_func.__name__ not in PER_CLASS_COUNT:
        return not index
    plan = f"LanePlan({plan_key(n_classes)})"
    return not any(plan in str(key[0]) for key in index if isinstance(key, tuple) and key)


def loop_is_compiled(kernel, n_classes: int) -> bool:
    """Whether ``kernel``, one of PER_CLASS_COUNT (a compiled round loop or Newton grower), is compiled for
    ``n_classes`` classes in this process or in the numba cache (``rebel.booster.round_driver`` runs it then).
    Cheap: a set, the dispatcher's signatures, then the cache's index file."""
    key = (kernel.py_func.__name__, plan_key(n_classes))
    if key in _LOOPS_COMPILED:
        return True
    plan = f"LanePlan({key[1]})"
    here = any(plan in str(sig) for sig in kernel.overloads)
    if here or not kernel_is_cold(kernel, n_classes):
        _LOOPS_COMPILED.add(key)
        return True
    return False


def kernel_is_ready(kernel, n_classes: int | None = None) -> bool:
    """Whether ``kernel`` (a numba dispatcher) is compiled in this process or in the numba cache (for a kernel of
    PER_CLASS_COUNT with ``n_classes`` given: for that K's plan); True when this numba cannot tell.
    ``common.one_thread_runs_parallel`` reads it."""
    sigs = [str(sig) for sig in kernel.overloads]
    if kernel.py_func.__name__ in PER_CLASS_COUNT and n_classes is not None:
        plan = f"LanePlan({plan_key(n_classes)})"
        sigs = [sig for sig in sigs if plan in sig]
    return bool(sigs) or not kernel_is_cold(kernel, n_classes)
