"""View-model of the Cost gallery page (Fig. 7, S.9): the four cost matrices of the figure for a user's class c
and multiplier m, four trained models (through the session's model cache) evaluated on a grid, and each one's
precision/recall of c on train and test (``train_gallery``).

Reads a ``Problem``'s dataset (X_train/X_test (N, 2), labels) and hyper-parameters. No streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rebel.cost_presets import fn_costs, fp_costs
from rebel.costs import uniform_costs
from rebel.data import PRESETS
from rebel.estimator import RebelClassifier
from rebel.experiments.runner import Progress, report
from rebel.experiments.studies import class_report
from rebel.ui.playground.compute import Grid, make_grid
from rebel.ui.state import AppState, Problem, check_fits


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
    grid: Grid
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
    problem: Problem,
    c: int,
    m: float,
    other: int,
    grid_size: int = 120,
    progress: Progress | None = None,
    state: AppState | None = None,
) -> Gallery:
    """Train the four Fig. 7 models (the problem's rounds, depth and thresholds) and evaluate them on a grid,
    the training and the test points, fitting through ``state``'s model cache. ``progress`` returning False
    stops after the current panel."""
    state = AppState() if state is None else state
    ds = problem.dataset
    K = ds.n_classes
    if not 0 <= int(c) < K or not 0 <= int(other) < K:
        raise ValueError(f"class indices must be between 0 and {K - 1}; got c = {c!r}, other = {other!r}.")
    costs = gallery_costs(K, int(c), m, int(other))
    check_fits(ds, problem.hyper, len(costs))  # the app's budget, before any work
    titles = gallery_titles(ds.classes, int(c), float(m), int(other))
    X_all = np.vstack([ds.X_train, ds.X_test]) if ds.X_test.shape[0] else ds.X_train
    grid = make_grid(X_all, grid_size)
    out = Gallery(problem, int(c), float(m), int(other), grid)
    for i, (key, C) in enumerate(costs.items()):
        if not report(progress, i, 4, f"training panel ({key})"):
            return out
        model = state.fit(ds, C, problem.hyper)
        test_pred = model.staged_class_indices(ds.X_test)[-1] if ds.X_test.shape[0] else np.empty(0, np.int16)
        out.panels[key] = GalleryPanel(
            key,
            titles[key],
            C,
            model,
            np.argmax(model.risk_scores(grid.points), axis=1).reshape(grid.shape).astype(np.int16),
            np.argmax(model.risk_scores(ds.X_train), axis=1),
            np.asarray(test_pred, dtype=np.int64),
        )
    report(progress, 4, 4, "done")
    return out
