"""Datasets: the Gaussian-mixture designer model, its exact Bayes posterior, presets, CSV files, bundled data.

A *mixture* is a table (pandas DataFrame), one row per Gaussian component (cluster) in the plane:

    class   mean_x  mean_y  std_x  std_y  corr  angle  weight
    weapon     1.8     2.2    0.7    0.7   0.0    0.0    0.06

``corr`` (optional, default 0) is the correlation of the component's x and y; ``angle`` (optional, degrees,
default 0) then rotates the ellipse counter-clockwise: covariance ``R(angle) S R(angle)^T`` with
``S = [[std_x^2, corr std_x std_y], [corr std_x std_y, std_y^2]]``. ``weight`` (optional, default 1; ``count``
is accepted as an alias) is the component's relative share of the points; class priors are the sums of their
components' weights. Classes are names (strings) and are always listed in sorted order, the order of the rows
and columns of cost matrices and of ``RebelClassifier.classes_``.

Sampling is stratified by component: ``n`` points are split over the components in proportion to their weights
(largest remainder, so the counts are exact), coordinates are rounded to ``DECIMALS`` decimals (small CSV
files, exact round trips), and the order is shuffled. Label noise relabels exactly ``round(label_noise * n)``
points, chosen at random, to a different class chosen uniformly; it is applied to training labels only, so
test costs measure the true risk.

Everything here is plain data (DataFrames, ndarrays, dicts that ``json.dumps`` accepts); nothing imports
streamlit. Every error is a ``ValueError`` naming the argument, the bad value and the fix.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from rebel.cost_presets import fn_costs, fp_costs, random_costs
from rebel.costs import min_risk_class, uniform_costs, validate_cost_matrix

MAX_ROWS = 200_000  # rows of an imported CSV file
MAX_CLASSES = 50
MAX_FEATURES = 1_000  # feature columns of an imported CSV file
MAX_COMPONENTS = 200  # rows of a mixture table
MAX_POINTS = 200_000  # points sampled from a mixture
DECIMALS = 4  # sampled coordinates are rounded to this many decimals

MIXTURE_COLUMNS = ("class", "mean_x", "mean_y", "std_x", "std_y", "corr", "angle", "weight")
MIXTURE_DEFAULTS = {"corr": 0.0, "angle": 0.0, "weight": 1.0}
FEATURE_NAMES = ("x", "y")
LABEL_COLUMN = "label"
SPLIT_COLUMN = "split"
SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"


# ---------------------------------------------------------------------------------------------------------------
# Mixture tables
# ---------------------------------------------------------------------------------------------------------------


def _mixture_frame(mixture) -> pd.DataFrame:
    if isinstance(mixture, pd.DataFrame):
        return mixture.copy()
    try:
        return pd.DataFrame(mixture)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"mixture could not be read as a table ({exc}); give a DataFrame, a list of row dicts or a dict of "
            f"columns with {list(MIXTURE_COLUMNS)}."
        ) from None


def _check_mixture_columns(df: pd.DataFrame) -> pd.DataFrame:
    if "count" in df.columns:
        if "weight" in df.columns:
            raise ValueError(
                "mixture has both 'weight' and 'count' columns; keep one (count is a weight alias)."
            )
        df = df.rename(columns={"count": "weight"})
    unknown = [c for c in df.columns if c not in MIXTURE_COLUMNS]
    if unknown:
        raise ValueError(
            f"mixture has an unknown column {unknown[0]!r}; allowed columns are {list(MIXTURE_COLUMNS)} "
            "(and 'count' as an alias of 'weight')."
        )
    required = [c for c in MIXTURE_COLUMNS if c not in MIXTURE_DEFAULTS]
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"mixture is missing the column {missing[0]!r}; every component needs {required}.")
    for col, default in MIXTURE_DEFAULTS.items():
        # An empty optional cell means the default (what a user leaving it blank in a table editor expects).
        df[col] = df[col].where(df[col].notna(), default) if col in df.columns else default
    return df[list(MIXTURE_COLUMNS)].reset_index(drop=True)


def _show(value) -> str:
    """A value as the user typed it (no numpy type names in messages)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _check_mixture_values(df: pd.DataFrame) -> None:
    for col in MIXTURE_COLUMNS[1:]:
        values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"mixture row {i}: {col} is {_show(df[col].iloc[i])}; it must be a finite number."
            )
        df[col] = values
    rules = (
        ("std_x", lambda v: v > 0, "standard deviations must be > 0"),
        ("std_y", lambda v: v > 0, "standard deviations must be > 0"),
        ("corr", lambda v: np.abs(v) < 1, "the correlation must be strictly between -1 and 1"),
        ("weight", lambda v: v > 0, "weights (or counts) must be > 0; delete the row to drop a component"),
    )
    for col, ok, fix in rules:
        bad = np.flatnonzero(~ok(df[col].to_numpy()))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"mixture row {i}: {col} is {_show(df[col].iloc[i])}; {fix}.")


def _check_mixture_classes(df: pd.DataFrame) -> None:
    names = df["class"]
    empty = np.flatnonzero(names.isna().to_numpy() | (names.astype(str).str.strip() == "").to_numpy())
    if empty.size:
        raise ValueError(f"mixture row {int(empty[0])}: class is empty; give every component a class name.")
    df["class"] = names.astype(str).str.strip().astype(object)
    n_classes = df["class"].nunique()
    if n_classes < 2:
        raise ValueError(
            f"mixture has a single class {df['class'].iloc[0]!r}; add components of at least one other class."
        )
    if n_classes > MAX_CLASSES:
        raise ValueError(
            f"mixture has {n_classes} classes; at most MAX_CLASSES = {MAX_CLASSES} are supported."
        )


def validate_mixture(mixture) -> pd.DataFrame:
    """Return a checked copy of a mixture table with all ``MIXTURE_COLUMNS`` (defaults filled in), float values
    and class names as stripped strings. Raises ``ValueError`` naming the row (counted from 0, as in a table
    editor), the column and the fix."""
    df = _check_mixture_columns(_mixture_frame(mixture))
    if len(df) == 0:
        raise ValueError("mixture has no rows; add at least one component per class (two classes or more).")
    if len(df) > MAX_COMPONENTS:
        raise ValueError(
            f"mixture has {len(df)} components; at most MAX_COMPONENTS = {MAX_COMPONENTS} are supported."
        )
    _check_mixture_values(df)
    _check_mixture_classes(df)
    return df


def _classes(df: pd.DataFrame) -> tuple:
    return tuple(sorted(df["class"].unique()))


def mixture_classes(mixture) -> tuple:
    """Class names of a mixture in sorted order (the order of cost-matrix rows/columns and posteriors)."""
    return _classes(validate_mixture(mixture))


def class_priors(mixture) -> np.ndarray:
    """Class priors p(y) of a mixture (sums of component weights, normalized), in sorted class order."""
    df = validate_mixture(mixture)
    totals = df.groupby("class")["weight"].sum().sort_index()
    return (totals / totals.sum()).to_numpy()


def _covariances(df: pd.DataFrame) -> np.ndarray:
    """(J, 2, 2) component covariances ``R S R^T`` (see the module docstring)."""
    sx, sy, rho = df["std_x"].to_numpy(), df["std_y"].to_numpy(), df["corr"].to_numpy()
    S = np.empty((len(df), 2, 2))
    S[:, 0, 0], S[:, 1, 1] = sx**2, sy**2
    S[:, 0, 1] = S[:, 1, 0] = rho * sx * sy
    theta = np.deg2rad(df["angle"].to_numpy())
    R = np.empty_like(S)
    R[:, 0, 0], R[:, 0, 1], R[:, 1, 0], R[:, 1, 1] = (
        np.cos(theta),
        -np.sin(theta),
        np.sin(theta),
        np.cos(theta),
    )
    return R @ S @ np.transpose(R, (0, 2, 1))


def _allocate(n: int, weights: np.ndarray) -> np.ndarray:
    """Split n into integer counts proportional to weights (largest remainder; ties to the first row)."""
    share = n * weights / weights.sum()
    counts = np.floor(share).astype(np.int64)
    order = np.argsort(-(share - counts), kind="stable")
    counts[order[: n - counts.sum()]] += 1
    return counts


def _check_count(n, name: str, minimum: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not minimum <= n <= MAX_POINTS:
        raise ValueError(f"{name} is {n!r}; it must be a whole number between {minimum} and {MAX_POINTS}.")
    return int(n)


def _check_fraction(value, name: str, upper: float) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if not 0.0 <= v < upper:
        raise ValueError(f"{name} is {value!r}; it must be a number in [0, {upper}).")
    return v


def _flip_labels(y: np.ndarray, classes: tuple, label_noise: float, rng: np.random.Generator) -> np.ndarray:
    """Relabel round(label_noise * n) random points to a different, uniformly chosen class."""
    y = y.copy()
    n_flip = round(label_noise * len(y))
    idx = rng.choice(len(y), size=n_flip, replace=False)
    K = len(classes)
    current = np.searchsorted(np.asarray(classes, dtype=object), y[idx])
    shift = rng.integers(1, K, size=n_flip)  # 1..K-1: never the same class
    y[idx] = np.asarray(classes, dtype=object)[(current + shift) % K]
    return y


def _seed_sequence(seed) -> np.random.SeedSequence:
    return seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)


def sample_mixture(mixture, n: int, seed=None, label_noise: float = 0.0):
    """Draw ``n`` labelled points from a mixture: ``(X (n, 2) float64, y (n,) class names)``.

    Stratified by component (exact counts), rounded to ``DECIMALS``, shuffled; ``label_noise`` relabels that
    fraction of points to another class. Reproducible: the same ``seed`` gives the same points.
    """
    n = _check_count(n, "n")
    label_noise = _check_fraction(label_noise, "label_noise", 1.0)
    return _sample(validate_mixture(mixture), n, seed, label_noise)


def _sample(df: pd.DataFrame, n: int, seed, label_noise: float):
    points_seq, noise_seq = _seed_sequence(seed).spawn(2)
    rng = np.random.default_rng(points_seq)
    counts = _allocate(n, df["weight"].to_numpy())
    L = np.linalg.cholesky(_covariances(df))
    comp = np.repeat(np.arange(len(df)), counts)
    z = rng.standard_normal((n, 2))
    X = df[["mean_x", "mean_y"]].to_numpy()[comp]
    for j, block in enumerate(np.split(np.arange(n), np.cumsum(counts)[:-1])):
        X[block] += z[block] @ L[j].T
    order = rng.permutation(n)
    X = np.round(X[order], DECIMALS)
    y = df["class"].to_numpy(dtype=object)[comp][order]
    if label_noise > 0:
        y = _flip_labels(y, _classes(df), label_noise, np.random.default_rng(noise_seq))
    return X, y


# ---------------------------------------------------------------------------------------------------------------
# Exact Bayes posterior and the Bayes-optimal (minimum-risk) rule
# ---------------------------------------------------------------------------------------------------------------


def _check_points(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X has shape {X.shape}; mixtures live in the plane, so X must have shape (N, 2).")
    return X


def _log_joint(df: pd.DataFrame, X: np.ndarray) -> np.ndarray:
    """(N, J) log of ``w_j N(x; mu_j, Sigma_j)`` with weights normalized to sum to 1."""
    cov = _covariances(df)
    L = np.linalg.cholesky(cov)
    diff = X[:, None, :] - df[["mean_x", "mean_y"]].to_numpy()[None, :, :]
    # Solve L u = diff per component; |u|^2 is the squared Mahalanobis distance.
    Linv = np.linalg.inv(L)
    u = np.matmul(diff.transpose(1, 0, 2), Linv.transpose(0, 2, 1))  # (J, N, 2)
    log_det = 2.0 * np.log(np.diagonal(L, axis1=1, axis2=2)).sum(axis=1)
    w = df["weight"].to_numpy()
    return np.log(w / w.sum()) - np.log(2 * np.pi) - 0.5 * log_det - 0.5 * (u**2).sum(axis=2).T


def _posterior(df: pd.DataFrame, X: np.ndarray) -> np.ndarray:
    classes = np.asarray(_classes(df), dtype=object)
    log_joint = _log_joint(df, X)
    comp_class = np.searchsorted(classes, df["class"].to_numpy(dtype=object))
    log_class = np.stack(
        [logsumexp(log_joint[:, comp_class == k], axis=1) for k in range(len(classes))], axis=1
    )
    return np.exp(log_class - logsumexp(log_class, axis=1, keepdims=True))


def bayes_posterior(mixture, X, label_noise: float = 0.0) -> np.ndarray:
    """Exact class posterior p(y | x) of a mixture, shape (N, K), columns in sorted class order.

    With ``label_noise`` = e it is the posterior of the noisy labels, ``(1 - e) p + e (1 - p) / (K - 1)``.
    """
    e = _check_fraction(label_noise, "label_noise", 1.0)
    post = _posterior(validate_mixture(mixture), _check_points(X))
    K = post.shape[1]
    return (1 - e) * post + e * (1 - post) / (K - 1) if e > 0 else post


def _mixture_and_costs(mixture, cost_matrix):
    df = validate_mixture(mixture)
    return df, validate_cost_matrix(cost_matrix, n_classes=len(_classes(df)))


def bayes_min_risk(mixture, X, cost_matrix) -> np.ndarray:
    """Bayes-optimal decision: class index ``argmin_k sum_y p(y|x) C[y, k]`` for each row of X."""
    df, C = _mixture_and_costs(mixture, cost_matrix)
    return min_risk_class(_posterior(df, _check_points(X)), C)


def _label_index(y, classes) -> np.ndarray:
    names = np.asarray(classes, dtype=object)
    y = np.asarray(y, dtype=object)
    idx = np.clip(np.searchsorted(names, y), 0, len(names) - 1)
    bad = names[idx] != y
    if bad.any():
        raise ValueError(
            f"label {y[bad][0]!r} is not one of the classes {list(names)}; relabel or add the class."
        )
    return idx


def bayes_cost(mixture, X, y, cost_matrix) -> float:
    """Mean cost of the Bayes-optimal rule on labelled points (X, y): the floor for any model's test cost."""
    df, C = _mixture_and_costs(mixture, cost_matrix)
    pred = min_risk_class(_posterior(df, _check_points(X)), C)
    return float(C[_label_index(y, _classes(df)), pred].mean())


def bayes_risk(mixture, cost_matrix, n: int = 100_000, seed=0) -> float:
    """Bayes risk ``E_x[min_k sum_y p(y|x) C[y, k]]``, Monte-Carlo over ``n`` points (exact posterior inside)."""
    df, C = _mixture_and_costs(mixture, cost_matrix)
    X, _ = _sample(df, _check_count(n, "n"), seed, 0.0)
    return float((_posterior(df, X) @ C).min(axis=1).mean())


def confusion_rates(mixture, cost_matrix, n: int = 20_000, seed=0) -> np.ndarray:
    """(K, K) joint rates P(truth y, Bayes rule predicts k) for a cost matrix, Monte-Carlo over ``n`` points."""
    df, C = _mixture_and_costs(mixture, cost_matrix)
    X, y = _sample(df, _check_count(n, "n"), seed, 0.0)
    pred = min_risk_class(_posterior(df, X), C)
    K = len(C)
    return np.bincount(_label_index(y, _classes(df)) * K + pred, minlength=K * K).reshape(K, K) / n


def sample_path(waypoints, n: int = 101):
    """Points along a polyline through ``waypoints`` (Fig. 8): ``(P (n, 2), t (n,))``, t = fraction of length."""
    W = _check_points(waypoints)
    if len(W) < 2:
        raise ValueError(f"waypoints has {len(W)} point(s); a path needs at least 2.")
    seg = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(W, axis=0), axis=1))]
    if seg[-1] <= 0:
        raise ValueError("waypoints are all the same point; give a path of positive length.")
    t = np.linspace(0.0, 1.0, _check_count(n, "n", minimum=2))
    s = t * seg[-1]
    return np.column_stack([np.interp(s, seg, W[:, 0]), np.interp(s, seg, W[:, 1])]), t


# ---------------------------------------------------------------------------------------------------------------
# Datasets and JSON-able specs
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Dataset:
    """A train/test split with class names; mixture, spec, story and suggested costs when known."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: tuple
    feature_names: tuple = FEATURE_NAMES
    name: str = ""
    story: str = ""
    mixture: pd.DataFrame | None = None
    spec: DatasetSpec | None = None
    cost_matrix: np.ndarray | None = None
    costly_mistakes: tuple = ()

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def class_index(self, y) -> np.ndarray:
        """Class indices (sorted class order) of labels ``y``."""
        return _label_index(y, self.classes)

    def priors(self) -> np.ndarray:
        """Empirical class priors of the training set (for ``normalize_costs(C, priors)``)."""
        return np.bincount(self.class_index(self.y_train), minlength=self.n_classes) / len(self.y_train)


@dataclass
class DatasetSpec:
    """Everything that defines a synthetic dataset; round-trips through JSON with ``to_dict``/``from_dict``."""

    mixture: pd.DataFrame
    n_points: int = 1500
    test_fraction: float = 1 / 3
    seed: int | None = 0
    label_noise: float = 0.0

    def __post_init__(self):
        self.mixture = validate_mixture(self.mixture)
        self.n_points = _check_count(self.n_points, "n_points", minimum=2)
        self.test_fraction = _check_fraction(self.test_fraction, "test_fraction", 1.0)
        self.label_noise = _check_fraction(self.label_noise, "label_noise", 1.0)
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0
        ):
            raise ValueError(f"seed is {self.seed!r}; use a whole number >= 0 (or None for a fresh draw).")
        if self.n_train < 1:
            raise ValueError(
                f"test_fraction {self.test_fraction} leaves no training points out of n_points {self.n_points}; "
                "lower test_fraction or add points."
            )

    @property
    def n_test(self) -> int:
        return round(self.n_points * self.test_fraction)

    @property
    def n_train(self) -> int:
        return self.n_points - self.n_test

    def to_dict(self) -> dict:
        return {
            "mixture": self.mixture.astype({"class": str}).to_dict(orient="records"),
            "n_points": int(self.n_points),
            "test_fraction": float(self.test_fraction),
            "seed": None if self.seed is None else int(self.seed),
            "label_noise": float(self.label_noise),
        }

    @classmethod
    def from_dict(cls, d: dict) -> DatasetSpec:
        if not isinstance(d, dict) or "mixture" not in d:
            raise ValueError("dataset spec must be a dict with a 'mixture' entry (a list of component rows).")
        unknown = set(d) - {"mixture", "n_points", "test_fraction", "seed", "label_noise"}
        if unknown:
            raise ValueError(f"dataset spec has an unknown entry {min(unknown)!r}; remove it.")
        return cls(mixture=pd.DataFrame(d["mixture"]), **{k: v for k, v in d.items() if k != "mixture"})


def make_dataset(spec: DatasetSpec | dict, name: str = "") -> Dataset:
    """Sample a spec's training and test sets (independent streams of its seed; noise on training labels)."""
    if isinstance(spec, dict):
        spec = DatasetSpec.from_dict(spec)
    train_seed, test_seed = _seed_sequence(spec.seed).spawn(2)
    X_train, y_train = _sample(spec.mixture, spec.n_train, train_seed, spec.label_noise)
    if spec.n_test:
        X_test, y_test = _sample(spec.mixture, spec.n_test, test_seed, 0.0)
    else:
        X_test, y_test = np.empty((0, 2)), np.empty(0, dtype=object)
    return Dataset(
        X_train,
        y_train,
        X_test,
        y_test,
        _classes(spec.mixture),
        FEATURE_NAMES,
        name,
        mixture=spec.mixture,
        spec=spec,
    )


# ---------------------------------------------------------------------------------------------------------------
# The paper's random protocol (Sec. 5, Fig. 3; datasets of Fig. 9). The paper fixes only "multiple Gaussian
# clusters per class, 1000 training and 500 test points"; the distributions below are this project's choice.
# ---------------------------------------------------------------------------------------------------------------

PAPER_SEED = 2016  # base seed of the ten Fig. 9 datasets and their Fig. 3 cost matrices
RANDOM_PROTOCOL = {
    "n_classes": (3, 5),  # K uniform on {3, 4, 5} (Fig. 9 datasets)
    "clusters_per_class": (2, 3),  # uniform on {2, 3}
    "box": 5.0,  # means uniform on [-5, 5]^2
    "std": (0.4, 1.6),  # std_x, std_y log-uniform on [0.4, 1.6]
    "corr": 0.7,  # correlation uniform on [-0.7, 0.7]; angle 0
    "weight": (0.5, 1.5),  # cluster weights uniform, rescaled so every class has prior 1/K
    "n_points": 1500,  # 1000 training + 500 test points
    "test_fraction": 1 / 3,
}


def random_mixture(
    rng,
    n_classes: int = 3,
    clusters_per_class=RANDOM_PROTOCOL["clusters_per_class"],
    box: float = RANDOM_PROTOCOL["box"],
    std=RANDOM_PROTOCOL["std"],
    corr: float = RANDOM_PROTOCOL["corr"],
    weight=RANDOM_PROTOCOL["weight"],
) -> pd.DataFrame:
    """A random mixture of the paper's protocol (distributions in ``RANDOM_PROTOCOL``), values rounded to 3
    decimals. Classes are named "A", "B", ...; ``rng``: a seed or ``np.random.Generator``."""
    rng = np.random.default_rng(rng)
    K = int(n_classes)
    if not 2 <= K <= min(26, MAX_CLASSES):
        raise ValueError(f"n_classes is {n_classes!r}; random mixtures have 2 to 26 classes.")
    rows = []
    for k in range(K):
        J = int(rng.integers(clusters_per_class[0], clusters_per_class[1] + 1))
        w = rng.uniform(*weight, size=J)
        for j in range(J):
            rows.append(
                {
                    "class": chr(ord("A") + k),
                    "mean_x": rng.uniform(-box, box),
                    "mean_y": rng.uniform(-box, box),
                    "std_x": math.exp(rng.uniform(math.log(std[0]), math.log(std[1]))),
                    "std_y": math.exp(rng.uniform(math.log(std[0]), math.log(std[1]))),
                    "corr": rng.uniform(-corr, corr),
                    "angle": 0.0,
                    "weight": w[j] / w.sum() / K,
                }
            )
    return validate_mixture(pd.DataFrame(rows).round(3))


def paper_random_spec(i: int, seed: int = PAPER_SEED) -> DatasetSpec:
    """Random dataset ``i`` of Fig. 9 (drawn from ``np.random.default_rng([seed, i])``)."""
    rng = np.random.default_rng([seed, i])
    lo, hi = RANDOM_PROTOCOL["n_classes"]
    mixture = random_mixture(rng, int(rng.integers(lo, hi + 1)))
    return DatasetSpec(
        mixture, RANDOM_PROTOCOL["n_points"], RANDOM_PROTOCOL["test_fraction"], seed=int(rng.integers(2**31))
    )


def paper_random_specs(n_datasets: int = 10, seed: int = PAPER_SEED) -> list:
    """The random datasets of Fig. 9 as ``DatasetSpec`` s."""
    return [paper_random_spec(i, seed) for i in range(n_datasets)]


def paper_protocol(n_datasets: int = 10, n_costs: int = 20, seed: int = PAPER_SEED) -> list:
    """Fig. 3 trials: ``[(spec, [C_1, ..., C_n_costs]), ...]``, cost j of dataset i from ``[seed, i, 1 + j]``."""
    trials = []
    for i, spec in enumerate(paper_random_specs(n_datasets, seed)):
        K = len(_classes(spec.mixture))
        trials.append(
            (spec, [random_costs(K, np.random.default_rng([seed, i, 1 + j])) for j in range(n_costs)])
        )
    return trials


def costliest_mistakes(mixture, cost_matrix, n: int = 20_000, seed=0) -> tuple:
    """The (truth, predicted) class pair that costs a cost-blind (0-1 Bayes) classifier the most in expectation."""
    classes = mixture_classes(mixture)
    C = validate_cost_matrix(cost_matrix, n_classes=len(classes))
    loss = confusion_rates(mixture, uniform_costs(len(classes)), n, seed) * C
    y, k = np.unravel_index(np.argmax(loss), loss.shape)
    return ((classes[y], classes[k]),)


# ---------------------------------------------------------------------------------------------------------------
# Presets: a mixture, a suggested cost matrix and a one-line story
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Preset:
    """A named problem: dataset spec, suggested cost matrix (sorted class order) and its costly mistakes.

    ``costly_mistakes``: (true class, predicted class) pairs the story is about; ``cost_variants``: other
    cost matrices worth comparing (e.g. the four panels of Fig. 7); ``paths``: named polylines (Fig. 8).
    """

    name: str
    story: str
    source: str
    spec: DatasetSpec
    cost_matrix: np.ndarray
    costly_mistakes: tuple
    cost_variants: dict = field(default_factory=dict)
    paths: dict = field(default_factory=dict)

    def __post_init__(self):
        classes = self.classes
        self.cost_matrix = validate_cost_matrix(self.cost_matrix, n_classes=len(classes))
        self.cost_variants = {
            k: validate_cost_matrix(v, n_classes=len(classes), name=f"cost_variants[{k!r}]")
            for k, v in self.cost_variants.items()
        }
        self.costly_mistakes = tuple(tuple(pair) for pair in self.costly_mistakes)
        for pair in self.costly_mistakes:
            _label_index(list(pair), classes)

    @property
    def classes(self) -> tuple:
        return _classes(self.spec.mixture)

    def dataset(self) -> Dataset:
        ds = make_dataset(self.spec, self.name)
        ds.story, ds.cost_matrix, ds.costly_mistakes = (
            self.story,
            self.cost_matrix.copy(),
            self.costly_mistakes,
        )
        return ds

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "story": self.story,
            "source": self.source,
            "classes": list(self.classes),
            "spec": self.spec.to_dict(),
            "cost_matrix": self.cost_matrix.tolist(),
            "costly_mistakes": [list(p) for p in self.costly_mistakes],
            "cost_variants": {k: v.tolist() for k, v in self.cost_variants.items()},
            "paths": {k: [list(map(float, p)) for p in v] for k, v in self.paths.items()},
        }

    @classmethod
    def from_dict(cls, d: dict) -> Preset:
        d = dict(d)
        d.pop("classes", None)
        d["spec"] = DatasetSpec.from_dict(d["spec"])
        d["cost_matrix"] = np.asarray(d["cost_matrix"], dtype=np.float64)
        return cls(**d)


def _comp(
    cls: str,
    mx: float,
    my: float,
    sx: float,
    sy: float | None = None,
    corr: float = 0.0,
    weight: float = 1.0,
    angle: float = 0.0,
) -> dict:
    return {
        "class": cls,
        "mean_x": mx,
        "mean_y": my,
        "std_x": sx,
        "std_y": sx if sy is None else sy,
        "corr": corr,
        "angle": angle,
        "weight": weight,
    }


def _ring(cls: str, n: int, radius: float, std: float, total_weight: float, phase: float = 0.0) -> list:
    angles = phase + 2 * np.pi * np.arange(n) / n
    return [
        _comp(
            cls, round(radius * math.cos(a), 4), round(radius * math.sin(a), 4), std, weight=total_weight / n
        )
        for a in angles
    ]


def _spec(rows: list, seed: int) -> DatasetSpec:
    return DatasetSpec(pd.DataFrame(rows), n_points=1500, test_fraction=1 / 3, seed=seed)


def _airport() -> Preset:
    rows = [
        _comp("harmless", 0.0, 0.0, 1.2, 1.0, weight=0.30),
        _comp("harmless", 3.0, 0.5, 0.9, 0.8, 0.2, 0.20),
        _comp("harmless", -0.5, 3.0, 0.9, 0.7, weight=0.15),
        _comp("liquid", 3.5, 3.5, 0.8, 0.7, 0.3, 0.15),
        _comp("liquid", 1.0, 5.5, 0.6, weight=0.08),
        _comp("weapon", 1.8, 2.0, 0.6, weight=0.07),
        _comp("weapon", -2.3, 1.2, 0.5, 0.7, weight=0.05),
    ]
    # rows = truth (harmless, liquid, weapon), columns = decision
    C = [[0, 1, 1], [3, 0, 1], [20, 20, 0]]
    return Preset(
        "airport",
        "Airport checkpoint: a false alarm costs one bag check, but letting a weapon through costs 20.",
        "Fig. 1",
        _spec(rows, 1),
        C,
        (("weapon", "harmless"), ("weapon", "liquid")),
    )


def _fig7() -> Preset:
    rows = [
        _comp("A", -2.5, 0.0, 1.0, 1.4, 0.3),
        _comp("A", -1.0, -3.0, 0.8, 0.6, weight=0.5),
        _comp("B", 0.0, 2.5, 1.2, 0.7),
        _comp("B", 2.5, 3.5, 0.6, weight=0.4),
        _comp("C", 0.3, 0.0, 0.8, weight=0.8),
        _comp("D", 2.5, -0.5, 1.0, 1.3, -0.3),
        _comp("D", 1.5, -3.0, 0.7, 0.6, weight=0.4),
    ]
    variants = {
        "(a) uniform": uniform_costs(4),
        "(b) x10 false-negative B": fn_costs(4, 1, 10),
        "(c) x10 false-positive C": fp_costs(4, 2, 10),
        "(d) x10 false-negative C": fn_costs(4, 2, 10),
    }
    return Preset(
        "fig7",
        "Four classes as in Fig. 7: missing a C point costs 10 (compare the four panels' cost matrices).",
        "Fig. 7 (S.9)",
        _spec(rows, 7),
        fn_costs(4, 2, 10),
        (("C", "A"), ("C", "B"), ("C", "D")),
        variants,
    )


def _paths() -> Preset:
    rows = [
        _comp("A", -3.0, 0.0, 1.0, 1.2),
        _comp("A", -1.5, 3.0, 0.7, weight=0.5),
        _comp("B", 0.0, 0.0, 0.6, 1.8),
        _comp("C", 3.0, 0.0, 1.0, 1.2),
        _comp("C", 1.5, -3.0, 0.8, 0.6, weight=0.5),
    ]
    paths = {"A": [[-5.0, -1.0], [5.0, 1.0]], "B": [[-3.0, 4.0], [0.0, -2.5], [3.0, 4.0]]}
    return Preset(
        "paths",
        "Fig. 8 layout: walk paths A and B across the class boundaries and watch the "
        "min-risk scores H(x); missing a B point costs 5.",
        "Fig. 8 (S.9)",
        _spec(rows, 8),
        fn_costs(3, 1, 5),
        (("B", "A"), ("B", "C")),
        paths=paths,
    )


def _xor() -> Preset:
    rows = [
        _comp("defect", 2.0, 2.0, 1.1, weight=0.15),
        _comp("defect", -2.0, -2.0, 1.1, weight=0.15),
        _comp("ok", 2.0, -2.0, 1.1, weight=0.35),
        _comp("ok", -2.0, 2.0, 1.1, weight=0.35),
    ]
    return Preset(
        "xor",
        "XOR of four clusters (no single stump separates them): shipping a defect costs 5 "
        "times a false reject.",
        "classic",
        _spec(rows, 11),
        fn_costs(2, 0, 5),
        (("defect", "ok"),),
    )


def _rings() -> Preset:
    rows = [
        _comp("core", 0.0, 0.0, 0.8, weight=0.2),
        *_ring("middle", 6, 2.5, 0.6, 0.35),
        *_ring("outer", 10, 5.0, 0.7, 0.45, phase=0.3),
    ]
    return Preset(
        "rings",
        "Concentric rings made of clusters: missing the core costs 5.",
        "classic",
        _spec(rows, 12),
        fn_costs(3, 0, 5),
        (("core", "middle"), ("core", "outer")),
    )


def _imbalanced() -> Preset:
    rows = [
        _comp("healthy", 0.0, 0.0, 1.5, 1.2, weight=0.55),
        _comp("healthy", 2.5, 1.0, 1.0, weight=0.25),
        _comp("mild", 2.5, 2.5, 0.8, weight=0.15),
        _comp("severe", 3.2, 3.2, 0.6, weight=0.03),
        _comp("severe", -1.5, 1.5, 0.5, weight=0.02),
    ]
    return Preset(
        "imbalanced",
        "Imbalanced triage: 1 patient in 20 is severe; sending a severe patient home or "
        "to the mild queue costs 10.",
        "classic",
        _spec(rows, 13),
        fn_costs(3, 2, 10),
        (("severe", "healthy"), ("severe", "mild")),
    )


def _paper_random(i: int, spec: DatasetSpec) -> Preset:
    K = len(_classes(spec.mixture))
    C = random_costs(K, np.random.default_rng([PAPER_SEED, i, 1]))
    costly = costliest_mistakes(spec.mixture, C)
    ((truth, pred),) = costly
    return Preset(
        f"random_{i}",
        f"Random dataset {i} of the paper's protocol with its first random cost matrix: "
        f"the costliest mistake of a cost-blind classifier is {truth} taken for {pred}.",
        "Fig. 9 / Fig. 3",
        spec,
        C,
        costly,
    )


class _LazyPresets(Mapping):
    """Read-only ``{name: Preset}``; each preset is built on first access (importing stays fast)."""

    def __init__(self, builders: dict):
        self._builders, self._built = builders, {}

    def __getitem__(self, name: str) -> Preset:
        if name not in self._builders:
            raise KeyError(name)
        if name not in self._built:
            self._built[name] = self._builders[name]()
        return self._built[name]

    def __iter__(self):
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)


def _random_builder(i: int):
    return lambda: _paper_random(i, paper_random_spec(i))


PRESETS = _LazyPresets(
    {
        "airport": _airport,
        "fig7": _fig7,
        "paths": _paths,
        "xor": _xor,
        "rings": _rings,
        "imbalanced": _imbalanced,
        **{f"random_{i}": _random_builder(i) for i in range(10)},
    }
)


# ---------------------------------------------------------------------------------------------------------------
# CSV files: feature columns + a label column (+ an optional train/test split column)
# ---------------------------------------------------------------------------------------------------------------


def split_dataset(X, y, test_fraction: float = 0.25, seed=0, feature_names=None, name: str = "") -> Dataset:
    """Random train/test split (stratified when every class has 2+ points) of labelled data into a Dataset."""
    from sklearn.model_selection import train_test_split

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    test_fraction = _check_fraction(test_fraction, "test_fraction", 1.0)
    classes, counts = np.unique(y, return_counts=True)
    if test_fraction == 0:
        X_train, X_test, y_train, y_test = X, X[:0], y, y[:0]
    else:
        stratify = y if counts.min() >= 2 and round(test_fraction * len(y)) >= len(classes) else None
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=test_fraction, random_state=seed, stratify=stratify
        )
    names = tuple(feature_names) if feature_names is not None else tuple(f"x{j}" for j in range(X.shape[1]))
    return Dataset(X_train, y_train, X_test, y_test, tuple(classes.tolist()), names, name)


def _read_bytes(source) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    if isinstance(source, (str, Path)):
        try:
            return Path(source).read_bytes()
        except OSError as exc:
            raise ValueError(
                f"CSV file {str(source)!r} could not be read ({exc.strerror}); check the path."
            ) from None
    if hasattr(source, "read"):
        data = source.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    raise ValueError(f"source is a {type(source).__name__}; give a file path, bytes or an open file.")


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"the CSV file is not UTF-8 text (byte {exc.start} is {data[exc.start]:#x}); save it as UTF-8 CSV."
        ) from None


def _check_header(text: str) -> list:
    try:
        header = next(csv.reader(io.StringIO(text)), None)
    except csv.Error as exc:
        raise ValueError(
            f"the CSV header could not be parsed ({exc}); check the quoting of the first line."
        ) from None
    if not header or not any(h.strip() for h in header):
        raise ValueError(
            "the CSV file is empty; give a header line with column names and one line per point."
        )
    header = [h.strip() for h in header]
    if any(not h for h in header):
        raise ValueError(f"CSV column {header.index('') + 1} has no name; give every column a header.")
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise ValueError(f"CSV column name {dupes[0]!r} appears twice; give every column a distinct name.")
    numeric = [h for h in header if pd.to_numeric(pd.Series([h]), errors="coerce").notna().all()]
    if len(numeric) == len(header):
        raise ValueError(
            f"the first line {header} looks like data, not column names; add a header line (e.g. x,y,label)."
        )
    return header


def _parse_table(text: str, max_rows: int) -> pd.DataFrame:
    try:
        df = pd.read_csv(
            io.StringIO(text), dtype=str, keep_default_na=False, nrows=max_rows + 1, skipinitialspace=True
        )
    except pd.errors.ParserError as exc:
        raise ValueError(
            f"the CSV file could not be parsed ({exc}); every line needs the same number of "
            "comma-separated fields as the header."
        ) from None
    df.columns = [c.strip() for c in df.columns]
    if len(df) == 0:
        raise ValueError("the CSV file has a header but no data lines; add one line per point.")
    if len(df) > max_rows:
        raise ValueError(
            f"the CSV file has more than {max_rows} data lines (MAX_ROWS); use a sample of the data."
        )
    return df


def _numeric_features(df: pd.DataFrame, columns: list) -> np.ndarray:
    X = np.empty((len(df), len(columns)))
    for j, col in enumerate(columns):
        raw = df[col].str.strip()
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            i = int(bad[0])
            what = "empty" if raw.iloc[i] in ("", "nan", "NaN", "NA") else f"{raw.iloc[i]!r}"
            raise ValueError(
                f"CSV line {i + 2}, column {col!r}: the value is {what}; features must be finite "
                "numbers (fill in or delete the line, or drop the column)."
            )
        X[:, j] = values
    return X


def _parse_labels(raw: pd.Series, label_column: str) -> np.ndarray:
    raw = raw.str.strip()
    empty = np.flatnonzero((raw == "").to_numpy())
    if empty.size:
        raise ValueError(
            f"CSV line {int(empty[0]) + 2}: the label ({label_column!r}) is empty; give every point a class."
        )
    as_num = pd.to_numeric(raw, errors="coerce")
    if as_num.notna().all() and np.all(np.mod(as_num, 1) == 0):
        return as_num.to_numpy(dtype=np.int64)  # integer labels sort numerically (2 before 10)
    return raw.to_numpy(dtype=object)


def _pick_label_column(header: list, label_column) -> str:
    if label_column is None:
        return LABEL_COLUMN if LABEL_COLUMN in header else header[-1]
    if label_column not in header:
        raise ValueError(
            f"label_column {label_column!r} is not a column of the CSV file; choose one of {header}."
        )
    return label_column


def _split_mask(df: pd.DataFrame, split_column: str) -> np.ndarray:
    values = df[split_column].str.strip().str.lower()
    bad = np.flatnonzero(~values.isin(["train", "test"]).to_numpy())
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"CSV line {i + 2}, column {split_column!r}: the value is {df[split_column].iloc[i]!r}; "
            "use 'train' or 'test' (or drop the column to split at random)."
        )
    return (values == "test").to_numpy()


def _check_classes(y: np.ndarray, where: str) -> None:
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(
            f"{where} has a single class {classes[0]!r}; a classifier needs points of at least 2 classes."
        )
    if len(classes) > MAX_CLASSES:
        raise ValueError(
            f"{where} has {len(classes)} classes; at most MAX_CLASSES = {MAX_CLASSES} are supported "
            "(is the label column right?)."
        )


def read_csv(
    source,
    label_column: str | None = None,
    test_fraction: float = 0.25,
    seed=0,
    max_rows: int = MAX_ROWS,
    name: str = "",
) -> Dataset:
    """Read labelled points from a CSV file (path, bytes or open file) into a Dataset.

    Columns: numeric features, a label column (``label_column``; default "label" if present, else the last
    column; labels may be strings, stripped of surrounding spaces; whole numbers stay integers) and optionally
    a ``split`` column of "train"/"test". Without it the points are split at random (``test_fraction``,
    ``seed``). Limits: ``MAX_ROWS`` lines (or ``max_rows``), ``MAX_FEATURES`` features, ``MAX_CLASSES``.
    """
    text = _decode(_read_bytes(source))
    header = _check_header(text)
    label_column = _pick_label_column(header, label_column)
    df = _parse_table(text, int(max_rows))
    features = [c for c in df.columns if c not in (label_column, SPLIT_COLUMN)]
    if not features:
        raise ValueError(
            f"the CSV file has no feature column besides the label {label_column!r}; add at least "
            "one numeric column."
        )
    if len(features) > MAX_FEATURES:
        raise ValueError(
            f"the CSV file has {len(features)} feature columns; at most MAX_FEATURES = "
            f"{MAX_FEATURES} are supported."
        )
    X = _numeric_features(df, features)
    y = _parse_labels(df[label_column], label_column)
    _check_classes(y, f"the label column {label_column!r}")
    if SPLIT_COLUMN not in df.columns:
        return split_dataset(X, y, test_fraction, seed, features, name)
    test = _split_mask(df, SPLIT_COLUMN)
    _check_classes(y[~test], "the training split")
    classes = tuple(np.unique(y).tolist())
    return Dataset(X[~test], y[~test], X[test], y[test], classes, tuple(features), name)


def to_csv(dataset: Dataset, path_or_buffer=None) -> str | None:
    """Write a Dataset as CSV: feature columns, ``label``, ``split`` (train/test). Returns the text if no path.

    Floats are written with full precision, so ``read_csv(to_csv(ds))`` gives back identical arrays.
    """
    clash = {LABEL_COLUMN, SPLIT_COLUMN} & set(dataset.feature_names)
    if clash:
        raise ValueError(
            f"feature name {min(clash)!r} is reserved for the label/split columns; rename the feature."
        )
    frames = []
    for X, y, split in (
        (dataset.X_train, dataset.y_train, "train"),
        (dataset.X_test, dataset.y_test, "test"),
    ):
        part = pd.DataFrame(np.asarray(X, dtype=np.float64), columns=list(dataset.feature_names))
        part[LABEL_COLUMN] = np.asarray(y, dtype=object)
        part[SPLIT_COLUMN] = split
        frames.append(part)
    text = pd.concat(frames, ignore_index=True).to_csv(index=False, lineterminator="\n", float_format=None)
    if path_or_buffer is None:
        return text
    if isinstance(path_or_buffer, (str, Path)):
        Path(path_or_buffer).write_text(text, encoding="utf-8")
    else:
        path_or_buffer.write(text)
    return None


# ---------------------------------------------------------------------------------------------------------------
# scikit-learn's bundled real datasets, and the sample_data/ files of the presets
# ---------------------------------------------------------------------------------------------------------------

BUNDLED = {
    "digits": "8x8 handwritten digits, 1797 images, 10 classes (the MNIST stand-in)",
    "iris": "Iris flowers, 150 points, 4 features, 3 species",
    "wine": "Wine cultivars, 178 points, 13 chemical features, 3 classes",
    "breast_cancer": "Breast cancer (Wisconsin), 569 points, 30 features, malignant vs benign",
}


def load_bundled(name: str, test_fraction: float = 0.25, seed=0) -> Dataset:
    """One of scikit-learn's bundled datasets (``BUNDLED``) as a stratified train/test Dataset.

    Labels are the class names (digits: the integers 0-9).
    """
    import sklearn.datasets as skd

    if name not in BUNDLED:
        raise ValueError(f"bundled dataset {name!r} does not exist; choose one of {list(BUNDLED)}.")
    bunch = getattr(skd, f"load_{name}")()
    names = np.asarray(bunch.target_names)
    y = bunch.target if name == "digits" else names[bunch.target].astype(object)
    features = [str(f) for f in getattr(bunch, "feature_names", [])] or None
    ds = split_dataset(bunch.data, y, test_fraction, seed, features, name)
    ds.story = BUNDLED[name]
    return ds


def write_samples(directory=SAMPLE_DIR) -> list:
    """Write every preset as ``<name>.csv`` (points) and ``<name>.json`` (story, spec, costs) into directory."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, preset in PRESETS.items():
        to_csv(preset.dataset(), directory / f"{name}.csv")
        (directory / f"{name}.json").write_text(
            json.dumps(preset.to_dict(), indent=1) + "\n", encoding="utf-8"
        )
        written += [directory / f"{name}.csv", directory / f"{name}.json"]
    return written


def load_preset(name: str, directory=SAMPLE_DIR) -> Preset:
    """A preset by name, from ``<name>.json`` in directory when present, else built from ``PRESETS``."""
    path = Path(directory) / f"{name}.json"
    if path.is_file():
        return Preset.from_dict(json.loads(path.read_text(encoding="utf-8")))
    if name not in PRESETS:
        raise ValueError(
            f"sample {name!r} does not exist; choose one of {list(PRESETS)} "
            f"(scikit-learn's {list(BUNDLED)} load with load_bundled)."
        )
    return PRESETS[name]


def load_sample(name: str, directory=SAMPLE_DIR) -> Dataset:
    """A preset's dataset by name: points from ``<name>.csv`` when present (else sampled from its spec), with
    the preset's mixture, spec, story, suggested cost matrix and costly mistakes attached."""
    preset = load_preset(name, directory)
    path = Path(directory) / f"{name}.csv"
    if not path.is_file():
        return preset.dataset()
    ds = read_csv(path, name=name)
    ds.classes = preset.classes
    ds.mixture, ds.spec, ds.story = preset.spec.mixture, preset.spec, preset.story
    ds.cost_matrix, ds.costly_mistakes = preset.cost_matrix.copy(), preset.costly_mistakes
    return ds
