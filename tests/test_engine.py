"""Behaviour of the REBEL engine: the paper's properties, cost sensitivity, stability and input validation."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import norm

from rebel import RebelClassifier
from rebel.binning import bin_data, fit_thresholds
from rebel.costs import CostWarning, decompose, validate_cost_matrix

from . import naive


def _blobs(n=300, K=3, d=2, seed=0, spread=1.0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(K, d))
    y = rng.integers(0, K, size=n)
    X = centers[y] + spread * rng.normal(size=(n, d))
    return X, y


def _random_costs(K, seed):
    rng = np.random.default_rng(seed)
    C = np.abs(rng.normal(1.0, 1.0, size=(K, K)))
    np.fill_diagonal(C, 0.0)
    return C


# ---------------------------------------------------------------------------------------------- the math
def test_decomposition_matches_design():
    C = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [3.0, 3.0, 0.0]])
    dec = decompose(C)
    for y in range(3):
        c = C[y]
        phi = c.max()
        beta = c.sum() - 2 * phi
        np.testing.assert_allclose(dec.beta[y], beta)
        np.testing.assert_allclose(dec.cp[y], c - beta)
        np.testing.assert_allclose(dec.cm[y], phi - c)
        np.testing.assert_allclose(dec.c_star[y], 2 * np.sqrt((c - beta) * (phi - c)).sum())
        # H* minimises <c+, e^H> + <c-, e^-H> and attains c*.
        finite = np.isfinite(dec.H_star[y])
        h = dec.H_star[y][finite]
        val = (dec.cp[y][finite] * np.exp(h) + dec.cm[y][finite] * np.exp(-h)).sum()
        np.testing.assert_allclose(val, dec.c_star[y])
    uni = decompose(1 - np.eye(4))
    np.testing.assert_array_equal(uni.cp, 1 - np.eye(4))
    np.testing.assert_array_equal(uni.cm, np.eye(4))
    np.testing.assert_array_equal(uni.beta, 0)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_star_is_the_numerical_optimum_of_the_round_loss(depth):
    X, y = _blobs(200, K=4, seed=depth)
    C = _random_costs(4, depth)
    captured = {}

    def grab(t, info):
        if t == 3:
            captured["a"] = info["a"]
            captured["tree"] = info["tree"]
            return False

    model = RebelClassifier(cost_matrix=C, n_estimators=10, max_depth=depth, n_thresholds=20).fit(
        X, y, callback=grab
    )
    # Rebuild the weights before round 3 from the model's first two rounds and a0.
    H = model.a0_ + sum(
        naive.tree_outputs(
            X,
            model.tree_features_[t : t + 1],
            model.tree_thresholds_[t : t + 1],
            model.tree_leaf_signs_[t : t + 1],
            depth,
        )[:, 0:1]
        * model.a_[t]
        for t in range(2)
    )
    dec = decompose(C[y])
    wp, wm = dec.cp * np.exp(H), dec.cm * np.exp(-H)
    f = naive.tree_outputs(
        X, model.tree_features_[2:3], model.tree_thresholds_[2:3], model.tree_leaf_signs_[2:3], depth
    )[:, 0]

    def round_loss(a):
        return (wp * np.exp(f[:, None] * a)).sum() + (wm * np.exp(-f[:, None] * a)).sum()

    opt = minimize(round_loss, np.zeros(4), method="BFGS", options={"gtol": 1e-12})
    np.testing.assert_allclose(model.a_[2], opt.x, atol=1e-5)
    assert round_loss(model.a_[2]) <= opt.fun * (1 + 1e-9)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
@pytest.mark.parametrize("costs", ["01", "random", "sample"])
def test_loss_non_increasing_and_bounds_the_risk(depth, costs):
    X, y = _blobs(400, K=4, seed=7, spread=2.0)
    C = None if costs == "01" else _random_costs(4, 3)
    sample_cost = np.random.default_rng(1).exponential(size=(400, 4)) if costs == "sample" else None
    model = RebelClassifier(cost_matrix=C, n_estimators=60, max_depth=depth, n_thresholds=30).fit(
        X, y, sample_cost=sample_cost
    )
    loss, risk = model.train_loss_, model.train_risk_
    assert loss.shape == risk.shape == (61,)
    assert np.all(np.diff(loss) <= 1e-12 * loss[:-1]), "train_loss_ increased"
    assert np.all(loss >= risk - 1e-12)
    # The loss agrees with L computed from scratch on the final scores.
    rows = (C if C is not None else 1 - np.eye(4))[y] if sample_cost is None else sample_cost
    np.testing.assert_allclose(loss[-1], naive.training_loss(model.decision_function(X), rows), rtol=1e-9)


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_each_added_layer_never_increases_the_loss(depth):
    X, y = _blobs(500, K=5, seed=11, spread=2.5)
    model = RebelClassifier(
        cost_matrix=_random_costs(5, 2), n_estimators=40, max_depth=depth, n_thresholds=25
    ).fit(X, y)
    before = model.train_loss_[:-1, None]
    layers = np.hstack([before, model.layer_loss_])  # loss before the round, then after each layer
    assert np.all(np.diff(layers, axis=1) <= 1e-12 * layers[:, :-1])
    np.testing.assert_allclose(model.layer_loss_[:, -1], model.train_loss_[1:], rtol=1e-10)


def _adaboost_same_stumps(X, y_pm, thresholds, usable, n_rounds):
    """Discrete AdaBoost with a bias term, exhaustive search over the same thresholds and both polarities."""
    bins = bin_data(X, thresholds)
    F = np.full(len(y_pm), 0.5 * np.log((y_pm > 0).sum() / (y_pm < 0).sum()))
    scores = [F.copy()]
    for _ in range(n_rounds):
        w = np.exp(-y_pm * F)
        w /= w.sum()
        best = (np.inf, None)
        for j in np.flatnonzero(usable):
            for i in range(1, thresholds.shape[1] + 1):
                g = np.where(bins[j] >= i, 1.0, -1.0)
                err = w[g != y_pm].sum()
                val = np.sqrt(err * (1 - err))
                if val < best[0]:
                    best = (val, g, err)
        _, g, err = best
        err = min(max(err, 1e-12), 1 - 1e-12)
        F = F + 0.5 * np.log((1 - err) / err) * g
        scores.append(F.copy())
    return np.array(scores)


def test_binary_case_reduces_to_adaboost():
    X, y = _blobs(160, K=2, seed=5, spread=3.0)
    model = RebelClassifier(n_estimators=25, n_thresholds=15).fit(X, y)
    np.testing.assert_allclose(model.a0_[0], -model.a0_[1], rtol=1e-12)
    np.testing.assert_allclose(model.a_[:, 0], -model.a_[:, 1], rtol=1e-8, atol=1e-12)
    ada = _adaboost_same_stumps(X, np.where(y == 1, 1.0, -1.0), model.thresholds_, model.feature_usable_, 25)
    staged = [model.risk_scores(X)[:, 1] * 0 + model.a0_[1]] + [H[:, 1] for H in model.staged_risk_scores(X)]
    np.testing.assert_allclose(np.array(staged), ada, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(model.predict(X), np.where(ada[-1] > 0, 1, 0))


# ------------------------------------------------------------------------------------- cost sensitivity
def test_cost_sensitive_model_approaches_the_bayes_risk():
    """3 classes on a line, one mistake 10x as costly: the test cost is within 5% of the Bayes risk."""
    means, priors = np.array([-1.5, 0.0, 1.5]), np.ones(3) / 3
    C = 1.0 - np.eye(3)
    C[1, 2] = 10.0  # predicting class 2 when the truth is class 1 is the costly mistake
    rng = np.random.default_rng(0)

    def sample(n):
        y = rng.integers(0, 3, size=n)
        return (means[y] + rng.normal(size=n))[:, None], y

    X, y = sample(20_000)
    Xt, yt = sample(200_000)
    grid = np.linspace(-9, 9, 180_001)
    joint = priors[:, None] * norm.pdf(grid[None, :], means[:, None], 1.0)  # p(y) p(x|y)
    bayes = np.trapezoid((joint.T @ C).min(axis=1), grid)
    model = RebelClassifier(cost_matrix=C, n_estimators=100).fit(X, y)
    test_cost = model.expected_cost(Xt, yt)
    assert abs(test_cost - bayes) <= 0.05 * bayes, (test_cost, bayes)
    blind = RebelClassifier(n_estimators=100).fit(X, y)
    blind_cost = C[yt, blind.predict(Xt)].mean()  # the cost-blind model judged by the same costs
    assert blind_cost > 1.1 * test_cost


def test_fn_costs_reduce_missed_points_of_that_class():
    X, y = _blobs(900, K=3, seed=21, spread=2.5)
    C = 1.0 - np.eye(3)
    C[0, 1:] *= 10
    plain = RebelClassifier(n_estimators=80, max_depth=2).fit(X, y)
    costly = RebelClassifier(cost_matrix=C, n_estimators=80, max_depth=2).fit(X, y)
    missed = lambda m: np.sum((y == 0) & (m.predict(X) != 0))
    assert missed(costly) < missed(plain)


# ------------------------------------------------------------------------------------------- stability
@pytest.mark.parametrize("depth", [1, 2])
def test_5000_rounds_on_separable_data_with_extreme_costs(depth):
    """Costs from 1e-6 to 1e6: finite throughout, and risk 0 where REBEL's loss can reach it.

    The loss can drive the risk to 0 when every cost row has c* = 0 (rows with two values, e.g. 0-1 costs scaled
    per class). A row mixing 1e-6 and 1e6 keeps c* > 0 and stores its small differences at ~1e-12 of its scale,
    which float64 cannot resolve; there the risk must still fall by over nine orders of magnitude.
    """
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.2, size=(40, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    y = np.repeat([0, 1, 2], 40)
    scaled = np.array([1e-6, 1.0, 1e6])[:, None] * (1 - np.eye(3))
    mixed = np.array([[0, 1e-6, 1e6], [1e3, 0, 1e-3], [1e-6, 1e6, 0]])
    for C in (scaled, mixed):
        model = RebelClassifier(cost_matrix=C, n_estimators=5000, max_depth=depth, n_thresholds=50).fit(X, y)
        for arr in (model.a0_, model.a_, model.train_loss_, model.train_risk_, model.decision_function(X)):
            assert np.all(np.isfinite(arr))
        assert np.all(np.diff(model.train_loss_) <= 1e-12 * model.train_loss_[:-1])
        if C is scaled:
            assert model.train_risk_[-1] == 0.0
        else:
            incurred = C[y, model.predict(X)]
            assert np.all(
                incurred <= 1e-6 * C[y].max(axis=1)
            )  # only mistakes below float64 resolution remain
            assert model.train_risk_[-1] <= 1e-5 * model.train_risk_[0]
    # Example-dependent costs: one positive cost per sample spanning 1e-6..1e6 (two-valued rows, c* = 0).
    sample_cost = np.zeros((120, 3))
    sample_cost[np.arange(120), (y + 1) % 3] = 10.0 ** rng.uniform(-6, 6, size=120)
    sample_cost[np.arange(120), (y + 2) % 3] = sample_cost[np.arange(120), (y + 1) % 3]
    model2 = RebelClassifier(n_estimators=5000, max_depth=depth, n_thresholds=50).fit(
        X, y, sample_cost=sample_cost
    )
    assert np.all(np.isfinite(model2.decision_function(X))) and np.all(np.isfinite(model2.train_loss_))
    assert model2.train_risk_[-1] == 0.0


def test_constant_features_are_never_chosen_and_all_constant_data_still_fits():
    X, y = _blobs(200, K=3, seed=2)
    X = np.column_stack([np.full(200, 7.0), X, np.full(200, -1.0)])
    model = RebelClassifier(n_estimators=30, max_depth=2).fit(X, y)
    assert set(np.unique(model.tree_features_)) <= {1, 2}
    flat = RebelClassifier(n_estimators=5).fit(np.ones((30, 2)), np.arange(30) % 3)
    assert np.all(np.isfinite(flat.a_))
    assert np.all(flat.predict(np.ones((3, 2))) == flat.predict(np.ones((1, 2)))[0])


def test_thresholds_follow_the_contract():
    X = np.array([[0.0, 5.0], [1.0, 5.0], [4.0, 5.0]])
    thr, usable = fit_thresholds(X, 3, "uniform")
    np.testing.assert_allclose(thr[0], [1.0, 2.0, 3.0])
    assert usable.tolist() == [True, False]
    bins = bin_data(np.array([[1.0, 5.0], [1.0000001, 5.0], [-3.0, 5.0], [9.0, 5.0]]), thr)
    assert bins[0].tolist() == [0, 1, 0, 3]  # x == tau stays left; x > tau goes right


# --------------------------------------------------------------------------------------- the estimator
def test_staged_outputs_equal_fresh_fits_with_fewer_rounds():
    X, y = _blobs(250, K=3, seed=9, spread=2.0)
    C = _random_costs(3, 4)
    full = RebelClassifier(cost_matrix=C, n_estimators=12, max_depth=2, n_thresholds=30).fit(X, y)
    staged = list(full.staged_decision_function(X))
    staged_pred = list(full.staged_predict(X))
    idx = full.staged_class_indices(X)
    assert len(staged) == 12 and idx.shape == (13, 250)
    for t in (1, 5, 12):
        short = RebelClassifier(cost_matrix=C, n_estimators=t, max_depth=2, n_thresholds=30).fit(X, y)
        np.testing.assert_allclose(staged[t - 1], short.decision_function(X), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(staged_pred[t - 1], short.predict(X))
        np.testing.assert_array_equal(full.classes_[idx[t]], short.predict(X))


@pytest.mark.parametrize("depth", [1, 3])
def test_decision_function_equals_the_definition(depth):
    """H = a0 + sum_t f_t(x) a_t evaluated naively, on more rows than one block of F (several blocks)."""
    X, y = _blobs(300, K=4, seed=12, spread=2.0)
    model = RebelClassifier(
        cost_matrix=_random_costs(4, 1), n_estimators=1500, max_depth=depth, n_thresholds=30
    ).fit(X, y)
    X_new = np.random.default_rng(0).normal(scale=3, size=(1500, 2))
    expected = naive.decision_scores(
        X_new[:40],
        model.a0_,
        model.tree_features_,
        model.tree_thresholds_,
        model.tree_leaf_signs_,
        model.a_,
        depth,
    )
    H = model.decision_function(X_new)
    np.testing.assert_allclose(H[:40], expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())
    np.testing.assert_array_equal(model.staged_class_indices(X_new)[-1], np.argmax(H, axis=1))


def test_string_labels_and_predict_proba():
    X, y = _blobs(200, K=3, seed=1)
    names = np.array(["harmless", "liquid", "weapon"])[y]
    model = RebelClassifier(n_estimators=20).fit(X, names)
    assert list(model.classes_) == ["harmless", "liquid", "weapon"]
    assert set(model.predict(X)) <= set(model.classes_)
    P = model.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[P.argmax(axis=1)], model.predict(X))
    assert model.expected_cost(X, names) == pytest.approx(np.mean(model.predict(X) != names))
    costly = RebelClassifier(cost_matrix=_random_costs(3, 0), n_estimators=5).fit(X, names)
    assert not hasattr(costly, "predict_proba")
    with pytest.raises(AttributeError, match="only defined for 0-1 costs"):
        costly.predict_proba(X)


def test_non_zero_diagonal_warns_but_fits():
    X, y = _blobs(100, K=2)
    with pytest.warns(CostWarning, match=r"cost_matrix\[0, 0\]"):
        RebelClassifier(cost_matrix=[[0.5, 1.0], [1.0, 0.0]], n_estimators=3).fit(X, y)


X_OK, Y_OK = _blobs(30, K=3)


@pytest.mark.parametrize(
    "kwargs, X, y, fit_kw, pattern",
    [
        ({}, np.where(np.eye(30, 2) > 0, np.inf, X_OK), Y_OK, {}, "infinity"),
        ({}, np.empty((0, 2)), np.empty(0), {}, "0 sample"),
        ({"cost_matrix": np.ones((3, 2))}, X_OK, Y_OK, {}, r"square K x K"),
        ({"cost_matrix": 1 - np.eye(4)}, X_OK, Y_OK, {}, "data has 3 classes"),
        (
            {"cost_matrix": [[0, -1, 1], [1, 0, 1], [1, 1, 0]]},
            X_OK,
            Y_OK,
            {},
            r"cost_matrix\[0, 1\] is -1.0; costs must be >= 0",
        ),
        (
            {"cost_matrix": [[0, np.nan, 1], [1, 0, 1], [1, 1, 0]]},
            X_OK,
            Y_OK,
            {},
            r"cost_matrix\[0, 1\] is nan",
        ),
        ({"cost_matrix": np.zeros((3, 3))}, X_OK, Y_OK, {}, "all zeros"),
        (
            {"cost_matrix": [["0", "a", "1"], ["1", "0", "1"], ["1", "1", "0"]]},
            X_OK,
            Y_OK,
            {},
            "only numbers",
        ),
        (
            {},
            X_OK,
            Y_OK,
            {"sample_cost": np.ones((29, 3))},
            r"sample_cost must have shape \(n_samples, n_classes\) = \(30, 3\)",
        ),
        ({}, X_OK, Y_OK, {"sample_cost": -np.ones((30, 3))}, r"sample_cost\[0, 0\] is -1.0"),
        ({}, X_OK, np.zeros(30), {}, "only one class"),
        ({"n_estimators": 0}, X_OK, Y_OK, {}, r"n_estimators must be in \[1, 100000\]; got 0"),
        ({"max_depth": 9}, X_OK, Y_OK, {}, r"max_depth must be in \[1, 8\]"),
        ({"n_thresholds": 256}, X_OK, Y_OK, {}, r"n_thresholds must be in \[1, 255\]"),
        ({"binning": "log"}, X_OK, Y_OK, {}, "binning must be one of"),
    ],
)
def test_bad_input_raises_a_clear_value_error(kwargs, X, y, fit_kw, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CostWarning)
        with pytest.raises(ValueError, match=pattern):
            RebelClassifier(**kwargs).fit(X, y, **fit_kw)


def test_prediction_input_is_checked():
    model = RebelClassifier(n_estimators=3).fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match="X has 3 features, but RebelClassifier is expecting 2"):
        model.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="infinity"):
        model.decision_function(np.array([[np.inf, 0.0]]))
    with pytest.raises(ValueError, match="not seen in training"):
        model.expected_cost(X_OK[:2], [0, 17])
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        RebelClassifier().predict(X_OK)


def test_cost_validation_messages_name_the_entry():
    with pytest.raises(ValueError, match=r"cost_matrix\[1, 2\] is inf"):
        validate_cost_matrix([[0, 1, 1], [1, 0, np.inf], [1, 1, 0]])
    with pytest.raises(ValueError, match="at least 2 x 2"):
        validate_cost_matrix([[1.0]])
