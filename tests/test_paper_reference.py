"""Paper mode is bit-identical to the recorded reference (trees, a0, a, losses, risks, scores on fixed points)."""

import json

import pytest

from .reference_fits import REFERENCE, fingerprint, problems

RECORDED = json.loads(REFERENCE.read_text())


@pytest.mark.parametrize("case", problems(), ids=lambda c: c[0])
def test_fit_reproduces_the_recorded_reference_exactly(case):
    name, est, X, y, S, X_eval = case
    est.fit(X, y, sample_cost=S)
    got = fingerprint(est, X_eval)
    assert got == RECORDED[name]


def test_reference_covers_depths_and_cost_kinds():
    cases = {f"d{d}_{k}" for d in (1, 2, 3) for k in ("zero_one", "matrix", "sample")}
    assert set(RECORDED) == {*cases, "d3_parallel"}


def test_fit_with_a_callback_reproduces_the_reference_too():
    name, est, X, y, S, X_eval = problems()[4]  # depth 2, cost matrix
    est.fit(X, y, sample_cost=S, callback=lambda t, info: None)
    assert fingerprint(est, X_eval) == RECORDED[name]
