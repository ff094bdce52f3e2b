"""Costs known per training example only: REBEL trained on each point's costs against two-step methods that
average the costs per class, regress them on x, or weight training by them (the app's Example-costs page).

A mistake on point n costs ``c_n = C[y_n] exp(lambda s_y x_n1 / 5)`` (``diagnostics.example_costs``): the class matrix C
scaled along the first feature, growing or shrinking with a random sign s_y per true class. The costs are known
for the training points only. REBEL trains on each point's own cost row (``sample_cost``); the two-step method
(the same engine trained with 0-1 costs, its loss's posterior, equal capacity) uses the class-averaged
matrix (``diagnostics.class_averaged``); the stronger two-steps regress the cost rows on x (kNN) or weight the
training points by their costs (``diagnostics.regressed_two_step`` / ``weighted_two_step``). The trial itself is ``diagnostics.example_cost_task`` (the CLI's
``reproduce example-costs`` runs the same); this module adds the app's engine options, a dataset-by-dataset run
that can stop, and the region picture. Test points are scored with their own c_n, which neither model sees; the Bayes
rule uses the exact posterior and each point's c_n (the floor).

``example_cost_steps`` yields an ``ExampleCostRun`` (one row per (lambda, dataset, cost matrix): ``lambda,
dataset, cost_id, rebel_cost, two_step_cost, regressed_cost, weighted_cost, bayes_cost, win, tie``; ``win``
is against the class-averaged two-step) after each dataset; ``example_cost_regions``
gives both models' decision regions on a grid. Arrays: X (N, 2) float64, labels as class indices, cost rows
(N, K), C (K, K), regions (ny, nx) int. No streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rebel import budget
from rebel.costs import min_risk_class
from rebel.data.mixture import FEATURE_NAMES, PAPER_SEED, mixture_classes, paper_random_specs
from rebel.estimator import RebelClassifier
from rebel.experiments.diagnostics import class_averaged, cost_signs, example_cost_task, example_costs
from rebel.experiments.runner import Progress, drive, run_tasks
from rebel.experiments.splits import Split, protocol_splits
from rebel.experiments.versus import check_variant
from rebel.params import check_param

LAMBDAS = (0.0, 1.5, 3.0, 5.0)
LAMBDA_CHOICES = (0.0, 0.5, 1.5, 3.0, 5.0, 8.0)
DEFAULTS = {"n_datasets": 4, "n_costs": 3, "n_rounds": 100, "max_depth": 2}
LIMITS = {"n_datasets": (1, 20), "n_costs": (1, 20)}
COLUMNS = [
    "lambda",
    "dataset",
    "cost_id",
    "rebel_cost",
    "two_step_cost",
    "regressed_cost",
    "weighted_cost",
    "bayes_cost",
]


def _models(split: Split, C, lam: float, signs, n_rounds: int, depth: int, variant: dict) -> tuple:
    """(REBEL fitted on the example costs, the 0-1 model, the class-averaged matrix)."""
    rows = example_costs(C, split.y_train, split.X_train, lam, signs)
    rebel = RebelClassifier(n_estimators=n_rounds, max_depth=depth, **variant)
    rebel.fit(split.X_train, split.y_train, sample_cost=rows)
    zero_one = RebelClassifier(n_estimators=n_rounds, max_depth=depth, random_state=0, **variant)
    return (
        rebel,
        zero_one.fit(split.X_train, split.y_train),
        class_averaged(rows, split.y_train, split.n_classes),
    )


def _posterior(split: Split, n_rounds: int, depth: int, variant: dict) -> np.ndarray:
    model = RebelClassifier(n_estimators=n_rounds, max_depth=depth, random_state=0, **variant)
    return model.fit(split.X_train, split.y_train).predict_proba(split.X_test)


@dataclass
class ExampleCostRun:
    """The trials finished so far (``COLUMNS`` + ``win``, ``tie``), the splits and cost matrices used."""

    trials: pd.DataFrame
    splits: list
    costs: list
    settings: dict
    planned: int
    cancelled: bool = False

    @property
    def done(self) -> int:
        return len(self.trials)


def _check_count(name: str, value) -> int:
    lo, hi = LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{name} is {value!r}; use a whole number from {lo} to {hi}.")
    return int(value)


def check_lambdas(lambdas) -> list:
    """Distinct, sorted, finite lambdas in [0, 10]; at least one."""
    try:
        values = sorted({float(v) for v in lambdas})
    except (TypeError, ValueError):
        raise ValueError(f"lambda values must be numbers; got {lambdas!r}.") from None
    if not values:
        raise ValueError(
            "choose at least one lambda (0 = the class matrix itself; 1.5, 3, 5 spread the costs)."
        )
    bad = [v for v in values if not (np.isfinite(v) and 0 <= v <= 10)]
    if bad:
        raise ValueError(f"lambda {bad[0]!r} is outside [0, 10]; choose values such as 0, 1.5, 3, 5.")
    return values


def example_cost_cost(
    n_datasets: int,
    n_costs: int,
    lambdas,
    n_rounds: int,
    max_depth: int,
    seed: int = PAPER_SEED,
    variant=None,
) -> budget.RunCost:
    """The budget cost (``rebel.budget``) of ``example_cost_steps`` with these settings (its defaults are
    there) before any work: per dataset one 0-1 posterior model, and per cost matrix and lambda REBEL on the
    example costs and the cost-weighted two-step."""
    n_datasets, n_costs = _check_count("n_datasets", n_datasets), _check_count("n_costs", n_costs)
    lambdas, variant = check_lambdas(lambdas), check_variant(variant)
    hyper = {
        **variant,
        "n_estimators": check_param("n_estimators", n_rounds, app=True),
        "max_depth": check_param("max_depth", max_depth, app=True),
    }
    d, per_dataset = len(FEATURE_NAMES), 1 + 2 * n_costs * len(lambdas)
    fits = [
        (per_dataset, budget.params_cost(s.n_train, d, len(mixture_classes(s.mixture)), hyper))
        for s in paper_random_specs(n_datasets, int(seed))
    ]
    how = f"{n_datasets} dataset(s) x (1 posterior model + {n_costs} cost matrices x {len(lambdas)} λ x 2)"
    return budget.run_cost(fits, how)


def example_cost_steps(
    n_datasets: int = DEFAULTS["n_datasets"],
    n_costs: int = DEFAULTS["n_costs"],
    lambdas=LAMBDAS,
    n_rounds: int = DEFAULTS["n_rounds"],
    max_depth: int = DEFAULTS["max_depth"],
    seed: int = PAPER_SEED,
    variant: dict | None = None,
    n_jobs: int | None = 2,
    app: bool = False,
):
    """Random mixtures of the paper's protocol, dataset by dataset: yields an ``ExampleCostRun`` before the
    first dataset and after each one (all its cost matrices and lambdas; fits in parallel). ``app``: refuse a
    run over the app's budget (``example_cost_cost``, ``rebel.budget``) before any work."""
    n_datasets, n_costs = _check_count("n_datasets", n_datasets), _check_count("n_costs", n_costs)
    lambdas, variant = check_lambdas(lambdas), check_variant(variant)
    n_rounds = check_param("n_estimators", n_rounds, app=True)
    max_depth = check_param("max_depth", max_depth, app=True)
    if app:
        budget.check_run(
            example_cost_cost(n_datasets, n_costs, lambdas, n_rounds, max_depth, seed, variant), app=True
        )
    settings = {"n_datasets": n_datasets, "n_costs": n_costs, "lambdas": lambdas, "n_rounds": n_rounds}
    settings.update(max_depth=max_depth, seed=int(seed), variant=variant)
    splits, costs = protocol_splits(n_datasets, n_costs, int(seed))
    planned, rows = n_datasets * n_costs * len(lambdas), []
    yield ExampleCostRun(pd.DataFrame(columns=[*COLUMNS, "win", "tie"]), [], [], settings, planned, True)
    for i, (split, cs) in enumerate(zip(splits, costs)):
        P = _posterior(split, n_rounds, max_depth, variant)
        tasks = [
            (
                (lam, j),
                example_cost_task,
                (split, C, lam, cost_signs(seed, i, j, split.n_classes), P, n_rounds, max_depth, variant),
            )
            for j, C in enumerate(cs)
            for lam in lambdas
        ]
        results = run_tasks(tasks, n_jobs)
        rows += [
            {"lambda": lam, "dataset": split.name, "cost_id": j, **results[(lam, j)]}
            for (lam, j), *_ in tasks
        ]
        df = pd.DataFrame(rows, columns=COLUMNS)
        df = df.assign(
            win=df["rebel_cost"] < df["two_step_cost"], tie=df["rebel_cost"] == df["two_step_cost"]
        )
        yield ExampleCostRun(df, splits[: i + 1], costs[: i + 1], settings, planned, len(df) < planned)


def example_cost_run(progress: Progress | None = None, **settings) -> ExampleCostRun:
    """``example_cost_steps(**settings)`` to the end; ``progress(trials done, planned, "trials")``."""
    return drive(example_cost_steps(**settings), progress, lambda r: (r.done, r.planned), "trials")[0]


def example_cost_regions(run: ExampleCostRun, lam: float, xs: np.ndarray, ys: np.ndarray) -> dict:
    """Both models of the run's first trial (first dataset, first cost matrix) at ``lam`` on the grid xs x ys:
    ``rebel`` and ``two_step`` regions (ny, nx), their class indices on the training points (``rebel_train``,
    ``two_step_train``), ``train_cost`` (N,) each training point's mean mistake cost, and the class-averaged
    matrix ``averaged``."""
    s, split, C = run.settings, run.splits[0], run.costs[0][0]
    signs = cost_signs(s["seed"], 0, 0, split.n_classes)
    rebel, zero_one, averaged = _models(split, C, lam, signs, s["n_rounds"], s["max_depth"], s["variant"])
    gx, gy = np.meshgrid(xs, ys)
    G = np.column_stack([gx.ravel(), gy.ravel()])
    rows = example_costs(C, split.y_train, split.X_train, lam, signs)
    K = split.n_classes
    return {
        "rebel": np.argmax(rebel.risk_scores(G), axis=1).reshape(gx.shape),
        "two_step": min_risk_class(zero_one.predict_proba(G), averaged).reshape(gx.shape),
        "rebel_train": np.argmax(rebel.risk_scores(split.X_train), axis=1),
        "two_step_train": min_risk_class(zero_one.predict_proba(split.X_train), averaged),
        "train_cost": rows.sum(axis=1) / max(K - 1, 1),
        "averaged": averaged,
    }


__all__ = [
    "LAMBDAS",
    "ExampleCostRun",
    "check_lambdas",
    "example_cost_regions",
    "example_cost_run",
    "example_cost_steps",
]
