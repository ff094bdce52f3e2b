"""Fit time of REBEL against LightGBM, XGBoost and scikit-learn at equal work, in one run.

Problem (issue "engine" / "performance"): make_classification N=100k, d=50, K=10 (n_informative=20,
n_clusters_per_class=2, random_state=0), 100 rounds of depth-2 trees (and stumps), 2 threads.
Run: python -m benchmarks.bench_fit [--n 100000] [--rounds 100]
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import make_classification

from rebel import RebelClassifier, warmup

from ._common import best_of, n_threads, peers, print_table


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=50)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    threads = n_threads()
    X, y = make_classification(
        n_samples=args.n,
        n_features=args.d,
        n_informative=20,
        n_classes=args.k,
        n_clusters_per_class=2,
        random_state=0,
    )
    X = X.astype(np.float64)
    warmup()
    print(f"fit: N={args.n} d={args.d} K={args.k} rounds={args.rounds} threads={threads}")
    rows = []
    for depth in (2, 1):
        rebel_t = best_of(
            lambda d=depth: RebelClassifier(n_estimators=args.rounds, max_depth=d).fit(X, y), args.repeat
        )
        rows.append((f"REBEL depth {depth}", f"{rebel_t:.2f}", "1.00"))
        for name, make in peers(args.rounds, depth, threads).items():
            t = best_of(lambda m=make: m().fit(X, y), args.repeat)
            rows.append((f"{name} depth {depth}", f"{t:.2f}", f"{rebel_t / t:.2f}"))
    print_table(rows, ["model", "fit seconds", "REBEL / this"])


if __name__ == "__main__":
    main()
