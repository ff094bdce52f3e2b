"""The Playground's grids and per-round numbers: the class-index dtype a pair keeps, the grid of the regions, the
boosting weights (S.6), a model's test-set metrics at one round and staged classes made on first read; split from
``compute`` (which re-exports these names)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from rebel import budget
from rebel.costs import decompose
from rebel.estimator import RebelClassifier
from rebel.params import MAX_CLASSES
from rebel.ui.state import iter_staged_scores

GRID_SIZE = 200  # cells per axis of the decision-region grid
GRID_BUDGET = budget.limit_of("grid_cells", app=True)  # (T + 1) * cells per staged grid (int16): ~24 MB
GRID_PAD = 0.08  # grid margin around the data, as a fraction of its range
CLASS_DTYPE = np.uint8  # staged class indices kept by a TrainedPair: 1 byte a cell/point and round
if MAX_CLASSES - 1 > np.iinfo(CLASS_DTYPE).max:
    raise ImportError(
        f"rebel.params.MAX_CLASSES = {MAX_CLASSES} does not fit the Playground's {CLASS_DTYPE.__name__} class "
        "indices: lower MAX_CLASSES or widen CLASS_DTYPE in rebel/ui/playground/stages.py."
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
