"""Compile (or load from the numba cache) every kernel on tiny inputs, so the first real call is fast."""

from __future__ import annotations

import numpy as np


def warmup() -> None:
    """Fit and evaluate tiny models touching every kernel (root and leaf searches, staged scores)."""
    from .estimator import RebelClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 2))
    y = np.arange(24) % 3
    for depth in (1, 2):
        model = RebelClassifier(n_estimators=2, max_depth=depth, n_thresholds=4).fit(X, y)
        model.decision_function(X)
        model.staged_class_indices(X)
        next(model.staged_decision_function(X))
        model.predict_proba(X)
