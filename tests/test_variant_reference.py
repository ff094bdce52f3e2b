"""The regularisation options at their no-op values (l2_regularization=0, min_samples_leaf=1), given or left
at their defaults, reproduce every variant fit recorded before the options existed, bit for bit."""

import numpy as np
import pytest

from .variant_reference_fits import REFERENCE, fingerprint, problems

RECORDED = np.load(REFERENCE)


@pytest.mark.parametrize(
    "params", [{}, {"l2_regularization": 0.0, "min_samples_leaf": 1}], ids=["defaults", "explicit"]
)
@pytest.mark.parametrize("index", range(len(problems())), ids=[c[0] for c in problems()])
def test_no_op_regularisation_reproduces_the_recorded_variant_bits(index, params):
    name, est, X, y, S, X_eval = problems(**params)[index]
    est.fit(X, y, sample_cost=S)
    got = fingerprint(est, X_eval)
    assert set(got) == {key.split("/", 1)[1] for key in RECORDED.files if key.startswith(name + "/")}
    for key, arr in got.items():
        want = RECORDED[f"{name}/{key}"]
        assert arr.dtype == want.dtype and arr.shape == want.shape, key
        assert arr.tobytes() == want.tobytes(), f"{name}: {key} differs"
