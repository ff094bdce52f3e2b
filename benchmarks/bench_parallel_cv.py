"""``cross_val_score(RebelClassifier(...), X, y, cv=5, n_jobs=2)`` against the same call serially.

The user's situation: a script has fitted once (on every core: numba ran and cached the parallel drivers), then
cross-validates. Each timed call runs in a fresh Python process (so joblib's loky workers are fresh too, as in a
new script) on its own copy of one numba cache that such a first fit filled; the process first fits once on all
the data (its kernels load, as in the user's script; not timed), then times ``cross_val_score``:

- ``serial``: ``n_jobs=None``, the five fits one after the other on every numba thread;
- ``n_jobs=2``: two loky workers; loky gives numba one thread in each (NUMBA_NUM_THREADS=1). The time includes
  their start, imports and kernel loads;
- ``n_jobs=2, serial drivers``: the same with the engine's former rule, one thread always runs the serial
  drivers (``rebel.kernels.common.serial_on_one_thread`` in the workers), which the parent's cache
  lacks: each worker compiles them.

A diagnostic run reports, per worker, numba's thread count, the CPU seconds before its task (start, imports),
the first fit's time and the kernels that compiled in it (numba's ``numba:compile`` events). Every time is printed with the 1-minute load
average before and after it (the machine is shared: wall times move with the load), and with the CPU seconds of
the process and its workers (their start, imports, kernel loads and fits).

Run: python -m benchmarks.bench_parallel_cv [--n 100000] [--rounds 300] [--repeat 3] [--no-old-rule]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks._common import load_average
from rebel import RebelClassifier

_CHILD = r"""
import json, os, sys, time
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import cross_val_score
from joblib import Parallel, delayed
from benchmarks.bench_parallel_cv import Estimator, cpu_seconds, worker_report
n, rounds, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
X, y = make_classification(n_samples=n, n_features=20, n_informative=10, n_classes=3, random_state=0)
Estimator(n_estimators=rounds, max_depth=2).fit(X, y).predict(X[: n // 5])  # the user's first fit
if mode == "warm":
    print(json.dumps({}))
elif mode == "workers":
    print(json.dumps(Parallel(n_jobs=2)(delayed(worker_report)(X, y, rounds) for _ in range(2))))
else:
    jobs = None if mode == "serial" else 2
    est = Estimator(n_estimators=rounds, max_depth=2, old_rule=(mode == "old"))
    t, cpu = time.perf_counter(), cpu_seconds()
    scores = cross_val_score(est, X, y, cv=5, n_jobs=jobs)
    seconds = time.perf_counter() - t
    from joblib.externals.loky import get_reusable_executor
    get_reusable_executor().shutdown(wait=True)  # the workers end and are waited for: their CPU counts
    print(json.dumps({"seconds": seconds, "cpu": cpu_seconds() - cpu, "score": float(scores.mean())}))
"""


class Estimator(RebelClassifier):
    """RebelClassifier whose ``old_rule`` makes one thread run the serial drivers (the former rule)."""

    def __init__(self, n_estimators=100, max_depth=1, old_rule=False):
        super().__init__(n_estimators=n_estimators, max_depth=max_depth)
        self.old_rule = old_rule

    def fit(self, X, y, **kwargs):
        if self.old_rule:
            from rebel.kernels.common import serial_on_one_thread

            with serial_on_one_thread():
                return super().fit(X, y, **kwargs)
        return super().fit(X, y, **kwargs)


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that ended and were waited for (loky's workers)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def worker_report(X, y, rounds):
    """In a worker: numba's threads, the CPU seconds the worker spent before this task (its start, imports and
    unpickling), the first fit's time and the kernels it compiled. X arrives as joblib's read-only memory map,
    as a model's ``fit`` on it would see it."""
    started = time.process_time()
    import numba
    from numba.core import event

    with event.install_recorder("numba:compile") as rec:
        t = time.perf_counter()
        RebelClassifier(n_estimators=rounds, max_depth=2).fit(X, y)
        fitted = time.perf_counter() - t
    compiled = sorted({e.data["dispatcher"].py_func.__name__ for _, e in rec.buffer if e.is_start})
    return {
        "pid": os.getpid(),
        "numba_threads": numba.get_num_threads(),
        "NUMBA_NUM_THREADS": os.environ.get("NUMBA_NUM_THREADS"),
        "cpu_before_task_s": round(started, 2),
        "first_fit_s": round(fitted, 2),
        "compiled": compiled,
    }


def _run(mode: str, n: int, rounds: int, cache: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": os.getcwd()}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(n), str(rounds), mode],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=100_000, help="rows (20 features, 3 classes)")
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-old-rule", action="store_true", help="skip the former rule's runs (slow)")
    args = parser.parse_args(argv)
    root = tempfile.mkdtemp(prefix="rebel-cv-")
    try:
        base = os.path.join(root, "base")
        t = time.perf_counter()
        _run("warm", args.n, args.rounds, base)  # the user's first fit fills the cache
        print(f"first fit into an empty cache: {time.perf_counter() - t:.1f} s ({load_average()})")
        print(f"N={args.n}, d=20, K=3, {args.rounds} rounds of depth 2, 5-fold cross_val_score")
        modes = ["serial", "jobs2"] + ([] if args.no_old_rule else ["old"])
        names = {"serial": "serial", "jobs2": "n_jobs=2", "old": "n_jobs=2, serial drivers"}
        times: dict[str, list[float]] = {m: [] for m in modes}
        cpus: dict[str, list[float]] = {m: [] for m in modes}
        for r in range(args.repeat):
            for mode in modes if r == 0 else [m for m in modes if m != "old"]:
                cache = os.path.join(root, f"run-{mode}-{r}")
                shutil.copytree(base, cache)
                before = load_average()
                res = _run(mode, args.n, args.rounds, cache)
                times[mode].append(res["seconds"])
                cpus[mode].append(res["cpu"])
                print(
                    f"  {names[mode]:<26} {res['seconds']:7.2f} s wall {res['cpu']:7.2f} s CPU  (before: {before}; "
                    f"after: {load_average()}; accuracy {res['score']:.3f})"
                )
                shutil.rmtree(cache)
        for label, values in (("wall", times), ("CPU (workers included)", cpus)):
            medians = ", ".join(f"{names[m]} {statistics.median(v):.2f}" for m, v in values.items())
            print(f"median {label} seconds: {medians}")
        ratio = statistics.median(times["jobs2"]) / statistics.median(times["serial"])
        print(f"n_jobs=2 / serial: {ratio:.2f} (below 1: the parallel call is faster)")
        cache = os.path.join(root, "diag")
        shutil.copytree(base, cache)
        print(f"workers (a fresh process, its two loky workers; {load_average()}):")
        for report in _run("workers", args.n, args.rounds, cache):
            print(f"  {report}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
