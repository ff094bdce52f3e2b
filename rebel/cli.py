"""The practitioner's commands of ``python -m rebel``: ``fit``, ``predict``, ``evaluate``; shared argument types.

``fit TRAIN.csv --cost-matrix C.csv -o model.json`` (engine options ``--loss``, ``--leaves``, ``--learning-rate``,
``--early-stopping N``) trains a ``RebelClassifier`` on a labelled CSV file (read by
the data layer's ``read_csv``: numeric feature columns, a ``label`` column, optionally a ``split`` column whose
``train`` rows are used) and saves it as JSON (``rebel.io``). ``predict model.json X.csv -o pred.csv`` writes one
predicted class per input row (every row; ``label``/``split`` columns are ignored). ``evaluate model.json
TEST.csv --cost-matrix C.csv`` prints the mean cost, the error rate and the confusion matrix (rows: truth) on
the file's ``test`` rows (or every row without a ``split`` column).

A cost-matrix file is a CSV grid ``C[truth, prediction]``: either K rows of K numbers in sorted class order, or a
header ``truth,<class>,...`` and one row per true class (``<class>,<costs>...``) in any order.

Bad input ends with one line ``error: <what>, <the bad value>, <the fix>`` on stderr and exit code 2, never a
traceback. Argument ranges come from ``rebel.params`` (argparse type functions) and output paths are checked
before any work starts.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .costs import validate_cost_matrix
from .data.files import read_features
from .params import CHOICE_PARAMS, FLOAT_PARAMS, INT_PARAMS, N_ITER_NO_CHANGE, check_float, check_param


class ProgressBar:
    """``progress(done, total, label="")`` callback drawing a one-line bar on a stream (in place on a terminal).

    Follows the project's progress protocol: it returns None, so the run goes on.
    """

    def __init__(self, label: str, stream=None, width: int = 30, unit: str = "fits"):
        self.label, self.stream, self.width, self.unit = label, stream or sys.stderr, width, unit
        self.start = time.perf_counter()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_decile = -1

    def __call__(self, done: int, total: int, label: str = "") -> None:
        frac = done / total if total else 1.0
        decile = int(frac * 10)
        if not self.tty and decile == self._last_decile and done < total:
            return  # in logs, one line per 10 %
        self._last_decile = decile
        filled = int(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        line = f"{self.label} [{bar}] {done}/{total} {self.unit} {time.perf_counter() - self.start:6.1f}s"
        end = "\n" if (done >= total or not self.tty) else ""
        self.stream.write(("\r" if self.tty else "") + line + end)
        self.stream.flush()


# ------------------------------------------------------------------------------------ argument type functions
def _whole(value: str, what: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number; got {value!r}.") from None


def param_type(name: str):
    """Argparse type of the integer hyper-parameter ``name``, with the engine's range from ``rebel.params``."""

    def parse(value: str) -> int:
        try:
            return check_param(name, _whole(value, name))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


def param_list_type(name: str):
    """Comma-separated values of ``name`` (e.g. ``--depths 1,2,3``), each in the engine's range."""
    one = param_type(name)

    def parse(value: str) -> tuple:
        items = [v.strip() for v in value.split(",") if v.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"give at least one {name}, e.g. 1,2; got {value!r}.")
        return tuple(one(v) for v in items)

    parse.__name__ = f"{name} list"
    return parse


def float_param_type(name: str):
    """Argparse type of the real hyper-parameter ``name`` (``rebel.params.FLOAT_PARAMS``)."""

    def parse(value: str) -> float:
        try:
            number = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number; got {value!r}.") from None
        try:
            return check_float(name, number)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


def early_stopping_type(value: str) -> int:
    """``--early-stopping N``: rounds without a lower validation cost (``rebel.params.N_ITER_NO_CHANGE``)."""
    try:
        return N_ITER_NO_CHANGE.check(_whole(value, "--early-stopping"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def int_at_least(low: int, what: str):
    """Argparse type: a whole number >= ``low``."""

    def parse(value: str) -> int:
        n = _whole(value, what)
        if n < low:
            raise argparse.ArgumentTypeError(f"{what} must be at least {low}; got {n}.")
        return n

    parse.__name__ = what
    return parse


def count_or_names(value: str) -> str:
    """``--datasets``: a count >= 1 or comma-separated names (checked here; the runner resolves the names)."""
    text = value.strip()
    try:
        n = int(text)
    except ValueError:
        if not [v for v in text.split(",") if v.strip()]:
            raise argparse.ArgumentTypeError(
                f"give a number of datasets (>= 1) or comma-separated names; got {value!r}."
            ) from None
        return text
    if n < 1:
        raise argparse.ArgumentTypeError(f"the number of datasets must be at least 1; got {n}.")
    return str(n)


def input_file(value: str) -> Path:
    """Argparse type: an existing, readable file."""
    path = Path(value)
    if not path.is_file():
        why = "is a directory" if path.is_dir() else "does not exist"
        raise argparse.ArgumentTypeError(f"input file {value!r} {why}; check the path.")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"input file {value!r} is not readable; check its permissions.")
    return path


def output_file(value: str) -> Path:
    """Argparse type: a path a file can be written to, checked before any work starts."""
    path = Path(value)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"output {value!r} is a directory; give a file name inside it.")
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(
            f"cannot write {value!r}: the directory {str(parent)!r} does not exist; create it or choose "
            "another path."
        )
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {value!r}: permission denied; choose another path.")
    return path


# ----------------------------------------------------------------------------------------------- file reading
def _read_labelled(path: Path, label_column: str | None, rows: str):
    """(X, y, feature names) of the ``rows`` ("train" or "test") of a labelled CSV file; all rows if unsplit."""
    from .data.files import read_csv

    ds = read_csv(path, label_column=label_column, test_fraction=0.0, name=path.stem)
    if rows == "test" and len(ds.y_test):  # without a split column every row is read as training data
        return ds.X_test, ds.y_test, ds.feature_names
    return ds.X_train, ds.y_train, ds.feature_names


def _number(cell: str, where: str) -> float:
    try:
        value = float(cell)
    except ValueError:
        raise ValueError(f"{where}: {cell.strip()!r} is not a number; costs are numbers >= 0.") from None
    if not math.isfinite(value):
        raise ValueError(f"{where}: {cell.strip()!r} is not finite; costs are finite numbers >= 0.")
    return value


def read_cost_matrix(path: Path, classes) -> np.ndarray:
    """The cost matrix of a CSV file, rows and columns in the order of ``classes`` (sorted class labels)."""
    rows = [
        r for r in csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))) if any(c.strip() for c in r)
    ]
    names = [str(c) for c in classes]
    k = len(names)
    if not rows:
        raise ValueError(f"--cost-matrix {path} is empty; give {k} rows of {k} costs.")
    try:  # a header line starts with a name (e.g. "truth") or an empty cell; a grid starts with a number
        float(rows[0][0])
        named = False
    except ValueError:
        named = True
    if not named:
        grid = [[_number(c, f"--cost-matrix {path} line {i + 1}") for c in r] for i, r in enumerate(rows)]
    else:
        header = [c.strip() for c in rows[0][1:]]
        by_name = {r[0].strip(): r[1:] for r in rows[1:]}
        if sorted(header) != sorted(names) or sorted(by_name) != sorted(names):
            raise ValueError(
                f"--cost-matrix {path} names the classes {header} (columns) and {sorted(by_name)} (rows); "
                f"the data has {names}. Name each class once in the header and once per row."
            )
        order = [header.index(n) for n in names]
        grid = []
        for n in names:
            cells = by_name[n]
            if len(cells) != k:
                raise ValueError(f"--cost-matrix {path}: row {n!r} has {len(cells)} costs; give {k}.")
            grid.append([_number(cells[j], f"--cost-matrix {path} row {n!r}") for j in order])
    if len(grid) != k or any(len(r) != k for r in grid):
        raise ValueError(
            f"--cost-matrix {path} is {len(grid)} x {max(map(len, grid))}; the data has {k} classes {names}, "
            f"so give a {k} x {k} grid."
        )
    return validate_cost_matrix(np.array(grid), n_classes=k, name="--cost-matrix")


# --------------------------------------------------------------------------------------------------- commands
def cmd_fit(args) -> int:
    from .estimator import RebelClassifier
    from .io import save_model

    X, y, features = _read_labelled(args.train, args.label_column, "train")
    classes = np.unique(y)
    costs = None if args.cost_matrix is None else read_cost_matrix(args.cost_matrix, classes)
    model = RebelClassifier(
        costs,
        args.rounds,
        args.depth,
        args.thresholds,
        args.binning,
        loss=args.loss,
        leaves=args.leaves,
        learning_rate=args.learning_rate,
        n_iter_no_change=args.early_stopping,
        validation_fraction=args.validation_fraction,
    )
    bar = None if args.quiet else ProgressBar("fit", unit="rounds")
    callback = None if bar is None else (lambda t, info: bar(t, args.rounds))
    start = time.perf_counter()
    model.fit(X, y, callback=callback)
    save_model(model, args.out)
    print(
        f"fitted {model.n_estimators_} rounds of depth {args.depth} ({_engine_text(args)}) on {len(y)} points, {len(features)} features "
        f"({', '.join(features[:8])}), classes {[str(c) for c in model.classes_]} in "
        f"{time.perf_counter() - start:.1f}s; training risk {model.train_risk_[-1]:.4f}, "
        f"loss {model.train_loss_[-1]:.4f}. Model written to {args.out}"
    )
    return 0


def _engine_text(args) -> str:
    text = f"loss {args.loss}, {args.leaves} leaves, learning rate {args.learning_rate:g}"
    if args.early_stopping is not None:
        text += f", early stopping after {args.early_stopping} rounds without a lower validation cost"
    return text


def cmd_predict(args) -> int:
    from .io import load_model

    model = load_model(args.model)
    X = read_features(args.data, model.n_features_in_)
    table = pd.DataFrame({"prediction": model.predict(X)})
    if args.scores:
        scores = model.decision_function(X)
        for k, c in enumerate(model.classes_):
            table[f"H_{c}"] = scores[:, k]
    if args.out is None:
        table.to_csv(sys.stdout, index=False)
    else:
        table.to_csv(args.out, index=False)
        print(f"{len(table)} predictions written to {args.out}")
    return 0


def cmd_evaluate(args) -> int:
    from .io import load_model

    model = load_model(args.model)
    X, y, _ = _read_labelled(args.data, args.label_column, "test")
    if X.shape[1] != model.n_features_in_:
        raise ValueError(
            f"{args.data} has {X.shape[1]} feature columns; the model was trained on {model.n_features_in_}. "
            "Give the same feature columns."
        )
    classes = model.classes_
    costs = model.cost_matrix_ if args.cost_matrix is None else read_cost_matrix(args.cost_matrix, classes)
    truth = model._label_indices(y)
    pred = np.argmax(model.decision_function(X), axis=1)
    k = len(classes)
    confusion = np.bincount(truth * k + pred, minlength=k * k).reshape(k, k)
    names = [str(c) for c in classes]
    frame = pd.DataFrame(confusion, columns=names)
    frame.insert(0, "truth \\ predicted", names)
    source = "the model's training costs" if args.cost_matrix is None else str(args.cost_matrix)
    print(f"points: {len(y)}")
    print(f"mean cost: {costs[truth, pred].mean():.6g} (cost matrix: {source})")
    print(f"error rate: {np.mean(truth != pred):.6g}")
    print("confusion matrix (rows: truth, columns: predicted):")
    print(frame.to_string(index=False))
    return 0


COMMANDS = {"fit": cmd_fit, "predict": cmd_predict, "evaluate": cmd_evaluate}


def _add_fit(sub) -> None:
    fit = sub.add_parser(
        "fit",
        help="train REBEL on a labelled CSV file and save the model as JSON",
        description="Train REBEL on TRAIN.csv (its 'train' rows if it has a split column) and save the model.",
    )
    fit.add_argument(
        "train", type=input_file, metavar="TRAIN.csv", help="numeric features and a label column"
    )
    fit.add_argument("--cost-matrix", type=input_file, metavar="C.csv", help="cost grid C[truth, prediction]")
    for flag, name in (
        ("--rounds", "n_estimators"),
        ("--depth", "max_depth"),
        ("--thresholds", "n_thresholds"),
    ):
        p = INT_PARAMS[name]
        fit.add_argument(
            flag, type=param_type(name), default=p.default, help=f"{p.help} [{p.low}, {p.high}] ({p.default})"
        )
    fit.add_argument(
        "--binning", choices=CHOICE_PARAMS["binning"], default="uniform", help="threshold placement"
    )
    _add_engine_options(fit)
    fit.add_argument(
        "--label-column", default=None, help="name of the label column (default: label, else last)"
    )
    fit.add_argument("-o", "--out", type=output_file, required=True, metavar="model.json", help="model file")
    fit.add_argument("--quiet", action="store_true", help="no progress bar")


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
    for flag, name in (
        ("--learning-rate", "learning_rate"),
        ("--validation-fraction", "validation_fraction"),
    ):
        p = FLOAT_PARAMS[name]
        rng = f"{'[' if p.closed_low else '('}{p.low:g}, {p.high:g}{')' if p.open_high else ']'}"
        fit.add_argument(
            flag, type=float_param_type(name), default=p.default, help=f"{p.help} {rng} ({p.default:g})"
        )
    fit.add_argument(
        "--early-stopping",
        type=early_stopping_type,
        default=None,
        metavar="N",
        help=f"{N_ITER_NO_CHANGE.help} [{N_ITER_NO_CHANGE.low}, {N_ITER_NO_CHANGE.high}] (off)",
    )


def add_commands(sub) -> None:
    """Add ``fit``, ``predict`` and ``evaluate`` to the subparsers ``sub`` of ``python -m rebel``."""
    _add_fit(sub)
    pred = sub.add_parser("predict", help="predict the class of every row of a CSV file")
    pred.add_argument("model", type=input_file, metavar="model.json")
    pred.add_argument("data", type=input_file, metavar="X.csv", help="the model's feature columns")
    pred.add_argument(
        "-o", "--out", type=output_file, default=None, metavar="pred.csv", help="(default stdout)"
    )
    pred.add_argument("--scores", action="store_true", help="also write the scores H_k(x) of every class")
    ev = sub.add_parser("evaluate", help="mean cost, error rate and confusion matrix on a labelled CSV file")
    ev.add_argument("model", type=input_file, metavar="model.json")
    ev.add_argument(
        "data", type=input_file, metavar="TEST.csv", help="its 'test' rows if it has a split column"
    )
    ev.add_argument("--cost-matrix", type=input_file, metavar="C.csv", help="(default: the training costs)")
    ev.add_argument(
        "--label-column", default=None, help="name of the label column (default: label, else last)"
    )


def run(args) -> int:
    """Run a parsed ``fit``/``predict``/``evaluate`` command; bad input is one error line and exit code 2."""
    try:
        return COMMANDS[args.command](args)
    except (ValueError, OSError) as exc:
        message = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"error: {message}", file=sys.stderr)
        return 2
