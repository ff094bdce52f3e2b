"""The warm-up and the package's import cost (what the app's start depends on), in fresh processes:

- ``import rebel`` loads neither scikit-learn nor numba; ``rebel.RebelClassifier`` and ``rebel.warmup`` are
  the estimator class and the function (also after the ``rebel.warmup`` submodule is imported).
- ``python -m rebel.warmup <group>`` refuses an unknown group, naming it and the choices.
- With an empty numba cache, ``warmup(variants=False)`` (the paper's groups, compiled in two processes) leaves
  every paper kernel in the cache with the signatures the estimator uses: a later process that warms up with
  ``load=False``, fits, and predicts through every estimator method compiles nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, cache_dir: str | None = None, args: tuple = ()) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    cmd = [sys.executable, *(("-c", code) if code else ()), *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200, check=False)


def test_import_rebel_loads_neither_sklearn_nor_numba():
    res = _run(
        "import json, sys, importlib; import rebel; before = sorted(m for m in ('sklearn', 'numba', 'scipy') "
        "if m in sys.modules); importlib.import_module('rebel.warmup'); "
        "print(json.dumps([before, rebel.RebelClassifier.__name__, callable(rebel.warmup), "
        "type(rebel.warmup).__name__]))"
    )
    assert res.returncode == 0, res.stderr
    before, name, is_callable, kind = json.loads(res.stdout.strip().splitlines()[-1])
    assert before == []
    assert name == "RebelClassifier"
    assert is_callable and kind == "function"


def test_unknown_group_is_refused_by_name():
    res = _run("", args=("-m", "rebel.warmup", "fitt"))
    assert res.returncode == 2
    assert "fitt" in res.stderr and "'fit'" in res.stderr and "'predict'" in res.stderr


CHECK_NO_COMPILE = """
import json
from numba.core import event
import numpy as np
import rebel

compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)

with event.install_listener("numba:compile", Listener()):
    rebel.warmup(variants=False, load=False)
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 3)), np.arange(40) % 3
    model = rebel.RebelClassifier(n_estimators=3, max_depth=2, n_thresholds=8).fit(X, y)
    model.decision_function(X)
    model.predict_proba(X)
    model.staged_class_indices(X)
    list(model.staged_decision_function(X, include_bias=True))
    model.apply(X)
    model.weak_learner_outputs(X)
    from rebel import _kernels as kern
    trees = (model.tree_features_, model.tree_thresholds_, model.tree_leaf_signs_)
    kern.predict_blocks(X, model.a0_, *trees, model.a_, 2, np.empty((40, 3)), np.empty((4, 40), dtype=np.int16))
    kern.tree_outputs(X, *trees, 2, np.empty((40, 3), dtype=np.int8))
    kern.tree_leaves(X, trees[0], trees[1], 2, np.empty((40, 3), dtype=np.int32))
    kern.bin_features(X, model.thresholds_, np.empty((3, 40), dtype=np.uint8))
print(json.dumps(sorted(set(compiled))))
"""


@pytest.mark.slow
def test_parallel_warmup_leaves_every_paper_kernel_cached(tmp_path):
    cache = str(tmp_path / "numba")
    first = _run("import rebel; rebel.warmup(variants=False)", cache)
    assert first.returncode == 0, first.stderr
    second = _run(CHECK_NO_COMPILE, cache)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout.strip().splitlines()[-1]) == []
