"""The one progress/stop protocol of the project, and the parallel map every sweep runs through.

A *progress* callback is ``progress(done, total, label)``; returning ``False`` asks the work to stop at the next
safe point (anything else, ``None`` included, means go on). Engine code, experiments, the command line's
progress bar and the app's run-with-Stop component all speak it:

- ``report(progress, done, total, label)`` calls it and says whether to go on (a ``None`` callback: always);
- ``drive(steps, progress, count, label)`` runs a generator of partial results, reports ``count(result)`` =
  ``(done, total)`` after each one and stops between steps when asked; it returns ``(last result, cancelled)``;
- ``run_tasks(tasks, n_jobs, backend, progress)`` runs ``[(key, func, args), ...]`` through joblib (threads by
  default; Dask, Ray or loky through ``joblib.parallel_config``) and returns ``{key: func(*args)}``. When the
  callback asks to stop, tasks not yet started are dropped and the finished ones are returned.

Nothing here imports streamlit; the arrays and results passing through are the callers'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numba
from joblib import Parallel, delayed

Progress = Callable[[int, int, str], object]

DEFAULT_BACKEND = "threading"  # measured faster than loky on 2 cores for Fig. 3 (docs/REPRODUCTION.md)


def report(progress: Progress | None, done: int, total: int, label: str = "") -> bool:
    """Call ``progress(done, total, label)``; True means go on (always True without a callback)."""
    return progress is None or progress(done, total, label) is not False


def drive(steps: Iterable, progress: Progress | None, count: Callable, label: str = "") -> tuple:
    """Run a generator of partial results to its end, or until ``progress`` returns False between two steps.

    After each partial result ``r``, ``count(r) -> (done, total)`` is reported. Returns ``(last result or None,
    cancelled)``; ``cancelled`` is True when the run stopped before the last step's ``done == total``.
    """
    last = None
    for last in steps:
        done, total = count(last)
        if not report(progress, done, total, label) and done < total:
            close = getattr(steps, "close", None)
            if close is not None:
                close()
            return last, True
    if last is None:
        return None, False
    done, total = count(last)
    return last, done < total


def _keyed(key, func, args, one_thread=False):
    if one_thread:
        # The engine's parallel kernels would start n_cores threads inside each of n_jobs workers; one fit per
        # worker thread is faster for these small fits (numba's thread count is per calling thread).
        numba.set_num_threads(1)
    return key, func(*args)


def run_tasks(
    tasks: Sequence, n_jobs: int | None = 2, backend: str | None = None, progress: Progress | None = None
) -> dict:
    """Run ``tasks`` = [(key, func, args), ...] through joblib; return ``{key: func(*args)}``.

    ``backend=None`` prefers threads but yields to a backend chosen with ``joblib.parallel_config`` (Dask, Ray,
    loky). ``progress(done, total, "tasks")`` is called in this process before the first and after every
    finished task; when it returns False the remaining tasks are dropped and the finished ones returned (so a
    caller that was stopped finds fewer keys than it planned).
    """
    total = len(tasks)
    results: dict = {}
    if not report(progress, 0, total, "tasks"):
        return results
    if n_jobs == 1 and backend is None:
        outputs = (_keyed(key, func, args) for key, func, args in tasks)
    else:
        parallel = Parallel(n_jobs=n_jobs, backend=backend, prefer="threads", return_as="generator_unordered")
        outputs = parallel(delayed(_keyed)(key, func, args, True) for key, func, args in tasks)
    for key, value in outputs:
        results[key] = value
        if not report(progress, len(results), total, "tasks") and len(results) < total:
            close = getattr(outputs, "close", None)
            if close is not None:
                close()  # joblib cancels the tasks it has not started
            break
    return results


__all__ = ["DEFAULT_BACKEND", "Progress", "drive", "report", "run_tasks"]
