"""Why cost-sensitive REBEL loses on digits (``python -m rebel reproduce digits``).

On scikit-learn's digits (d = 64, K = 10, about 900 training points) with the paper's random cost matrices,
cost-sensitive REBEL costs more than the argmax of the same engine trained with 0-1 costs, which ignores the
costs. This module measures the candidate causes on the regime map's digits trials (``calibrated.real_split``
half / half splits, ``calibrated.cost_matrices``, report seed 4813):

- ``capacity``: depth and rounds (train and test cost at every checkpoint of ``ROUNDS``);
- ``thresholds``: the number of candidate thresholds per feature (digits pixels take 17 values 0..16);
- ``shrinkage``: a learning rate below 1, which damps every a* (the engine's smoothing of a*, ``SMOOTHING =
  1e-9`` of the weight total, is a compiled constant; its effect is read from the size of the steps |a|);
- ``mix``: costs moved from 0-1 towards the random matrix, ``C_alpha = (1 - alpha) C01 + alpha C`` (C01 scaled
  to the same random-guess cost): where between the two does cost-sensitive training break down;
- ``pca``: the same digits projected on their first 2 or 8 principal components (fitted on the training half):
  the paper's 2-D design against d = 64.

Each trial records, for every method (``rebel``: trained with the trial's costs; ``two_step``: the 0-1 model,
its posterior and the minimum-risk rule; ``blind``: the 0-1 model's argmax; ``lightgbm``: LightGBM's two-step,
depth 3) its mean cost on the training and the test points at each round count, and for REBEL the largest step
max_k |a_k| of its rounds (``step``). The cost per true class (``class_rows``) tests whether classes whose cost
row is cheap, so carry little weight in REBEL's loss, are the ones REBEL gets wrong.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.decomposition import PCA

from rebel.baselines import available_estimators, make_estimator
from rebel.costs import min_risk_class
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.calibrated import REAL, cost_matrices, real_split
from rebel.experiments.honest import REPORT_SEED, _staged_proba_at
from rebel.experiments.runner import Progress, run_tasks
from rebel.experiments.splits import Split

ROUNDS = (25, 50, 100, 200, 400)
N_SPLITS = 3
N_COSTS = 5
VECTOR = {"loss": "logistic", "leaves": "vector", "learning_rate": 0.3}
# (study, label, engine options, alpha of the cost mix, PCA components or None)
STUDIES = (
    ("capacity", "paper, depth 1", {"max_depth": 1}, 1.0, None),
    ("capacity", "paper, depth 2", {"max_depth": 2}, 1.0, None),
    ("capacity", "paper, depth 3", {"max_depth": 3}, 1.0, None),
    ("capacity", "paper, depth 5", {"max_depth": 5}, 1.0, None),
    ("capacity", "vector + logistic + 0.3, depth 3", {"max_depth": 3, **VECTOR}, 1.0, None),
    ("thresholds", "paper, depth 3, 4 thresholds", {"max_depth": 3, "n_thresholds": 4}, 1.0, None),
    ("thresholds", "paper, depth 3, 16 thresholds", {"max_depth": 3, "n_thresholds": 16}, 1.0, None),
    ("shrinkage", "paper, depth 3, learning rate 0.3", {"max_depth": 3, "learning_rate": 0.3}, 1.0, None),
    ("shrinkage", "paper, depth 3, learning rate 0.1", {"max_depth": 3, "learning_rate": 0.1}, 1.0, None),
    ("mix", "paper, depth 3, alpha 0.25", {"max_depth": 3}, 0.25, None),
    ("mix", "paper, depth 3, alpha 0.5", {"max_depth": 3}, 0.5, None),
    ("mix", "paper, depth 3, alpha 0.75", {"max_depth": 3}, 0.75, None),
    ("pca", "paper, depth 3, PCA 2", {"max_depth": 3}, 1.0, 2),
    ("pca", "paper, depth 3, PCA 8", {"max_depth": 3}, 1.0, 8),
)
SAME_COSTS = ("capacity", "thresholds", "shrinkage")  # studies on the trials' own costs and features
CLASS_SETTING = "paper, depth 3"  # the setting whose per-class costs ``class_rows`` records
COLUMNS = ["study", "setting", "dataset", "cost_id", "rounds", "method", "part", "cost", "error", "step"]
CLASS_COLUMNS = ["dataset", "cost_id", "true_class", "row_max", "row_mean", "rebel_cost", "two_step_cost"]


def digits_trials(seed: int = REPORT_SEED, n_splits: int = N_SPLITS, n_costs: int = N_COSTS) -> tuple:
    """The regime map's digits trials: (splits, cost matrices per split), drawn as ``calibrated.regime_splits``
    draws them (the same splits and matrices for the same seed and counts)."""
    splits = [real_split("digits", seed, i) for i in range(n_splits)]
    rng = np.random.default_rng([seed, 43, REAL.index("digits")])
    return splits, [cost_matrices(s.n_classes, n_costs, rng, "random", s.y_train) for s in splits]


def mixed_costs(C: np.ndarray, alpha: float) -> np.ndarray:
    """``(1 - alpha) C01 + alpha C`` with C01 the 0-1 matrix scaled to C's mean off-diagonal cost."""
    K = C.shape[0]
    off = 1.0 - np.eye(K)
    return (1.0 - alpha) * off * (C.sum() / off.sum()) + alpha * C


def project(split: Split, n_components: int | None) -> Split:
    """The split on its first ``n_components`` principal components (fitted on the training points)."""
    if n_components is None:
        return split
    pca = PCA(n_components, random_state=0).fit(split.X_train)
    return Split(
        f"{split.name}_pca{n_components}",
        split.classes,
        pca.transform(split.X_train),
        split.y_train,
        pca.transform(split.X_test),
        split.y_test,
    )


def _cost(C, y, pred) -> tuple:
    """(mean cost, 0-1 error) of predictions ``pred`` (class indices)."""
    return float(C[y, pred].mean()), float((pred != y).mean())


def _max_steps(model: RebelClassifier) -> np.ndarray:
    """max_k |a_k| of each round (vector leaves: the largest leaf value)."""
    if model.leaves == "vector":
        return np.abs(model.tree_leaf_values_).max(axis=(1, 2))
    return np.abs(model.a_).max(axis=1)


def study_rows(study: str, setting: str, options: dict, alpha: float, split: Split, costs: list) -> tuple:
    """Rows of ``COLUMNS`` and ``CLASS_COLUMNS`` (REBEL at the largest round count) of one study on one split."""
    T, rows, class_rows = max(ROUNDS), [], []
    parts = {"train": (split.X_train, split.y_train), "test": (split.X_test, split.y_test)}
    mats = [mixed_costs(C, alpha) for C in costs]
    zero_one = RebelClassifier(n_estimators=T, random_state=0, **options).fit(split.X_train, split.y_train)
    posts = {p: _staged_proba_at(zero_one, X, ROUNDS) for p, (X, _) in parts.items()}
    for j, C in enumerate(mats):
        model = RebelClassifier(cost_matrix=C, n_estimators=T, **options).fit(split.X_train, split.y_train)
        steps = _max_steps(model)
        for part, (X, y) in parts.items():
            staged = model.staged_class_indices(X)
            for t in ROUNDS:
                base = (study, setting, split.name, j, t)
                step = float(steps[: min(t, model.n_estimators_)].max())
                rows.append((*base, "rebel", part, *_cost(C, y, staged[min(t, model.n_estimators_)]), step))
                P = posts[part][t]
                rows.append((*base, "two_step", part, *_cost(C, y, min_risk_class(P, C)), np.nan))
                rows.append((*base, "blind", part, *_cost(C, y, np.argmax(P, axis=1)), np.nan))
        y = split.y_test
        reb = C[y, model.staged_class_indices(split.X_test)[-1]]
        two = C[y, min_risk_class(posts["test"][T], C)]
        for k in range(C.shape[0]):
            sel = y == k
            class_rows.append(
                (split.name, j, k, C[k].max(), C[k].sum() / (len(C) - 1), reb[sel].mean(), two[sel].mean())
            )
    return rows, class_rows if setting == CLASS_SETTING else []


def lightgbm_rows(split: Split, costs: list) -> tuple:
    """LightGBM's two-step (depth 3, learning rate 0.1) at every checkpoint: the outside reference."""
    model = make_estimator("lightgbm", max(ROUNDS), 3, random_state=0).fit(split.X_train, split.y_train)
    rows = []
    for part, (X, y) in {
        "train": (split.X_train, split.y_train),
        "test": (split.X_test, split.y_test),
    }.items():
        for t, P in _staged_proba_at(model, X, ROUNDS).items():
            for j, C in enumerate(costs):
                rows.append(("reference", "LightGBM, depth 3", split.name, j, t, "lightgbm", part,
                             *_cost(C, y, min_risk_class(P, C)), np.nan))  # fmt: skip
    return rows, []


def run(
    seed: int = REPORT_SEED,
    n_splits: int = N_SPLITS,
    n_costs: int = N_COSTS,
    studies=STUDIES,
    n_jobs=2,
    progress: Progress | None = None,
) -> tuple:
    """Every study of ``studies`` on the digits trials: ``(rows DataFrame of COLUMNS, per-class DataFrame)``."""
    splits, costs = digits_trials(seed, n_splits, n_costs)
    tasks = []
    for i, (s, cs) in enumerate(zip(splits, costs)):
        for k, (study, setting, options, alpha, comps) in enumerate(studies):
            tasks.append(((k, i), study_rows, (study, setting, options, alpha, project(s, comps), cs)))
        if "lightgbm" in available_estimators():
            tasks.append((("lgb", i), lightgbm_rows, (s, cs)))
    results = run_tasks(tasks, n_jobs, progress=progress)
    rows = [r for key in sorted(results, key=str) for r in results[key][0]]
    class_rows = [r for key in sorted(results, key=str) for r in results[key][1]]
    return pd.DataFrame(rows, columns=COLUMNS), pd.DataFrame(class_rows, columns=CLASS_COLUMNS)


def curves(df: pd.DataFrame, value: str = "cost") -> pd.DataFrame:
    """Mean ``value`` (cost or 0-1 error) per (study, setting, method, part) and round count."""
    out = df.groupby(["study", "setting", "method", "part", "rounds"], sort=False)[value].mean()
    return out.unstack("rounds").round(4)


def versus(df: pd.DataFrame, rounds: int, a: str = "rebel", b: str = "blind") -> pd.DataFrame:
    """Per (study, setting): method ``a``'s test win rate over ``b`` at ``rounds`` with the bootstrap over the
    splits (they share points: the interval is optimistic) and the mean cost difference."""
    test = df[(df["part"] == "test") & (df["rounds"] == rounds)]
    rows = []
    for (study, setting), g in test.groupby(["study", "setting"], sort=False):
        wide = g.pivot_table(index=["dataset", "cost_id"], columns="method", values="cost").reset_index()
        if a not in wide or b not in wide:
            continue
        s = stats.compare_costs(wide, a, b)
        rows.append({"study": study, "setting": setting, "rounds": rounds, "win": stats.rate_text(s),
                     f"{a}_cost": s["a_cost"], f"{b}_cost": s["b_cost"], "diff": stats.diff_text(s)})  # fmt: skip
    return pd.DataFrame(rows)


def class_weight_link(class_df: pd.DataFrame) -> dict:
    """How REBEL's excess cost per true class relates to that class's cost row: the Spearman correlation of
    (REBEL - two-step) cost of a class's test points with the row's largest and mean cost."""
    excess = class_df["rebel_cost"] - class_df["two_step_cost"]
    return {
        "classes": len(class_df),
        "corr_row_max": float(excess.corr(class_df["row_max"], method="spearman")),
        "corr_row_mean": float(excess.corr(class_df["row_mean"], method="spearman")),
        "excess_cheap_rows": float(excess[class_df["row_max"] <= class_df["row_max"].median()].mean()),
        "excess_dear_rows": float(excess[class_df["row_max"] > class_df["row_max"].median()].mean()),
    }


def step_sizes(df: pd.DataFrame) -> pd.DataFrame:
    """REBEL's largest step max_k |a_k| over its first t rounds, mean over trials, per setting and t."""
    reb = df[(df["method"] == "rebel") & (df["part"] == "test")]
    return reb.groupby(["study", "setting", "rounds"], sort=False)["step"].mean().unstack("rounds").round(2)


__all__ = [
    "COLUMNS",
    "N_COSTS",
    "N_SPLITS",
    "ROUNDS",
    "STUDIES",
    "class_weight_link",
    "curves",
    "digits_trials",
    "mixed_costs",
    "project",
    "run",
    "step_sizes",
    "study_rows",
    "versus",
]
