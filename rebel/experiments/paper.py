"""The paper's experiments as functions returning tidy pandas DataFrames (one row per trial or per round).

- ``fig3`` / ``compare_cost_sensitive``: REBEL trained with the costs against the two-step method (a 0-1 model's
  posterior plus the minimum-risk rule) on random Gaussian-mixture datasets and random cost matrices (Sec. 5,
  Fig. 3), or on datasets and cost matrices given by the caller. ``fig3_summary`` gives the win rate,
  ``fig3_intervals`` the win rates with 95 % intervals from a bootstrap over datasets.
- ``table1``: REBEL with stumps against depth-2, 3, 4 trees, 0-1 and cost-sensitive (Table 1).
- ``fig4``: REBEL and every baseline on several datasets, 5 random 50/25/25 splits, cost and error after every
  round (the cost-vs-iterations curves of Fig. 6); ``select_rounds`` picks each trial's number of rounds on
  the validation split (Fig. 4) and ``fig4_summary`` gives mean +- std over the splits.

Every sweep runs its fits through ``rebel.experiments.runner.run_tasks`` (``n_jobs`` workers; threads by
default because the numba kernels release the GIL, or any backend set with ``joblib.parallel_config``, e.g. Dask
or Ray) and reports ``progress(done, total, label)``; a callback returning False stops the sweep, which then
returns the trials finished so far.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rebel.baselines import (
    ESTIMATORS,
    TwoStepClassifier,
    available_estimators,
    make_estimator,
    staged_posteriors,
    staged_scores,
)
from rebel.costs import min_risk_class, validate_cost_matrix
from rebel.data.bayes import bayes_cost
from rebel.data.mixture import PAPER_SEED, make_dataset, paper_protocol
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.runner import Progress, run_tasks
from rebel.experiments.splits import Split, _as_split, dataset_splits, sample_cost_matrix

FIG4_DATASETS = ("iris", "wine", "breast_cancer", "digits", "random_0", "random_1")
TABLE1_DATASETS = ("wine", "digits", "random_0", "random_1")
FIG4_METHODS = ("rebel", "adaboost_mh", "one_vs_all", "samme", "hgb", "lightgbm")
FIG3_COLUMNS = [
    "dataset",
    "cost_id",
    "n_classes",
    "rebel_cost",
    "two_step_cost",
    "blind_cost",
    "rebel_error",
    "two_step_error",
    "bayes_cost",
    "win",
    "tie",
]  # one row per Fig. 3 trial (compare_cost_sensitive)
CURVE_COLUMNS = ["decision", "t", "val_error", "val_cost", "test_error", "test_cost"]


def check_variant(variant: dict | None) -> dict:
    """Engine options for ``RebelClassifier`` beyond depth and rounds, checked by name (values are checked by
    the estimator when it fits)."""
    variant = dict(variant or {})
    allowed = set(RebelClassifier().get_params()) - {"cost_matrix", "n_estimators", "max_depth"}
    unknown = sorted(set(variant) - allowed)
    if unknown:
        raise ValueError(
            f"engine option {unknown[0]!r} is not an option of RebelClassifier in this build; choose from "
            f"{sorted(allowed)}."
        )
    return variant


def _finished(tasks, results: dict) -> list:
    """The keys of the tasks that ran, in task order (fewer than planned when the sweep was stopped)."""
    return [key for key, *_ in tasks if key in results]


def _concat(frames: list, columns: list) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


# --------------------------------------------------------------------------------------------------------------
# Fig. 3: cost-sensitive REBEL versus the two-step method
# --------------------------------------------------------------------------------------------------------------


def _posterior_task(split: Split, estimator):
    model = TwoStepClassifier(estimator).fit(split.X_train, split.y_train)
    return model.predict_proba(split.X_test)


def _rebel_cost_task(split: Split, C, n_rounds: int, max_depth: int, variant: dict):
    model = RebelClassifier(cost_matrix=C, n_estimators=n_rounds, max_depth=max_depth, **variant)
    model.fit(split.X_train, split.y_train)
    return np.argmax(model.risk_scores(split.X_test), axis=1)


def _costs_per_dataset(cost_matrices, n_datasets: int) -> list:
    if len(cost_matrices) and np.ndim(cost_matrices[0]) == 2:  # one list shared by every dataset
        return [list(cost_matrices)] * n_datasets
    if len(cost_matrices) != n_datasets:
        raise ValueError(
            f"cost_matrices has {len(cost_matrices)} entries for {n_datasets} datasets; give one list of cost "
            "matrices per dataset, or a single list used for every dataset."
        )
    return [list(c) for c in cost_matrices]


def compare_cost_sensitive(
    datasets,
    cost_matrices,
    n_rounds: int = 100,
    max_depth: int = 1,
    posterior=None,
    n_jobs: int | None = 2,
    backend: str | None = None,
    progress: Progress | None = None,
    variant: dict | None = None,
) -> pd.DataFrame:
    """REBEL trained with each cost matrix against the two-step method, on the caller's data (Fig. 3 protocol).

    ``datasets``: a list of ``rebel.data.Dataset``, dicts or (X_train, y_train, X_test, y_test) tuples.
    ``cost_matrices``: one list of (K, K) matrices per dataset (sorted class order), or one list for all.
    ``posterior``: the two-step method's posterior estimator, an estimator or a name of
    ``rebel.baselines.ESTIMATORS`` (default ``"rebel"``: REBEL with 0-1 costs), with ``n_rounds`` rounds of depth
    ``max_depth``; fitted once per dataset and reused for all its cost matrices. ``variant``: further
    ``RebelClassifier`` options (e.g. ``{"loss": "logistic", "learning_rate": 0.3}``) given to the cost-sensitive
    side and, when the posterior is ``"rebel"``, to the 0-1 side too (equal capacity).

    Returns one row per (dataset, cost matrix): ``dataset, cost_id, n_classes, rebel_cost, two_step_cost,
    blind_cost`` (the posterior model's own argmax, costs ignored), ``rebel_error, two_step_error, bayes_cost``
    (NaN unless the dataset carries its mixture), ``win`` (REBEL's test cost strictly lower), ``tie``.
    """
    splits = [_as_split(d, f"dataset_{i}") for i, d in enumerate(datasets)]
    per_dataset = _costs_per_dataset(cost_matrices, len(splits))
    variant = check_variant(variant)
    if variant and posterior in (None, "rebel"):
        estimator = RebelClassifier(n_estimators=n_rounds, max_depth=max_depth, random_state=0, **variant)
    elif posterior is None or isinstance(posterior, str):
        estimator = make_estimator(posterior or "rebel", n_rounds, max_depth, random_state=0)
    else:
        estimator = posterior
    per_dataset = [
        [validate_cost_matrix(C, n_classes=s.n_classes) for C in cs] for s, cs in zip(splits, per_dataset)
    ]
    tasks = [(("post", i), _posterior_task, (s, estimator)) for i, s in enumerate(splits)]
    tasks += [
        (("cs", i, j), _rebel_cost_task, (s, C, n_rounds, max_depth, variant))
        for i, (s, cs) in enumerate(zip(splits, per_dataset))
        for j, C in enumerate(cs)
    ]
    results = run_tasks(tasks, n_jobs, backend, progress)
    rows = []
    for i, (s, cs) in enumerate(zip(splits, per_dataset)):
        if ("post", i) not in results:  # stopped before this dataset's posterior was fitted
            continue
        posterior = results[("post", i)]
        blind_pred = np.argmax(posterior, axis=1)  # the cost-blind max-posterior class
        two_step_pred = [min_risk_class(posterior, C) for C in cs]
        for j, C in enumerate(cs):
            if ("cs", i, j) not in results:
                continue
            rebel_pred = results[("cs", i, j)]
            bayes = np.nan
            if s.mixture is not None:
                bayes = bayes_cost(s.mixture, s.X_test, s.classes[s.y_test], C)
            rows.append(
                {
                    "dataset": s.name,
                    "cost_id": j,
                    "n_classes": s.n_classes,
                    "rebel_cost": float(C[s.y_test, rebel_pred].mean()),
                    "two_step_cost": float(C[s.y_test, two_step_pred[j]].mean()),
                    "blind_cost": float(C[s.y_test, blind_pred].mean()),
                    "rebel_error": float(np.mean(rebel_pred != s.y_test)),
                    "two_step_error": float(np.mean(two_step_pred[j] != s.y_test)),
                    "bayes_cost": bayes,
                }
            )
    df = pd.DataFrame(rows, columns=FIG3_COLUMNS[:-2])
    df["win"] = df["rebel_cost"] < df["two_step_cost"]
    df["tie"] = df["rebel_cost"] == df["two_step_cost"]
    return df


def fig3(
    n_datasets: int = 10,
    n_costs: int = 20,
    n_rounds: int = 100,
    max_depth: int = 1,
    seed: int = PAPER_SEED,
    posterior=None,
    cost_distribution: str = "paper",
    n_jobs: int | None = 2,
    backend: str | None = None,
    progress: Progress | None = None,
    variant: dict | None = None,
) -> pd.DataFrame:
    """Fig. 3: ``n_datasets`` random mixtures (1000 training / 500 test points) x ``n_costs`` random cost matrices
    (zero diagonal, half-normal entries, random guessing costs 1), ``n_rounds`` weak learners; see
    ``compare_cost_sensitive`` for the columns and ``posterior``. Datasets and costs come from
    ``rebel.data.paper_protocol``; ``cost_distribution`` (see ``sample_cost_matrix``) swaps the costs;
    ``variant``: engine options for both REBEL sides (see ``compare_cost_sensitive``)."""
    trials = paper_protocol(n_datasets, n_costs, seed)
    datasets = [make_dataset(spec, f"random_{i}") for i, (spec, _) in enumerate(trials)]
    costs = [c for _, c in trials]
    if cost_distribution != "paper":
        costs = [
            [sample_cost_matrix(len(c[0]), [seed, i, 1 + j, 99], cost_distribution) for j in range(n_costs)]
            for i, c in enumerate(costs)
        ]
    return compare_cost_sensitive(
        datasets, costs, n_rounds, max_depth, posterior, n_jobs, backend, progress, variant=variant
    )


def fig3_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and overall: trials, REBEL win rate (strictly lower test cost), ties, the win rate against the
    cost-blind argmax of the 0-1 model (``win_vs_blind``), mean costs, and the win
    rate on the harder half of the trials (two-step cost above the median; the paper: "especially on the harder
    classification problems")."""

    def stats(g):
        return pd.Series(
            {
                "trials": len(g),
                "win_rate": g["win"].mean(),
                "tie_rate": g["tie"].mean(),
                "win_vs_blind": (g["rebel_cost"] < g["blind_cost"]).mean(),
                "rebel_cost": g["rebel_cost"].mean(),
                "two_step_cost": g["two_step_cost"].mean(),
                "blind_cost": g["blind_cost"].mean(),
                "bayes_cost": g["bayes_cost"].mean(),
            }
        )

    out = df.groupby("dataset", sort=False).apply(stats, include_groups=False)
    overall = stats(df).rename("all")
    hard = df["two_step_cost"] > df["two_step_cost"].median()
    out = pd.concat(
        [
            out,
            overall.to_frame().T,
            stats(df[hard]).rename("harder half").to_frame().T,
            stats(df[~hard]).rename("easier half").to_frame().T,
        ]
    )
    out["trials"] = out["trials"].astype(int)
    return out


FIG3_OPPONENTS = {"two_step_cost": "two-step", "blind_cost": "cost-blind argmax"}


def fig3_intervals(df: pd.DataFrame) -> pd.DataFrame:
    """The win rates of ``fig3_summary``'s rows ``all``, ``harder half``, ``easier half`` against the two-step
    method and against the cost-blind argmax, each with ``stats.compare_costs``'s numbers (95 % interval from a
    bootstrap over whole datasets). The halves are split once at the median two-step cost of all trials (as in
    ``fig3_summary``); each half is then resampled by dataset."""
    hard = df["two_step_cost"] > df["two_step_cost"].median()
    rows = []
    for part, trials in (("all", df), ("harder half", df[hard]), ("easier half", df[~hard])):
        for col, name in FIG3_OPPONENTS.items():
            rows.append({"part": part, "against": name, **stats.compare_costs(trials, "rebel_cost", col)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------------------
# Fig. 4 / Fig. 6: every method, 5 random 50/25/25 splits, error and cost after every round
# --------------------------------------------------------------------------------------------------------------


def _pad(curve: np.ndarray, n_rounds: int) -> np.ndarray:
    """A curve over rounds 1..n (n <= n_rounds, e.g. SAMME stops early on a perfect fit) held at its last value."""
    if len(curve) >= n_rounds:
        return curve[:n_rounds]
    return np.concatenate([curve, np.full(n_rounds - len(curve), curve[-1])])


def _curves_from_preds(preds: np.ndarray, y: np.ndarray, C: np.ndarray, n_rounds: int):
    """preds (T, N) class indices -> (error, cost) over rounds, padded to n_rounds."""
    error = (preds != y[None, :]).mean(axis=1)
    cost = C[y[None, :], preds].mean(axis=1)
    return _pad(error, n_rounds), _pad(cost, n_rounds)


def _method_task(
    split: Split,
    method: str,
    training: str,
    C: np.ndarray,
    n_rounds: int,
    max_depth: int,
    random_state: int,
    min_risk: bool = True,
) -> pd.DataFrame:
    """Fit one method on one split; its validation and test error and cost after every round, per decision rule
    (``argmax`` of the scores; ``min-risk`` from the posteriors and C, for models trained with 0-1 costs)."""
    model = make_estimator(
        method, n_rounds, max_depth, cost_matrix=C if training == "cost" else None, random_state=random_state
    )
    model.fit(split.X_train, split.y_train)
    frames = []
    decisions = ["argmax"] + (["min-risk"] if training == "0-1" and min_risk else [])
    for decision in decisions:
        cols = {}
        for part, X, y in (("val", split.X_val, split.y_val), ("test", split.X_test, split.y_test)):
            if decision == "argmax" and isinstance(model, RebelClassifier):
                preds = model.staged_class_indices(X)[1:]
            elif decision == "argmax":
                preds = np.array([np.argmax(S, axis=1) for S in staged_scores(model, X)])
            else:
                preds = np.array([min_risk_class(P, C) for P in staged_posteriors(model, X)])
            cols[f"{part}_error"], cols[f"{part}_cost"] = _curves_from_preds(preds, y, C, n_rounds)
        frames.append(pd.DataFrame({"decision": decision, "t": np.arange(1, n_rounds + 1), **cols}))
    return pd.concat(frames, ignore_index=True)


def _check_methods(methods) -> list:
    methods = list(methods)
    unknown = [m for m in methods if m not in ESTIMATORS]
    if unknown:
        raise ValueError(f"method {unknown[0]!r} is unknown; choose from {list(ESTIMATORS)}.")
    return [m for m in methods if m in available_estimators()]


def split_curves(
    datasets,
    columns: tuple,
    runs: dict,
    n_rounds: int,
    n_splits: int = 5,
    seed: int = PAPER_SEED,
    cost_matrices: dict | None = None,
    n_jobs: int | None = 2,
    backend: str | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """The protocol of Fig. 4 and Table 1: every run on ``n_splits`` random stratified 50/25/25
    train/validation/test splits of every dataset, with the dataset's cost matrix (``cost_matrices[name]``,
    default ``experiment_costs``: random, normalised so random guessing costs 1 under the class frequencies),
    error and cost after every round.

    ``datasets``: names (see ``load_named``) or (name, X, y) triples; ``runs``: {the run's values of
    ``columns``: (method, training, max_depth, min_risk)}, a method of ``rebel.baselines.ESTIMATORS`` trained
    with 0-1 costs (``training = "0-1"``) or the costs (``"cost"``) for ``n_rounds`` rounds, read with
    ``decision = "argmax"`` and, when ``min_risk``, also ``"min-risk"`` (0-1 training only).

    Returns one row per (dataset, split, *columns, decision, t) with ``val_error, val_cost, test_error,
    test_cost``; a stopped sweep (``progress`` returned False) holds the runs finished so far.
    """
    tasks = []
    for name, splits, C in dataset_splits(datasets, n_splits, seed, cost_matrices):
        for s_idx, split in enumerate(splits):
            for values, (method, training, depth, min_risk) in runs.items():
                args = (split, method, training, C, n_rounds, depth, s_idx, min_risk)
                tasks.append(((name, s_idx, values), _method_task, args))
    results = run_tasks(tasks, n_jobs, backend, progress)
    frames = [
        results[key].assign(dataset=key[0], split=key[1], **dict(zip(columns, key[2])))
        for key in _finished(tasks, results)
    ]
    return _concat(frames, ["dataset", "split", *columns, *CURVE_COLUMNS])


def fig4(
    datasets=FIG4_DATASETS, methods=FIG4_METHODS, *, n_rounds: int = 200, max_depth: int = 1, **sweep
) -> pd.DataFrame:
    """Fig. 4 and Fig. 6: every method on every dataset and split, error and cost after every round.

    ``methods``: names from ``rebel.baselines.ESTIMATORS`` (LightGBM is skipped when not installed), trees of
    depth ``max_depth``. Every method is trained cost-blind (``training = "0-1"``) and read with ``decision =
    "argmax"`` (cost-blind) and ``"min-risk"`` (two-step); REBEL is also trained with the costs (``training =
    "cost"``). ``datasets`` and ``sweep`` (``n_splits`` = 5, ``seed``, ``cost_matrices``, ``n_jobs``,
    ``backend``, ``progress``): the protocol of ``split_curves``.

    Returns the curves: one row per (dataset, split, method, training, decision, t) with ``val_error, val_cost,
    test_error, test_cost``. ``select_rounds`` turns it into one row per trial.
    """
    methods = _check_methods(methods)
    trainings = [(m, "0-1") for m in methods] + ([("rebel", "cost")] if "rebel" in methods else [])
    runs = {(ESTIMATORS[m], training): (m, training, max_depth, True) for m, training in trainings}
    return split_curves(datasets, ("method", "training"), runs, n_rounds, **sweep)


TRIAL_KEYS = ["dataset", "split", "method", "training", "decision"]


def select_rounds(curves: pd.DataFrame, keys=TRIAL_KEYS) -> pd.DataFrame:
    """One row per trial: the number of rounds with the lowest validation error (ties: fewest rounds) and the
    test error there, and likewise for cost (``t_error, test_error, t_cost, test_cost``)."""
    rows = []
    for key, g in curves.groupby(keys, sort=False):
        g = g.sort_values("t")
        best_e = g.iloc[int(np.argmin(g["val_error"].to_numpy()))]
        best_c = g.iloc[int(np.argmin(g["val_cost"].to_numpy()))]
        rows.append(
            {
                **dict(zip(keys, key)),
                "t_error": int(best_e["t"]),
                "test_error": best_e["test_error"],
                "t_cost": int(best_c["t"]),
                "test_cost": best_c["test_cost"],
            }
        )
    return pd.DataFrame(rows)


def fig4_summary(trials: pd.DataFrame, keys=("dataset", "method", "training", "decision")) -> pd.DataFrame:
    """Mean and std over splits of the selected trials' test error and test cost."""
    keys = list(keys)
    out = trials.groupby(keys, sort=False).agg(
        **{f"{c}_{s}": (c, s) for c in ("test_error", "test_cost") for s in ("mean", "std")},
        t_error=("t_error", "median"),
        t_cost=("t_cost", "median"),
        splits=("test_error", "size"),
    )
    return out.reset_index()


def method_label(row) -> str:
    """Short display name of a (method, training, decision) row: e.g. "REBEL (cost)", "LightGBM two-step"."""
    if row["training"] == "cost":
        return f"{row['method']} (cost-sensitive)"
    return row["method"] + (" two-step" if row["decision"] == "min-risk" else "")


# --------------------------------------------------------------------------------------------------------------
# Table 1: REBEL with stumps versus deeper trees
# --------------------------------------------------------------------------------------------------------------


def table1(datasets=TABLE1_DATASETS, depths=(1, 2, 3, 4), *, n_rounds: int = 100, **sweep) -> pd.DataFrame:
    """Table 1: REBEL with trees of each depth, trained with 0-1 costs (test error) and with the dataset's cost
    matrix (test cost), rounds chosen on validation; one row per (dataset, split, depth, training) with
    ``t_error, test_error, t_cost, test_cost`` (read ``test_error`` for 0-1 rows, ``test_cost`` for cost rows).
    ``datasets`` and ``sweep`` (``n_splits`` = 5, ``seed``, ``cost_matrices``, ``n_jobs``, ``backend``,
    ``progress``): the protocol of ``split_curves``."""
    runs = {
        (depth, training): ("rebel", training, depth, False)
        for depth in depths
        for training in ("0-1", "cost")
    }
    curves = split_curves(datasets, ("depth", "training"), runs, n_rounds, **sweep)
    return select_rounds(curves, keys=["dataset", "split", "depth", "training"])


def table1_summary(trials: pd.DataFrame) -> pd.DataFrame:
    """The Table 1 layout: rows (dataset, 0-1 error / cost), columns depth, mean over splits (+- std)."""
    zero_one = trials[trials["training"] == "0-1"].assign(metric="0-1 error", value=lambda d: d["test_error"])
    cost = trials[trials["training"] == "cost"].assign(metric="cost", value=lambda d: d["test_cost"])
    both = pd.concat([zero_one, cost])
    table = both.pivot_table(index=["dataset", "metric"], columns="depth", values="value", aggfunc="mean")
    table.columns = [f"depth {d}" if d > 1 else "stumps" for d in table.columns]
    return table


__all__ = [
    "FIG3_COLUMNS",
    "FIG4_DATASETS",
    "FIG4_METHODS",
    "TABLE1_DATASETS",
    "check_variant",
    "compare_cost_sensitive",
    "fig3",
    "fig3_intervals",
    "fig3_summary",
    "fig4",
    "fig4_summary",
    "method_label",
    "select_rounds",
    "split_curves",
    "table1",
    "table1_summary",
]
