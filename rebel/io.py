"""Save and load fitted ``RebelClassifier`` models as versioned JSON (never pickle).

A file holds ``{"format": "rebel-explorer-model", "version": 1, "params": ..., "classes": ..., "arrays": ...}``.
Floats are written with Python's shortest round-trip repr, so a loaded model's ``decision_function`` is
bit-identical to the saved one's.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from .estimator import RebelClassifier

FORMAT = "rebel-explorer-model"
VERSION = 1
MAX_FILE_BYTES = 200 * 1024 * 1024

# name -> (dtype, ndim) of every fitted array a model file must contain.
_ARRAYS = {
    "cost_matrix_": ("float64", 2),
    "thresholds_": ("float64", 2),
    "feature_usable_": ("bool", 1),
    "a0_": ("float64", 1),
    "tree_features_": ("int32", 2),
    "tree_thr_idx_": ("int32", 2),
    "tree_thresholds_": ("float64", 2),
    "tree_leaf_signs_": ("int8", 2),
    "a_": ("float64", 2),
    "train_loss_": ("float64", 1),
    "train_risk_": ("float64", 1),
    "layer_loss_": ("float64", 2),
}
_PARAMS = ("n_estimators", "max_depth", "n_thresholds", "binning", "random_state")


class ModelFileError(ValueError):
    """A model file is malformed, of another format or of an unsupported version."""


def _classes_to_json(classes: np.ndarray) -> dict:
    kind = classes.dtype.kind
    if kind in "iu":
        return {"kind": "int", "values": [int(c) for c in classes]}
    if kind == "f":
        return {"kind": "float", "values": [float(c) for c in classes]}
    if kind == "b":
        return {"kind": "bool", "values": [bool(c) for c in classes]}
    if kind in "US":
        return {"kind": "str", "values": [str(c) for c in classes]}
    values = classes.tolist()
    if all(isinstance(v, str) for v in values):
        return {"kind": "object-str", "values": values}
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return {"kind": "object-int", "values": [int(v) for v in values]}
    raise ModelFileError(
        f"class labels of type {sorted({type(v).__name__ for v in values})} cannot be saved as JSON; "
        "use int or str labels."
    )


def _classes_from_json(obj: Any) -> np.ndarray:
    kinds = {
        "int": np.int64,
        "float": np.float64,
        "bool": bool,
        "str": str,
        "object-str": object,
        "object-int": object,
    }
    if not isinstance(obj, dict) or obj.get("kind") not in kinds or not isinstance(obj.get("values"), list):
        raise ModelFileError(
            "field 'classes' must be {'kind': ..., 'values': [...]} as written by save_model."
        )
    return np.array(obj["values"], dtype=kinds[obj["kind"]])


def model_to_dict(model: RebelClassifier) -> dict:
    """The JSON-able dict of a fitted model."""
    if not hasattr(model, "a0_"):
        raise ValueError("model is not fitted; call fit(X, y) before saving it.")
    params = {p: getattr(model, p) for p in _PARAMS}
    if params["random_state"] is not None and not isinstance(params["random_state"], int):
        params["random_state"] = None
    arrays = {name: getattr(model, name).tolist() for name in _ARRAYS}
    return {
        "format": FORMAT,
        "version": VERSION,
        "params": params,
        "cost_matrix_param": None
        if model.cost_matrix is None
        else np.asarray(model.cost_matrix, float).tolist(),
        "uses_sample_cost": bool(getattr(model, "_uses_sample_cost", False)),
        "n_features_in": int(model.n_features_in_),
        "classes": _classes_to_json(model.classes_),
        "arrays": arrays,
    }


def model_from_dict(obj: Any) -> RebelClassifier:
    """Rebuild a fitted model from ``model_to_dict`` output, checking every field."""
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise ModelFileError(f'not a REBEL Explorer model file (expected "format": "{FORMAT}").')
    if obj.get("version") != VERSION:
        raise ModelFileError(
            f"model file version {obj.get('version')!r} is not supported (this version reads {VERSION}); "
            "save the model again with this version of REBEL Explorer."
        )
    try:
        model = RebelClassifier(**{p: obj["params"][p] for p in _PARAMS})
        if obj.get("cost_matrix_param") is not None:
            model.cost_matrix = np.asarray(obj["cost_matrix_param"], dtype=np.float64)
        model._check_params()
        arrays = obj["arrays"]
        for name, (dtype, ndim) in _ARRAYS.items():
            arr = np.asarray(arrays[name], dtype=dtype)
            if arr.ndim != ndim:
                raise ModelFileError(f"array '{name}' has {arr.ndim} dimensions; expected {ndim}.")
            setattr(model, name, arr)
        model.classes_ = _classes_from_json(obj["classes"])
        model.n_features_in_ = int(obj["n_features_in"])
        model._uses_sample_cost = bool(obj.get("uses_sample_cost", False))
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelFileError(f"model file is malformed: {type(exc).__name__}: {exc}") from None
    _check_shapes(model)
    model.n_estimators_ = model.a_.shape[0]
    return model


def _check_shapes(m: RebelClassifier) -> None:
    K, d = m.classes_.shape[0], m.n_features_in_
    T = m.a_.shape[0]
    n_leaves = m.tree_leaf_signs_.shape[1] if m.tree_leaf_signs_.ndim == 2 else 0
    expected = {
        "cost_matrix_": (K, K),
        "thresholds_": (d, m.n_thresholds),
        "feature_usable_": (d,),
        "a0_": (K,),
        "a_": (T, K),
        "tree_features_": (T, n_leaves - 1),
        "tree_thr_idx_": (T, n_leaves - 1),
        "tree_thresholds_": (T, n_leaves - 1),
        "tree_leaf_signs_": (T, n_leaves),
        "train_loss_": (T + 1,),
        "train_risk_": (T + 1,),
    }
    for name, shape in expected.items():
        if getattr(m, name).shape != shape:
            raise ModelFileError(f"array '{name}' has shape {getattr(m, name).shape}; expected {shape}.")
    if n_leaves < 2 or n_leaves & (n_leaves - 1):
        raise ModelFileError(f"trees must have a power-of-two number of leaves >= 2; got {n_leaves}.")
    if T and (m.tree_features_.min() < 0 or m.tree_features_.max() >= d):
        raise ModelFileError(f"tree feature indices must lie in [0, {d}).")
    if not np.all(np.isin(m.tree_leaf_signs_, (-1, 1))):
        raise ModelFileError("leaf signs must be +1 or -1.")
    for name in ("a0_", "a_", "tree_thresholds_", "thresholds_"):
        if not np.all(np.isfinite(getattr(m, name))):
            raise ModelFileError(f"array '{name}' contains NaN or infinity.")


def save_model(model: RebelClassifier, path) -> None:
    """Write a fitted model to ``path`` as JSON."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(dumps_model(model))


def load_model(path) -> RebelClassifier:
    """Read a model written by ``save_model``; raises ``ModelFileError`` (a ValueError) on any bad file."""
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise ModelFileError(f"model file is {size} bytes; the limit is {MAX_FILE_BYTES}.")
    with open(path, "rb") as fh:
        raw = fh.read()
    return loads_model(raw)


def loads_model(data) -> RebelClassifier:
    """Like ``load_model`` from a str or bytes holding the JSON text."""
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        obj = json.loads(text)
    except UnicodeDecodeError:
        raise ModelFileError(
            "model file is not UTF-8 text; expected the JSON written by save_model."
        ) from None
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"model file is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    except RecursionError:
        raise ModelFileError(
            "model file nests JSON too deeply; expected the flat JSON written by save_model."
        ) from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ModelFileError(f"model file holds a value that cannot be read ({exc}).") from None
    return model_from_dict(obj)


def dumps_model(model: RebelClassifier) -> str:
    """The JSON text ``save_model`` writes."""
    return json.dumps(model_to_dict(model), allow_nan=False, separators=(",", ":"))
