"""Fit time against N, d and K for REBEL and its peers, printed as tables and saved as a plotly chart.

Each sweep varies one of N (1e3 .. 1e6), d (2 .. 500) and K (2 .. 50) around N=20000, d=20, K=5, with 50
rounds of depth-2 trees. Cost should grow linearly in N * d * K. Writes benchmarks/results/scaling.html (and
scaling.csv). Run: python -m benchmarks.bench_scaling [--quick]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd
import plotly.express as px

from rebel import RebelClassifier, warmup

from ._common import best_of, n_threads, peers

RESULTS = os.path.join(os.path.dirname(__file__), "results")
BASE = {"N": 20_000, "d": 20, "K": 5}
SWEEPS = {
    "N": [1_000, 10_000, 100_000, 1_000_000],
    "d": [2, 20, 100, 500],
    "K": [2, 5, 20, 50],
}
QUICK = {"N": [1_000, 10_000, 100_000], "d": [2, 20, 100], "K": [2, 5, 20]}


def _data(N, d, K):
    """Gaussian features, labels from a random linear map of up to 10 of them (any d >= 1, K >= 2)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, d))
    y = np.argmax(
        X[:, : min(d, 10)] @ rng.standard_normal((min(d, 10), K)) + 0.5 * rng.standard_normal((N, K)), axis=1
    )
    return X, y


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller sweeps (skips N=1e6, d=500, K=50)")
    ap.add_argument("--rounds", type=int, default=50)
    args = ap.parse_args(argv)
    warmup()
    threads = n_threads()
    sweeps = QUICK if args.quick else SWEEPS
    records = []
    for axis, values in sweeps.items():
        for v in values:
            shape = {**BASE, axis: v}
            X, y = _data(shape["N"], shape["d"], shape["K"])
            fitters = {"REBEL": lambda: RebelClassifier(n_estimators=args.rounds, max_depth=2)}
            fitters.update(peers(args.rounds, 2, threads))
            for name, make in fitters.items():
                if name == "sklearn HGB" and shape["N"] * shape["d"] * shape["K"] > 5e7:
                    continue  # minutes per fit on 2 cores; the other peers cover this size
                t = best_of(lambda m=make, X=X, y=y: m().fit(X, y), 1)
                records.append(
                    {
                        "axis": axis,
                        "value": v,
                        **shape,
                        "model": name,
                        "seconds": t,
                        "us_per_NdK": 1e6 * t / (shape["N"] * shape["d"] * shape["K"] * args.rounds),
                    }
                )
                print(f"{axis}={v:>8}  {name:14s} {t:8.3f} s", flush=True)
    df = pd.DataFrame(records)
    os.makedirs(RESULTS, exist_ok=True)
    df.to_csv(os.path.join(RESULTS, "scaling.csv"), index=False)
    for axis in sweeps:
        table = df[df.axis == axis].pivot_table(index="value", columns="model", values="seconds")
        table["REBEL / LightGBM"] = table["REBEL"] / table.get("LightGBM", np.nan)
        print(f"\nfit seconds vs {axis} (others at {BASE}, {args.rounds} depth-2 rounds, threads={threads})")
        print(table.round(3).to_string())
    fig = px.line(
        df,
        x="value",
        y="seconds",
        color="model",
        facet_col="axis",
        log_x=True,
        log_y=True,
        markers=True,
        title=f"Fit time vs N, d, K ({args.rounds} rounds of depth-2 trees)",
    )
    fig.update_xaxes(matches=None)
    fig.write_html(os.path.join(RESULTS, "scaling.html"), include_plotlyjs="cdn")
    print(f"\nchart: {os.path.join(RESULTS, 'scaling.html')}")


if __name__ == "__main__":
    main()
