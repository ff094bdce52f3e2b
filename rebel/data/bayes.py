"""The exact Bayes posterior of a mixture and the Bayes-optimal (minimum-risk) rule, with its cost and risk.

Reads a mixture table (see ``rebel.data.mixture``) and points ``X`` of shape (N, 2); returns posteriors
(N, K) in sorted class order, decisions (N,) as class indices, and mean costs under a (K, K) cost matrix
(rows = true class, columns = decision). ``sample_path`` gives points along a polyline (Fig. 8).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from rebel.costs import min_risk_class, uniform_costs, validate_cost_matrix
from rebel.data.mixture import (
    _check_count,
    _check_fraction,
    _classes,
    _sample,
    component_cholesky,
    label_indices,
    mixture_classes,
    validate_mixture,
)

# ---------------------------------------------------------------------------------------------------------------
# Exact Bayes posterior and the Bayes-optimal (minimum-risk) rule
# ---------------------------------------------------------------------------------------------------------------


def _check_points(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X has shape {X.shape}; mixtures live in the plane, so X must have shape (N, 2).")
    return X


def _log_joint(df: pd.DataFrame, X: np.ndarray) -> np.ndarray:
    """(N, J) log of ``w_j N(x; mu_j, Sigma_j)`` with weights normalized to sum to 1."""
    L = component_cholesky(df)
    diff = X[:, None, :] - df[["mean_x", "mean_y"]].to_numpy()[None, :, :]
    # Solve L u = diff per component; |u|^2 is the squared Mahalanobis distance.
    Linv = np.linalg.inv(L)
    u = np.matmul(diff.transpose(1, 0, 2), Linv.transpose(0, 2, 1))  # (J, N, 2)
    log_det = 2.0 * np.log(np.diagonal(L, axis1=1, axis2=2)).sum(axis=1)
    w = df["weight"].to_numpy()
    return np.log(w / w.sum()) - np.log(2 * np.pi) - 0.5 * log_det - 0.5 * (u**2).sum(axis=2).T


def _posterior(df: pd.DataFrame, X: np.ndarray) -> np.ndarray:
    classes = np.asarray(_classes(df), dtype=object)
    log_joint = _log_joint(df, X)
    comp_class = np.searchsorted(classes, df["class"].to_numpy(dtype=object))
    log_class = np.stack(
        [logsumexp(log_joint[:, comp_class == k], axis=1) for k in range(len(classes))], axis=1
    )
    return np.exp(log_class - logsumexp(log_class, axis=1, keepdims=True))


def bayes_posterior(mixture, X, label_noise: float = 0.0) -> np.ndarray:
    """Exact class posterior p(y | x) of a mixture, shape (N, K), columns in sorted class order.

    With ``label_noise`` = e it is the posterior of the noisy labels, ``(1 - e) p + e (1 - p) / (K - 1)``.
    """
    e = _check_fraction(label_noise, "label_noise", 1.0)
    post = _posterior(validate_mixture(mixture), _check_points(X))
    K = post.shape[1]
    return (1 - e) * post + e * (1 - post) / (K - 1) if e > 0 else post


def _mixture_and_costs(mixture, cost_matrix):
    df = validate_mixture(mixture)
    return df, validate_cost_matrix(cost_matrix, n_classes=len(_classes(df)))


def bayes_min_risk(mixture, X, cost_matrix) -> np.ndarray:
    """Bayes-optimal decision: class index ``argmin_k sum_y p(y|x) C[y, k]`` for each row of X."""
    df, C = _mixture_and_costs(mixture, cost_matrix)
    return min_risk_class(_posterior(df, _check_points(X)), C)


def bayes_cost(mixture, X, y, cost_matrix) -> float:
    """Mean cost of the Bayes-optimal rule on labelled points (X, y): the floor for any model's test cost."""
    df, C = _mixture_and_costs(mixture, cost_matrix)
    pred = min_risk_class(_posterior(df, _check_points(X)), C)
    return float(C[label_indices(y, _classes(df)), pred].mean())


def bayes_risk(mixture, cost_matrix, n: int = 100_000, seed=0) -> float:
    """Bayes risk ``E_x[min_k sum_y p(y|x) C[y, k]]``, Monte-Carlo over ``n`` points (exact posterior inside)."""
    df, C = _mixture_and_costs(mixture, cost_matrix)
    X, _ = _sample(df, _check_count(n, "n"), seed, 0.0)
    return float((_posterior(df, X) @ C).min(axis=1).mean())


def confusion_rates(mixture, cost_matrix, n: int = 20_000, seed=0) -> np.ndarray:
    """(K, K) joint rates P(truth y, Bayes rule predicts k) for a cost matrix, Monte-Carlo over ``n`` points."""
    df, C = _mixture_and_costs(mixture, cost_matrix)
    X, y = _sample(df, _check_count(n, "n"), seed, 0.0)
    pred = min_risk_class(_posterior(df, X), C)
    K = len(C)
    return np.bincount(label_indices(y, _classes(df)) * K + pred, minlength=K * K).reshape(K, K) / n


def sample_path(waypoints, n: int = 101):
    """Points along a polyline through ``waypoints`` (Fig. 8): ``(P (n, 2), t (n,))``, t = fraction of length."""
    W = _check_points(waypoints)
    if len(W) < 2:
        raise ValueError(f"waypoints has {len(W)} point(s); a path needs at least 2.")
    seg = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(W, axis=0), axis=1))]
    if seg[-1] <= 0:
        raise ValueError("waypoints are all the same point; give a path of positive length.")
    t = np.linspace(0.0, 1.0, _check_count(n, "n", minimum=2))
    s = t * seg[-1]
    return np.column_stack([np.interp(s, seg, W[:, 0]), np.interp(s, seg, W[:, 1])]), t


def costliest_mistakes(mixture, cost_matrix, n: int = 20_000, seed=0) -> tuple:
    """The (truth, predicted) class pair that costs a cost-blind (0-1 Bayes) classifier the most in expectation."""
    classes = mixture_classes(mixture)
    C = validate_cost_matrix(cost_matrix, n_classes=len(classes))
    loss = confusion_rates(mixture, uniform_costs(len(classes)), n, seed) * C
    y, k = np.unravel_index(np.argmax(loss), loss.shape)
    return ((classes[y], classes[k]),)
