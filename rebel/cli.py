"""The practitioner's commands of ``python -m rebel``: ``fit``, ``predict``, ``evaluate``; shared argument types.

``fit TRAIN.csv --cost-matrix COSTS -o model.json`` (engine options ``--loss``, ``--leaves``, ``--learning-rate``,
``--early-stopping N --seed S``) trains a ``RebelClassifier`` on a labelled CSV file (numeric feature columns, a
``label`` column or the one ``--label-column`` names, never a guessed one; optionally a ``split`` column whose
``train`` rows are used) and saves it as JSON (``rebel.io``, docs/MODEL_FORMAT.md) with its feature names.
``predict model.json X.csv -o pred.csv`` writes one predicted class per input row; the model's feature columns
are found by name in any order (a missing one is an error naming it; other columns are ignored with one line
saying so; a file without a header needs ``--no-header`` and gives the features by position). ``evaluate
model.json TEST.csv`` prints the mean cost, the error rate and the confusion matrix (rows: truth) on the file's
``test`` rows (every row without a ``split`` column); ``--baselines`` adds the same engine trained cost-blind on
the file's ``train`` rows (or ``--train FILE``), decided by the minimum-risk rule and by argmax.

A cost matrix (``--cost-matrix``) is a CSV grid ``C[truth, prediction]`` (K rows of K numbers in sorted class
order, or a header ``truth,<class>,...`` and one row per true class in any order), or a JSON file: a preset
(``sample_data/*.json``), a session file of the app, or a bare K x K list; named classes are matched by name.

Bad input ends with one line ``error: <what>, <the bad value>, <the fix>`` on stderr and exit code 2, never a
traceback (``rebel.__main__.main`` turns every exception into one line). Input files larger than
``--max-bytes`` are refused before they are read; an output path equal to an input path is refused before any
work; a failed write says so.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from . import cli_methods
from .cli_args import (
    COMPILE_SECONDS,
    LOOP_COMPILE_SECONDS,
    PARALLEL_COMPILE_FACTOR,
    ProgressBar,
    check_size,
    refuse_overwrite,
    write_text,
)
from .cli_costs import read_cost_matrix
from .costs import CostWarning
from .data.files import MissingLabelColumn, _shorten, read_features, read_labelled
from .params import (
    check_variant_only,
)
from .textout import csv_text, say, terminal


def _read_labelled(path: Path, args, rows: str, model=None):
    """The ``rows`` ("train"/"test") of a labelled CSV file (``rebel.data.files.read_labelled``); with a
    ``model``, its features matched by name."""
    names = None if model is None else getattr(model, "feature_names_in_", None)
    n = None if model is None else model.n_features_in_
    try:
        header, drop = not getattr(args, "no_header", False), getattr(args, "drop", ())
        return read_labelled(path, args.label_column, rows, names, n, header=header, drop=drop)
    except MissingLabelColumn as exc:
        raise ValueError(
            f"{path}: {MissingLabelColumn(exc.columns, fix='or give its name with --label-column NAME')}"
        ) from None
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _note_ignored(path, ignored: list) -> None:
    if ignored:
        say(f"note: {path}: ignoring column(s) {_shorten(ignored)} the model does not use", file=sys.stderr)


# ------------------------------------------------------------------------------------------------- the engine
def class_scores(model, X) -> tuple:
    """(column prefix, K class scores (N, K) whose argmax is the prediction): REBEL's H(x) (``risk_scores``; a
    version 1 model's ``decision_function``, which was (N, K) for every K then), or minus each class's
    expected cost for a two-step or cost-weighted model (``risks``; for the latter, the cost-weighted risk)."""
    if hasattr(model, "risks"):
        return "neg_cost_", -np.asarray(model.risks(X))
    scores = model.risk_scores(X) if hasattr(model, "risk_scores") else model.decision_function(X)
    return "H_", np.asarray(scores).reshape(len(X), -1)


def compile_if_cold(variants: bool, stream=None) -> None:
    """Before the first use on a machine: one line saying the kernels compile, then compile them (two
    processes, ``rebel.warmup``), so no progress bar sits frozen meanwhile. Cheap when the numba cache is warm
    (it reads one index file per kernel group)."""
    from .warmup import GROUPS, _cache_is_cold, warmup

    groups = [g for g in GROUPS if variants or g != "variants"]
    if any(_cache_is_cold(g) for g in groups):
        _say_compiling(COMPILE_SECONDS, stream)
        warmup(variants=variants, load=False)


def compile_fit_if_cold(model, n_samples: int, n_features: int, n_classes: int, stream=None) -> None:
    """Before a fit whose kernels the numba cache lacks (a first use, or a new number of classes: the round
    loop compiles once per K): the notice with the estimate for this fit, then exactly its kernels (the serial
    drivers, or the parallel ones for a big problem; ``rebel.warmup.compile_fit``), so the progress bar never
    waits on numba."""
    from . import kernels as kern
    from .booster import runs_compiled_loop
    from .warmup import COLD_SECONDS, cache_is_cold, compile_fit

    parallel = kern.train_in_parallel(n_samples, n_features, n_classes, model.max_depth)
    size = (n_classes, model.n_estimators, model.max_depth, n_samples, n_features)
    loop = runs_compiled_loop(*size)  # a big fit compiles its round loop (rebel.booster.round_driver)
    if cache_is_cold(model.loss, model.leaves, parallel, n_classes, loop=loop):
        seconds = COLD_SECONDS.get((model.loss, model.leaves), max(COLD_SECONDS.values()))
        seconds += LOOP_COMPILE_SECONDS if loop and model.leaves == "binary" else 0
        _say_compiling(round(seconds * (PARALLEL_COMPILE_FACTOR if parallel else 1)), stream)
        compile_fit(n_classes, parallel=parallel, loop=loop, **model.get_params())


def _say_compiling(seconds, stream) -> None:
    say(
        f"compiling the engine for this machine (first use only, about {seconds} s)",
        file=stream or sys.stderr,
        flush=True,
    )


def _uses_variants(model) -> bool:
    if not hasattr(model, "leaves"):  # a two-step or cost-weighted model: no REBEL kernels
        return False
    return (model.loss, model.leaves, model.learning_rate, model.n_iter_no_change) != (
        "exp",
        "binary",
        1.0,
        None,
    )


def _variant_only(args) -> dict:
    """The variant-only options as given on the command line, refused in paper mode with the flags to fix it."""
    values = {"l2_regularization": args.l2_regularization, "min_samples_leaf": args.min_samples_leaf}
    check_variant_only(args.loss, args.leaves, values, cli=True)
    return values


def _frame(X: np.ndarray, features) -> pd.DataFrame:
    """X as a DataFrame of the named ``features``, so a fitted model keeps ``feature_names_in_``."""
    return pd.DataFrame(X, columns=[str(f) for f in features])


def _model_frame(X: np.ndarray, model):
    """X (columns in the model's order) as the model takes it: named as in its training, or as is for a model
    fitted without names (a version 1 file)."""
    names = getattr(model, "feature_names_in_", None)
    return X if names is None else _frame(X, names)


# --------------------------------------------------------------------------------------------------- commands
def cmd_fit(args) -> int:
    from .estimator import RebelClassifier
    from .io import dumps_model

    refuse_overwrite(
        args.out, {"the input TRAIN.csv": args.train, "the input --cost-matrix": args.cost_matrix}
    )
    check_size(args.train, args.max_bytes, "TRAIN.csv")
    cli_methods.check_fit_arguments(args)
    data = _read_labelled(args.train, args, "train")
    classes = np.unique(data.y)
    costs = None
    if args.cost_matrix is not None:
        costs = read_cost_matrix(args.cost_matrix, classes, args.max_bytes)
    if args.method != "rebel":
        return cli_methods.fit_method(args, _frame(data.X, data.features), data.y, costs, write_text)
    model = RebelClassifier(
        costs,
        args.rounds,
        args.depth,
        args.thresholds,
        args.binning,
        random_state=args.seed,
        loss=args.loss,
        leaves=args.leaves,
        learning_rate=args.learning_rate,
        n_iter_no_change=args.early_stopping,
        validation_fraction=args.validation_fraction,
        **_variant_only(args),
    )
    compile_fit_if_cold(model, *np.shape(data.X), len(classes))
    bar = None if args.quiet else ProgressBar("fit", unit="rounds")
    callback = None if bar is None else (lambda t, info: bar(t, args.rounds))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CostWarning)  # read_cost_matrix has warned about these costs once
        model.fit(_frame(data.X, data.features), data.y, callback=callback)
    write_text(args.out, dumps_model(model, args.label_column))
    features = data.features
    say(
        f"fitted {model.n_estimators_} rounds of depth {args.depth} ({_engine_text(args)}) on {len(data.y)} "
        f"points ({data.rows}), {len(features)} features ({', '.join(map(str, features[:8]))}"
        f"{', ...' if len(features) > 8 else ''}), classes {[str(c) for c in model.classes_]} in "
        f"{time.perf_counter() - start:.1f}s; training risk {model.train_risk_[-1]:.4f}, "
        f"loss {model.train_loss_[-1]:.4f}. Model written to {args.out}"
    )
    return 0


def _engine_text(args) -> str:
    text = f"loss {args.loss}, {args.leaves} leaves, learning rate {args.learning_rate:g}"
    if args.l2_regularization != 0.0 or args.min_samples_leaf != 1:
        text += f", l2 regularization {args.l2_regularization:g}, min samples a leaf {args.min_samples_leaf}"
    if args.early_stopping is not None:
        text += (
            f", early stopping after {args.early_stopping} rounds without a lower validation cost "
            f"(validation rows drawn with seed {args.seed})"
        )
    return text


def _load_model(args):
    from .io import load_model

    check_size(args.model, args.max_bytes, "model file")
    try:
        return load_model(args.model)
    except ValueError as exc:
        raise ValueError(f"{args.model}: {exc}") from None


def cmd_predict(args) -> int:
    refuse_overwrite(args.out, {"the input model.json": args.model, "the input X.csv": args.data})
    model = _load_model(args)
    check_size(args.data, args.max_bytes, "X.csv")
    names = getattr(model, "feature_names_in_", None)
    try:
        X, ignored = read_features(args.data, names, model.n_features_in_, header=not args.no_header)
    except ValueError as exc:
        raise ValueError(f"{args.data}: {exc}") from None
    _note_ignored(args.data, ignored)
    compile_if_cold(_uses_variants(model))
    X = _model_frame(X, model)
    table = pd.DataFrame({"prediction": model.predict(X)})
    if args.scores:
        prefix, scores = class_scores(model, X)
        for k, c in enumerate(model.classes_):
            table[f"{prefix}{c}"] = scores[:, k]
    write_text(args.out, csv_text(table))
    if args.out is not None:
        say(f"{len(table)} predictions written to {args.out}")
    return 0


def _costs_of(pred_idx: np.ndarray, truth: np.ndarray, costs: np.ndarray) -> float:
    return float(costs[truth, pred_idx].mean())


def cmd_evaluate(args) -> int:
    from .costs import label_indices

    model = _load_model(args)
    cli_methods.model_label_column(args, model)
    cli_methods.check_evaluate_arguments(args, model)
    check_size(args.data, args.max_bytes, "TEST.csv")
    data = _read_labelled(args.data, args, "test", model)
    train = cli_methods.baseline_rows(args, model, _read_labelled) if args.baselines else None
    _note_ignored(args.data, data.ignored)
    classes = model.classes_
    costs = model.cost_matrix_
    if args.cost_matrix is not None:
        costs = read_cost_matrix(args.cost_matrix, classes, args.max_bytes)
    truth = label_indices(
        data.y, classes, "that label was not seen in training; evaluate on the model's classes"
    )
    compile_if_cold(_uses_variants(model))
    X = _model_frame(data.X, model)
    pred = label_indices(model.predict(X), classes)
    k = len(classes)
    confusion = np.bincount(truth * k + pred, minlength=k * k).reshape(k, k)
    names = [terminal(c) for c in classes]  # escaped before the columns are aligned
    frame = pd.DataFrame(confusion, columns=names)
    frame.insert(0, "truth \\ predicted", names)
    source = "the model's training costs" if args.cost_matrix is None else str(args.cost_matrix)
    say(f"points: {len(data.y)}")
    say(f"rows: {data.rows}")
    say(f"mean cost: {_costs_of(pred, truth, costs):.6g} (cost matrix: {source})")
    say(f"error rate: {np.mean(truth != pred):.6g}")
    if args.baselines:
        _print_baselines(args, model, costs, X, truth, _costs_of(pred, truth, costs), train)
    cli_methods.print_selection(model)
    say("confusion matrix (rows: truth, columns: predicted):")
    say(frame.to_string(index=False))
    return 0


def _print_baselines(args, model, costs, X_test, truth, rebel_cost: float, train) -> None:
    """The same engine (the model's parameters) trained cost-blind on training rows, decided by the minimum-risk
    rule (the two-step method, ``rebel.baselines.TwoStepClassifier``) and by argmax."""
    from .baselines import TwoStepClassifier
    from .costs import label_indices
    from .estimator import RebelClassifier

    source = args.train or args.data
    params = {**model.get_params(), "cost_matrix": None}
    blind = TwoStepClassifier(RebelClassifier(**params), costs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CostWarning)  # the evaluation costs have been read (and warned) once
        blind.fit(_model_frame(train.X, model), train.y)
    min_risk = label_indices(blind.predict(X_test), model.classes_)
    argmax = label_indices(blind.estimator_.predict(X_test), model.classes_)
    two_step = _costs_of(min_risk, truth, costs)
    say(
        f"baselines (the same engine trained without costs on {len(train.y)} points: {train.rows} of "
        f"{source}):"
    )
    say(f"  mean cost, cost-blind + min-risk rule (two-step): {two_step:.6g}")
    say(f"  mean cost, cost-blind + argmax: {_costs_of(argmax, truth, costs):.6g}")
    if rebel_cost > two_step:
        say(
            f"  cost-sensitive training cost more here ({rebel_cost:.6g}) than the two-step method "
            f"({two_step:.6g}); docs/REPRODUCTION.md shows when that happens."
        )


def cmd_export_scene(args) -> int:
    from rebel.ui.browser.scene_cli import run

    return run(args)


COMMANDS = {
    "fit": cmd_fit,
    "predict": cmd_predict,
    "evaluate": cmd_evaluate,
    "export-scene": cmd_export_scene,
}


def run(args) -> int:
    """Run a parsed ``fit``/``predict``/``evaluate`` command (errors are reported by ``rebel.__main__.main``)."""
    return COMMANDS[args.command](args)
