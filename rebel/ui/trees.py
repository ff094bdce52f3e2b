"""View-model of the Trees and depth page (Sec. 4, Fig. 2): one round's heap-ordered tree as a drawable node
table (node i has children 2i+1 for x <= tau, 2i+2 for x > tau), the regions of that single weak learner f_t,
the loss after each layer of growing it and the classes its a-vector favours.

Reads a fitted ``RebelClassifier`` (tree_features_, tree_thresholds_, tree_leaf_signs_, a_, layer_loss_)
and points X (N, d). No streamlit here.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from rebel.estimator import RebelClassifier


def _check_round(model: RebelClassifier, t: int) -> int:
    T = model.n_estimators_
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 1 <= t <= T:
        raise ValueError(f"round t is {t!r}; the model has rounds 1 to {T}.")
    return int(t) - 1


def tree_leaf_index(model: RebelClassifier, t: int, X) -> np.ndarray:
    """Leaf (0 .. 2^D - 1) of each row of X in round t's tree (1-based t): ``RebelClassifier.apply``."""
    return model.apply(X)[:, _check_round(model, t)]


def weak_learner_output(model: RebelClassifier, t: int, X) -> np.ndarray:
    """The single weak learner f_t(x) in {-1, +1} of round t (1-based) on the rows of X."""
    return model.weak_learner_outputs(X)[:, _check_round(model, t)]


def weak_learner_grid(model: RebelClassifier, t: int, xs, ys) -> np.ndarray:
    """f_t on the grid of cell centres ``xs`` (nx,), ``ys`` (ny,): (ny, nx) int8 in {-1, +1} (2 features)."""
    if model.n_features_in_ != 2:
        raise ValueError(f"the model has {model.n_features_in_} features; regions need exactly 2 (x, y).")
    gx, gy = np.meshgrid(np.asarray(xs, float), np.asarray(ys, float))
    f = weak_learner_output(model, t, np.column_stack([gx.ravel(), gy.ravel()]))
    return f.reshape(gx.shape).astype(np.int8)


def tree_nodes(model: RebelClassifier, t: int, feature_names=None, X=None, y_idx=None) -> pd.DataFrame:
    """Round t's tree (1-based) as a table for drawing, one row per node in heap order, then the leaves.

    Columns: ``node`` (heap index; leaves continue after the 2^D - 1 splits), ``level`` (0 = root), ``x`` in
    (0, 1) (in-order position), ``parent`` (-1 for the root), ``branch`` ("<=" left / ">" right / ""), ``kind``
    ("split" or "leaf"), ``feature`` (name), ``threshold``, ``sign`` (leaf output f_t = +1 or -1), ``idle``
    (a split that copies its parent: every sample reaching it goes the same way, Sec. 4 step 1 kept),
    ``reachable`` (no contradicting tests on the path) and, with training data, ``n`` (samples reaching the node)
    and ``top_class`` (the most frequent class index there, -1 if none).
    """
    i = _check_round(model, t)
    D = model.depth_
    names = (
        list(feature_names) if feature_names is not None else [f"x{j}" for j in range(model.n_features_in_)]
    )
    feats, thr_idx, thr = model.tree_features_[i], model.tree_thr_idx_[i], model.tree_thresholds_[i]
    signs = model.tree_leaf_signs_[i]
    n_split = 2**D - 1
    counts = None
    if X is not None:
        leaf = tree_leaf_index(model, t, X)
        leaf_nodes = leaf + n_split
        counts = {}
        paths = [leaf_nodes]
        for _ in range(D):
            paths.append((paths[-1] - 1) // 2)
        on_path = np.stack(paths)  # (D + 1, N): node ids from the leaf up to the root
        y = None if y_idx is None else np.asarray(y_idx)
        for node in range(2 * n_split + 1):
            hit = np.any(on_path == node, axis=0)
            top = int(np.bincount(y[hit]).argmax()) if (y is not None and hit.any()) else -1
            counts[node] = (int(hit.sum()), top)
    rows = []
    bounds = {0: {}}  # node -> {feature: (lo_idx, hi_idx)}: x > tau_lo and x <= tau_hi along the path
    for node in range(2 * n_split + 1):
        level = int(np.floor(np.log2(node + 1)))
        pos = node - (2**level - 1)
        parent = (node - 1) // 2 if node else -1
        b = bounds.get(node, {})
        reachable = all(lo < hi for lo, hi in b.values())
        row = {
            "node": node,
            "level": level,
            "x": (pos + 0.5) / 2**level,
            "parent": parent,
            "branch": "" if node == 0 else ("<=" if node % 2 == 1 else ">"),
            "reachable": reachable,
        }
        if node < n_split:
            j, k = int(feats[node]), int(thr_idx[node])
            idle = node > 0 and j == feats[parent] and k == thr_idx[parent]
            row.update(kind="split", feature=names[j], threshold=float(thr[node]), sign=0, idle=bool(idle))
            lo, hi = b.get(j, (0, model.thresholds_.shape[1] + 1))
            bounds[2 * node + 1] = {**b, j: (lo, min(hi, k))}
            bounds[2 * node + 2] = {**b, j: (max(lo, k), hi)}
        else:
            row.update(
                kind="leaf", feature="", threshold=math.nan, sign=int(signs[node - n_split]), idle=False
            )
        if counts is not None:
            row["n"], row["top_class"] = counts[node]
        rows.append(row)
    return pd.DataFrame(rows)


def layer_losses(model: RebelClassifier, t: int) -> np.ndarray:
    """The training loss L when growing round t's tree (1-based), layer by layer: before the round, then after
    layers 1..D (Sec. 4: each added layer never increases it; the last equals ``train_loss_[t]``)."""
    i = _check_round(model, t)
    return np.r_[model.train_loss_[i], model.layer_loss_[i]]


def favoured_classes(a, classes) -> tuple:
    """Classes whose score f_t(x) a_t raises where f_t = +1 (a_k > 0) and where f_t = -1 (a_k < 0)."""
    a = np.asarray(a, dtype=np.float64)
    plus = [classes[k] for k in np.argsort(-a) if a[k] > 0]
    minus = [classes[k] for k in np.argsort(a) if a[k] < 0]
    return plus, minus
