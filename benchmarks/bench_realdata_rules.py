"""How ``choose_method``'s rule was chosen: its rules on validation splits of the real-data benchmark.

On each stratified 70/30 split (seeds ``--first-seed``.., never the report's 0..S-1) of ``bench_realdata``'s
datasets: the test cost of every column of that benchmark, and each auto candidate's out-of-fold costs on the
training part for 3-fold CV at fold seeds 0, 1, 2. The rules compared: ``lowest`` and ``order`` (see
``rebel.auto``), each on one 3-fold CV (x1) and on the per-point mean over the three fold seeds (x3). Printed per
dataset: the best column's mean test cost and the upper end of its 95 % t-interval over the splits, and each
rule's mean test cost, whether it is within that interval, and what it picked on each split.

Run: nice -n 19 python -m benchmarks.bench_realdata_rules [--first-seed 100] [--splits 3] [--datasets ...]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold, train_test_split

from rebel.auto import _choice, candidates, oof_costs
from rebel.costs import label_indices
from rebel.minrisk import CostWeightedClassifier, MinRiskClassifier

from ._common import load_average, thread_limit
from .bench_realdata import COSTS, DATASETS

FOLD_SEEDS = (0, 1, 2)
RULES = {
    f"{rule} x{len(seeds)}": (rule, seeds) for seeds in ((0,), FOLD_SEEDS) for rule in ("lowest", "order")
}


def one_split(X, y, C, seed: int) -> dict:
    """Test cost of every column, and what every rule picks from the training part's out-of-fold costs."""
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    cands = candidates(C, random_state=0)
    hgb = HistGradientBoostingClassifier(random_state=0)
    cols = {n: e for n, (_m, e) in cands.items()}
    cols["two-step (HGB)"] = MinRiskClassifier(hgb, C, "temperature")
    cols["weighted (HGB)"] = CostWeightedClassifier(hgb, C)
    test = {n: float(C[yte, e.fit(Xtr, ytr).predict(Xte)].mean()) for n, e in cols.items()}
    yi = label_indices(ytr, np.unique(ytr))
    oof = {}
    for rs in FOLD_SEEDS:
        folds = list(StratifiedKFold(3, shuffle=True, random_state=rs).split(np.zeros(len(ytr)), yi))
        for n, (_m, e) in cands.items():
            oof[rs, n] = oof_costs(e, Xtr, ytr, yi, C, folds)
    picks = {}
    for name, (rule, seeds) in RULES.items():
        costs = {n: np.mean([oof[rs, n] for rs in seeds], axis=0) for n in cands}
        picks[name] = _choice(cands, costs, 3, rule).winner
    return {"test": test, "picks": picks}


def report(ds: str, runs: list) -> None:
    cols = list(runs[0]["test"])
    mean_hi = {}
    for c in cols:
        v = np.array([r["test"][c] for r in runs])
        half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
        mean_hi[c] = (v.mean(), v.mean() + half)
    best = min(cols, key=lambda c: mean_hi[c][0])
    print(
        f"{ds} ({len(runs)} splits): best {best} {mean_hi[best][0]:.4f}, interval up to {mean_hi[best][1]:.4f}"
    )
    for name in RULES:
        m = np.mean([r["test"][r["picks"][name]] for r in runs])
        verdict = "within" if m <= mean_hi[best][1] else "OUTSIDE"
        print(f"  {name}: {m:.4f} {verdict}; picked {[r['picks'][name] for r in runs]}", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS))
    args = ap.parse_args(argv)
    print(f"rules on validation splits (seeds {args.first_seed}..), one thread; {load_average()}")
    with thread_limit(1):
        for ds in args.datasets:
            X, y = DATASETS[ds]()
            report(
                ds,
                [
                    one_split(X, y, COSTS[ds], s)
                    for s in range(args.first_seed, args.first_seed + args.splits)
                ],
            )


if __name__ == "__main__":
    main()
