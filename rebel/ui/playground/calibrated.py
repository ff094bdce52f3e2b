"""The calibrated two-step method on the Playground: the Playground pair's 0-1 posterior calibrated on out-of-fold
models (``rebel.calibration.CrossFitCalibrated``), and the minimum-risk rule's test cost on it beside the two-step's
on the posterior as trained. The calibration lesson scene's numbers and the Playground's "Calibrated two-step"
switch read the same function. No streamlit here.
"""

from __future__ import annotations

from sklearn.base import clone

CALIBRATION_FOLDS = 5  # out-of-fold models behind the temperature scaling


def calibrated_two_step(pair, method: str = "temperature") -> dict:
    """The pair's 0-1 posterior on the test points as trained (``sigma(2H)``) and calibrated
    (``CrossFitCalibrated``: ``CALIBRATION_FOLDS`` out-of-fold models of the same options, ``method``), each
    with the minimum-risk rule's test cost and its class-wise calibration error (ECE)."""
    from rebel.calibration import CrossFitCalibrated, ece, reliability
    from rebel.costs import min_risk_class

    ds, C, y = pair.dataset, pair.cost_matrix, pair.y_test_idx
    raw = pair.posterior_model.predict_proba(ds.X_test)
    y_train = ds.class_index(ds.y_train)
    cal = CrossFitCalibrated(clone(pair.posterior_model), method, CALIBRATION_FOLDS).fit(ds.X_train, y_train)
    calibrated = cal.predict_proba(ds.X_test)
    return {
        "two-step, posterior as trained": float(C[y, min_risk_class(raw, C)].mean()),
        "two-step, calibrated posterior": float(C[y, min_risk_class(calibrated, C)].mean()),
        "ECE, as trained": ece(reliability(raw, y)),
        "ECE, calibrated": ece(reliability(calibrated, y)),
    }


def costs(pair, cache=None) -> dict:
    """``calibrated_two_step(pair)``, kept in ``cache`` (a ``ModelCache``) by the pair's key: the out-of-fold
    models are fitted once per model, not on every rerun."""
    if cache is None:
        return calibrated_two_step(pair)
    return cache.get_or_fit(f"{pair.key}/calibrated", lambda: calibrated_two_step(pair))
