"""The paper's experiments as functions returning tidy pandas DataFrames (one row per trial or per round).

- ``fig3`` / ``compare_cost_sensitive``: REBEL trained with the costs against the two-step method (a 0-1 model's
  posterior plus the minimum-risk rule) on random Gaussian-mixture datasets and random cost matrices (Sec. 5,
  Fig. 3), or on datasets and cost matrices given by the caller. ``fig3_summary`` gives the win rate.
- ``table1``: REBEL with stumps against depth-2, 3, 4 trees, 0-1 and cost-sensitive (Table 1).
- ``fig4``: REBEL and every baseline on several datasets, 5 random 50/25/25 splits, cost and error after every
  round (the cost-vs-iterations curves of Fig. 6); ``select_rounds`` picks each trial's number of rounds on
  the validation split (Fig. 4) and ``fig4_summary`` gives mean +- std over the splits.

Every sweep runs its fits through joblib (``n_jobs`` workers; threads by default because the numba kernels
release the GIL, or any backend set with ``joblib.parallel_config``, e.g. Dask or Ray) and reports progress
through ``progress(done, total)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.model_selection import train_test_split

from .baselines import (
    ESTIMATORS,
    TwoStepClassifier,
    available_estimators,
    make_estimator,
    staged_posteriors,
    staged_scores,
)
from .cost_presets import normalize_costs, random_costs
from .costs import min_risk_class, validate_cost_matrix
from .datasets import (
    BUNDLED,
    PAPER_SEED,
    PRESETS,
    bayes_cost,
    load_bundled,
    make_dataset,
    paper_protocol,
    paper_random_spec,
    sample_mixture,
)
from .estimator import RebelClassifier

Progress = Callable[[int, int], object]

DEFAULT_BACKEND = "threading"  # measured faster than loky on 2 cores for Fig. 3 (docs/REPRODUCTION.md)
FIG4_DATASETS = ("iris", "wine", "breast_cancer", "digits", "random_0", "random_1")
TABLE1_DATASETS = ("wine", "digits", "random_0", "random_1")
FIG4_METHODS = ("rebel", "adaboost_mh", "one_vs_all", "samme", "hgb", "lightgbm")


# --------------------------------------------------------------------------------------------------------------
# Parallel map with progress
# --------------------------------------------------------------------------------------------------------------


def _keyed(key, func, args, one_thread=False):
    if one_thread:
        # The engine's parallel kernels would start n_cores threads inside each of n_jobs workers; one fit per
        # worker thread is faster for these small fits (numba's thread count is per calling thread).
        numba.set_num_threads(1)
    return key, func(*args)


def run_tasks(
    tasks: Sequence, n_jobs: int | None = 2, backend: str | None = None, progress: Progress | None = None
) -> dict:
    """Run ``tasks`` = [(key, func, args), ...] through joblib; return ``{key: func(*args)}``.

    ``backend=None`` prefers threads but yields to a backend chosen with ``joblib.parallel_config`` (Dask, Ray,
    loky). ``progress(done, total)`` is called in this process after every finished task.
    """
    total = len(tasks)
    results = {}
    if progress is not None:
        progress(0, total)
    if n_jobs == 1 and backend is None:
        outputs = (_keyed(key, func, args) for key, func, args in tasks)
    else:
        parallel = Parallel(n_jobs=n_jobs, backend=backend, prefer="threads", return_as="generator_unordered")
        outputs = parallel(delayed(_keyed)(key, func, args, True) for key, func, args in tasks)
    for key, value in outputs:
        results[key] = value
        if progress is not None:
            progress(len(results), total)
    return results


# --------------------------------------------------------------------------------------------------------------
# Data: named datasets, caller-given datasets, splits, cost matrices
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Split:
    """One train/test (and optional validation) split with labels as class indices into ``classes``."""

    name: str
    classes: np.ndarray
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    X_val: np.ndarray | None = None
    y_val: np.ndarray | None = None
    mixture: pd.DataFrame | None = None

    @property
    def n_classes(self) -> int:
        return len(self.classes)


def _as_split(data, name: str) -> Split:
    """A caller's dataset as a ``Split``: a ``rebel.datasets.Dataset``, a dict with X_train/y_train/X_test/y_test
    (optionally X_val/y_val, name, mixture) or a tuple (X_train, y_train, X_test, y_test)."""
    if isinstance(data, Split):
        return data
    if isinstance(data, (tuple, list)) and len(data) == 4:
        data = dict(zip(("X_train", "y_train", "X_test", "y_test"), data))
    elif not isinstance(data, dict):
        data = {
            k: getattr(data, k, None) for k in ("X_train", "y_train", "X_test", "y_test", "name", "mixture")
        }
    missing = [k for k in ("X_train", "y_train", "X_test", "y_test") if data.get(k) is None]
    if missing:
        raise ValueError(
            f"dataset {name!r} has no {missing[0]}; give a rebel.datasets.Dataset, a dict with X_train, y_train, "
            "X_test, y_test or a tuple (X_train, y_train, X_test, y_test)."
        )
    classes, y_train = np.unique(np.asarray(data["y_train"]), return_inverse=True)

    def index(y, part):
        y = np.asarray(y)
        idx = np.clip(np.searchsorted(classes, y), 0, len(classes) - 1)
        if y.size and np.any(classes[idx] != y):
            raise ValueError(
                f"dataset {name!r}: {part} has a label that is not in y_train; classes {list(classes)}."
            )
        return idx

    X_val = data.get("X_val")
    return Split(
        name=str(data.get("name") or name),
        classes=classes,
        X_train=np.asarray(data["X_train"], dtype=np.float64),
        y_train=y_train,
        X_test=np.asarray(data["X_test"], dtype=np.float64),
        y_test=index(data["y_test"], "y_test"),
        X_val=None if X_val is None else np.asarray(X_val, dtype=np.float64),
        y_val=None if X_val is None else index(data["y_val"], "y_val"),
        mixture=data.get("mixture"),
    )


def load_named(name: str, seed: int = PAPER_SEED):
    """All labelled points of a named dataset: ``(X, y, mixture or None)``.

    Names: scikit-learn's bundled ``iris``, ``wine``, ``breast_cancer``, ``digits``; ``random_<i>`` (dataset i of
    the paper's random protocol, 1500 points); any preset of ``rebel.datasets.PRESETS`` (sampled from its spec).
    """
    if name in BUNDLED:
        ds = load_bundled(name, test_fraction=0.0)
        return ds.X_train, np.asarray(ds.y_train), None
    if name.startswith("random_") and name[7:].isdigit():
        spec = paper_random_spec(int(name[7:]), seed)
    elif name in PRESETS:
        spec = PRESETS[name].spec
    else:
        raise ValueError(
            f"dataset name {name!r} is unknown; choose one of {list(BUNDLED)}, random_<i> or a preset "
            f"({list(PRESETS)})."
        )
    X, y = sample_mixture(spec.mixture, spec.n_points, spec.seed)
    return X, np.asarray(y), spec.mixture


def three_way_splits(
    X, y, n_splits: int = 5, seed: int = 0, fractions=(0.5, 0.25, 0.25), name: str = "", mixture=None
) -> list:
    """``n_splits`` random stratified train/validation/test splits (default 50/25/25 %, Sec. 5.1)."""
    classes, y_idx = np.unique(np.asarray(y), return_inverse=True)
    X = np.asarray(X, dtype=np.float64)
    out = []
    for s in range(n_splits):
        rs = np.random.RandomState(np.random.SeedSequence([seed, s]).generate_state(1)[0])
        idx = np.arange(len(y_idx))
        train, rest = train_test_split(idx, train_size=fractions[0], stratify=y_idx, random_state=rs)
        val_share = fractions[1] / (fractions[1] + fractions[2])
        val, test = train_test_split(rest, train_size=val_share, stratify=y_idx[rest], random_state=rs)
        out.append(
            Split(name, classes, X[train], y_idx[train], X[test], y_idx[test], X[val], y_idx[val], mixture)
        )
    return out


def experiment_costs(n_classes: int, y=None, seed: int = PAPER_SEED) -> np.ndarray:
    """A random cost matrix of the paper's protocol, normalised so that random guessing costs 1 under the class
    frequencies of ``y`` (uniform priors when ``y`` is None)."""
    C = random_costs(n_classes, np.random.default_rng([seed, 7, n_classes]))
    priors = None if y is None else np.bincount(np.asarray(y), minlength=n_classes)
    return normalize_costs(C, priors)


# --------------------------------------------------------------------------------------------------------------
# Fig. 3: cost-sensitive REBEL versus the two-step method
# --------------------------------------------------------------------------------------------------------------


def _posterior_task(split: Split, estimator):
    model = TwoStepClassifier(estimator).fit(split.X_train, split.y_train)
    return model.predict_proba(split.X_test)


def _rebel_cost_task(split: Split, C, n_rounds: int, max_depth: int):
    model = RebelClassifier(cost_matrix=C, n_estimators=n_rounds, max_depth=max_depth)
    model.fit(split.X_train, split.y_train)
    return np.argmax(model.decision_function(split.X_test), axis=1)


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
) -> pd.DataFrame:
    """REBEL trained with each cost matrix against the two-step method, on the caller's data (Fig. 3 protocol).

    ``datasets``: a list of ``rebel.datasets.Dataset``, dicts or (X_train, y_train, X_test, y_test) tuples.
    ``cost_matrices``: one list of (K, K) matrices per dataset (sorted class order), or one list for all.
    ``posterior``: the two-step method's posterior estimator, an estimator or a name of
    ``rebel.baselines.ESTIMATORS`` (default ``"rebel"``: REBEL with 0-1 costs), with ``n_rounds`` rounds of depth
    ``max_depth``; fitted once per dataset and reused for all its cost matrices.

    Returns one row per (dataset, cost matrix): ``dataset, cost_id, n_classes, rebel_cost, two_step_cost,
    blind_cost`` (the posterior model's own argmax, costs ignored), ``rebel_error, two_step_error, bayes_cost``
    (NaN unless the dataset carries its mixture), ``win`` (REBEL's test cost strictly lower), ``tie``.
    """
    splits = [_as_split(d, f"dataset_{i}") for i, d in enumerate(datasets)]
    per_dataset = _costs_per_dataset(cost_matrices, len(splits))
    if posterior is None or isinstance(posterior, str):
        estimator = make_estimator(posterior or "rebel", n_rounds, max_depth, random_state=0)
    else:
        estimator = posterior
    per_dataset = [
        [validate_cost_matrix(C, n_classes=s.n_classes) for C in cs] for s, cs in zip(splits, per_dataset)
    ]
    tasks = [(("post", i), _posterior_task, (s, estimator)) for i, s in enumerate(splits)]
    tasks += [
        (("cs", i, j), _rebel_cost_task, (s, C, n_rounds, max_depth))
        for i, (s, cs) in enumerate(zip(splits, per_dataset))
        for j, C in enumerate(cs)
    ]
    results = run_tasks(tasks, n_jobs, backend, progress)
    rows = []
    for i, (s, cs) in enumerate(zip(splits, per_dataset)):
        posterior = results[("post", i)]
        blind_pred = np.argmax(posterior, axis=1)  # the cost-blind max-posterior class
        two_step_pred = [min_risk_class(posterior, C) for C in cs]
        for j, C in enumerate(cs):
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
    df = pd.DataFrame(rows)
    df["win"] = df["rebel_cost"] < df["two_step_cost"]
    df["tie"] = df["rebel_cost"] == df["two_step_cost"]
    return df


COST_DISTRIBUTIONS = ("paper", "lognormal", "spike")


def sample_cost_matrix(n_classes: int, rng, distribution: str = "paper") -> np.ndarray:
    """A random cost matrix (zero diagonal) normalised so random guessing costs 1 (uniform priors).

    ``"paper"``: half-normal off-diagonal entries (``rebel.cost_presets.random_costs``); ``"lognormal[:s]"``:
    ``exp(s z)``, z ~ N(0, 1), s = 1.5 by default (a few mistakes much costlier than the rest);
    ``"spike[:m]"``: 0-1 costs with one random mistake costing m (default 10), as in Fig. 7.
    """
    rng = np.random.default_rng(rng)
    kind, _, arg = str(distribution).partition(":")
    if kind not in COST_DISTRIBUTIONS:
        raise ValueError(
            f"cost distribution {distribution!r} is unknown; choose one of {COST_DISTRIBUTIONS} "
            "(optionally with a parameter, e.g. 'lognormal:2' or 'spike:20')."
        )
    K = int(n_classes)
    if kind == "paper":
        return random_costs(K, rng)
    if kind == "lognormal":
        C = np.exp(float(arg or 1.5) * rng.standard_normal((K, K)))
    else:
        C = 1.0 - np.eye(K)
        y, k = rng.choice(K, size=2, replace=False)
        C[y, k] = float(arg or 10.0)
    np.fill_diagonal(C, 0.0)
    return normalize_costs(C)


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
) -> pd.DataFrame:
    """Fig. 3: ``n_datasets`` random mixtures (1000 training / 500 test points) x ``n_costs`` random cost matrices
    (zero diagonal, half-normal entries, random guessing costs 1), ``n_rounds`` weak learners; see
    ``compare_cost_sensitive`` for the columns and ``posterior``. Datasets and costs come from
    ``rebel.datasets.paper_protocol``; ``cost_distribution`` (see ``sample_cost_matrix``) swaps the costs."""
    trials = paper_protocol(n_datasets, n_costs, seed)
    datasets = [make_dataset(spec, f"random_{i}") for i, (spec, _) in enumerate(trials)]
    costs = [c for _, c in trials]
    if cost_distribution != "paper":
        costs = [
            [sample_cost_matrix(len(c[0]), [seed, i, 1 + j, 99], cost_distribution) for j in range(n_costs)]
            for i, c in enumerate(costs)
        ]
    return compare_cost_sensitive(datasets, costs, n_rounds, max_depth, posterior, n_jobs, backend, progress)


def fig3_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and overall: trials, REBEL win rate (strictly lower test cost), ties, mean costs, and the win
    rate on the harder half of the trials (two-step cost above the median; the paper: "especially on the harder
    classification problems")."""

    def stats(g):
        return pd.Series(
            {
                "trials": len(g),
                "win_rate": g["win"].mean(),
                "tie_rate": g["tie"].mean(),
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


def _resolve_datasets(datasets, seed: int) -> list:
    """Names or caller-given (name, X, y) triples -> [(name, X, y, mixture)]."""
    out = []
    for d in datasets:
        if isinstance(d, str):
            out.append((d, *load_named(d, seed)))
        elif isinstance(d, (tuple, list)) and len(d) == 3:
            out.append((str(d[0]), np.asarray(d[1], dtype=np.float64), np.asarray(d[2]), None))
        else:
            raise ValueError(
                f"dataset {d!r}: give a name ({list(BUNDLED)}, random_<i>, a preset) or (name, X, y)."
            )
    return out


def _check_methods(methods) -> list:
    methods = list(methods)
    unknown = [m for m in methods if m not in ESTIMATORS]
    if unknown:
        raise ValueError(f"method {unknown[0]!r} is unknown; choose from {list(ESTIMATORS)}.")
    return [m for m in methods if m in available_estimators()]


def fig4(
    datasets=FIG4_DATASETS,
    methods=FIG4_METHODS,
    n_splits: int = 5,
    n_rounds: int = 200,
    max_depth: int = 1,
    seed: int = PAPER_SEED,
    cost_matrices: dict | None = None,
    n_jobs: int | None = 2,
    backend: str | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Fig. 4 and Fig. 6: every method on every dataset and split, error and cost after every round.

    ``datasets``: names (see ``load_named``) or (name, X, y) triples; ``methods``: names from
    ``rebel.baselines.ESTIMATORS`` (LightGBM is skipped when not installed). Each dataset gets ``n_splits``
    random stratified 50/25/25 train/validation/test splits and a cost matrix (``cost_matrices[name]``, default
    ``experiment_costs``: random, normalised so random guessing costs 1 under the class frequencies).
    Every method is trained cost-blind (``training = "0-1"``) and read with ``decision = "argmax"`` (cost-blind)
    and ``"min-risk"`` (two-step); REBEL is also trained with the costs (``training = "cost"``).

    Returns the curves: one row per (dataset, split, method, training, decision, t) with ``val_error, val_cost,
    test_error, test_cost``. ``select_rounds`` turns it into one row per trial.
    """
    methods = _check_methods(methods)
    cost_matrices = dict(cost_matrices or {})
    tasks = []
    for d_idx, (name, X, y, mixture) in enumerate(_resolve_datasets(datasets, seed)):
        splits = three_way_splits(X, y, n_splits, seed + d_idx, name=name, mixture=mixture)
        K = splits[0].n_classes
        C = cost_matrices.get(name)
        C = experiment_costs(K, splits[0].y_train, seed + d_idx) if C is None else validate_cost_matrix(C, K)
        for s_idx, split in enumerate(splits):
            runs = [(m, "0-1") for m in methods] + ([("rebel", "cost")] if "rebel" in methods else [])
            for method, training in runs:
                key = (name, s_idx, method, training)
                tasks.append((key, _method_task, (split, method, training, C, n_rounds, max_depth, s_idx)))
    results = run_tasks(tasks, n_jobs, backend, progress)
    frames = []
    for key, *_ in tasks:
        frame = results[key]
        name, s_idx, method, training = key
        frames.append(frame.assign(dataset=name, split=s_idx, method=ESTIMATORS[method], training=training))
    cols = [
        "dataset",
        "split",
        "method",
        "training",
        "decision",
        "t",
        "val_error",
        "val_cost",
        "test_error",
        "test_cost",
    ]
    return pd.concat(frames, ignore_index=True)[cols]


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
        test_error_mean=("test_error", "mean"),
        test_error_std=("test_error", "std"),
        test_cost_mean=("test_cost", "mean"),
        test_cost_std=("test_cost", "std"),
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


def table1(
    datasets=TABLE1_DATASETS,
    depths=(1, 2, 3, 4),
    n_splits: int = 5,
    n_rounds: int = 100,
    seed: int = PAPER_SEED,
    cost_matrices: dict | None = None,
    n_jobs: int | None = 2,
    backend: str | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Table 1: REBEL with trees of each depth, trained with 0-1 costs (test error) and with the dataset's cost
    matrix (test cost), rounds chosen on validation; one row per (dataset, split, depth, training) with
    ``t_error, test_error, t_cost, test_cost`` (read ``test_error`` for 0-1 rows, ``test_cost`` for cost rows)."""
    frames = []
    tasks = []
    for d_idx, (name, X, y, mixture) in enumerate(_resolve_datasets(datasets, seed)):
        splits = three_way_splits(X, y, n_splits, seed + d_idx, name=name, mixture=mixture)
        K = splits[0].n_classes
        C = (cost_matrices or {}).get(name)
        C = experiment_costs(K, splits[0].y_train, seed + d_idx) if C is None else validate_cost_matrix(C, K)
        for s_idx, split in enumerate(splits):
            for depth in depths:
                for training in ("0-1", "cost"):
                    key = (name, s_idx, depth, training)
                    tasks.append(
                        (key, _method_task, (split, "rebel", training, C, n_rounds, depth, s_idx, False))
                    )
    results = run_tasks(tasks, n_jobs, backend, progress)
    for key, *_ in tasks:
        name, s_idx, depth, training = key
        frames.append(results[key].assign(dataset=name, split=s_idx, depth=depth, training=training))
    curves = pd.concat(frames, ignore_index=True)
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
    "Split",
    "compare_cost_sensitive",
    "experiment_costs",
    "fig3",
    "fig3_summary",
    "fig4",
    "fig4_summary",
    "load_named",
    "run_tasks",
    "sample_cost_matrix",
    "select_rounds",
    "table1",
    "table1_summary",
    "three_way_splits",
]
