"""Data for the experiments: train/validation/test splits, named datasets, and random cost matrices.

``Split`` holds one split with labels as class indices (X_* (N, d) float64, y_* (N,) int into ``classes``);
``three_way_splits`` draws stratified 50/25/25 splits, ``load_named`` loads a dataset by name (scikit-learn's
bundled sets, ``random_<i>`` of the paper's protocol, the presets), ``dataset_splits`` does both for a list of
datasets with their cost matrices, and ``experiment_costs`` / ``sample_cost_matrix`` draw random costs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from rebel.cost_presets import normalize_costs, random_costs
from rebel.costs import validate_cost_matrix
from rebel.data.mixture import (
    PAPER_SEED,
    label_indices,
    make_dataset,
    paper_protocol,
    paper_random_spec,
    sample_mixture,
)
from rebel.data.presets import PRESETS
from rebel.data.samples import BUNDLED, load_bundled


@dataclass
class Split:
    """One train/test (and optional validation) split with labels as class indices into ``classes``."""

    name: str
    classes: np.ndarray
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    X_val: np.ndarray | None = None
    y_val: np.ndarray | None = None
    mixture: pd.DataFrame | None = None

    @property
    def n_classes(self) -> int:
        return len(self.classes)


def _as_split(data, name: str) -> Split:
    """A caller's dataset as a ``Split``: a ``rebel.data.Dataset``, a dict with X_train/y_train/X_test/y_test
    (optionally X_val/y_val, name, mixture) or a tuple (X_train, y_train, X_test, y_test)."""
    if isinstance(data, Split):
        return data
    if isinstance(data, (tuple, list)) and len(data) == 4:
        data = dict(zip(("X_train", "y_train", "X_test", "y_test"), data))
    elif not isinstance(data, dict):
        data = {
            k: getattr(data, k, None) for k in ("X_train", "y_train", "X_test", "y_test", "name", "mixture")
        }
    missing = [k for k in ("X_train", "y_train", "X_test", "y_test") if data.get(k) is None]
    if missing:
        raise ValueError(
            f"dataset {name!r} has no {missing[0]}; give a rebel.data.Dataset, a dict with X_train, y_train, "
            "X_test, y_test or a tuple (X_train, y_train, X_test, y_test)."
        )
    classes, y_train = np.unique(np.asarray(data["y_train"]), return_inverse=True)
    fix = f"dataset {name!r}: every test/validation label must occur in y_train"

    X_val = data.get("X_val")
    return Split(
        name=str(data.get("name") or name),
        classes=classes,
        X_train=np.asarray(data["X_train"], dtype=np.float64),
        y_train=y_train,
        X_test=np.asarray(data["X_test"], dtype=np.float64),
        y_test=label_indices(data["y_test"], classes, fix),
        X_val=None if X_val is None else np.asarray(X_val, dtype=np.float64),
        y_val=None if X_val is None else label_indices(data["y_val"], classes, fix),
        mixture=data.get("mixture"),
    )


def load_named(name: str, seed: int = PAPER_SEED):
    """All labelled points of a named dataset: ``(X, y, mixture or None)``.

    Names: scikit-learn's bundled ``iris``, ``wine``, ``breast_cancer``, ``digits``; ``random_<i>`` (dataset i of
    the paper's random protocol, 1500 points); any preset of ``rebel.data.PRESETS`` (sampled from its spec).
    """
    if name in BUNDLED:
        ds = load_bundled(name, test_fraction=0.0)
        return ds.X_train, np.asarray(ds.y_train), None
    if name.startswith("random_") and name[7:].isdigit():
        spec = paper_random_spec(int(name[7:]), seed)
    elif name in PRESETS:
        spec = PRESETS[name].spec
    else:
        raise ValueError(
            f"dataset name {name!r} is unknown; choose one of {list(BUNDLED)}, random_<i> or a preset "
            f"({list(PRESETS)})."
        )
    X, y = sample_mixture(spec.mixture, spec.n_points, spec.seed)
    return X, np.asarray(y), spec.mixture


def three_way_splits(
    X, y, n_splits: int = 5, seed: int = 0, fractions=(0.5, 0.25, 0.25), name: str = "", mixture=None
) -> list:
    """``n_splits`` random stratified train/validation/test splits (default 50/25/25 %, Sec. 5.1)."""
    classes, y_idx = np.unique(np.asarray(y), return_inverse=True)
    X = np.asarray(X, dtype=np.float64)
    out = []
    for s in range(n_splits):
        rs = np.random.RandomState(np.random.SeedSequence([seed, s]).generate_state(1)[0])
        idx = np.arange(len(y_idx))
        train, rest = train_test_split(idx, train_size=fractions[0], stratify=y_idx, random_state=rs)
        val_share = fractions[1] / (fractions[1] + fractions[2])
        val, test = train_test_split(rest, train_size=val_share, stratify=y_idx[rest], random_state=rs)
        out.append(
            Split(name, classes, X[train], y_idx[train], X[test], y_idx[test], X[val], y_idx[val], mixture)
        )
    return out


def experiment_costs(n_classes: int, y=None, seed: int = PAPER_SEED) -> np.ndarray:
    """A random cost matrix of the paper's protocol, normalised so that random guessing costs 1 under the class
    frequencies of ``y`` (uniform priors when ``y`` is None)."""
    C = random_costs(n_classes, np.random.default_rng([seed, 7, n_classes]))
    priors = None if y is None else np.bincount(np.asarray(y), minlength=n_classes)
    return normalize_costs(C, priors)


COST_DISTRIBUTIONS = ("paper", "lognormal", "spike")


def sample_cost_matrix(n_classes: int, rng, distribution: str = "paper") -> np.ndarray:
    """A random cost matrix (zero diagonal) normalised so random guessing costs 1 (uniform priors).

    ``"paper"``: half-normal off-diagonal entries (``rebel.cost_presets.random_costs``); ``"lognormal[:s]"``:
    ``exp(s z)``, z ~ N(0, 1), s = 1.5 by default (a few mistakes much costlier than the rest);
    ``"spike[:m]"``: 0-1 costs with one random mistake costing m (default 10), as in Fig. 7.
    """
    rng = np.random.default_rng(rng)
    kind, _, arg = str(distribution).partition(":")
    if kind not in COST_DISTRIBUTIONS:
        raise ValueError(
            f"cost distribution {distribution!r} is unknown; choose one of {COST_DISTRIBUTIONS} "
            "(optionally with a parameter, e.g. 'lognormal:2' or 'spike:20')."
        )
    K = int(n_classes)
    if kind == "paper":
        return random_costs(K, rng)
    if kind == "lognormal":
        C = np.exp(float(arg or 1.5) * rng.standard_normal((K, K)))
    else:
        C = 1.0 - np.eye(K)
        y, k = rng.choice(K, size=2, replace=False)
        C[y, k] = float(arg or 10.0)
    np.fill_diagonal(C, 0.0)
    return normalize_costs(C)


def _resolve_datasets(datasets, seed: int) -> list:
    """Names or caller-given (name, X, y) triples -> [(name, X, y, mixture)]."""
    out = []
    for d in datasets:
        if isinstance(d, str):
            out.append((d, *load_named(d, seed)))
        elif isinstance(d, (tuple, list)) and len(d) == 3:
            out.append((str(d[0]), np.asarray(d[1], dtype=np.float64), np.asarray(d[2]), None))
        else:
            raise ValueError(
                f"dataset {d!r}: give a name ({list(BUNDLED)}, random_<i>, a preset) or (name, X, y)."
            )
    return out


def dataset_splits(datasets, n_splits: int, seed: int, cost_matrices: dict | None = None):
    """For each dataset (name or (name, X, y)): ``(name, splits, C)`` with ``n_splits`` random 50/25/25 splits
    (seed ``seed + dataset index``) and its cost matrix (``cost_matrices[name]``, default ``experiment_costs``
    under the first split's training class frequencies)."""
    for d_idx, (name, X, y, mixture) in enumerate(_resolve_datasets(datasets, seed)):
        splits = three_way_splits(X, y, n_splits, seed + d_idx, name=name, mixture=mixture)
        K = splits[0].n_classes
        C = (cost_matrices or {}).get(name)
        C = experiment_costs(K, splits[0].y_train, seed + d_idx) if C is None else validate_cost_matrix(C, K)
        yield name, splits, C


def protocol_splits(n_datasets: int, n_costs: int, seed: int) -> tuple:
    """The paper's random protocol drawn with ``seed``: ``(splits, costs)``, one ``Split`` per dataset (1000
    training / 500 test points, with its mixture) and its list of ``n_costs`` cost matrices."""
    trials = paper_protocol(n_datasets, n_costs, seed)
    splits = [
        _as_split(make_dataset(spec, f"random_{i}"), f"random_{i}") for i, (spec, _) in enumerate(trials)
    ]
    return splits, [c for _, c in trials]
