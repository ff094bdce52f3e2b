"""Command line ``python -m rebel`` (also installed as ``rebel``): ``fit``, ``predict``, ``evaluate``,
``export-scene``, ``reproduce``.

``fit``/``predict``/``evaluate`` train, apply and score a model on CSV files (``rebel.cli``); ``export-scene``
writes a lesson scene as one offline HTML file (``rebel.ui.browser.scene_cli``). ``reproduce
fig3|table1|fig4`` runs one of the paper's experiments (``rebel.experiments``) with a progress bar on stderr,
prints a summary table on stdout and writes the per-trial table as CSV (``--out``); see docs/REPRODUCTION.md for
the measured runs. Bad arguments (ranges from ``rebel.params``, unwritable output paths) are refused before any
work starts.

Every error is one line ``error: ...`` on stderr, never a traceback or a usage block (that is for ``--help``):
exit code 2 for bad input (arguments, files, a failed write), 1 for a fault of the program itself (reported as
one line asking for a bug report), 130 on Ctrl-C, 141 (quietly, as ``cat`` does) when the reader of standard
output goes away (``... | head``). Warnings are one line ``warning: ...`` each, shown once.
"""

from __future__ import annotations

import argparse
import errno
import sys
import time
import warnings

import pandas as pd

from . import __version__, cli, cli_parser
from . import experiments as ex
from .baselines import ESTIMATORS
from .cli_args import (
    ProgressBar,
    count_or_names,
    drop_stdout,
    int_at_least,
    output_file,
    param_list_type,
    param_type,
    refuse_overwrite,
    write_text,
)
from .data.mixture import PAPER_SEED
from .experiments import commands, stats
from .textout import csv_text, say, terminal

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
    if args.readings:
        return commands.run_fig3_readings(args, progress)
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
    ints = ex.fig3_intervals(df)
    lines = [
        f"{r['part']} ({r['trials']} trials): REBEL wins {stats.rate_text(r, 1)} against the {r['against']} (its mean cost "
        f"{r['b_cost']:.4f}, REBEL {r['a_cost']:.4f}); REBEL - {r['against']} {stats.diff_text(r)}"
        for r in ints.to_dict("records")
    ]
    text = (
        summary.round(4).to_string()
        + f"\n\nWin rates with 95 % intervals (bootstrap over the {ints['datasets'].max()} datasets):\n"
        + "\n".join(lines)
    )
    return df, text, headline


def _split_sweep(args, progress) -> dict:
    """The flags that set the protocol of Table 1 and Fig. 4 (``rebel.experiments.paper.split_curves``)."""
    return {
        "n_splits": args.splits,
        "seed": args.seed,
        "n_jobs": args.jobs,
        "backend": args.backend,
        "progress": progress,
    }


def _run_table1(args, progress) -> tuple:
    trials = ex.table1(
        _names(args.datasets, ex.TABLE1_DATASETS),
        args.depths or (1, 2, 3, 4),
        n_rounds=args.rounds,
        **_split_sweep(args, progress),
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
        n_rounds=args.rounds,
        max_depth=args.depth,
        **_split_sweep(args, progress),
    )
    if args.curves:
        write_text(args.curves, csv_text(curves))
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
        ("--datasets", count_or_names, None, ("fig3: number of random datasets (default: 10); table1/fig4: a count of the "
         "default datasets or comma-separated names (iris, wine, breast_cancer, digits, random_<i>, presets); "
         "calibrated: random mixtures per seed (default: 8)")),
        ("--costs", int_at_least(1, "the number of cost matrices per dataset"), 20,
         "fig3: random cost matrices per dataset"),
        ("--rounds", param_type("n_estimators"), None, "boosting rounds (default: 200 for fig4, else 100)"),
        ("--depth", param_type("max_depth"), 1, "tree depth of the weak learners (1 = stumps)"),
        ("--depths", param_list_type("max_depth"), None, "depths to compare (default: table1 1,2,3,4; honest 1,2,3)"),
        ("--splits", int_at_least(1, "the number of splits"), 5, "table1/fig4: random 50/25/25 splits"),
        ("--methods", None, None, f"fig4: comma-separated subset of {','.join(ESTIMATORS)}"),
    ),
    (
        ("--cost-distribution", None, "paper", "fig3: paper (half-normal), lognormal[:s] or spike[:m]"),
        ("--seed", int_at_least(0, "the seed"), None,
         f"base seed (default: {PAPER_SEED}; honest, calibrated, digits: the held-out seed {commands.SEEDS['honest']})"),
        ("--jobs", int_at_least(1, "the number of workers"), 2, "joblib workers"),
        ("--backend", None, None, "joblib backend: threading, loky, or dask/ray when registered (default: threading)"),
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


class _HelpFormatter(argparse.HelpFormatter):
    """Help that shows every option's default (unless it is off/None or the text already states it)."""

    def _get_help_string(self, action):
        text = action.help or ""
        off = action.default is None or action.default is False or action.default == argparse.SUPPRESS
        if "default" in text or off or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``error: <message>`` and exit code 2, the usage only on ``--help``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, terminal(f"error: {message} ('{self.prog} --help' shows the usage)") + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m rebel",
        description="REBEL Explorer: train, apply and score cost-sensitive boosting models on CSV files, and "
        "reproduce the paper's experiments.",
    )
    parser.add_argument("--version", action="version", version=f"rebel-explorer {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="{fit,predict,evaluate,export-scene,reproduce}"
    )
    cli_parser.add_commands(sub)
    _add_reproduce(sub)
    return parser


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` of the command line: ``warning: <message>`` on one line, no path or source."""
    text = " ".join(str(message).split())
    try:
        say(f"warning: {text}", file=sys.stderr)
    except OSError:
        pass


def main(argv=None) -> int:
    """Run ``python -m rebel``; every failure is one ``error:`` line (see the module docstring)."""
    with warnings.catch_warnings():
        warnings.simplefilter("once")
        warnings.showwarning = _one_line_warning
        try:
            code = _main(argv)
            sys.stdout.flush()
            return code
        except BrokenPipeError:  # the reader of stdout went away (e.g. | head): stop quietly
            drop_stdout()
            return 141
        except KeyboardInterrupt:
            say("error: interrupted.", file=sys.stderr)
            return 130
        except MemoryError:
            say(
                "error: out of memory; use a smaller file (or fewer rounds, classes or points).",
                file=sys.stderr,
            )
            return 2
        except (ValueError, OSError) as exc:
            say(f"error: {_message(exc)}", file=sys.stderr)
            return 2
        except Exception as exc:  # noqa: BLE001 (a fault of the program: one line, never a traceback)
            say(
                f"error: internal error ({type(exc).__name__}: {' '.join(str(exc).split())[:300]}); this is a bug "
                "in REBEL Explorer, please report it with the command that caused it.",
                file=sys.stderr,
            )
            return 1


def _message(exc: Exception) -> str:
    """The project's one-line wording of a ValueError or OSError."""
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC and not exc.filename:
            drop_stdout()
            return "could not write to standard output: No space left on device."
        what = exc.strerror or str(exc)
        return f"{exc.filename}: {what}." if exc.filename else f"{what}."
    text = " ".join(str(exc).split())
    if "contains NaN" in text or "contains infinity" in text:
        return "the data holds NaN or infinity; features must be finite numbers."
    return text


def _check_backend(parser, backend) -> None:
    """``--backend``: a joblib backend registered in this process (argparse cannot list them beforehand)."""
    if backend is None:
        return
    from joblib.parallel import BACKENDS

    if backend not in BACKENDS:
        parser.error(
            f"argument --backend: {backend!r} is not a joblib backend here; choose one of {sorted(BACKENDS)} "
            "(dask or ray once registered)."
        )


def _main(argv) -> int:
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
    _check_backend(parser, args.backend)
    if args.out is not None:
        refuse_overwrite(args.out, {"the --curves output": args.curves, "the --regimes output": args.regimes})
    if args.rounds is None:
        args.rounds = DEFAULT_ROUNDS[args.experiment]
    if args.seed is None:
        args.seed = commands.SEEDS.get(args.experiment, PAPER_SEED)
    cli.compile_if_cold(variants=args.experiment in ("honest", "fig3"))
    progress = None if args.quiet else ProgressBar(args.experiment)
    start = time.perf_counter()
    trials, table, headline = RUNNERS[args.experiment](args, progress)
    elapsed = time.perf_counter() - start
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        say(table)
    say(f"\n{headline}")
    say(f"{args.experiment}: {len(trials)} trials in {elapsed:.1f}s (seed {args.seed}, {args.jobs} jobs).")
    if args.out:
        write_text(args.out, csv_text(trials))
        say(f"per-trial table written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
