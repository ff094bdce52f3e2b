"""Numerics at the edges of float64: features whose range overflows (hi - lo > 1.8e308) still get finite
thresholds strictly inside the range, separable data still trains to risk 0, the model saves and predicts
finite scores, and ordinary ranges keep the paper's threshold formula bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from rebel import RebelClassifier
from rebel.binning import fit_thresholds, midpoints, uniform_thresholds
from rebel.io import dumps_model, loads_model

BIG = np.finfo(np.float64).max  # about 1.797e308
HUGE_X = [
    np.array([[-1.7e308], [-1.6e308], [1.6e308], [1.7e308]]),  # the reproducer of the outside attack
    np.array([[-BIG, 0.0], [-1e308, 1.0], [1e308, 2.0], [BIG, 3.0]]),  # the full float64 range
    np.array([[-BIG, -BIG], [-BIG, 5e-324], [BIG, -5e-324], [BIG, BIG]]),  # extremes and subnormals
]
Y4 = np.array([0, 0, 1, 1])


@pytest.mark.parametrize("X", HUGE_X, ids=["1.7e308", "full-range", "extremes"])
@pytest.mark.parametrize("binning", ["uniform", "quantile"])
@pytest.mark.parametrize("n_thresholds", [1, 2, 10, 255])
def test_thresholds_stay_finite_and_inside_an_overflowing_range(X, binning, n_thresholds):
    thresholds, usable = fit_thresholds(X, n_thresholds, binning)
    lo, hi = X.min(axis=0)[:, None], X.max(axis=0)[:, None]
    assert usable.all()
    assert np.isfinite(thresholds).all()
    assert (thresholds > lo).all() and (thresholds < hi).all()
    assert (np.diff(thresholds, axis=1) >= 0).all()


@pytest.mark.parametrize("X", HUGE_X, ids=["1.7e308", "full-range", "extremes"])
@pytest.mark.parametrize("binning", ["uniform", "quantile"])
@pytest.mark.parametrize("depth", [1, 2])
def test_separable_data_at_the_float64_limits_trains_to_risk_zero_and_saves(X, binning, depth):
    model = RebelClassifier(n_estimators=5, max_depth=depth, n_thresholds=10, binning=binning).fit(X, Y4)
    assert model.train_risk_[-1] == 0.0
    np.testing.assert_array_equal(model.predict(X), Y4)
    text = dumps_model(model)  # raised a raw JSON error when the thresholds were inf
    loaded = loads_model(text)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_scores_stay_finite_for_inputs_at_the_float64_limits():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    model = RebelClassifier(n_estimators=20, max_depth=2, n_thresholds=16).fit(X, y)
    far = np.array([[BIG, -BIG], [-BIG, BIG], [5e-324, -5e-324], [BIG, BIG], [-BIG, -BIG]])
    assert np.isfinite(model.decision_function(far)).all()
    staged = model.staged_class_indices(far)
    assert staged.min() >= 0 and staged.max() < 3


def test_ordinary_ranges_keep_the_paper_formula_bit_for_bit():
    rng = np.random.default_rng(1)
    lo = rng.normal(size=300) * 10.0 ** rng.integers(-300, 300, size=300)
    hi = lo + np.abs(rng.normal(size=300)) * 10.0 ** rng.integers(-300, 307, size=300)
    keep = np.isfinite(hi - lo)
    lo, hi = lo[keep], hi[keep]
    for n in (1, 7, 200, 255):
        i = np.arange(1, n + 1)
        paper = lo[:, None] + i[None, :] * ((hi - lo)[:, None] / (n + 1))
        np.testing.assert_array_equal(uniform_thresholds(lo, hi, n), paper)


def test_midpoints_match_the_usual_formula_and_survive_overflow():
    a = np.array([-1.0, 2.5, -1e300, -BIG, 1.6e308])
    b = np.array([3.0, 2.5, 1e300, -1.6e308, BIG])
    mid = midpoints(a, b)
    np.testing.assert_array_equal(mid[:3], 0.5 * (a[:3] + b[:3]))
    assert np.isfinite(mid).all()
    assert (mid[3:] > a[3:]).all() and (mid[3:] < b[3:]).all()


def test_quantile_thresholds_of_many_values_spanning_the_float64_range():
    ramp = np.linspace(1.0, 0.6, 40)  # the median lies between -0.6 BIG and 0.6 BIG: 1.2 BIG apart
    x = np.concatenate([-BIG * ramp, BIG * ramp[::-1]])
    X = x[:, None]
    thresholds, _ = fit_thresholds(X, 9, "quantile")  # np.quantile interpolates with b - a: overflowed
    assert np.isfinite(thresholds).all()
    assert (thresholds > x.min()).all() and (thresholds < x.max()).all()
    y = (x > 0).astype(int)
    model = RebelClassifier(n_estimators=3, n_thresholds=9, binning="quantile").fit(
        X, y
    )  # median: a candidate
    assert model.train_risk_[-1] == 0.0
