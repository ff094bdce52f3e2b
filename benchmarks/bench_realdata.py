"""Which cost-sensitive method is cheapest on real multi-class data, and does ``method="auto"`` find it?

Datasets (all shipped inside installed packages, no download): scikit-learn's iris, wine and digits; the Palmer
penguins (``palmerpenguins``; rows with a missing value dropped, island and sex one-hot); statsmodels' ANES 1996
(party identification, 7 ordered classes, from the survey's numeric answers) and its travel mode choice (4
modes, each trip's 4 alternatives' attributes side by side plus income and party size). Each has the cost
matrix stated in ``COSTS`` (the reason in ``WHY``).

Protocol: ``--splits`` stratified 70/30 splits per dataset (seeds ``--first-seed``.., 0..S-1 by default; auto's
rule was chosen on seeds 100.. by ``bench_realdata_rules``), every system on one thread (numba, and the OpenMP
pool of scikit-learn's HistGradientBoosting through threadpoolctl: with its default threads on a machine loaded
beyond its 2 cores one HGB two-step fit on mode choice took 10.6 s of CPU against 1.0 s on one thread, the
likely reason an earlier run at load ~20 did not finish mode choice's first split in 20 minutes). On each
training part every candidate of ``rebel.auto.candidates`` is fitted (REBEL at the grid ``REBEL_GRID``, the
calibrated two-step and the cost-weighted method on LightGBM), plus the calibrated two-step and cost-weighted
training on scikit-learn's HistGradientBoosting; ``auto`` is ``choose_method`` (its default rule, "order") on
the training part (``--cv`` folds) and its test cost is the test cost of the candidate it chose (the same
estimator refitted on the same training points is the same model: every candidate is deterministic). "REBEL
(CV)" is the REBEL grid point with the lowest cross-validated cost in the same run. Reported: mean test cost
over the splits with a 95 % t-interval (the splits share points, so the intervals are optimistic), and whether
auto's mean lies within the best column's interval.

Run: nice -n 19 python -m benchmarks.bench_realdata [--splits 5] [--cv 3] [--first-seed 0] [--datasets iris wine]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

from rebel.auto import REBEL_GRID, booster_name, candidates, choose_method
from rebel.minrisk import CostWeightedClassifier, MinRiskClassifier

from ._common import load_average, thread_limit


def _iris():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True)


def _wine():
    from sklearn.datasets import load_wine

    return load_wine(return_X_y=True)


def _digits():
    from sklearn.datasets import load_digits

    return load_digits(return_X_y=True)


def _penguins():
    from palmerpenguins import load_penguins

    d = load_penguins().dropna()
    X = pd.get_dummies(d.drop(columns=["species", "year"]), columns=["island", "sex"], dtype=float)
    return X.to_numpy(dtype=float), pd.Categorical(d["species"]).codes.astype(int)


def _anes96():
    import statsmodels.api as sm

    d = sm.datasets.anes96.load_pandas().data
    cols = ["logpopul", "TVnews", "selfLR", "ClinLR", "DoleLR", "age", "educ", "income"]
    return d[cols].to_numpy(dtype=float), d["PID"].to_numpy().astype(int)


def _modechoice():
    import statsmodels.api as sm

    d = sm.datasets.modechoice.load_pandas().data
    wide = d.pivot(index="individual", columns="mode", values=["ttme", "invc", "invt", "gc"])
    wide.columns = [f"{a}_{int(m)}" for a, m in wide.columns]
    first = d.groupby("individual")[["hinc", "psize"]].first()
    chosen = d[d["choice"] == 1].set_index("individual")["mode"].astype(int) - 1
    X = wide.join(first)
    return X.to_numpy(dtype=float), chosen.loc[X.index].to_numpy()


def _off(K, value=1.0):
    return np.full((K, K), value) - value * np.eye(K)


def _missing_costs(K, costly, factor):
    """0-1 costs, except that missing a class in ``costly`` (truth costly, predicted another) costs ``factor``."""
    C = _off(K)
    C[list(costly)] *= factor
    return C


DATASETS = {
    "iris": _iris,
    "wine": _wine,
    "digits": _digits,
    "penguins": _penguins,
    "anes96": _anes96,
    "modechoice": _modechoice,
}
COSTS = {
    "iris": _missing_costs(3, [2], 5.0),
    "wine": np.array([[0.0, 1.0, 10.0], [1.0, 0.0, 1.0], [3.0, 1.0, 0.0]]),
    "digits": _missing_costs(10, [3, 8], 5.0),
    "penguins": _missing_costs(3, [1], 5.0),  # Chinstrap, the rarest species
    "anes96": np.abs(np.subtract.outer(np.arange(7), np.arange(7))).astype(float),
    "modechoice": np.array(
        [[0.0, 4.0, 4.0, 4.0], [1.0, 0.0, 1.0, 2.0], [1.0, 1.0, 0.0, 2.0], [2.0, 2.0, 2.0, 0.0]]
    ),
}
WHY = {
    "iris": "missing virginica (class 2) costs 5, every other mistake 1",
    "wine": "cultivar 0 taken for 2 costs 10, 2 for 0 costs 3, other mistakes 1",
    "digits": "missing a 3 or an 8 costs 5, every other mistake 1",
    "penguins": "missing a Chinstrap (the rarest species) costs 5, every other mistake 1",
    "anes96": "ordinal: |true - predicted| on the 7-point party scale",
    "modechoice": "missing a flyer (air) costs 4; taking a driver (car) for another mode 2; others 1 or 2",
}


def one_split(X, y, C, seed: int, cv: int) -> dict:
    """Test cost of every column on one stratified 70/30 split, and auto's choice."""
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    cands = candidates(C, random_state=0)
    hgb = HistGradientBoostingClassifier(random_state=0)
    extra = {
        "two-step (HGB)": MinRiskClassifier(hgb, C, "temperature"),
        "weighted (HGB)": CostWeightedClassifier(hgb, C),
    }
    out = {}
    for name, est in [*((n, e) for n, (_m, e) in cands.items()), *extra.items()]:
        pred = est.fit(Xtr, ytr).predict(Xte)
        out[name] = float(C[yte, pred].mean())
    choice = choose_method(Xtr, ytr, C, cv=cv, random_state=0, cands=cands)
    rebel_rows = choice.table[choice.table["method"] == "rebel"]
    out["REBEL (CV)"] = out[rebel_rows.loc[rebel_rows["cost"].idxmin(), "candidate"]]
    out["auto"] = out[choice.winner]
    out["auto picked"] = choice.winner
    return out


def columns() -> dict:
    """Report column -> candidate name (the LightGBM candidates' names depend on what is installed)."""
    names = list(candidates(np.ones((2, 2)) - np.eye(2)))
    b = booster_name(next(iter(candidates(np.ones((2, 2)) - np.eye(2)).values()))[1].estimator)
    cols = {f"REBEL {r}x{d}": f"rebel ({r} rounds, depth {d})" for r, d in REBEL_GRID}
    cols["REBEL (CV)"] = "REBEL (CV)"
    cols[f"two-step ({b})"] = names[0]
    cols["two-step (HGB)"] = "two-step (HGB)"
    cols[f"weighted ({b})"] = names[1]
    cols["weighted (HGB)"] = "weighted (HGB)"
    cols["auto"] = "auto"
    return cols


def summarise(rows: list, cols: dict) -> pd.DataFrame:
    """One line per dataset: mean [lo, hi] of every column, the best column, and whether auto is within it."""
    lines = []
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        runs = [r for r in rows if r["dataset"] == ds]
        line = {"dataset": ds, "splits": len(runs)}
        intervals = {}
        for col, key in cols.items():
            v = np.array([r[key] for r in runs])
            half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else np.nan
            intervals[col] = (v.mean(), v.mean() - half, v.mean() + half)
            line[col] = f"{v.mean():.4f} [{v.mean() - half:.4f}, {v.mean() + half:.4f}]"
        best = min((c for c in cols if c not in ("auto", "REBEL (CV)")), key=lambda c: intervals[c][0])
        line["best"] = best
        line["auto within best's interval"] = bool(intervals["auto"][0] <= intervals[best][2])
        picks = pd.Series([r["auto picked"] for r in runs]).value_counts()
        line["auto picked"] = "; ".join(f"{n} x{c}" for n, c in picks.items())
        lines.append(line)
    return pd.DataFrame(lines)


def rows_from_log(text: str, cols: dict) -> list:
    """The per-split rows of this script's printout (``--summarise LOG``: the table of a run cut short)."""
    rows, dataset = [], None
    for line in text.splitlines():
        if line and not line.startswith(" ") and ": " in line and " points, " in line:
            dataset = line.split(":")[0]
        elif line.startswith("  split ") and dataset is not None:
            head, picked = line.split("; auto picked ")
            seed, values = head[len("  split ") :].split(": ", 1)
            row = {"dataset": dataset, "seed": int(seed), "auto picked": picked.strip()}
            for part in values.split(", "):
                col, value = part.rsplit(" ", 1)
                row[cols[col]] = float(value)
            rows.append(row)
    return rows


def run_dataset(ds: str, seeds, cv: int, cols: dict) -> list:
    """Every split of one dataset, each printed as it ends (``--summarise`` reads these lines back)."""
    X, y = DATASETS[ds]()
    C = COSTS[ds]
    print(
        f"\n{ds}: {X.shape[0]} points, {X.shape[1]} features, {len(np.unique(y))} classes; costs: {WHY[ds]}"
    )
    rows = []
    for seed in seeds:
        r = one_split(X, y, C, seed, cv)
        rows.append({"dataset": ds, "seed": seed, **r})
        shown = ", ".join(f"{c} {r[k]:.4f}" for c, k in cols.items())
        print(f"  split {seed}: {shown}; auto picked {r['auto picked']}", flush=True)
    return rows


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="seeds first..first+splits-1 (develop on others than the report's)",
    )
    ap.add_argument("--cv", type=int, default=3)
    ap.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS))
    ap.add_argument(
        "--summarise", nargs="+", metavar="LOG", help="only summarise the split lines of printouts"
    )
    args = ap.parse_args(argv)
    cols = columns()
    if args.summarise:
        rows = [
            r for path in args.summarise for r in rows_from_log(Path(path).read_text(encoding="utf-8"), cols)
        ]
        table = summarise(rows, cols)
        with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 60):
            print(table.T.to_string(header=False))
        return {"realdata": table}
    seeds = range(args.first_seed, args.first_seed + args.splits)
    print(
        f"real-data benchmark: {args.splits} splits (70/30, seeds {seeds[0]}..{seeds[-1]}), auto with {args.cv}-fold"
        f" CV, every system on one thread; {load_average()}"
    )
    rows, t0 = [], time.process_time()
    with thread_limit(1):
        for ds in args.datasets:
            rows += run_dataset(ds, seeds, args.cv, cols)
    table = summarise(rows, cols)
    print(
        f"\nmean test cost [95% t-interval over splits] ({time.process_time() - t0:.0f} s CPU, {load_average()}):"
    )
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 60):
        print(table.T.to_string(header=False))
    return {"realdata": table}


if __name__ == "__main__":
    main()
