"""The numba cache of ``rebel.kernels`` is keyed to a hash of every kernel source: numba itself keys a compiled
function to its own file only, so a kernel compiled against a constant or a callee in another stage module would
otherwise run stale after that module changed. Each test runs fresh processes on a copy of the package."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

from tests.processes import run_python

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, os
import numba
import numpy as np
from rebel import kernels as kern
out = np.empty(1)
kern.a_star(np.array([0.0]), np.array([1.0]), out)  # a* of a class with no weight on one side: set by SMOOTHING
print(json.dumps({"cache_dir": kern.CACHE_DIR, "path": kern.boost_rounds._cache._cache_path,
                  "numba_dir": numba.config.CACHE_DIR, "hash": kern.source_hash(), "a": out[0]}))
"""


def _copy_package(tmp_path: Path) -> Path:
    dest = tmp_path / "src"
    shutil.copytree(ROOT / "rebel", dest / "rebel", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _probe(src: Path, cache: Path) -> dict:
    res = run_python(PROBE, cwd=src, timeout=600, PYTHONPATH=str(src), NUMBA_CACHE_DIR=str(cache))
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_a_change_in_another_stage_module_compiles_afresh(tmp_path):
    src, cache = _copy_package(tmp_path), tmp_path / "numba"
    first = _probe(src, cache)
    again = _probe(src, cache)
    assert again == first  # same sources: the same directory (the kernel loads from it)
    assert first["path"].startswith(first["cache_dir"])
    assert first["cache_dir"].startswith(str(cache)) and first["numba_dir"] == str(
        cache
    )  # numba's own restored

    # a_star (astar.py) reads SMOOTHING from common.py: change only common.py.
    common = src / "rebel" / "kernels" / "common.py"
    text = common.read_text()
    assert "SMOOTHING = 1e-9" in text
    common.write_text(text.replace("SMOOTHING = 1e-9", "SMOOTHING = 1e-3"))
    changed = _probe(src, cache)
    assert changed["hash"] != first["hash"] and changed["cache_dir"] != first["cache_dir"]
    assert changed["path"].startswith(changed["cache_dir"])
    # eps = SMOOTHING * total / K with total 1, K 1: a* = (ln(1 + eps) - ln(eps)) / 2 under the new constant.
    assert abs(changed["a"] - 0.5 * (math.log(1.001) - math.log(1e-3))) < 1e-12
    assert abs(first["a"] - changed["a"]) > 1.0


def test_the_hash_covers_every_kernel_module(tmp_path):
    from rebel.kernels import source_hash

    src = _copy_package(tmp_path) / "rebel" / "kernels"
    assert source_hash(src) == source_hash()
    seen = {source_hash(src)}
    modules = sorted(src.glob("*.py"))
    assert len(modules) >= 10
    for module in modules:
        module.write_text(module.read_text() + "\n# changed\n")
        seen.add(source_hash(src))
    assert len(seen) == 1 + len(modules)
