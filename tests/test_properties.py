"""Property tests of the engine (Hypothesis): random shapes, costs of extreme magnitudes, depths, duplicate
rows and constant features. Every example must keep the paper's invariants."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebel import RebelClassifier
from rebel.io import dumps_model, loads_model

EXAMPLES = 200


@st.composite
def problems(draw):
    K = draw(st.integers(2, 5))
    N = draw(st.integers(K, 60))
    d = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, d)) * 10.0 ** draw(st.integers(-3, 3))
    if draw(st.booleans()):  # duplicate rows
        X[N // 2 :] = X[: N - N // 2]
    if draw(st.booleans()):  # a constant feature
        X[:, rng.integers(d)] = draw(st.floats(-1e3, 1e3, allow_nan=False))
    y = rng.integers(0, K, size=N)
    y[:K] = np.arange(K)  # every class present
    scale = 10.0 ** draw(st.integers(-6, 6))
    kind = draw(st.sampled_from(["01", "matrix", "extreme", "sample"]))
    C, S = None, None
    if kind == "matrix":
        C = rng.exponential(size=(K, K)) * scale
        np.fill_diagonal(C, 0.0)
    elif kind == "extreme":
        C = 10.0 ** rng.uniform(-6, 6, size=(K, K))
        np.fill_diagonal(C, 0.0)
    elif kind == "sample":
        S = rng.exponential(size=(N, K)) * scale
    depth = draw(st.integers(1, 3))
    n_thresholds = draw(st.sampled_from([1, 3, 16, 255]))
    rounds = draw(st.integers(1, 25))
    return X, y, C, S, depth, n_thresholds, rounds


def _fit(X, y, C, S, depth, n_thresholds, rounds):
    model = RebelClassifier(cost_matrix=C, n_estimators=rounds, max_depth=depth, n_thresholds=n_thresholds)
    return model.fit(X, y, sample_cost=S)


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_invariants_hold_on_random_problems(problem):
    X, y, _C, S, _depth, _n_thresholds, _rounds = problem
    model = _fit(*problem)
    H = model.risk_scores(X)
    for arr in (H, model.a0_, model.a_, model.train_loss_, model.train_risk_, model.layer_loss_):
        assert np.all(np.isfinite(arr))
    loss, risk = model.train_loss_, model.train_risk_
    assert np.all(np.diff(loss) <= 1e-10 * np.abs(loss[:-1]) + 1e-300)  # non-increasing
    assert np.all(loss >= risk - 1e-9 * np.abs(risk) - 1e-300)  # the loss bounds the risk
    # The reported risk is the risk of the model's own predictions on the training data.
    rows = S if S is not None else model.cost_matrix_[np.searchsorted(model.classes_, y)]
    np.testing.assert_allclose(
        risk[-1], rows[np.arange(len(y)), np.argmax(H, axis=1)].mean(), rtol=1e-9, atol=0
    )
    # Staged scores end at decision_function and agree with the staged class indices.
    staged = list(model.staged_risk_scores(X))
    np.testing.assert_allclose(staged[-1], H, rtol=1e-9, atol=1e-9 * np.abs(H).max())
    idx = model.staged_class_indices(X)
    np.testing.assert_array_equal(idx[-1], np.argmax(H, axis=1))
    # JSON round trip is exact.
    np.testing.assert_array_equal(loads_model(dumps_model(model)).risk_scores(X), H)


@settings(max_examples=EXAMPLES // 2)
@given(
    N=st.integers(30, 100),
    d=st.integers(1, 4),
    K=st.integers(2, 4),
    depth=st.integers(1, 3),
    seed=st.integers(0, 2**31 - 1),
)
def test_predictions_do_not_depend_on_training_row_order(N, d, K, depth, seed):
    """Where ties cannot occur, the order of the training rows changes nothing but the order of sums.

    Ties need exactly equal objectives for different candidates. 0-1 or per-class costs make them common (all
    samples of a class share one weight pattern, as in AdaBoost), and so does perfect separation (several
    stumps reach objective 0). So this property uses continuous random example-dependent costs, continuous
    features and labels drawn independently of them on at least 30 points: every weight is distinct and no
    stump separates the classes.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, d))
    y = rng.integers(0, K, size=N)
    y[:K] = np.arange(K)
    S = rng.uniform(0.5, 2.0, size=(N, K))
    S[np.arange(N), y] = 0.0
    perm = rng.permutation(N)
    a = RebelClassifier(n_estimators=10, max_depth=depth, n_thresholds=20).fit(X, y, sample_cost=S)
    b = RebelClassifier(n_estimators=10, max_depth=depth, n_thresholds=20).fit(
        X[perm], y[perm], sample_cost=S[perm]
    )
    np.testing.assert_array_equal(a.tree_features_, b.tree_features_)
    np.testing.assert_array_equal(a.tree_thresholds_, b.tree_thresholds_)
    np.testing.assert_allclose(a.a_, b.a_, rtol=1e-8, atol=1e-10)
    X_new = rng.normal(size=(200, d)) * 2
    np.testing.assert_array_equal(a.predict(X_new), b.predict(X_new))


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
@given(
    problems(),
    st.sampled_from([("exp", "vector"), ("logistic", "binary"), ("logistic", "vector"), ("exp", "binary")]),
    st.sampled_from([1.0, 0.5, 0.05]),
)
def test_variants_keep_the_loss_finite_and_non_increasing(problem, variant, learning_rate):
    X, y, C, S, depth, n_thresholds, rounds = problem
    loss_name, leaves = variant
    hyper = {"n_estimators": rounds, "max_depth": depth, "n_thresholds": n_thresholds}
    model = RebelClassifier(
        cost_matrix=C, loss=loss_name, leaves=leaves, learning_rate=learning_rate, **hyper
    )
    model.fit(X, y, sample_cost=S)
    H = model.risk_scores(X)
    for arr in (H, model.a0_, model.a_, model.train_loss_, model.train_risk_, model.layer_loss_):
        assert np.all(np.isfinite(arr))
    loss = model.train_loss_
    assert np.all(np.diff(loss) <= 1e-10 * np.abs(loss[:-1]) + 1e-300)
    np.testing.assert_array_equal(model.staged_class_indices(X)[-1], np.argmax(H, axis=1))
    loaded = loads_model(dumps_model(model))
    np.testing.assert_array_equal(loaded.risk_scores(X), H)


# ------------------------------------------------------- the regularised variants (l2_regularization, min_samples_leaf)
REGULARISED = [("exp", "vector"), ("logistic", "binary"), ("logistic", "vector")]


@settings(max_examples=EXAMPLES // 2, suppress_health_check=[HealthCheck.too_slow])
@given(
    problems(),
    st.sampled_from(REGULARISED),
    st.sampled_from([0.0, 0.01, 1.0, 100.0]),
    st.sampled_from([1, 2, 5]),
)
def test_regularised_variants_keep_the_loss_non_increasing(problem, variant, l2, msl):
    """The loss recomputed from the model's scores is the recorded one, and it never rises round to round."""
    from rebel.variants import training_loss

    X, y, C, S, depth, n_thresholds, rounds = problem
    loss_name, leaves = variant
    model = RebelClassifier(
        cost_matrix=C, n_estimators=rounds, max_depth=depth, n_thresholds=n_thresholds, loss=loss_name,
        leaves=leaves, l2_regularization=l2, min_samples_leaf=msl,
    )  # fmt: skip
    model.fit(X, y, sample_cost=S)
    H = model.risk_scores(X)
    loss = model.train_loss_
    assert np.all(np.isfinite(H)) and np.all(np.isfinite(loss))
    assert np.all(np.diff(loss) <= 1e-10 * np.abs(loss[:-1]) + 1e-300)
    rows = S if S is not None else model.cost_matrix_[np.searchsorted(model.classes_, y)]
    np.testing.assert_allclose(loss[-1], training_loss(H, rows, loss_name), rtol=1e-8)


@settings(max_examples=EXAMPLES)
@given(
    st.floats(0.0, 1e3),
    st.floats(0.0, 1e3),
    st.sampled_from([0, 1]),
    st.floats(1e-6, 1e3),
    st.floats(1.0, 1e3),
    st.sampled_from([1.0, 0.3]),
)
def test_a_larger_l2_gives_a_smaller_leaf_step(p, q, loss_id, l2, factor, learning_rate):
    """For the same sums (exp: P, Q > 0; logistic: G, H), a larger l2 never enlarges a leaf's step nor flips it."""
    from rebel import kernels as kern

    G = p - q if loss_id == kern.LOSS_LOGISTIC else p  # the logistic gradient sum may have either sign
    lam, eps = 1e-9, 1e-9
    steps = [kern.leaf_value(G, q, loss_id, learning_rate, eps, lam, r) for r in (0.0, l2, l2 * factor)]
    assert abs(steps[0]) >= abs(steps[1]) >= abs(steps[2])
    assert steps[0] * steps[1] >= 0 and steps[1] * steps[2] >= 0


@settings(max_examples=EXAMPLES // 4, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 12),
    st.integers(1, 3),
    st.integers(2, 4),
    st.sampled_from(REGULARISED),
    st.integers(0, 2**31 - 1),
)
def test_no_leaf_holds_fewer_than_min_samples_leaf_rows(msl, depth, K, variant, seed):
    """Every leaf of every round's tree holds no training row or at least min_samples_leaf of them (continuous
    features, quantile bins and N >= 4 msl: the root always has a split that leaves msl rows a side)."""
    rng = np.random.default_rng(seed)
    N = max(4 * msl, 3 * K) + int(rng.integers(0, 40))
    X = rng.normal(size=(N, 2))
    y = rng.integers(0, K, size=N)
    y[:K] = np.arange(K)
    loss_name, leaves = variant
    model = RebelClassifier(
        n_estimators=8, max_depth=depth, n_thresholds=32, binning="quantile", loss=loss_name, leaves=leaves,
        min_samples_leaf=msl,
    ).fit(X, y)  # fmt: skip
    for column in model.apply(X).T:
        counts = np.bincount(column)
        assert np.all((counts == 0) | (counts >= msl)), counts
