"""scikit-learn conventions of RebelClassifier (binary decision values, labelled cost frames, log-probabilities,
feature importances, the Attributes section) and numbers at the edges (cost scale, weights, labels, messages)."""

import inspect
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import cross_val_score

from rebel import RebelClassifier
from rebel.baselines import staged_scores


def _binary(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _three(n=240, seed=1):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = rng.normal(size=(n, 2)) + 1.5 * np.column_stack([y == 0, y == 1])
    return X, y


# ------------------------------------------------------------------------------ binary decision function


def test_binary_decision_function_is_the_margin_for_classes_1():
    X, y = _binary()
    model = RebelClassifier(n_estimators=15, n_thresholds=20).fit(X, np.where(y == 1, "yes", "no"))
    H = model.risk_scores(X)
    d = model.decision_function(X)
    assert H.shape == (len(X), 2) and d.shape == (len(X),)
    np.testing.assert_array_equal(d, H[:, 1] - H[:, 0])
    # positive favours classes_[1] ("yes"), as scikit-learn's binary convention
    np.testing.assert_array_equal(model.predict(X), np.where(d > 0, model.classes_[1], model.classes_[0]))
    staged = list(model.staged_decision_function(X))
    staged_H = list(model.staged_risk_scores(X))
    assert len(staged) == model.n_estimators_ and staged[-1].shape == (len(X),)
    np.testing.assert_array_equal(staged[-1], d)
    np.testing.assert_array_equal(staged_H[-1], H)
    with_bias = list(model.staged_decision_function(X, include_bias=True))
    np.testing.assert_array_equal(with_bias[0], np.full(len(X), model.a0_[1] - model.a0_[0]))
    # the baselines' generic scores stay the K-vector for REBEL
    np.testing.assert_array_equal(list(staged_scores(model, X))[-1], H)


def test_multiclass_decision_function_keeps_the_k_vector():
    X, y = _three()
    model = RebelClassifier(n_estimators=10, n_thresholds=20).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), model.risk_scores(X))
    assert model.decision_function(X).shape == (len(X), 3)


def test_roc_auc_scoring_and_calibration_run():
    X, y = _binary(300)
    scores = cross_val_score(RebelClassifier(n_estimators=20, n_thresholds=20), X, y, cv=3, scoring="roc_auc")
    assert np.all(np.isfinite(scores)) and scores.min() > 0.8
    cal = CalibratedClassifierCV(RebelClassifier(n_estimators=20, n_thresholds=20), cv=3).fit(X, y)
    P = cal.predict_proba(X)
    assert P.shape == (len(X), 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert (cal.predict(X) == y).mean() > 0.8


# ------------------------------------------------------------------------------ labelled cost frames


def test_labelled_cost_frame_is_aligned_by_its_labels():
    X, y = _three()
    names = np.array(["cat", "dog", "eel"])[y]
    C = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [5.0, 3.0, 0.0]])
    order = ["eel", "cat", "dog"]
    frame = pd.DataFrame(C, index=["cat", "dog", "eel"], columns=["cat", "dog", "eel"]).loc[
        order, order[::-1]
    ]
    by_array = RebelClassifier(C, n_estimators=8, n_thresholds=20).fit(X, names)
    by_frame = RebelClassifier(frame, n_estimators=8, n_thresholds=20).fit(X, names)
    np.testing.assert_array_equal(by_frame.cost_matrix_, C)
    np.testing.assert_array_equal(by_frame.a_, by_array.a_)
    # an unlabelled frame (default integer labels) is read by position, like the array
    np.testing.assert_array_equal(
        RebelClassifier(pd.DataFrame(C), n_estimators=2).fit(X, names).cost_matrix_, C
    )


@pytest.mark.parametrize(
    ("index", "columns", "words"),
    [
        (["cat", "dog", "eel"], ["cat", "dog", "fox"], ["columns", "missing ['eel']", "not a class ['fox']"]),
        (["cat", "dog", "dog"], ["cat", "dog", "eel"], ["index", "missing ['eel']", "repeated"]),
    ],
)
def test_mismatched_cost_frame_labels_are_named(index, columns, words):
    X, y = _three()
    names = np.array(["cat", "dog", "eel"])[y]
    frame = pd.DataFrame(1.0 - np.eye(3), index=index, columns=columns)
    with pytest.raises(ValueError, match="cost_matrix") as err:
        RebelClassifier(frame, n_estimators=2).fit(X, names)
    for word in words:
        assert word in str(err.value)


def test_sample_cost_frame_columns_are_aligned_by_label():
    X, y = _three()
    rows = (1.0 - np.eye(3))[y] * (1 + np.arange(len(y)) % 4)[:, None]
    frame = pd.DataFrame(rows, columns=[0, 1, 2])[[2, 0, 1]]
    a = RebelClassifier(n_estimators=6, n_thresholds=20).fit(X, y, sample_cost=rows)
    b = RebelClassifier(n_estimators=6, n_thresholds=20).fit(X, y, sample_cost=frame)
    np.testing.assert_array_equal(a.a_, b.a_)
    with pytest.raises(ValueError, match=r"sample_cost.*missing \[2\]"):
        RebelClassifier(n_estimators=2).fit(X, y, sample_cost=frame.rename(columns={2: 7}))


# ------------------------------------------------------------------------------ log-probabilities, importances


def test_predict_log_proba_exists_where_predict_proba_does():
    X, y = _three()
    model = RebelClassifier(n_estimators=10, n_thresholds=20).fit(X, y)
    np.testing.assert_allclose(model.predict_log_proba(X), np.log(model.predict_proba(X)))
    costly = RebelClassifier(np.array([[0, 1, 5], [1, 0, 1], [1, 1, 0.0]]), n_estimators=3).fit(X, y)
    assert not hasattr(costly, "predict_proba") and not hasattr(costly, "predict_log_proba")


def test_feature_importances_are_split_shares():
    rng = np.random.default_rng(3)
    X, y = _binary(300)
    X = np.column_stack([X[:, 0], np.zeros(len(X)), rng.normal(size=len(X))])  # column 1 cannot split
    model = RebelClassifier(n_estimators=20, max_depth=2, n_thresholds=20).fit(X, y)
    imp = model.feature_importances_
    assert imp.shape == (3,) and imp[1] == 0.0
    assert math.isclose(imp.sum(), 1.0) and imp[0] == imp.max()
    counts = np.bincount(model.tree_features_.ravel(), minlength=3)
    np.testing.assert_allclose(imp, counts / counts.sum())
    assert not hasattr(RebelClassifier(), "feature_importances_")


def test_docstring_uses_numpydoc_section_names():
    doc = inspect.getdoc(RebelClassifier)
    assert "Attributes\n----------" in doc and "Parameters\n----------" in doc
    assert "Fitted attributes" not in doc
    assert "risk_scores" in doc  # the binary convention is documented


# ------------------------------------------------------------------------------ numbers at the edges


@pytest.mark.parametrize("loss", ["exp", "logistic"])
@pytest.mark.parametrize("factor", [1e-300, 1e-12, 1e100])
def test_only_cost_ratios_matter_for_every_loss(loss, factor):
    X, y = _three()
    C = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [5.0, 3.0, 0.0]])
    base = RebelClassifier(C, n_estimators=15, n_thresholds=20, loss=loss).fit(X, y)
    scaled = RebelClassifier(C * factor, n_estimators=15, n_thresholds=20, loss=loss).fit(X, y)
    np.testing.assert_array_equal(scaled.tree_features_, base.tree_features_)
    np.testing.assert_allclose(scaled.a_, base.a_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(scaled.predict(X), base.predict(X))
    assert (base.predict(X) == y).mean() > 0.5  # well above chance (1/3), not a null model
    np.testing.assert_array_equal(scaled.cost_matrix_, C * factor)  # reported in the units given
    np.testing.assert_allclose(scaled.train_risk_ / factor, base.train_risk_, rtol=1e-9)


def test_power_of_two_scale_is_exact_for_the_logistic_loss():
    X, y = _three()
    C = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [5.0, 3.0, 0.0]])
    a = RebelClassifier(C, n_estimators=10, n_thresholds=20, loss="logistic").fit(X, y)
    b = RebelClassifier(C * 2.0**-900, n_estimators=10, n_thresholds=20, loss="logistic").fit(X, y)
    np.testing.assert_array_equal(a.a_, b.a_)
    np.testing.assert_array_equal(a.train_loss_ * 2.0**-900, b.train_loss_)


@pytest.mark.parametrize(
    ("C", "match"),
    [
        ((1 - np.eye(3)) * 5e-324, "smallest normal float64"),
        (np.array([[0.0, 1e100, 1.0], [1e-250, 0.0, 1.0], [1.0, 1.0, 0.0]]), "too wide a range"),
    ],
)
def test_costs_too_small_to_represent_are_refused(C, match):
    X, y = _three()
    with pytest.raises(ValueError, match=match):
        RebelClassifier(C, n_estimators=3).fit(X, y)


def test_huge_sample_weights_give_the_model_of_unit_weights():
    X, y = _binary()
    ones = RebelClassifier(n_estimators=15, n_thresholds=20).fit(X, y, sample_weight=np.ones(len(y)))
    huge = RebelClassifier(n_estimators=15, n_thresholds=20).fit(X, y, sample_weight=np.full(len(y), 1e306))
    np.testing.assert_array_equal(huge.a_, ones.a_)
    np.testing.assert_array_equal(huge.tree_features_, ones.tree_features_)
    assert np.isfinite(huge.train_loss_).all() and huge.train_loss_[-1] < huge.train_loss_[0]


def test_text_sample_weight_is_a_value_error_naming_it():
    X, _ = _binary(6)
    with pytest.raises(ValueError, match=r"sample_weight\[2\] is 'a', not a number"):
        RebelClassifier(n_estimators=2).fit(X, [0, 1] * 3, sample_weight=[1, 2, "a", 3, 4, 5])


@pytest.mark.parametrize("as_object_array", [False, True])
def test_integer_labels_beyond_int64_stay_distinct(as_object_array):
    X, y = _binary()
    big = [11111111111111111111, 22222222222222222222]
    labels = [big[v] for v in y]
    if as_object_array:
        labels = np.array(labels, dtype=object)
    model = RebelClassifier(n_estimators=10, n_thresholds=20).fit(X, labels)
    assert list(model.classes_) == big
    pred = model.predict(X)
    assert set(pred) == set(big) and all(type(v) is int for v in pred)
    reference = RebelClassifier(n_estimators=10, n_thresholds=20).fit(X, y)
    np.testing.assert_array_equal(pred == big[1], reference.predict(X) == 1)
    assert model.expected_cost(X, labels) == reference.expected_cost(X, y)


@pytest.mark.parametrize(
    ("labels", "match"),
    [
        ([0, "0", 1] * 4, "mixes label types"),
        (np.array([0, "0", 1] * 4, dtype=object), "mixes label types"),
        ([None, "a", "b"] * 4, "missing label"),
        ([0.5, 1.5, 2.5] * 4, "Unknown label type: continuous"),
    ],
)
def test_bad_label_types_are_project_value_errors(labels, match):
    X = np.random.default_rng(0).normal(size=(12, 2))
    with pytest.raises(ValueError, match=match) as err:
        RebelClassifier(n_estimators=2).fit(X, labels)
    assert "Maybe you are trying" not in str(err.value)


def test_infinite_input_gets_the_projects_message():
    X, y = _binary(20)
    bad = X.copy()
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity") as err:
        RebelClassifier(n_estimators=2).fit(bad, y)
    assert "HistGradientBoosting" not in str(err.value) and "scikit-learn.org" not in str(err.value)
    model = RebelClassifier(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="infinity") as err:
        model.predict(bad)
    assert "HistGradientBoosting" not in str(err.value)


def test_degenerate_mixture_covariance_is_a_project_message():
    from rebel.data.mixture import sample_mixture

    mix = pd.DataFrame(
        {"class": ["a", "b"], "mean_x": [0, 1], "mean_y": [0, 1], "std_x": [1e-200, 1.0], "std_y": [1.0, 1.0]}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="mixture row 0 .*not positive definite") as err:
            sample_mixture(mix, 10, seed=0)
    assert "Matrix is not positive definite" not in str(err.value)


def test_pandas_missing_label_is_named():
    X = np.random.default_rng(0).normal(size=(6, 2))
    y = pd.Series([1, 2, None, 1, 2, 1], dtype="Int64")
    with pytest.raises(ValueError, match=r"y\[2\] is (<NA>|NaN), a missing label"):
        RebelClassifier(n_estimators=2).fit(X, y)
