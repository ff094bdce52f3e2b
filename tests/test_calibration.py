"""rebel.calibration: calibrators from scikit-learn on given posteriors, cross-fitting, reliability data."""

import numpy as np
import pytest

from rebel.baselines import TwoStepClassifier
from rebel.calibration import CrossFitCalibrated, calibrate, ece, fit_calibrator, fold_indices, reliability
from rebel.estimator import RebelClassifier


def _overconfident(n=4000, K=3, seed=0):
    """Labels drawn from a true posterior Q; the model reports Q sharpened (Q^4, renormalised)."""
    rng = np.random.default_rng(seed)
    Q = rng.dirichlet(np.ones(K), size=n)
    y = np.array([rng.choice(K, p=q) for q in Q])
    P = Q**4 / (Q**4).sum(axis=1, keepdims=True)
    return Q, P, y


@pytest.mark.parametrize("method", ["temperature", "sigmoid", "isotonic"])
def test_calibration_reduces_the_error_of_an_overconfident_posterior(method):
    _, P, y = _overconfident()
    cal = calibrate(P[:2000], y[:2000], P[2000:], method)
    assert cal.shape == P[2000:].shape
    np.testing.assert_allclose(cal.sum(axis=1), 1.0, rtol=1e-9)
    before, after = ece(reliability(P[2000:], y[2000:])), ece(reliability(cal, y[2000:]))
    assert after < 0.6 * before


def test_temperature_recovers_the_sharpening_factor():
    _, P, y = _overconfident(n=20000)
    beta = fit_calibrator(P, y, "temperature").calibrated_classifiers_[0].calibrators[0].beta_
    assert beta == pytest.approx(0.25, rel=0.1)  # log P = 4 log Q + const: inverse temperature 1/4


def test_reliability_bins_by_naive_loop():
    rng = np.random.default_rng(2)
    P, y = rng.dirichlet(np.ones(3), size=50), rng.integers(0, 3, 50)
    table = reliability(P, y, n_bins=5)
    probs, events = P.ravel(), (y[:, None] == np.arange(3)).ravel()
    for _, r in table.iterrows():
        b = round(r["lo"] * 5)
        inside = [(p, e) for p, e in zip(probs, events) if min(int(p * 5), 4) == b]
        assert r["count"] == len(inside)
        assert r["predicted"] == pytest.approx(np.mean([p for p, _ in inside]))
        assert r["observed"] == pytest.approx(np.mean([e for _, e in inside]))
    top = reliability(P, y, n_bins=5, kind="top")
    assert top["count"].sum() == 50
    with pytest.raises(ValueError, match="kind is 'x'"):
        reliability(P, y, kind="x")


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="calibration method is 'platt'"):
        calibrate(np.full((4, 2), 0.5), [0, 1, 0, 1], np.full((1, 2), 0.5), "platt")
    with pytest.raises(ValueError, match="every class index"):
        fit_calibrator(np.full((4, 3), 1 / 3), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="at least 5 points per class"):
        fold_indices([0, 0, 1, 1, 1, 1, 1], 5)


def test_cross_fitted_two_step_runs_and_stays_a_posterior():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int) + (X[:, 1] > 1)
    model = CrossFitCalibrated(RebelClassifier(n_estimators=10, max_depth=2), "isotonic", n_folds=3)
    P = model.fit(X, y).predict_proba(X[:20])
    assert P.shape == (20, 3) and np.allclose(P.sum(axis=1), 1.0)
    C = np.array([[0, 1, 5], [1, 0, 1], [1, 1, 0]], dtype=float)
    two = TwoStepClassifier(model, C).fit(X, y)
    assert set(two.predict(X)) <= {0, 1, 2}


def test_reliability_figure_has_the_diagonal_and_one_line_per_posterior():
    from rebel.ui.figures.calibration import reliability_figure

    _, P, y = _overconfident(n=600)
    fig = reliability_figure({"raw <b>": reliability(P, y), "calibrated": reliability(calibrate(P, y, P), y)})
    assert len(fig.data) == 3 and fig.data[0].name == "perfectly calibrated"
    assert fig.data[1].name.startswith("raw &lt;b&gt; (ECE ")  # names are escaped, ECE in the legend
