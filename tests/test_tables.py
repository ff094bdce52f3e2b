"""Real tables: missing values, categorical features, class weights, threads, progress and importances."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight

from rebel import RebelClassifier
from rebel import columns as col

ARRAYS = (
    "a0_",
    "tree_features_",
    "tree_thr_idx_",
    "tree_thresholds_",
    "tree_leaf_signs_",
    "a_",
    "train_loss_",
)


def _gapped(n, seed, nan_class, margin=0.0):
    """x0 in [0, 0.4 - margin] (class 0) or [0.6 + margin, 1] (class 1), x1 noise; a fifth of the rows have x0
    missing and all belong to ``nan_class``: the numeric split and the side of the missing rows are
    unambiguous (test points with a margin: away from where two learners may put the threshold)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x0 = np.where(y == 1, rng.uniform(0.6 + margin, 1.0, n), rng.uniform(0.0, 0.4 - margin, n))
    missing = rng.random(n) < 0.2
    y = np.where(missing, nan_class, y)
    x0 = np.where(missing, np.nan, x0)
    return np.column_stack([x0, rng.normal(size=n)]), y


@pytest.mark.parametrize("nan_class", [0, 1])
@pytest.mark.parametrize("depth", [1, 2])
def test_missing_values_go_where_hgb_sends_them(nan_class, depth):
    X, y = _gapped(400, 0, nan_class)
    X_test, y_test = _gapped(300, 1, nan_class, margin=0.05)
    rebel = RebelClassifier(n_estimators=20, max_depth=depth).fit(X, y)
    hgb = HistGradientBoostingClassifier(max_iter=100, random_state=0).fit(X, y)
    pred = rebel.predict(X_test)
    np.testing.assert_array_equal(pred, hgb.predict(X_test))
    np.testing.assert_array_equal(pred, y_test)  # the split is clean: both are right everywhere
    nan_rows = np.isnan(X_test[:, 0])
    assert nan_rows.sum() > 30 and np.all(pred[nan_rows] == nan_class)


def test_a_model_predicts_what_it_trained_on_with_nan_and_categories():
    """The engine columns of predict are those of training: the training risk the fit tracked is the cost of
    the model's own predictions on the training rows."""
    rng = np.random.default_rng(3)
    n = 300
    df = pd.DataFrame(
        {
            "x": np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n)),
            "c": pd.Categorical(rng.choice(["p", "q", "r", None], n)),
            "z": rng.normal(size=n),
        }
    )
    y = rng.integers(0, 3, n)
    C = np.array([[0, 1, 4], [2, 0, 1], [1, 3, 0]], float)
    model = RebelClassifier(cost_matrix=C, n_estimators=15, max_depth=2).fit(df, y)
    assert model.expected_cost(df, y) == pytest.approx(model.train_risk_[-1], rel=1e-12, abs=1e-12)
    assert list(model.feature_names_in_) == ["x", "c", "z"]
    assert model.is_categorical_.tolist() == [False, True, False]
    assert list(model.categories_[1]) == ["p", "q", "r"]
    kinds = [col.KIND_NAMES[k] for k in model.columns_kind_]
    assert kinds == ["nan-left", "nan-right", "category", "category", "category", "category", "plain"]


def _categories(n, seed):
    """Class 1 exactly for categories 'b' and 'd' of four (two one-vs-rest splits), a numeric noise column."""
    rng = np.random.default_rng(seed)
    c = rng.choice(list("abcd"), n)
    df = pd.DataFrame({"c": pd.Categorical(c, categories=list("abcd")), "noise": rng.normal(size=n)})
    return df, np.isin(c, ["b", "d"]).astype(int)


@pytest.mark.parametrize("depth", [1, 2])
def test_categories_split_as_hgb_splits_them(depth):
    df, y = _categories(400, 0)
    test, y_test = _categories(200, 1)
    rebel = RebelClassifier(n_estimators=30, max_depth=depth).fit(df, y)
    hgb = HistGradientBoostingClassifier(max_iter=30, categorical_features="from_dtype").fit(df, y)
    np.testing.assert_array_equal(rebel.predict(test), hgb.predict(test))
    np.testing.assert_array_equal(rebel.predict(test), y_test)


def test_text_columns_and_numpy_indices_are_categorical_too():
    df, y = _categories(200, 2)
    as_text = df.assign(c=df["c"].astype(str))
    by_dtype = RebelClassifier(n_estimators=10).fit(df, y)
    by_text = RebelClassifier(n_estimators=10).fit(as_text, y)
    codes = df["c"].cat.codes.to_numpy(float) * 10.0  # numbers as categories, named by index
    X = np.column_stack([codes, df["noise"]])
    by_index = RebelClassifier(n_estimators=10, categorical_features=[0]).fit(X, y)
    for other in (by_text, by_index):
        for name in ARRAYS:
            np.testing.assert_array_equal(getattr(by_dtype, name), getattr(other, name))
    np.testing.assert_array_equal(by_index.predict(X), by_dtype.predict(df))


def test_unknown_and_missing_categories_predict():
    df, y = _categories(200, 3)
    model = RebelClassifier(n_estimators=10).fit(df, y)
    new = pd.DataFrame({"c": ["e", None, "b"], "noise": [0.0, 0.0, 0.0]})
    pred = model.predict(new)
    assert pred.shape == (3,) and pred[2] == 1
    # an unseen category is "the rest" at every split: as a category that no split isolates would be
    rest = model.decision_function(new.iloc[:1])
    assert np.isfinite(rest).all()


def test_numeric_data_without_nan_trains_exactly_as_before():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3))
    y = rng.integers(0, 3, 150)
    plain = RebelClassifier(n_estimators=10, max_depth=2).fit(X, y)
    framed = RebelClassifier(n_estimators=10, max_depth=2).fit(pd.DataFrame(X, columns=list("abc")), y)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(plain, name), getattr(framed, name))
    assert not hasattr(plain, "tree_columns_") and not hasattr(framed, "columns_source_")


def test_a_nan_at_predict_of_a_model_without_nan_goes_left():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    model = RebelClassifier(n_estimators=10).fit(X, y)
    rows = np.array([[np.nan, 0.3], [-1e300, 0.3]])
    scores = model.risk_scores(rows)
    np.testing.assert_array_equal(scores[0], scores[1])
    big = np.repeat(rows, 40_000, axis=0)  # through the prediction kernel, not the binned path
    np.testing.assert_array_equal(model.risk_scores(big)[::40_000], scores)


def test_infinity_is_still_refused_with_the_projects_message():
    X, y = _gapped(50, 6, 1)
    with pytest.raises(ValueError, match="infinity.*NaN for a missing value"):
        RebelClassifier(n_estimators=2).fit(np.where(np.isnan(X), np.inf, X), y)


def test_all_missing_feature_is_unusable_and_harmless():
    X, y = _gapped(100, 7, 1)
    X = np.column_stack([X, np.full(100, np.nan)])
    model = RebelClassifier(n_estimators=5).fit(X, y)
    assert not model.feature_usable_[model.columns_source_ == 2].any()
    assert not np.any(model.tree_features_ == 2)


def test_class_weight_is_sample_weight_by_class():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(120, 2))
    y = np.where(rng.random(120) < 0.2, "rare", "common")
    balanced = RebelClassifier(n_estimators=8, class_weight="balanced").fit(X, y)
    weighted = RebelClassifier(n_estimators=8).fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    by_dict = RebelClassifier(n_estimators=8, class_weight={"rare": 3.0}).fit(X, y)
    by_weight = RebelClassifier(n_estimators=8).fit(X, y, sample_weight=np.where(y == "rare", 3.0, 1.0))
    for a, b in ((balanced, weighted), (by_dict, by_weight)):
        for name in ARRAYS:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    with pytest.raises(ValueError, match="class_weight names class 'other'"):
        RebelClassifier(class_weight={"other": 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight='even' is not understood"):
        RebelClassifier(class_weight="even").fit(X, y)


def test_n_jobs_sets_the_engine_threads_and_keeps_the_bits():
    import numba

    rng = np.random.default_rng(9)
    X = rng.normal(size=(3000, 8))
    y = rng.integers(0, 3, 3000)
    before = numba.get_num_threads()
    one = RebelClassifier(n_estimators=10, max_depth=2, n_jobs=1).fit(X, y)
    every = RebelClassifier(n_estimators=10, max_depth=2, n_jobs=-1).fit(X, y)
    assert numba.get_num_threads() == before
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(one, name), getattr(every, name))
    np.testing.assert_array_equal(one.risk_scores(X), every.risk_scores(X))
    with pytest.raises(ValueError, match="n_jobs must be None or a nonzero integer"):
        RebelClassifier(n_jobs=0).fit(X, y)


def test_verbose_prints_progress(capsys):
    X, y = _gapped(80, 10, 1)
    RebelClassifier(n_estimators=20, verbose=1).fit(X, y)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Fitting 20 rounds" and out[-1].startswith("Fit 20 rounds in")
    assert sum(line.startswith("[") for line in out) == 10
    RebelClassifier(n_estimators=5).fit(X, y)
    assert capsys.readouterr().out == ""


def test_importances_split_and_gain_with_names_after_a_column_transformer():
    rng = np.random.default_rng(11)
    df = pd.DataFrame({"signal": rng.normal(size=300), "noise": rng.normal(size=300)})
    y = (df["signal"] > 0.2).astype(int)
    prep = ColumnTransformer([("scale", StandardScaler(), ["signal", "noise"])]).set_output(
        transform="pandas"
    )
    pipe = make_pipeline(prep, RebelClassifier(n_estimators=30, importance_type="gain")).fit(df, y)
    model = pipe[-1]
    assert list(model.feature_names_in_) == ["scale__signal", "scale__noise"]
    gain = model.feature_importances_
    split = model.set_params(importance_type="split").feature_importances_
    assert gain.sum() == pytest.approx(1.0) and split.sum() == pytest.approx(1.0)
    assert gain[0] > max(split[0], 0.9)  # few of the splits, most of the loss taken off
    with pytest.raises(ValueError, match="importance_type must be one of"):
        _ = model.set_params(importance_type="cover").feature_importances_


def test_stump_gains_add_up_to_the_loss_decrease():
    from rebel.fit_options import split_gains

    X, y = _gapped(200, 12, 1)
    for depth in (1, 3):
        model = RebelClassifier(n_estimators=12, max_depth=depth).fit(X, y)
        gains = split_gains(model.train_loss_, model.layer_loss_, model.tree_features_.shape[1])
        decrease = np.clip(-np.diff(model.train_loss_), 0, None)
        np.testing.assert_allclose(gains.sum(axis=1), decrease, rtol=1e-12, atol=1e-15)


def test_bad_categorical_features_are_named():
    X, y = _gapped(40, 13, 1)
    with pytest.raises(ValueError, match="column index 5"):
        RebelClassifier(categorical_features=[5]).fit(X, y)
    with pytest.raises(ValueError, match="no column names"):
        RebelClassifier(categorical_features=["c"]).fit(X, y)
    with pytest.raises(ValueError, match="categorical_features='auto' is not understood"):
        RebelClassifier(categorical_features="auto").fit(X, y)
    many = pd.DataFrame({"id": [f"r{i}" for i in range(300)]})
    with pytest.raises(ValueError, match=r"'id' \(column 0\) has 300 categories"):
        RebelClassifier().fit(many, np.arange(300) % 2)


def test_read_only_x_is_copied_before_the_kernels():
    """joblib hands worker processes read-only memory maps; numba would compile every kernel again for them."""
    from rebel.table_input import writeable

    rng = np.random.default_rng(14)
    X = rng.normal(size=(120, 3))
    y = rng.integers(0, 2, 120)
    frozen = X.copy()
    frozen.setflags(write=False)
    assert writeable(frozen).flags.writeable and writeable(X) is X
    a = RebelClassifier(n_estimators=5).fit(X, y)
    b = RebelClassifier(n_estimators=5).fit(frozen, y)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_array_equal(a.risk_scores(X), b.risk_scores(frozen))
