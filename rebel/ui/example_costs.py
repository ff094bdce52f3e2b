"""View-model of the Example-costs page: per-lambda win rates and mean costs of a run
(``rebel.experiments.example_costs``) against every two-step baseline with intervals from a bootstrap over
datasets (``rebel.experiments.stats``), an honest Markdown summary, and the plotting grid of the region picture.

Reads the run's trials (``lambda, rebel_cost, two_step_cost, regressed_cost, weighted_cost, bayes_cost, win,
tie``) and the first split's
training points X (N, 2). No streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rebel.experiments import stats
from rebel.experiments.example_costs import ExampleCostRun
from rebel.ui.text import Markdown, md
from rebel.ui.vs_two_step import outcome_rates

GRID_POINTS = 150


def lambda_rates(trials: pd.DataFrame) -> pd.DataFrame:
    """Per lambda: trials, REBEL's win and loss rates, mean test costs of REBEL, two-step and Bayes."""
    return outcome_rates(trials, "lambda", ("rebel_cost", "two_step_cost", "bayes_cost"))


BASELINES = {
    "two_step_cost": "class-averaged two-step",
    "regressed_cost": "cost-regressing two-step (kNN)",
    "weighted_cost": "cost-weighted two-step",
}


def _one(lam: float, g: pd.DataFrame) -> tuple:
    """One λ in words (REBEL against each two-step baseline, bootstrap intervals over datasets) and whether
    REBEL is cheaper than the strongest baseline (the one with the lowest mean cost) beyond its interval."""
    cols = [c for c in BASELINES if c in g.columns]
    strongest = min(cols, key=lambda c: g[c].mean())
    parts = []
    for c in cols:
        s = stats.compare_costs(g, "rebel_cost", c)
        parts.append(md("{} {:.3f} (REBEL wins {})", BASELINES[c], s["b_cost"], stats.rate_text(s)))
    best = stats.compare_costs(g, "rebel_cost", strongest)
    line = (
        md(
            "λ = {:g}, {} trials: REBEL's mean test cost {:.3f}, Bayes {:.3f}; ",
            lam,
            len(g),
            g["rebel_cost"].mean(),
            g["bayes_cost"].mean(),
        )
        + md("; ").join(parts)
        + md(". Strongest baseline: {}.", BASELINES[strongest])
    )
    return line, stats.direction(best)


def example_text(run: ExampleCostRun) -> Markdown:
    """What the run shows, in plain words: per λ REBEL against every two-step baseline (win rates with
    intervals from a bootstrap over datasets, mean costs), judged against the strongest one."""
    if run.done == 0:
        return md("No trial finished yet. Run again and let it finish.")
    out = [_one(lam, g) for lam, g in run.trials.groupby("lambda", sort=True)]
    lines = [md("- ") + line for line, _ in out]
    ahead = [
        lam for (lam, _), (_, way) in zip(run.trials.groupby("lambda", sort=True), out) if way == "A cheaper"
    ]
    if not ahead:
        verdict = md(
            "**REBEL is not cheaper than the strongest two-step baseline at any λ in this run** (no interval of "
            "the mean cost difference lies below 0). A two-step method that regresses the training cost rows on "
            "x or weights training by them can use the per-example costs too."
        )
    else:
        lams = ", ".join(f"{v:g}" for v in ahead)
        verdict = md(
            "**REBEL is cheaper than the strongest two-step baseline at λ = {}** (interval below 0).", lams
        )
    if 0.0 in set(run.trials["lambda"]):
        verdict += md(
            " At λ = 0 every point of a class has the same costs: this is the paper's Fig. 3 setting."
        )
    if run.cancelled:
        verdict += md(" *Stopped early: {} of {} trials finished.*", run.done, run.planned)
    return md("\n").join(lines) + md("\n\n") + verdict


def plot_grid(X: np.ndarray, n: int = GRID_POINTS, pad: float = 0.1) -> tuple:
    """Grid coordinates (xs, ys) spanning the points with a margin."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    margin = pad * (hi - lo)
    return np.linspace(lo[0] - margin[0], hi[0] + margin[0], n), np.linspace(
        lo[1] - margin[1], hi[1] + margin[1], n
    )
