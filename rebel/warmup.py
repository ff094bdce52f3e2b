"""Compile (or load from the numba cache) every kernel on tiny inputs, so the first real call is fast."""

from __future__ import annotations

import numpy as np


def warmup(variants: bool = True) -> None:
    """Fit and evaluate a tiny model (serial drivers; the round loop compiles its parallel callees with it), then
    call the parallel drivers that prediction and binning pick for large inputs, on the same tiny data. With
    ``variants``, also fit the engine options beyond the paper (logistic loss, vector leaves, shrinkage)."""
    from . import _kernels as kern
    from .estimator import RebelClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 2))
    y = np.arange(24) % 3
    model = RebelClassifier(n_estimators=2, max_depth=2, n_thresholds=4).fit(X, y)
    model.decision_function(X)
    model.staged_class_indices(X)
    next(model.staged_decision_function(X))
    model.apply(X)
    model.weak_learner_outputs(X)
    model.predict_proba(X)
    trees = (model.tree_features_, model.tree_thresholds_, model.tree_leaf_signs_)
    kern.predict_blocks(
        X, model.a0_, *trees, model.a_, 2, np.empty((24, 3)), np.empty((3, 24), dtype=np.int16)
    )
    kern.tree_outputs(X, *trees, 2, np.empty((24, 2), dtype=np.int8))
    kern.tree_leaves(X, trees[0], trees[1], 2, np.empty((24, 2), dtype=np.int32))
    kern.bin_features(X, model.thresholds_, np.empty((2, 24), dtype=np.uint8))
    if variants:
        _warm_variants(X, y)


def _warm_variants(X: np.ndarray, y: np.ndarray) -> None:
    from . import _kernels as kern
    from .estimator import RebelClassifier

    for loss, leaves in (("exp", "vector"), ("logistic", "binary"), ("logistic", "vector")):
        model = RebelClassifier(n_estimators=2, max_depth=2, n_thresholds=4, loss=loss, leaves=leaves)
        model.set_params(learning_rate=0.5).fit(X, y)
        model.decision_function(X)
        model.staged_class_indices(X)
    trees = (model.a0_, model.tree_features_, model.tree_thresholds_, model.tree_leaf_values_, 2)
    kern.predict_leaf_values(X, *trees, np.empty((24, 3)), np.empty((3, 24), dtype=np.int16))
    RebelClassifier(n_estimators=2, n_thresholds=4, learning_rate=0.5, n_iter_no_change=1).fit(X, y)
