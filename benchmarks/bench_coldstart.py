"""Cold start: time to the first rendered app page from a fresh process, with an empty numba cache (kernels
compile) and with the cache warm (kernels load). Uses Streamlit's AppTest to run app.py headless.
Targets: <= 15 s cold, <= 3 s warm. Also checks that a cache directory outside the package works (what a
read-only install uses). Run: python -m benchmarks.bench_coldstart
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

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


def main(argv=None):
    with tempfile.TemporaryDirectory() as cache:
        cold = first_page_seconds(cache)
        warm = first_page_seconds(cache)
        n_files = sum(len(f) for _, _, f in os.walk(cache))
    print("cold start: first Playground page, fresh process (python start, imports, kernels, page script)")
    print(
        f"  empty numba cache (compiles): {cold:6.2f} s   target <= 15 s: {'met' if cold <= 15 else 'missed'}"
    )
    print(
        f"  warm numba cache (loads):     {warm:6.2f} s   target <= 3 s:  {'met' if warm <= 3 else 'missed'}"
    )
    print(f"  cache directory outside the package held {n_files} files (NUMBA_CACHE_DIR works)")


if __name__ == "__main__":
    main()
