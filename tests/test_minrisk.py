"""MinRiskClassifier (the calibrated two-step), CostWeightedClassifier and expected_cost_scorer."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import rebel
from rebel.baselines import TwoStepClassifier
from rebel.calibration import CrossFitCalibrated
from rebel.minrisk import CostWeightedClassifier, MinRiskClassifier, expected_cost_scorer, mistake_weights

C = np.array([[0.0, 1.0, 8.0], [2.0, 0.0, 1.0], [6.0, 1.0, 0.0]])
C2 = np.array([[0.0, 5.0, 1.0], [1.0, 0.0, 9.0], [1.0, 3.0, 0.0]])


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def _logreg():
    return LogisticRegression(max_iter=500)


@parametrize_with_checks(
    [
        MinRiskClassifier(HistGradientBoostingClassifier(max_iter=5)),
        CostWeightedClassifier(HistGradientBoostingClassifier(max_iter=5)),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_exported_from_the_package():
    assert rebel.MinRiskClassifier is MinRiskClassifier
    assert rebel.CostWeightedClassifier is CostWeightedClassifier
    assert rebel.expected_cost_scorer is expected_cost_scorer


def test_another_cost_matrix_at_decision_time_needs_no_refit(iris):
    X, y = iris
    model = MinRiskClassifier(_logreg(), C, "sigmoid", n_folds=3).fit(X, y)
    fitted, calibrator = model.estimator_, model.calibrator_
    P = model.predict_proba(X)
    assert np.array_equal(model.predict(X), np.argmin(P @ C, axis=1))
    assert np.array_equal(model.predict(X, cost_matrix=C2), np.argmin(P @ C2, axis=1))
    np.testing.assert_allclose(model.risks(X, cost_matrix=C2), P @ C2, rtol=1e-12, atol=1e-12)  # the costs
    assert not np.array_equal(
        model.predict(X), model.predict(X, cost_matrix=C2)
    )  # the matrices disagree here
    assert model.estimator_ is fitted and model.calibrator_ is calibrator  # nothing was refitted
    assert np.array_equal(model.cost_matrix_, C)


def test_one_cost_matrix_per_example_at_decision_time(iris):
    X, y = iris
    model = MinRiskClassifier(_logreg(), C, "temperature", n_folds=3).fit(X, y)
    per_point = np.where((np.arange(len(X)) % 2 == 0)[:, None, None], C, C2)
    pred = model.predict(X, cost_matrix=per_point)
    even = np.arange(len(X)) % 2 == 0
    assert np.array_equal(pred[even], model.predict(X[even]))
    assert np.array_equal(pred[~even], model.predict(X[~even], cost_matrix=C2))
    P = model.predict_proba(X)
    assert np.array_equal(pred, np.argmin(np.einsum("ny,nyk->nk", P, per_point), axis=1))
    with pytest.raises(ValueError, match=r"shape \(n_samples, K, K\) = \(150, 3, 3\)"):
        model.predict(X, cost_matrix=per_point[:10])


def test_the_calibration_is_the_cross_fitted_one(iris):
    X, y = iris
    for method in ("temperature", "isotonic"):
        ours = MinRiskClassifier(_logreg(), None, method, n_folds=4, random_state=3).fit(X, y)
        theirs = CrossFitCalibrated(_logreg(), method, n_folds=4, random_state=3).fit(X, y)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-12, atol=1e-12)
    raw = MinRiskClassifier(_logreg(), C, None).fit(X, y)
    assert not raw.calibrated_
    np.testing.assert_array_equal(raw.predict_proba(X), raw.estimator_.predict_proba(X))


def test_two_step_classifier_is_the_uncalibrated_min_risk_classifier(iris):
    X, y = iris
    two = TwoStepClassifier(_logreg(), C).fit(X, y)
    assert isinstance(two, MinRiskClassifier) and two.calibration is None and not two.calibrated_
    same = MinRiskClassifier(_logreg(), C, calibration=None).fit(X, y)
    np.testing.assert_array_equal(two.predict(X), same.predict(X))


def test_labels_and_a_labelled_cost_matrix():
    import pandas as pd

    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    frame = pd.DataFrame(
        C, index=["setosa", "versicolor", "virginica"], columns=["setosa", "versicolor", "virginica"]
    )
    shuffled = frame.loc[["virginica", "setosa", "versicolor"], ["versicolor", "virginica", "setosa"]]
    a = MinRiskClassifier(_logreg(), frame, None).fit(X, names)
    b = MinRiskClassifier(_logreg(), shuffled, None).fit(X, names)
    np.testing.assert_array_equal(a.cost_matrix_, C)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert set(a.predict(X)) <= set(names)


def test_bad_calibration_and_costs_are_named(iris):
    X, y = iris
    with pytest.raises(ValueError, match="calibration is 'platt'"):
        MinRiskClassifier(_logreg(), C, "platt").fit(X, y)
    with pytest.raises(ValueError, match="3 classes"):
        MinRiskClassifier(_logreg(), np.ones((2, 2)), None).fit(X, y)
    with pytest.raises(ValueError, match="no predict_proba"):
        from sklearn.svm import LinearSVC

        MinRiskClassifier(LinearSVC(), C, None).fit(X, y)


def test_cost_weighted_training_uses_the_study_weights(iris):
    X, y = iris
    model = CostWeightedClassifier(_logreg(), C).fit(X, y)
    w = C[y].sum(axis=1) / 2  # the mean mistake cost of each point's row
    np.testing.assert_array_equal(mistake_weights(C[y]), w)
    manual = _logreg().fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(model.predict_proba(X), manual.predict_proba(X))
    wbar = np.array([w[y == k].mean() for k in range(3)])
    expected = np.argmin((manual.predict_proba(X) / wbar) @ C, axis=1)
    np.testing.assert_array_equal(model.predict(X), expected)
    np.testing.assert_array_equal(
        model.predict(X, cost_matrix=C2), np.argmin((manual.predict_proba(X) / wbar) @ C2, axis=1)
    )


def test_cost_weighted_training_takes_example_costs(iris):
    X, y = iris
    rows = C[y] * np.linspace(0.5, 2.0, len(y))[:, None]
    model = CostWeightedClassifier(_logreg()).fit(X, y, sample_cost=rows)
    manual = _logreg().fit(X, y, sample_weight=rows.sum(axis=1) / 2)
    np.testing.assert_array_equal(model.predict_proba(X), manual.predict_proba(X))
    np.testing.assert_allclose(model.cost_matrix_, np.stack([rows[y == k].mean(axis=0) for k in range(3)]))


def test_cost_weighted_refuses_a_class_whose_mistakes_are_free(iris):
    X, y = iris
    free = C.copy()
    free[1] = 0.0
    with pytest.raises(ValueError, match="every mistake on class 1 costs 0"):
        CostWeightedClassifier(_logreg(), free).fit(X, y)


def test_expected_cost_scorer_is_minus_the_mean_cost(iris):
    X, y = iris
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(
        MinRiskClassifier(_logreg(), C, None), X, y, cv=cv, scoring=expected_cost_scorer(C)
    )
    manual = []
    for train, test in cv.split(X, y):
        pred = MinRiskClassifier(_logreg(), C, None).fit(X[train], y[train]).predict(X[test])
        manual.append(-C[y[test], pred].mean())
    np.testing.assert_allclose(scores, manual)
    grid = GridSearchCV(
        MinRiskClassifier(_logreg(), C, None),
        {"calibration": [None, "temperature"]},
        scoring=expected_cost_scorer(C),
        cv=cv,
    ).fit(X, y)
    assert grid.best_score_ <= 0
