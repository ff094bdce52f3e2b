"""View-model of the REBEL vs two-step page (Fig. 3): win/tie/loss counts with a sign test and an honest
Markdown summary of a run (``rebel.experiments.studies.fig3_run``) next to the paper's ~90 % claim.

Reads a run's trials table (columns of ``rebel.experiments.studies.FIG3_COLUMNS``). No streamlit here.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy.stats import binomtest

from rebel.experiments.studies import PAPER_WIN_RATE, Fig3Run


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


def _verdict(c: dict) -> str:
    significant = c["sign_test_p"] < 0.05
    if c["win_rate"] >= PAPER_WIN_RATE - 0.05:
        return "This run agrees with the paper's claim."
    if c["wins"] > c["losses"] and significant:
        return (
            "REBEL wins more trials than it loses, but well short of the paper's ~90 %: this run reproduces "
            "the direction of the claim, not its size."
        )
    if c["losses"] > c["wins"] and significant:
        return (
            "**The two-step method wins most trials: this run does not reproduce the paper's claim** that "
            "REBEL wins ~90 % of them."
        )
    return (
        "Wins and losses are close (a sign test cannot tell them apart): this run shows no clear winner, "
        "unlike the paper's ~90 % for REBEL."
    )


def fig3_text(run_or_trials, cancelled: bool = False, planned: int | None = None) -> str:
    """A short, honest Markdown summary of what a Fig. 3 run shows (counts, mean costs, sign test, harder half,
    and how it compares with the paper's ~90 % claim). Dataset names are not included (no user text)."""
    if isinstance(run_or_trials, Fig3Run):
        trials, cancelled, planned = run_or_trials.trials, run_or_trials.cancelled, run_or_trials.planned
    else:
        trials = run_or_trials
    c = fig3_counts(trials)
    if c["trials"] == 0:
        return "No trial finished, so there is nothing to compare yet. Run again and let it finish."
    n = c["trials"]
    lines = [
        (
            f"**REBEL had the lower test cost in {c['wins']} of {n} trials ({c['win_rate']:.0%}), tied in "
            f"{c['ties']} and lost {c['losses']}** (the two-step method was cheaper)."
        ),
        (
            f"Mean test cost: REBEL **{c['rebel_cost']:.4f}**, two-step **{c['two_step_cost']:.4f}** "
            f"({_relative(c['rebel_cost'], c['two_step_cost'])}); the cost-blind 0-1 argmax costs "
            f"{c['blind_cost']:.4f}."
        ),
    ]
    if c["bayes_cost"] is not None:
        lines.append(
            f"The Bayes-optimal rule (known mixtures) costs {c['bayes_cost']:.4f} on the same test points: "
            f"REBEL is {c['rebel_cost'] - c['bayes_cost']:+.4f} above it, two-step "
            f"{c['two_step_cost'] - c['bayes_cost']:+.4f}."
        )
    if c["wins"] + c["losses"]:
        lines.append(f"Sign test of wins vs losses (ties left out): p = {c['sign_test_p']:.2g}.")
    if c["hard_trials"]:
        lines.append(
            f"On the harder half (two-step cost above the median) REBEL won {c['hard_wins']} of "
            f"{c['hard_trials']}; the paper says REBEL wins especially there."
        )
    lines.append(
        f"The paper reports REBEL winning ~90 % of 200 trials (10 datasets x 20 cost matrices, 100 "
        f"stumps). {_verdict(c)}"
    )
    if cancelled:
        lines.append(
            f"*Stopped early: {n} of {planned} planned trials finished; the numbers cover those only.*"
        )
    return "\n\n".join(lines)


def _relative(a: float, b: float) -> str:
    if not b:
        return "two-step costs 0"
    d = (a - b) / b
    return f"REBEL {abs(d):.1%} {'lower' if d < 0 else 'higher'}" if d else "equal"
