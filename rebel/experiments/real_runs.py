"""Real-data runs (paper Fig. 4, 6): a bundled, sample or user's dataset, a cost matrix (uniform, random, taxonomy
by visual similarity for digits, a sample's suggested costs, the user's), and REBEL and the baselines' test cost
and error after every round (the calibrated two-step's once, for its final model). ``train_real_steps`` yields a
``RealRun`` after each model; ``train_real`` drives it with the one progress protocol (``progress(done, total,
label)``; False stops between models). No streamlit here.

Reads a ``Dataset``'s X_train/X_test (N, d) and labels; writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rebel import budget
from rebel.baselines import ESTIMATORS, available_estimators, make_estimator, staged_posteriors
from rebel.cost_presets import normalize_costs, random_costs, taxonomy_costs
from rebel.costs import min_risk_class, uniform_costs, validate_cost_matrix
from rebel.data import BUNDLED, SAMPLE_DIR, Dataset, load_bundled, load_sample
from rebel.estimator import RebelClassifier
from rebel.experiments.runner import Progress, drive
from rebel.minrisk import MinRiskClassifier

# --------------------------------------------------------------------------------------------------------------
# Real data: bundled and sample datasets, cost matrices, REBEL and baselines per round, risk examples
# --------------------------------------------------------------------------------------------------------------


def _sample_names() -> list:
    return sorted(p.stem for p in SAMPLE_DIR.glob("*.csv") if (SAMPLE_DIR / f"{p.stem}.json").is_file())


REAL_DATASETS = {
    **{name: text for name, text in BUNDLED.items()},
    **{name: "sample_data/" + name + ".csv (2-D Gaussian mixture)" for name in _sample_names()},
}
# Digits grouped by visual similarity of their strokes (a hand-made taxonomy, as CUB/SUN use theirs in Sec. 5.2):
# confusing two digits of one group costs 2 tree edges, digits of different groups 4.
DIGIT_TAXONOMY = {
    "digit": {
        "loops": ["0", "6", "8", "9"],
        "straight strokes": ["1", "4", "7"],
        "curved strokes": ["2", "3", "5"],
    }
}
REAL_METHODS = ("rebel", "adaboost_mh", "one_vs_all", "samme", "hgb", "lightgbm")
STUMP_ONLY = ("adaboost_mh", "one_vs_all")
TABLE_METHODS = ("rebel", "hgb", "lightgbm")  # the baselines that take missing values (and category codes)
CALIBRATED = "calibrated two-step"  # rebel.MinRiskClassifier on HistGradientBoosting, temperature-calibrated
CALIBRATED_FOLDS = 5  # its cross-fitting folds: one fit on all points and one per fold


def load_real(name: str, test_fraction: float = 0.25, seed: int = 0) -> Dataset:
    """A dataset of ``REAL_DATASETS``: scikit-learn's bundled data (stratified split) or a sample_data file."""
    if name in BUNDLED:
        return load_bundled(name, test_fraction, seed)
    if name in REAL_DATASETS:
        return load_sample(name)
    raise ValueError(f"dataset {name!r} is unknown; choose one of {list(REAL_DATASETS)}.")


def real_cost_kinds(dataset: Dataset) -> list:
    """The cost kinds that apply to ``dataset`` (taxonomy for digits, suggested for samples that carry costs)."""
    kinds = ["uniform", "random"]
    if dataset.name == "digits":
        kinds.append("taxonomy")
    if dataset.cost_matrix is not None:
        kinds.append("suggested")
    return kinds


def real_costs(kind: str, dataset: Dataset, seed: int = 0) -> np.ndarray:
    """The (K, K) cost matrix of ``kind`` for ``dataset``; random and taxonomy costs are normalised so that
    random guessing costs 1 under the training priors (as in the paper's SUN experiments)."""
    K = dataset.n_classes
    if kind not in real_cost_kinds(dataset):
        raise ValueError(
            f"cost kind {kind!r} does not apply to {dataset.name!r}; choose one of "
            f"{real_cost_kinds(dataset)}."
        )
    if kind == "uniform":
        return uniform_costs(K)
    if kind == "random":
        return normalize_costs(random_costs(K, np.random.default_rng([int(seed), K])), dataset.priors())
    if kind == "taxonomy":
        return normalize_costs(taxonomy_costs(DIGIT_TAXONOMY, dataset.classes), dataset.priors())
    return validate_cost_matrix(dataset.cost_matrix, n_classes=K)


@dataclass
class RealRun:
    """REBEL (trained with the costs) and two-step baselines on one dataset: test cost and error after every
    round (``curves``: method, t, test_cost, test_error) and REBEL's final test predictions and scores."""

    dataset: Dataset
    cost_matrix: np.ndarray
    curves: pd.DataFrame
    rebel: RebelClassifier | None
    rebel_scores: np.ndarray | None  # (N_test, K) H after the last round
    planned: int
    cancelled: bool = False
    notes: list = field(default_factory=list)

    @property
    def done(self) -> int:
        return self.curves["method"].nunique()

    @property
    def y_test_idx(self) -> np.ndarray:
        return self.dataset.class_index(self.dataset.y_test)

    def summary(self) -> pd.DataFrame:
        """Per method: test cost and error after the last round, and the lowest test cost over rounds (where)."""
        rows = []
        for method, g in self.curves.groupby("method", sort=False):
            best = g.loc[g["test_cost"].idxmin()]
            last = g.iloc[-1]
            rows.append(
                {
                    "method": method,
                    "test cost (last round)": last["test_cost"],
                    "error (last round)": last["test_error"],
                    "lowest test cost": best["test_cost"],
                    "at round": int(best["t"]),
                }
            )
        return pd.DataFrame(rows).set_index("method")


def method_name(name: str, training: str) -> str:
    """Display name: "REBEL (cost-sensitive)" or "<method> two-step"."""
    return f"{ESTIMATORS[name]} (cost-sensitive)" if training == "cost" else f"{ESTIMATORS[name]} two-step"


def _cost_curves(preds: np.ndarray, y: np.ndarray, C: np.ndarray) -> tuple:
    return C[y[None, :], preds].mean(axis=1), (preds != y[None, :]).mean(axis=1)


def calibrated_name() -> str:
    """Display name of the calibrated two-step (``CALIBRATED``)."""
    return f"{ESTIMATORS['hgb']} {CALIBRATED} (temperature)"


def runnable_methods(methods, table: bool = False) -> list:
    """The methods of ``methods`` that run here: installed, and for a table with missing values or categories
    (``table``) only those that take them (``TABLE_METHODS``)."""
    return [m for m in methods if m in available_estimators() and (not table or m in TABLE_METHODS)]


def real_cost(
    dataset: Dataset,
    methods=REAL_METHODS,
    n_rounds: int = 100,
    max_depth: int = 1,
    calibrated: bool = False,
    n_columns: int | None = None,
    table: bool = False,
) -> budget.RunCost:
    """The budget cost (``rebel.budget``) of ``train_real_steps`` before any work: REBEL with the costs and one
    fit per runnable method of ``methods`` on the training points (AdaBoost.MH and 1-vs-all with stumps), and
    with ``calibrated`` the calibrated two-step's 1 + ``CALIBRATED_FOLDS`` fits, each counted as a REBEL fit of
    its size. ``n_columns``: the engine's columns when they differ from the features (missing values and
    categories, ``rebel.columns``); ``table``: the data has some (fewer baselines run)."""
    N, d = dataset.X_train.shape
    d = d if n_columns is None else int(n_columns)
    K = dataset.n_classes
    runnable = runnable_methods(methods, table)

    def one(depth: int) -> budget.FitCost:
        return budget.params_cost(N, d, K, {"n_estimators": int(n_rounds), "max_depth": int(depth)})

    stumps = sum(m in STUMP_ONLY for m in runnable)
    extra = (1 + CALIBRATED_FOLDS) if calibrated else 0
    fits = [(1 + len(runnable) - stumps + extra, one(max_depth)), (stumps, one(1))]
    how = f"REBEL with the costs + {len(runnable)} two-step baseline(s)" + (
        f" + the {CALIBRATED} ({extra} fits)" if calibrated else ""
    )
    return budget.run_cost(fits, how)


def _with_categories(model, categorical):
    """``model`` told which features are categorical (REBEL and HistGradientBoosting take a boolean mask)."""
    if categorical is not None and np.any(categorical) and "categorical_features" in model.get_params():
        model.set_params(categorical_features=np.asarray(categorical, dtype=bool))
    return model


def _frame(name: str, t, cost, err) -> pd.DataFrame:
    return pd.DataFrame({"method": name, "t": t, "test_cost": cost, "test_error": err})


def train_real_steps(
    dataset: Dataset,
    cost_matrix,
    methods=REAL_METHODS,
    n_rounds: int = 100,
    max_depth: int = 1,
    app: bool = False,
    calibrated: bool = False,
    categorical=None,
    n_columns: int | None = None,
):
    """REBEL trained with ``cost_matrix``, then every method of ``methods`` (names of
    ``rebel.baselines.ESTIMATORS``; "rebel" there is REBEL with 0-1 costs) trained cost-blind and read as
    two-step (posterior + minimum-risk rule), one model at a time: yields a ``RealRun`` with the test cost and
    error after every round of each model done so far (first after REBEL). ``calibrated``: last, the
    calibrated two-step (``rebel.MinRiskClassifier`` on HistGradientBoosting of the same rounds and depth,
    temperature-calibrated by cross-fitting), one row at the last round (its posterior is calibrated once, for
    the final model). ``categorical``: a boolean mask of the features holding category codes (NaN: a missing
    value); with missing values or categories only the baselines that take them run (``TABLE_METHODS``).
    ``app``: refuse a run over the app's budget (``real_cost``, ``rebel.budget``) before any work;
    ``n_columns``: the engine's columns counted there."""
    C = validate_cost_matrix(cost_matrix, n_classes=dataset.n_classes)
    if len(dataset.y_test) == 0:
        raise ValueError("the dataset has no test points; give it a test split.")
    unknown = [m for m in methods if m not in ESTIMATORS]
    if unknown:
        raise ValueError(f"method {unknown[0]!r} is unknown; choose from {list(ESTIMATORS)}.")
    X_tr, X_te = dataset.X_train, dataset.X_test
    table = bool(np.any(categorical) if categorical is not None else False) or bool(
        np.isnan(X_tr).any() or np.isnan(X_te).any()
    )
    if app:
        cost = real_cost(dataset, methods, n_rounds, max_depth, calibrated, n_columns, table)
        budget.check_run(cost, app=True)
    notes = []
    runnable = runnable_methods(methods, table)
    if any(m not in available_estimators() for m in methods):
        notes.append("LightGBM is not installed, so it is left out.")
    if table and any(m not in TABLE_METHODS for m in methods):
        left = [ESTIMATORS[m] for m in methods if m not in TABLE_METHODS]
        notes.append(f"Left out: {', '.join(left)} (they take no missing values or categories).")
    if max_depth > 1 and any(m in STUMP_ONLY for m in runnable):
        notes.append("AdaBoost.MH and 1-vs-all AdaBoost use stumps by definition (depth 1).")
    y_tr, y_te = dataset.class_index(dataset.y_train), dataset.class_index(dataset.y_test)
    total = 1 + len(runnable) + int(calibrated)
    rebel = _with_categories(
        RebelClassifier(cost_matrix=C, n_estimators=n_rounds, max_depth=max_depth), categorical
    ).fit(X_tr, y_tr)
    cost, err = _cost_curves(rebel.staged_class_indices(X_te)[1:], y_te, C)
    frames = [_frame(method_name("rebel", "cost"), np.arange(1, len(cost) + 1), cost, err)]
    scores = rebel.risk_scores(X_te)

    def run() -> RealRun:
        curves = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
        return RealRun(dataset, C, curves, rebel, scores, total, cancelled=len(frames) < total, notes=notes)

    yield run()
    for name in runnable:
        depth = 1 if name in STUMP_ONLY else max_depth
        model = _with_categories(make_estimator(name, n_rounds, depth, random_state=0), categorical)
        model.fit(X_tr, y_tr)
        preds = np.array([min_risk_class(P, C) for P in staged_posteriors(model, X_te)])
        cost, err = _cost_curves(preds, y_te, C)
        frames.append(_frame(method_name(name, "0-1"), np.arange(1, len(cost) + 1), cost, err))
        yield run()
    if calibrated:
        posterior = _with_categories(make_estimator("hgb", n_rounds, max_depth, random_state=0), categorical)
        model = MinRiskClassifier(posterior, C, calibration="temperature", n_folds=CALIBRATED_FOLDS)
        pred = model.fit(X_tr, y_tr).predict(X_te)
        cost, err = _cost_curves(np.asarray(pred)[None, :], y_te, C)
        frames.append(_frame(calibrated_name(), [n_rounds], cost, err))
        yield run()


def train_real(
    dataset: Dataset, cost_matrix, methods=REAL_METHODS, progress: Progress | None = None, **settings
) -> RealRun:
    """``train_real_steps(dataset, cost_matrix, methods, **settings)`` to the end; ``progress(models done,
    models, "models")``, False stops between models."""
    steps = train_real_steps(dataset, cost_matrix, methods, **settings)
    return drive(steps, progress, lambda r: (r.done, r.planned), "models")[0]
