"""The browser's regions on a grid and its classes at points (rebel/ui/browser/scene_core.js ``stagedOnGrid`` and
``stagedAt``: one point scored per block between the model's thresholds) against the browser engine scoring every
cell and point (``RebelEngine.stagedClasses``, itself checked against the numba engine in
tests/test_browser_engine.py), under Node, on every preset and on random problems (K 2-6, depths 1-4, 8 to 255
thresholds): the same class in every cell and at every point (the training points, and points on the thresholds
themselves) after every round; and one round scored alone, as the Playground's page draws the round it shows
first (``decideModel``), the same as that round of every round's."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from rebel.data import PRESETS
from rebel.ui.browser.engine import HERE, node_path, problem_payload
from rebel.ui.config import dataset_from_config, preset_config
from rebel.ui.playground.compute import make_grid

pytestmark = pytest.mark.skipif(node_path() is None, reason="Node is not installed")

_CHECK = """
const path = process.argv[1];
for (const f of ["libm.js", "rebel_inputs.js", "rebel_engine.js", "scene_core.js"]) require(path + "/" + f);
const E = globalThis.RebelEngine, S = globalThis.RebelScene;
const jobs = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(jobs.map(({ problem, xs, ys }) => {
  const model = E.fit(problem);
  const a = S.stagedOnGrid(model, xs, ys), b = E.stagedClasses(model, S.gridPoints(xs, ys), xs.length * ys.length);
  let differ = 0;
  for (let i = 0; i < a.length; i++) differ += a[i] !== b[i];
  // the training points, then points on the model's thresholds (a coordinate equal to one: the left branch)
  const cuts = model.thresholds.filter((v) => !Number.isNaN(v)), X = problem.X, N = X.length / 2;
  const pts = new Float64Array(2 * (N + cuts.length));
  pts.set(X, 0);
  cuts.forEach((c, i) => { pts[2 * (N + i)] = c; pts[2 * (N + i) + 1] = cuts[cuts.length - 1 - i]; });
  const M = pts.length / 2, p = S.stagedAt(model, pts, M), q = E.stagedClasses(model, pts, M);
  let differAt = 0;
  for (let i = 0; i < p.length; i++) differAt += p[i] !== q[i];
  // one round scored alone (``only``) and the page's per-round classes (decideModel: rounds asked one by one,
  // then every round), against the same round of every round's
  const T = model.nRounds, cells = xs.length * ys.length, rounds = [0, T >> 1, T];
  let differRound = 0;
  for (const t of rounds) {
    const alone = E.stagedClasses(model, pts, M, t);
    for (let m = 0; m < M; m++) differRound += alone[m] !== q[t * M + m];
  }
  const d = S.decideModel(model, xs, ys, pts, M);
  const same = (t) => {
    let n = 0;
    const r = d.regionsAt(t), at = d.pointsAt(t);
    for (let c = 0; c < cells; c++) n += r[c] !== b[t * cells + c];
    for (let m = 0; m < M; m++) n += at[m] !== q[t * M + m];
    return n;
  };
  for (const t of rounds) differRound += same(t);
  const all = d.stagedAll();
  for (let i = 0; i < all.length; i++) differRound += all[i] !== q[i];
  for (const t of [1, T - 1].filter((v) => v >= 0 && v <= T)) differRound += same(t);
  return { differ, differAt, differRound, size: a.length, distinct: new Set(b).size };
})));
"""


def _jobs() -> list:
    rng = np.random.default_rng(20261202)
    jobs = []
    for name in PRESETS:
        ds = dataset_from_config(preset_config(name))
        hyper = {"n_estimators": 30, "max_depth": 2, "n_thresholds": 32}
        C = 1.0 - np.eye(ds.n_classes)
        grid = make_grid(np.vstack([ds.X_train, ds.X_test]), 120)
        y = ds.class_index(ds.y_train)
        jobs.append((problem_payload(ds.X_train, y, C, hyper), grid.xs, grid.ys))
    for _ in range(12):
        K, n = int(rng.integers(2, 7)), int(rng.integers(100, 400))
        X = rng.normal(size=(n, 2)) * rng.uniform(0.5, 3, size=2)
        y = np.arange(n) % K
        C = rng.uniform(0.5, 5, size=(K, K)) * (1 - np.eye(K))
        hyper = {
            "n_estimators": int(rng.integers(5, 40)),
            "max_depth": int(rng.integers(1, 5)),
            "n_thresholds": int(rng.choice([8, 32, 64, 255])),
        }
        grid = make_grid(X, int(rng.integers(40, 150)))
        jobs.append((problem_payload(X, y, C, hyper), grid.xs, grid.ys))
    return jobs


def test_the_grid_by_blocks_equals_every_cell_scored():
    jobs = [{"problem": p, "xs": xs.tolist(), "ys": ys.tolist()} for p, xs, ys in _jobs()]
    done = subprocess.run(
        [node_path(), "-e", _CHECK, str(HERE)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    results = json.loads(done.stdout)
    assert len(results) == len(jobs)
    assert all(r["differ"] == 0 and r["differAt"] == 0 and r["differRound"] == 0 for r in results), results
    assert sum(r["distinct"] > 1 for r in results) >= len(results) // 2  # regions with boundaries in them
