"""View-model of the REBEL vs two-step page (Fig. 3): win/tie/loss counts with intervals from a bootstrap over
datasets (``rebel.experiments.stats``: the cost matrices of one dataset share its data and posterior model, so
they are not independent trials), an honest
Markdown summary of a run (``rebel.experiments.studies.fig3_run``) next to the paper's ~90 % claim, the run's
setting in words, and the win rate against capacity (rounds x depth) with a sentence saying what it shows.

Reads a run's trials table (``rebel_cost, two_step_cost, blind_cost, bayes_cost, win, tie``) or its grid
(``rebel.experiments.versus.VERSUS_COLUMNS``). No streamlit here.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy.special import softmax

from rebel.baselines import make_estimator
from rebel.calibration import crossfit_staged, fit_calibrator, reliability
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.studies import PAPER_WIN_RATE, Fig3Run, with_outcome
from rebel.experiments.versus import PARTS, POSTERIORS


def fig3_counts(trials: pd.DataFrame) -> dict:
    """Win/tie/loss counts (REBEL's cost strictly lower / equal / higher), mean costs, and the bootstrap over
    datasets (``stats.compare_costs``): the win rate's interval ``win_lo/win_hi`` and the mean cost difference
    REBEL - two-step ``diff`` with ``diff_lo/diff_hi`` (NaN with one dataset)."""
    n = len(trials)
    s = stats.compare_costs(trials)
    hard = trials["two_step_cost"] > trials["two_step_cost"].median() if n else trials["win"]
    return {
        **s,
        "rebel_cost": s["a_cost"],
        "two_step_cost": s["b_cost"],
        "blind_cost": float(trials["blind_cost"].mean()) if n else math.nan,
        "bayes_cost": float(trials["bayes_cost"].mean())
        if n and trials["bayes_cost"].notna().all()
        else None,
        "hard_trials": int(hard.sum()),
        "hard_wins": int(trials.loc[hard, "win"].sum()) if n else 0,
    }


def _verdict(c: dict) -> str:
    way = stats.direction(c)
    if c["win_rate"] >= PAPER_WIN_RATE - 0.05:
        return "This run agrees with the paper's claim."
    if c["datasets"] < 2:
        return (
            "With one dataset the cost matrices share the same points and posterior model, so this run cannot "
            "tell a real difference from luck: use several datasets."
        )
    if way == "A cheaper":
        return (
            "REBEL is cheaper on average (the interval of the difference excludes 0), but its win rate is well "
            "short of the paper's ~90 %: this run reproduces the direction of the claim, not its size."
        )
    if way == "B cheaper":
        return (
            "**The two-step method is cheaper on average (the interval of the difference excludes 0): this run "
            "does not reproduce the paper's claim** that REBEL wins ~90 % of trials."
        )
    return (
        "The interval of the mean cost difference includes 0: this run shows no clear winner, unlike the "
        "paper's ~90 % for REBEL."
    )


def fig3_text(run_or_trials, cancelled: bool = False, planned: int | None = None, part: str = "test") -> str:
    """A short, honest Markdown summary of what a Fig. 3 run shows (counts, mean costs, bootstrap intervals, harder half,
    and how it compares with the paper's ~90 % claim), costs on the ``part`` points ("test" or "train").
    Dataset names are not included (no user text)."""
    if isinstance(run_or_trials, Fig3Run):
        run = run_or_trials
        trials, cancelled, planned = run.part_trials(part), run.cancelled, run.planned
    else:
        trials = run_or_trials
    c = fig3_counts(trials)
    if c["trials"] == 0:
        return "No trial finished, so there is nothing to compare yet. Run again and let it finish."
    n, word = c["trials"], "test" if part == "test" else "training"
    lines = [
        (
            f"**REBEL had the lower {word} cost in {c['wins']} of {n} trials ({c['win_rate']:.0%}), tied in "
            f"{c['ties']} and lost {c['losses']}** (the two-step method was cheaper)."
        ),
        (
            f"Mean {word} cost: REBEL **{c['rebel_cost']:.4f}**, two-step **{c['two_step_cost']:.4f}** "
            f"({_relative(c['rebel_cost'], c['two_step_cost'])}); the cost-blind 0-1 argmax costs "
            f"{c['blind_cost']:.4f}."
        ),
    ]
    if c["bayes_cost"] is not None:
        lines.append(
            f"The Bayes-optimal rule (known mixtures) costs {c['bayes_cost']:.4f} on the same points: "
            f"REBEL is {c['rebel_cost'] - c['bayes_cost']:+.4f} above it, two-step "
            f"{c['two_step_cost'] - c['bayes_cost']:+.4f}."
        )
    lines.append(
        f"Win rate {stats.rate_text(c)}; mean cost difference REBEL − two-step {stats.diff_text(c)}. "
        f"Intervals: bootstrap over the {c['datasets']} dataset(s), whole datasets resampled (the cost "
        "matrices of one dataset are not independent trials)."
    )
    if c["hard_trials"]:
        lines.append(
            f"On the harder half (two-step cost above the median) REBEL won {c['hard_wins']} of "
            f"{c['hard_trials']}; the paper says REBEL wins especially there."
        )
    if part == "train":
        lines.append(
            "These are costs on the points both models were trained on: they show how well each method fits "
            "its objective, not how it generalises (switch to test points for that)."
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


def variant_text(settings: dict) -> str:
    """The run's setting in words: both sides' engine options and capacity, and the two-step posterior."""
    v = settings.get("variant", {})
    engine = (
        f"{v.get('loss', 'exp')} loss, {v.get('leaves', 'binary')} leaves, learning rate "
        f"{v.get('learning_rate', 1.0):g}"
    )
    paper = "" if v else " (the paper's REBEL)"
    post = settings.get("posterior", "sigma")
    own = post in ("sigma", "softmax") or post.startswith("calibrated-")
    two_step = (
        f"the same engine trained with 0-1 costs, its scores read through {POSTERIORS[post]}"
        if own
        else f"{POSTERIORS[post]} with the same depth and rounds (its own step size)"
    )
    return (
        f"Both sides: {engine}{paper}, depth {settings['max_depth']}, {settings['n_rounds']} rounds. "
        f"Two-step posterior: {two_step}, then the minimum-risk rule."
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


def capacity_text(rates: pd.DataFrame, part: str = "test") -> str:
    """What the capacity sweep shows, in plain words: the best and worst capacity for REBEL and who wins most."""
    if rates.empty:
        return "No trial finished yet."
    best = rates.loc[rates["win_rate"].idxmax()]
    worst = rates.loc[rates["win_rate"].idxmin()]
    where = PARTS[part]

    def at(r) -> str:
        return f"depth {int(r['depth'])}, {int(r['rounds'])} rounds"

    text = (
        f"On the {where}, REBEL's win rate ranges from {worst['win_rate']:.0%} ({at(worst)}) to "
        f"{best['win_rate']:.0%} ({at(best)}). "
    )
    n_rebel = int((rates["win_rate"] > rates["loss_rate"]).sum())
    if n_rebel == 0:
        text += "The two-step method wins more trials than REBEL at every capacity tried."
    elif n_rebel == len(rates):
        text += "REBEL wins more trials than the two-step method at every capacity tried."
    else:
        text += (
            f"REBEL wins more trials than it loses at {n_rebel} of the {len(rates)} capacities tried; the "
            "two-step method at the others."
        )
    return text


RELIABILITY_POSTERIORS = {
    "sigma": "posterior its loss implies",
    "temperature": "temperature-calibrated (out-of-fold)",
    "isotonic": "isotonic-calibrated (out-of-fold)",
}


def reliability_curves(run: Fig3Run, n_bins: int = 10) -> dict:
    """Reliability-diagram tables (``rebel.calibration.reliability``, class-wise) of the two-step posteriors on
    the run's first dataset, test points, at the run's depth, rounds and engine options: the posterior the
    loss implies, its temperature / isotonic calibrations (3-fold out-of-fold) and, when the run's two-step
    used another posterior (softmax of H, SAMME, LightGBM), that one too. {label: table}."""
    s, ds = run.settings, run.datasets[0]
    y, yt = ds.class_index(ds.y_train), ds.class_index(ds.y_test)
    T = s["n_rounds"]

    def model():
        return RebelClassifier(n_estimators=T, max_depth=s["max_depth"], random_state=0, **s["variant"])

    oof, (test_P,) = crossfit_staged(model, ds.X_train, y, [ds.X_test], [T])
    posts = {RELIABILITY_POSTERIORS["sigma"]: test_P[T]}
    for method in ("temperature", "isotonic"):
        posts[RELIABILITY_POSTERIORS[method]] = fit_calibrator(oof[T], y, method).predict_proba(test_P[T])
    post = s.get("posterior", "sigma")
    if post == "softmax":
        H = model().fit(ds.X_train, y).decision_function(ds.X_test)
        posts[POSTERIORS["softmax"]] = softmax(H.reshape(len(yt), -1), axis=1)
    elif post in ("samme", "lightgbm"):
        other = make_estimator(post, T, s["max_depth"], random_state=0).fit(ds.X_train, y)
        posts[POSTERIORS[post]] = other.predict_proba(ds.X_test)
    return {name: reliability(P, yt, n_bins) for name, P in posts.items()}
