"""The knobs of a gradient-boosting user around a REBEL fit: ``class_weight``, ``n_jobs``, ``verbose`` and the
feature importances (``importance_type``). None of them touches the paper's algorithm: class weights multiply
the rows' costs (as ``sample_weight`` does), ``n_jobs`` sets numba's thread count for the call (both drivers of
every kernel give the same bits), ``verbose`` prints from the training callback, and the importances read the
fitted arrays.
"""

from __future__ import annotations

import contextlib
import sys
import time

import numba
import numpy as np

from .fitting import _weights
from .textout import say

IMPORTANCE_TYPES = ("split", "gain")


def class_sample_weight(class_weight, y_idx: np.ndarray, classes: np.ndarray, sample_weight):
    """``sample_weight`` times each row's class weight (``None`` leaves ``sample_weight`` as it is).

    ``"balanced"``: ``N / (K * count of the row's class)``, as scikit-learn's ``compute_class_weight``; a dict
    maps class labels (as in y) to weights, absent classes weigh 1."""
    if class_weight is None:
        return sample_weight
    n_classes = classes.shape[0]
    if isinstance(class_weight, str) and class_weight == "balanced":
        per_class = y_idx.shape[0] / (n_classes * np.bincount(y_idx, minlength=n_classes))
    elif isinstance(class_weight, dict):
        per_class = np.ones(n_classes)
        labels = classes.tolist()
        for label, weight in class_weight.items():
            if label not in labels:
                raise ValueError(
                    f"class_weight names class {label!r}, which y does not have; y's classes are {labels}."
                )
            value = _weights(weight)
            if value.ndim != 0 or not np.isfinite(value) or value < 0:
                raise ValueError(
                    f"class_weight[{label!r}] is {weight!r}; a class weight must be one finite number >= 0."
                )
            per_class[labels.index(label)] = float(value)
    else:
        raise ValueError(
            f"class_weight={class_weight!r} is not understood; use None, 'balanced' or a dict "
            "{class label: weight}."
        )
    weights = per_class[y_idx]
    if sample_weight is None:
        return weights
    given = _weights(sample_weight)
    if given.shape != weights.shape:
        raise ValueError(
            f"sample_weight has shape {given.shape}; give one weight per row of X, shape {weights.shape}."
        )
    return given * weights


def thread_count(n_jobs) -> int | None:
    """numba threads for ``n_jobs`` (None: numba's current count, unchanged). As in scikit-learn, -1 is every
    core numba has and -2 every one but one; more than numba has is capped at what it has."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a nonzero integer (-1: every core); got {n_jobs!r}.")
    most = numba.config.NUMBA_NUM_THREADS
    n = int(n_jobs) if n_jobs > 0 else most + 1 + int(n_jobs)
    return max(1, min(n, most))


@contextlib.contextmanager
def engine_threads(n_jobs):
    """numba's thread count of this thread set for ``n_jobs`` during the block, then restored."""
    n = thread_count(n_jobs)
    if n is None:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(before)


class Progress:
    """Training callback for ``verbose``: one line per ``every`` rounds (1: every round when verbose >= 2;
    about ten lines a fit otherwise) with the round, the training loss and risk and the seconds so far, and a
    closing line. Writes to stdout, numbers only."""

    def __init__(self, verbose: int, n_rounds: int, stream=None):
        self.every = 1 if verbose >= 2 else max(1, n_rounds // 10)
        self.n_rounds, self.stream = n_rounds, stream or sys.stdout
        self.start = time.perf_counter()
        self.last = 0

    def __call__(self, t: int, info: dict) -> None:
        self.last = t
        if t == 0:
            say(f"Fitting {self.n_rounds} rounds", file=self.stream)
        elif t % self.every == 0 or t == self.n_rounds:
            say(
                f"[{t}/{self.n_rounds}] loss {info['loss']:.6g}, training risk {info['risk']:.6g}, "
                f"{time.perf_counter() - self.start:.2f} s",
                file=self.stream,
            )

    def close(self) -> None:
        say(f"Fit {self.last} rounds in {time.perf_counter() - self.start:.3f} s", file=self.stream)


def check_verbose(verbose) -> int:
    if isinstance(verbose, bool):
        return int(verbose)
    if not isinstance(verbose, int | np.integer) or verbose < 0:
        raise ValueError(f"verbose must be an integer >= 0 (0: silent); got {verbose!r}.")
    return int(verbose)


def split_gains(train_loss: np.ndarray, layer_loss: np.ndarray, n_nodes: int) -> np.ndarray:
    """(T, 2^D - 1): each internal node's share of its round's decrease of the training loss (Eq. 2).

    A round's decrease (``train_loss[t] - train_loss[t + 1]``) is shared between the tree's layers in
    proportion to what each layer took off the loss as it grew (``layer_loss``: the loss if the tree stopped
    after layer l; layer 0 from ``train_loss[t]``), and a layer's share equally between its nodes (the engine
    records losses per layer, not per node: for stumps, the paper's default, every split's gain is exact).
    Decreases below zero count as zero."""
    n_rounds, depth = layer_loss.shape
    gains = np.zeros((n_rounds, n_nodes))
    if n_rounds == 0:
        return gains
    before = np.concatenate((train_loss[:n_rounds, None], layer_loss[:, :-1]), axis=1)
    per_layer = np.clip(before - layer_loss, 0.0, None)  # (T, D)
    total = per_layer.sum(axis=1, keepdims=True)
    round_gain = np.clip(train_loss[:n_rounds] - train_loss[1 : n_rounds + 1], 0.0, None)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = np.where(total > 0, per_layer / total, 0.0) * round_gain
    for layer in range(depth):
        first, width = (1 << layer) - 1, 1 << layer
        gains[:, first : first + width] = shares[:, layer : layer + 1] / width
    return gains


def importances(model, importance_type: str) -> np.ndarray:
    """(d,) normalised to sum to 1 (all zeros without splits): ``split`` counts the internal nodes that test
    each feature, ``gain`` sums their ``split_gains``."""
    if importance_type not in IMPORTANCE_TYPES:
        raise ValueError(f"importance_type must be one of {IMPORTANCE_TYPES}; got {importance_type!r}.")
    features = model.tree_features_.reshape(-1)
    weights = None
    if importance_type == "gain":
        weights = split_gains(model.train_loss_, model.layer_loss_, model.tree_features_.shape[1]).reshape(-1)
    values = np.bincount(features, weights=weights, minlength=model.n_features_in_).astype(np.float64)
    total = values.sum()
    return values / total if total > 0 else values
