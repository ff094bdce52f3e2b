"""Run every benchmark in one go: python -m benchmarks [--quick]. Each prints its peers' numbers from the same
run and its target. Individual scripts: python -m benchmarks.bench_fit (bench_predict, bench_scaling,
bench_playground, bench_coldstart, bench_memory)."""

from __future__ import annotations

import argparse
import time

from . import bench_coldstart, bench_fit, bench_memory, bench_playground, bench_predict, bench_scaling


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller scaling sweep")
    args = ap.parse_args()
    steps = [
        ("fit vs peers", lambda: bench_fit.main([])),
        ("prediction", lambda: bench_predict.main([])),
        ("playground latency", lambda: bench_playground.main([])),
        ("cold start", lambda: bench_coldstart.main([])),
        ("memory", lambda: bench_memory.main([])),
        ("scaling", lambda: bench_scaling.main(["--quick"] if args.quick else [])),
    ]
    for name, run in steps:
        print(f"\n===== {name} =====", flush=True)
        t0 = time.perf_counter()
        run()
        print(f"({name}: {time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
