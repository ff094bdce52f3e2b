"""View-model of the Risk-score paths page (Fig. 8, S.9): waypoint tables, clicked or dragged waypoints,
points along each path and the scores H_t(x) there at round t (``PathScores``, streamed: one round held at a
time), and the two models of the figure (stumps and depth-2 trees, through the session's model cache).

Reads a ``Problem``'s dataset (X_train (N, 2), labels), cost matrix and hyper-parameters. No streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rebel.data import PRESETS, sample_path
from rebel.estimator import RebelClassifier
from rebel.experiments.runner import Progress, report
from rebel.ui.state import AppState, Problem, check_fits, scores_at

PATH_SAMPLES = 201  # points per path (0 %, 0.5 %, ..., 100 % of its length)
TICK_FRACTIONS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)  # the nibs of Fig. 8
MAX_PATHS = 6
MAX_WAYPOINTS = 40  # per path
PATH_DEPTHS = {"stumps": 1, "depth-2 trees": 2}  # the two rows of Fig. 8


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


def table_path_names(df: pd.DataFrame) -> list:
    """The path names of a waypoint table, in order of first appearance, including paths that are not
    drawable yet (one waypoint): the paths that clicks can extend."""
    if "path" not in getattr(df, "columns", ()) or not len(df):
        return []
    names = (str(n).strip() for n in df["path"].dropna())
    return list(dict.fromkeys(n for n in names if n))


def next_path_name(paths: dict) -> str:
    """The first free single-letter name A, B, C, ... (then P7, P8, ...)."""
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        if letter not in paths:
            return letter
    return f"P{len(paths) + 1}"


@dataclass
class PathScores:
    """One path sampled at ``PATH_SAMPLES`` points: ``points`` (n, 2), ``s`` (n,) fraction of its length, and
    one model's scores there after ``t`` rounds, ``H`` (n, K)."""

    name: str
    waypoints: np.ndarray
    points: np.ndarray
    s: np.ndarray
    t: int
    H: np.ndarray

    @property
    def classes(self) -> np.ndarray:
        """The min-risk class index argmax_k H_t,k at every sample of the path."""
        return np.argmax(self.H, axis=1)


def path_scores(model: RebelClassifier, paths: dict, t: int, n: int = PATH_SAMPLES) -> dict:
    """``{name: PathScores}`` of ``model`` along each path after t rounds (t clamped to 0..T): one streamed
    evaluation of every path's points together, one round held at a time."""
    t = int(min(max(int(t), 0), model.n_estimators_))
    sampled = {name: sample_path(pts, n) for name, pts in paths.items()}
    if not sampled:
        return {}
    H = scores_at(model, np.vstack([P for P, _ in sampled.values()]), t)
    out = {}
    for i, (name, (P, s)) in enumerate(sampled.items()):
        rows = H[i * P.shape[0] : (i + 1) * P.shape[0]]
        out[name] = PathScores(name, np.asarray(paths[name], dtype=np.float64), P, s, t, rows)
    return out


def class_changes(labels) -> np.ndarray:
    """Indices i where ``labels[i] != labels[i - 1]`` (the sample after each class change)."""
    labels = np.asarray(labels)
    return np.flatnonzero(labels[1:] != labels[:-1]) + 1


def train_path_models(
    problem: Problem, progress: Progress | None = None, state: AppState | None = None
) -> dict:
    """Stumps and depth-2 trees (Fig. 8's two rows) with the problem's costs, rounds and thresholds, through
    ``state``'s model cache (a fresh cache without one); ``progress`` returning False stops."""
    state = AppState() if state is None else state
    for depth in PATH_DEPTHS.values():
        check_fits(problem.dataset, {**problem.hyper, "max_depth": depth}, len(PATH_DEPTHS))
    out = {}
    for i, (label, depth) in enumerate(PATH_DEPTHS.items()):
        if not report(progress, i, len(PATH_DEPTHS), f"training {label}"):
            break
        out[label] = state.fit(problem.dataset, problem.cost_matrix, problem.hyper, max_depth=depth)
    report(progress, len(out), len(PATH_DEPTHS), "done")
    return out
