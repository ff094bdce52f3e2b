"""Shared helpers for the benchmark scripts: timing, peers, and a plain-text table."""

from __future__ import annotations

import os
import time

import numpy as np


def n_threads() -> int:
    return int(os.environ.get("REBEL_BENCH_THREADS", os.cpu_count() or 1))


def best_of(fn, repeat: int = 3) -> float:
    """Smallest wall-clock time of ``repeat`` calls (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def median_of(fn, repeat: int = 20) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def peers(n_estimators: int, depth: int, threads: int):
    """Fitters of the peers at equal work: n_estimators rounds of depth-``depth`` trees, 255 bins."""
    out = {}
    try:
        import lightgbm as lgb

        out["LightGBM"] = lambda: lgb.LGBMClassifier(
            n_estimators=n_estimators,
            num_leaves=2**depth,
            max_depth=depth,
            max_bin=255,
            min_child_samples=1,
            n_jobs=threads,
            verbose=-1,
        )
    except ImportError:
        pass
    try:
        import xgboost as xgb

        out["XGBoost hist"] = lambda: xgb.XGBClassifier(
            n_estimators=n_estimators,
            max_depth=depth,
            tree_method="hist",
            max_bin=256,
            n_jobs=threads,
        )
    except ImportError:
        pass
    from sklearn.ensemble import HistGradientBoostingClassifier

    out["sklearn HGB"] = lambda: HistGradientBoostingClassifier(
        max_iter=n_estimators,
        max_depth=depth,
        max_leaf_nodes=2**depth,
        early_stopping=False,
        min_samples_leaf=1,
    )
    return out


def print_table(rows, headers):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(str(h).ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
