"""What the suite compares exactly must be the same bits on every CPU.

OpenBLAS picks its kernels (summation order, fused multiply-adds) by processor; ``OPENBLAS_CORETYPE`` forces
another processor's kernels on this one. The shipped presets are regenerated under two other core types in fresh
processes and compared with ``sample_data/`` to the bit: a generator that goes through BLAS (a matrix product,
LAPACK's Cholesky, a dot product) fails here, as it failed on another machine before.
"""

from __future__ import annotations

import json
import platform

import pytest

import rebel.data as d
from rebel.data.presets import PRESET_COST_DIGITS
from tests.processes import run_python

X86_CORETYPES = ("Sandybridge", "Haswell")  # no FMA / FMA without AVX-512: both differ from SkylakeX and Zen

REGENERATE = """
import json, sys
import numpy as np
import rebel.data as d
from rebel.data.presets import PRESET_COST_DIGITS
from rebel.data.samples import load_sample
out = {}
for name in d.PRESETS:
    preset, stored = d.PRESETS[name], load_sample(name)
    fresh = preset.dataset()
    same = all(np.array_equal(getattr(stored, f), getattr(fresh, f)) for f in ("X_train", "X_test"))
    out[name] = {"points_equal": bool(same), "dict": json.loads(json.dumps(preset.to_dict()))}
json.dump(out, sys.stdout)
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 OpenBLAS core types")
@pytest.mark.parametrize("coretype", X86_CORETYPES)
def test_presets_regenerate_to_the_bit_under_other_blas_kernels(coretype):
    done = run_python(REGENERATE, OPENBLAS_CORETYPE=coretype)
    assert done.returncode == 0, done.stderr[-2000:]
    fresh = json.loads(done.stdout)
    for name in d.PRESETS:
        stored = json.loads((d.SAMPLE_DIR / f"{name}.json").read_text())
        assert fresh[name]["points_equal"], f"{name}: points differ under OPENBLAS_CORETYPE={coretype}"
        assert fresh[name]["dict"] == stored, (
            f"{name}: preset file differs under OPENBLAS_CORETYPE={coretype}"
        )


def test_preset_costs_are_stored_to_fixed_significant_digits():
    """Cells show whole numbers (no 0.7777777777777778 cut off) and the file is exact text."""
    for i in range(10):
        C = d.PRESETS[f"random_{i}"].cost_matrix
        for v in C.ravel().tolist():
            assert float(f"{v:.{PRESET_COST_DIGITS}g}") == v
