"""Why cost-sensitive REBEL loses or wins: the surrogate diagnostic, example-dependent costs, Fig. 7 counts.

- ``surrogate_diagnostic``: on Fig. 3 trials, REBEL's training loss L (Eq. 2) against the loss of the two-step
  model mapped into REBEL's score space through the loss's population minimiser (``population_scores``), and
  the training cost of both decision rules. A lower mapped loss means REBEL's own objective prefers the
  two-step solution: a lower loss exists that REBEL's rounds so far have not reached (``convergence`` follows
  them to 3,200 rounds, where most of the gap closes in the mean but not in every trial).
- ``example_cost_trials``: costs known per training example only, ``c_n = C[y_n] exp(lambda s_y x_n1 / 5)``
  with a random sign s_y per class; REBEL trains on the rows c_n. Three two-step baselines: the posterior with
  the class-averaged matrix (``two_step_cost``), the posterior with the cost rows regressed on x
  (``regressed_cost``: per true class y, the mean row of the ``KNN_K`` nearest training points of class y,
  ``risk_k(x) = sum_y p(y|x) C_hat_y(x)[k]``), and a 0-1 model trained with each point weighted by its mean
  mistake cost (``weighted_cost``: posterior q, decision ``argmin_k sum_y q(y|x) Cbar[y, k] / wbar_y``). Test
  points are scored with their own c_n (unknown to every model); the Bayes rule uses them exactly.
- ``ScorePosterior``: REBEL's 0-1 scores made into "posteriors" by a naive normalisation instead of the
  loss's calibrated sigma(2H), to show what a miscalibrated posterior does to the two-step method.
- ``fig7_counts``: the four cost matrices of the fig7 preset, predicted-class counts on training and test points.

Arrays: X (N, d) float64, labels as class indices, posteriors P (N, K), cost matrices C (K, K), cost rows (N, K).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin

from rebel.booster import training_loss
from rebel.costs import decompose, min_risk_class
from rebel.data.bayes import bayes_posterior
from rebel.data.mixture import PAPER_SEED
from rebel.data.presets import PRESETS
from rebel.estimator import RebelClassifier
from rebel.experiments.runner import Progress, run_tasks
from rebel.experiments.splits import Split, protocol_splits
from rebel.init_params import store_params
from rebel.minrisk import mistake_weights
from rebel.params import APP_DEFAULTS

LAMBDAS = (1.5, 3.0, 5.0)
KNN_K = 30  # neighbours of the cost-regressing two-step
SCORE_TRANSFORMS = ("softmax", "shift")
_TINY = 1e-300


def population_scores(P: np.ndarray, C: np.ndarray) -> np.ndarray:
    """REBEL scores that minimise the expected loss under posteriors P (N, K) and cost matrix C:
    ``H_k = 1/2 ln((E phi - R_k) / (R_k - E beta)) = 1/2 ln(<p, c-_k> / <p, c+_k>)`` (R = P C, the risks).

    ``argmax_k H_k = argmin_k R_k``: the mapped model makes the two-step decisions. Values are clipped to a
    finite range where a class is never (or always) the cheapest under P."""
    dec = decompose(C)
    em, ep = np.asarray(P) @ dec.cm, np.asarray(P) @ dec.cp
    return np.clip(0.5 * (np.log(np.maximum(em, _TINY)) - np.log(np.maximum(ep, _TINY))), -350.0, 350.0)


def _surrogate_task(split: Split, C: np.ndarray, P_train: np.ndarray, n_rounds: int, depth: int) -> dict:
    model = RebelClassifier(cost_matrix=C, n_estimators=n_rounds, max_depth=depth).fit(
        split.X_train, split.y_train
    )
    rows = C[split.y_train]
    two_step = min_risk_class(P_train, C)
    return {
        "rebel_loss": float(model.train_loss_[-1]),
        "mapped_loss": training_loss(population_scores(P_train, C), rows),
        "rebel_train_cost": float(model.train_risk_[-1]),
        "two_step_train_cost": float(rows[np.arange(len(two_step)), two_step].mean()),
    }


class ScorePosterior(ClassifierMixin, BaseEstimator):
    """REBEL with 0-1 costs whose scores H (N, K) become "posteriors" by a naive normalisation, not the loss's
    calibrated ``sigma(2H)``: ``"softmax"`` = softmax(H); ``"shift"`` = (H - min_k H) / sum_k (H - min_k H)
    (uniform where all scores are equal). For the calibration experiment (``fig3 --posterior rebel-softmax``)."""

    def __init__(self, n_estimators: int = 100, max_depth: int = 1, transform: str = "softmax"):
        store_params(self, locals())

    def fit(self, X, y):
        if self.transform not in SCORE_TRANSFORMS:
            raise ValueError(f"transform is {self.transform!r}; choose one of {SCORE_TRANSFORMS}.")
        self.model_ = RebelClassifier(n_estimators=self.n_estimators, max_depth=self.max_depth).fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict_proba(self, X) -> np.ndarray:
        H = self.model_.risk_scores(X)
        if self.transform == "softmax":
            return softmax(H, axis=1)
        shifted = H - H.min(axis=1, keepdims=True)
        total = shifted.sum(axis=1, keepdims=True)
        return np.where(total > 0, shifted / np.where(total > 0, total, 1.0), 1.0 / H.shape[1])


def _zero_one_posterior(split: Split, n_rounds: int, depth: int, part: str) -> np.ndarray:
    """Posterior (N, K) of REBEL trained with 0-1 costs on the split, on its training or test points."""
    model = RebelClassifier(n_estimators=n_rounds, max_depth=depth).fit(split.X_train, split.y_train)
    return model.predict_proba(split.X_train if part == "train" else split.X_test)


@dataclass(frozen=True)
class Trials:
    """Fig. 3 trials of the paper's random protocol (``n_datasets`` x ``n_costs``, drawn with ``seed``) and the
    capacity both sides get (``n_rounds`` rounds of depth ``max_depth``)."""

    n_datasets: int = 10
    n_costs: int = 20
    n_rounds: int = 100
    max_depth: int = 1
    seed: int = PAPER_SEED

    def with_posteriors(self, part: str, n_jobs: int | None) -> tuple:
        """``(splits, costs, posteriors)``: each dataset's 0-1 posterior on its ``part`` ("train"/"test")."""
        splits, costs = protocol_splits(self.n_datasets, self.n_costs, self.seed)
        args = [
            (i, _zero_one_posterior, (s, self.n_rounds, self.max_depth, part)) for i, s in enumerate(splits)
        ]
        return splits, costs, run_tasks(args, n_jobs)


def surrogate_diagnostic(
    trials: Trials = Trials(n_costs=3), n_jobs: int | None = 2, progress: Progress | None = None
) -> pd.DataFrame:
    """One row per Fig. 3 trial: ``dataset, cost_id, rebel_loss`` (REBEL's own training loss), ``mapped_loss``
    (the same loss of the 0-1 model's posterior mapped by ``population_scores``), ``rebel_train_cost,
    two_step_train_cost`` (mean training cost of both decision rules) and ``mapped_lower``."""
    splits, costs, posts = trials.with_posteriors("train", n_jobs)
    n_rounds, max_depth = trials.n_rounds, trials.max_depth
    tasks = [
        ((i, j), _surrogate_task, (s, C, posts[i], n_rounds, max_depth))
        for i, (s, cs) in enumerate(zip(splits, costs))
        for j, C in enumerate(cs)
    ]
    results = run_tasks(tasks, n_jobs, progress=progress)
    rows = [
        {"dataset": splits[i].name, "cost_id": j, **results[(i, j)]}
        for (i, j), *_ in tasks
        if (i, j) in results
    ]
    df = pd.DataFrame(rows)
    if len(df):
        df["mapped_lower"] = df["mapped_loss"] < df["rebel_loss"]
    return df


def example_costs(C: np.ndarray, y: np.ndarray, X: np.ndarray, lam: float, signs: np.ndarray) -> np.ndarray:
    """Cost rows ``c_n = C[y_n] exp(lam s_{y_n} x_n1 / 5)`` (N, K): a mistake's cost grows or shrinks along the
    first feature, in a direction that depends on the true class."""
    return C[y] * np.exp(lam * signs[y] * X[:, 0] / 5.0)[:, None]


def class_averaged(rows: np.ndarray, y: np.ndarray, K: int) -> np.ndarray:
    """The (K, K) matrix whose row y is the mean cost row of the training points of class y."""
    return np.stack([rows[y == k].mean(axis=0) for k in range(K)])


def regressed_costs(X_train, y_train, rows, X, K: int, k: int = KNN_K) -> np.ndarray:
    """Per test point, the estimated cost row of each true class: ``out[n, y]`` = the mean of ``rows`` over the
    ``k`` training points of class y nearest to ``X[n]`` (N, K, K). The cost-regressing two-step's cost model."""
    from sklearn.neighbors import KNeighborsRegressor

    out = np.empty((len(X), K, rows.shape[1]))
    for y in range(K):
        mask = y_train == y
        knn = KNeighborsRegressor(n_neighbors=min(k, int(mask.sum()))).fit(X_train[mask], rows[mask])
        out[:, y] = knn.predict(X)
    return out


def regressed_two_step(P, C_hat) -> np.ndarray:
    """Minimum-risk class under posteriors P (N, K) and per-point cost rows C_hat (N, K, K)."""
    return min_risk_class(P, C_hat)


def weighted_two_step(split: Split, rows, n_rounds: int, depth: int, variant: dict | None) -> np.ndarray:
    """The cost-weighting two-step on the test points: a 0-1 model trained with weight ``w_n`` = mean mistake
    cost of row n (posterior q proportional to p(y|x) E[w | x, y]), decision
    ``argmin_k sum_y q(y|x) Cbar[y, k] / wbar_y`` with the class-averaged matrix Cbar and class-mean weights."""
    K = split.n_classes
    w = mistake_weights(rows)
    model = RebelClassifier(n_estimators=n_rounds, max_depth=depth, random_state=0, **(variant or {}))
    q = model.fit(split.X_train, split.y_train, sample_weight=w).predict_proba(split.X_test)
    wbar = np.array([w[split.y_train == y].mean() for y in range(K)])
    return min_risk_class(q, class_averaged(rows, split.y_train, K) / wbar[:, None])


def cost_signs(seed: int, dataset: int, cost_id: int, K: int) -> np.ndarray:
    """The random sign s_y (K,) of each true class in one example-cost trial."""
    return np.random.default_rng([seed, dataset, 1 + cost_id, 5]).choice([-1.0, 1.0], size=K)


def example_cost_task(
    split: Split, C, lam: float, signs, P_test, n_rounds: int, depth: int, variant: dict | None = None
) -> dict:
    """One example-cost trial: REBEL (engine options ``variant``) trained on the training points' cost rows
    against three two-step rules (class-averaged matrix, cost rows regressed on x, cost-weighted training; see
    the module docstring) with posterior ``P_test``; mean test costs of all and of the Bayes rule, each test
    point scored with its own costs."""
    K = split.n_classes
    train_rows = example_costs(C, split.y_train, split.X_train, lam, signs)
    test_rows = example_costs(C, split.y_test, split.X_test, lam, signs)
    model = RebelClassifier(n_estimators=n_rounds, max_depth=depth, **(variant or {}))
    model.fit(split.X_train, split.y_train, sample_cost=train_rows)
    rebel = model.staged_class_indices(split.X_test)[-1]
    two_step = min_risk_class(P_test, class_averaged(train_rows, split.y_train, K))
    C_hat = regressed_costs(split.X_train, split.y_train, train_rows, split.X_test, K)
    regressed = regressed_two_step(P_test, C_hat)
    weighted = weighted_two_step(split, train_rows, n_rounds, depth, variant)
    # Bayes: the exact posterior with each test point's own costs, argmin_k sum_y p(y|x) C[y, k] e^(...)
    post = bayes_posterior(split.mixture, split.X_test)
    scale = np.exp(lam * signs[None, :] * split.X_test[:, :1] / 5.0)  # (N, K_true)
    bayes = np.argmin(np.einsum("ny,yk->nk", post * scale, C), axis=1)
    n = np.arange(len(split.y_test))
    return {
        "rebel_cost": float(test_rows[n, rebel].mean()),
        "two_step_cost": float(test_rows[n, two_step].mean()),
        "regressed_cost": float(test_rows[n, regressed].mean()),
        "weighted_cost": float(test_rows[n, weighted].mean()),
        "bayes_cost": float(test_rows[n, bayes].mean()),
    }


def example_cost_trials(
    lambdas=LAMBDAS, trials: Trials = Trials(), n_jobs: int | None = 2, progress: Progress | None = None
) -> pd.DataFrame:
    """One row per (lambda, dataset, cost matrix): REBEL trained on the example costs against the two-step
    method on the class-averaged matrix (same rounds and depth), test costs with each point's own costs."""
    splits, costs, posts = trials.with_posteriors("test", n_jobs)
    n_rounds, max_depth, seed = trials.n_rounds, trials.max_depth, trials.seed
    tasks = []
    for i, (s, cs) in enumerate(zip(splits, costs)):
        for j, C in enumerate(cs):
            signs = cost_signs(seed, i, j, s.n_classes)
            for lam in lambdas:
                args = (s, C, float(lam), signs, posts[i], n_rounds, max_depth)
                tasks.append(((float(lam), i, j), example_cost_task, args))
    results = run_tasks(tasks, n_jobs, progress=progress)
    rows = [
        {"lambda": k[0], "dataset": splits[k[1]].name, "cost_id": k[2], **results[k]}
        for k, *_ in tasks
        if k in results
    ]
    df = pd.DataFrame(rows)
    if len(df):
        df["win"] = df["rebel_cost"] < df["two_step_cost"]
    return df


def fig7_counts(
    n_rounds: int = APP_DEFAULTS["n_estimators"], max_depth: int = APP_DEFAULTS["max_depth"]
) -> pd.DataFrame:
    """Fig. 7 on the fig7 preset: REBEL trained with each of the four cost matrices; per panel and part
    (train / test) the number of points predicted as each class, C's missed points (false negatives, truth C
    predicted otherwise) and false alarms (false positives), and the mean cost under that panel's matrix."""
    preset = PRESETS["fig7"]
    ds = preset.dataset()
    c = ds.classes.index("C")
    rows = []
    for panel, C in preset.cost_variants.items():
        model = RebelClassifier(cost_matrix=C, n_estimators=n_rounds, max_depth=max_depth).fit(
            ds.X_train, ds.y_train
        )
        for part, X, y in (("train", ds.X_train, ds.y_train), ("test", ds.X_test, ds.y_test)):
            truth, pred = ds.class_index(y), ds.class_index(model.predict(X))
            counts = np.bincount(pred, minlength=ds.n_classes)
            rows.append(
                {
                    "panel": panel,
                    "part": part,
                    **{f"predicted {k}": int(n) for k, n in zip(ds.classes, counts)},
                    "C missed": int(np.sum((truth == c) & (pred != c))),
                    "C false alarms": int(np.sum((truth != c) & (pred == c))),
                    "cost": float(C[truth, pred].mean()),
                }
            )
    return pd.DataFrame(rows)


__all__ = [
    "LAMBDAS",
    "SCORE_TRANSFORMS",
    "ScorePosterior",
    "Trials",
    "class_averaged",
    "cost_signs",
    "example_cost_task",
    "example_cost_trials",
    "example_costs",
    "fig7_counts",
    "population_scores",
    "regressed_costs",
    "regressed_two_step",
    "surrogate_diagnostic",
    "weighted_two_step",
]
