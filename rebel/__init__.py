"""REBEL Explorer: multi-class cost-sensitive boosting that estimates the minimum-risk class.

``RebelClassifier`` is the scikit-learn estimator; ``rebel.costs`` validates and decomposes cost matrices;
``rebel.io`` saves and loads models as versioned JSON; ``warmup()`` compiles every kernel ahead of first use.

``import rebel`` itself is cheap: the estimator (which imports scikit-learn, and with it SciPy and pandas) and
the kernels (numba) load on first use of ``rebel.RebelClassifier`` / ``rebel.warmup``, or on import of their
modules. ``rebel._kernels`` selects numba's threading layer (``rebel._threading``) before anything compiles.
"""

from __future__ import annotations

__all__ = ["RebelClassifier", "warmup"]
__version__ = "0.1.0"


def __getattr__(name: str):
    """Import ``RebelClassifier`` / ``warmup`` on first use (then they are plain module attributes)."""
    if name == "RebelClassifier":
        from .estimator import RebelClassifier as value
    elif name == "warmup":
        from .warmup import warmup as value  # also binds the submodule rebel.warmup: the function wins below
    else:
        raise AttributeError(f"module 'rebel' has no attribute {name!r}")
    globals()[name] = value
    return value
