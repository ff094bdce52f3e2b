"""Fit time of REBEL against LightGBM, XGBoost and scikit-learn HGB: interleaved, repeated, two clocks.

Tables (make_classification, n_informative = min(20, d), n_clusters_per_class=2, random_state=0; depth-2
trees, 255 bins for every system; see ``_common`` for the method):
- equal rounds: the headline N=100k, d=50, K=10, 100 rounds. A peer grows K trees a round, REBEL one.
- equal work: K=2 (one tree a round for everyone), and K=10 against XGBoost ``multi_output_tree`` (one
  vector-leaf tree a round, the shape of a REBEL round).
- small: N=20k, d=20, K=2, with REBEL's own serial path beside its default (which must never be slower).
Run: python -m benchmarks.bench_fit [--quick] [--repeat 5] [--cases rounds k2 vector small] [--peers LightGBM]
"""

from __future__ import annotations

import argparse
import importlib.util

import numpy as np
from sklearn.datasets import make_classification

from rebel import warmup
from rebel.warmup import compile_fit

from ._common import DEFAULT_REPEAT, compare, peers, rebel, rebel_serial

CASES = ("rounds", "k2", "vector", "small")
HEADLINE = {"n": 100_000, "d": 50, "rounds": 100}
SMALL = {"n": 20_000, "d": 20, "rounds": 100}
QUICK_SCALE = 0.2  # --quick: N and rounds of the big cases times this


def make_data(n: int, d: int, k: int):
    X, y = make_classification(
        n_samples=n,
        n_features=d,
        n_informative=min(20, d),
        n_redundant=0,
        n_classes=k,
        n_clusters_per_class=2,
        random_state=0,
    )
    return np.ascontiguousarray(X, dtype=np.float64), y


def _only(factories: dict, names) -> dict:
    return factories if names is None else {k: v for k, v in factories.items() if k in names}


def _fits(factories: dict, X, y) -> dict:
    return {name: (lambda m=make: m().fit(X, y)) for name, make in factories.items()}


def fit_case(title, n, d, k, rounds, repeat, depth=2, vector_leaf=False, serial=False, only=None):
    """One comparison: REBEL (and its serial path if ``serial``) against the peers on one problem."""
    X, y = make_data(n, d, k)
    Xw, yw = X[:2000], y[:2000]

    def systems(threads):
        out = {"REBEL": rebel(rounds, depth)}
        if serial:
            out["REBEL serial path"] = out["REBEL"]
        out.update(_only(peers(rounds, depth, threads, vector_leaf=vector_leaf), only))
        fits = _fits(out, X, y)
        if serial:
            fits["REBEL serial path"] = rebel_serial(fits["REBEL serial path"])
        return fits

    def warm(threads):
        few = _only(peers(2, depth, threads, vector_leaf=vector_leaf), only)
        return _fits({"REBEL": rebel(2, depth), **few}, Xw, yw)

    # REBEL's compiled round loop for this K and both drivers (a big fit runs it, compiled or cached first:
    # rebel.booster.round_driver), so that no timed fit compiles it
    for parallel in (False, True):
        compile_fit(k, parallel=parallel, loop=True, max_depth=depth)
    full = f"{title}: N={n} d={d} K={k}, {rounds} rounds of depth-{depth} trees"
    return compare(full, systems, repeat, warm=warm)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="N and rounds of the big cases / 5")
    ap.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    ap.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    ap.add_argument("--peers", nargs="*", default=None, help="only these peers (names as in the tables)")
    args = ap.parse_args(argv)
    warmup()
    scale = QUICK_SCALE if args.quick else 1.0
    n, d, rounds = int(HEADLINE["n"] * scale), HEADLINE["d"], max(10, int(HEADLINE["rounds"] * scale))
    out = {}
    if "rounds" in args.cases:
        out["headline"] = fit_case("Equal rounds (headline)", n, d, 10, rounds, args.repeat, only=args.peers)
    if "k2" in args.cases:
        out["k2"] = fit_case(
            "Equal work, K=2 (one tree a round each)", n, d, 2, rounds, args.repeat, only=args.peers
        )
    if "vector" in args.cases and importlib.util.find_spec("xgboost") is None:
        print(
            "\nEqual work, K=10 vector-leaf trees: skipped (its peer, XGBoost, is not installed: make bench)"
        )
    elif "vector" in args.cases:
        out["vector"] = fit_case(
            "Equal work, K=10 vector-leaf trees", n, d, 10, rounds, args.repeat, vector_leaf=True
        )
    if "small" in args.cases:
        s = SMALL  # the acceptance size, the same in --quick
        out["small"] = fit_case(
            "Small problem", s["n"], s["d"], 2, s["rounds"], args.repeat, serial=True, only=args.peers
        )
    return out


if __name__ == "__main__":
    main()
