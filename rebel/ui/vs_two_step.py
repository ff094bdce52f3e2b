"""View-model of the REBEL vs two-step page (Fig. 3): win/tie/loss counts with intervals from a bootstrap over
datasets (``rebel.experiments.stats``: the cost matrices of one dataset share its data and posterior model, so
they are not independent trials), an honest
Markdown summary of a run (``rebel.experiments.studies.fig3_run``) next to the paper's ~90 % claim, the run's
setting in words, the win rate against capacity (rounds x depth) with a sentence saying what it shows, and the
stored regime map (``docs/regime_map.json``, written by ``reproduce calibrated --regimes``) with its caption;
the form's sources, limits, labels and defaults, and a run's settings from its widget values (``run_settings``).

Reads a run's trials table (``rebel_cost, two_step_cost, blind_cost, bayes_cost, win, tie``) or its grid
(``rebel.experiments.versus.VERSUS_COLUMNS``). No streamlit here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
from scipy.special import softmax

from rebel.baselines import make_estimator
from rebel.calibration import crossfit_staged, fit_calibrator, reliability
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.studies import FIG3_DEFAULTS, FIG3_LIMITS, PAPER_WIN_RATE, Fig3Run, with_outcome
from rebel.experiments.versus import PARTS, POSTERIORS
from rebel.params import INT_PARAMS
from rebel.textout import csv_text
from rebel.ui.figures.winrates import REGIME_OUTCOMES, regime_outcome
from rebel.ui.text import Markdown, md

# The page's form: where the datasets come from, the widgets' limits, the two-step posteriors' labels and the
# engine options' defaults (widget keys "w2_" + name).
SOURCES = {
    "random": "Random mixtures (paper protocol, Fig. 9)",
    "playground": "The Playground's mixture, redrawn",
}
LIMITS = {
    **FIG3_LIMITS,
    "n_rounds": (1, INT_PARAMS["n_estimators"].app_high),
    "max_depth": (1, INT_PARAMS["max_depth"].app_high),
}
POSTERIOR_LABELS = {
    "sigma": "σ(2H) / σ(H) by loss, same engine",
    "calibrated-temperature": "temperature-calibrated, same engine",
    "calibrated-isotonic": "isotonic-calibrated, same engine",
    "softmax": "softmax(H), same engine",
    "samme": "SAMME",
}
ENGINE_DEFAULTS = {
    "posterior": "sigma",
    "loss": "exp",
    "leaves": "binary",
    "learning_rate": 1.0,
    "sweep": False,
}


def run_settings(values, source: str) -> dict:
    """A run's settings (``rebel.experiments.studies.fig3_steps``'s arguments) from the form's widget values
    (``values["w2_" + name]``: the page's session state) and the datasets' ``source`` it settled on."""
    variant = {
        "loss": values["w2_loss"],
        "leaves": values["w2_leaves"],
        "learning_rate": float(values["w2_learning_rate"]),
    }
    return {
        "source": source,
        **{k: int(values[f"w2_{k}"]) for k in FIG3_DEFAULTS},
        "seed": int(values["w2_seed"]),
        "posterior": values["w2_posterior"],
        "variant": variant,
        "sweep_depths": bool(values["w2_sweep"]),
    }


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


def _verdict(c: dict) -> Markdown:
    way = stats.direction(c)
    if c["win_rate"] >= PAPER_WIN_RATE - 0.05:
        return md("This run agrees with the paper's claim.")
    if c["datasets"] < 2:
        return md(
            "With one dataset the cost matrices share the same points and posterior model, so this run cannot "
            "tell a real difference from luck: use several datasets."
        )
    if way == "A cheaper":
        return md(
            "REBEL is cheaper on average (the interval of the difference excludes 0), but its win rate is well "
            "short of the paper's ~90 %: this run reproduces the direction of the claim, not its size."
        )
    if way == "B cheaper":
        return md(
            "**The two-step method is cheaper on average (the interval of the difference excludes 0): this run "
            "does not reproduce the paper's claim** that REBEL wins ~90 % of trials."
        )
    return md(
        "The interval of the mean cost difference includes 0: this run shows no clear winner, unlike the "
        "paper's ~90 % for REBEL."
    )


BINARY_NOTE = md(
    "Every dataset of this run has two classes. With two classes and the exp loss, REBEL trained with the costs "
    "and the two-step method on the same engine's 0-1 posterior σ(2H) make the same decision at every point "
    "(Theory page, section 4): such trials can only tie, and any difference comes from another posterior or "
    "the logistic loss, not from training with the costs."
)


def fig3_text(
    run_or_trials, cancelled: bool = False, planned: int | None = None, part: str = "test"
) -> Markdown:
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
    lines.append(
        md(
            "Win rate {}; mean cost difference REBEL − two-step {}. Intervals: bootstrap over the {} dataset(s), "
            "whole datasets resampled (the cost matrices of one dataset are not independent trials).",
            stats.rate_text(c),
            stats.diff_text(c),
            c["datasets"],
        )
    )
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
    if isinstance(run_or_trials, Fig3Run) and run.datasets and all(d.n_classes == 2 for d in run.datasets):
        lines.append(BINARY_NOTE)
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
    own = post in ("sigma", "softmax") or post.startswith("calibrated-")
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


def trials_csv(grid: pd.DataFrame) -> str:
    """The trials table as the page's CSV download (``rebel.textout.csv_text``)."""
    return csv_text(grid)


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


# ---------------------------------------------------------------------------------------------------- regime map
REGIME_FILE = Path(__file__).resolve().parents[2] / "docs" / "regime_map.json"
REGIME_ROW_KEYS = ("factor", "setting", "trials", "win_rate", "win_lo", "win_hi", "a_cost", "b_cost", "diff")


def load_regime_map(path=REGIME_FILE) -> dict | None:
    """The stored regime map (``reproduce calibrated --regimes FILE``, ``calibrated.regime_record``), or None
    when the file is absent (an installed package without the repository's docs/); a malformed file is a
    ValueError naming it."""
    path = Path(path)
    if not path.is_file():
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    rows = record.get("rows") if isinstance(record, dict) else None
    if not rows or any(not isinstance(r, dict) or any(k not in r for k in REGIME_ROW_KEYS) for r in rows):
        raise ValueError(f"{path} is not a regime map: each of its rows needs {list(REGIME_ROW_KEYS)}.")
    for key in ("command", "seed", "tune_seed", "baseline", "rebel"):
        if key not in record:
            raise ValueError(f"{path} is not a regime map: it lacks {key!r}.")
    return record


def regime_summary(record: dict) -> dict:
    """Counts of the regime map: regimes, those where REBEL is cheaper / the baseline is cheaper / unclear
    (by the interval of the mean cost difference) and those where REBEL wins more than half the trials."""
    outcomes = [regime_outcome(r) for r in record["rows"]]
    return {
        "regimes": len(outcomes),
        **{key: outcomes.count(key) for key in REGIME_OUTCOMES},
        "majority": [r for r in record["rows"] if r["win_rate"] > 0.5],
    }


def regime_caption(record: dict) -> Markdown:
    """What the stored regime map shows, in words, with its command and seeds (plain when no regime favours
    REBEL)."""
    s = regime_summary(record)
    source = md(
        "Stored result of the command “{}” (settings chosen on seed {}, read on fresh data drawn with seed {}). REBEL: {}; "
        "baseline: the {}. Bars: 95 % bootstrap intervals over each regime's datasets (real data: random splits "
        "of one dataset, so optimistic).",
        record["command"],
        record["tune_seed"],
        record["seed"],
        record["rebel"],
        record["baseline"],
    )
    if s["REBEL cheaper"] == 0:
        verdict = md(
            "**No regime favours REBEL**: in none of the {} regimes is its mean test cost below the calibrated "
            "two-step method's (the baseline is cheaper in {}, unclear in {}).",
            s["regimes"],
            s["baseline cheaper"],
            s["unclear"],
        )
    else:
        verdict = md(
            "REBEL is cheaper in {} of {} regimes (the baseline in {}, unclear in {}).",
            s["REBEL cheaper"],
            s["regimes"],
            s["baseline cheaper"],
            s["unclear"],
        )
    for r in s["majority"]:
        verdict += md(
            " On {} ({}) REBEL wins {} of {} trials, yet its mean cost is {:.4f} against the baseline's {:.4f}.",
            r["setting"],
            r["factor"],
            stats.rate_text({**r, "level": record.get("level", stats.LEVEL)}),
            r["trials"],
            r["a_cost"],
            r["b_cost"],
        )
    return verdict + md(" ") + source


METHOD_ROW_KEYS = ("factor", "setting", "methods", "best", "outcome", "cs_vs_two_step", "rebel_vs_two_step")


def method_map(record: dict | None) -> dict | None:
    """The every-method map stored beside the regime map (its "methods" entry, ``reproduce methods``), or None
    when the file has none; a malformed entry is a ValueError."""
    methods = (record or {}).get("methods")
    if methods is None:
        return None
    rows = methods.get("rows") if isinstance(methods, dict) else None
    if not rows or any(not isinstance(r, dict) or any(k not in r for k in METHOD_ROW_KEYS) for r in rows):
        raise ValueError(
            f"the regime map's methods entry is malformed: each row needs {list(METHOD_ROW_KEYS)}."
        )
    return methods


def method_map_caption(methods: dict) -> Markdown:
    """What the every-method map shows, in words: in how many regimes of the regime map the chosen
    cost-sensitive method, the chosen two-step method, or neither is cheaper (interval of the mean difference),
    and where REBEL is."""
    rows = methods["rows"]
    names = methods["families"]
    sides = {k: [r for r in rows if r["outcome"] == k] for k in ("cost-sensitive", "two-step", "unclear")}
    rebel = [
        r
        for r in rows
        if r["rebel_vs_two_step"]["diff_hi"] is not None and r["rebel_vs_two_step"]["diff_hi"] < 0
    ]
    text = md(
        "Each method family took its setting per regime on seed {} and was read once on seed {} ({} trials per "
        "regime). The cost-sensitive method chosen on the tuning seed (REBEL, cost-weighted boosting or "
        "cost-weighted logistic regression) is cheaper than the chosen two-step method in {} of {} regimes, "
        "the two-step method in {}, neither clearly in {} (95 % intervals of the mean difference over datasets). "
        "REBEL itself is cheaper than the chosen two-step method in {} of {}.",
        methods["tune_seed"],
        methods["seed"],
        rows[0]["cs_vs_two_step"]["trials"],
        len(sides["cost-sensitive"]),
        len(rows),
        len(sides["two-step"]),
        len(sides["unclear"]),
        len(rebel),
        len(rows),
    )
    for r in sides["cost-sensitive"]:
        v = r["cs_vs_two_step"]
        text += md(
            " {} ({}): {} costs {:.4f} against {:.4f} for the {}.",
            r["setting"],
            r["factor"],
            names[r["cost_sensitive"]],
            v["a_cost"],
            v["b_cost"],
            names[r["two_step"]],
        )
    return text + same_model_wins(methods) + md(" Stored result of the command “{}”.", methods["command"])


def same_model_wins(methods: dict) -> Markdown:
    """The comparisons on one model class (each row's "same_model" entry: cost-sensitive training against the
    two-step method on the same model) whose mean-difference interval lies below 0, each with both costs, the
    interval and the regime's cheapest method; empty when the record has no such entries."""
    names = methods["families"]
    pairs = [(r, k, v) for r in methods["rows"] for k, v in r.get("same_model", {}).items()]
    if not pairs:
        return md("")
    wins = [(r, k.split(" vs ")[0], v) for r, k, v in pairs if v["diff_hi"] is not None and v["diff_hi"] < 0]
    text = md(
        " Within one model class, cost-sensitive training (REBEL, cost-weighted boosting, cost-weighted logistic "
        "regression) is cheaper than the two-step method of that class in {} of {} comparisons over {} regimes",
        len(wins),
        len(pairs),
        len(methods["rows"]),
    )
    for i, (r, family, v) in enumerate(wins):
        where = (names[family], r["setting"], r["factor"], v["a_cost"], v["b_cost"], stats.diff_text(v))
        cheapest = (names[r["best"]], r["methods"][r["best"]]["cost"])
        text += md(
            "{} {} on {} ({}): {:.4f} against {:.4f}, difference {}; the regime's cheapest method: {} ({:.4f})",
            ":" if i == 0 else ";",
            *where,
            *cheapest,
        )
    return text + md(".")
