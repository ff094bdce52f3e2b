"""Mixtures of Gaussian clusters in the plane: the table, its checks, sampling, datasets and the random protocol.

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

Also here: ``label_indices`` (labels -> indices into sorted class names, the one helper for it), ``Dataset``
(X_train (N, d) float64, y_train (N,) labels, X_test, y_test, class names), ``DatasetSpec`` (JSON-able recipe)
and the paper's random protocol (``RANDOM_PROTOCOL``, ``paper_random_spec``, ``paper_protocol``).

Everything here is plain data (DataFrames, ndarrays, dicts that ``json.dumps`` accepts); nothing imports
streamlit. Every error is a ``ValueError`` naming the argument, the bad value and the fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rebel.cost_presets import random_costs
from rebel.costs import label_indices
from rebel.names import clean_names
from rebel.params import MAX_CLASSES, MAX_SAMPLED_POINTS, check_n_classes

MAX_COMPONENTS = 200  # rows of a mixture table
DECIMALS = 4  # sampled coordinates are rounded to this many decimals

MIXTURE_COLUMNS = ("class", "mean_x", "mean_y", "std_x", "std_y", "corr", "angle", "weight")
MIXTURE_DEFAULTS = {"corr": 0.0, "angle": 0.0, "weight": 1.0}
FEATURE_NAMES = ("x", "y")


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
    df["class"] = clean_names(names.astype(str).str.strip().to_numpy(dtype=object), "the class name")
    n_classes = df["class"].nunique()
    if n_classes < 2:
        raise ValueError(
            f"mixture has a single class {df['class'].iloc[0]!r}; add components of at least one other class."
        )
    check_n_classes(n_classes, "the mixture")


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
    """(J, 2, 2) component covariances ``R S R^T`` (see the module docstring).

    Written out entry by entry with element-wise operations, not ``@``: a matrix product goes through BLAS,
    whose summation order and fused multiply-adds depend on the CPU, and the sampled points (and so the files
    in ``sample_data/``) must be the same bits on every machine.
    """
    sx, sy, rho = df["std_x"].to_numpy(), df["std_y"].to_numpy(), df["corr"].to_numpy()
    a, b, c = sx**2, rho * sx * sy, sy**2  # S = [[a, b], [b, c]]
    theta = np.deg2rad(df["angle"].to_numpy())
    co, si = np.cos(theta), np.sin(theta)
    # R = [[co, -si], [si, co]]; (R S)[i, k] then (R S R^T)[i, j] = sum_k (R S)[i, k] R[j, k]
    rs00, rs01 = co * a - si * b, co * b - si * c
    rs10, rs11 = si * a + co * b, si * b + co * c
    cov = np.empty((len(df), 2, 2))
    cov[:, 0, 0] = rs00 * co - rs01 * si
    cov[:, 0, 1] = rs00 * si + rs01 * co
    cov[:, 1, 0] = rs10 * co - rs11 * si
    cov[:, 1, 1] = rs10 * si + rs11 * co
    return cov


def _cholesky_2x2(cov: np.ndarray) -> np.ndarray:
    """Lower Cholesky factors of (J, 2, 2) covariances in closed form (the same bits on every CPU, unlike
    LAPACK's): ``L = [[sqrt(s00), 0], [s10 / L00, sqrt(s11 - L10^2)]]``."""
    L = np.zeros_like(cov)
    L[:, 0, 0] = np.sqrt(cov[:, 0, 0])
    L[:, 1, 0] = 0.5 * (cov[:, 1, 0] + cov[:, 0, 1]) / L[:, 0, 0]
    L[:, 1, 1] = np.sqrt(np.maximum(cov[:, 1, 1] - L[:, 1, 0] ** 2, 0.0))
    return L


def component_cholesky(df: pd.DataFrame) -> np.ndarray:
    """(J, 2, 2) Cholesky factors of the component covariances, in closed form (``_cholesky_2x2``); a component
    whose covariance float64 cannot factor (a standard deviation so small that its square underflows, so large
    that it overflows, or a correlation within rounding of +-1) is a ValueError naming its row and the fix."""
    with np.errstate(all="ignore"):
        cov = _covariances(df)
        L = _cholesky_2x2(cov)
        pivot = (
            cov[:, 1, 1] - L[:, 1, 0] ** 2
        )  # the second pivot before its square root: > 0 when positive definite
        diag_ok = (
            (L[:, 0, 0] >= np.finfo(np.float64).tiny)
            & (pivot > 0)
            & (L[:, 1, 1] >= np.finfo(np.float64).tiny)
        )
        ok = diag_ok & np.isfinite(L).all(axis=(1, 2)) & np.isfinite(cov).all(axis=(1, 2))
    if not ok.all():
        j = int(np.flatnonzero(~ok)[0])
        row = df.iloc[j]
        raise ValueError(
            f"mixture row {j} (class {str(row['class'])!r}): std_x = {float(row['std_x'])!r}, "
            f"std_y = {float(row['std_y'])!r}, corr = {float(row['corr'])!r} give a covariance that is not "
            "positive definite in float64; use standard deviations between 1e-100 and 1e100 and a correlation "
            "further from -1 and 1."
        )
    return L


def _allocate(n: int, weights: np.ndarray) -> np.ndarray:
    """Split n into integer counts proportional to weights (largest remainder; ties to the first row)."""
    share = n * weights / weights.sum()
    counts = np.floor(share).astype(np.int64)
    order = np.argsort(-(share - counts), kind="stable")
    counts[order[: n - counts.sum()]] += 1
    return counts


def _check_count(n, name: str, minimum: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not minimum <= n <= MAX_SAMPLED_POINTS:
        raise ValueError(
            f"{name} is {n!r}; it must be a whole number between {minimum} and {MAX_SAMPLED_POINTS}."
        )
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
    L = component_cholesky(df)
    comp = np.repeat(np.arange(len(df)), counts)
    z = rng.standard_normal((n, 2))
    X = df[["mean_x", "mean_y"]].to_numpy()[comp]
    for j, block in enumerate(np.split(np.arange(n), np.cumsum(counts)[:-1])):
        zb = z[block]  # z @ L[j].T written element-wise (see _covariances)
        X[block, 0] += zb[:, 0] * L[j, 0, 0]
        X[block, 1] += zb[:, 0] * L[j, 1, 0] + zb[:, 1] * L[j, 1, 1]
    order = rng.permutation(n)
    X = np.round(X[order], DECIMALS)
    y = df["class"].to_numpy(dtype=object)[comp][order]
    if label_noise > 0:
        y = _flip_labels(y, _classes(df), label_noise, np.random.default_rng(noise_seq))
    return X, y


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
        return label_indices(y, self.classes)

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
    def classes(self) -> tuple:
        """Class names in sorted order (``mixture_classes``; the mixture was checked when the spec was made)."""
        return _classes(self.mixture)

    @property
    def n_test(self) -> int:
        return round(self.n_points * self.test_fraction)

    @property
    def n_train(self) -> int:
        return self.n_points - self.n_test

    def to_dict(self) -> dict:
        return {
            "mixture": mixture_records(self.mixture),
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


def mixture_records(mixture: pd.DataFrame) -> list:
    """The mixture's rows as dicts of Python values, class names as text: what
    ``mixture.astype({"class": str}).to_dict(orient="records")`` gives, column by column (about a tenth of its
    time; every link and session file writes it)."""
    names = list(mixture.columns)
    columns = [mixture[c].tolist() for c in names]
    k = names.index("class")
    columns[k] = [str(v) for v in columns[k]]
    return [dict(zip(names, row)) for row in zip(*columns)]


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
