"""The fixed small problems whose fits are pinned bit for bit in ``tests/data/paper_reference.json`` (four and
five classes) and ``tests/data/paper_reference_k2.json`` (two classes, where kernels have a form of their own).

``python -m tests.reference_fits`` rewrites the files (only ever from a commit known to be correct: the files are
the record that paper mode has not changed).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from rebel.estimator import RebelClassifier

REFERENCE = Path(__file__).parent / "data" / "paper_reference.json"
REFERENCE_K2 = Path(__file__).parent / "data" / "paper_reference_k2.json"


def problems():
    """(name, estimator, X, y, sample_cost, X_eval) for depths 1-3 under 0-1, matrix and per-sample costs."""
    rng = np.random.default_rng(20261123)
    N, K = 300, 4
    y = np.arange(N) % K
    X = rng.normal(size=(N, 3)) + 0.9 * np.column_stack([y == 0, y == 1, y == 2])
    X[:, 2] = np.round(X[:, 2], 1)
    C = np.abs(rng.normal(size=(K, K)))
    np.fill_diagonal(C, 0.0)
    S = C[y] * np.exp(0.5 * rng.normal(size=(N, 1)))
    X_eval = rng.normal(size=(50, 3)) * 1.5
    out = []
    for depth in (1, 2, 3):
        for kind in ("zero_one", "matrix", "sample"):
            est = RebelClassifier(
                cost_matrix=None if kind == "zero_one" else C,
                n_estimators=30,
                max_depth=depth,
                n_thresholds=40,
            )
            out.append((f"d{depth}_{kind}", est, X, y, S if kind == "sample" else None, X_eval))
    # Large enough (N d K >= PARALLEL_MIN_WORK) for the parallel histogram and update drivers.
    y_big = np.arange(12_000) % 5
    X_big = rng.normal(size=(12_000, 4)) + 0.5 * y_big[:, None] * np.array([1.0, -1.0, 0.5, 0.0])
    C_big = np.abs(rng.normal(size=(5, 5)))
    np.fill_diagonal(C_big, 0.0)
    est = RebelClassifier(cost_matrix=C_big, n_estimators=12, max_depth=3, n_thresholds=200)
    out.append(("d3_parallel", est, X_big, y_big, None, X_big[:2000]))
    return out


def two_class_problems():
    """(name, estimator, X, y, sample_cost, X_eval) with two classes: depths 1-3 under a cost matrix and
    per-sample costs, and one large enough for the parallel drivers and a chunked weight update."""
    rng = np.random.default_rng(20261204)
    N = 400
    y = np.arange(N) % 2
    X = rng.normal(size=(N, 3)) + 0.8 * np.column_stack([y == 0, y == 1, y == 0])
    X[:, 2] = np.round(X[:, 2], 1)
    C = np.array([[0.0, 1.0], [4.0, 0.0]])
    S = C[y] * np.exp(0.5 * rng.normal(size=(N, 1)))
    X_eval = rng.normal(size=(50, 3)) * 1.5
    out = []
    for depth in (1, 2, 3):
        for kind in ("matrix", "sample"):
            est = RebelClassifier(cost_matrix=C, n_estimators=30, max_depth=depth, n_thresholds=40)
            out.append((f"k2_d{depth}_{kind}", est, X, y, S if kind == "sample" else None, X_eval))
    y_big = np.arange(20_000) % 2
    X_big = rng.normal(size=(20_000, 20)) + 0.4 * y_big[:, None] * rng.normal(size=20)
    est = RebelClassifier(cost_matrix=C, n_estimators=12, max_depth=3, n_thresholds=200)
    out.append(("k2_d3_parallel", est, X_big, y_big, None, X_big[:2000]))
    return out


def _digest(arr) -> str:
    arr = np.ascontiguousarray(arr)
    return f"{arr.dtype.str}{arr.shape}:" + hashlib.sha256(arr.tobytes()).hexdigest()


def fingerprint(est, X_eval) -> dict:
    """sha256 of every fitted array's bytes, plus readable float.hex of the first numbers."""
    return {
        "tree_features_": _digest(est.tree_features_),
        "tree_thr_idx_": _digest(est.tree_thr_idx_),
        "tree_thresholds_": _digest(est.tree_thresholds_),
        "tree_leaf_signs_": _digest(est.tree_leaf_signs_),
        "a0_": _digest(est.a0_),
        "a_": _digest(est.a_),
        "train_loss_": _digest(est.train_loss_),
        "train_risk_": _digest(est.train_risk_),
        "layer_loss_": _digest(est.layer_loss_),
        "decision_function": _digest(est.decision_function(X_eval)),
        "staged_class_indices": _digest(est.staged_class_indices(X_eval)),
        "a0_hex": [float(v).hex() for v in est.a0_],
        "final_loss_hex": float(est.train_loss_[-1]).hex(),
    }


def compute(cases=None) -> dict:
    out = {}
    for name, est, X, y, S, X_eval in problems() if cases is None else cases:
        est.fit(X, y, sample_cost=S)
        out[name] = fingerprint(est, X_eval)
    return out


if __name__ == "__main__":
    for path, cases in ((REFERENCE, problems()), (REFERENCE_K2, two_class_problems())):
        path.write_text(json.dumps(compute(cases), indent=1, sort_keys=True) + "\n")
        print(f"wrote {path}")
