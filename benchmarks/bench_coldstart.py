"""Cold start: time to the first rendered app page from a fresh process, with an empty numba cache (kernels
compile) and with the cache warm (kernels load). Uses Streamlit's AppTest to run app.py headless.
Targets (issue 14): <= 15 s cold, <= 2 s warm. Cold runs once per fresh cache (``--cold`` times), warm
``--warm`` times (min and median). Also checks that a cache directory outside the package works (what a
read-only install uses). Run: python -m benchmarks.bench_coldstart [--cold 1] [--warm 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from ._common import load_average, verdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHILD = """
import time
t0 = time.perf_counter()
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=300).run()
assert not at.exception, at.exception
print(f"{time.perf_counter() - t0:.3f}")
"""


def first_page_seconds(cache_dir: str) -> float:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"app did not start: {res.stderr[-2000:]}")
    return wall


COLD_TARGET_S = 15.0
WARM_TARGET_S = 2.0


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cold", type=int, default=1, help="cold starts (each with a fresh, empty cache)")
    ap.add_argument("--warm", type=int, default=3, help="warm starts")
    args = ap.parse_args(argv)
    cold, warm = [], []
    for i in range(max(args.cold, 1)):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(first_page_seconds(cache))
            if i == 0:
                warm = [first_page_seconds(cache) for _ in range(args.warm)]
                n_files = sum(len(f) for _, _, f in os.walk(cache))
    print(
        f"cold start: first Playground page, fresh process (python start, imports, kernels, page script), {load_average()}"
    )
    for label, times, target in (
        ("empty numba cache (compiles)", cold, COLD_TARGET_S),
        ("warm numba cache (loads)    ", warm, WARM_TARGET_S),
    ):
        print(
            f"  {label}: min {min(times):6.2f} s  median {statistics.median(times):6.2f} s  ({len(times)} runs)"
            f"  target <= {target:.0f} s: {verdict(statistics.median(times), target)}"
        )
    print(f"  cache directory outside the package held {n_files} files (NUMBA_CACHE_DIR works)")
    return {"cold": statistics.median(cold), "warm": statistics.median(warm)}


if __name__ == "__main__":
    main()
