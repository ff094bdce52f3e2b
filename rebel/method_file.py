"""Model files of the methods beyond REBEL: the calibrated two-step, cost-weighted training and ``auto``'s choice.

A method file is one JSON object (docs/MODEL_FORMAT.md, "Method files"): ``{"format": "rebel-explorer-method",
"version": 1, "method": "rebel" | "two-step" | "weighted", "label_column", "selection", "reason", "winner",
"model" | "skops", ...}``. A REBEL winner is stored as the REBEL model document itself (``rebel.io``, JSON
only); a two-step or cost-weighted model (a LightGBM or HistGradientBoosting booster inside) is stored with
skops (``skops.io``, base64 text in the JSON): skops rebuilds only the types it is told to trust, and a load
trusts exactly ``TRUSTED`` (the types these models are made of), never the types a file names, so a crafted
file cannot make loading run other code. A skops blob is tied to the scikit-learn / LightGBM versions that
wrote it (both recorded; a load that fails says so).
"""

from __future__ import annotations

import base64
import binascii
import math
from typing import Any

from . import __version__
from .schema import ModelFileError, short

FORMAT = "rebel-explorer-method"
VERSION = 1
METHODS = ("rebel", "two-step", "weighted")
SELECTION_COLUMNS = ("candidate", "method", "cost", "lo", "hi", "diff", "diff_lo", "diff_hi")
# Every type a saved two-step or cost-weighted model holds beyond skops' default trusted ones.
TRUSTED = frozenset(
    {
        "collections.OrderedDict",
        "lightgbm.basic.Booster",
        "lightgbm.sklearn.LGBMClassifier",
        "rebel.calibration._GivenPosterior",
        "rebel.minrisk.CostWeightedClassifier",
        "rebel.minrisk.MinRiskClassifier",
        "sklearn.calibration._CalibratedClassifier",
        "sklearn.calibration._SigmoidCalibration",
        "sklearn.calibration._TemperatureScaling",
        "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    }
)
_FIELDS = {
    "format",
    "version",
    "package_version",
    "method",
    "label_column",
    "selection",
    "reason",
    "winner",
    "model",
    "skops",
    "library_versions",
}


def _versions() -> dict:
    import sklearn

    out = {"scikit-learn": sklearn.__version__}
    try:
        import lightgbm

        out["lightgbm"] = lightgbm.__version__
    except ImportError:  # pragma: no cover - depends on the environment
        pass
    return out


def method_of(model) -> str:
    """The method name of a fitted estimator this module saves (``ValueError`` naming any other type)."""
    from .estimator import RebelClassifier
    from .minrisk import CostWeightedClassifier, MinRiskClassifier

    if isinstance(model, RebelClassifier):
        return "rebel"
    if type(model) is MinRiskClassifier:
        return "two-step"
    if type(model) is CostWeightedClassifier:
        return "weighted"
    raise ValueError(
        f"save_model got a {type(model).__name__}; it saves a fitted RebelClassifier, MinRiskClassifier, "
        "CostWeightedClassifier or CostSensitiveAuto (for a scikit-learn Pipeline, save its final step and "
        "apply the same preprocessing before predicting)."
    )


def method_to_dict(model, label_column=None, rebel_to_dict=None) -> dict:
    """The method document of a fitted ``MinRiskClassifier`` / ``CostWeightedClassifier`` / ``RebelClassifier``
    / ``CostSensitiveAuto`` (its winner, with the selection table and the reason); a REBEL model's own document
    is ``rebel_to_dict(model)`` (``rebel.io.model_to_dict``, which calls this module: it is passed in, not
    imported)."""
    from .auto import CostSensitiveAuto

    selection = reason = winner = None
    if isinstance(model, CostSensitiveAuto):
        if not hasattr(model, "best_estimator_"):
            raise ValueError("model is not fitted; call fit(X, y) before saving it.")
        selection = [
            {k: (v if isinstance(v, str) else float(v)) for k, v in row.items()}
            for row in model.selection_[list(SELECTION_COLUMNS)].to_dict("records")
        ]
        reason, winner, model = model.reason_, model.best_name_, model.best_estimator_
    method = method_of(model)
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "package_version": __version__,
        "method": method,
        "label_column": label_column,
        "selection": selection,
        "reason": reason,
        "winner": winner,
    }
    if method == "rebel":
        doc["model"] = rebel_to_dict(model)
    else:
        import skops.io

        if not hasattr(model, "estimator_"):
            raise ValueError("model is not fitted; call fit(X, y) before saving it.")
        doc["skops"] = base64.b64encode(skops.io.dumps(model)).decode("ascii")
        doc["library_versions"] = _versions()
    return doc


def _text(value: Any, name: str, limit: int = 10_000) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise ModelFileError(
            f"{name} is {short(value)}; expected a text of at most {limit} characters or null."
        )
    return value


def _selection(value: Any) -> list | None:
    if value is None:
        return None
    if not isinstance(value, list) or not 1 <= len(value) <= 100:
        raise ModelFileError(
            f"selection is {short(value)}; expected a list of 1 to 100 candidate rows or null."
        )
    rows = []
    for i, row in enumerate(value):
        if not isinstance(row, dict) or set(row) != set(SELECTION_COLUMNS):
            raise ModelFileError(
                f"selection[{i}] is {short(row)}; expected the fields {list(SELECTION_COLUMNS)}."
            )
        for key in SELECTION_COLUMNS[2:]:
            v = row[key]
            if type(v) not in (int, float) or not math.isfinite(v):
                raise ModelFileError(f"selection[{i}].{key} is {short(v)}; expected a finite number.")
        for key in SELECTION_COLUMNS[:2]:
            _text(row[key], f"selection[{i}].{key}", 200)
        rows.append(row)
    return rows


def method_from_dict(obj: dict, rebel_from_dict=None):
    """The fitted estimator of a method document, with ``method_``, ``label_column_``, ``selection_``,
    ``reason_`` and ``winner_`` set; every field is checked (``ModelFileError`` naming the bad one). A REBEL
    model's own document is read by ``rebel_from_dict`` (``rebel.io.model_from_dict``, passed in)."""
    unknown = set(obj) - _FIELDS
    if unknown:
        raise ModelFileError(
            f"the method file has unknown field(s) {sorted(unknown)}; it is not a file this package writes."
        )
    if obj.get("version") != VERSION:
        raise ModelFileError(
            f"method file version {short(obj.get('version'))} is not supported (this REBEL Explorer reads version "
            f"{VERSION}); upgrade the package (pip install --upgrade rebel-explorer) if a newer one wrote it."
        )
    method = obj.get("method")
    if method not in METHODS:
        raise ModelFileError(f"method is {short(method)}; expected one of {list(METHODS)}.")
    if method == "rebel":
        model = rebel_from_dict(obj.get("model"))
    else:
        model = _from_skops(obj.get("skops"), obj.get("library_versions"))
        if (
            type(model).__name__
            != {"two-step": "MinRiskClassifier", "weighted": "CostWeightedClassifier"}[method]
        ):
            raise ModelFileError(f"the file says method {method!r} but holds a {type(model).__name__}.")
    model.method_ = method
    model.label_column_ = _text(obj.get("label_column"), "label_column", 1000)
    model.selection_ = _selection(obj.get("selection"))
    model.reason_ = _text(obj.get("reason"), "reason")
    model.winner_ = _text(obj.get("winner"), "winner", 200)
    return model


def _from_skops(blob: Any, versions: Any):
    import skops.io

    if not isinstance(blob, str):
        raise ModelFileError(f"skops is {short(blob)}; expected the base64 text of the saved model.")
    try:
        data = base64.b64decode(blob.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ModelFileError("skops is not base64 text; the file is damaged.") from None
    try:
        untrusted = skops.io.get_untrusted_types(data=data)
    except Exception as exc:  # noqa: BLE001 - any failure to read the blob is a bad file
        raise ModelFileError(f"skops holds no readable model ({type(exc).__name__}: {exc}).") from None
    refused = sorted(set(untrusted) - TRUSTED)
    if refused:
        raise ModelFileError(
            f"the saved model holds type(s) {short(refused)} that a two-step or cost-weighted model never holds; "
            "the file is refused rather than loaded."
        )
    try:
        return skops.io.loads(data, trusted=list(untrusted))
    except Exception as exc:  # noqa: BLE001 - e.g. written by another scikit-learn version
        raise ModelFileError(
            f"the saved model could not be rebuilt ({type(exc).__name__}: {exc}); it was written with "
            f"{short(versions)}, this environment has {_versions()}: install those versions or refit."
        ) from None


def selection_of(model):
    """The selection table saved with an ``auto`` model as a DataFrame (None for a model fitted directly)."""
    rows = getattr(model, "selection_", None)
    if rows is None:
        return None
    import pandas as pd

    return pd.DataFrame(rows) if isinstance(rows, list) else rows


__all__ = [
    "FORMAT",
    "METHODS",
    "TRUSTED",
    "VERSION",
    "method_from_dict",
    "method_of",
    "method_to_dict",
    "selection_of",
]
