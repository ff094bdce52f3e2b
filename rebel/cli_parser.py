"""The argument parsers of ``python -m rebel``'s practitioner commands ``fit``, ``predict``, ``evaluate`` (and
``export-scene``): every argument typed and range-checked by ``rebel.cli_args`` before any work, ranges and
choices from ``rebel.params``. ``rebel.cli`` runs the parsed commands."""

from __future__ import annotations

from . import cli_methods
from .cli_args import (
    DEFAULT_SEED,
    MAX_BYTES,
    early_stopping_type,
    float_param_type,
    input_file,
    int_at_least,
    min_samples_leaf_type,
    output_file,
    param_type,
)
from .data.files import LABEL_COLUMN
from .params import CHOICE_PARAMS, FLOAT_PARAMS, INT_PARAMS, MIN_SAMPLES_LEAF, N_ITER_NO_CHANGE


def _add_max_bytes(parser) -> None:
    parser.add_argument(
        "--max-bytes",
        type=int_at_least(1, "--max-bytes"),
        default=MAX_BYTES,
        metavar="N",
        help="refuse input files larger than this many bytes, before reading them",
    )


def _add_fit(sub) -> None:
    fit = sub.add_parser(
        "fit",
        help="train REBEL on a labelled CSV file and save the model as JSON",
        description="Train REBEL on TRAIN.csv (its 'train' rows if it has a split column) and save the model.",
    )
    fit.add_argument(
        "train", type=input_file, metavar="TRAIN.csv", help="numeric features and a label column"
    )
    fit.add_argument(
        "--cost-matrix",
        type=input_file,
        metavar="COSTS",
        help="cost grid C[truth, prediction]: CSV, or a JSON preset/session file (default: 0-1 costs)",
    )
    _add_params(
        fit, (("--rounds", "n_estimators"), ("--depth", "max_depth"), ("--thresholds", "n_thresholds"))
    )
    fit.add_argument(
        "--binning", choices=CHOICE_PARAMS["binning"], default="uniform", help="threshold placement"
    )
    _add_engine_options(fit)
    fit.add_argument(
        "--seed",
        type=int_at_least(0, "the seed"),
        default=DEFAULT_SEED,
        help="seed of the only random step, early stopping's validation rows",
    )
    fit.add_argument(
        "--label-column", default=None, help=f"name of the label column (default: {LABEL_COLUMN})"
    )
    fit.add_argument("-o", "--out", type=output_file, required=True, metavar="model.json", help="model file")
    _add_max_bytes(fit)
    fit.add_argument("--quiet", action="store_true", help="no progress bar")
    cli_methods.add_fit_arguments(fit)


def _add_params(parser, flags: tuple) -> None:
    """One option per (flag, name) of a parameter of ``rebel.params``' tables: its type, default, help and range
    from the table."""
    for flag, name in flags:
        if name in INT_PARAMS:
            p, kind = INT_PARAMS[name], param_type(name)
            rng = f"[{p.low}, {p.high}]"
        else:
            p, kind = FLOAT_PARAMS[name], float_param_type(name)
            rng = p.interval
        parser.add_argument(flag, type=kind, default=p.default, help=f"{p.help} {rng}")


def _add_engine_options(fit) -> None:
    """The engine options beyond the paper (defaults: paper mode), ranges and choices from ``rebel.params``."""
    fit.add_argument(
        "--loss",
        choices=CHOICE_PARAMS["loss"],
        default=CHOICE_PARAMS["loss"][0],
        help="exp (the paper) or logistic (Newton steps)",
    )
    fit.add_argument(
        "--leaves",
        choices=CHOICE_PARAMS["leaves"],
        default=CHOICE_PARAMS["leaves"][0],
        help="binary (the paper's f(x) a) or vector (a K-vector per leaf)",
    )
    _add_params(
        fit,
        (
            ("--learning-rate", "learning_rate"),
            ("--validation-fraction", "validation_fraction"),
            ("--l2-regularization", "l2_regularization"),
        ),
    )
    fit.add_argument(
        "--early-stopping",
        type=early_stopping_type,
        default=None,
        metavar="N",
        help=f"{N_ITER_NO_CHANGE.help} [{N_ITER_NO_CHANGE.low}, {N_ITER_NO_CHANGE.high}] (default: off)",
    )
    fit.add_argument(
        "--min-samples-leaf",
        type=min_samples_leaf_type,
        default=MIN_SAMPLES_LEAF.default,
        metavar="N",
        help=f"{MIN_SAMPLES_LEAF.help} [{MIN_SAMPLES_LEAF.low}, {MIN_SAMPLES_LEAF.high}]",
    )


def _model_command(sub, name: str, help: str, description: str, data: tuple):
    """A subcommand that applies a saved model to a CSV file: its positional ``model`` and ``data`` (metavar,
    help)."""
    parser = sub.add_parser(name, help=help, description=description)
    parser.add_argument("model", type=input_file, metavar="model.json")
    parser.add_argument("data", type=input_file, metavar=data[0], help=data[1])
    return parser


def add_commands(sub) -> None:
    """Add ``fit``, ``predict`` and ``evaluate`` to the subparsers ``sub`` of ``python -m rebel``."""
    _add_fit(sub)
    pred = _model_command(
        sub,
        "predict",
        "predict the class of every row of a CSV file",
        "Predict the class of every row of X.csv; the model's feature columns are found by name.",
        ("X.csv", "the model's feature columns, in any order"),
    )
    pred.add_argument(
        "-o", "--out", type=output_file, default=None, metavar="pred.csv", help="(default: stdout)"
    )
    pred.add_argument(
        "--scores",
        action="store_true",
        help="also write every class's score: H_k(x) for REBEL, minus the expected cost (neg_cost_k) for the "
        "other methods",
    )
    pred.add_argument(
        "--no-header",
        action="store_true",
        help="X.csv has no header line: its columns are the features in order",
    )
    _add_max_bytes(pred)
    ev = _model_command(
        sub,
        "evaluate",
        "mean cost, error rate and confusion matrix on a labelled CSV file",
        "Score a model on TEST.csv (its 'test' rows if it has a split column, else every row).",
        ("TEST.csv", "its 'test' rows if it has a split column"),
    )
    ev.add_argument(
        "--cost-matrix",
        type=input_file,
        metavar="COSTS",
        help="CSV grid or JSON preset/session file (default: the model's training costs)",
    )
    ev.add_argument(
        "--label-column",
        default=None,
        help=f"name of the label column, or its number with --no-header (default: {LABEL_COLUMN})",
    )
    ev.add_argument(
        "--no-header", action="store_true", help="TEST.csv has no header line (give --label-column N)"
    )
    ev.add_argument(
        "--baselines",
        action="store_true",
        help="also train the same engine cost-blind and print its cost with the min-risk rule and with argmax",
    )
    ev.add_argument(
        "--train",
        type=input_file,
        default=None,
        metavar="TRAIN.csv",
        help="training rows for --baselines (default: the 'train' rows of TEST.csv)",
    )
    _add_max_bytes(ev)
    from rebel.ui.browser.scene_cli import add_command  # export-scene: a lesson as one offline HTML file

    add_command(sub)
