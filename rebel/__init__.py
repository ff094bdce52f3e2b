"""REBEL Explorer: multi-class cost-sensitive boosting that estimates the minimum-risk class.

``RebelClassifier`` is the scikit-learn estimator; ``rebel.costs`` validates and decomposes cost matrices;
``rebel.io`` saves and loads models as versioned JSON; ``warmup()`` compiles every kernel ahead of first use.

``import rebel`` itself is cheap: the estimator (which imports scikit-learn, and with it SciPy and pandas) and
the kernels (numba) load on first use of ``rebel.RebelClassifier`` / ``rebel.warmup()``, or on import of their
modules. ``rebel.kernels`` selects numba's threading layer (``rebel._threading``) before anything compiles.
"""

from __future__ import annotations

from .warmup import warmup  # cheap (numpy only); binding it here keeps rebel.warmup the function

__all__ = ["RebelClassifier", "warmup"]
__version__ = "0.1.0"


def __getattr__(name: str):
    """Import ``RebelClassifier`` on first use (then it is a plain module attribute)."""
    if name == "RebelClassifier":
        from .estimator import RebelClassifier

        globals()[name] = RebelClassifier
        return RebelClassifier
    raise AttributeError(f"module 'rebel' has no attribute {name!r}")
