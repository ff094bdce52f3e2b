"""View-model of the REBEL vs two-step page (Fig. 3): win/tie/loss counts with a sign test, an honest
Markdown summary of a run (``rebel.experiments.studies.fig3_run``) next to the paper's ~90 % claim, the run's
setting in words, and the win rate against capacity (rounds x depth) with a sentence saying what it shows.

Reads a run's trials table (``rebel_cost, two_step_cost, blind_cost, bayes_cost, win, tie``) or its grid
(``rebel.experiments.versus.VERSUS_COLUMNS``). No streamlit here.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy.stats import binomtest

from rebel.experiments.studies import PAPER_WIN_RATE, Fig3Run, with_outcome
from rebel.experiments.versus import PARTS, POSTERIORS
from rebel.ui.text import Markdown, md


def fig3_counts(trials: pd.DataFrame) -> dict:
    """Win/tie/loss counts (REBEL's test cost strictly lower / equal / higher), mean costs and a two-sided sign
    test of wins against losses (ties left out)."""
    n = len(trials)
    wins, ties = int(trials["win"].sum()), int(trials["tie"].sum())
    losses = n - wins - ties
    p = binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
    hard = trials["two_step_cost"] > trials["two_step_cost"].median() if n else trials["win"]
    return {
        "trials": n,
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "win_rate": wins / n if n else math.nan,
        "rebel_cost": float(trials["rebel_cost"].mean()) if n else math.nan,
        "two_step_cost": float(trials["two_step_cost"].mean()) if n else math.nan,
        "blind_cost": float(trials["blind_cost"].mean()) if n else math.nan,
        "bayes_cost": float(trials["bayes_cost"].mean())
        if n and trials["bayes_cost"].notna().all()
        else None,
        "hard_trials": int(hard.sum()),
        "hard_wins": int(trials.loc[hard, "win"].sum()) if n else 0,
        "sign_test_p": float(p),
    }


def _verdict(c: dict) -> Markdown:
    significant = c["sign_test_p"] < 0.05
    if c["win_rate"] >= PAPER_WIN_RATE - 0.05:
        return md("This run agrees with the paper's claim.")
    if c["wins"] > c["losses"] and significant:
        return md(
            "REBEL wins more trials than it loses, but well short of the paper's ~90 %: this run reproduces "
            "the direction of the claim, not its size."
        )
    if c["losses"] > c["wins"] and significant:
        return md(
            "**The two-step method wins most trials: this run does not reproduce the paper's claim** that "
            "REBEL wins ~90 % of them."
        )
    return md(
        "Wins and losses are close (a sign test cannot tell them apart): this run shows no clear winner, "
        "unlike the paper's ~90 % for REBEL."
    )


def fig3_text(
    run_or_trials, cancelled: bool = False, planned: int | None = None, part: str = "test"
) -> Markdown:
    """A short, honest Markdown summary of what a Fig. 3 run shows (counts, mean costs, sign test, harder half,
    and how it compares with the paper's ~90 % claim), costs on the ``part`` points ("test" or "train").
    Dataset names are not included (no user text)."""
    if isinstance(run_or_trials, Fig3Run):
        run = run_or_trials
        trials, cancelled, planned = run.part_trials(part), run.cancelled, run.planned
    else:
        trials = run_or_trials
    c = fig3_counts(trials)
    if c["trials"] == 0:
        return md("No trial finished, so there is nothing to compare yet. Run again and let it finish.")
    n, word = c["trials"], "test" if part == "test" else "training"
    lines = [
        md(
            "**REBEL had the lower {} cost in {} of {} trials ({:.0%}), tied in {} and lost {}** (the two-step "
            "method was cheaper).",
            word,
            c["wins"],
            n,
            c["win_rate"],
            c["ties"],
            c["losses"],
        ),
        md(
            "Mean {} cost: REBEL **{:.4f}**, two-step **{:.4f}** ({}); the cost-blind 0-1 argmax costs {:.4f}.",
            word,
            c["rebel_cost"],
            c["two_step_cost"],
            _relative(c["rebel_cost"], c["two_step_cost"]),
            c["blind_cost"],
        ),
    ]
    if c["bayes_cost"] is not None:
        lines.append(
            md(
                "The Bayes-optimal rule (known mixtures) costs {:.4f} on the same points: REBEL is {:+.4f} "
                "above it, two-step {:+.4f}.",
                c["bayes_cost"],
                c["rebel_cost"] - c["bayes_cost"],
                c["two_step_cost"] - c["bayes_cost"],
            )
        )
    if c["wins"] + c["losses"]:
        lines.append(md("Sign test of wins vs losses (ties left out): p = {:.2g}.", c["sign_test_p"]))
    if c["hard_trials"]:
        lines.append(
            md(
                "On the harder half (two-step cost above the median) REBEL won {} of {}; the paper says REBEL "
                "wins especially there.",
                c["hard_wins"],
                c["hard_trials"],
            )
        )
    if part == "train":
        lines.append(
            md(
                "These are costs on the points both models were trained on: they show how well each method "
                "fits its objective, not how it generalises (switch to test points for that)."
            )
        )
    lines.append(
        md(
            "The paper reports REBEL winning ~90 % of 200 trials (10 datasets x 20 cost matrices, 100 stumps). {}",
            _verdict(c),
        )
    )
    if cancelled:
        lines.append(
            md("*Stopped early: {} of {} planned trials finished; the numbers cover those only.*", n, planned)
        )
    return md("\n\n").join(lines)


def _relative(a: float, b: float) -> str:
    if not b:
        return "two-step costs 0"
    d = (a - b) / b
    return f"REBEL {abs(d):.1%} {'lower' if d < 0 else 'higher'}" if d else "equal"


def variant_text(settings: dict) -> Markdown:
    """The run's setting in words: both sides' engine options and capacity, and the two-step posterior."""
    v = settings.get("variant", {})
    engine = md(
        "{} loss, {} leaves, learning rate {:g}",
        v.get("loss", "exp"),
        v.get("leaves", "binary"),
        v.get("learning_rate", 1.0),
    )
    paper = md("") if v else md(" (the paper's REBEL)")
    post = settings.get("posterior", "sigma")
    own = post in ("sigma", "softmax")
    two_step = (
        md("the same engine trained with 0-1 costs, its scores read through {}", POSTERIORS[post])
        if own
        else md("{} with the same depth and rounds (its own step size)", POSTERIORS[post])
    )
    return md(
        "Both sides: {}{}, depth {}, {} rounds. Two-step posterior: {}, then the minimum-risk rule.",
        engine,
        paper,
        settings["max_depth"],
        settings["n_rounds"],
        two_step,
    )


def outcome_rates(trials: pd.DataFrame, by, costs=("rebel_cost", "two_step_cost")) -> pd.DataFrame:
    """Per ``by`` group of trials (with a ``win`` column): trials, REBEL's win rate, loss rate (REBEL's test cost
    above two-step's) and the mean of each ``costs`` column."""
    t = trials.assign(loss=trials["rebel_cost"] > trials["two_step_cost"])
    rates = {"trials": ("win", "size"), "win_rate": ("win", "mean"), "loss_rate": ("loss", "mean")}
    out = t.groupby(by).agg(**rates, **{c: (c, "mean") for c in costs})
    return out.reset_index()


def capacity_rates(grid: pd.DataFrame, part: str = "test") -> pd.DataFrame:
    """Per (depth, rounds) on the ``part`` points: trials, REBEL's win rate, loss rate and mean costs."""
    return outcome_rates(with_outcome(grid[grid["part"] == part]), ["depth", "rounds"])


def capacity_text(rates: pd.DataFrame, part: str = "test") -> Markdown:
    """What the capacity sweep shows, in plain words: the best and worst capacity for REBEL and who wins most."""
    if rates.empty:
        return md("No trial finished yet.")
    best = rates.loc[rates["win_rate"].idxmax()]
    worst = rates.loc[rates["win_rate"].idxmin()]
    where = PARTS[part]

    def at(r) -> str:
        return f"depth {int(r['depth'])}, {int(r['rounds'])} rounds"

    text = md(
        "On the {}, REBEL's win rate ranges from {:.0%} ({}) to {:.0%} ({}). ",
        where,
        worst["win_rate"],
        at(worst),
        best["win_rate"],
        at(best),
    )
    n_rebel = int((rates["win_rate"] > rates["loss_rate"]).sum())
    if n_rebel == 0:
        text += md("The two-step method wins more trials than REBEL at every capacity tried.")
    elif n_rebel == len(rates):
        text += md("REBEL wins more trials than the two-step method at every capacity tried.")
    else:
        text += md(
            "REBEL wins more trials than it loses at {} of the {} capacities tried; the two-step method at the "
            "others.",
            n_rebel,
            len(rates),
        )
    return text
