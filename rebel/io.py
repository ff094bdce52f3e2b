"""Save and load fitted ``RebelClassifier`` models as versioned JSON (never pickle).

The other methods' models (``MinRiskClassifier``, ``CostWeightedClassifier``, ``CostSensitiveAuto``'s winner)
and any model saved with its label column go through ``rebel.method_file``: ``save_model`` and ``load_model``
take and return them too.

A file holds ``{"format": "rebel-explorer-model", "version": 2, "package_version": ..., "feature_names": ...,
"params": ..., "classes": ..., "arrays": ...}``; docs/MODEL_FORMAT.md describes every field, the versions and
the compatibility promise (version 1 files still load). Floats are written with Python's shortest round-trip
repr, so a loaded model's ``decision_function`` is bit-identical to the saved one's. A model fitted on named
columns (a DataFrame) gets ``feature_names_in_`` back, so scikit-learn refuses a DataFrame with other or
reordered columns, as it does for the model before saving.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from . import __version__
from .estimator import RebelClassifier
from .params import VARIANT_ONLY
from .schema import (
    ARRAYS,
    FORMAT,
    OPTION_DEFAULTS,
    PARAMS,
    VERSION,
    ModelFileError,
    read_document,
)

__all__ = [
    "ModelFileError",
    "dumps_model",
    "load_model",
    "loads_model",
    "model_from_dict",
    "model_to_dict",
    "save_model",
]

MAX_FILE_BYTES = 200 * 1024 * 1024


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


def model_to_dict(model: RebelClassifier) -> dict:
    """The JSON-able dict of a fitted model."""
    if not isinstance(model, RebelClassifier):
        from .method_file import method_of

        method_of(model)  # names what it got (a pipeline, another estimator)
        raise ValueError(  # noqa: TRY004 (the CLI reports ValueErrors as one line)
            f"model_to_dict takes a RebelClassifier; use dumps_model for a {type(model).__name__}."
        )
    if not hasattr(model, "a0_"):
        raise ValueError("model is not fitted; call fit(X, y) before saving it.")
    if hasattr(model, "columns_source_"):
        raise ValueError(
            "a model trained on data with missing values or categorical features cannot be written to a model "
            "file yet (the file format holds numeric features only); fill the missing values and encode the "
            "categories as numbers before fitting, or keep the model in memory."
        )
    params = {p: getattr(model, p) for p in (*PARAMS, *OPTION_DEFAULTS)}
    for name, default in VARIANT_ONLY.items():  # only when set: files of other models stay as they were
        if params[name] == default:
            del params[name]
        else:
            params[name] = type(default)(params[name])
    if params["random_state"] is not None and not isinstance(params["random_state"], int):
        params["random_state"] = None
    arrays = {name: getattr(model, name).tolist() for name in ARRAYS}
    if hasattr(model, "tree_leaf_values_"):  # one row of 2^D * K values per round
        arrays["tree_leaf_values_"] = model.tree_leaf_values_.reshape(model.a_.shape[0], -1).tolist()
    if hasattr(model, "validation_cost_"):
        arrays["validation_cost_"] = model.validation_cost_.tolist()
    names = getattr(model, "feature_names_in_", None)
    return {
        "format": FORMAT,
        "version": VERSION,
        "package_version": __version__,
        "feature_names": None if names is None else [str(n) for n in names],
        "params": params,
        # the fitted matrix, aligned to classes_ (a labelled DataFrame parameter may list its labels in any order)
        "cost_matrix_param": None
        if model.cost_matrix is None
        else np.asarray(model.cost_matrix_, float).tolist(),
        "uses_sample_cost": bool(getattr(model, "_uses_sample_cost", False)),
        "n_features_in": int(model.n_features_in_),
        "classes": _classes_to_json(model.classes_),
        "arrays": arrays,
    }


def model_from_dict(obj: Any) -> RebelClassifier:
    """Rebuild a fitted model from ``model_to_dict`` output; every field is checked by ``schema.read_document``."""
    doc = read_document(obj)
    model = RebelClassifier(**doc.params)
    if doc.cost_matrix_param is not None:
        model.cost_matrix = doc.cost_matrix_param
    for name, arr in doc.arrays.items():
        setattr(model, name, arr)
    model.classes_ = doc.classes
    model.n_features_in_ = doc.n_features_in
    if doc.feature_names is not None:
        model.feature_names_in_ = np.array(doc.feature_names, dtype=object)
    model._uses_sample_cost = doc.uses_sample_cost
    model.n_estimators_ = model.a_.shape[0]
    model.loss_, model.leaves_ = doc.params["loss"], doc.params["leaves"]
    return model


def save_model(model: RebelClassifier, path, label_column: str | None = None) -> None:
    """Write a fitted model to ``path`` as JSON: a ``RebelClassifier`` as a model file, a ``MinRiskClassifier``,
    ``CostWeightedClassifier`` or ``CostSensitiveAuto`` (or any of them with ``label_column``, the name of the
    training file's label column) as a method file (``rebel.method_file``)."""
    text = dumps_model(model, label_column)  # before opening: a bad model leaves no empty file
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


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
        obj = json.loads(text, parse_constant=_refuse_constant)
    except ModelFileError:
        raise
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
    except TypeError:
        raise ModelFileError(
            f"a model file is JSON text (str or bytes); got {type(data).__name__}."
        ) from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ModelFileError(f"model file holds a value that cannot be read ({exc}).") from None
    from .method_file import FORMAT as METHOD_FORMAT
    from .method_file import method_from_dict

    if isinstance(obj, dict) and obj.get("format") == METHOD_FORMAT:
        return method_from_dict(obj, rebel_from_dict=model_from_dict)
    return model_from_dict(obj)


def _refuse_constant(name: str):
    raise ModelFileError(f"model file holds {name}; every number in a model file must be finite.")


def dumps_model(model: RebelClassifier, label_column: str | None = None) -> str:
    """The JSON text ``save_model`` writes."""
    if isinstance(model, RebelClassifier) and label_column is None:
        obj = model_to_dict(model)
        _check_finite(obj)
    else:
        from .method_file import method_to_dict

        obj = method_to_dict(model, label_column, rebel_to_dict=model_to_dict)
        if "model" in obj:  # a REBEL model inside a method file
            _check_finite(obj["model"])
    return json.dumps(obj, allow_nan=False, separators=(",", ":"))


def _check_finite(obj: dict) -> None:
    bad = [name for name, arr in obj["arrays"].items() if not np.all(np.isfinite(np.asarray(arr, float)))]
    if bad:
        raise ValueError(
            f"the model holds NaN or infinity in {bad}, which a model file cannot store; "
            "refit it on finite data."
        ) from None
