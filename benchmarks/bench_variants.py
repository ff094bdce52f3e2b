"""Fit time of each REBEL engine variant (loss x leaves, shrinkage) next to LightGBM, interleaved.

Every repeat fits every model once, in turn (so load on the machine hits all of them alike); the table gives
the minimum and the median over the repeats and the ratio of minima to LightGBM's. Problem: make_classification
(n_informative = d / 2, n_clusters_per_class=2, random_state=0), 0-1 costs, ``--rounds`` rounds of depth
``--depth`` trees, 200 thresholds (LightGBM: 255 bins, 2^depth leaves, multiclass softmax), 2 threads.
Run: python -m benchmarks.bench_variants [--n 20000] [--d 20] [--k 5] [--rounds 100] [--depth 2] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification

from rebel import RebelClassifier, warmup

from ._common import n_threads, peers, print_table

VARIANTS = {
    "REBEL paper (exp, binary)": {},
    "REBEL exp, binary, lr 0.1": {"learning_rate": 0.1},
    "REBEL exp, vector": {"leaves": "vector"},
    "REBEL logistic, binary": {"loss": "logistic"},
    "REBEL logistic, vector": {"loss": "logistic", "leaves": "vector"},
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    threads = n_threads()
    X, y = make_classification(
        n_samples=args.n,
        n_features=args.d,
        n_informative=max(2, args.d // 2),
        n_classes=args.k,
        n_clusters_per_class=2,
        random_state=0,
    )
    X = X.astype(np.float64)
    warmup()
    fitters = {
        name: (lambda kw=kw: RebelClassifier(n_estimators=args.rounds, max_depth=args.depth, **kw))
        for name, kw in VARIANTS.items()
    }
    lgbm = peers(args.rounds, args.depth, threads).get("LightGBM")
    if lgbm is not None:
        fitters["LightGBM"] = lgbm
    times = {name: [] for name in fitters}
    for _ in range(args.repeat):  # interleaved: one fit of every model per repeat
        for name, make in fitters.items():
            model = make()
            t0 = time.perf_counter()
            model.fit(X, y)
            times[name].append(time.perf_counter() - t0)
    ref = min(times["LightGBM"]) if "LightGBM" in times else None
    rows = [
        (name, f"{min(t):.3f}", f"{np.median(t):.3f}", "-" if ref is None else f"{min(t) / ref:.2f}")
        for name, t in times.items()
    ]
    print(
        f"fit: N={args.n} d={args.d} K={args.k} rounds={args.rounds} depth={args.depth} threads={threads} "
        f"repeats={args.repeat} (interleaved)"
    )
    print_table(rows, ["model", "min s", "median s", "min / LightGBM min"])


if __name__ == "__main__":
    main()
