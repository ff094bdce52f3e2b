"""The typed, validated schema of a model file (``rebel.io``), written by hand so the engine needs no extra package.

A model file is JSON. ``read_document(obj)`` checks the parsed object field by field (type, range, shape and the
relations between fields) and returns a ``ModelDocument`` of plain Python values and numpy arrays, or raises
``ModelFileError`` naming the field, the bad value (shortened) and what was expected. Every structure or type
error ends there: nothing reaches the caller as a TypeError, KeyError, OverflowError or RecursionError.

Checks beyond types: classes 1-D, scalar, sorted and unique, 2 <= K <= ``MAX_CLASSES``; costs finite, >= 0 and at
most ``costs.MAX_COST``; depth within ``params.MAX_DEPTH``; every feature, threshold and leaf-sign entry in range;
thresholds finite; ``|a0_k| + sum_t |a_tk| <= MAX_ABS_SCORE`` so the scores H stay finite for any input.
"""

from __future__ import annotations

import itertools
import reprlib
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .binning import BINNINGS
from .costs import validate_cost_matrix
from .names import MAX_NAME_CHARS, clean_name
from .params import (
    CHOICE_PARAMS,
    INT_PARAMS,
    MAX_CLASSES,
    MIN_SAMPLES_LEAF,
    N_ITER_NO_CHANGE,
    VARIANT_ONLY,
    check_choice,
    check_float,
    check_variant_only,
)

FORMAT = "rebel-explorer-model"
VERSION = 2  # the version save_model writes
VERSIONS = (1, 2)  # the versions load_model reads (docs/MODEL_FORMAT.md: what each holds)
MAX_FEATURES = 1_000_000
MAX_LABEL_CHARS = MAX_NAME_CHARS  # a class label or feature name passes the name door (rebel.names)
MAX_ABS_SCORE = 1e300  # bound on |a0_k| + sum_t |a_tk|: the scores H cannot overflow
_INT64 = (-(2**63), 2**63 - 1)


class ModelFileError(ValueError):
    """A model file is malformed, of another format or of an unsupported version."""


# name -> (kind, shape) of every fitted array a model file must contain, in the file's order. kind: float, bool or
# int8/int32 (JSON integers read into that dtype); shape in T rounds, K classes, d features, n_thr thresholds, the
# trees' nodes (2^D - 1) and leaves (2^D), depth D.
ARRAYS = {
    "cost_matrix_": ("float", ("K", "K")),
    "thresholds_": ("float", ("d", "n_thr")),
    "feature_usable_": ("bool", ("d",)),
    "a0_": ("float", ("K",)),
    "tree_features_": ("int32", ("T", "nodes")),
    "tree_thr_idx_": ("int32", ("T", "nodes")),
    "tree_thresholds_": ("float", ("T", "nodes")),
    "tree_leaf_signs_": ("int8", ("T", "leaves")),
    "a_": ("float", ("T", "K")),
    "train_loss_": ("float", ("T + 1",)),
    "train_risk_": ("float", ("T + 1",)),
    "layer_loss_": ("float", ("T", "depth")),
}
PARAMS = ("n_estimators", "max_depth", "n_thresholds", "binning", "random_state")
# Engine options beyond the paper; a file without them (written before they existed) is a paper-mode model.
OPTION_DEFAULTS = {
    "loss": "exp",
    "leaves": "binary",
    "learning_rate": 1.0,
    "n_iter_no_change": None,
    "validation_fraction": 0.1,
    **VARIANT_ONLY,  # written only when set away from these (a file of a default model reads as it always did)
}
# Fitted arrays of some models only: vector leaves (T rows of 2^D * K values, leaf-major) and early stopping's
# validation costs (T + 1,).
OPTIONAL_ARRAYS = ("tree_leaf_values_", "validation_cost_")
_FIELDS = {"format", "version", "params", "cost_matrix_param", "uses_sample_cost", "n_features_in"}
_FIELDS |= {"classes", "arrays"}
_FIELDS_V2 = {"feature_names", "package_version"}  # added in version 2 (required there, unknown in version 1)
MAX_VERSION_CHARS = 100
_CLASS_KINDS = {  # kind -> (accepted JSON types, numpy dtype)
    "int": ((int,), np.int64),
    "float": ((int, float), np.float64),
    "bool": ((bool,), bool),
    "str": ((str,), str),
    "object-str": ((str,), object),
    "object-int": ((int,), object),
}


@dataclass(frozen=True)
class ModelDocument:
    """A model file that passed every check: params, costs, classes and the fitted arrays (numpy)."""

    params: dict
    cost_matrix_param: np.ndarray | None
    uses_sample_cost: bool
    n_features_in: int
    classes: np.ndarray
    arrays: dict
    version: int = VERSION
    feature_names: tuple | None = None  # None: fitted on unnamed columns (or a version 1 file)
    package_version: str | None = None  # the REBEL Explorer that wrote the file (version 2 on)


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = (
    3,
    6,
    4,
    60,
    60,
    60,
)


def short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for quoting a user's value in a message.

    Nesting and containers are cut too (``reprlib``), so a deeply nested or huge value costs nothing to quote.
    """
    if type(value) is int and value.bit_length() > 3 * limit:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, (str, int, float, bool)) or value is None:
        text = repr(value)
    else:
        text = _REPR.repr(value)
    return text if len(text) <= limit else f"{text[: limit - 15]}... ({len(text)} chars)"


def _fail(message: str) -> ModelFileError:
    return ModelFileError(f"model file is malformed: {message}")


def _dict(obj: Any, where: str, keys: set, optional: set = frozenset()) -> dict:
    if not isinstance(obj, dict):
        raise _fail(f"{where} must be a JSON object; got {type(obj).__name__} {short(obj)}.")
    missing = sorted(keys - optional - obj.keys())
    if missing:
        raise _fail(f"{where} lacks the field(s) {short(missing)}; save the model again.")
    extra = sorted(str(k) for k in obj.keys() - keys)
    if extra:
        raise _fail(f"{where} has unknown field(s) {short(extra)}; expected only {sorted(keys)}.")
    return obj


def _int(value: Any, name: str, low: int, high: int) -> int:
    if type(value) is not int:  # bool is an int subclass: refuse it too
        raise _fail(f"{name} must be a whole number in [{low}, {high}]; got {short(value)}.")
    if not low <= value <= high:
        raise _fail(f"{name} must be in [{low}, {high}]; got {short(value)}.")
    return value


def _bool(value: Any, name: str) -> bool:
    if type(value) is not bool:
        raise _fail(f"{name} must be true or false; got {short(value)}.")
    return value


_LEAVES = {"float": {int, float}, "int": {int}, "bool": {bool}}


def _array(value: Any, name: str, kind: str, ndim: int, cols: int) -> np.ndarray:
    """A rectangular nested list of ``ndim`` levels with leaves of ``kind``, as a numpy array.

    An empty 2-D array is written as ``[]``; it reads back with ``cols`` columns.
    """
    if not isinstance(value, list):
        raise _fail(f"array '{name}' must be a list; got {type(value).__name__} {short(value)}.")
    rows = value if ndim == 2 else [value]
    if ndim == 2 and not rows:
        return np.empty((0, cols), dtype=np.int64 if kind == "int" else kind)
    width = len(rows[0]) if isinstance(rows[0], list) else -1
    for row in rows:
        if not isinstance(row, list) or len(row) != width:
            raise _fail(f"array '{name}' must be a rectangular {ndim}-D list of numbers.")
        bad = set(map(type, row)) - _LEAVES[kind]
        if bad:
            raise _fail(
                f"array '{name}' holds {sorted(t.__name__ for t in bad)} values; expected {kind} numbers "
                f"in a {ndim}-D list."
            )
    dtype = {"float": np.float64, "int": np.int64, "bool": bool}[kind]
    try:
        arr = np.array(value, dtype=dtype)
    except OverflowError:
        raise _fail(f"array '{name}' holds a number too large for {np.dtype(dtype).name}.") from None
    if kind == "float" and not np.all(np.isfinite(arr)):
        raise _fail(f"array '{name}' contains NaN or infinity (or a number beyond the float64 range).")
    return arr


def _classes(obj: Any) -> np.ndarray:
    obj = _dict(obj, "field 'classes'", {"kind", "values"})
    kind, values = obj["kind"], obj["values"]
    if not isinstance(kind, str) or kind not in _CLASS_KINDS:
        raise _fail(f"classes 'kind' must be one of {sorted(_CLASS_KINDS)}; got {short(kind)}.")
    types, dtype = _CLASS_KINDS[kind]
    if not isinstance(values, list) or not 2 <= len(values) <= MAX_CLASSES:
        raise _fail(f"classes 'values' must be a list of 2 to {MAX_CLASSES} labels; got {short(values)}.")
    for v in values:
        if type(v) not in types:
            raise _fail(f"class label {short(v)} is not a {kind} label (a list of scalars is expected).")
        if type(v) is int and not _INT64[0] <= v <= _INT64[1]:
            raise _fail(f"class label {short(v)} does not fit in 64 bits.")
        if type(v) is float and not np.isfinite(v):
            raise _fail(f"class label {short(v)} is not a finite number.")
        if type(v) is str:
            _name(v, "a class label")
    if any(not a < b for a, b in itertools.pairwise(values)):
        raise _fail(f"classes must be sorted and unique (as fit stores them); got {short(values)}.")
    return np.array(values, dtype=dtype)


def _options(obj: dict) -> dict:
    out = {}
    for name, value in ((n, obj.get(n, default)) for n, default in OPTION_DEFAULTS.items()):
        try:
            if name in CHOICE_PARAMS:
                out[name] = check_choice(name, value)
            elif name == "n_iter_no_change":
                out[name] = None if value is None else N_ITER_NO_CHANGE.check(value)
            elif name == "min_samples_leaf":
                out[name] = MIN_SAMPLES_LEAF.check(value)
            else:
                out[name] = check_float(name, value)
        except ValueError as exc:
            raise _fail(str(exc)) from None
    try:
        check_variant_only(out["loss"], out["leaves"], out)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    return out


def _params(obj: Any) -> dict:
    obj = _dict(obj, "field 'params'", set(PARAMS) | set(OPTION_DEFAULTS), optional=set(OPTION_DEFAULTS))
    out = {name: _int(obj[name], name, p.low, p.high) for name, p in INT_PARAMS.items() if name in obj}
    if not isinstance(obj["binning"], str) or obj["binning"] not in BINNINGS:
        raise _fail(f"binning must be one of {BINNINGS}; got {short(obj['binning'])}.")
    out["binning"] = obj["binning"]
    seed = obj["random_state"]
    out["random_state"] = None if seed is None else _int(seed, "random_state", 0, 2**32 - 1)
    return {**out, **_options(obj)}


def _costs(value: Any, name: str, n_classes: int) -> np.ndarray:
    arr = _array(value, name, "float", 2, n_classes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a non-zero diagonal was accepted (with a warning) at fit time
            return validate_cost_matrix(arr, n_classes=n_classes, name=name)
    except ValueError as exc:
        raise _fail(str(exc)) from None


def read_document(obj: Any) -> ModelDocument:
    """Check a parsed model file and return its typed content, or raise ``ModelFileError``."""
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise ModelFileError(f'not a REBEL Explorer model file (expected "format": "{FORMAT}").')
    version = obj.get("version")
    if type(version) is not int or version not in VERSIONS:
        from . import __version__

        newer = type(version) is int and version > max(VERSIONS)
        raise ModelFileError(
            f"model file version {short(version)} is not supported by REBEL Explorer {__version__} (it reads "
            f"versions {', '.join(map(str, VERSIONS))})"
            + (
                "; the file was written by a newer REBEL Explorer: upgrade the package "
                "(pip install --upgrade rebel-explorer) to load it."
                if newer
                else "; it is not a file this package writes."
            )
        )
    fields = _FIELDS | (_FIELDS_V2 if version >= 2 else set())
    obj = _dict(obj, "the model file", fields, optional={"cost_matrix_param", "uses_sample_cost"})
    params = _params(obj["params"])
    classes = _classes(obj["classes"])
    K = classes.shape[0]
    d = _int(obj["n_features_in"], "n_features_in", 1, MAX_FEATURES)
    raw = obj.get("cost_matrix_param")
    cost_param = None if raw is None else _costs(raw, "cost_matrix_param", K)
    arrays = _arrays(obj["arrays"], params, K, d)
    uses_sample_cost = _bool(obj.get("uses_sample_cost", False), "uses_sample_cost")
    names = _feature_names(obj["feature_names"], d) if version >= 2 else None
    package = _package_version(obj["package_version"]) if version >= 2 else None
    return ModelDocument(params, cost_param, uses_sample_cost, d, classes, arrays, version, names, package)


def _feature_names(value: Any, d: int) -> tuple | None:
    """``feature_names``: null, or d distinct non-empty names (what ``feature_names_in_`` holds)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != d:
        raise _fail(f"feature_names must be null or a list of n_features_in = {d} names; got {short(value)}.")
    for v in value:
        if type(v) is not str or not v:
            raise _fail(f"feature name {short(v)} must be text of 1 to {MAX_LABEL_CHARS} characters.")
        _name(v, "a feature name")
    if len(set(value)) != d:
        raise _fail(f"feature_names must be distinct; got {short(value)}.")
    return tuple(value)


def _name(value: str, what: str) -> None:
    """A name of the file checked at the door (``rebel.names``): refused when too long or holding control
    characters; kept as written otherwise (a model's classes are what it predicts)."""
    try:
        clean_name(value, what)
    except ValueError as exc:
        raise _fail(f"{exc} Fit the model again on data whose names are one short line of text.") from None


def _package_version(value: Any) -> str:
    if type(value) is not str or not 0 < len(value) <= MAX_VERSION_CHARS:
        raise _fail(f"package_version must be a version text such as '0.1.0'; got {short(value)}.")
    return value


def _arrays(obj: Any, params: dict, K: int, d: int) -> dict:
    obj = _dict(obj, "field 'arrays'", set(ARRAYS) | set(OPTIONAL_ARRAYS), optional=set(OPTIONAL_ARRAYS))
    depth = params["max_depth"]
    n_nodes, n_leaves, n_thr = 2**depth - 1, 2**depth, params["n_thresholds"]
    size = {"K": K, "d": d, "n_thr": n_thr, "nodes": n_nodes, "leaves": n_leaves, "depth": depth}
    out = {
        name: _array(obj[name], name, _json_kind(kind), len(shape), size[shape[1]] if len(shape) == 2 else 0)
        for name, (kind, shape) in ARRAYS.items()
        if name != "cost_matrix_"
    }
    out["cost_matrix_"] = _costs(obj["cost_matrix_"], "cost_matrix_", K)
    T = out["a_"].shape[0]
    size.update({"T": T, "T + 1": T + 1})
    for name, (_, dims) in ARRAYS.items():
        shape = tuple(size[dim] for dim in dims)
        if name != "cost_matrix_" and out[name].shape != shape:
            raise ModelFileError(
                f"array '{name}' has shape {out[name].shape}; expected {shape} (T = {T} rounds, K = {K} "
                f"classes, d = {d} features, depth {depth}, {n_thr} thresholds)."
            )
    if T > params["n_estimators"]:
        raise _fail(f"the file holds {T} rounds but n_estimators is {params['n_estimators']}.")
    out.update(_optional_arrays(obj, params["leaves"], T, n_leaves, K))
    _check_ranges(out, d, n_thr)
    for name, (kind, _) in ARRAYS.items():
        if _json_kind(kind) == "int":
            out[name] = out[name].astype(kind)
    return out


def _json_kind(kind: str) -> str:
    """The JSON values an array of ``kind`` (``ARRAYS``) holds: float, bool or int (int8 and int32 arrays)."""
    return "int" if kind.startswith("int") else kind


def _optional_arrays(obj: dict, leaves: str, T: int, n_leaves: int, K: int) -> dict:
    out = {}
    if (leaves == "vector") != ("tree_leaf_values_" in obj):
        raise _fail("array 'tree_leaf_values_' must be present exactly when leaves is 'vector'.")
    if leaves == "vector":
        values = _array(obj["tree_leaf_values_"], "tree_leaf_values_", "float", 2, n_leaves * K)
        if values.shape != (T, n_leaves * K):
            raise _fail(f"array 'tree_leaf_values_' has shape {values.shape}; expected {(T, n_leaves * K)}.")
        out["tree_leaf_values_"] = values.reshape(T, n_leaves, K)
    if "validation_cost_" in obj:
        costs = _array(obj["validation_cost_"], "validation_cost_", "float", 1, 0)
        if costs.shape != (T + 1,):
            raise _fail(f"array 'validation_cost_' has shape {costs.shape}; expected {(T + 1,)}.")
        out["validation_cost_"] = costs
    return out


def _check_ranges(arrays: dict, d: int, n_thr: int) -> None:
    for name, low, high, what in (
        ("tree_features_", 0, d - 1, "tree feature indices"),
        ("tree_thr_idx_", 1, n_thr, "tree threshold indices"),
    ):
        arr = arrays[name]
        if arr.size and (arr.min() < low or arr.max() > high):
            raise ModelFileError(f"{what} ('{name}') must lie in [{low}, {high}].")
    if not np.all(np.isin(arrays["tree_leaf_signs_"], (-1, 1))):
        raise ModelFileError("leaf signs ('tree_leaf_signs_') must be +1 or -1.")
    with np.errstate(over="ignore"):
        bound = np.abs(arrays["a0_"]) + np.abs(arrays["a_"]).sum(axis=0)
        if "tree_leaf_values_" in arrays:
            bound = bound + np.abs(arrays["tree_leaf_values_"]).max(axis=1, initial=0.0).sum(axis=0)
    if not np.all(bound <= MAX_ABS_SCORE):
        raise ModelFileError(
            f"the class scores can reach {short(float(np.max(bound)))}: |a0_k| + sum_t |a_tk| must be at "
            f"most {MAX_ABS_SCORE:g} so that the scores stay finite."
        )
