"""Fit time against N, d and K for REBEL and its peers (interleaved, repeated), as tables and a plotly chart.

Each sweep varies one of N, d and K around N=20000, d=20, K=5, with 50 rounds of depth-2 trees and 255 bins.
At every point the systems run interleaved ``--repeat`` times (>= 5) on both clocks of ``_common`` (1-thread
CPU, and wall at REBEL_BENCH_THREADS); the tables give medians and REBEL / LightGBM. Cost should grow
linearly in N * d * K. Writes benchmarks/results/scaling.html and scaling.csv (every sample's min and median).
Run: python -m benchmarks.bench_scaling [--quick | --large] [--repeat 5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os

import numpy as np
import pandas as pd

from rebel import warmup
from rebel.textout import csv_text

from ._common import CPU, DEFAULT_REPEAT, compare, peers, rebel

RESULTS = os.path.join(os.path.dirname(__file__), "results")
BASE = {"N": 20_000, "d": 20, "K": 5}
SWEEPS = {"N": [1_000, 10_000, 100_000], "d": [2, 20, 100], "K": [2, 5, 20]}
QUICK = {"N": [1_000, 20_000], "d": [2, 20], "K": [2, 5]}
LARGE = {"N": [1_000, 10_000, 100_000, 1_000_000], "d": [2, 20, 100, 500], "K": [2, 5, 20, 50]}
HGB_MAX_WORK = 5e7  # N * d * K above which HGB is skipped (minutes a fit on 2 cores; the others cover it)


def _data(N, d, K):
    """Gaussian features, labels from a random linear map of up to 10 of them (any d >= 1, K >= 2)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, d))
    y = np.argmax(
        X[:, : min(d, 10)] @ rng.standard_normal((min(d, 10), K)) + 0.5 * rng.standard_normal((N, K)), axis=1
    )
    return X, y


def _point(shape, rounds, repeat):
    X, y = _data(shape["N"], shape["d"], shape["K"])

    def factories(threads, n_rounds):
        out = {"REBEL": rebel(n_rounds, 2), **peers(n_rounds, 2, threads)}
        if shape["N"] * shape["d"] * shape["K"] > HGB_MAX_WORK:
            out.pop("sklearn HGB")
        return out

    def systems(threads):
        return {name: (lambda m=make: m().fit(X, y)) for name, make in factories(threads, rounds).items()}

    def warm(threads):
        return {
            name: (lambda m=make: m().fit(X[:500], y[:500])) for name, make in factories(threads, 2).items()
        }

    with contextlib.redirect_stdout(io.StringIO()):  # the sweep prints its own compact tables
        return compare(f"scaling {shape}", systems, repeat, warm=warm)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="two points per axis")
    size.add_argument("--large", action="store_true", help="adds N=1e6, d=500, K=50 (long)")
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    args = ap.parse_args(argv)
    warmup()
    sweeps = QUICK if args.quick else LARGE if args.large else SWEEPS
    records = []
    threads = None
    for axis, values in sweeps.items():
        for v in values:
            shape = {**BASE, axis: v}
            comp = _point(shape, args.rounds, args.repeat)
            threads = comp.threads
            for clock, res in comp.results.items():
                for name, s in res.items():
                    records.append(
                        {
                            "axis": axis,
                            "value": v,
                            **shape,
                            "clock": clock,
                            "load": comp.loads[clock],
                            "model": name,
                            "min": s.min(clock),
                            "median": s.median(clock),
                        }
                    )
            first = next(iter(comp.results))
            med = {name: s.median(first) for name, s in comp.results[first].items()}
            print(f"{axis}={v:>8}  " + "  ".join(f"{n} {t:.3f}" for n, t in med.items()), flush=True)
    df = pd.DataFrame(records)
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "scaling.csv"), "w", encoding="utf-8") as fh:
        fh.write(csv_text(df))
    ratios = {}
    for clock in df.clock.unique():
        label = "1-thread CPU" if clock == CPU else f"{threads}-thread wall"
        for axis in sweeps:
            sub = df[(df.axis == axis) & (df.clock == clock)]
            table = sub.pivot_table(index="value", columns="model", values="median")
            if "LightGBM" in table:
                table["REBEL / LightGBM"] = table["REBEL"] / table["LightGBM"]
                ratios[(clock, axis)] = table["REBEL / LightGBM"]
            print(f"\nmedian fit seconds vs {axis}, {label} (others at {BASE}, {args.rounds} depth-2 rounds)")
            print(table.round(3).to_string())
    _chart(df[df.clock == df.clock.iloc[0]], args.rounds)
    return {"scaling": ratios}


def _chart(df, rounds):
    import plotly.express as px

    fig = px.line(
        df,
        x="value",
        y="median",
        color="model",
        facet_col="axis",
        log_x=True,
        log_y=True,
        markers=True,
        title=f"Fit time vs N, d, K: median seconds, {df.clock.iloc[0]} clock ({rounds} depth-2 rounds)",
    )
    fig.update_xaxes(matches=None)
    fig.write_html(os.path.join(RESULTS, "scaling.html"), include_plotlyjs="cdn")
    print(f"\nchart: {os.path.join(RESULTS, 'scaling.html')}")


if __name__ == "__main__":
    main()
