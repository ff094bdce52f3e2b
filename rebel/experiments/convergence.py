"""Does REBEL's optimiser reach the loss of the mapped two-step model if it runs long enough?
(``python -m rebel reproduce surrogate --rebel-rounds 3200``).

The two-step model (REBEL with 0-1 costs, ``Trials.n_rounds`` stumps, posterior sigma(2H)) is mapped into
REBEL's score space by the loss's population minimiser (``diagnostics.population_scores``); its REBEL training
loss and its training cost are fixed numbers per trial. REBEL trained with the costs is read along its rounds at
``CHECKPOINTS`` up to ``rebel_rounds``: its training loss L (Eq. 2, ``train_loss_``) and training cost
(``train_risk_``), against the mapped model's, trial by trial.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rebel.booster import training_loss
from rebel.costs import min_risk_class
from rebel.estimator import RebelClassifier
from rebel.experiments.diagnostics import Trials, population_scores
from rebel.experiments.runner import Progress, run_tasks
from rebel.experiments.splits import Split

CHECKPOINTS = (25, 50, 100, 200, 400, 800, 1600, 3200, 6400)


def _curve_task(split: Split, C: np.ndarray, P_train: np.ndarray, n_rounds: int, depth: int) -> list:
    model = RebelClassifier(cost_matrix=C, n_estimators=n_rounds, max_depth=depth).fit(
        split.X_train, split.y_train
    )
    rows = C[split.y_train]
    two_step = min_risk_class(P_train, C)
    mapped_loss = training_loss(population_scores(P_train, C), rows)
    mapped_cost = float(rows[np.arange(len(two_step)), two_step].mean())
    last = model.n_estimators_
    return [
        {
            "rounds": t,
            "rebel_loss": float(model.train_loss_[min(t, last)]),
            "rebel_train_cost": float(model.train_risk_[min(t, last)]),
            "mapped_loss": mapped_loss,
            "two_step_train_cost": mapped_cost,
        }
        for t in CHECKPOINTS
        if t <= n_rounds
    ]


def surrogate_curves(
    trials: Trials, rebel_rounds: int, n_jobs: int | None = 1, progress: Progress | None = None
) -> pd.DataFrame:
    """One row per (trial, checkpoint <= rebel_rounds): ``dataset, cost_id, rounds, rebel_loss,
    rebel_train_cost, mapped_loss, two_step_train_cost``, plus ``loss_below`` (REBEL's loss under the mapped
    model's) and ``cost_below`` (REBEL's training cost under the two-step's)."""
    splits, costs, posts = trials.with_posteriors("train", n_jobs)
    tasks = [
        ((i, j), _curve_task, (s, C, posts[i], int(rebel_rounds), trials.max_depth))
        for i, (s, cs) in enumerate(zip(splits, costs))
        for j, C in enumerate(cs)
    ]
    results = run_tasks(tasks, n_jobs, progress=progress)
    rows = [
        {"dataset": splits[i].name, "cost_id": j, **r}
        for (i, j), *_ in tasks
        if (i, j) in results
        for r in results[(i, j)]
    ]
    df = pd.DataFrame(rows)
    if len(df):
        df["loss_below"] = df["rebel_loss"] < df["mapped_loss"]
        df["cost_below"] = df["rebel_train_cost"] < df["two_step_train_cost"]
    return df


def curve_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per checkpoint: mean REBEL loss and training cost, the mapped model's, and in how many trials REBEL's loss
    (cost) is below the mapped model's (the two-step's)."""
    g = df.groupby("rounds")
    return pd.DataFrame(
        {
            "trials": g.size(),
            "rebel_loss": g["rebel_loss"].mean(),
            "mapped_loss": g["mapped_loss"].mean(),
            "loss_below": g["loss_below"].sum(),
            "rebel_train_cost": g["rebel_train_cost"].mean(),
            "two_step_train_cost": g["two_step_train_cost"].mean(),
            "cost_below": g["cost_below"].sum(),
        }
    )
