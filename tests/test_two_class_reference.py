"""Paper mode with two classes is bit-identical to the recorded reference (``tests/data/paper_reference_k2.json``,
recorded before the split sums and the weight update had a two-class form of their own)."""

import json

import pytest

from .reference_fits import REFERENCE_K2, fingerprint, two_class_problems

RECORDED = json.loads(REFERENCE_K2.read_text())


@pytest.mark.parametrize("case", two_class_problems(), ids=lambda c: c[0])
def test_a_two_class_fit_reproduces_the_recorded_reference_exactly(case):
    name, est, X, y, S, X_eval = case
    est.fit(X, y, sample_cost=S)
    assert fingerprint(est, X_eval) == RECORDED[name]


def test_the_two_class_reference_covers_depths_cost_kinds_and_the_parallel_drivers():
    cases = {f"k2_d{d}_{k}" for d in (1, 2, 3) for k in ("matrix", "sample")}
    assert set(RECORDED) == {*cases, "k2_d3_parallel"}
