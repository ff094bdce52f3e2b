"""View-model of the Theory page: the decomposition table (S.3-S.5), the loss levels L* and L_bullet (S.4/S.5),
the per-round edge and loss ratio against the bound of S.6.1 (``round_diagnostics``) and the binary reduction
to AdaBoost (S.8, ``binary_reduction``) and, with costs, to the two-step method (``binary_cost_check``); when
training with the costs pays (``weighting_check``: one dataset of ``rebel.experiments.weighting``).

Reads a fitted ``RebelClassifier`` and its training data (X (N, d), labels). No streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rebel.baselines import first_best
from rebel.binning import bin_data
from rebel.costs import decompose, label_indices, validate_cost_matrix
from rebel.data import Dataset
from rebel.estimator import RebelClassifier
from rebel.experiments import weighting
from rebel.experiments.binary import binary_equivalence
from rebel.ui.state import staged_scores
from rebel.ui.text import Markdown, md

EXP_CLIP = 700.0  # |H| is clipped here before exp() in the per-round diagnostics (e^709 overflows float64)


def decomposition_tables(cost_matrix, classes) -> dict:
    """The decomposition of each cost row (S.3-S.5) as tables indexed by the true class:

    ``summary`` (columns beta, phi = max c, sum b = phi - beta, c*), and K x K tables ``c+``, ``c-`` and ``H*``
    (column k = component k).
    """
    C = validate_cost_matrix(cost_matrix, n_classes=len(classes))
    d = decompose(C)
    names = [str(c) for c in classes]
    idx = pd.Index(names, name="truth")
    summary = pd.DataFrame(
        {"β": d.beta, "φ = max c": C.max(axis=1), "Σb = φ − β": C.max(axis=1) - d.beta, "c*": d.c_star},
        index=idx,
    )
    return {
        "summary": summary,
        "c+": pd.DataFrame(d.cp, index=idx, columns=names),
        "c-": pd.DataFrame(d.cm, index=idx, columns=names),
        "H*": pd.DataFrame(d.H_star, index=idx, columns=names),
    }


def loss_levels(cost_matrix, y_idx) -> dict:
    """``L*`` (Eq. 4: the loss floor, every sample at its optimum H*) and ``L_bullet`` (S.4/S.5: below it the
    training cost is 0), for the training labels ``y_idx``.

    L_bullet = L* + (1/2N) min over samples n and costly classes k (C[y_n, k] > 0) of
    2 sqrt((c+_y + c+_k)(c-_y + c-_k)) - 2 sqrt(c+_y c-_y) - 2 sqrt(c+_k c-_k), the least excess loss of one
    sample whose scores tie between its class and k. S.5 prints it without the 1/(2N) weight that a single
    sample carries in the mean loss; we keep the weight, which is what makes "L < L_bullet => zero training
    cost" true. Without any costly mistake L_bullet is +inf.
    """
    C = np.asarray(cost_matrix, dtype=np.float64)
    y_idx = np.asarray(y_idx)
    N = len(y_idx)
    d = decompose(C)
    L_star = float(np.mean(d.beta[y_idx] + d.c_star[y_idx] / 2))
    best = np.inf
    for y in np.unique(y_idx):
        cp, cm = d.cp[y], d.cm[y]
        for k in np.flatnonzero(C[y] > 0):
            excess = (
                2 * np.sqrt((cp[y] + cp[k]) * (cm[y] + cm[k]))
                - 2 * np.sqrt(cp[y] * cm[y])
                - 2 * np.sqrt(cp[k] * cm[k])
            )
            best = min(best, float(excess))
    return {
        "L*": L_star,
        "L_bullet": L_star + best / (2 * N),
        "c*_mean": float(d.c_star[y_idx].sum() / (2 * N)),
    }


def round_diagnostics(model: RebelClassifier, X, y) -> pd.DataFrame:
    """Per round t = 1..T of a fitted model on its training data (X, y): the edge and the loss ratio vs the
    exponential bound of S.6.1. What is computed, exactly:

    - H_{t-1} on the training set from ``staged_risk_scores`` (t = 1 uses a0); weights (S.6)
      w+ = c+ e^{H_{t-1}}, w- = c- e^{-H_{t-1}} with c+/c- from ``decompose`` of the cost rows C[y_n]
      (|H| clipped at ``EXP_CLIP`` before exp).
    - f_t(x_n) in {-1, +1}: the weak learner's output (``RebelClassifier.weak_learner_outputs``; for depth-2+
      trees the whole tree's output).
    - s± = (1/2N) sum_n [f=+1] w± + [f=-1] w∓ (Eq. 7), S = <s+ + s-, 1>, D = <|s+ - s-|, 1>,
      c* = (1/2N) sum_n c*_n.
    - ``gamma``: the edge of S.6.1 / Eq. 10, D / (S - c*) (the largest gamma for which f_t meets the condition).
    - ``gamma_wlc``: the edge in the form of Eq. 11, <|sum_n (w+ - w-) f|, 1> / sum_n <|w+ - w-|, 1> (<= gamma).
    - ``phi``: D / S, the phi of S.6.1 that f_t actually achieves; ``phi_paper`` = gamma (1 - c*/(L_bullet - L* +
      c*)), the guaranteed lower bound on phi while L_{t-1} >= L_bullet (NaN below L_bullet).
    - ``ratio``: (L_t - L*) / (L_{t-1} - L*) from the engine's ``train_loss_``; ``bound`` = sqrt(1 - phi^2) and
      ``bound_exp`` = e^{-phi^2/2} (ratio <= bound <= bound_exp, Eq. 8); ``cum_ratio`` = (L_t - L*)/(L_0 - L*)
      and ``cum_bound`` = prod_{s<=t} e^{-phi_s^2/2}.
    - ``a_star_err``: max_k |1/2 (ln s- - ln s+) - a_t| (the engine's a_t is the closed form, up to its
      smoothing), and ``loss_before`` = L* + S - c* (= L_{t-1}).
    """
    X = np.asarray(X, dtype=np.float64)
    y_idx = label_indices(y, model.classes_, "retrain the model on these labels")
    N = X.shape[0]
    d = decompose(model.cost_matrix_[y_idx])
    levels = loss_levels(model.cost_matrix_, y_idx)
    L_star, L_bullet, c_bar = levels["L*"], levels["L_bullet"], levels["c*_mean"]
    loss = np.asarray(model.train_loss_, dtype=np.float64)
    rows = []
    F = model.weak_learner_outputs(X)  # (N, T)
    for t, H_prev in enumerate(model.staged_risk_scores(X, include_bias=True), start=1):
        if t > model.n_estimators_:
            break
        a, f = model.a_[t - 1], F[:, t - 1]
        Hc = np.clip(H_prev, -EXP_CLIP, EXP_CLIP)
        wp, wm = d.cp * np.exp(Hc), d.cm * np.exp(-Hc)
        pos = f > 0
        sp = (wp[pos].sum(axis=0) + wm[~pos].sum(axis=0)) / (2 * N)
        sm = (wm[pos].sum(axis=0) + wp[~pos].sum(axis=0)) / (2 * N)
        S, D = float((sp + sm).sum()), float(np.abs(sp - sm).sum())
        diff = wp - wm
        wlc_den = float(np.abs(diff).sum())
        with np.errstate(divide="ignore", invalid="ignore"):
            a_star = 0.5 * (np.log(sm) - np.log(sp))
        gamma = D / (S - c_bar) if S - c_bar > 0 else np.nan
        phi = D / S if S > 0 else np.nan
        before, after = loss[t - 1] - L_star, loss[t] - L_star
        paper = gamma * (1 - c_bar / (L_bullet - L_star + c_bar)) if loss[t - 1] >= L_bullet else np.nan
        rows.append(
            {
                "t": t,
                "gamma": gamma,
                "gamma_wlc": float(np.abs((diff * f[:, None]).sum(axis=0)).sum()) / wlc_den
                if wlc_den > 0
                else np.nan,
                "phi": phi,
                "phi_paper": paper,
                "ratio": after / before if before > 0 else np.nan,
                "bound": float(np.sqrt(max(0.0, 1 - phi**2))),
                "bound_exp": float(np.exp(-(phi**2) / 2)),
                "loss_before": L_star + S - c_bar,
                "loss_after": float(loss[t]),
                "a_star_err": float(np.nanmax(np.abs(np.where(np.isfinite(a_star), a_star - a, 0.0)))),
            }
        )
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    first = loss[0] - L_star
    df["cum_ratio"] = (loss[1:] - L_star) / first if first > 0 else np.nan
    df["cum_bound"] = np.exp(np.cumsum(-(df["phi"].to_numpy() ** 2) / 2))
    return df


@dataclass
class BinaryDemo:
    """REBEL with 0-1 costs and stumps on a 2-class problem, next to binary AdaBoost (S.8).

    ``rounds``: per round t = 1..T the stump (feature, threshold), REBEL's a_t for both classes, AdaBoost's
    alpha_t (with polarity) and weighted error, both losses, max |H_1 + H_2| and max |H_1 - h| (h = AdaBoost's
    score). ``rebel_scores`` (T + 1, N, 2) and ``adaboost_scores`` (T + 1, N) on the training points.
    """

    classes: tuple
    model: RebelClassifier
    rebel_scores: np.ndarray
    adaboost_scores: np.ndarray
    rounds: pd.DataFrame


def adaboost_scores(X, y_pm, thresholds, usable, n_rounds: int) -> tuple:
    """Discrete binary AdaBoost (labels ±1) with a bias h_0 = 1/2 ln(N+/N-), stumps ``x_j > tau_ji`` of either
    polarity on the given thresholds (first best in feature-then-threshold order).

    Returns ``(h, alpha, err, features, thr_idx)``: scores h_t (T + 1, N) and per round the signed weight, the
    weighted error and the stump (threshold index i is 1-based: bins >= i go right)."""
    y_pm = np.asarray(y_pm, dtype=np.float64)
    bins = bin_data(np.asarray(X, dtype=np.float64), thresholds)
    n_features, n_bins = thresholds.shape[0], thresholds.shape[1] + 1
    h = np.full(len(y_pm), 0.5 * np.log((y_pm > 0).sum() / (y_pm < 0).sum()))
    scores, alphas, errs, feats, thr = [h.copy()], [], [], [], []
    for _ in range(int(n_rounds)):
        D = np.exp(-y_pm * h)
        D /= D.sum()
        edges = np.full((n_features, n_bins - 1), -np.inf)
        signed = np.zeros_like(edges)
        for j in np.flatnonzero(usable):
            hist = np.bincount(bins[j], weights=D * y_pm, minlength=n_bins)
            signed[j] = hist.sum() - 2 * np.cumsum(hist)[:-1]  # sum_n D y g with g = +1 iff bins >= i
            edges[j] = np.abs(signed[j])
        j, i = np.unravel_index(first_best(edges.ravel()), edges.shape)
        r = min(edges[j, i], 1 - 1e-12)
        rho = 1.0 if signed[j, i] >= 0 else -1.0
        alpha = 0.5 * np.log((1 + r) / (1 - r))
        h = h + rho * alpha * np.where(bins[j] > i, 1.0, -1.0)
        scores.append(h.copy())
        alphas.append(rho * alpha)
        errs.append((1 - r) / 2)
        feats.append(int(j))
        thr.append(int(i) + 1)
    return np.array(scores), np.array(alphas), np.array(errs), np.array(feats), np.array(thr)


def binary_reduction(
    dataset: Dataset, pair: tuple, n_rounds: int = 30, n_thresholds: int = 200
) -> BinaryDemo:
    """Train REBEL (0-1 costs, stumps) on the training points of the two classes ``pair`` and binary AdaBoost on
    the same thresholds (class pair[0] = +1). S.8 predicts H_1 = -H_2 = h at every round and equal losses."""
    classes = tuple(sorted(map(str, pair)))
    if len(set(classes)) != 2:
        raise ValueError(f"the binary example needs two different classes; got {list(pair)}.")
    y_all = np.asarray(dataset.y_train).astype(str)
    mask = np.isin(y_all, classes)
    X, y = dataset.X_train[mask], y_all[mask]
    for c in classes:
        if not np.any(y == c):
            raise ValueError(f"class {c!r} has no training points; pick two classes that have some.")
    model = RebelClassifier(n_estimators=int(n_rounds), max_depth=1, n_thresholds=int(n_thresholds)).fit(X, y)
    y_pm = np.where(y == model.classes_[0], 1.0, -1.0)
    h, alpha, err, feats, thr = adaboost_scores(
        X, y_pm, model.thresholds_, model.feature_usable_, model.n_estimators_
    )
    H = staged_scores(model, X)
    ada_loss = np.exp(-y_pm[None, :] * h).mean(axis=1)
    rounds = pd.DataFrame(
        {
            "t": np.arange(1, model.n_estimators_ + 1),
            "feature": model.tree_features_[:, 0],
            "threshold": model.tree_thresholds_[:, 0],
            "a_t (class 1)": model.a_[:, 0],
            "a_t (class 2)": model.a_[:, 1],
            "AdaBoost feature": feats,
            "AdaBoost threshold": model.thresholds_[feats, thr - 1],
            "AdaBoost alpha_t": alpha,
            "AdaBoost error": err,
            "REBEL loss": model.train_loss_[1:],
            "AdaBoost loss": ada_loss[1:],
            "max |H1 + H2|": np.abs(H[1:, :, 0] + H[1:, :, 1]).max(axis=1),
            "max |H1 - h|": np.abs(H[1:, :, 0] - h[1:]).max(axis=1),
        }
    )
    return BinaryDemo(tuple(model.classes_), model, H, h, rounds)


def _pair_points(dataset: Dataset, classes: tuple, part: str) -> tuple:
    X, y = getattr(dataset, f"X_{part}"), np.asarray(getattr(dataset, f"y_{part}")).astype(str)
    mask = np.isin(y, classes)
    return X[mask], y[mask]


def binary_cost_check(
    dataset: Dataset, pair: tuple, r: float, n_rounds: int, max_depth: int = 1, n_thresholds: int = 200
) -> tuple:
    """REBEL trained with costs (0, 1; r, 0) on the training points of the two classes ``pair`` (sorted; missing
    the second costs r) beside the two-step method on the 0-1 model, decided on the pair's test points
    (``rebel.experiments.binary``). Returns ``(BinaryEquivalence, table)``: ``table`` lists the 8 test points
    nearest the threshold, with sigma(2 H_0-1), the threshold and both decisions (class names)."""
    classes = tuple(sorted(map(str, pair)))
    if len(set(classes)) != 2:
        raise ValueError(f"the binary example needs two different classes; got {list(pair)}.")
    X, y = _pair_points(dataset, classes, "train")
    X_test, _ = _pair_points(dataset, classes, "test")
    for c in classes:
        if not np.any(y == c):
            raise ValueError(f"class {c!r} has no training points; pick two classes that have some.")
    if not len(X_test):
        X_test = X  # a dataset without test points of these classes: decide on the training points
    params = {"n_estimators": int(n_rounds), "max_depth": int(max_depth), "n_thresholds": int(n_thresholds)}
    eq = binary_equivalence(X, y, X_test, [[0.0, 1.0], [float(r), 0.0]], **params)
    near = np.argsort(np.abs(eq.posterior - eq.threshold), kind="stable")[:8]
    names = np.asarray(eq.classes)
    table = pd.DataFrame(
        {
            "σ(2H) of " + names[1]: eq.posterior[near],
            "threshold 1/(1+r)": eq.threshold,
            "REBEL (costs)": names[eq.rebel[near]],
            "two-step (0-1 model)": names[eq.two_step[near]],
        },
        index=pd.Index(near, name="test point"),
    )
    return eq, table


def weighting_check(i: int) -> tuple:
    """One dataset of the rare-costly-class regime (``rebel.experiments.weighting``): ``(means, table)``, each
    method's mean test cost over the dataset's cost matrices (a Series keyed as ``weighting.METHODS``) and the
    per-matrix costs with the methods named as the page shows them."""
    costs = weighting.dataset_costs(int(i)).drop(columns="dataset")
    means = costs.drop(columns="cost_id").mean()
    table = costs.set_index("cost_id").rename(columns=weighting.METHODS).rename_axis("cost matrix")
    return means, table


def weighting_verdict(means) -> Markdown:
    """What one dataset shows, in words: the three mean costs, whether weighting beat the logistic two-step
    method and whether the boosted two-step was the cheapest."""
    return md(
        "On this draw cost-weighted logistic regression costs {:.4f} against {:.4f} for the logistic two-step "
        "method ({}), and the two-step method on the boosted posterior {:.4f} ({}).",
        means["weighted_linear"],
        means["two_step_linear"],
        "weighting cheaper" if weighting.weighting_cheaper(means) else "weighting not cheaper",
        means["two_step_boost"],
        "the cheapest" if weighting.boosting_cheapest(means) else "not the cheapest",
    )
