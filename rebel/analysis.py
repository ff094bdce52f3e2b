"""Logic of the analysis pages (risk-score paths, cost gallery, cost sweep, theory); no streamlit here.

- ``Problem`` / ``problem_from_state``: the dataset, cost matrix and hyper-parameters a page works on: the
  Playground's shared session state when present, else a preset's defaults.
- Paths (Fig. 8, S.9): waypoint tables, clicked or dragged waypoints, points along each path and the staged
  scores H_t(x) there (``PathScores``).
- Gallery (Fig. 7, S.9): the four cost matrices of the figure for a user's class c and multiplier m, four
  trained models and each one's precision/recall of c on train and test (``train_gallery``).
- Sweep: one cost entry swept over a log range; per-class recall/precision and test cost of REBEL and of the
  two-step method at every value (``run_sweep``).
- Theory: the decomposition table (S.3-S.5), the loss levels L* and L_bullet (S.4/S.5), the per-round edge and
  loss ratio against the bound of S.6.1 (``round_diagnostics``) and the binary reduction to AdaBoost (S.8,
  ``binary_reduction``).

Every user-facing error is a ``ValueError`` naming the value and the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rebel import playground as pg
from rebel.baselines import first_best
from rebel.binning import bin_data
from rebel.cost_presets import fn_costs, fp_costs
from rebel.costs import decompose, min_risk_class, uniform_costs, validate_cost_matrix
from rebel.data import PRESETS, Dataset, sample_path
from rebel.estimator import RebelClassifier

PATH_SAMPLES = 201  # points per path (0 %, 0.5 %, ..., 100 % of its length)
TICK_FRACTIONS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)  # the nibs of Fig. 8
MAX_PATHS = 6
MAX_WAYPOINTS = 40  # per path
PATH_DEPTHS = {"stumps": 1, "depth-2 trees": 2}  # the two rows of Fig. 8
EXP_CLIP = 700.0  # |H| is clipped here before exp() in the per-round diagnostics (e^709 overflows float64)
MAX_SWEEP_VALUES = 40

Progress = Callable[[int, int, str], object]  # progress(done, total, label); returning False stops the work


# ---------------------------------------------------------------------------------------------------------------
# The problem a page works on
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """Dataset, cost matrix (sorted class order) and hyper-parameters; ``source`` says where they came from."""

    dataset: Dataset
    cost_matrix: np.ndarray
    hyper: dict
    preset: str = ""  # name of the preset the data was drawn from (unchanged), else ""
    source: str = "default"  # "playground" or "default"

    @property
    def classes(self) -> tuple:
        return tuple(self.dataset.classes)

    @property
    def key(self) -> str:
        return pg.content_key(pg.dataset_key(self.dataset), self.cost_matrix, self.hyper)

    @property
    def y_train_idx(self) -> np.ndarray:
        return self.dataset.class_index(self.dataset.y_train)

    @property
    def y_test_idx(self) -> np.ndarray:
        return self.dataset.class_index(self.dataset.y_test)


def default_problem(preset: str = pg.DEFAULT_PRESET, hyper: dict | None = None) -> Problem:
    """A preset's dataset and suggested costs with the Playground's default hyper-parameters."""
    cfg = pg.preset_config(preset, hyper)
    return Problem(pg.dataset_from_config(cfg), cfg.cost_matrix, dict(cfg.hyper), preset, "default")


def problem_from_state(state: Mapping, default_preset: str = pg.DEFAULT_PRESET) -> Problem:
    """The Playground's shared problem (keys "dataset", "cost_matrix", "hyper", "preset", "data_source"), or the
    default preset's when the Playground has not been opened. Raises ``ValueError`` if the shared state is
    inconsistent (the page then says so and uses the defaults)."""
    ds, C = state.get("dataset"), state.get("cost_matrix")
    if ds is None or C is None:
        return default_problem(default_preset)
    C = validate_cost_matrix(C, n_classes=ds.n_classes)
    hyper = pg.validate_hyper(dict(state.get("hyper") or pg.DEFAULT_HYPER))
    preset = str(state.get("preset") or "")
    if (
        state.get("data_source", "mixture") != "mixture"
        or preset not in PRESETS
        or tuple(PRESETS[preset].classes) != tuple(ds.classes)
    ):
        preset = ""
    return Problem(ds, C, hyper, preset, "playground")


def problem_or_default(state: Mapping, default_preset: str = pg.DEFAULT_PRESET) -> tuple[Problem, str | None]:
    """``problem_from_state``, falling back to the default preset when the shared state cannot be used; the
    second value is then the warning a page shows (else None)."""
    try:
        return problem_from_state(state, default_preset), None
    except ValueError as exc:
        note = f"The Playground's data could not be used ({exc}); showing the {default_preset!r} preset."
        return default_problem(default_preset), note


def problem_caption(problem: Problem) -> str:
    """One line (markdown) saying which data and costs a page uses."""
    ds, h = problem.dataset, problem.hyper
    what = (
        f"{len(ds.y_train)} training / {len(ds.y_test)} test points, classes "
        f"{', '.join(map(str, ds.classes))}; {h['n_estimators']} rounds, {h['n_thresholds']} thresholds"
    )
    if problem.source == "playground":
        return f"Using the Playground's dataset and cost matrix ({what}). Change them on the Playground page."
    return (
        f"The Playground has not been opened yet: using the **{problem.preset}** preset with its suggested "
        f"costs ({what}). Open the Playground to work on your own problem."
    )


def shared_model(state: Mapping, problem: Problem, max_depth: int) -> RebelClassifier | None:
    """The Playground's trained REBEL model if it was fitted on exactly this problem with this depth, else None."""
    pair = state.get("trained")
    if pair is None or problem.source != "playground" or int(problem.hyper["max_depth"]) != int(max_depth):
        return None
    try:
        same = (
            pg.dataset_key(pair.dataset) == pg.dataset_key(problem.dataset)
            and np.array_equal(pair.cost_matrix, problem.cost_matrix)
            and dict(pair.hyper) == problem.hyper
        )
    except AttributeError:
        return None
    return pair.rebel if same else None


def fit_rebel(dataset: Dataset, cost_matrix, hyper: dict, **override) -> RebelClassifier:
    """REBEL with ``hyper`` (entries in ``override`` win) fitted on the training points."""
    params = {**pg.validate_hyper(hyper), **override}
    return RebelClassifier(cost_matrix=cost_matrix, **params).fit(dataset.X_train, dataset.y_train)


staged_scores = pg.staged_scores  # H_t(x) for t = 0 (a0 only) .. T, shape (T + 1, N, K)


def scores_at(model: RebelClassifier, X, t: int) -> np.ndarray:
    """H_t(x) after the first t rounds (t clamped to 0..T), shape (N, K)."""
    X = np.asarray(X, dtype=np.float64)
    t = int(min(max(int(t), 0), model.n_estimators_))
    if t == model.n_estimators_:
        return model.decision_function(X)
    H = np.broadcast_to(model.a0_, (X.shape[0], model.a0_.shape[0])).copy()
    for s, H_s in enumerate(model.staged_decision_function(X), start=1):
        if s == t:
            return H_s
    return H


def _report(state: Progress | None, done: int, total: int, label: str) -> bool:
    """Call the progress callback; False means the caller asked to stop."""
    return state is None or state(done, total, label) is not False


# ---------------------------------------------------------------------------------------------------------------
# Risk-score paths (Fig. 8, S.9)
# ---------------------------------------------------------------------------------------------------------------


def across_data_paths(X, y_idx=None) -> dict:
    """Two default paths for any 2-D data: "A" along the diagonal of the central 90 % box, "B" through the
    training class medians (sorted by x), each extended a little beyond its ends."""
    X = np.asarray(X, dtype=np.float64)
    lo, hi = np.quantile(X, 0.05, axis=0), np.quantile(X, 0.95, axis=0)
    paths = {"A": [[round(lo[0], 2), round(lo[1], 2)], [round(hi[0], 2), round(hi[1], 2)]]}
    if y_idx is not None:
        y_idx = np.asarray(y_idx)
        medians = np.array([np.median(X[y_idx == k], axis=0) for k in np.unique(y_idx)])
        medians = medians[np.argsort(medians[:, 0], kind="stable")]
        if len(medians) >= 2 and np.linalg.norm(medians[-1] - medians[0]) > 0:
            ext = 0.25 * (medians[-1] - medians[0])
            pts = np.vstack([medians[0] - ext, medians, medians[-1] + ext])
            paths["B"] = np.round(pts, 2).tolist()
    return paths


def default_paths(problem: Problem) -> dict:
    """The preset's paths when the data is an unchanged preset that has some (Fig. 8), else ``across_data_paths``."""
    preset = PRESETS.get(problem.preset) if problem.preset else None
    if preset is not None and preset.paths:
        return {k: [list(map(float, p)) for p in v] for k, v in preset.paths.items()}
    return across_data_paths(problem.dataset.X_train, problem.y_train_idx)


def paths_table(paths: dict) -> pd.DataFrame:
    """Waypoints as an editable table: one row per waypoint, columns path, x, y (paths in order)."""
    rows = [
        {"path": str(name), "x": float(p[0]), "y": float(p[1])} for name, pts in paths.items() for p in pts
    ]
    return pd.DataFrame(rows, columns=["path", "x", "y"]).astype({"path": object, "x": float, "y": float})


def paths_from_table(df: pd.DataFrame) -> dict:
    """Read an edited waypoint table back: ``{path name: [[x, y], ...]}`` in order of first appearance.

    Raises ``ValueError`` naming the row to fix (rows are numbered from 1 as shown).
    """
    missing = [c for c in ("path", "x", "y") if c not in df.columns]
    if missing:
        raise ValueError(f"the waypoint table has no column {missing[0]!r}; it needs columns path, x, y.")
    paths: dict = {}
    for i, (name, x, y) in enumerate(zip(df["path"], df["x"], df["y"]), start=1):
        label = "" if name is None or (isinstance(name, float) and np.isnan(name)) else str(name).strip()
        if not label:
            raise ValueError(
                f"waypoint row {i} has no path name; type a name such as A (rows with the same "
                "name form one path)."
            )
        try:
            xy = [float(x), float(y)]
        except (TypeError, ValueError):
            xy = [np.nan, np.nan]
        if not np.all(np.isfinite(xy)):
            raise ValueError(
                f"waypoint row {i} (path {label!r}) has x = {x!r}, y = {y!r}; enter two finite numbers."
            )
        paths.setdefault(label, []).append(xy)
    if not paths:
        raise ValueError(
            "the waypoint table is empty; add at least two rows with the same path name, or load "
            "the preset paths."
        )
    if len(paths) > MAX_PATHS:
        raise ValueError(
            f"the table has {len(paths)} paths; at most {MAX_PATHS} are drawn. Delete some rows."
        )
    for name, pts in paths.items():
        if len(pts) < 2:
            raise ValueError(f"path {name!r} has 1 waypoint; add a second one (a row with path {name!r}).")
        if len(pts) > MAX_WAYPOINTS:
            raise ValueError(f"path {name!r} has {len(pts)} waypoints; at most {MAX_WAYPOINTS} are allowed.")
        if np.linalg.norm(np.diff(np.asarray(pts), axis=0), axis=1).sum() <= 0:
            raise ValueError(f"all waypoints of path {name!r} are the same point; move one of them.")
    return paths


def waypoints_from_selection(selection) -> list:
    """Waypoints from a plotly selection state (``{"points": [{"x", "y"}, ...], "box": [{"x": [..], "y": [..]}]}``):
    the centre of each dragged box, or without a box each clicked point (a box also selects every point inside
    it; those are not waypoints). Unusable entries are skipped."""
    out = []
    try:
        points = (
            selection.get("points", [])
            if isinstance(selection, Mapping)
            else getattr(selection, "points", [])
        )
        boxes = selection.get("box", []) if isinstance(selection, Mapping) else getattr(selection, "box", [])
    except (AttributeError, TypeError):
        return out
    for p in [] if boxes else points or []:
        try:
            xy = [float(p["x"]), float(p["y"])]
        except (KeyError, TypeError, ValueError):
            continue
        if np.all(np.isfinite(xy)):
            out.append(xy)
    for b in boxes or []:
        try:
            xs, ys = [float(v) for v in b["x"]], [float(v) for v in b["y"]]
        except (KeyError, TypeError, ValueError):
            continue
        if xs and ys and np.all(np.isfinite(xs + ys)):
            out.append([(min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2])
    return out


def add_waypoints(paths: dict, name: str, points) -> dict:
    """A copy of ``paths`` with ``points`` appended to path ``name`` (a new path if it does not exist)."""
    name = str(name).strip()
    if not name:
        raise ValueError("choose the path that clicks extend (e.g. A), or type a new name.")
    out = {k: [list(p) for p in v] for k, v in paths.items()}
    out.setdefault(name, []).extend([round(float(x), 3), round(float(y), 3)] for x, y in points)
    return out


def next_path_name(paths: dict) -> str:
    """The first free single-letter name A, B, C, ... (then P7, P8, ...)."""
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        if letter not in paths:
            return letter
    return f"P{len(paths) + 1}"


@dataclass
class PathScores:
    """One path sampled at ``PATH_SAMPLES`` points: ``points`` (n, 2), ``s`` (n,) fraction of its length, and
    one model's staged scores there, ``H`` (T + 1, n, K)."""

    name: str
    waypoints: np.ndarray
    points: np.ndarray
    s: np.ndarray
    H: np.ndarray

    def at(self, t: int) -> np.ndarray:
        """H_t along the path, (n, K); t is clamped to 0..T."""
        return self.H[int(min(max(t, 0), self.H.shape[0] - 1))]

    def classes_at(self, t: int) -> np.ndarray:
        """The min-risk class index argmax_k H_t,k at every sample of the path."""
        return np.argmax(self.at(t), axis=1)


def path_scores(model: RebelClassifier, paths: dict, n: int = PATH_SAMPLES) -> dict:
    """``{name: PathScores}`` of ``model`` along each path (one staged evaluation per path)."""
    out = {}
    for name, pts in paths.items():
        P, s = sample_path(pts, n)
        out[name] = PathScores(name, np.asarray(pts, dtype=np.float64), P, s, staged_scores(model, P))
    return out


def class_changes(labels) -> np.ndarray:
    """Indices i where ``labels[i] != labels[i - 1]`` (the sample after each class change)."""
    labels = np.asarray(labels)
    return np.flatnonzero(labels[1:] != labels[:-1]) + 1


def train_path_models(problem: Problem, progress: Progress | None = None) -> dict:
    """Stumps and depth-2 trees (Fig. 8's two rows) with the problem's costs, rounds and thresholds."""
    out = {}
    for i, (label, depth) in enumerate(PATH_DEPTHS.items()):
        if not _report(progress, i, len(PATH_DEPTHS), f"training {label}"):
            break
        out[label] = fit_rebel(problem.dataset, problem.cost_matrix, problem.hyper, max_depth=depth)
    _report(progress, len(out), len(PATH_DEPTHS), "done")
    return out


# ---------------------------------------------------------------------------------------------------------------
# Cost-sensitivity gallery (Fig. 7, S.9)
# ---------------------------------------------------------------------------------------------------------------


def default_gallery_classes(problem: Problem) -> tuple:
    """(c, other) class indices: c = the class whose misses the preset calls costly (else the last class), other
    = the class before it (Fig. 7 preset: c = C, other = B)."""
    K = len(problem.classes)
    c = K - 1
    mistakes = getattr(PRESETS.get(problem.preset), "costly_mistakes", ()) if problem.preset else ()
    if mistakes:
        c = problem.classes.index(mistakes[0][0])
    return c, (c - 1) % K


def gallery_costs(n_classes: int, c: int, m: float, other: int) -> dict:
    """The four cost matrices of Fig. 7 on 0-1 costs: (a) uniform, (b) ×m false negatives of ``other``,
    (c) ×m false positives of c, (d) ×m false negatives of c. Keys are the panel letters."""
    if int(other) == int(c):
        raise ValueError("the other class must differ from class c; pick another class for panel (b).")
    return {
        "a": uniform_costs(n_classes),
        "b": fn_costs(n_classes, int(other), m),
        "c": fp_costs(n_classes, int(c), m),
        "d": fn_costs(n_classes, int(c), m),
    }


def gallery_titles(classes, c: int, m: float, other: int) -> dict:
    """Panel titles, e.g. ``{"c": "(c) ×10 false-positive cost for C"}``."""
    cls, oth, mm = str(classes[c]), str(classes[other]), f"{m:g}"
    return {
        "a": "(a) uniform costs",
        "b": f"(b) ×{mm} false-negative cost for {oth}",
        "c": f"(c) ×{mm} false-positive cost for {cls}",
        "d": f"(d) ×{mm} false-negative cost for {cls}",
    }


def class_report(y_idx, pred_idx, c: int) -> dict:
    """How class c fares: ``precision`` (NaN if c is never predicted), ``recall`` (NaN without c points),
    ``wrong`` (predictions of c that are wrong: false positives), ``missed`` (c points predicted as another
    class: false negatives), ``predicted`` and ``support`` counts."""
    y_idx, pred_idx = np.asarray(y_idx), np.asarray(pred_idx)
    is_c, said_c = y_idx == c, pred_idx == c
    tp = int(np.sum(is_c & said_c))
    predicted, support = int(said_c.sum()), int(is_c.sum())
    return {
        "precision": tp / predicted if predicted else float("nan"),
        "recall": tp / support if support else float("nan"),
        "wrong": predicted - tp,
        "missed": support - tp,
        "predicted": predicted,
        "support": support,
    }


@dataclass
class GalleryPanel:
    """One Fig. 7 panel: its cost matrix, the model and its predictions on the grid, train and test points."""

    key: str
    title: str
    cost_matrix: np.ndarray
    model: RebelClassifier
    regions: np.ndarray  # (ny, nx) class indices on the grid
    train_pred: np.ndarray
    test_pred: np.ndarray

    def report(self, y_train_idx, y_test_idx, c: int) -> dict:
        """``{"train": class_report, "test": class_report}`` of class c."""
        return {
            "train": class_report(y_train_idx, self.train_pred, c),
            "test": class_report(y_test_idx, self.test_pred, c),
        }


@dataclass
class Gallery:
    problem: Problem
    c: int
    m: float
    other: int
    grid: pg.Grid
    panels: dict = field(default_factory=dict)  # panel letter -> GalleryPanel (fewer if stopped)

    @property
    def complete(self) -> bool:
        return len(self.panels) == 4

    def table(self) -> pd.DataFrame:
        """Precision, recall, wrong predictions and misses of class c per panel and split (long format)."""
        rows = []
        for key, panel in self.panels.items():
            for split, r in panel.report(self.problem.y_train_idx, self.problem.y_test_idx, self.c).items():
                rows.append({"panel": key, "split": split, **r})
        return pd.DataFrame(rows)


def train_gallery(
    problem: Problem, c: int, m: float, other: int, grid_size: int = 120, progress: Progress | None = None
) -> Gallery:
    """Train the four Fig. 7 models (the problem's rounds, depth and thresholds) and evaluate them on a grid,
    the training and the test points. ``progress`` returning False stops after the current panel."""
    ds = problem.dataset
    K = ds.n_classes
    if not 0 <= int(c) < K or not 0 <= int(other) < K:
        raise ValueError(f"class indices must be between 0 and {K - 1}; got c = {c!r}, other = {other!r}.")
    costs = gallery_costs(K, int(c), m, int(other))
    titles = gallery_titles(ds.classes, int(c), float(m), int(other))
    X_all = np.vstack([ds.X_train, ds.X_test]) if ds.X_test.shape[0] else ds.X_train
    grid = pg.make_grid(X_all, grid_size)
    out = Gallery(problem, int(c), float(m), int(other), grid)
    for i, (key, C) in enumerate(costs.items()):
        if not _report(progress, i, 4, f"training panel ({key})"):
            return out
        model = fit_rebel(ds, C, problem.hyper)
        test_pred = model.staged_class_indices(ds.X_test)[-1] if ds.X_test.shape[0] else np.empty(0, np.int16)
        out.panels[key] = GalleryPanel(
            key,
            titles[key],
            C,
            model,
            np.argmax(model.decision_function(grid.points), axis=1).reshape(grid.shape).astype(np.int16),
            np.argmax(model.decision_function(ds.X_train), axis=1),
            np.asarray(test_pred, dtype=np.int64),
        )
    _report(progress, 4, 4, "done")
    return out


# ---------------------------------------------------------------------------------------------------------------
# Cost sweep (one entry over a log range)
# ---------------------------------------------------------------------------------------------------------------


def sweep_values(lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` log-spaced values from ``lo`` to ``hi`` (both > 0)."""
    try:
        lo, hi, n = float(lo), float(hi), int(n)
    except (TypeError, ValueError):
        raise ValueError("the sweep range needs two numbers and a count, e.g. 0.1, 100 and 13.") from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo <= 0 or hi <= lo:
        raise ValueError(f"the sweep runs from {lo:g} to {hi:g}; give 0 < from < to (e.g. 0.1 to 100).")
    if not 2 <= n <= MAX_SWEEP_VALUES:
        raise ValueError(f"the sweep has {n} values; choose between 2 and {MAX_SWEEP_VALUES}.")
    return np.geomspace(lo, hi, n)


def swept_matrix(cost_matrix, entry: tuple, value: float) -> np.ndarray:
    """A copy of the cost matrix with ``C[truth, predicted] = value``."""
    i, j = map(int, entry)
    C = np.array(cost_matrix, dtype=np.float64)
    if i == j:
        raise ValueError(
            "a correct decision costs 0 by definition; pick a truth and a prediction that differ."
        )
    C[i, j] = float(value)
    return C


@dataclass
class SweepResult:
    """``metrics``: long table (value, method, class, recall, precision) on the test points; ``costs``: (value,
    method, test_cost) with the mean test cost under the swept matrix; ``complete`` is False when stopped."""

    entry: tuple
    values: np.ndarray
    metrics: pd.DataFrame
    costs: pd.DataFrame
    complete: bool


def run_sweep(problem: Problem, entry: tuple, values, progress: Progress | None = None) -> SweepResult:
    """For each value v: REBEL trained with ``C[entry] = v``, and the two-step method (one cost-blind REBEL
    model with 0-1 costs, posterior sigma(2H) normalised, then the cheapest class under the swept matrix).
    Both use the problem's hyper-parameters and are scored on the test points."""
    ds = problem.dataset
    if ds.X_test.shape[0] == 0:
        raise ValueError("the dataset has no test points; raise the test share in the Playground.")
    values = np.asarray(values, dtype=np.float64)
    y = problem.y_test_idx
    K = ds.n_classes
    if not _report(progress, 0, len(values) + 1, "training the cost-blind model (two-step)"):
        return SweepResult(tuple(entry), values, pd.DataFrame(), pd.DataFrame(), False)
    posterior = fit_rebel(ds, None, problem.hyper).predict_proba(ds.X_test)
    metrics, costs = [], []
    done = 0
    for i, v in enumerate(values):
        if not _report(progress, i + 1, len(values) + 1, f"C = {v:.3g}"):
            break
        C = swept_matrix(problem.cost_matrix, entry, v)
        preds = {
            "REBEL": np.argmax(fit_rebel(ds, C, problem.hyper).decision_function(ds.X_test), axis=1),
            "two-step": min_risk_class(posterior, C),
        }
        for method, pred in preds.items():
            costs.append({"value": v, "method": method, "test_cost": float(C[y, pred].mean())})
            for k in range(K):
                r = class_report(y, pred, k)
                metrics.append(
                    {
                        "value": v,
                        "method": method,
                        "class": k,
                        "recall": r["recall"],
                        "precision": r["precision"],
                    }
                )
        done = i + 1
    _report(progress, len(values) + 1, len(values) + 1, "done")
    return SweepResult(
        tuple(entry), values[:done], pd.DataFrame(metrics), pd.DataFrame(costs), done == len(values)
    )


# ---------------------------------------------------------------------------------------------------------------
# Theory: decomposition, loss levels, weak learning condition and bound, binary reduction
# ---------------------------------------------------------------------------------------------------------------


def decomposition_tables(cost_matrix, classes) -> dict:
    """The decomposition of each cost row (S.3-S.5) as tables indexed by the true class:

    ``summary`` (columns beta, phi = max c, sum b = phi - beta, c*), and K x K tables ``c+``, ``c-`` and ``H*``
    (column k = component k).
    """
    C = validate_cost_matrix(cost_matrix, n_classes=len(classes))
    d = decompose(C)
    names = [str(c) for c in classes]
    idx = pd.Index(names, name="truth")
    summary = pd.DataFrame(
        {"β": d.beta, "φ = max c": C.max(axis=1), "Σb = φ − β": C.max(axis=1) - d.beta, "c*": d.c_star},
        index=idx,
    )
    return {
        "summary": summary,
        "c+": pd.DataFrame(d.cp, index=idx, columns=names),
        "c-": pd.DataFrame(d.cm, index=idx, columns=names),
        "H*": pd.DataFrame(d.H_star, index=idx, columns=names),
    }


def loss_levels(cost_matrix, y_idx) -> dict:
    """``L*`` (Eq. 4: the loss floor, every sample at its optimum H*) and ``L_bullet`` (S.4/S.5: below it the
    training cost is 0), for the training labels ``y_idx``.

    L_bullet = L* + (1/2N) min over samples n and costly classes k (C[y_n, k] > 0) of
    2 sqrt((c+_y + c+_k)(c-_y + c-_k)) - 2 sqrt(c+_y c-_y) - 2 sqrt(c+_k c-_k), the least excess loss of one
    sample whose scores tie between its class and k. S.5 prints it without the 1/(2N) weight that a single
    sample carries in the mean loss; we keep the weight, which is what makes "L < L_bullet => zero training
    cost" true. Without any costly mistake L_bullet is +inf.
    """
    C = np.asarray(cost_matrix, dtype=np.float64)
    y_idx = np.asarray(y_idx)
    N = len(y_idx)
    d = decompose(C)
    L_star = float(np.mean(d.beta[y_idx] + d.c_star[y_idx] / 2))
    best = np.inf
    for y in np.unique(y_idx):
        cp, cm = d.cp[y], d.cm[y]
        for k in np.flatnonzero(C[y] > 0):
            excess = (
                2 * np.sqrt((cp[y] + cp[k]) * (cm[y] + cm[k]))
                - 2 * np.sqrt(cp[y] * cm[y])
                - 2 * np.sqrt(cp[k] * cm[k])
            )
            best = min(best, float(excess))
    return {
        "L*": L_star,
        "L_bullet": L_star + best / (2 * N),
        "c*_mean": float(d.c_star[y_idx].sum() / (2 * N)),
    }


def _label_index(classes, y) -> np.ndarray:
    classes, y = np.asarray(classes), np.asarray(y)
    idx = np.clip(np.searchsorted(classes, y), 0, len(classes) - 1)
    if np.any(classes[idx] != y):
        bad = y[np.flatnonzero(classes[idx] != y)[0]]
        raise ValueError(
            f"label {bad!r} is not one of the model's classes {list(classes)}; retrain the model."
        )
    return idx


def _step_outputs(H_prev: np.ndarray, H: np.ndarray, a: np.ndarray) -> np.ndarray:
    """f_t(x_n) in {-1, +1} from one staged step: H_t - H_{t-1} = f_t a_t, so f_t = sign <H_t - H_{t-1}, a_t>
    (+1 when a_t = 0, where f_t does not matter)."""
    return np.where((H - H_prev) @ a >= 0, 1.0, -1.0)


def weak_learner_outputs(model: RebelClassifier, X) -> np.ndarray:
    """f_t(x) of every round's weak learner (the whole tree), shape (T, N) int8, from the staged scores."""
    X = np.asarray(X, dtype=np.float64)
    out = np.empty((model.n_estimators_, X.shape[0]), dtype=np.int8)
    H_prev = np.broadcast_to(model.a0_, (X.shape[0], model.a0_.shape[0])).copy()
    for t, H in enumerate(model.staged_decision_function(X)):
        out[t] = _step_outputs(H_prev, H, model.a_[t])
        H_prev = H
    return out


def round_diagnostics(model: RebelClassifier, X, y) -> pd.DataFrame:
    """Per round t = 1..T of a fitted model on its training data (X, y): the edge and the loss ratio vs the
    exponential bound of S.6.1. What is computed, exactly:

    - H_{t-1} on the training set from ``staged_decision_function`` (t = 1 uses a0); weights (S.6)
      w+ = c+ e^{H_{t-1}}, w- = c- e^{-H_{t-1}} with c+/c- from ``decompose`` of the cost rows C[y_n]
      (|H| clipped at ``EXP_CLIP`` before exp).
    - f_t(x_n) in {-1, +1}: the sign of <H_t(x_n) - H_{t-1}(x_n), a_t> (H_t - H_{t-1} = f_t a_t exactly; +1 if
      a_t = 0). For depth-2+ trees this is the whole tree's output.
    - s± = (1/2N) sum_n [f=+1] w± + [f=-1] w∓ (Eq. 7), S = <s+ + s-, 1>, D = <|s+ - s-|, 1>,
      c* = (1/2N) sum_n c*_n.
    - ``gamma``: the edge of S.6.1 / Eq. 10, D / (S - c*) (the largest gamma for which f_t meets the condition).
    - ``gamma_wlc``: the edge in the form of Eq. 11, <|sum_n (w+ - w-) f|, 1> / sum_n <|w+ - w-|, 1> (<= gamma).
    - ``phi``: D / S, the phi of S.6.1 that f_t actually achieves; ``phi_paper`` = gamma (1 - c*/(L_bullet - L* +
      c*)), the guaranteed lower bound on phi while L_{t-1} >= L_bullet (NaN below L_bullet).
    - ``ratio``: (L_t - L*) / (L_{t-1} - L*) from the engine's ``train_loss_``; ``bound`` = sqrt(1 - phi^2) and
      ``bound_exp`` = e^{-phi^2/2} (ratio <= bound <= bound_exp, Eq. 8); ``cum_ratio`` = (L_t - L*)/(L_0 - L*)
      and ``cum_bound`` = prod_{s<=t} e^{-phi_s^2/2}.
    - ``a_star_err``: max_k |1/2 (ln s- - ln s+) - a_t| (the engine's a_t is the closed form, up to its
      smoothing), and ``loss_before`` = L* + S - c* (= L_{t-1}).
    """
    X = np.asarray(X, dtype=np.float64)
    y_idx = _label_index(model.classes_, y)
    N = X.shape[0]
    d = decompose(model.cost_matrix_[y_idx])
    levels = loss_levels(model.cost_matrix_, y_idx)
    L_star, L_bullet, c_bar = levels["L*"], levels["L_bullet"], levels["c*_mean"]
    loss = np.asarray(model.train_loss_, dtype=np.float64)
    rows = []
    H_prev = np.broadcast_to(model.a0_, (N, model.a0_.shape[0])).copy()
    for t, H in enumerate(model.staged_decision_function(X), start=1):
        a = model.a_[t - 1]
        f = _step_outputs(H_prev, H, a)
        Hc = np.clip(H_prev, -EXP_CLIP, EXP_CLIP)
        wp, wm = d.cp * np.exp(Hc), d.cm * np.exp(-Hc)
        pos = f > 0
        sp = (wp[pos].sum(axis=0) + wm[~pos].sum(axis=0)) / (2 * N)
        sm = (wm[pos].sum(axis=0) + wp[~pos].sum(axis=0)) / (2 * N)
        S, D = float((sp + sm).sum()), float(np.abs(sp - sm).sum())
        diff = wp - wm
        wlc_den = float(np.abs(diff).sum())
        with np.errstate(divide="ignore", invalid="ignore"):
            a_star = 0.5 * (np.log(sm) - np.log(sp))
        gamma = D / (S - c_bar) if S - c_bar > 0 else np.nan
        phi = D / S if S > 0 else np.nan
        before, after = loss[t - 1] - L_star, loss[t] - L_star
        paper = gamma * (1 - c_bar / (L_bullet - L_star + c_bar)) if loss[t - 1] >= L_bullet else np.nan
        rows.append(
            {
                "t": t,
                "gamma": gamma,
                "gamma_wlc": float(np.abs((diff * f[:, None]).sum(axis=0)).sum()) / wlc_den
                if wlc_den > 0
                else np.nan,
                "phi": phi,
                "phi_paper": paper,
                "ratio": after / before if before > 0 else np.nan,
                "bound": float(np.sqrt(max(0.0, 1 - phi**2))),
                "bound_exp": float(np.exp(-(phi**2) / 2)),
                "loss_before": L_star + S - c_bar,
                "loss_after": float(loss[t]),
                "a_star_err": float(np.nanmax(np.abs(np.where(np.isfinite(a_star), a_star - a, 0.0)))),
            }
        )
        H_prev = H
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    first = loss[0] - L_star
    df["cum_ratio"] = (loss[1:] - L_star) / first if first > 0 else np.nan
    df["cum_bound"] = np.exp(np.cumsum(-(df["phi"].to_numpy() ** 2) / 2))
    return df


@dataclass
class BinaryDemo:
    """REBEL with 0-1 costs and stumps on a 2-class problem, next to binary AdaBoost (S.8).

    ``rounds``: per round t = 1..T the stump (feature, threshold), REBEL's a_t for both classes, AdaBoost's
    alpha_t (with polarity) and weighted error, both losses, max |H_1 + H_2| and max |H_1 - h| (h = AdaBoost's
    score). ``rebel_scores`` (T + 1, N, 2) and ``adaboost_scores`` (T + 1, N) on the training points.
    """

    classes: tuple
    model: RebelClassifier
    rebel_scores: np.ndarray
    adaboost_scores: np.ndarray
    rounds: pd.DataFrame


def adaboost_scores(X, y_pm, thresholds, usable, n_rounds: int) -> tuple:
    """Discrete binary AdaBoost (labels ±1) with a bias h_0 = 1/2 ln(N+/N-), stumps ``x_j > tau_ji`` of either
    polarity on the given thresholds (first best in feature-then-threshold order).

    Returns ``(h, alpha, err, features, thr_idx)``: scores h_t (T + 1, N) and per round the signed weight, the
    weighted error and the stump (threshold index i is 1-based: bins >= i go right)."""
    y_pm = np.asarray(y_pm, dtype=np.float64)
    bins = bin_data(np.asarray(X, dtype=np.float64), thresholds)
    n_features, n_bins = thresholds.shape[0], thresholds.shape[1] + 1
    h = np.full(len(y_pm), 0.5 * np.log((y_pm > 0).sum() / (y_pm < 0).sum()))
    scores, alphas, errs, feats, thr = [h.copy()], [], [], [], []
    for _ in range(int(n_rounds)):
        D = np.exp(-y_pm * h)
        D /= D.sum()
        edges = np.full((n_features, n_bins - 1), -np.inf)
        signed = np.zeros_like(edges)
        for j in np.flatnonzero(usable):
            hist = np.bincount(bins[j], weights=D * y_pm, minlength=n_bins)
            signed[j] = hist.sum() - 2 * np.cumsum(hist)[:-1]  # sum_n D y g with g = +1 iff bins >= i
            edges[j] = np.abs(signed[j])
        j, i = np.unravel_index(first_best(edges.ravel()), edges.shape)
        r = min(edges[j, i], 1 - 1e-12)
        rho = 1.0 if signed[j, i] >= 0 else -1.0
        alpha = 0.5 * np.log((1 + r) / (1 - r))
        h = h + rho * alpha * np.where(bins[j] > i, 1.0, -1.0)
        scores.append(h.copy())
        alphas.append(rho * alpha)
        errs.append((1 - r) / 2)
        feats.append(int(j))
        thr.append(int(i) + 1)
    return np.array(scores), np.array(alphas), np.array(errs), np.array(feats), np.array(thr)


def binary_reduction(
    dataset: Dataset, pair: tuple, n_rounds: int = 30, n_thresholds: int = 200
) -> BinaryDemo:
    """Train REBEL (0-1 costs, stumps) on the training points of the two classes ``pair`` and binary AdaBoost on
    the same thresholds (class pair[0] = +1). S.8 predicts H_1 = -H_2 = h at every round and equal losses."""
    classes = tuple(sorted(map(str, pair)))
    if len(set(classes)) != 2:
        raise ValueError(f"the binary example needs two different classes; got {list(pair)}.")
    y_all = np.asarray(dataset.y_train).astype(str)
    mask = np.isin(y_all, classes)
    X, y = dataset.X_train[mask], y_all[mask]
    for c in classes:
        if not np.any(y == c):
            raise ValueError(f"class {c!r} has no training points; pick two classes that have some.")
    model = RebelClassifier(n_estimators=int(n_rounds), max_depth=1, n_thresholds=int(n_thresholds)).fit(X, y)
    y_pm = np.where(y == model.classes_[0], 1.0, -1.0)
    h, alpha, err, feats, thr = adaboost_scores(
        X, y_pm, model.thresholds_, model.feature_usable_, model.n_estimators_
    )
    H = staged_scores(model, X)
    ada_loss = np.exp(-y_pm[None, :] * h).mean(axis=1)
    rounds = pd.DataFrame(
        {
            "t": np.arange(1, model.n_estimators_ + 1),
            "feature": model.tree_features_[:, 0],
            "threshold": model.tree_thresholds_[:, 0],
            "a_t (class 1)": model.a_[:, 0],
            "a_t (class 2)": model.a_[:, 1],
            "AdaBoost feature": feats,
            "AdaBoost threshold": model.thresholds_[feats, thr - 1],
            "AdaBoost alpha_t": alpha,
            "AdaBoost error": err,
            "REBEL loss": model.train_loss_[1:],
            "AdaBoost loss": ada_loss[1:],
            "max |H1 + H2|": np.abs(H[1:, :, 0] + H[1:, :, 1]).max(axis=1),
            "max |H1 - h|": np.abs(H[1:, :, 0] - h[1:]).max(axis=1),
        }
    )
    return BinaryDemo(tuple(model.classes_), model, H, h, rounds)
