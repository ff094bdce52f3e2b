"""The browser engine (rebel/ui/browser/rebel_engine.js, libm.js) against the numba engine, under Node.

On random Playground-sized problems (2 features, K 2-12, depths 1-4, sample weights, costs inside and outside the
range trained as given, constant features, duplicated points) and on every preset, the JavaScript fit must choose
the same thresholds, the same trees (features, threshold indices, leaf signs) and the same staged class on a grid
over the data at every round, and a-vectors equal within 1e-12 of their size. All problems run in one Node
process.

The one known source of difference: libm.js's log is correctly rounded and the C library's (which the numba
kernels call, as Python's math.log does) is not on about 1 argument in 10,000 of those a fit takes (measured:
67 of 504,194 here, the correctly rounded value every time). a* then differs in its last bit; the trees, the
staged classes and the a-vectors (within 1e-12 of the fit's largest step) must still agree, and fits whose logs
all equal the C library's (every fit's logs are traced) must also have the same training risk after every round.
"""

from __future__ import annotations

import dataclasses
import math
import platform
from pathlib import Path

import numpy as np
import pytest

from rebel.data import PRESETS
from rebel.estimator import RebelClassifier
from rebel.ui.browser.engine import node_path, problem_payload, run_node
from rebel.ui.config import dataset_from_config, preset_config
from rebel.ui.playground.compute import make_grid


def _glibc_with_fma() -> bool:
    """Whether the numba engine's exp and log are glibc's x86-64 FMA build, whose bits libm.js reproduces (glibc
    picks it on CPUs with FMA; other C libraries and the non-FMA build round some results otherwise)."""
    if platform.libc_ver()[0] != "glibc" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        return " fma " in f" {Path('/proc/cpuinfo').read_text()} ".replace("\n", " ")
    except OSError:
        return False


pytestmark = [
    pytest.mark.skipif(
        node_path() is None,
        reason="Node is not installed (apt-get install nodejs): the browser engine cannot run",
    ),
    pytest.mark.skipif(
        not _glibc_with_fma(),
        reason="the numba engine's exp here is not glibc's x86-64 FMA build, the one libm.js reproduces",
    ),
]

N_RANDOM = 200
A_RTOL = (
    1e-12  # of max_tk |a_tk|, the fit's largest step (late vectors of a converged fit are ~1e-16 in size)
)
GRID_CELLS = 30  # per axis


def _costs(rng, K: int) -> np.ndarray:
    kind = rng.integers(4)
    if kind == 0:  # 0-1 costs: symmetric classes, exact ties
        return 1.0 - np.eye(K)
    C = rng.uniform(0, 10, (K, K)) if kind == 1 else rng.integers(0, 6, (K, K)).astype(float)
    np.fill_diagonal(C, 0.0)
    C[0, 1] = max(C[0, 1], 1.0)
    if kind == 3:  # beyond [1e-3, 1e3]: training scales the rows by a power of two
        C *= 10.0 ** rng.choice([-6, 5])
    return C


def _random_problem(rng, i: int):
    K = int(rng.integers(2, 13))
    N = int(rng.integers(max(20, K), 600))
    centres = rng.normal(scale=2.0, size=(K, 2))
    y = rng.integers(0, K, N)
    y[:K] = np.arange(K)
    X = centres[y] + rng.normal(size=(N, 2))
    if i % 7 == 3:
        X = np.round(X, 1)  # duplicated values: empty bins, equal candidates
    if i % 23 == 5:
        X[:, int(rng.integers(2))] = 1.5  # a constant feature, never usable
    hyper = {
        "n_estimators": int(rng.integers(1, 130)),
        "max_depth": 1 + i % 4,
        "n_thresholds": int(rng.choice([1, 2, 7, 50, 200, 255])),
    }
    weights = None
    if i % 2:
        weights = rng.uniform(0.0, 3.0, N)
        weights[rng.random(N) < 0.1] = 0.0
        weights[:K] = 1.0
    return X, y, _costs(rng, K), hyper, weights


def _preset_problems():
    for i, name in enumerate(PRESETS):
        cfg = preset_config(name, {"n_estimators": 100, "max_depth": 1 + i % 4, "n_thresholds": 200})
        ds = dataset_from_config(cfg)
        yield ds.X_train, ds.class_index(ds.y_train), cfg.cost_matrix, cfg.hyper, None
    cfg = preset_config("airport", {"n_estimators": 150, "max_depth": 4, "n_thresholds": 255})
    ds = dataset_from_config(dataclasses.replace(cfg, spec=dataclasses.replace(cfg.spec, n_points=5000)))
    yield ds.X_train, ds.class_index(ds.y_train), cfg.cost_matrix, cfg.hyper, None


def _problems():
    rng = np.random.default_rng(20261202)
    yield from (_random_problem(rng, i) for i in range(N_RANDOM))
    yield from _preset_problems()


def _compare(ref: RebelClassifier, grid: np.ndarray, got: dict) -> dict:
    m = got["model"]
    T, K = ref.a_.shape
    shape = ref.tree_features_.shape
    A = np.asarray(m["A"], dtype=np.float64).reshape(T, K)
    a0 = np.asarray(m["a0"], dtype=np.float64)
    size = max(float(np.abs(np.vstack([ref.a0_, ref.a_])).max()), 1e-300)
    rel = np.abs(np.vstack([a0, A]) - np.vstack([ref.a0_, ref.a_])) / size
    return {
        "libm": all(math.log(x) == y for x, y in got["logs"]),  # the C library's log is math.log's
        "thresholds": np.array_equal(np.reshape(m["binThresholds"], ref.thresholds_.shape), ref.thresholds_),
        "usable": np.array_equal(np.asarray(m["usable"], dtype=bool), ref.feature_usable_),
        "trees": np.array_equal(np.reshape(m["features"], shape), ref.tree_features_)
        and np.array_equal(np.reshape(m["thrIdx"], shape), ref.tree_thr_idx_)
        and np.array_equal(np.reshape(m["leafSigns"], ref.tree_leaf_signs_.shape), ref.tree_leaf_signs_),
        "a_rel": float(rel.max()),
        "staged": np.array_equal(got["staged"], ref.staged_class_indices(grid)),
        "risk": np.allclose(m["risk"], ref.train_risk_, rtol=1e-12, atol=0),
    }


def test_javascript_engine_matches_numba():
    refs, jobs = [], []
    for X, y, C, hyper, weights in _problems():
        ref = RebelClassifier(cost_matrix=C, **hyper).fit(X, y, sample_weight=weights)
        grid = make_grid(X, GRID_CELLS).points
        refs.append((ref, grid))
        jobs.append((problem_payload(X, y, C, hyper, weights), grid))
    got = run_node(jobs, trace=True)
    results = [_compare(ref, grid, res) for (ref, grid), res in zip(refs, got, strict=True)]
    assert len(results) >= N_RANDOM + len(PRESETS)
    for key in ("thresholds", "usable", "trees", "staged"):
        bad = [i for i, r in enumerate(results) if not r[key]]
        assert not bad, f"{key} differ on problems {bad} of {len(results)}"
    bad = [i for i, r in enumerate(results) if r["libm"] and not r["risk"]]  # the C library's logs only
    assert not bad, f"training risks differ on problems {bad} of {len(results)}"
    worst = max(r["a_rel"] for r in results)
    assert worst <= A_RTOL, f"a-vectors differ by {worst:.3g} of the largest step (allowed {A_RTOL:g})"
    exact = [r for r in results if r["libm"]]
    print(
        f"\nbrowser engine: {len(results)} fits, trees and staged classes identical in all, a-vectors within "
        f"{worst:.3g} of the largest step; {len(exact)} took only the C library's logs: a-vectors within "
        f"{max(r['a_rel'] for r in exact):.3g}"
    )


def test_libm_exp_has_the_c_librarys_bits_and_log_is_correctly_rounded():
    """exp equals the C library's (math.exp) on every argument; log equals the correctly rounded logarithm."""
    from decimal import Decimal, localcontext

    rng = np.random.default_rng(3)
    x = np.concatenate(
        [rng.uniform(-30, 30, 100_000), rng.uniform(-1e-3, 1e-3, 20_000), [0.0, 1e-20, -1e-20]]
    )
    lx = np.exp(rng.uniform(-690, 5, 4000))
    script = (
        "const L = require(process.argv[1]); const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify([d[0].map(L.exp), d[1].map(L.log)]));"
    )
    import json
    import subprocess

    from rebel.ui.browser.engine import LIBM_JS

    done = subprocess.run(
        [node_path(), "-e", script, str(LIBM_JS)],
        input=json.dumps([x.tolist(), lx.tolist()]),
        capture_output=True,
        text=True,
        check=True,
    )
    ex, lg = (np.asarray(v) for v in json.loads(done.stdout))
    assert np.array_equal(ex, [math.exp(v) for v in x])
    with localcontext() as ctx:
        ctx.prec = 40
        correct = [float(Decimal(v).ln()) for v in lx]
    assert np.array_equal(lg, correct)
