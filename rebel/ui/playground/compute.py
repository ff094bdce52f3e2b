"""View-model of the Playground page: both models trained on one problem, grids and metrics at round t.

- ``train_pair``: fits REBEL with the cost matrix and takes the two-step baseline of ``rebel.baselines``
  (REBEL with 0-1 costs as posterior estimator, then the minimum-expected-cost class) on one dataset, and
  evaluates REBEL's staged class on a grid. Fits go through the session's ``ModelCache`` when one is given, so
  the 0-1 model is reused across cost edits and other pages find the same REBEL model.
- ``TrainedPair`` holds the staged class indices of both on the grid, train and test points (t = 0 is after
  a0), the boosting weights per round (S.6), and ``metrics(t)`` (``StageMetrics``: test cost, error, regret,
  confusion matrix, per-class precision/recall).
- ``box_from_selection``: the dragged box of a plotly selection.
- ``replay_of``, ``rebel_points``, ``points_as_image`` (``replay_view``) and the tables, verdict and lessons
  (``results``), re-exported.

Reads the dataset's X_train/X_test (N, 2) and labels; writes nothing. No streamlit here.
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass

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
from rebel.costs import min_risk_class, validate_cost_matrix
from rebel.data import Dataset, bayes_min_risk, bayes_posterior
from rebel.estimator import RebelClassifier
from rebel.ui.config import content_key, dataset_key, validate_hyper
from rebel.ui.once import once_property
from rebel.ui.playground import shared_models
from rebel.ui.playground.stages import (  # noqa: F401 (split by stage; callers use ``pg.<name>``)
    CLASS_DTYPE,
    GRID_BUDGET,
    GRID_PAD,
    GRID_SIZE,
    Grid,
    StagedByModel,
    StageMetrics,
    boosting_weights,
    compact_classes,
    grid_size_for,
    make_grid,
    stage_metrics,
)
from rebel.ui.state import (
    SHARED_PAIRS,
    ClassIndices,
    ModelCache,
    SharedLRU,
    check_fits,
    fit_rebel,
    model_key,
)
from rebel.ui.work_slots import heavy_work

# ---------------------------------------------------------------------------------------------------------------
# Training both models and evaluating them on a grid
# ---------------------------------------------------------------------------------------------------------------

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

    @once_property
    def staged_train(self) -> StagedByModel:
        """Class indices on the training points, (T + 1, N_train) uint8 per model."""
        return self._staged_points(self.dataset.X_train)

    @once_property
    def staged_test(self) -> StagedByModel:
        """Class indices on the test points, (T + 1, N_test) uint8 per model."""
        return self._staged_points(self.dataset.X_test, keep=True)  # the numbers of every cost edit

    @once_property
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

    @once_property
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

    @once_property
    def weights(self) -> np.ndarray:
        """(T + 1, N_train) boosting weights of REBEL's training samples, mean 1 per stage."""
        return boosting_weights(self.rebel, self.dataset.X_train, self.y_train_idx, self.cost_matrix)

    @once_property
    def has_bayes(self) -> bool:
        return self.dataset.mixture is not None

    @once_property
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

    @once_property
    def bayes_regions(self) -> np.ndarray | None:
        """(ny, nx) Bayes-optimal min-risk class on the grid, or None without a known mixture."""
        if not self.has_bayes:
            return None
        return bayes_min_risk(self.dataset.mixture, self.grid.points, self.cost_matrix).reshape(
            self.grid.shape
        )

    @once_property
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

    @once_property
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
    with heavy_work("a Playground training"):  # one per core at once (``work_slots``)
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


train_pair = shared_models.one_build_at_a_time(train_pair)  # a class opening one link trains it once


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


# split by stage: the results in tables and words, the regions figure (re-exported: callers use ``pg.<name>``)
from rebel.ui.playground.replay_view import (  # noqa: F401
    POINTS_IMAGES,
    REPLAY_TITLE,
    REPLAY_VIEWS,
    points_as_image,
    points_png_cached,
    rebel_points,
    replay_of,
    round_numbers,
)
from rebel.ui.playground.results import (  # noqa: F401
    PRESET_LESSONS,
    PRESET_ORDER,
    RANDOM_LESSON,
    TIE,
    class_table,
    comparison_table,
    preset_lesson,
    preset_order,
    verdict,
)
