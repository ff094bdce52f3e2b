"""Run every benchmark in one go and print issue 14's acceptance ratios in one summary block:
python -m benchmarks [--quick] [--repeat 5] [--only fit predict ...].

Each comparison interleaves the systems, repeats them (>= 5) and reports 1-thread CPU time and wall time at
REBEL_BENCH_THREADS threads (default 2) for every system (see ``benchmarks/_common.py``). ``--quick`` shrinks
the big problems (the small acceptance problem keeps its size) and skips the memory benchmark.
Individual scripts: python -m benchmarks.bench_fit (bench_predict, bench_scaling, bench_playground,
bench_coldstart, bench_memory, bench_kernels, bench_variants, bench_browser, bench_classroom,
bench_session_memory).
``python -m benchmarks --check [...]``: the headline figures against the last recorded printouts
(``benchmarks/check.py``; run it before a change to the engine or the Playground lands).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

from ._common import CPU, DEFAULT_REPEAT, WALL, load_average, print_table

STEPS = ("fit", "variants", "predict", "scaling", "kernels", "playground", "browser", "coldstart", "memory")


def _run_steps(args) -> dict:
    rep = ["--repeat", str(args.repeat)]
    quick = ["--quick"] if args.quick else []
    peers = ["--peers", *args.peers] if args.peers else []
    argv = {"fit": rep + quick + peers, "predict": rep + quick, "scaling": rep + quick, "kernels": quick}
    results = {}
    for name in args.only:
        if name == "memory" and args.quick:
            continue
        print(f"\n===== {name} ({load_average()}) =====", flush=True)
        t0 = time.perf_counter()
        module = importlib.import_module(f"benchmarks.bench_{name}")  # one step's imports at a time
        results.update(module.main(argv.get(name, [])) or {})
        print(f"({name}: {time.perf_counter() - t0:.0f} s)", flush=True)
    return results


def _ratio_row(label, comp, name, clock, target):
    """One acceptance row: the median and min ratio REBEL / ``name`` on ``clock``."""
    if comp is None or clock not in comp.results:
        return None
    med = comp.ratio(name, clock, "median")
    low = comp.ratio(name, clock, "min")
    ok = "met" if med <= target else "missed"
    return (label, f"{med:.2f}", f"{low:.2f}", f"<= {target:g}", ok, comp.loads[clock])


def summary(results: dict) -> None:
    """The acceptance block of issue 14 from whatever ran (rows of steps that did not run are left out)."""
    head, k2, small = results.get("headline"), results.get("k2"), results.get("small")
    th = (head or k2 or small).threads if (head or k2 or small) else 2
    rows = [
        _ratio_row("K=2 equal work: REBEL / LightGBM, 1-thread CPU", k2, "LightGBM", CPU, 0.7),
        _ratio_row("K=10 headline: REBEL / LightGBM, 1-thread CPU", head, "LightGBM", CPU, 0.25),
        _ratio_row(
            f"N=20k d=20 K=2: REBEL / its serial path, {th}-thread wall",
            small,
            "REBEL serial path",
            WALL,
            1.0,
        ),
        _ratio_row(f"N=20k d=20 K=2: REBEL / LightGBM, {th}-thread wall", small, "LightGBM", WALL, 0.8),
    ]
    rows = [r for r in rows if r is not None]
    for key, target, label in (("cold", 15.0, "cold first page, s"), ("warm", 2.0, "warm first page, s")):
        if key in results:
            ok = "met" if results[key] <= target else "missed"
            rows.append((label, f"{results[key]:.2f}", "", f"<= {target:g}", ok, ""))
    print("\n===== issue 14 acceptance (ratios below 1: REBEL faster) =====")
    if rows:
        print_table(rows, ["criterion", "median", "min", "target", "verdict", "when"])
    print(f"now: {load_average()}; ratios on a loaded machine are noisy (the 1-thread CPU ones least).")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--check" in argv:
        from .check import main as check

        return check([a for a in argv if a != "--check"])
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller problems and sweeps, no memory benchmark")
    ap.add_argument("--repeat", type=int, default=DEFAULT_REPEAT, help="interleaved repeats (>= 5)")
    ap.add_argument(
        "--cpu-only", action="store_true", help="1-thread CPU tables only (REBEL_BENCH_CLOCKS=cpu)"
    )
    ap.add_argument("--peers", nargs="*", default=None, help="fit tables: only these peers (e.g. LightGBM)")
    ap.add_argument("--only", nargs="*", default=list(STEPS), choices=STEPS)
    args = ap.parse_args(argv)
    if args.cpu_only:
        os.environ["REBEL_BENCH_CLOCKS"] = CPU
    t0 = time.perf_counter()
    results = _run_steps(args)
    summary(results)
    print(f"(all: {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    sys.exit(main())
