"""Does l2_regularization / min_samples_leaf lower held-out cost? A small tuned study (docs/REPRODUCTION.md).

SELECTION RULE (written before any number was computed): one REBEL variant, logistic loss + vector leaves +
learning rate 0.3, depth 3, 100 rounds (the variant the project's comparisons use), on each dataset separately.
Candidates: l2_regularization in {0, 1, 10} x min_samples_leaf in {1, 20}; (0, 1) is the unregularised baseline.
Tuning: the tuning seed's splits (``TUNE_SEED``: 2 random half / half splits x 2 random cost matrices), the test
half serving as validation; the candidate with the lowest mean validation cost wins, ties to the smaller l2,
then the smaller min_samples_leaf. Report: the winner and the baseline fitted once on fresh splits
(``REPORT_SEED``: 4 splits x 2 cost matrices), mean test cost of each, win rate of the winner over the baseline
and the mean cost difference, with 95 % intervals from a bootstrap over the splits
(``rebel.experiments.stats.compare_costs``; the splits share points, so the intervals are optimistic).
Costs: ``calibrated.cost_matrices`` (random, normalised so guessing by the priors costs 1). Beside them, as the
outside reference on the same held-out trials (not tuned, not part of the rule): LightGBM's two-step (depth 3,
100 rounds, its defaults otherwise; softmax posterior, minimum-risk rule).

Run: python -m benchmarks.study_regularisation [--datasets digits wine]
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import pandas as pd

from rebel.baselines import HAS_LIGHTGBM, make_estimator
from rebel.costs import min_risk_class
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.calibrated import cost_matrices, real_split
from rebel.experiments.honest import REPORT_SEED, TUNE_SEED

from ._common import load_average

VARIANT = {"loss": "logistic", "leaves": "vector", "learning_rate": 0.3, "max_depth": 3, "n_estimators": 100}
GRID = list(itertools.product((0.0, 1.0, 10.0), (1, 20)))  # (l2_regularization, min_samples_leaf), rule order
BASELINE = (0.0, 1)


def trials(name: str, seed: int, n_splits: int, n_costs: int, candidates, lightgbm=False) -> pd.DataFrame:
    """Test cost of every candidate (and with ``lightgbm`` of LightGBM's two-step, l2 = NaN) on every (split,
    cost matrix) of ``seed``: one row per trial."""
    rows = []
    for i in range(n_splits):
        split = real_split(name, seed, i)
        K = len(split.classes)
        rng = np.random.default_rng([seed, 53, i])
        posterior = None
        if lightgbm:
            lgb = make_estimator("lightgbm", VARIANT["n_estimators"], VARIANT["max_depth"], random_state=0)
            posterior = lgb.fit(split.X_train, split.y_train).predict_proba(split.X_test)
        for c, C in enumerate(cost_matrices(K, n_costs, rng, y=split.y_train)):
            if posterior is not None:
                pred = min_risk_class(posterior, C)
                rows.append(
                    {"dataset": i, "cost_id": c, "l2": np.nan, "msl": 0, "cost": C[split.y_test, pred].mean()}
                )
            for l2, msl in candidates:
                model = RebelClassifier(C, **VARIANT, l2_regularization=l2, min_samples_leaf=msl)
                pred = model.fit(split.X_train, split.y_train).predict(split.X_test)
                rows.append(
                    {"dataset": i, "cost_id": c, "l2": l2, "msl": msl, "cost": C[split.y_test, pred].mean()}
                )
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["digits", "wine"])
    args = parser.parse_args(argv)
    print(__doc__.split("Run:")[0])
    for name in args.datasets:
        start = time.perf_counter()
        tune = trials(name, TUNE_SEED, 2, 2, GRID)
        means = tune.groupby(["l2", "msl"], sort=False)["cost"].mean()
        print(
            f"{name}: validation cost per candidate (tuning seed {TUNE_SEED}, {len(tune) // len(GRID)} trials)"
        )
        print(means.round(4).to_string())
        chosen = min(GRID, key=lambda c: (round(means[c], 12), c))  # lowest mean; ties to smaller l2, msl
        print(f"chosen: l2_regularization={chosen[0]:g}, min_samples_leaf={chosen[1]}")
        if chosen == BASELINE:
            print("the rule keeps the baseline: nothing to report on the fresh splits\n")
            continue
        report = trials(name, REPORT_SEED, 4, 2, [chosen, BASELINE], lightgbm=HAS_LIGHTGBM)
        lgb_cost = report.loc[report["l2"].isna(), "cost"].mean()
        report = report.dropna(subset=["l2"])
        wide = report.pivot_table(
            index=["dataset", "cost_id"], columns=["l2", "msl"], values="cost"
        ).reset_index()
        wide.columns = ["dataset", "cost_id", *(f"{l2:g}/{msl}" for l2, msl in wide.columns[2:])]
        s = stats.compare_costs(wide, a=f"{chosen[0]:g}/{chosen[1]}", b=f"{BASELINE[0]:g}/{BASELINE[1]}")
        print(
            f"held out (report seed {REPORT_SEED}, {s['trials']} trials on {s['datasets']} splits): chosen "
            f"{s['a_cost']:.4f}, baseline {s['b_cost']:.4f}, LightGBM two-step {lgb_cost:.4f}; chosen beats the "
            f"baseline in {stats.rate_text(s)}; chosen - baseline {stats.diff_text(s)} "
            f"({time.perf_counter() - start:.0f} s, {load_average()})\n"
        )


if __name__ == "__main__":
    main()
