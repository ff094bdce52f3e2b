"""Prediction throughput at equal numbers of trees: raw scores on 1e6 rows, interleaved and repeated.

Models are trained on N=20k, d=50, K=10 (make_classification) with depth-2 trees, 200 trees each: REBEL 200
rounds (one tree a round), LightGBM / XGBoost / HGB 20 rounds (K=10 trees a round), XGBoost
``multi_output_tree`` 200 rounds (one vector-leaf tree a round). Every system returns raw scores (REBEL
``decision_function``, LightGBM ``raw_score=True``, XGBoost ``output_margin=True``, HGB ``decision_function``):
no softmax on either side. Issue 4 target: REBEL <= 0.3 s on 1e6 rows x 200 rounds (wall clock table).
Run: python -m benchmarks.bench_predict [--rows 1000000] [--trees 200] [--repeat 5] [--quick]
"""

from __future__ import annotations

import argparse

import numpy as np

from rebel import warmup

from ._common import DEFAULT_REPEAT, WALL, compare, peers, rebel, verdict
from .bench_fit import make_data

TARGET_S = 0.3
K = 10


def raw_scorer(name: str, model):
    """The raw-score function X -> (N, K) of a fitted model (no softmax)."""
    if name.startswith("LightGBM"):
        return lambda X: model.predict(X, raw_score=True)
    if name.startswith("XGBoost"):
        return lambda X: model.predict(X, output_margin=True)
    return model.decision_function


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--trees", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    ap.add_argument("--quick", action="store_true", help="200k rows")
    args = ap.parse_args(argv)
    rows = 200_000 if args.quick else args.rows
    warmup()
    X, y = make_data(20_000, 50, K)
    X_big = np.random.default_rng(0).normal(size=(rows, 50))
    rounds = args.trees // K
    fitted = {"REBEL": rebel(args.trees, 2)().fit(X, y)}
    for name, make in peers(rounds, 2, 1).items():
        fitted[f"{name} ({rounds} rounds x {K})"] = make().fit(X, y)
    for name, make in peers(args.trees, 2, 1, vector_leaf=True).items():
        fitted[name] = make().fit(X, y)

    def systems(threads):
        out = {}
        for name, model in fitted.items():
            if hasattr(model, "set_params") and "n_jobs" in model.get_params():
                model.set_params(n_jobs=threads)
            score = raw_scorer(name, model)
            out[name] = lambda f=score: f(X_big)
        return out

    def warm(threads):
        scorers = {name: raw_scorer(name, m) for name, m in fitted.items()}
        return {name: (lambda f=f: f(X_big[:1000])) for name, f in scorers.items()}

    title = f"Predict raw scores: {rows} rows, {args.trees} depth-2 trees per model, d=50, K={K}"
    comp = compare(title, systems, args.repeat, warm=warm)
    if WALL in comp.results and rows == 1_000_000 and args.trees == 200:
        t = comp.results[WALL]["REBEL"].median(WALL)
        print(f"target REBEL <= {TARGET_S} s at {comp.threads} threads (median): {verdict(t, TARGET_S)}")
    return {"predict": comp}


if __name__ == "__main__":
    main()
