"""The ``reproduce`` sub-commands beyond the paper: their options and their text reports.

``python -m rebel reproduce honest|surrogate|example-costs|fig7`` (and the engine options of ``reproduce fig3``)
are defined here so the command-line module only registers them. Each runner takes the parsed arguments and a
``progress(done, total, label)`` callback and returns ``(per-trial DataFrame, summary text, headline)``.
"""

from __future__ import annotations

import argparse
import math

from rebel.cli import float_param_type, int_at_least, param_type
from rebel.experiments import diagnostics as diag
from rebel.experiments import honest
from rebel.experiments.diagnostics import SCORE_TRANSFORMS, ScorePosterior
from rebel.params import CHOICE_PARAMS

NAIVE_POSTERIORS = tuple(f"rebel-{t}" for t in SCORE_TRANSFORMS)
DEFAULT_ROUNDS = {"honest": 100, "surrogate": 100, "example-costs": 100, "fig7": 100}


def _floats(value: str) -> tuple:
    """``--lambdas``: comma-separated finite numbers >= 0."""
    try:
        out = tuple(float(v) for v in value.split(","))
    except ValueError:
        out = ()
    if not out or not all(math.isfinite(v) and v >= 0 for v in out):
        raise argparse.ArgumentTypeError(f"give comma-separated numbers >= 0, e.g. 1.5,3,5; got {value!r}.")
    return out


def _ints(value: str) -> tuple:
    """``--rounds-grid``: comma-separated round counts in the engine's range, increasing."""
    items = [v.strip() for v in value.split(",")]
    out = tuple(param_type("n_estimators")(v) for v in items)
    if list(out) != sorted(set(out)):
        raise argparse.ArgumentTypeError(f"give increasing round counts, e.g. 25,50,100; got {value!r}.")
    return out


def add_arguments(rep) -> None:
    """The options of the experiments beyond the paper, on the ``reproduce`` parser."""
    rep.add_argument(
        "--loss",
        choices=CHOICE_PARAMS["loss"],
        default=None,
        help="fig3: loss of both REBEL sides (exp = paper, logistic)",
    )
    rep.add_argument(
        "--leaves",
        choices=CHOICE_PARAMS["leaves"],
        default=None,
        help="fig3: leaf values (binary = paper, vector)",
    )
    rep.add_argument(
        "--learning-rate",
        type=float_param_type("learning_rate"),
        default=None,
        help="fig3: shrinkage of both REBEL sides",
    )
    rep.add_argument(
        "--variants",
        default=None,
        help="honest: ';'-separated variants, e.g. 'paper;loss=logistic,learning_rate=0.3' "
        "(default: paper mode and every engine option this build offers)",
    )
    rep.add_argument(
        "--rounds-grid",
        type=_ints,
        default=honest.ROUNDS,
        help="honest: round checkpoints (default: 25,...,400)",
    )
    rep.add_argument(
        "--tune-seed",
        type=int_at_least(0, "the tuning seed"),
        default=honest.TUNE_SEED,
        help="honest: tuning seed",
    )
    rep.add_argument(
        "--tune-costs",
        type=int_at_least(1, "the number of tuning cost matrices"),
        default=5,
        help="honest: cost matrices per tuning dataset",
    )
    rep.add_argument(
        "--lambdas", type=_floats, default=diag.LAMBDAS, help="example-costs: strengths (default: 1.5,3,5)"
    )


def fig3_variant(args) -> dict:
    """The engine options of ``reproduce fig3`` (``{}``: paper mode)."""
    options = {"loss": args.loss, "leaves": args.leaves, "learning_rate": args.learning_rate}
    return {k: v for k, v in options.items() if v is not None}


def fig3_posterior(args):
    """``--posterior``: a name of ``rebel.baselines.ESTIMATORS`` or a naive score posterior (rebel-softmax)."""
    if args.posterior in NAIVE_POSTERIORS:
        return ScorePosterior(args.rounds, args.depth, args.posterior.removeprefix("rebel-"))
    return args.posterior


def _run_honest(args, progress) -> tuple:
    variants = [honest.parse_variant(v) for v in args.variants.split(";")] if args.variants else None
    variants = variants or honest.default_variants()
    depths = args.depths if args.depths is not None else honest.DEPTHS
    n_datasets = int(args.datasets or 10)
    grid = {"variants": variants, "depths": depths, "rounds": args.rounds_grid, "n_jobs": args.jobs}
    tune = honest.capacity_grid(args.tune_seed, n_datasets, args.tune_costs, **grid, progress=progress)
    held = honest.capacity_grid(args.seed, n_datasets, args.costs, **grid, progress=progress)
    settings = honest.select_settings(tune)
    result = honest.report(held, settings)
    sweep = honest.win_rates(held)
    cells = sweep.pivot_table(index=["variant", "depth"], columns="rounds", values="win_rate").round(3)
    costs = sweep.assign(
        cost=sweep["rebel_cost"].map("{:.3f}".format) + " / " + sweep["two_step_cost"].map("{:.3f}".format)
    )
    costs = costs.pivot(index=["variant", "depth"], columns="rounds", values="cost")
    best = result.sort_values("win_rate", ascending=False).iloc[0]
    text = (
        f"Settings chosen on validation (tuning seed {args.tune_seed}, {args.tune_costs} costs per dataset):\n"
        + settings.round(4).to_string(index=False)
        + f"\n\nHeld-out report (seed {args.seed}, read once at the chosen settings):\n"
        + result.round(4).to_string(index=False)
        + "\n\nCapacity sweep on the held-out datasets (REBEL win rate; every cell, not a selection):\n"
        + cells.to_string()
        + "\n\nMean test costs REBEL / equal-capacity two-step in the same cells:\n"
        + costs.to_string()
    )
    headline = (
        f"Best held-out variant: {best['variant']} (depth {best['depth']}, {best['rounds']} rounds) wins "
        f"{best['win_rate']:.1%} of {best['trials']} trials against the equal-capacity two-step method."
    )
    return held, text, headline


def _trials(args) -> diag.Trials:
    return diag.Trials(int(args.datasets or 10), args.costs, args.rounds, args.depth, args.seed)


def _run_surrogate(args, progress) -> tuple:
    df = diag.surrogate_diagnostic(_trials(args), args.jobs, progress)
    means = df[["rebel_loss", "mapped_loss", "rebel_train_cost", "two_step_train_cost"]].mean()
    headline = (
        "The two-step model mapped into REBEL's score space has the lower REBEL training loss in "
        f"{int(df['mapped_lower'].sum())} of {len(df)} trials (mean {means['mapped_loss']:.4f} against REBEL's "
        f"own {means['rebel_loss']:.4f}); training cost REBEL {means['rebel_train_cost']:.4f} against two-step "
        f"{means['two_step_train_cost']:.4f}."
    )
    return df, df.round(4).to_string(index=False), headline


def _run_example_costs(args, progress) -> tuple:
    df = diag.example_cost_trials(args.lambdas, _trials(args), args.jobs, progress)
    table = df.groupby("lambda")[["win", "rebel_cost", "two_step_cost", "bayes_cost"]].mean()
    table.insert(0, "trials", df.groupby("lambda").size())
    wins = "; ".join(f"lambda {lam:g}: REBEL wins {row['win']:.1%}" for lam, row in table.iterrows())
    return df, table.round(4).to_string(), wins + " (against the two-step method on class-averaged costs)."


def _run_fig7(args, progress) -> tuple:
    df = diag.fig7_counts(args.rounds, args.depth)
    headline = f"fig7 preset; REBEL with {args.rounds} rounds of depth {args.depth} per cost matrix."
    return df, df.round(4).to_string(index=False), headline


RUNNERS = {
    "honest": _run_honest,
    "surrogate": _run_surrogate,
    "example-costs": _run_example_costs,
    "fig7": _run_fig7,
}
SEEDS = {"honest": honest.REPORT_SEED}  # experiments whose --seed defaults to another seed than the paper's

__all__ = [
    "DEFAULT_ROUNDS",
    "NAIVE_POSTERIORS",
    "RUNNERS",
    "SEEDS",
    "add_arguments",
    "fig3_posterior",
    "fig3_variant",
]
