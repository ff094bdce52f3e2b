"""Command line ``python -m rebel`` (also installed as ``rebel``): ``fit``, ``predict``, ``evaluate``, ``reproduce``.

``fit``/``predict``/``evaluate`` train, apply and score a model on CSV files (``rebel.cli``). ``reproduce
fig3|table1|fig4`` runs one of the paper's experiments (``rebel.experiments``) with a progress bar on stderr,
prints a summary table on stdout and writes the per-trial table as CSV (``--out``); see docs/REPRODUCTION.md for
the measured runs. Bad arguments (ranges from ``rebel.params``, unwritable output paths) are refused before any
work starts, with one error line and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
import time

import pandas as pd

from . import cli
from . import experiments as ex
from .baselines import ESTIMATORS
from .cli import ProgressBar, count_or_names, int_at_least, output_file, param_list_type, param_type
from .data.mixture import PAPER_SEED
from .experiments import commands

DEFAULT_ROUNDS = {"fig3": 100, "table1": 100, "fig4": 200, **commands.DEFAULT_ROUNDS}


def _names(value: str | None, defaults: tuple) -> list:
    """``--datasets``: a count (the first N defaults) or comma-separated names."""
    if value is None:
        return list(defaults)
    if value.isdigit():
        return list(defaults[: int(value)])
    return [v.strip() for v in value.split(",") if v.strip()]


def _mean_std(mean: pd.Series, std: pd.Series, digits: int) -> pd.Series:
    return mean.round(digits).astype(str) + " ± " + std.fillna(0).round(digits).astype(str)


def _run_fig3(args, progress) -> tuple:
    n_datasets = 10 if args.datasets is None else int(args.datasets)
    df = ex.fig3(
        n_datasets,
        args.costs,
        args.rounds,
        args.depth,
        args.seed,
        commands.fig3_posterior(args),
        args.cost_distribution,
        args.jobs,
        args.backend,
        progress,
        variant=commands.fig3_variant(args),
    )
    summary = ex.fig3_summary(df)
    wins, ties = int(df["win"].sum()), int(df["tie"].sum())
    headline = (
        f"REBEL (cost-sensitive) beats the two-step method in {wins} of {len(df)} trials "
        f"(win rate {wins / len(df):.1%}, ties {ties}); mean test cost REBEL "
        f"{df['rebel_cost'].mean():.4f} vs two-step {df['two_step_cost'].mean():.4f} "
        f"(Bayes {df['bayes_cost'].mean():.4f})."
    )
    return df, summary.round(4).to_string(), headline


def _run_table1(args, progress) -> tuple:
    trials = ex.table1(
        _names(args.datasets, ex.TABLE1_DATASETS),
        args.depths or (1, 2, 3, 4),
        args.splits,
        args.rounds,
        args.seed,
        None,
        args.jobs,
        args.backend,
        progress,
    )
    return (
        trials,
        ex.table1_summary(trials).round(4).to_string(),
        (
            "Rows: mean test 0-1 error of REBEL trained with 0-1 costs, and mean test cost of REBEL trained with the "
            f"dataset's random cost matrix; rounds (<= {args.rounds}) chosen on validation, {args.splits} splits."
        ),
    )


def _run_fig4(args, progress) -> tuple:
    methods = args.methods.split(",") if args.methods else list(ex.FIG4_METHODS)
    curves = ex.fig4(
        _names(args.datasets, ex.FIG4_DATASETS),
        methods,
        args.splits,
        args.rounds,
        args.depth,
        args.seed,
        None,
        args.jobs,
        args.backend,
        progress,
    )
    if args.curves:
        curves.to_csv(args.curves, index=False)
    trials = ex.select_rounds(curves)
    summary = ex.fig4_summary(trials)
    summary["label"] = summary.apply(ex.method_label, axis=1)
    blind = summary[(summary["training"] == "0-1") & (summary["decision"] == "argmax")]
    error = blind.assign(v=_mean_std(100 * blind["test_error_mean"], 100 * blind["test_error_std"], 1))
    cost = summary[(summary["training"] == "cost") | (summary["decision"] == "min-risk")]
    cost = cost.assign(v=_mean_std(cost["test_cost_mean"], cost["test_cost_std"], 3))
    text = (
        "Test error % (cost-blind, rounds chosen on validation error):\n"
        + error.pivot(index="label", columns="dataset", values="v").to_string()
        + "\n\nTest cost (random cost matrix; rounds chosen on validation cost):\n"
        + cost.pivot(index="label", columns="dataset", values="v").to_string()
    )
    return trials, text, f"{args.splits} random 50/25/25 splits per dataset, up to {args.rounds} rounds."


RUNNERS = {"fig3": _run_fig3, "table1": _run_table1, "fig4": _run_fig4, **commands.RUNNERS}


# The options of ``reproduce`` as (flag, type, default, help), before and after ``--posterior``.
_REPRODUCE_OPTIONS = (
    (
        ("--datasets", count_or_names, None, ("fig3: number of random datasets (10); table1/fig4: a count of the "
         "default datasets or comma-separated names (iris, wine, breast_cancer, digits, random_<i>, presets); "
         "calibrated: random mixtures per seed (8)")),
        ("--costs", int_at_least(1, "the number of cost matrices per dataset"), 20,
         "fig3: random cost matrices per dataset (20)"),
        ("--rounds", param_type("n_estimators"), None, "boosting rounds (fig3/table1: 100, fig4: 200)"),
        ("--depth", param_type("max_depth"), 1, "tree depth of the weak learners (1 = stumps)"),
        ("--depths", param_list_type("max_depth"), None, "table1: depths to compare (1,2,3,4); honest: (1,2,3)"),
        ("--splits", int_at_least(1, "the number of splits"), 5, "table1/fig4: random 50/25/25 splits (5)"),
        ("--methods", None, None, f"fig4: comma-separated subset of {','.join(ESTIMATORS)}"),
    ),
    (
        ("--cost-distribution", None, "paper", "fig3: paper (half-normal), lognormal[:s] or spike[:m]"),
        ("--seed", int_at_least(0, "the seed"), None,
         f"base seed ({PAPER_SEED}; honest, calibrated: the held-out seed {commands.SEEDS['honest']})"),
        ("--jobs", int_at_least(1, "the number of workers"), 2, "joblib workers (2)"),
        ("--backend", None, None, "joblib backend: threading (default), loky, or dask/ray when registered"),
        ("--out", output_file, None, "write the per-trial table to this CSV file"),
        ("--curves", output_file, None, "fig4: write the per-round curves to this CSV file"),
    ),
)  # fmt: skip


def _add_reproduce(sub) -> None:
    rep = sub.add_parser(
        "reproduce",
        help="run one of the paper's experiments",
        description="Run one of the paper's experiments and print its summary table.",
    )
    rep.add_argument("experiment", choices=sorted(RUNNERS))
    for flag, type_, default, help_ in _REPRODUCE_OPTIONS[0]:
        rep.add_argument(flag, type=type_, default=default, help=help_)
    rep.add_argument(
        "--posterior",
        default="rebel",
        choices=[*ESTIMATORS, *commands.NAIVE_POSTERIORS],
        help="fig3: posterior estimator of the two-step method (rebel = REBEL with 0-1 costs, calibrated; "
        "rebel-softmax / rebel-shift = its scores naively normalised)",
    )
    for flag, type_, default, help_ in _REPRODUCE_OPTIONS[1]:
        rep.add_argument(flag, type=type_, default=default, help=help_)
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    commands.add_arguments(rep)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rebel", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cli.add_commands(sub)
    _add_reproduce(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "reproduce":
        return cli.run(args)
    if (
        args.experiment not in ("table1", "fig4")
        and args.datasets is not None
        and not args.datasets.isdigit()
    ):
        parser.error(
            f"argument --datasets: {args.experiment} takes a number of random datasets (>= 1); "
            f"got {args.datasets!r}."
        )
    if args.rounds is None:
        args.rounds = DEFAULT_ROUNDS[args.experiment]
    if args.seed is None:
        args.seed = commands.SEEDS.get(args.experiment, PAPER_SEED)
    progress = None if args.quiet else ProgressBar(args.experiment)
    start = time.perf_counter()
    try:
        trials, table, headline = RUNNERS[args.experiment](args, progress)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        print(table)
    print(f"\n{headline}")
    print(f"{args.experiment}: {len(trials)} trials in {elapsed:.1f}s (seed {args.seed}, {args.jobs} jobs).")
    if args.out:
        trials.to_csv(args.out, index=False)
        print(f"per-trial table written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
