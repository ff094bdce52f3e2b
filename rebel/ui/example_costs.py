"""View-model of the Example-costs page: per-lambda win rates and mean costs of a run
(``rebel.experiments.example_costs``), an honest Markdown summary, and the plotting grid of the region picture.

Reads the run's trials (``lambda, rebel_cost, two_step_cost, bayes_cost, win, tie``) and the first split's
training points X (N, 2). No streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rebel.experiments.example_costs import ExampleCostRun
from rebel.ui.text import Markdown, md
from rebel.ui.vs_two_step import outcome_rates

GRID_POINTS = 150


def lambda_rates(trials: pd.DataFrame) -> pd.DataFrame:
    """Per lambda: trials, REBEL's win and loss rates, mean test costs of REBEL, two-step and Bayes."""
    return outcome_rates(trials, "lambda", ("rebel_cost", "two_step_cost", "bayes_cost"))


def _one(r) -> Markdown:
    return md(
        "- λ = {:g}: REBEL won {:.0%} of {} trials (mean test cost {:.3f} vs two-step {:.3f}, Bayes {:.3f})",
        r["lambda"],
        r["win_rate"],
        int(r["trials"]),
        r["rebel_cost"],
        r["two_step_cost"],
        r["bayes_cost"],
    )


def example_text(run: ExampleCostRun) -> Markdown:
    """What the run shows, in plain words: win rate per lambda, where REBEL wins most, and where it does not."""
    if run.done == 0:
        return md("No trial finished yet. Run again and let it finish.")
    rates = lambda_rates(run.trials)
    lines = [_one(r) for _, r in rates.iterrows()]
    ahead = rates[rates["win_rate"] > rates["loss_rate"]]
    if ahead.empty:
        verdict = md(
            "**The two-step method wins more trials than REBEL at every λ in this run**: with these settings "
            "the class-averaged matrix loses too little to make up for the two-step method's better posterior."
        )
    elif len(ahead) == len(rates):
        verdict = md("**REBEL wins more trials than the two-step method at every λ in this run.**")
    else:
        lams = ", ".join(f"{v:g}" for v in ahead["lambda"])
        verdict = md(
            "**REBEL wins more trials than it loses only at λ = {}.** Where the per-example costs barely "
            "vary (small λ) the class averages lose little, and the two-step method's calibrated posterior "
            "usually wins, as on the REBEL-vs-two-step page.",
            lams,
        )
    if 0.0 in set(rates["lambda"]):
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
