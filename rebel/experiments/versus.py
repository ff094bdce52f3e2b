"""REBEL against an equal-capacity two-step method on one dataset, read at several round counts and on both the
training and the test points: the computation behind the app's REBEL-vs-two-step page (``studies.fig3_steps``).

- Both sides get the same engine options (``variant``: loss, leaves, learning rate), depth and rounds. REBEL is
  trained with each cost matrix; the two-step side is one cost-blind model per dataset whose posterior feeds the
  minimum-risk rule. ``POSTERIORS`` names that posterior: ``"sigma"`` the posterior the same engine's loss
  implies (sigma(2H) for the exp loss, sigma(H) for logistic, normalised), ``"calibrated-temperature"`` /
  ``"calibrated-isotonic"`` that posterior calibrated on out-of-fold predictions (``rebel.calibration``), ``"softmax"`` softmax of its raw scores H (a
  naive, miscalibrated reading), ``"samme"`` scikit-learn's AdaBoost SAMME and ``"lightgbm"`` LightGBM (their
  own step sizes; same depth and rounds).
- One fit per side at the largest round count is read at every checkpoint of ``rounds`` through staged
  predictions, so a win rate against rounds costs no extra fits; each depth of ``depths`` is one more fit.

``dataset_rows(split, costs, ...)`` returns one row per (cost matrix, depth, rounds, part) with the columns
``VERSUS_COLUMNS``: mean cost C[y, prediction] of REBEL, of the two-step rule, of the cost-blind argmax of the
posterior and of the Bayes rule (NaN without the dataset's mixture). Arrays: ``Split`` X (N, d) float64 and
labels as class indices, posteriors (N, K), staged class indices (T + 1, N), cost matrices (K, K). No streamlit.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from rebel.baselines import available_estimators, make_estimator, staged_posteriors
from rebel.calibration import crossfit_staged, fit_calibrator
from rebel.costs import min_risk_class
from rebel.data.bayes import bayes_cost
from rebel.estimator import RebelClassifier
from rebel.experiments.runner import run_tasks
from rebel.experiments.splits import Split
from rebel.params import CHOICE_PARAMS, check_choice, check_float

POSTERIORS = {
    "sigma": "the posterior its loss implies (σ(2H) for the exp loss, σ(H) for logistic)",
    "calibrated-temperature": "that posterior, temperature-scaled on out-of-fold predictions (3 folds)",
    "calibrated-isotonic": "that posterior, isotonic-calibrated on out-of-fold predictions (3 folds)",
    "softmax": "softmax of the raw scores H (not calibrated)",
    "samme": "AdaBoost SAMME (scikit-learn)",
    "lightgbm": "LightGBM",
}
PARTS = {"test": "test points", "train": "training points"}
VERSUS_COLUMNS = [
    "dataset",
    "cost_id",
    "depth",
    "rounds",
    "part",
    "rebel_cost",
    "two_step_cost",
    "blind_cost",
    "bayes_cost",
]
VARIANT_KEYS = ("loss", "leaves", "learning_rate")


def available_posteriors() -> list:
    """The names of ``POSTERIORS`` usable here (``lightgbm`` only when it is installed)."""
    return [p for p in POSTERIORS if p != "lightgbm" or "lightgbm" in available_estimators()]


def check_variant(variant: dict | None) -> dict:
    """The engine options both sides share (``loss``, ``leaves``, ``learning_rate``), checked against
    ``rebel.params``; options equal to paper mode are dropped, so ``{}`` is the paper's REBEL."""
    variant = dict(variant or {})
    unknown = sorted(set(variant) - set(VARIANT_KEYS))
    if unknown:
        raise ValueError(
            f"engine option {unknown[0]!r} is not offered here; choose from {list(VARIANT_KEYS)}."
        )
    out = {name: check_choice(name, variant[name]) for name in ("loss", "leaves") if name in variant}
    if "learning_rate" in variant:
        out["learning_rate"] = check_float("learning_rate", variant["learning_rate"])
    paper = {"loss": CHOICE_PARAMS["loss"][0], "leaves": CHOICE_PARAMS["leaves"][0], "learning_rate": 1.0}
    return {k: v for k, v in out.items() if v != paper[k]}


def checkpoints(n_rounds: int) -> list:
    """Round counts at which a run is read: about 1/10, 1/4, 1/2 and all of ``n_rounds`` (distinct, >= 1)."""
    return sorted({max(1, round(n_rounds * f)) for f in (0.1, 0.25, 0.5)} | {int(n_rounds)})


def check_posterior(posterior: str) -> str:
    """``posterior`` if it is a usable name of ``POSTERIORS``, else a ValueError naming the choices."""
    if posterior not in POSTERIORS:
        raise ValueError(f"posterior is {posterior!r}; choose one of {list(POSTERIORS)}.")
    if posterior not in available_posteriors():
        raise ValueError(
            f"{POSTERIORS[posterior]} is not installed here; choose one of {available_posteriors()}."
        )
    return posterior


def _posterior_model(posterior: str, variant: dict, depth: int, n_rounds: int):
    if posterior in ("sigma", "softmax") or posterior.startswith("calibrated-"):
        return RebelClassifier(n_estimators=n_rounds, max_depth=depth, random_state=0, **variant)
    return make_estimator(posterior, n_rounds, depth, random_state=0)


def _read_at(stages, rounds: list) -> dict:
    """{t: stage t} for t in ``rounds`` from an iterator of stages 1, 2, ... (the last one where it ended)."""
    wanted, out, last = set(rounds), {}, None
    for t, last in enumerate(stages, start=1):
        if t in wanted:
            out[t] = last
    return {t: out.get(t, last) for t in rounds}


def _two_step_task(split: Split, posterior: str, variant: dict, depth: int, rounds: list) -> dict:
    """{part: {t: posterior (N, K)}} of the cost-blind model."""
    if posterior.startswith("calibrated-"):
        method = posterior.removeprefix("calibrated-")
        parts = (("train", split.X_train), ("test", split.X_test))
        oof, posts = crossfit_staged(
            lambda: _posterior_model(posterior, variant, depth, max(rounds)),
            split.X_train,
            split.y_train,
            [X for _, X in parts],
            rounds,
        )
        cals = {t: fit_calibrator(oof[t], split.y_train, method) for t in rounds}
        return {part: {t: cals[t].predict_proba(P[t]) for t in rounds} for (part, _), P in zip(parts, posts)}
    model = _posterior_model(posterior, variant, depth, max(rounds)).fit(split.X_train, split.y_train)
    out = {}
    for part, X in (("train", split.X_train), ("test", split.X_test)):
        if posterior == "softmax":
            stages = (softmax(H, axis=1) for H in model.staged_risk_scores(X))
        else:
            stages = staged_posteriors(model, X)
        out[part] = _read_at(stages, rounds)
    return out


def _rebel_task(split: Split, C: np.ndarray, variant: dict, depth: int, rounds: list) -> dict:
    """{part: {t: class indices (N,)}} of REBEL trained with C."""
    model = RebelClassifier(cost_matrix=C, n_estimators=max(rounds), max_depth=depth, **variant)
    model.fit(split.X_train, split.y_train)
    out = {}
    for part, X in (("train", split.X_train), ("test", split.X_test)):
        staged = model.staged_class_indices(X)
        out[part] = {t: staged[min(t, model.n_estimators_)] for t in rounds}
    return out


def _bayes(split: Split, costs: list) -> dict:
    """{(part, cost_id): Bayes rule's mean cost} (NaN without the mixture)."""
    out = {}
    for part, X, y in (("train", split.X_train, split.y_train), ("test", split.X_test, split.y_test)):
        for j, C in enumerate(costs):
            known = split.mixture is not None
            out[(part, j)] = bayes_cost(split.mixture, X, split.classes[y], C) if known else np.nan
    return out


def dataset_rows(
    split: Split,
    costs: list,
    posterior: str = "sigma",
    variant: dict | None = None,
    depths=(1,),
    rounds=(100,),
    n_jobs: int | None = 2,
) -> list:
    """REBEL with each of ``costs`` against the two-step method with ``posterior``, both with ``variant`` at
    every depth of ``depths``, read after every round count of ``rounds``: rows of ``VERSUS_COLUMNS``."""
    variant, rounds = check_variant(variant), sorted({int(t) for t in rounds})
    tasks = []
    check_posterior(posterior)
    for depth in depths:
        tasks.append((("two", depth), _two_step_task, (split, posterior, variant, depth, rounds)))
        tasks += [
            (("reb", depth, j), _rebel_task, (split, C, variant, depth, rounds)) for j, C in enumerate(costs)
        ]
    results = run_tasks(tasks, n_jobs)
    bayes, rows = _bayes(split, costs), []
    ys = {"train": split.y_train, "test": split.y_test}
    for depth in depths:
        for j, C in enumerate(costs):
            for part, y in ys.items():
                for t in rounds:
                    P, pred = results[("two", depth)][part][t], results[("reb", depth, j)][part][t]
                    row = (
                        split.name,
                        j,
                        depth,
                        t,
                        part,
                        C[y, pred].mean(),
                        C[y, min_risk_class(P, C)].mean(),
                    )
                    rows.append((*row, C[y, np.argmax(P, axis=1)].mean(), bayes[(part, j)]))
    return rows


__all__ = [
    "PARTS",
    "POSTERIORS",
    "VARIANT_KEYS",
    "VERSUS_COLUMNS",
    "available_posteriors",
    "check_posterior",
    "check_variant",
    "checkpoints",
    "dataset_rows",
]
