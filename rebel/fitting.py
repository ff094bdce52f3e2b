"""What ``RebelClassifier.fit`` does between validated inputs and the fitted arrays: sample weights, the
validation split and early stopping (scored by validation *cost*), and the choice of round loop (paper mode in
``rebel.booster.boost``, the variants in ``rebel.variants.boost_variant``).

Reads X (N, d), class indices (N,), cost rows (N, K) and optional sample weights (N,); writes a ``Fitted``
record of plain ndarrays (thresholds, usable features, the ``BoostResult``, the validation costs).
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import budget
from . import kernels as kern
from ._threading import parallel_guard
from .binning import bin_data, fit_thresholds
from .booster import BoostInputs, BoostResult, boost
from .costs import scaled_cost_rows
from .variants import boost_variant


def weighted_cost_rows(cost_rows: np.ndarray, sample_weight, n_samples: int) -> np.ndarray:
    """Cost rows times w_n / mean(w): a sample's weight multiplies its costs, hence its loss and its risk
    (the decomposition is linear in the costs). ``None`` returns the rows unchanged (paper mode).

    The weights are first scaled by a power of two so that the largest is in [0.5, 1): exact, so w / mean(w)
    keeps its bits, and the mean cannot overflow (``full(N, 1e306)`` trains the same model as all ones)."""
    if sample_weight is None:
        return cost_rows
    w = _weights(sample_weight)
    if w.shape != (n_samples,):
        raise ValueError(
            f"sample_weight has shape {w.shape}; give one weight per row of X, shape ({n_samples},)."
        )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"sample_weight[{i}] is {float(w[i])!r}; weights must be finite and >= 0 (e.g. class-balancing "
            "weights; 0 leaves a row out)."
        )
    if not np.any(w > 0):
        raise ValueError(
            "sample_weight is all zeros; weights must be >= 0 and not all zero, so that some rows train."
        )
    w = np.ldexp(w, -np.frexp(w.max())[1])
    return cost_rows * (w / w.mean())[:, None]


def _weights(sample_weight) -> np.ndarray:
    """``sample_weight`` as float64, or a ValueError naming the first entry that is not a number (text such as
    "1" included: numpy would read it as a number here but compare it as text in training)."""
    try:
        arr = np.asarray(sample_weight)
        if arr.dtype.kind not in "USO":  # numbers or booleans: nothing to name
            return arr.astype(np.float64)
        cells = np.asarray(sample_weight, dtype=object).reshape(-1)  # as given: [1, "a"] is not ["1", "a"]
        return np.array([_weight(v, i) for i, v in enumerate(cells)]).reshape(arr.shape)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith("sample_weight["):
            raise
        flat = np.asarray(sample_weight, dtype=object).reshape(-1)
        for i, value in enumerate(flat):
            _weight(value, i)
        raise ValueError(
            "sample_weight must hold one non-negative number per row of X (a flat list or 1-D array)."
        ) from None


def _weight(value, i: int) -> float:
    value = value.item() if isinstance(value, np.generic) else value
    try:
        if isinstance(value, (str, bytes)):
            raise TypeError(value)
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"sample_weight[{i}] is {reprlib.repr(value)}, not a number; sample_weight must hold one "
            "non-negative number per row of X (numbers, not text)."
        ) from None


def validation_split(y_idx: np.ndarray, fraction: float, random_state) -> tuple[np.ndarray, np.ndarray]:
    """Training and validation row indices: ``fraction`` of the rows, stratified by class when every class has
    two rows or more, drawn with ``random_state`` (the only random step of a fit)."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(y_idx.shape[0])
    counts = np.bincount(y_idx)
    stratify = y_idx if counts[counts > 0].min() >= 2 else None
    try:
        train, val = train_test_split(rows, test_size=fraction, random_state=random_state, stratify=stratify)
    except ValueError:  # too few rows per class for a stratified split of this size
        train, val = train_test_split(rows, test_size=fraction, random_state=random_state)
    if train.size == 0 or val.size == 0:
        raise ValueError(
            f"validation_fraction={fraction} leaves {train.size} training and {val.size} validation rows; "
            "early stopping needs both: use more data or another fraction."
        )
    return np.sort(train), np.sort(val)


class ValidationCost:
    """Training callback: the validation cost after each round, stopping after ``patience`` rounds without a
    strictly lower one. ``best`` is the last round that reached the lowest cost (the model is cut there)."""

    def __init__(self, bins_val: np.ndarray, cost_rows_val: np.ndarray, depth: int, patience: int):
        self.bins, self.rows, self.depth, self.patience = bins_val, cost_rows_val, depth, patience
        n_val = bins_val.shape[1]
        self.H = np.zeros((n_val, cost_rows_val.shape[1]))
        self.f = np.empty(n_val, dtype=np.int8)
        self.leaf = np.empty(n_val, dtype=np.int32)
        self.costs: list[float] = []
        self.best = 0
        self.last_gain = 0

    def __call__(self, t: int, info: dict) -> bool:
        if t == 0:
            self.H[:] = info["a"]
        else:
            tree = info["tree"]
            kern.eval_tree_binned(
                self.bins, tree.features, tree.thr_idx, tree.leaf_signs, self.depth, self.f, self.leaf
            )
            values = info.get("values")
            self.H += (tree.leaf_signs[:, None] * info["a"] if values is None else values)[self.leaf]
        pred = np.argmax(self.H, axis=1)
        cost = float(self.rows[np.arange(pred.shape[0]), pred].mean())
        lowest = min(self.costs, default=np.inf)
        self.costs.append(cost)
        if cost < lowest:
            self.last_gain = t
        if cost <= lowest:
            self.best = t
        return t - self.last_gain < self.patience


@dataclass
class Fitted:
    thresholds: np.ndarray  # (d, n_thresholds)
    usable: np.ndarray  # (d,) bool
    result: BoostResult
    validation_cost: np.ndarray | None  # (rounds + 1,) validation cost after a0 and each round


def _both(first, second) -> Callable[[int, dict], object] | None:
    """One callback running ``first`` then ``second`` (either may be None); False from either stops."""
    if first is None or second is None:
        return first or second
    return lambda t, info: (first(t, info) is not False) & (second(t, info) is not False)


def _rows(A: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """``A[rows]``, or with ``rows`` None every row without a copy (C-contiguous: the kernels' layout)."""
    return np.ascontiguousarray(A) if rows is None else A[rows]


def train(X, y_idx, cost_rows, opts: dict, callback=None, sample_weight=None, thresholds_of=None) -> Fitted:
    """Fit thresholds and run the round loop that ``opts`` (the estimator's parameters) asks for. Rows of zero
    ``sample_weight`` take no part in training, thresholds included (as if they were not there).
    ``thresholds_of(X, n_thresholds, binning)`` replaces ``fit_thresholds`` (the engine columns of a table with
    missing values or categories: ``rebel.columns.fit_column_thresholds``)."""
    budget.check_fit(  # memory of the fit and of the model, before any work (rebel.budget, engine limits)
        budget.fit_cost(
            X.shape[0],
            X.shape[1],
            cost_rows.shape[1],
            opts["n_estimators"],
            opts["max_depth"],
            opts["leaves"],
            opts["n_thresholds"],
        )
    )
    cost_rows, scale = scaled_cost_rows(cost_rows, opts["loss"])
    if scale != 1.0:
        callback = _unscaled(callback, scale)
    train_rows, scorer = None, None  # None: every row trains
    if opts["n_iter_no_change"] is not None:
        train_rows, val_rows = validation_split(y_idx, opts["validation_fraction"], opts["random_state"])
    binned_rows = train_rows
    if sample_weight is not None:
        weights = np.asarray(sample_weight) if train_rows is None else np.asarray(sample_weight)[train_rows]
        if np.any(weights > 0):
            kept = np.flatnonzero(weights > 0)
            binned_rows = kept if train_rows is None else train_rows[kept]
    thresholds, usable = (thresholds_of or fit_thresholds)(
        _rows(X, binned_rows), opts["n_thresholds"], opts["binning"]
    )
    if opts["n_iter_no_change"] is not None:
        bins_val = bin_data(X[val_rows], thresholds)
        scorer = ValidationCost(bins_val, cost_rows[val_rows], opts["max_depth"], opts["n_iter_no_change"])
    inputs = BoostInputs(
        bin_data(_rows(X, train_rows), thresholds),
        usable,
        np.ascontiguousarray(_rows(cost_rows, train_rows)),
        opts["n_estimators"],
        opts["max_depth"],
        thresholds.shape[1] + 1,
    )
    cb = _both(callback, scorer)
    with parallel_guard():
        if (opts["loss"], opts["leaves"]) == ("exp", "binary"):
            res = boost(inputs, callback=cb, learning_rate=opts["learning_rate"])
        else:
            res = boost_variant(
                inputs, opts["loss"], opts["leaves"], opts["learning_rate"], callback=cb,
                l2_regularization=opts["l2_regularization"], min_samples_leaf=opts["min_samples_leaf"],
            )  # fmt: skip
    if scale != 1.0:  # back to the caller's cost units (a power of two: exact)
        res.train_loss, res.train_risk, res.layer_loss = (
            res.train_loss / scale,
            np.asarray(res.train_risk) / scale,
            res.layer_loss / scale,
        )
    if scorer is None:
        return Fitted(thresholds, usable, res, None)
    costs = np.array(scorer.costs[: scorer.best + 1]) / scale
    return Fitted(thresholds, usable, truncate(res, scorer.best), costs)


def _unscaled(callback, scale: float):
    """``callback`` seeing loss and risk in the caller's cost units while training runs on scaled costs."""
    if callback is None:
        return None

    def wrapped(t, info):
        return callback(t, {**info, "loss": info["loss"] / scale, "risk": info["risk"] / scale})

    return wrapped


def truncate(res: BoostResult, n_rounds: int) -> BoostResult:
    """The first ``n_rounds`` rounds of a result (early stopping keeps the best validation round)."""
    T = n_rounds
    return BoostResult(
        a0=res.a0,
        features=res.features[:T],
        thr_idx=res.thr_idx[:T],
        leaf_signs=res.leaf_signs[:T],
        A=res.A[:T],
        train_loss=res.train_loss[: T + 1],
        train_risk=res.train_risk[: T + 1],
        layer_loss=res.layer_loss[:T],
        H=res.H,
        leaf_values=None if res.leaf_values is None else res.leaf_values[:T],
    )
