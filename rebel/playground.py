"""Engine-side logic of the Playground page: configuration, training both models, grids and metrics at t.

The page (``pages/1_Playground.py``) holds widgets only; everything it computes comes from here, and nothing
here imports streamlit.

- ``Config``: the full shareable configuration (preset name, ``DatasetSpec``, cost matrix, hyper-parameters),
  with its JSON session file and URL query-string encodings (both validated on the way in).
- ``train_pair``: fits REBEL with the cost matrix and the two-step baseline (REBEL with 0-1 costs, posterior
  sigma(2H) normalised, then the minimum-expected-cost class) on one dataset, and evaluates both on a grid.
  ``TrainedPair`` holds the staged class indices of both on the grid, train and test points (t = 0 is after
  a0), the boosting weights per round, and ``metrics(t)``.
- Small pure helpers the page needs: cost-matrix tables, resizing a matrix when classes change, a cluster from
  a dragged box, CSV import/export of 2-D point datasets (on top of ``rebel.data.read_csv``/``to_csv``).

Every error is a ``ValueError`` whose message names the entry and the fix; the page shows it with st.error.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import zlib
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from rebel.costs import decompose, min_risk_class, validate_cost_matrix
from rebel.data import (
    PRESETS,
    Dataset,
    DatasetSpec,
    bayes_min_risk,
    make_dataset,
    mixture_classes,
    read_csv,
    to_csv,
    validate_mixture,
)
from rebel.estimator import RebelClassifier

SESSION_FORMAT = "rebel-explorer-session"
SESSION_VERSION = 1
DEFAULT_PRESET = "airport"
HYPER_LIMITS = {"n_estimators": (1, 1000), "max_depth": (1, 4), "n_thresholds": (2, 255)}
DEFAULT_HYPER = {"n_estimators": 100, "max_depth": 2, "n_thresholds": 200}
GRID_SIZE = 200  # cells per axis of the decision-region grid
GRID_BUDGET = 12_000_000  # (T + 1) * cells kept per staged grid (int16): ~24 MB per model
GRID_PAD = 0.08  # grid margin around the data, as a fraction of its range
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
MAX_POINTS = 20_000  # points of a Playground dataset: it retrains on every change, so keep it live
MAX_QUERY_CHARS = 20_000  # length of the ?cfg= link parameter
MAX_CONFIG_BYTES = 1024 * 1024  # decompressed size of a link's configuration
QUERY_KEY = "cfg"


# ---------------------------------------------------------------------------------------------------------------
# Configuration, session JSON and URL query string
# ---------------------------------------------------------------------------------------------------------------


def validate_hyper(hyper) -> dict:
    """Checked hyper-parameters ``{n_estimators, max_depth, n_thresholds}`` (missing ones take the defaults)."""
    if not isinstance(hyper, dict):
        raise ValueError(f"hyper-parameters are {hyper!r}; give a dict such as {DEFAULT_HYPER}.")  # noqa: TRY004
    unknown = set(hyper) - set(DEFAULT_HYPER)
    if unknown:
        raise ValueError(f"hyper-parameters: unknown entry {min(unknown)!r}; allowed: {list(DEFAULT_HYPER)}.")
    out = {}
    for name, (lo, hi) in HYPER_LIMITS.items():
        value = hyper.get(name, DEFAULT_HYPER[name])
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
            raise ValueError(f"{name} is {value!r}; it must be a whole number between {lo} and {hi}.")
        out[name] = int(value)
    return out


@dataclass
class Config:
    """Everything that defines what the Playground shows: data, costs and hyper-parameters."""

    spec: DatasetSpec
    cost_matrix: np.ndarray
    hyper: dict = field(default_factory=lambda: dict(DEFAULT_HYPER))
    preset: str = ""

    def __post_init__(self):
        if not isinstance(self.spec, DatasetSpec):
            # A dict, or a spec made by a reloaded copy of rebel.data (streamlit re-imports edited modules).
            self.spec = DatasetSpec.from_dict(
                self.spec if isinstance(self.spec, dict) else self.spec.to_dict()
            )
        self.cost_matrix = validate_cost_matrix(self.cost_matrix, n_classes=len(self.classes))
        self.hyper = validate_hyper(self.hyper)
        self.preset = str(self.preset or "")
        if self.spec.n_points > MAX_POINTS:
            raise ValueError(
                f"n_points is {self.spec.n_points}; the Playground retrains on every change, so it takes at most "
                f"{MAX_POINTS} points. Lower n_points."
            )

    @property
    def classes(self) -> tuple:
        return mixture_classes(self.spec.mixture)

    def to_dict(self) -> dict:
        return {
            "format": SESSION_FORMAT,
            "version": SESSION_VERSION,
            "preset": self.preset,
            "classes": list(self.classes),
            "spec": self.spec.to_dict(),
            "cost_matrix": self.cost_matrix.tolist(),
            "hyper": dict(self.hyper),
        }

    @classmethod
    def from_dict(cls, d) -> Config:
        if not isinstance(d, dict):
            raise ValueError(  # noqa: TRY004 - every user-file problem is a ValueError the page shows
                "session must be a JSON object with 'spec', 'cost_matrix' and 'hyper' entries."
            )
        if d.get("format", SESSION_FORMAT) != SESSION_FORMAT:
            raise ValueError(f"session format is {d.get('format')!r}; expected {SESSION_FORMAT!r}.")
        if d.get("version", SESSION_VERSION) != SESSION_VERSION:
            raise ValueError(
                f"session version is {d.get('version')!r}; this app reads version {SESSION_VERSION}."
            )
        missing = [k for k in ("spec", "cost_matrix") if k not in d]
        if missing:
            raise ValueError(
                f"session is missing the entry {missing[0]!r}; save a session from the app to see one."
            )
        spec = DatasetSpec.from_dict(d["spec"])
        classes = mixture_classes(spec.mixture)
        if "classes" in d and list(map(str, d["classes"])) != list(classes):
            raise ValueError(
                f"session classes {d['classes']} do not match the mixture's classes {list(classes)}; "
                "fix the 'classes' entry or remove it."
            )
        return cls(spec, d["cost_matrix"], d.get("hyper", {}), d.get("preset", ""))

    def key(self) -> str:
        """Content hash of the configuration (changes whenever anything that affects the output changes)."""
        return hashlib.sha1(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


def preset_config(name: str, hyper: dict | None = None) -> Config:
    """The configuration of a named preset (its dataset spec and suggested cost matrix)."""
    if name not in PRESETS:
        raise ValueError(f"preset is {name!r}; choose one of {list(PRESETS)}.")
    p = PRESETS[name]
    return Config(p.spec, p.cost_matrix.copy(), dict(hyper or DEFAULT_HYPER), name)


def session_json(cfg: Config) -> str:
    """The configuration as an indented JSON session file (what the download button saves)."""
    return json.dumps(cfg.to_dict(), indent=2)


def parse_session_json(data) -> Config:
    """Read a session file (bytes or str); raise ``ValueError`` saying what is wrong with it."""
    if isinstance(data, bytes):
        if len(data) > MAX_UPLOAD_BYTES:
            raise ValueError(f"session file is {len(data)} bytes; at most {MAX_UPLOAD_BYTES} are accepted.")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                "session file is not UTF-8 text; upload a .json file saved by this app."
            ) from None
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"session file is not valid JSON ({exc.msg} at line {exc.lineno}); "
            "upload a .json file saved by this app."
        ) from None
    except (ValueError, RecursionError):  # nested too deeply, or a number with thousands of digits
        raise ValueError(
            "session file could not be read (nested too deeply or a number too long); "
            "upload a .json file saved by this app."
        ) from None
    return Config.from_dict(obj)


def encode_query(cfg: Config) -> str:
    """Compact URL-safe text for the query string: base64url of the zlib-compressed JSON configuration."""
    raw = json.dumps(cfg.to_dict(), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def decode_query(text: str) -> Config:
    """Inverse of ``encode_query``; raise ``ValueError`` for a damaged, oversized or foreign link."""
    text = str(text)
    if len(text) > MAX_QUERY_CHARS:
        raise ValueError(
            f"the link's '{QUERY_KEY}' parameter has {len(text)} characters; at most "
            f"{MAX_QUERY_CHARS} are read. Share a session file instead."
        )
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), MAX_CONFIG_BYTES)
        if inflate.unconsumed_tail:
            raise ValueError("too large")
        obj = json.loads(raw)
    except (ValueError, RecursionError, zlib.error):
        raise ValueError(
            f"the link's '{QUERY_KEY}' parameter is damaged (could not decode it); "
            "copy the full address again or remove the parameter."
        ) from None
    return Config.from_dict(obj)


# ---------------------------------------------------------------------------------------------------------------
# Cost-matrix and mixture helpers
# ---------------------------------------------------------------------------------------------------------------


def cost_frame(cost_matrix, classes) -> pd.DataFrame:
    """The cost matrix as a table: index = true class, columns = predicted class (what the editor shows)."""
    names = [str(c) for c in classes]
    return pd.DataFrame(
        np.asarray(cost_matrix, dtype=np.float64),
        index=pd.Index(names, name="truth \\ predicted"),
        columns=names,
    )


def cost_from_frame(df: pd.DataFrame, classes) -> np.ndarray:
    """Read an edited cost table back; errors name the cell by its classes (truth row, predicted column)."""
    names = [str(c) for c in classes]
    values = df.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    if values.shape != (len(names), len(names)):
        raise ValueError(
            f"the cost table is {values.shape[0]} x {values.shape[1]}; it must be "
            f"{len(names)} x {len(names)} (one row and column per class)."
        )
    for i, j in np.argwhere(~np.isfinite(values) | (values < 0)):
        raw = df.iloc[i, j]
        raise ValueError(
            f"cost of predicting {names[j]!r} when the truth is {names[i]!r} is {raw!r}; enter a number >= 0."
        )
    if not (values > 0).any():
        raise ValueError(
            "every cost is 0, so there is nothing to learn; give at least one mistake a positive cost."
        )
    return values


def resize_cost_matrix(cost_matrix, old_classes, new_classes) -> np.ndarray:
    """Follow a change of classes: keep the costs between classes present before, 0-1 costs for new ones."""
    old = {str(c): i for i, c in enumerate(old_classes)}
    new = [str(c) for c in new_classes]
    C = 1.0 - np.eye(len(new))
    M = np.asarray(cost_matrix, dtype=np.float64)
    for i, a in enumerate(new):
        for j, b in enumerate(new):
            if a in old and b in old:
                C[i, j] = M[old[a], old[b]]
    if not (C > 0).any():
        C = 1.0 - np.eye(len(new))
    return C


def add_box_cluster(mixture, cls: str, x_range, y_range, weight: float | None = None) -> pd.DataFrame:
    """Mixture with one more Gaussian of class ``cls`` at a dragged box: mean = centre, std = half the box side.

    ``weight`` defaults to the mean weight of the existing components, so the new cluster gets a typical share.
    """
    df = validate_mixture(mixture)
    (x0, x1), (y0, y1) = sorted(map(float, x_range)), sorted(map(float, y_range))
    if not all(np.isfinite([x0, x1, y0, y1])):
        raise ValueError("the dragged box has no finite corners; drag a box inside the plot.")
    span = max(float(df["std_x"].mean()), 1e-3) * 0.05  # boxes thinner than this become a small round blob
    row = {
        "class": str(cls).strip(),
        "mean_x": round((x0 + x1) / 2, 3),
        "mean_y": round((y0 + y1) / 2, 3),
        "std_x": round(max((x1 - x0) / 2, span), 3),
        "std_y": round(max((y1 - y0) / 2, span), 3),
        "corr": 0.0,
        "angle": 0.0,
        "weight": float(df["weight"].mean() if weight is None else weight),
    }
    if not row["class"]:
        raise ValueError("choose the class of the new cluster before dragging a box.")
    return validate_mixture(pd.concat([df, pd.DataFrame([row])], ignore_index=True))


def default_tree_json(classes) -> str:
    """A starting class tree for the taxonomy preset: the first half of the classes under "group 1", the rest
    under "group 2" (as a JSON parent map the user can edit)."""
    names = [str(c) for c in classes]
    half = (len(names) + 1) // 2
    return json.dumps(
        {name: ("group 1" if i < half else "group 2") for i, name in enumerate(names)}, indent=1
    )


def parse_tree_json(text) -> dict:
    """Read the taxonomy tree typed by the user (a JSON parent map or nested mapping, see ``taxonomy_costs``)."""
    try:
        tree = json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:  # ValueError includes JSONDecodeError
        raise ValueError(
            f"the class tree is not valid JSON ({getattr(exc, 'msg', exc)}); write it like "
            '{"duck": "bird", "goose": "bird", "cat": "mammal"}.'
        ) from None
    if not isinstance(tree, dict):
        raise ValueError(  # noqa: TRY004 - every user-input problem is a ValueError the page shows
            "the class tree must be a JSON object mapping each class to its parent group."
        )
    return tree


# ---------------------------------------------------------------------------------------------------------------
# Point datasets as CSV (x, y, label, split)
# ---------------------------------------------------------------------------------------------------------------


def dataset_to_csv(ds: Dataset) -> str:
    """Training and test points as CSV (columns x, y, label, split), via ``rebel.data.to_csv``."""
    return to_csv(ds)


def parse_dataset_csv(data, test_fraction: float = 1 / 3, seed: int = 0, name: str = "uploaded") -> Dataset:
    """Read an uploaded point dataset with ``rebel.data.read_csv`` (CSV text only, never pickle) and check
    what the Playground needs: two feature columns (it draws the plane) and training points in every class.

    Without a split column the points are split at random (``test_fraction``, ``seed``). Raises ``ValueError``
    naming the line, column or limit to fix.
    """
    if isinstance(data, bytes) and len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"CSV file is {len(data)} bytes; at most {MAX_UPLOAD_BYTES} are accepted.")
    ds = read_csv(
        data.encode() if isinstance(data, str) else data,
        test_fraction=test_fraction,
        seed=seed,
        max_rows=MAX_POINTS,
        name=name,
    )
    if len(ds.feature_names) != 2:
        raise ValueError(
            f"the CSV file has {len(ds.feature_names)} feature column(s) {list(ds.feature_names)}; "
            "the Playground draws the plane, so give exactly two (e.g. x,y,label)."
        )
    missing = sorted(set(ds.classes) - set(ds.y_train.tolist()), key=str)
    if missing:
        raise ValueError(
            f"class {missing[0]!r} has no training points in the CSV file; add some or relabel them."
        )
    return ds


def dataset_from_config(cfg: Config) -> Dataset:
    """Sample the configuration's dataset; check that every class has training points."""
    return dataset_from_spec(cfg.spec, cfg.preset or "custom")


def dataset_from_spec(spec: DatasetSpec, name: str = "custom") -> Dataset:
    """Sample a spec's train/test points; raise ``ValueError`` if a class gets no training points."""
    ds = make_dataset(spec, name)
    missing = sorted(set(ds.classes) - set(ds.y_train))
    if missing:
        raise ValueError(
            f"class {missing[0]!r} got no training points; raise its cluster weights or the number of points."
        )
    return ds


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


def content_key(*parts) -> str:
    """Hash of arrays and JSON-able values: the cache key of a training run (same content, same key)."""
    h = hashlib.sha1()
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(str((part.dtype, part.shape)).encode())
            h.update(
                np.ascontiguousarray(part).tobytes()
                if part.dtype != object
                else "\x1f".join(map(str, part.ravel())).encode()
            )
        else:
            h.update(json.dumps(part, sort_keys=True, default=str).encode())
        h.update(b"\x1e")
    return h.hexdigest()[:20]


def dataset_key(ds: Dataset) -> str:
    return content_key(ds.X_train, ds.y_train, ds.X_test, ds.y_test, list(ds.classes))


def staged_scores(model: RebelClassifier, X) -> np.ndarray:
    """H after a0 (t = 0) and after every round, shape (T + 1, N, K): the staged scores of Eq. 3."""
    X = np.asarray(X, dtype=np.float64)
    out = np.empty((model.n_estimators_ + 1, X.shape[0], model.a0_.shape[0]))
    out[0] = model.a0_
    for t, H in enumerate(model.staged_decision_function(X), start=1):
        out[t] = H
    return out


def _posterior_min_risk(H: np.ndarray, cost_matrix: np.ndarray) -> np.ndarray:
    """Two-step decision from 0-1 scores: posterior sigma(2H) (normalisation does not move the argmin), then
    ``argmin_k sum_y p(y|x) C[y, k]``."""
    q = 1.0 / (1.0 + np.exp(-2.0 * np.clip(H, -350, 350)))
    return min_risk_class(q, cost_matrix)


def staged_two_step(model: RebelClassifier, X, cost_matrix) -> np.ndarray:
    """Two-step min-risk class index at t = 0..T, shape (T + 1, N) int16, one stage at a time (low memory)."""
    X = np.asarray(X, dtype=np.float64)
    out = np.empty((model.n_estimators_ + 1, X.shape[0]), dtype=np.int16)
    out[0] = _posterior_min_risk(np.broadcast_to(model.a0_, (X.shape[0], model.a0_.shape[0])), cost_matrix)
    for t, H in enumerate(model.staged_decision_function(X), start=1):
        out[t] = _posterior_min_risk(H, cost_matrix)
    return out


def boosting_weights(model: RebelClassifier, X, y_idx, cost_matrix) -> np.ndarray:
    """Weight of each training sample at t = 0..T, ``sum_k c+_nk e^{H_nk} + c-_nk e^{-H_nk}`` (S.6), each stage
    normalised to mean 1. Shape (T + 1, N) float32."""
    d = decompose(np.asarray(cost_matrix)[np.asarray(y_idx)])
    H = staged_scores(model, X)
    w = (d.cp[None] * np.exp(np.clip(H, -300, 300)) + d.cm[None] * np.exp(-np.clip(H, -300, 300))).sum(axis=2)
    w /= np.maximum(w.mean(axis=1, keepdims=True), np.finfo(np.float64).tiny)
    return w.astype(np.float32)


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


@dataclass
class TrainedPair:
    """REBEL and the two-step baseline fitted on one dataset and cost matrix, evaluated on a grid.

    Staged arrays have one row per t = 0..T (t = 0 is a0 only). Heavy results that not every view needs (the
    two-step regions, boosting weights) are computed on first use and kept.
    """

    dataset: Dataset
    cost_matrix: np.ndarray
    hyper: dict
    rebel: RebelClassifier
    two_step: RebelClassifier
    grid: Grid
    regions: np.ndarray  # (T + 1, ny, nx) int16: REBEL's min-risk class on the grid
    fit_seconds: float  # REBEL fit + staged grid (what the user waits for)
    baseline_seconds: float
    key: str = ""

    @property
    def n_rounds(self) -> int:
        return self.rebel.n_estimators_

    @property
    def classes(self) -> tuple:
        return self.dataset.classes

    @cached_property
    def y_train_idx(self) -> np.ndarray:
        return self.dataset.class_index(self.dataset.y_train)

    @cached_property
    def y_test_idx(self) -> np.ndarray:
        return self.dataset.class_index(self.dataset.y_test)

    @cached_property
    def staged_train(self) -> dict:
        """Class indices on the training points, (T + 1, N_train) int16 per model."""
        X = self.dataset.X_train
        return {
            "REBEL": self.rebel.staged_class_indices(X),
            "two-step": staged_two_step(self.two_step, X, self.cost_matrix),
        }

    @cached_property
    def staged_test(self) -> dict:
        X = self.dataset.X_test
        if X.shape[0] == 0:
            empty = np.empty((self.n_rounds + 1, 0), dtype=np.int16)
            return {"REBEL": empty, "two-step": empty}
        return {
            "REBEL": self.rebel.staged_class_indices(X),
            "two-step": staged_two_step(self.two_step, X, self.cost_matrix),
        }

    @cached_property
    def two_step_regions(self) -> np.ndarray:
        """(T + 1, ny, nx) int16: the two-step model's min-risk class on the grid."""
        return staged_two_step(self.two_step, self.grid.points, self.cost_matrix).reshape(
            -1, *self.grid.shape
        )

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
        return bayes_min_risk(self.dataset.mixture, self.dataset.X_test, self.cost_matrix)

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

    def clamp(self, t: int) -> int:
        return int(min(max(int(t), 0), self.n_rounds))

    def metrics(self, t: int, model: str = "REBEL") -> StageMetrics:
        """Test-set metrics of ``model`` ("REBEL" or "two-step") after t rounds."""
        return stage_metrics(
            self.y_test_idx, self.staged_test[model][self.clamp(t)], self.cost_matrix, self.bayes_test_cost
        )

    def train_predictions(self, t: int, model: str = "REBEL") -> np.ndarray:
        return self.staged_train[model][self.clamp(t)]

    def test_predictions(self, t: int, model: str = "REBEL") -> np.ndarray:
        return self.staged_test[model][self.clamp(t)]


def train_pair(dataset: Dataset, cost_matrix, hyper: dict, grid_size: int | None = None) -> TrainedPair:
    """Fit REBEL (with ``cost_matrix``) and the two-step baseline (0-1 costs) with the same hyper-parameters;
    evaluate REBEL's staged min-risk class on a grid over all points (the regions animation)."""
    hyper = validate_hyper(hyper)
    C = validate_cost_matrix(cost_matrix, n_classes=dataset.n_classes)
    missing = sorted(set(dataset.classes) - set(dataset.y_train))
    if missing:
        raise ValueError(f"class {missing[0]!r} has no training points; add some or remove the class.")
    X_all = np.vstack([dataset.X_train, dataset.X_test]) if dataset.X_test.shape[0] else dataset.X_train
    grid = make_grid(X_all, grid_size or grid_size_for(hyper["n_estimators"]))
    start = time.perf_counter()
    rebel = RebelClassifier(cost_matrix=C, **hyper).fit(dataset.X_train, dataset.y_train)
    regions = rebel.staged_class_indices(grid.points).reshape(-1, *grid.shape)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    two_step = RebelClassifier(cost_matrix=None, **hyper).fit(dataset.X_train, dataset.y_train)
    baseline_seconds = time.perf_counter() - start
    return TrainedPair(
        dataset,
        C,
        hyper,
        rebel,
        two_step,
        grid,
        regions,
        fit_seconds,
        baseline_seconds,
        content_key(dataset_key(dataset), C, hyper, grid.shape),
    )


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
