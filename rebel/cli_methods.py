"""The command line's methods beyond REBEL: ``fit --method auto|rebel|two-step|weighted`` and what ``evaluate``
prints of them.

- ``--method rebel`` (the default) trains REBEL on the costs (``rebel.cli.cmd_fit``).
- ``--method two-step``: the calibrated two-step (``MinRiskClassifier``, ``--calibration``, default temperature)
  on LightGBM when installed, else scikit-learn's HistGradientBoosting (``rebel.auto.booster``).
- ``--method weighted``: cost-weighted training (``CostWeightedClassifier``) on the same booster.
- ``--method auto``: every candidate of ``rebel.auto.candidates`` scored by ``--cv``-fold cross-validated cost
  and chosen by ``choose_method``'s rule (the cheapest, or the two-step when the cheapest cannot be told apart);
  prints the table (cost, interval, paired difference to the winner) and why the winner won, and saves the
  winner with the table, which ``evaluate`` prints again.

REBEL's own options (``--rounds``, ``--loss``, ...) apply to ``--method rebel`` only; given with another method
they are refused before any work. The model file keeps the label column (``--label-column``) so ``evaluate``
finds it without the flag.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

from .costs import CostWarning
from .textout import say

METHOD_CHOICES = ("rebel", "two-step", "weighted", "auto")
CALIBRATION_CHOICES = ("temperature", "sigmoid", "isotonic", "none")
REBEL_ONLY = {  # dest -> flag of the options that only REBEL takes
    "rounds": "--rounds",
    "depth": "--depth",
    "thresholds": "--thresholds",
    "binning": "--binning",
    "loss": "--loss",
    "leaves": "--leaves",
    "learning_rate": "--learning-rate",
    "validation_fraction": "--validation-fraction",
    "l2_regularization": "--l2-regularization",
    "early_stopping": "--early-stopping",
    "min_samples_leaf": "--min-samples-leaf",
}


def _cv_type(value: str) -> int:
    try:
        k = int(value)
    except ValueError:
        raise ValueError(f"--cv is {value!r}; give a whole number of folds from 2 to 20.") from None
    if not 2 <= k <= 20:
        raise ValueError(f"--cv is {k}; give a whole number of folds from 2 to 20.")
    return k


def add_fit_arguments(fit) -> None:
    """``--method``, ``--calibration``, ``--cv`` and ``--drop`` of ``fit``."""
    fit.add_argument(
        "--method",
        choices=METHOD_CHOICES,
        default="rebel",
        help="rebel (cost-sensitive boosting), two-step (calibrated booster + min-risk rule), weighted "
        "(cost-weighted booster), auto (the cheapest of them by cross-validated cost; the two-step when the "
        "cheapest cannot be told apart from it)",
    )
    fit.add_argument(
        "--calibration",
        choices=CALIBRATION_CHOICES,
        default=None,
        help="how --method two-step calibrates its posterior (default: temperature)",
    )
    fit.add_argument(
        "--cv",
        type=_cv_type,
        default=None,
        metavar="K",
        help="folds of --method auto's comparison (default: 5)",
    )
    fit.set_defaults(fit_defaults={dest: fit.get_default(dest) for dest in REBEL_ONLY})
    fit.add_argument(
        "--drop",
        action="append",
        default=[],
        metavar="COLUMN",
        help="a column of TRAIN.csv that is not a feature (an id, a date); repeat for several",
    )


def check_fit_arguments(args) -> None:
    """Refuse, before any work, options that do not apply to the chosen method."""
    if args.method != "rebel":
        given = [
            flag for dest, flag in REBEL_ONLY.items() if getattr(args, dest) != args.fit_defaults.get(dest)
        ]
        if given:
            raise ValueError(
                f"{', '.join(given)} set REBEL's training, but --method is {args.method!r}; drop them or use "
                "--method rebel."
            )
    if args.calibration is not None and args.method != "two-step":
        raise ValueError(
            f"--calibration applies to --method two-step; --method is {args.method!r}. Drop --calibration."
        )
    if args.cv is not None and args.method != "auto":
        raise ValueError(f"--cv applies to --method auto; --method is {args.method!r}. Drop --cv.")


def _estimator(args, costs, n_classes: int):
    from .auto import CostSensitiveAuto, booster
    from .minrisk import CostWeightedClassifier, MinRiskClassifier

    C = np.ones((n_classes, n_classes)) - np.eye(n_classes) if costs is None else costs
    if args.method == "auto":
        return CostSensitiveAuto(C, cv=args.cv or 5, random_state=args.seed)
    if args.method == "weighted":
        return CostWeightedClassifier(booster(args.seed), C)
    calibration = args.calibration or "temperature"
    return MinRiskClassifier(
        booster(args.seed), C, None if calibration == "none" else calibration, random_state=args.seed
    )


def fit_method(args, X, y, costs, write) -> int:
    """Fit ``--method`` two-step, weighted or auto on (X, y) and save it with ``write(args.out, text)``."""
    from .auto import booster_name, selection_text
    from .io import dumps_model

    model = _estimator(args, costs, len(np.unique(y)))
    start = time.perf_counter()
    progress = None
    if args.method == "auto" and not args.quiet:
        from .cli_args import ProgressBar

        bar = ProgressBar("candidates", unit="candidates")
        progress = lambda done, total, name: bar(done, total)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CostWarning)  # read_cost_matrix has warned about these costs once
        if args.method == "auto":
            model.fit(X, y, progress=progress)
        else:
            model.fit(X, y)
    write(args.out, dumps_model(model, args.label_column or "label"))
    seconds = time.perf_counter() - start
    if args.method == "auto":
        say(selection_text(model.selection_, model.reason_, model.best_name_))
        what = model.best_name_
    else:
        what = f"{args.method} on {booster_name(model.estimator)}"
    say(
        f"fitted {what} on {len(y)} points, {np.shape(X)[1]} features, classes "
        f"{[str(c) for c in model.classes_]} in {seconds:.1f}s. Model written to {args.out}"
    )
    return 0


def model_label_column(args, model) -> None:
    """``--label-column`` defaults to the one the model file kept."""
    if args.label_column is None and getattr(model, "label_column_", None) not in (None, "label"):
        args.label_column = model.label_column_


def check_evaluate_arguments(args, model) -> None:
    """Before any work: ``--baselines`` retrains REBEL cost-blind, so it needs a REBEL model."""
    method = getattr(model, "method_", "rebel")
    if args.baselines and method != "rebel":
        raise ValueError(
            f"--baselines retrains REBEL without costs beside a REBEL model; this model is {method!r}. "
            "Drop --baselines (a model fitted with --method auto prints its candidates' costs)."
        )


def baseline_rows(args, model, read_labelled):
    """The training rows ``--baselines`` retrains on, read before the evaluation runs (refused at once when
    there are none)."""
    source = args.train or args.data
    if args.train is not None:
        from .cli_args import check_size

        check_size(args.train, args.max_bytes, "--train")
    train = read_labelled(source, args, "train", model)
    if args.train is None and train.rows.startswith("every row"):
        raise ValueError(
            f"--baselines trains on the 'train' rows of {args.data}, but it has no split column; give the "
            "training file with --train TRAIN.csv."
        )
    missing = sorted(set(model.classes_.tolist()) - set(train.y.tolist()), key=str)
    if missing:
        raise ValueError(
            f"--baselines: the training rows of {source} have no point of class {missing[0]!r}; give the "
            "model's training file with --train."
        )
    return train


def print_selection(model, stream=None) -> None:
    """The candidate table a ``--method auto`` model was chosen by (nothing for another model)."""
    from .auto import selection_text
    from .method_file import selection_of

    table = selection_of(model)
    if table is not None:
        say(
            "chosen by cross-validated cost on the training rows (fit --method auto):",
            file=stream or sys.stdout,
        )
        say(selection_text(table, model.reason_, model.winner_), file=stream or sys.stdout)
