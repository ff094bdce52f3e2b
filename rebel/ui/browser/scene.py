"""A lesson scene (or any paper-mode Playground configuration) as one self-contained HTML file.

``scene_data`` trains the Playground's pair for the configuration once on the server engine (``lessons.fit_scene``)
and keeps what a cost edit cannot change: the training and test points, the grid, the 0-1 model's posteriors on
the test points after every round (the two-step method decides on them) and the known mixture's posteriors there
(the Bayes rule). ``scene_html`` embeds that data, the browser engine (``engine.engine_source``), the page's script
(``scene_page.js``) and styles (``scene_page.css``) in one page that needs no network and no server: a student
edits the costs in a table, REBEL retrains in the page (in a Web Worker when the browser allows one from a file),
and the regions (a canvas), the three test costs and the replay follow. ``python -m rebel export-scene`` writes it
(``rebel.ui.browser.scene_cli``). Float arrays the page decides on travel as base64 of their float64 bytes (exact,
and half the size of their decimal text).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

from rebel.baselines import staged_min_risk_posteriors
from rebel.data import bayes_posterior
from rebel.ui.browser.engine import HERE, engine_source, problem_payload
from rebel.ui.config import Config
from rebel.ui.figures.palette import class_colors, region_colors

PAGE_JS = HERE / "scene_page.js"
CORE_JS = HERE / "scene_core.js"  # shared with the Playground's cost edits (``playground_costs``)
PAGE_CSS = HERE / "scene_page.css"
MAX_STAGED_NUMBERS = (
    3_000_000  # two-step posteriors kept for every round up to this many numbers (else: last)
)


def scene_data(cfg: Config, title: str = "", notice: str = "", question: str = "") -> dict:
    """Everything the page needs for ``cfg`` (paper engine only), as JSON-able values."""
    from rebel.ui.lessons import fit_scene

    if cfg.engine != "paper":
        raise ValueError(
            f"engine is {cfg.engine!r}; a scene file runs the paper engine only (the browser engine is paper "
            "mode). Choose the paper engine, or show this scene in the app."
        )
    pair = fit_scene(cfg)
    ds = pair.dataset
    y_train, y_test = ds.class_index(ds.y_train), ds.class_index(ds.y_test)
    T, K, n_test = pair.n_rounds, ds.n_classes, ds.X_test.shape[0]
    stages = staged_min_risk_posteriors(pair.posterior_model, ds.X_test) if n_test else iter(())
    keep_all = (T + 1) * n_test * K <= MAX_STAGED_NUMBERS
    posteriors = [P for t, P in enumerate(stages) if keep_all or t == T]
    bayes = bayes_posterior(ds.mixture, ds.X_test) if ds.mixture is not None and n_test else None
    return {
        "title": title or f"REBEL: {cfg.preset or 'custom data'}",
        "notice": notice,
        "question": question,
        "classes": [str(c) for c in ds.classes],
        "pointColors": class_colors(K),
        "regionColors": region_colors(K),
        "problem": problem_payload(ds.X_train, y_train, cfg.cost_matrix, cfg.hyper),
        "costMatrix": np.asarray(cfg.cost_matrix, dtype=np.float64).tolist(),
        "test": {"X": ds.X_test.ravel().tolist(), "y": y_test.tolist()},
        "grid": {"xs": pair.grid.xs.tolist(), "ys": pair.grid.ys.tolist()},
        "twoStep": {"firstRound": 0 if keep_all else T, "P": [_b64(P) for P in posteriors]},
        "bayes": None if bayes is None else _b64(bayes),
    }


def _b64(values) -> str:
    """float64 values as base64 of their little-endian bytes (the page reads them back bit for bit)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode("ascii")


def scene_html(data: dict) -> str:
    """The page: data, engine, script and styles inline (no external resource of any kind)."""
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")  # never ends the script element
    title = data["title"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline' "
        "blob:; worker-src blob:; style-src 'unsafe-inline'; img-src data: blob:\">\n"
        f"<title>{title}</title>\n<style>\n{PAGE_CSS.read_text(encoding='utf-8')}</style>\n</head>\n<body>\n"
        f'<script type="application/json" id="scene-data">{payload}</script>\n'
        f'<script id="rebel-engine">\n{engine_source()}</script>\n'
        f"<script>\n{CORE_JS.read_text(encoding='utf-8')}</script>\n"
        f"<script>\n{PAGE_JS.read_text(encoding='utf-8')}</script>\n</body>\n</html>\n"
    )


def export_scene(cfg: Config, path, title: str = "", notice: str = "", question: str = "") -> Path:
    """Write the scene file of ``cfg`` to ``path``; returns the path."""
    path = Path(path)
    path.write_text(scene_html(scene_data(cfg, title, notice, question)), encoding="utf-8")
    return path
