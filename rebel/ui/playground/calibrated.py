"""The calibrated two-step method on the Playground: the Playground pair's 0-1 posterior calibrated on out-of-fold
models (``rebel.calibration.CrossFitCalibrated``), and the minimum-risk rule's test cost on it beside the two-step's
on the posterior as trained. The calibration lesson scene's numbers and the Playground's "Calibrated two-step"
switch read the same function. No streamlit here.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

CALIBRATION_FOLDS = 5  # out-of-fold models behind the temperature scaling


def test_posteriors(pair, method: str = "temperature") -> tuple:
    """The pair's 0-1 posterior on the test points, ``(as trained, calibrated)`` ((N_test, K) each; as trained:
    ``sigma(2H)``; calibrated: ``CrossFitCalibrated``, ``CALIBRATION_FOLDS`` out-of-fold models of the same
    options, ``method``). Neither depends on the costs: they are kept with the 0-1 model, so a cost edit only takes
    the cheapest class of each point again."""
    from rebel.calibration import CrossFitCalibrated
    from rebel.ui.playground.compute import zero_one_kept

    ds, model = pair.dataset, pair.posterior_model

    def make():
        y_train = ds.class_index(ds.y_train)
        cal = CrossFitCalibrated(clone(model), method, CALIBRATION_FOLDS).fit(ds.X_train, y_train)
        return np.asarray(model.predict_proba(ds.X_test)), np.asarray(cal.predict_proba(ds.X_test))

    return zero_one_kept(model, ("calibrated", method, ds.X_test.tobytes()), make)


def calibrated_two_step(pair, method: str = "temperature") -> dict:
    """The minimum-risk rule's test cost and the class-wise calibration error (ECE) on the pair's 0-1 posterior
    as trained and calibrated (``test_posteriors``)."""
    from rebel.calibration import ece, reliability
    from rebel.costs import min_risk_class

    C, y = pair.cost_matrix, pair.y_test_idx
    raw, calibrated = test_posteriors(pair, method)
    return {
        "two-step, posterior as trained": float(C[y, min_risk_class(raw, C)].mean()),
        "two-step, calibrated posterior": float(C[y, min_risk_class(calibrated, C)].mean()),
        "ECE, as trained": ece(reliability(raw, y)),
        "ECE, calibrated": ece(reliability(calibrated, y)),
    }


def test_cost(pair) -> float | None:
    """The calibrated two-step method's test cost on ``pair`` (its classes in the models' order), the number the
    Playground's numbers line shows beside the three methods' (None without test points)."""
    if pair.dataset.X_test.shape[0] == 0:
        return None
    return calibrated_two_step(pair)["two-step, calibrated posterior"]


def costs(pair, cache=None) -> dict:
    """``calibrated_two_step(pair)``; the out-of-fold models are fitted once per 0-1 model (``test_posteriors``)
    and ``cache`` (a ``ModelCache``) keeps the numbers by the pair's key."""
    if cache is None:
        return calibrated_two_step(pair)
    return cache.get_or_fit(f"{pair.key}/calibrated", lambda: calibrated_two_step(pair))
