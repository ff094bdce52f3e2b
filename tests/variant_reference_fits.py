"""The fixed small variant fits pinned bit for bit in ``tests/data/variant_reference.npz``.

Recorded from the engine before ``l2_regularization`` and ``min_samples_leaf`` existed, so that their defaults
(0 and 1) are shown to change nothing. ``python -m tests.variant_reference_fits`` rewrites the file (only ever
from a commit known to be correct).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rebel.estimator import RebelClassifier

from .reference_fits import problems as paper_problems

REFERENCE = Path(__file__).parent / "data" / "variant_reference.npz"
VARIANTS = (("exp", "vector"), ("logistic", "binary"), ("logistic", "vector"))
ARRAYS = ("tree_features_", "tree_thr_idx_", "tree_leaf_signs_", "a0_", "a_", "train_loss_", "train_risk_",
          "layer_loss_")  # fmt: skip


def problems(**params):
    """(name, estimator, X, y, sample_cost, X_eval): every variant at depths 1 and 3, learning rates 1 and 0.3,
    on the paper reference's matrix and per-sample cost problems; ``params`` go to every estimator."""
    out = []
    for name, est, X, y, S, X_eval in paper_problems():
        if name not in ("d1_matrix", "d3_sample", "d3_matrix"):
            continue
        for loss, leaves in VARIANTS:
            for lr in (1.0, 0.3):
                est2 = RebelClassifier(**{**est.get_params(), "n_estimators": 15, **params})
                est2.set_params(loss=loss, leaves=leaves, learning_rate=lr)
                out.append((f"{name}_{loss}_{leaves}_{lr:g}", est2, X, y, S, X_eval))
    return out


def fingerprint(est, X_eval) -> dict:
    """The fitted arrays (and the leaf values of vector leaves) and the scores on X_eval."""
    out = {a: getattr(est, a) for a in ARRAYS}
    if est.leaves == "vector":
        out["tree_leaf_values_"] = est.tree_leaf_values_
    out["risk_scores"] = est.risk_scores(X_eval)
    return out


def compute() -> dict:
    flat = {}
    for name, est, X, y, S, X_eval in problems():
        est.fit(X, y, sample_cost=S)
        for key, arr in fingerprint(est, X_eval).items():
            flat[f"{name}/{key}"] = np.asarray(arr)
    return flat


if __name__ == "__main__":
    np.savez_compressed(REFERENCE, **compute())
    print(f"wrote {REFERENCE}")
