"""Research runs behind the analysis pages, on the user's settings: small versions of the paper's experiments
that report progress and can stop between steps. No streamlit here.

- Fig. 3 (``fig3_steps``/``fig3_run``): cost-sensitive REBEL against an equal-capacity two-step method on
  random mixtures (the paper's protocol) or on redraws of the Playground's mixture, one dataset at a time, with
  a choice of the two-step posterior and engine options for both sides (``rebel.experiments.versus``), read on
  training and test points at several round counts and optionally at several depths (the capacity sweep).
- Table 1 on one dataset (``depth_study_steps``/``depth_study``): stumps vs deeper trees, depth by depth.
- Real data (``REAL_DATASETS``, ``load_real``, ``real_costs``, ``train_real_steps``/``train_real``): a bundled or
  sample dataset, a cost matrix, REBEL and the baselines' test cost and error after every round (Fig. 4, 6).
- Cost sweep (``sweep_steps``/``run_sweep``): one cost entry over a log range; per-class recall/precision and
  test cost of REBEL and of the two-step method (``rebel.baselines.TwoStepClassifier``) at every value.

Each ``*_steps`` generator yields partial results (first an empty one); ``*_run`` / ``depth_study`` /
``train_real`` / ``run_sweep`` drive it with the one progress protocol: ``progress(done, total, label)``,
returning False asks to stop between steps (the result then holds what is done, marked cancelled).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.frozen import FrozenEstimator

from rebel import budget
from rebel.baselines import TwoStepClassifier
from rebel.cost_presets import random_costs
from rebel.costs import validate_cost_matrix
from rebel.data import (
    PAPER_SEED,
    Dataset,
    DatasetSpec,
    make_dataset,
    paper_protocol,
)
from rebel.data.mixture import FEATURE_NAMES, mixture_classes, paper_random_specs
from rebel.estimator import RebelClassifier
from rebel.experiments import paper as ex
from rebel.experiments import versus
from rebel.experiments.runner import Progress, drive
from rebel.experiments.splits import _as_split
from rebel.params import check_param

MAX_SWEEP_VALUES = 40

FIG3_COLUMNS = ex.FIG3_COLUMNS
PAPER_WIN_RATE = 0.9  # Sec. 5: "REBEL outperforms the standard method in ~90% of the trials"
FIG3_DEFAULTS = {"n_datasets": 10, "n_costs": 10, "n_rounds": 100, "max_depth": 1}
FIG3_LIMITS = {"n_datasets": (1, 20), "n_costs": (1, 40)}  # rounds and depth: rebel.params (app ranges)
SWEEP_DEPTHS = (1, 2, 3)  # the capacity sweep's depths (plus the run's own depth)


def _check_setting(name: str, value, limits: dict) -> int:
    lo, hi = limits[name]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{name} is {value!r}; use a whole number from {lo} to {hi}.")
    return int(value)


# --------------------------------------------------------------------------------------------------------------
# Fig. 3: REBEL vs two-step, on random mixtures or on the Playground's mixture
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Fig3Run:
    """One Fig. 3 run. ``grid``: rows of ``versus.VERSUS_COLUMNS`` (every depth, round checkpoint and part);
    ``trials``: the run's own setting (depth, all rounds) on the test points, one row per (dataset, cost
    matrix) with ``win``/``tie``; ``datasets`` are the datasets in run order (thumbnails)."""

    grid: pd.DataFrame
    datasets: list
    settings: dict
    planned: int  # trials asked for
    cancelled: bool = False

    def part_trials(self, part: str = "test") -> pd.DataFrame:
        """One row per trial at the run's depth and rounds, costs on ``part`` ("test" or "train")."""
        g = self.grid
        s = self.settings
        keep = (g["part"] == part) & (g["depth"] == s["max_depth"]) & (g["rounds"] == s["n_rounds"])
        return with_outcome(g[keep].reset_index(drop=True))

    @property
    def trials(self) -> pd.DataFrame:
        return self.part_trials("test")

    @property
    def done(self) -> int:
        return len(self.trials)


def with_outcome(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``win`` (REBEL's cost strictly lower than the two-step's) and ``tie`` columns."""
    return frame.assign(
        win=frame["rebel_cost"] < frame["two_step_cost"], tie=frame["rebel_cost"] == frame["two_step_cost"]
    )


def _redraws(spec: DatasetSpec, n_datasets: int, seed: int) -> list:
    """The Playground's mixture sampled ``n_datasets`` times (seeds seed, seed + 1, ...)."""
    out = []
    for i in range(n_datasets):
        s = DatasetSpec(spec.mixture, spec.n_points, spec.test_fraction, int(seed) + i, spec.label_noise)
        out.append(make_dataset(s, f"draw {i + 1}"))
    return out


def fig3_trials(
    source: str = "random",
    n_datasets: int = 10,
    n_costs: int = 10,
    seed: int = PAPER_SEED,
    dataset: Dataset | None = None,
    cost_matrix=None,
) -> list:
    """The datasets and cost matrices of a run: ``[(Dataset, [C_1, ...]), ...]``.

    ``source="random"``: the paper's protocol (random mixtures of Fig. 9, half-normal cost matrices with random
    guessing costing 1). ``source="playground"``: ``dataset`` redrawn ``n_datasets`` times from its mixture (or
    used as it is when it has none, e.g. an uploaded CSV); the first cost matrix is ``cost_matrix`` (the user's),
    the others random as in the paper.
    """
    n_datasets = _check_setting("n_datasets", n_datasets, FIG3_LIMITS)
    n_costs = _check_setting("n_costs", n_costs, FIG3_LIMITS)
    if source == "random":
        return [
            (make_dataset(spec, f"random {i}"), costs)
            for i, (spec, costs) in enumerate(paper_protocol(n_datasets, n_costs, seed))
        ]
    if source != "playground":
        raise ValueError(f"source is {source!r}; use 'random' (paper protocol) or 'playground'.")
    if dataset is None:
        raise ValueError("source 'playground' needs the Playground's dataset; train a model there first.")
    K = dataset.n_classes
    datasets = _redraws(dataset.spec, n_datasets, int(dataset.spec.seed or 0)) if dataset.spec else [dataset]
    out = []
    for i, ds in enumerate(datasets):
        costs = [random_costs(K, np.random.default_rng([seed, i, 1 + j])) for j in range(n_costs)]
        if cost_matrix is not None:
            costs[0] = validate_cost_matrix(cost_matrix, n_classes=K)
        out.append((ds, costs))
    return out


def _fig3_shapes(source: str, n_datasets: int, seed: int, dataset: Dataset | None) -> list:
    """(training points, features, classes) of each dataset ``fig3_trials`` would draw, without drawing it."""
    if source == "random":
        d = len(FEATURE_NAMES)
        return [(s.n_train, d, len(mixture_classes(s.mixture))) for s in paper_random_specs(n_datasets, seed)]
    if source != "playground":
        raise ValueError(f"source is {source!r}; use 'random' (paper protocol) or 'playground'.")
    if dataset is None:
        raise ValueError("source 'playground' needs the Playground's dataset; train a model there first.")
    K = dataset.n_classes
    if dataset.spec is not None:
        return [(dataset.spec.n_train, len(FEATURE_NAMES), K)] * n_datasets
    return [(dataset.X_train.shape[0], dataset.X_train.shape[1], K)]


def fig3_cost(
    source: str,
    n_datasets: int,
    n_costs: int,
    n_rounds: int,
    max_depth: int,
    seed: int = PAPER_SEED,
    dataset: Dataset | None = None,
    posterior: str = "sigma",
    variant: dict | None = None,
    sweep_depths: bool = False,
) -> budget.RunCost:
    """The budget cost (``rebel.budget``) of ``fig3_steps`` with these settings (its defaults are there), before
    any work: per dataset and depth, one REBEL fit per cost matrix and the two-step side's fits (one; four for a
    calibrated posterior: 3 out-of-fold fits and the full one, each counted at full size). SAMME and LightGBM
    are counted as REBEL fits of the same size."""
    n_datasets = _check_setting("n_datasets", n_datasets, FIG3_LIMITS)
    n_costs = _check_setting("n_costs", n_costs, FIG3_LIMITS)
    n_rounds = check_param("n_estimators", n_rounds, app=True)
    max_depth = check_param("max_depth", max_depth, app=True)
    variant = versus.check_variant(variant)
    two_step = 4 if versus.check_posterior(posterior).startswith("calibrated-") else 1
    depths = sorted({max_depth, *(SWEEP_DEPTHS if sweep_depths else ())})
    shapes = _fig3_shapes(source, n_datasets, seed, dataset)
    fits = [
        (
            n_costs + two_step,
            budget.params_cost(N, d, K, {**variant, "n_estimators": n_rounds, "max_depth": D}),
        )
        for N, d, K in shapes
        for D in depths
    ]
    how = (
        f"{len(shapes)} dataset(s) x {len(depths)} depth(s) x ({n_costs} cost matrices + {two_step} two-step "
        "fit(s))"
    )
    return budget.run_cost(fits, how)


def fig3_steps(
    source: str = "random",
    n_datasets: int = FIG3_DEFAULTS["n_datasets"],
    n_costs: int = FIG3_DEFAULTS["n_costs"],
    n_rounds: int = FIG3_DEFAULTS["n_rounds"],
    max_depth: int = FIG3_DEFAULTS["max_depth"],
    seed: int = PAPER_SEED,
    dataset: Dataset | None = None,
    cost_matrix=None,
    n_jobs: int = 2,
    posterior: str = "sigma",
    variant: dict | None = None,
    sweep_depths: bool = False,
    app: bool = False,
):
    """Fig. 3 dataset by dataset: yields a ``Fig3Run`` with every trial done so far (first an empty one, then
    one per dataset), so a caller can show progress and keep the partial result when it stops early. ``app``:
    refuse a run over the app's budget (``fig3_cost``, ``rebel.budget``) before any work.

    Each trial: REBEL trained with the cost matrix vs the two-step method (a cost-blind model's ``posterior``,
    see ``versus.POSTERIORS``, + the minimum-risk rule), both with the engine options ``variant`` and the same
    depth and rounds, read at ``versus.checkpoints(n_rounds)`` on training and test points; with
    ``sweep_depths`` also at the depths ``SWEEP_DEPTHS``. A dataset's fits run in parallel (``n_jobs``)."""
    n_rounds = check_param("n_estimators", n_rounds, app=True)
    max_depth = check_param("max_depth", max_depth, app=True)
    variant = versus.check_variant(variant)
    posterior = versus.check_posterior(posterior)
    if app:
        cost = fig3_cost(
            source, n_datasets, n_costs, n_rounds, max_depth, seed, dataset, posterior, variant, sweep_depths
        )
        budget.check_run(cost, app=True)
    trials = fig3_trials(source, n_datasets, n_costs, seed, dataset, cost_matrix)
    depths = sorted({max_depth, *(SWEEP_DEPTHS if sweep_depths else ())})
    settings = {
        "source": source,
        "n_datasets": len(trials),
        "n_costs": n_costs,
        "n_rounds": n_rounds,
        "max_depth": max_depth,
        "seed": seed,
        "posterior": posterior,
        "variant": variant,
        "depths": depths,
    }
    planned = sum(len(c) for _, c in trials)
    rows, used = [], []
    empty = pd.DataFrame(columns=versus.VERSUS_COLUMNS)
    yield Fig3Run(empty, [], settings, planned, cancelled=True)
    rounds = versus.checkpoints(n_rounds)
    for ds, costs in trials:
        split = _as_split(ds, ds.name)
        rows += versus.dataset_rows(split, costs, posterior, variant, depths, rounds, n_jobs)
        used.append(ds)
        run = Fig3Run(pd.DataFrame(rows, columns=versus.VERSUS_COLUMNS), list(used), settings, planned)
        run.cancelled = run.done < planned
        yield run


def fig3_run(progress: Progress | None = None, **settings) -> Fig3Run:
    """``fig3_steps(**settings)`` run to the end: ``progress(trials done, trials planned, "trials")`` after
    each dataset; returning False stops between datasets (the result then holds the finished ones,
    ``cancelled=True``)."""
    return drive(fig3_steps(**settings), progress, lambda run: (run.done, run.planned), "trials")[0]


DEPTHS = (1, 2, 3, 4)


@dataclass
class DepthStudy:
    """Table 1 on one dataset (see ``depth_study_steps``): ``table`` rows "0-1 error" and "cost", one column per
    depth (mean over splits); ``trials`` one row per (split, depth, training)."""

    table: pd.DataFrame
    trials: pd.DataFrame
    depths_done: list
    depths: list
    settings: dict

    @property
    def cancelled(self) -> bool:
        return len(self.depths_done) < len(self.depths)


def _all_points(dataset: Dataset) -> tuple:
    X = np.vstack([dataset.X_train, dataset.X_test]) if len(dataset.y_test) else dataset.X_train
    y = np.concatenate([np.asarray(dataset.y_train, dtype=object), np.asarray(dataset.y_test, dtype=object)])
    return X, dataset.class_index(y)


def depth_study_steps(
    dataset: Dataset,
    cost_matrix,
    depths=DEPTHS,
    n_rounds: int = 100,
    n_splits: int = 3,
    seed: int = 0,
    n_jobs: int = 2,
):
    """Table 1 on one dataset, depth by depth: REBEL with trees of each depth trained with 0-1 costs (test
    error) and with ``cost_matrix`` (test cost) on ``n_splits`` random 50/25/25 splits of all its points, the
    number of rounds (up to ``n_rounds``) chosen on the validation part (``rebel.experiments.table1``).
    Yields a ``DepthStudy`` before the first depth and after each one."""
    C = validate_cost_matrix(cost_matrix, n_classes=dataset.n_classes)
    X, y = _all_points(dataset)
    counts = np.bincount(y, minlength=dataset.n_classes)
    if counts.min() < 4:
        raise ValueError(
            f"class {dataset.classes[int(counts.argmin())]!r} has {counts.min()} points; the depth "
            "study splits the data 50/25/25 and needs at least 4 points of every class."
        )
    depths = [int(d) for d in depths]
    settings = {"n_rounds": int(n_rounds), "n_splits": int(n_splits), "seed": int(seed)}
    frames, done = [], []
    yield DepthStudy(pd.DataFrame(), pd.DataFrame(), [], depths, settings)
    for depth in depths:
        frames.append(
            ex.table1(
                [("current", X, y)],
                depths=(depth,),
                n_splits=n_splits,
                n_rounds=n_rounds,
                seed=seed,
                cost_matrices={"current": C},
                n_jobs=n_jobs,
            )
        )
        done.append(depth)
        trials = pd.concat(frames, ignore_index=True)
        table = ex.table1_summary(trials).droplevel("dataset")
        table.index.name = None
        yield DepthStudy(table, trials, list(done), depths, settings)


def depth_study(dataset: Dataset, cost_matrix, progress: Progress | None = None, **settings) -> DepthStudy:
    """``depth_study_steps(dataset, cost_matrix, **settings)`` to the end; ``progress(depths done, depths,
    "depths")``, False stops between depths."""
    steps = depth_study_steps(dataset, cost_matrix, **settings)
    return drive(steps, progress, lambda r: (len(r.depths_done), len(r.depths)), "depths")[0]


# ---------------------------------------------------------------------------------------------------------------
# Cost sweep (one entry over a log range)
# ---------------------------------------------------------------------------------------------------------------


def sweep_values(lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` log-spaced values from ``lo`` to ``hi`` (both > 0)."""
    try:
        lo, hi, n = float(lo), float(hi), int(n)
    except (TypeError, ValueError):
        raise ValueError("the sweep range needs two numbers and a count, e.g. 0.1, 100 and 13.") from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo <= 0 or hi <= lo:
        raise ValueError(f"the sweep runs from {lo:g} to {hi:g}; give 0 < from < to (e.g. 0.1 to 100).")
    if not 2 <= n <= MAX_SWEEP_VALUES:
        raise ValueError(f"the sweep has {n} values; choose between 2 and {MAX_SWEEP_VALUES}.")
    return np.geomspace(lo, hi, n)


def swept_matrix(cost_matrix, entry: tuple, value: float) -> np.ndarray:
    """A copy of the cost matrix with ``C[truth, predicted] = value``."""
    i, j = map(int, entry)
    C = np.array(cost_matrix, dtype=np.float64)
    if i == j:
        raise ValueError(
            "a correct decision costs 0 by definition; pick a truth and a prediction that differ."
        )
    C[i, j] = float(value)
    return C


@dataclass
class SweepResult:
    """``metrics``: long table (value, method, class, recall, precision) on the test points; ``costs``: (value,
    method, test_cost) with the mean test cost under the swept matrix; ``complete`` is False when stopped."""

    entry: tuple
    values: np.ndarray
    metrics: pd.DataFrame
    costs: pd.DataFrame
    complete: bool


def class_report(y_idx, pred_idx, c: int) -> dict:
    """How class c fares: ``precision`` (NaN if c is never predicted), ``recall`` (NaN without c points),
    ``wrong`` (predictions of c that are wrong: false positives), ``missed`` (c points predicted as another
    class: false negatives), ``predicted`` and ``support`` counts."""
    y_idx, pred_idx = np.asarray(y_idx), np.asarray(pred_idx)
    is_c, said_c = y_idx == c, pred_idx == c
    tp = int(np.sum(is_c & said_c))
    predicted, support = int(said_c.sum()), int(is_c.sum())
    return {
        "precision": tp / predicted if predicted else float("nan"),
        "recall": tp / support if support else float("nan"),
        "wrong": predicted - tp,
        "missed": support - tp,
        "predicted": predicted,
        "support": support,
    }


def _sweep_rows(value: float, preds: dict, y: np.ndarray, C: np.ndarray, K: int) -> tuple:
    costs, metrics = [], []
    for method, pred in preds.items():
        costs.append({"value": value, "method": method, "test_cost": float(C[y, pred].mean())})
        for k in range(K):
            r = class_report(y, pred, k)
            metrics.append(
                {
                    "value": value,
                    "method": method,
                    "class": k,
                    "recall": r["recall"],
                    "precision": r["precision"],
                }
            )
    return costs, metrics


def sweep_steps(
    dataset: Dataset, cost_matrix, hyper: dict, entry: tuple, values, fit=None, app: bool = False
):
    """For each value v: REBEL trained with ``C[entry] = v``, and the two-step method (one cost-blind REBEL
    model with 0-1 costs read through ``TwoStepClassifier`` with the swept matrix), both with ``hyper`` and
    scored on the test points. Yields a ``SweepResult`` before the first value and after each one.
    ``fit(dataset, C, hyper)`` fits a REBEL model (default: a fresh fit; the app passes its model cache).
    ``app``: refuse a sweep over the app's budget (``rebel.budget``) before the first fit."""
    ds = dataset
    if ds.X_test.shape[0] == 0:
        raise ValueError("the dataset has no test points; raise the test share in the Playground.")
    fit = fit or (lambda d, C, h: RebelClassifier(cost_matrix=C, **h).fit(d.X_train, d.y_train))
    values = np.asarray(values, dtype=np.float64)
    if (
        app
    ):  # the app's budget for the whole sweep (one fit per value and the cost-blind one), before any work
        cost = budget.params_cost(ds.X_train.shape[0], ds.X_train.shape[1], ds.n_classes, hyper)
        budget.check_fit(cost, app=True, n_fits=len(values) + 1)
    y, K = ds.class_index(ds.y_test), ds.n_classes
    metrics, costs = [], []
    yield SweepResult(tuple(entry), values[:0], pd.DataFrame(), pd.DataFrame(), False)
    blind = FrozenEstimator(fit(ds, None, hyper))
    for i, v in enumerate(values):
        C = swept_matrix(cost_matrix, entry, v)
        two_step = TwoStepClassifier(blind, C).fit(ds.X_train, ds.y_train)
        preds = {
            "REBEL": np.argmax(fit(ds, C, hyper).risk_scores(ds.X_test), axis=1),
            "two-step": ds.class_index(two_step.predict(ds.X_test)),
        }
        c, m = _sweep_rows(v, preds, y, C, K)
        costs += c
        metrics += m
        yield SweepResult(
            tuple(entry), values[: i + 1], pd.DataFrame(metrics), pd.DataFrame(costs), i + 1 == len(values)
        )


def run_sweep(
    dataset: Dataset,
    cost_matrix,
    hyper: dict,
    entry: tuple,
    values,
    progress: Progress | None = None,
    fit=None,
    app: bool = False,
) -> SweepResult:
    """``sweep_steps`` to the end; ``progress(values done, values, "values")``, False stops between values."""
    n = len(values)
    steps = sweep_steps(dataset, cost_matrix, hyper, entry, values, fit, app)
    return drive(steps, progress, lambda r: (len(r.values), n), "values")[0]
