"""Choosing the cheapest cost-sensitive method on the user's data by cross-validated cost (``method="auto"``).

The candidates (``candidates``): REBEL trained on the cost matrix at a small grid (``REBEL_GRID``), the
calibrated two-step (``MinRiskClassifier``: temperature scaling, cross-fitted) on LightGBM when it is installed
(else scikit-learn's HistGradientBoosting), and cost-weighted training (``CostWeightedClassifier``) on the same
booster. ``choose_method`` scores every candidate on the same ``cv`` stratified folds (each point's cost
``C[y, prediction]`` when it is held out), with a percentile bootstrap interval of the mean cost and of each
candidate's paired difference to the cheapest. ``rule="order"`` (the default): among the cheapest and the
candidates it cannot be told apart from (the interval of the paired difference reaches 0), the first method of
``METHODS`` wins (then the lower mean): a one-standard-error rule that keeps the two-step unless another method
is clearly cheaper on these folds, because the cross-validated ranking of close candidates on a few hundred
points is mostly noise. ``rule="lowest"``: the lowest mean (ties: the order of ``METHODS``).
``CostSensitiveAuto`` is the estimator: it chooses, then refits the winner on all points.
``selection_text`` is the one way the table is printed (the CLI's ``fit --method auto`` and ``evaluate``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_is_fitted

from .costs import label_indices, validate_cost_matrix
from .init_params import store_params
from .minrisk import CostWeightedClassifier, MinRiskClassifier, _checked_target, _label, expected_cost

__all__ = [
    "METHODS",
    "REBEL_GRID",
    "CostSensitiveAuto",
    "MethodChoice",
    "booster",
    "candidates",
    "choose_method",
    "selection_text",
]

METHODS = (
    "two-step",
    "weighted",
    "rebel",
)  # the order of preference among candidates that cannot be told apart
RULES = ("order", "lowest")  # choose_method's rules (module docstring)
REBEL_GRID = ((100, 1), (100, 2), (300, 2))  # (rounds, depth) of the REBEL candidates
N_BOOT = 2000
LEVEL = 0.95
SEED = 20160904


def booster(random_state: int = 0):
    """The cost-blind booster of the two-step and weighted candidates: LightGBM (its defaults, one thread,
    deterministic) when installed, else scikit-learn's ``HistGradientBoostingClassifier()``."""
    try:
        import lightgbm
    except ImportError:  # pragma: no cover - depends on the environment
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(random_state=random_state)
    return lightgbm.LGBMClassifier(n_jobs=1, deterministic=True, verbose=-1, random_state=random_state)


def booster_name(est) -> str:
    return (
        "LightGBM" if type(est).__name__ == "LGBMClassifier" else type(est).__name__.replace("Classifier", "")
    )


def candidates(cost_matrix, random_state: int = 0, rebel_grid=REBEL_GRID, base=None) -> dict:
    """{name: (method, unfitted estimator)}: REBEL at every (rounds, depth) of ``rebel_grid``, the calibrated
    two-step and cost-weighted training on ``base`` (default: ``booster()``)."""
    from .estimator import RebelClassifier

    base = booster(random_state) if base is None else base
    name = booster_name(base)
    out = {
        f"two-step ({name} + temperature + min-risk)": (
            "two-step",
            MinRiskClassifier(clone(base), cost_matrix, "temperature", random_state=random_state),
        ),
        f"weighted ({name}, cost-weighted)": ("weighted", CostWeightedClassifier(clone(base), cost_matrix)),
    }
    for rounds, depth in rebel_grid:
        out[f"rebel ({rounds} rounds, depth {depth})"] = (
            "rebel",
            RebelClassifier(cost_matrix, rounds, depth, random_state=random_state),
        )
    return out


@dataclass
class MethodChoice:
    """What ``choose_method`` measured: ``table`` (one row per candidate: name, method, cost, lo, hi, diff,
    diff_lo, diff_hi against the winner), the ``winner``'s name and method, and ``reason`` in words."""

    table: pd.DataFrame
    winner: str
    method: str
    reason: str
    folds: int


def _bootstrap(values: np.ndarray, n_boot: int, seed: int) -> tuple:
    idx = np.random.default_rng(seed).integers(0, len(values), size=(n_boot, len(values)))
    q = [(1 - LEVEL) / 2, (1 + LEVEL) / 2]
    lo, hi = np.quantile(values[idx].mean(axis=1), q)
    return float(lo), float(hi)


def oof_costs(estimator, X, y, y_idx, C, folds) -> np.ndarray:
    """Each point's cost ``C[y_n, prediction_n]`` when its fold is held out (N,)."""
    out = np.empty(len(y_idx))
    for train, held in folds:
        model = clone(estimator).fit(_safe_indexing(X, train), y[train])
        pred = label_indices(model.predict(_safe_indexing(X, held)), np.unique(y))
        out[held] = C[y_idx[held], pred]
    return out


def choose_method(
    X, y, cost_matrix, cv: int = 5, random_state: int = 0, cands=None, progress=None, rule: str = "order"
) -> MethodChoice:
    """Score every candidate (``candidates(cost_matrix)`` unless ``cands``) on the same ``cv`` stratified folds
    and pick by ``rule`` (module docstring); ``progress(done, total, name)`` is called after each candidate."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}; got {rule!r}. Use 'order' (the default) or 'lowest'.")
    y = _checked_target(X, y)
    classes = np.unique(y)
    C = validate_cost_matrix(cost_matrix, n_classes=len(classes), classes=classes)
    y_idx = label_indices(y, classes)
    smallest = int(np.bincount(y_idx).min())
    if smallest < 2:
        raise ValueError(
            f"choosing a method by cross-validation needs at least 2 points of every class; class "
            f"{_label(classes[np.argmin(np.bincount(y_idx))])!r} has {smallest}. Add points or drop the class."
        )
    k = min(int(cv), smallest)
    folds = list(StratifiedKFold(k, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y_idx))
    cands = candidates(C, random_state) if cands is None else cands
    costs = {}
    for i, (name, (_method, est)) in enumerate(cands.items()):
        costs[name] = oof_costs(est, X, y, y_idx, C, folds)
        if progress is not None:
            progress(i + 1, len(cands), name)
    return _choice(cands, costs, k, rule)


def _tied_with(costs: dict, cheapest: str) -> list:
    """The candidates whose paired difference to ``cheapest`` has a bootstrap interval reaching 0."""
    return [
        n for n in costs if n != cheapest and _bootstrap(costs[n] - costs[cheapest], N_BOOT, SEED)[0] <= 0
    ]


def _choice(cands: dict, costs: dict, folds: int, rule: str = "order") -> MethodChoice:
    names = list(cands)
    cheapest = min(names, key=lambda n: (costs[n].mean(), METHODS.index(cands[n][0])))
    winner = cheapest
    if rule == "order":
        winner = min(
            [cheapest, *_tied_with(costs, cheapest)],
            key=lambda n: (METHODS.index(cands[n][0]), costs[n].mean()),
        )
    rows = []
    for name in names:
        lo, hi = _bootstrap(costs[name], N_BOOT, SEED)
        d = costs[name] - costs[winner]
        dlo, dhi = (0.0, 0.0) if name == winner else _bootstrap(d, N_BOOT, SEED)
        rows.append(
            {
                "candidate": name,
                "method": cands[name][0],
                "cost": float(costs[name].mean()),
                "lo": lo,
                "hi": hi,
                "diff": float(d.mean()),
                "diff_lo": dlo,
                "diff_hi": dhi,
            }
        )
    table = pd.DataFrame(rows)
    tied = table[(table["candidate"] != winner) & (table["diff_lo"] <= 0)]["candidate"].tolist()
    if winner != cheapest:
        reason = (
            f"{cheapest} has the lowest cross-validated cost ({costs[cheapest].mean():.4g}, {folds} folds) but "
            f"cannot be told apart from {winner} ({costs[winner].mean():.4g}: the {LEVEL:.0%} interval of the "
            f"paired difference reaches 0); among such candidates the {cands[winner][0]} method is preferred "
            f"(order: {', '.join(METHODS)})"
        )
        return MethodChoice(table, winner, cands[winner][0], reason + ".", folds)
    reason = f"{winner} has the lowest cross-validated cost ({costs[winner].mean():.4g}, {folds} folds)"
    if tied:
        reason += (
            f"; {', '.join(tied)} cannot be told apart from it (the {LEVEL:.0%} interval of the paired difference "
            "reaches 0), so the choice among them is not certain"
        )
    else:
        reason += (
            f"; every other candidate costs more, with the {LEVEL:.0%} interval of the difference above 0"
        )
    return MethodChoice(table, winner, cands[winner][0], reason + ".", folds)


def selection_text(table, reason: str, winner: str) -> str:
    """The candidate table and the reason, as the CLI prints it (user text is never in it: names are ours)."""
    lines = [
        f"{'candidate':<44} {'CV cost':>9}  {LEVEL:.0%} interval       difference to the winner",
    ]
    for r in table.to_dict("records") if hasattr(table, "to_dict") else table:
        mark = "*" if r["candidate"] == winner else " "
        diff = (
            "(winner)"
            if r["candidate"] == winner
            else f"{r['diff']:+.4f} [{r['diff_lo']:+.4f}, {r['diff_hi']:+.4f}]"
        )
        lines.append(f"{mark}{r['candidate']:<43} {r['cost']:>9.4f}  [{r['lo']:.4f}, {r['hi']:.4f}]  {diff}")
    lines.append(f"chosen: {reason}")
    return "\n".join(lines)


class CostSensitiveAuto(ClassifierMixin, BaseEstimator):
    """``method="auto"``: the candidate of ``candidates(cost_matrix)`` that ``choose_method`` picks (rule
    "order"), refitted on all points. ``selection_`` is the table, ``reason_`` the words, ``best_estimator_`` the winner."""

    def __init__(self, cost_matrix=None, cv=5, random_state=0):
        store_params(self, locals())

    def fit(self, X, y, progress=None):
        y = _checked_target(X, y)
        K = len(np.unique(y))
        C = np.ones((K, K)) - np.eye(K) if self.cost_matrix is None else self.cost_matrix
        cands = candidates(C, self.random_state)
        choice = choose_method(X, y, C, self.cv, self.random_state, cands, progress)
        self.selection_, self.reason_ = choice.table, choice.reason
        self.best_name_, self.best_method_ = choice.winner, choice.method
        self.best_estimator_ = clone(cands[choice.winner][1]).fit(X, y)
        for attr in ("classes_", "n_features_in_", "feature_names_in_", "cost_matrix_"):
            if hasattr(self.best_estimator_, attr):
                setattr(self, attr, getattr(self.best_estimator_, attr))
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def expected_cost(self, X, y) -> float:
        """Mean cost ``C[y, prediction]`` under the fitted cost matrix."""
        check_is_fitted(self)
        pred = label_indices(self.predict(X), self.classes_)
        return expected_cost(label_indices(y, self.classes_), pred, self.cost_matrix_)
