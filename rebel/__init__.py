"""REBEL Explorer: multi-class cost-sensitive boosting that estimates the minimum-risk class.

``RebelClassifier`` is the scikit-learn estimator; ``MinRiskClassifier`` (the calibrated two-step around any
classifier), ``CostWeightedClassifier`` (cost-weighted training), ``CostSensitiveAuto`` / ``choose_method``
(the cheapest of the three by cross-validated cost, or the two-step when the cheapest cannot be told apart from
it) and ``expected_cost_scorer`` are the practitioner's other tools; ``rebel.costs`` validates and decomposes
cost matrices; ``rebel.io`` saves and loads models as versioned JSON; ``warmup()`` compiles every kernel ahead
of first use.

``import rebel`` itself is cheap: the estimators (which import scikit-learn, and with it SciPy and pandas) and
the kernels (numba) load on first use of ``rebel.RebelClassifier`` (or another of them) / ``rebel.warmup()``,
or on import of their modules. ``rebel.kernels`` selects numba's threading layer (``rebel._threading``) before
anything compiles.
"""

from __future__ import annotations

from .warmup import warmup  # cheap (numpy only); binding it here keeps rebel.warmup the function

_LAZY = {
    "RebelClassifier": "estimator",
    "MinRiskClassifier": "minrisk",
    "CostWeightedClassifier": "minrisk",
    "expected_cost_scorer": "minrisk",
    "CostSensitiveAuto": "auto",
    "choose_method": "auto",
}
__all__ = [
    "CostSensitiveAuto",
    "CostWeightedClassifier",
    "MinRiskClassifier",
    "RebelClassifier",
    "choose_method",
    "expected_cost_scorer",
    "warmup",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    """Import ``RebelClassifier`` (and the other estimators) on first use (then a plain module attribute)."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rebel' has no attribute {name!r}")
