"""REBEL Explorer: multi-class cost-sensitive boosting that estimates the minimum-risk class.

``RebelClassifier`` is the scikit-learn estimator (paper mode by default; ``loss``, ``leaves``, ``learning_rate``,
early stopping and ``sample_weight`` are options beyond the paper, run by ``rebel.variants`` / ``rebel.fitting``);
``rebel.costs`` validates and decomposes cost matrices; ``rebel.io`` saves and loads models as versioned JSON;
``warmup()`` compiles every kernel ahead of first use.
"""

from . import _threading  # noqa: F401  (selects the numba threading layer before any kernel compiles)
from .estimator import RebelClassifier
from .warmup import warmup

__all__ = ["RebelClassifier", "warmup"]
__version__ = "0.1.0"
