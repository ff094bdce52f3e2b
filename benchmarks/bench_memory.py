"""Peak memory of a fit on N=1e6, d=50, K=10 (issue "performance" target: under 2 GB peak RSS).

Runs the fit in a child process under /usr/bin/time -v when available (else reads the child's ru_maxrss),
with LightGBM on the same data in another child for comparison.
Run: python -m benchmarks.bench_memory [--n 1000000]
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import subprocess
import sys

TARGET_GB = 2.0

CHILD = """
import numpy as np, sys
n = int(sys.argv[1]); which = sys.argv[2]
# Lean data: X float64 (n x 50) and labels from a random linear map, so the data's own peak stays near |X|.
rng = np.random.default_rng(0)
X = rng.standard_normal((n, 50))
y = np.argmax(X[:, :20] @ rng.standard_normal((20, 10)), axis=1)
if which == "rebel":
    from rebel import RebelClassifier
    RebelClassifier(n_estimators=20, max_depth=2).fit(X, y)
elif which == "lightgbm":
    import lightgbm as lgb
    lgb.LGBMClassifier(n_estimators=20, num_leaves=4, max_depth=2, verbose=-1).fit(X, y)
else:
    pass  # the data alone
"""


def peak_rss_gb(which: str, n: int) -> float:
    cmd = [sys.executable, "-c", CHILD, str(n), which]
    time_bin = shutil.which("time") or ("/usr/bin/time" if shutil.os.path.exists("/usr/bin/time") else None)
    if time_bin:
        res = subprocess.run([time_bin, "-v", *cmd], capture_output=True, text=True, check=True)
        kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", res.stderr).group(1))
    else:
        subprocess.run(cmd, check=True)
        kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return kb / 1024**2


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    data = peak_rss_gb("data", args.n)
    rebel = peak_rss_gb("rebel", args.n)
    rows = [("data only (X float64 + y)", data), ("REBEL fit", rebel)]
    try:
        rows.append(("LightGBM fit", peak_rss_gb("lightgbm", args.n)))
    except subprocess.CalledProcessError:
        pass
    print(f"memory: peak RSS, N={args.n}, d=50, K=10, depth 2")
    for name, gb in rows:
        print(f"  {name:28s} {gb:6.2f} GB")
    verdict = "met" if rebel < TARGET_GB else f"missed by {rebel - TARGET_GB:.2f} GB"
    print(f"target REBEL fit < {TARGET_GB} GB: {verdict}")
    return {"rebel_gb": rebel}


if __name__ == "__main__":
    main()
