"""When does training with the costs pay? The regime of the map with every method (``method_map``) where
cost-weighted training beats the two-step method of its own model class by the widest interval, small enough
to rerun live: a rare costly class (``method_map.rare_split``: K = 4, class 0 with prior 0.1, its misses x10),
logistic regression.

Per dataset and each of its ``N_COSTS`` cost matrices (the map's: random, normalised, row 0 x10): cost-weighted
logistic regression (weights w_y = the mean cost of a mistake on y, ``method_map.weighted_decision``), the
logistic two-step method on the isotonic-calibrated posterior (cross-fitted; the map's choice in this regime)
and, for scale, the two-step method on a boosted posterior (``BOOST``: the engine's 0-1 model, logistic loss,
vector leaves, shrinkage 0.3, depth 3, 100 rounds, raw posterior; the map's cheapest two-step setting in this
regime). ``trials`` reads it on ``REDRAWS`` fresh datasets (``python -m rebel.experiments.weighting`` prints
``report``); the Theory page shows one, and ``tests/test_weighting.py`` checks the page's figures against them.
No streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rebel.costs import min_risk_class
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.calibrated import CRITICAL_FACTOR, cost_matrices
from rebel.experiments.method_map import (
    class_weights,
    linear_model,
    linear_posteriors,
    rare_split,
    weighted_decision,
)
from rebel.textout import say

N_COSTS = 5
REDRAWS = 10
SEED = 7001  # no other study draws with this seed: fresh datasets of the regime (no setting is chosen here)
BOOST = {"loss": "logistic", "leaves": "vector", "learning_rate": 0.3, "max_depth": 3, "n_estimators": 100}
METHODS = {
    "weighted_linear": "cost-weighted logistic regression",
    "two_step_linear": "two-step, logistic regression (isotonic)",
    "two_step_boost": "two-step, boosting (depth 3, 100 rounds)",
}


def dataset_costs(i: int, seed: int = SEED, n_costs: int = N_COSTS) -> pd.DataFrame:
    """Test cost of every method in ``METHODS`` on dataset ``i`` (``rare_split(seed, i)``) for each of its
    ``n_costs`` cost matrices: one row per matrix (``dataset``, ``cost_id``, one column per method)."""
    split = rare_split(seed, i)
    X, y, Xt, yt = split.X_train, split.y_train, split.X_test, split.y_test
    costs = cost_matrices(4, n_costs, np.random.default_rng([seed, 67, i]), "random", y)
    linear = linear_posteriors(X, y, Xt)["isotonic"]
    boosted = RebelClassifier(random_state=0, **BOOST).fit(X, y).predict_proba(Xt)
    rows = []
    for j, C in enumerate(costs):
        C[0] *= CRITICAL_FACTOR
        q = linear_model().fit(X, y, logisticregression__sample_weight=class_weights(C)[y]).predict_proba(Xt)
        decisions = {
            "weighted_linear": weighted_decision(q, C),
            "two_step_linear": min_risk_class(linear, C),
            "two_step_boost": min_risk_class(boosted, C),
        }
        rows.append({"dataset": i, "cost_id": j, **{m: float(C[yt, d].mean()) for m, d in decisions.items()}})
    return pd.DataFrame(rows)


def trials(n: int = REDRAWS, seed: int = SEED) -> pd.DataFrame:
    """``dataset_costs`` of datasets 0..n-1, one row per (dataset, cost matrix)."""
    return pd.concat([dataset_costs(i, seed) for i in range(n)], ignore_index=True)


def per_dataset(table: pd.DataFrame) -> pd.DataFrame:
    """Each method's mean test cost over each dataset's cost matrices: one row per dataset."""
    return table.groupby("dataset")[list(METHODS)].mean()


def weighting_cheaper(means) -> bool:
    """Cost-weighted logistic regression is cheaper than the logistic two-step method (one dataset's means)."""
    return bool(means["weighted_linear"] < means["two_step_linear"])


def boosting_cheapest(means) -> bool:
    """The two-step method on the boosted posterior is cheaper than both logistic-regression methods."""
    return bool(means["two_step_boost"] < min(means["weighted_linear"], means["two_step_linear"]))


def report(table: pd.DataFrame) -> str:
    """The redraws in words: per dataset the three mean costs and both claims, then each comparison over all
    trials with its win rate and mean difference (95 % intervals, bootstrap over datasets)."""
    means = per_dataset(table)
    lines = [means.round(4).to_string(), ""]
    n = len(means)
    lines.append(
        f"cost-weighted logistic regression cheaper than the logistic two-step (isotonic) on "
        f"{sum(map(weighting_cheaper, (r for _, r in means.iterrows())))} of {n} datasets; the boosting two-step "
        f"cheaper than both on {sum(map(boosting_cheapest, (r for _, r in means.iterrows())))} of {n}"
    )
    for a, b in (("weighted_linear", "two_step_linear"), ("two_step_boost", "weighted_linear")):
        s = stats.compare_costs(table, a, b)
        lines.append(
            f"{METHODS[a]} against {METHODS[b]}: wins {stats.rate_text(s)} of {s['trials']} trials, mean cost "
            f"{s['a_cost']:.4f} against {s['b_cost']:.4f}, difference {stats.diff_text(s)}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    say(report(trials()))
