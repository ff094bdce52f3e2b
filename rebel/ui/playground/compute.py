"""View-model of the Playground page: both models trained on one problem, grids and metrics at round t.

- ``train_pair``: fits REBEL with the cost matrix and takes the two-step baseline of ``rebel.baselines``
  (REBEL with 0-1 costs as posterior estimator, then the minimum-expected-cost class) on one dataset, and
  evaluates REBEL's staged class on a grid. Fits go through the session's ``ModelCache`` when one is given, so
  the 0-1 model is reused across cost edits and other pages find the same REBEL model.
- ``TrainedPair`` holds the staged class indices of both on the grid, train and test points (t = 0 is after
  a0), the boosting weights per round (S.6), and ``metrics(t)`` (``StageMetrics``: test cost, error, regret,
  confusion matrix, per-class precision/recall).
- ``box_from_selection``: the dragged box of a plotly selection.
- ``replay_of``: the regions figure; ``points_as_image``: its data points as one image (drawn once per dataset
  and plot size) instead of one SVG marker each.

Reads the dataset's X_train/X_test (N, 2) and labels; writes nothing. No streamlit here.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from sklearn.frozen import FrozenEstimator

from rebel import budget
from rebel.baselines import (
    TwoStepClassifier,
    min_risk_stages,
    staged_min_risk_indices,
    staged_min_risk_posteriors,
)
from rebel.costs import decompose, min_risk_class, validate_cost_matrix
from rebel.data import Dataset, bayes_min_risk, bayes_posterior
from rebel.estimator import RebelClassifier
from rebel.params import MAX_CLASSES
from rebel.ui.config import content_key, dataset_key, validate_hyper
from rebel.ui.state import (
    SHARED_PAIRS,
    ClassIndices,
    ModelCache,
    SharedLRU,
    check_fits,
    fit_rebel,
    iter_staged_scores,
    model_key,
)
from rebel.ui.text import Markdown, md

GRID_SIZE = 200  # cells per axis of the decision-region grid
GRID_BUDGET = budget.limit_of("grid_cells", app=True)  # (T + 1) * cells per staged grid (int16): ~24 MB
GRID_PAD = 0.08  # grid margin around the data, as a fraction of its range
CLASS_DTYPE = np.uint8  # staged class indices kept by a TrainedPair: 1 byte a cell/point and round
if MAX_CLASSES - 1 > np.iinfo(CLASS_DTYPE).max:
    raise ImportError(
        f"rebel.params.MAX_CLASSES = {MAX_CLASSES} does not fit the Playground's {CLASS_DTYPE.__name__} class "
        "indices: lower MAX_CLASSES or widen CLASS_DTYPE in rebel/ui/playground/compute.py."
    )


def compact_classes(indices: np.ndarray, n_classes: int) -> np.ndarray:
    """Class indices (any integer dtype, values 0..n_classes-1) as ``CLASS_DTYPE``, the dtype a ``TrainedPair``
    keeps: half the memory of the engine's int16. Refuses a class count the dtype cannot hold."""
    if n_classes - 1 > np.iinfo(CLASS_DTYPE).max:
        raise ValueError(
            f"n_classes = {n_classes} does not fit {CLASS_DTYPE.__name__} class indices; REBEL Explorer takes at "
            f"most {MAX_CLASSES} classes."
        )
    return np.asarray(indices).astype(CLASS_DTYPE, copy=False)


# ---------------------------------------------------------------------------------------------------------------
# Training both models and evaluating them on a grid
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """A regular grid over the plane: ``xs`` (nx,), ``ys`` (ny,), ``points`` (ny * nx, 2) in row-major order."""

    xs: np.ndarray
    ys: np.ndarray

    @property
    def points(self) -> np.ndarray:
        gx, gy = np.meshgrid(self.xs, self.ys)
        return np.column_stack([gx.ravel(), gy.ravel()])

    @property
    def shape(self) -> tuple:
        return (self.ys.shape[0], self.xs.shape[0])


def grid_size_for(n_estimators: int, size: int = GRID_SIZE) -> int:
    """Cells per axis: ``size``, reduced for long runs so the staged grid stays within ``GRID_BUDGET``."""
    return int(min(size, max(60, np.sqrt(GRID_BUDGET / (n_estimators + 1)))))


def make_grid(X, n: int = GRID_SIZE, pad: float = GRID_PAD) -> Grid:
    """An n x n grid covering the points X with a margin of ``pad`` times the range on each side."""
    X = np.asarray(X, dtype=np.float64)
    lo, hi = X.min(axis=0), X.max(axis=0)
    margin = np.maximum(hi - lo, 1e-6) * pad
    lo, hi = lo - margin, hi + margin
    return Grid(np.linspace(lo[0], hi[0], n), np.linspace(lo[1], hi[1], n))


def boosting_weights(model: RebelClassifier, X, y_idx, cost_matrix) -> np.ndarray:
    """Weight of each training sample at t = 0..T, ``sum_k c+_nk e^{H_nk} + c-_nk e^{-H_nk}`` (S.6), each stage
    normalised to mean 1. Shape (T + 1, N) float32, filled one round at a time (the scores of one round only)."""
    d = decompose(np.asarray(cost_matrix)[np.asarray(y_idx)])
    budget.check_staged(model.n_estimators_, np.shape(X)[0])
    out = np.empty((model.n_estimators_ + 1, np.shape(X)[0]), dtype=np.float32)
    for t, H in enumerate(iter_staged_scores(model, X)):
        Hc = np.clip(H, -300, 300)
        w = (d.cp * np.exp(Hc) + d.cm * np.exp(-Hc)).sum(axis=1)
        out[t] = w / max(w.mean(), np.finfo(np.float64).tiny)
    return out


@dataclass
class StageMetrics:
    """Test-set numbers of one model at one iteration t."""

    cost: float
    error: float
    regret: float | None
    confusion: np.ndarray  # (K, K) counts, rows = truth, columns = prediction
    cost_share: np.ndarray  # (K, K) each cell's contribution to the mean test cost
    precision: np.ndarray  # (K,) NaN where a class is never predicted
    recall: np.ndarray  # (K,) NaN where a class has no test points


def stage_metrics(y_idx, pred_idx, cost_matrix, bayes_cost: float | None = None) -> StageMetrics:
    """Cost-weighted confusion matrix, per-class precision/recall, test cost, error rate and regret vs Bayes."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    K = C.shape[0]
    y_idx, pred_idx = np.asarray(y_idx, dtype=np.int64), np.asarray(pred_idx, dtype=np.int64)
    counts = np.zeros((K, K), dtype=np.int64)
    np.add.at(counts, (y_idx, pred_idx), 1)
    n = max(len(y_idx), 1)
    share = counts * C / n
    cost = float(share.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.diag(counts) / counts.sum(axis=0)
        recall = np.diag(counts) / counts.sum(axis=1)
    return StageMetrics(
        cost,
        float(np.mean(y_idx != pred_idx)) if len(y_idx) else 0.0,
        None if bayes_cost is None else cost - bayes_cost,
        counts,
        share,
        precision,
        recall,
    )


class StagedByModel(Mapping):
    """Staged class indices per model ("REBEL", "two-step"), each computed on first read and kept: a mapping
    like a dict, whose values are made by the functions given (a lock makes each one once, even when sessions
    sharing a pair read it together)."""

    def __init__(self, makers: dict):
        self._makers = dict(makers)
        self._values: dict = {}
        self._lock = threading.Lock()

    def __getitem__(self, model: str) -> np.ndarray:
        if model not in self._values:
            make = self._makers[model]  # KeyError for an unknown model, as a dict
            with self._lock:
                if model not in self._values:
                    self._values[model] = make()
        return self._values[model]

    def __iter__(self):
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


# What the 0-1 model (the two-step method's posterior estimator, costs ignored) shows on fixed points is the same
# for every cost matrix: it is kept with the model object (the session's ModelCache reuses it across cost edits)
# and dropped with it. Per model: the test points' staged classes and staged posteriors (up to
# ``KEEP_POSTERIORS_BYTES``; 1.2 MB for the airport preset) and two rounds of the grid (a few 100 kB).
_ZERO_ONE_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
KEEP_POSTERIORS_BYTES = 4_000_000
_ZERO_ONE_LOCK = threading.Lock()


def zero_one_kept(model, key: tuple, make):
    """The value kept for the 0-1 ``model`` under ``key``, made by ``make()`` (and kept) if there is none."""
    with _ZERO_ONE_LOCK:
        found = _ZERO_ONE_KEPT.get(model, {}).get(key)
    if found is None:
        found = make()
        zero_one_keep(model, key, found)
    return found


def zero_one_keep(model, key: tuple, value) -> None:
    with _ZERO_ONE_LOCK:
        _ZERO_ONE_KEPT.setdefault(model, {})[key] = value


@dataclass
class TrainedPair(ClassIndices):
    """REBEL and the two-step baseline fitted on one dataset and cost matrix, evaluated on a grid.

    Staged arrays have one row per t = 0..T (t = 0 is a0 only), class indices as ``CLASS_DTYPE`` (uint8). Heavy
    results that not every view needs (the two-step regions, boosting weights) are computed on first use and
    kept; the 0-1 model's grid is kept for a few rounds only (``blind_region``: the views show one round of it).
    """

    dataset: Dataset
    cost_matrix: np.ndarray
    hyper: dict
    rebel: RebelClassifier
    two_step: TwoStepClassifier  # rebel.baselines' two-step around the frozen 0-1 REBEL model
    grid: Grid
    regions: np.ndarray  # (T + 1, ny, nx) uint8 (CLASS_DTYPE): REBEL's min-risk class on the grid
    fit_seconds: float  # REBEL fit + staged grid (what the user waits for)
    baseline_seconds: float
    key: str = ""

    @property
    def n_rounds(self) -> int:
        return self.rebel.n_estimators_

    @property
    def posterior_model(self) -> RebelClassifier:
        """The two-step method's posterior estimator: REBEL trained with 0-1 costs."""
        return self.two_step.estimator_.estimator

    @property
    def classes(self) -> tuple:
        return self.dataset.classes

    def _compact(self, indices: np.ndarray) -> np.ndarray:
        return compact_classes(indices, len(self.classes))

    def _staged_points(self, X, keep: bool = False) -> StagedByModel:
        """Class indices of both models on the points X, (T + 1, N) ``CLASS_DTYPE`` per model, each computed
        when first read (the regions replay reads REBEL's training points only); with ``keep`` the two-step
        method's posteriors on X are kept with the 0-1 model (``_two_step_staged``)."""
        if X.shape[0] == 0:
            empty = np.empty((self.n_rounds + 1, 0), dtype=CLASS_DTYPE)
            return StagedByModel({"REBEL": lambda: empty, "two-step": lambda: empty})
        return StagedByModel(
            {
                "REBEL": lambda: self._compact(self.rebel.staged_class_indices(X)),
                "two-step": lambda: self._compact(
                    self._two_step_staged(X)
                    if keep
                    else staged_min_risk_indices(self.posterior_model, X, self.cost_matrix)
                ),
            }
        )

    def _two_step_staged(self, X) -> np.ndarray:
        """The two-step method's class on the points X after every round (``staged_min_risk_indices``). The 0-1
        model's posteriors on them do not depend on the costs: they are kept with that model (up to
        ``KEEP_POSTERIORS_BYTES``), so a cost edit only takes the cheapest class of each round's posteriors."""
        size = (self.n_rounds + 1) * X.shape[0] * len(self.classes) * 8
        if size > KEEP_POSTERIORS_BYTES:
            return staged_min_risk_indices(self.posterior_model, X, self.cost_matrix)
        return min_risk_stages(self.posteriors_kept(X), self.cost_matrix, X.shape[0])

    def posteriors_kept(self, X) -> list:
        """The 0-1 model's posteriors on X after every round, [(N, K)] * (T + 1), kept with that model."""
        make = lambda: [np.array(P) for P in staged_min_risk_posteriors(self.posterior_model, X)]
        return zero_one_kept(self.posterior_model, ("posteriors", X.tobytes()), make)

    @cached_property
    def staged_train(self) -> StagedByModel:
        """Class indices on the training points, (T + 1, N_train) uint8 per model."""
        return self._staged_points(self.dataset.X_train)

    @cached_property
    def staged_test(self) -> StagedByModel:
        """Class indices on the test points, (T + 1, N_test) uint8 per model."""
        return self._staged_points(self.dataset.X_test, keep=True)  # the numbers of every cost edit

    @cached_property
    def two_step_regions(self) -> np.ndarray:
        """(T + 1, ny, nx) uint8: the two-step model's min-risk class on the grid."""
        S = staged_min_risk_indices(self.posterior_model, self.grid.points, self.cost_matrix)
        return self._compact(S).reshape(-1, *self.grid.shape)

    def blind_region(self, t: int) -> np.ndarray:
        """(ny, nx) uint8: the most likely class of the 0-1 model (costs ignored) on the grid at round t.

        The views show one round of it at a time, so only the last round and the most recently asked one are
        kept (2 grids, not T + 1); another round costs one staged pass of the 0-1 model over the grid.
        """
        t = self.clamp(t)
        kept = self.blind_rounds
        if t not in kept:
            S = self.posterior_model.staged_class_indices(self.grid.points)
            T = self.n_rounds
            fresh = {T: self._compact(S[T]).reshape(self.grid.shape)}
            fresh[t] = self._compact(S[t]).reshape(self.grid.shape)
            zero_one_keep(self.posterior_model, self._grid_key, fresh)  # replaced whole: never half-filled
            kept = fresh
        return kept[t]

    @property
    def _grid_key(self) -> tuple:
        return ("grid", self.grid.xs.tobytes(), self.grid.ys.tobytes())

    @property
    def blind_rounds(self) -> dict:
        """The rounds of the 0-1 model's grid kept now, {t: (ny, nx) uint8} (kept with the 0-1 model, so a cost
        edit, which keeps that model, finds them)."""
        return zero_one_kept(self.posterior_model, self._grid_key, dict)

    @cached_property
    def blind_test(self) -> np.ndarray:
        """(T + 1, N_test) uint8: the 0-1 model's most likely class on the test points (costs ignored)."""
        X = self.dataset.X_test
        if X.shape[0] == 0:
            return np.empty((self.n_rounds + 1, 0), dtype=CLASS_DTYPE)
        return zero_one_kept(
            self.posterior_model,
            ("test", X.tobytes()),
            lambda: self._compact(self.posterior_model.staged_class_indices(X)),
        )

    def blind_cost(self, t: int) -> float:
        """Test cost, under the user's costs, of ignoring them: the 0-1 model's most likely class at t."""
        return float(self.test_costs["blind"][self.clamp(t)])

    @cached_property
    def weights(self) -> np.ndarray:
        """(T + 1, N_train) boosting weights of REBEL's training samples, mean 1 per stage."""
        return boosting_weights(self.rebel, self.dataset.X_train, self.y_train_idx, self.cost_matrix)

    @cached_property
    def has_bayes(self) -> bool:
        return self.dataset.mixture is not None

    @cached_property
    def bayes_test_predictions(self) -> np.ndarray | None:
        """Bayes-optimal min-risk class (known mixture) of each test point, or None."""
        if not self.has_bayes or self.dataset.X_test.shape[0] == 0:
            return None
        # ``bayes_min_risk`` in two steps: the posteriors (the same under every cost matrix) are kept with the 0-1
        # model, which lives as long as this dataset and these settings; a cost edit only takes the cheapest class.
        posterior = self.bayes_test_posteriors
        return min_risk_class(posterior, validate_cost_matrix(self.cost_matrix, n_classes=posterior.shape[1]))

    @property
    def bayes_test_posteriors(self) -> np.ndarray:
        """(N_test, K) posteriors of the known mixture on the test points (kept with the 0-1 model)."""
        X = self.dataset.X_test
        return zero_one_kept(
            self.posterior_model, ("bayes", X.tobytes()), lambda: bayes_posterior(self.dataset.mixture, X)
        )

    @property
    def bayes_test_cost(self) -> float | None:
        """Test cost of the Bayes-optimal rule on the same test points (the floor of the regret), or None."""
        pred = self.bayes_test_predictions
        return None if pred is None else float(self.cost_matrix[self.y_test_idx, pred].mean())

    @property
    def bayes_test_error(self) -> float | None:
        pred = self.bayes_test_predictions
        return None if pred is None else float(np.mean(self.y_test_idx != pred))

    @cached_property
    def bayes_regions(self) -> np.ndarray | None:
        """(ny, nx) Bayes-optimal min-risk class on the grid, or None without a known mixture."""
        if not self.has_bayes:
            return None
        return bayes_min_risk(self.dataset.mixture, self.grid.points, self.cost_matrix).reshape(
            self.grid.shape
        )

    @cached_property
    def curves(self) -> pd.DataFrame:
        """Mean train and test cost of both models for t = 0..T (long format: t, model, split, cost)."""
        frames = []
        for split, staged, y in (
            ("train", self.staged_train, self.y_train_idx),
            ("test", self.staged_test, self.y_test_idx),
        ):
            if len(y) == 0:
                continue
            for model, S in staged.items():
                cost = self.cost_matrix[y[None, :], S].mean(axis=1)
                frames.append(
                    pd.DataFrame({"t": np.arange(len(cost)), "model": model, "split": split, "cost": cost})
                )
        return pd.concat(frames, ignore_index=True)

    @cached_property
    def test_costs(self) -> dict:
        """Mean test cost per round t = 0..T, (T + 1,) each: "REBEL", "two-step" and "blind" (the 0-1 model's
        most likely class, costs ignored); zeros without test points."""
        y = self.y_test_idx
        if len(y) == 0:
            zero = np.zeros(self.n_rounds + 1)
            return {"REBEL": zero, "two-step": zero, "blind": zero}
        out = {m: self.cost_matrix[y[None, :], S].mean(axis=1) for m, S in self.staged_test.items()}
        out["blind"] = self.cost_matrix[y[None, :], self.blind_test].mean(axis=1)
        return out

    def clamp(self, t: int) -> int:
        return int(min(max(int(t), 0), self.n_rounds))

    def test_cost(self, t: int, model: str = "REBEL") -> float:
        """Mean test cost of ``model`` ("REBEL" or "two-step") after t rounds (``metrics(t, model).cost``)."""
        return self.metrics(t, model).cost

    def metrics(self, t: int, model: str = "REBEL") -> StageMetrics:
        """Test-set metrics of ``model`` ("REBEL" or "two-step") after t rounds."""
        return stage_metrics(
            self.y_test_idx, self.staged_test[model][self.clamp(t)], self.cost_matrix, self.bayes_test_cost
        )

    def train_predictions(self, t: int, model: str = "REBEL") -> np.ndarray:
        return self.staged_train[model][self.clamp(t)]

    def test_predictions(self, t: int, model: str = "REBEL") -> np.ndarray:
        return self.staged_test[model][self.clamp(t)]


TRAINING = "Training REBEL and the two-step baseline…"


def training_message(dataset: Dataset, fit_params: dict) -> str:
    """The spinner's text for a Playground training: ``TRAINING``, or first the engine's cold-compile notice
    (with its estimate) when the numba cache lacks a kernel this fit runs: a first use, or a new number of
    classes (the round loop compiles once per K). Cheap: it reads the cache's index files."""
    from rebel.kernels import train_in_parallel
    from rebel.warmup import cold_compile_notice

    n, d = dataset.X_train.shape
    K = dataset.n_classes
    parallel = train_in_parallel(n, d, K, int(fit_params.get("max_depth", 1)))
    key = (fit_params.get("loss", "exp"), fit_params.get("leaves", "binary"), parallel, K)
    if key in _WARM_FITS:  # the cache only grows while the server runs: no need to read its index again
        return TRAINING
    notice = cold_compile_notice(*key)
    if notice is None:
        _WARM_FITS.add(key)
        return TRAINING
    return f"{notice.rstrip('.')} for {K} classes, then training…"


_WARM_FITS: set = set()  # (loss, leaves, parallel, K) of fits whose kernels this process found cached


def check_pair_budget(dataset: Dataset, fit_params: dict, n_cells: int) -> None:
    """Refuse a Playground training over the app's budget (``rebel.budget``) before any work: each of the two
    fits (and both together), and the staged arrays kept (every round's class of every point and grid cell)."""
    check_fits(dataset, fit_params, 2)
    n_points = dataset.X_train.shape[0] + dataset.X_test.shape[0]
    budget.check_staged(fit_params["n_estimators"], n_points, n_cells=n_cells)


def train_pair(
    dataset: Dataset,
    cost_matrix,
    hyper: dict,
    grid_size: int | None = None,
    cache: ModelCache | None = None,
    engine: dict | None = None,
    shared: SharedLRU | None = None,
) -> TrainedPair:
    """Fit REBEL (with ``cost_matrix``) and the two-step baseline (0-1 costs) with the same hyper-parameters and
    engine options (``engine``, e.g. ``{"leaves": "vector"}``; ``rebel.ui.variants.engine_options``); evaluate
    REBEL's staged min-risk class on a grid over all points (the regions animation). With ``cache``, both fits
    are looked up (and stored) under ``model_key`` first.

    ``shared`` (default: the process-wide ``SHARED_PAIRS`` when a session ``cache`` is given, else none): the
    whole pair is looked up there first by its content key (``shared_pair_key``) and stored there after a
    training, so sessions on one configuration share one pair; its regions grid is made read-only."""
    hyper = validate_hyper(hyper)
    fit_params = {**hyper, **(engine or {})}
    C = validate_cost_matrix(cost_matrix, n_classes=dataset.n_classes)
    missing = sorted(set(dataset.classes) - set(dataset.y_train))
    if missing:
        raise ValueError(f"class {missing[0]!r} has no training points; add some or remove the class.")
    n_grid = grid_size or grid_size_for(hyper["n_estimators"])
    check_pair_budget(dataset, fit_params, n_grid**2)
    shared = SHARED_PAIRS if shared is None and cache is not None else shared
    cache = ModelCache() if cache is None else cache
    X_all = np.vstack([dataset.X_train, dataset.X_test]) if dataset.X_test.shape[0] else dataset.X_train
    grid = make_grid(X_all, n_grid)
    key = pair_key(dataset, C, fit_params, grid.shape)
    shared_key = shared_pair_key(key, dataset)
    found = None if shared is None else shared.get(shared_key)
    if found is not None:  # another session's pair: its models join this session's cache for the other pages
        cache.put(model_key(dataset, C, fit_params), found.rebel)
        cache.put(model_key(dataset, None, fit_params), found.posterior_model)
        return found
    start = time.perf_counter()
    rebel = cache.get_or_fit(model_key(dataset, C, fit_params), lambda: fit_rebel(dataset, C, fit_params))
    regions = compact_classes(rebel.staged_class_indices(grid.points), dataset.n_classes).reshape(
        -1, *grid.shape
    )
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    blind = cache.get_or_fit(
        model_key(dataset, None, fit_params), lambda: fit_rebel(dataset, None, fit_params)
    )
    two_step = TwoStepClassifier(FrozenEstimator(blind), C).fit(dataset.X_train, dataset.y_train)
    baseline_seconds = time.perf_counter() - start
    pair = TrainedPair(dataset, C, hyper, rebel, two_step, grid, regions, fit_seconds, baseline_seconds, key)
    if shared is None:
        return pair
    regions.flags.writeable = False  # shared by sessions: nobody may draw into it
    return shared.put(shared_key, pair)


def pair_key(dataset: Dataset, C: np.ndarray, fit_params: dict, grid_shape: tuple) -> str:
    """The content key of the pair ``train_pair`` makes of these (its validated costs and fit options)."""
    return content_key("pair", dataset_key(dataset), C, fit_params, grid_shape)


def shared_pair_key(pair_key: str, dataset: Dataset) -> str:
    """Key of a pair in the process-wide store: its content key (points, labels, classes, costs, fit options,
    grid) plus what else of the dataset the views show (name, story, feature names, known mixture and spec)."""
    mixture = None if dataset.mixture is None else dataset.mixture.to_json()
    spec = None if dataset.spec is None else dataset.spec.to_dict()
    return content_key(pair_key, dataset.name, dataset.story, list(dataset.feature_names), mixture, spec)


def box_from_selection(selection) -> tuple | None:
    """The last dragged box of a plotly selection state (``{"box": [{"x": [x0, x1], "y": [y0, y1]}, ...]}``) as
    ``((x0, x1), (y0, y1))``, or None when there is no usable box."""
    try:
        boxes = selection["box"] if isinstance(selection, dict) else selection.box
    except (AttributeError, KeyError, TypeError):
        return None
    for box in reversed(list(boxes or [])):
        try:
            xs, ys = [float(v) for v in box["x"]], [float(v) for v in box["y"]]
        except (KeyError, TypeError, ValueError):
            continue
        if len(xs) >= 2 and len(ys) >= 2 and np.all(np.isfinite(xs + ys)):
            return (min(xs), max(xs)), (min(ys), max(ys))
    return None


def round_numbers(pair: TrainedPair) -> dict:
    """Every number of the first screen that depends on the round, for t = 0..T at once (the replay figure's
    frames carry them, so the round slider moves picture and numbers together): the test costs of REBEL, the
    two-step method and ignoring the costs, the Bayes rule's (or None) and the verdict's tie margin."""
    return {**pair.test_costs, "Bayes": pair.bayes_test_cost, "tie": TIE}


REPLAY_TITLE = (
    "REBEL's minimum-risk class"  # heads the replay's numbers (the browser's cost edits write it too)
)
REPLAY_VIEWS = {"weights": False, "two": False, "dis": False, "bayes": False}  # the overlays off


def replay_of(
    pair: TrainedPair, start: int, show: Mapping | None = None, height=None, projector=False, narrow=False
):
    """The Playground's regions figure of ``pair`` (``replay.replay_figure``) at round ``start``: ``show`` the
    overlays on (``REPLAY_VIEWS``), ``height`` the plot's box in px (None: measured), ``projector`` (``narrow``:
    a box narrower than high) the presentation layout. The page and ``bench_plot_draw`` draw it."""
    from rebel.ui.figures import regions, replay

    show = {**REPLAY_VIEWS, **(show or {})}
    ds = pair.dataset
    return replay.replay_figure(
        pair.grid.xs,
        pair.grid.ys,
        pair.regions,
        ds.classes,
        train=(ds.X_train, pair.y_train_idx, pair.staged_train["REBEL"]),
        test=(ds.X_test, pair.y_test_idx, pair.staged_test["REBEL"]),
        train_sizes=regions.weight_sizes(pair.weights) if show["weights"] else None,
        other_regions=pair.two_step_regions if (show["two"] or show["dis"]) else None,
        show_other=show["two"],
        show_disagreement=show["dis"],
        bayes_regions=pair.bayes_regions if show["bayes"] else None,
        title=REPLAY_TITLE,
        start=start,
        height=height,
        numbers=round_numbers(pair),
        projector=projector,
        axis_names=ds.feature_names,
        narrow=narrow,
    )


POINTS_IMAGES = SharedLRU(16, 32 * 1024 * 1024)
"""The points images of the last few datasets and plot sizes (~50-200 kB each), shared by the sessions."""


def points_png_cached(layers, x_range, y_range, shape_px: tuple, scale: float = 1.0) -> bytes:
    """``point_raster.points_png`` (top row first, for plotly's layout image) kept in ``POINTS_IMAGES``: the
    points do not change when the costs or the engine's settings do, so a cost edit draws none. Raises
    ``BudgetError`` over ``budget``'s ``points_image_pixels``, before any drawing."""
    from rebel.ui.figures import point_raster

    budget.check("points_image_pixels", int(shape_px[0]) * int(shape_px[1]), app=True)
    key = point_raster.points_key(layers, x_range, y_range, shape_px, scale)
    png = POINTS_IMAGES.get(key)
    if png is None:
        png = POINTS_IMAGES.put(key, point_raster.points_png(layers, x_range, y_range, shape_px, scale))
    return png


def points_as_image(fig) -> bool:
    """The data points of a regions figure (``replay_of``, sized) as one image under hover-only traces
    (``replay.points_as_image``): ~60 ms less for the browser to draw on every new figure. The image is drawn
    once per dataset and plot size (``points_png_cached``). Returns whether it was done (not when the figure's
    size is not fixed or the marker sizes follow the boosting weights)."""
    from rebel.ui.figures import replay

    return replay.points_as_image(fig, points_png_cached)


def comparison_table(pair: TrainedPair, t: int) -> pd.DataFrame:
    """Test cost and error rate of REBEL and the two-step method at t (and regret and the Bayes rule's row
    when the mixture is known): rows = method."""
    rows = {"REBEL": pair.metrics(t, "REBEL"), "two-step": pair.metrics(t, "two-step")}
    table = pd.DataFrame(
        {"test cost": [r.cost for r in rows.values()], "error rate": [r.error for r in rows.values()]},
        index=list(rows),
    )
    if pair.bayes_test_cost is not None:  # regret needs the Bayes rule, known only for designed mixtures
        table["regret"] = [r.regret for r in rows.values()]
        table.loc["Bayes rule"] = [pair.bayes_test_cost, pair.bayes_test_error, 0.0]
    return table


def class_table(pair: TrainedPair, t: int) -> pd.DataFrame:
    """Per class: precision and recall of REBEL and of the two-step method at t on the test points."""
    rebel_m, two_m = pair.metrics(t, "REBEL"), pair.metrics(t, "two-step")
    return pd.DataFrame(
        {
            "class": [str(c) for c in pair.classes],
            "REBEL prec.": rebel_m.precision,
            "REBEL recall": rebel_m.recall,
            "2-step prec.": two_m.precision,
            "2-step recall": two_m.recall,
        }
    )


TIE = 0.002  # test costs closer than this count as a tie in the verdict

# Presets in teaching order, each with what it shows under the app's default settings (depth-2 trees, 100
# rounds; measured on the presets' fixed test points, see tests/test_playground.py).
PRESET_ORDER = ("airport", "fig7", "paths", "xor", "rings", "imbalanced")
PRESET_LESSONS = {
    "airport": (
        "With the default settings the two-step method is cheaper here (test cost about 0.30 against REBEL's "
        "0.35), and both are far cheaper than ignoring the costs (about 0.70). The verdict says why."
    ),
    "fig7": (
        "Here training with the costs pays: REBEL's regions move towards the costly class C and its test cost "
        "is lower than the two-step method's (about 0.23 against 0.25; ignoring the costs: about 0.51)."
    ),
    "paths": (
        "The two-step method is cheaper here with depth-2 trees (about 0.10 against 0.13); with stumps (Tree "
        "depth 1) REBEL is slightly cheaper."
    ),
    "xor": "A tie with depth-2 trees (both about 0.18). With stumps neither method can separate XOR.",
    "rings": "Nearly a tie with depth-2 trees (both about 0.14).",
    "imbalanced": "The two-step method is cheaper here (about 0.32 against 0.35).",
}
RANDOM_LESSON = (
    "A random mixture with random costs, as in the paper's Fig. 3 protocol; in this project's reproduction the "
    "two-step method was cheaper in most such trials (the REBEL vs two-step page reruns them)."
)


def preset_order(names) -> list:
    """Preset names in teaching order: ``PRESET_ORDER`` first, then the rest as given."""
    names = list(names)
    return [n for n in PRESET_ORDER if n in names] + [n for n in names if n not in PRESET_ORDER]


def preset_lesson(name: str) -> str:
    return PRESET_LESSONS.get(name, RANDOM_LESSON if name.startswith("random") else "")


def verdict(pair: TrainedPair, t: int) -> Markdown:
    """The comparison at round t in plain words (Markdown; numbers only, no user text): who is cheaper on the
    test points and why, against ignoring the costs and against the Bayes rule when it is known."""
    r, s = pair.test_cost(t, "REBEL"), pair.test_cost(t, "two-step")
    if r < s - TIE:
        lines = [
            md(
                "**REBEL is cheaper here** than the two-step method ({:.3f} against {:.3f} per test point): trained "
                "with the costs, it "
                "spent its weak learners on the boundaries where mistakes are expensive.",
                r,
                s,
            )
        ]
    elif r > s + TIE:
        lines = [
            md(
                "**The two-step method is cheaper here** ({:.3f} against REBEL's {:.3f}): it learns class "
                "probabilities with 0-1 costs and applies your costs exactly at decision time, which is hard to "
                "beat when the probabilities are well calibrated. In this project's rerun of the paper's Fig. 3 "
                "it won most random trials (the REBEL vs two-step page reruns them).",
                s,
                r,
            )
        ]
    else:
        lines = [md("**A tie**: both cost about {:.3f} per test point.", r)]
    lines.append(
        md("Ignoring the costs (0-1 training, most likely class) would cost {:.3f}.", pair.blind_cost(t))
    )
    if pair.bayes_test_cost is not None:
        b = pair.bayes_test_cost
        lines.append(
            md(
                "The best possible rule (Bayes) costs {:.3f}: REBEL is {:+.3f} above it, two-step {:+.3f}.",
                b,
                r - b,
                s - b,
            )
        )
    return md(" ").join(lines)
