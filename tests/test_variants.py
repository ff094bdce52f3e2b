"""The engine options beyond the paper (loss, leaves, learning_rate, early stopping, sample_weight): the loss
never increases per round or per layer, no inf/NaN over 5000 rounds on separable data, K = 2 reduces to
AdaBoost (exp) and to Newton LogitBoost (logistic), posteriors as each loss implies, weights as repetitions."""

import numpy as np
import pytest

from rebel import RebelClassifier
from rebel.estimator import posterior_from_scores
from rebel.kernels import SMOOTHING
from rebel.variants import training_loss

VARIANTS = [("exp", "binary"), ("exp", "vector"), ("logistic", "binary"), ("logistic", "vector")]


def _blobs(n=300, K=3, seed=0, spread=1.3):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    centres = rng.normal(scale=spread, size=(K, 2))
    return rng.normal(size=(n, 2)) + centres[y], y


def _costs(K, seed):
    C = np.abs(np.random.default_rng(seed).normal(size=(K, K)))
    np.fill_diagonal(C, 0.0)
    return C


@pytest.mark.parametrize("learning_rate", [1.0, 0.3])
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize(("loss", "leaves"), VARIANTS)
def test_each_round_never_increases_the_training_loss(loss, leaves, depth, learning_rate):
    X, y = _blobs(400, K=4, seed=depth)
    sample_cost = _costs(4, 1)[y] * np.random.default_rng(2).exponential(size=(400, 1))
    for kw in ({"cost_matrix": _costs(4, 3)}, {}):
        model = RebelClassifier(
            n_estimators=40,
            max_depth=depth,
            n_thresholds=25,
            loss=loss,
            leaves=leaves,
            learning_rate=learning_rate,
        )
        model.fit(X, y, sample_cost=None if kw else sample_cost) if not kw else model.set_params(**kw).fit(
            X, y
        )
        L = model.train_loss_
        assert L.shape == (41,) and np.all(np.isfinite(L))
        assert np.all(np.diff(L) <= 1e-12 * L[:-1]), f"train_loss_ increased ({loss}, {leaves})"
        rows = (model.cost_matrix_[y]) if kw else sample_cost
        np.testing.assert_allclose(L[-1], training_loss(model.decision_function(X), rows, loss), rtol=1e-8)


@pytest.mark.parametrize("depth", [2, 3, 4])
@pytest.mark.parametrize(("loss", "leaves"), VARIANTS)
def test_each_added_layer_never_increases_the_training_loss(loss, leaves, depth):
    X, y = _blobs(500, K=5, seed=11, spread=2.0)
    model = RebelClassifier(
        cost_matrix=_costs(5, 2), n_estimators=30, max_depth=depth, n_thresholds=25, loss=loss, leaves=leaves
    ).fit(X, y)
    layers = np.column_stack([model.train_loss_[:-1], model.layer_loss_])
    assert np.all(np.diff(layers, axis=1) <= 1e-12 * layers[:, :-1]), "a layer increased the loss"
    np.testing.assert_allclose(model.layer_loss_[:, -1], model.train_loss_[1:], rtol=1e-9)


@pytest.mark.parametrize("learning_rate", [1.0, 0.5])
@pytest.mark.parametrize(("loss", "leaves"), VARIANTS)
def test_5000_rounds_on_separable_data_stay_finite(loss, leaves, learning_rate):
    rng = np.random.default_rng(0)
    y = np.arange(90) % 3
    X = rng.normal(scale=0.2, size=(90, 2)) + 4.0 * np.column_stack([y == 1, y == 2])  # separable
    model = RebelClassifier(
        cost_matrix=_costs(3, 4), n_estimators=5000, max_depth=2, n_thresholds=20, loss=loss, leaves=leaves,
        learning_rate=learning_rate,
    ).fit(X, y)  # fmt: skip
    for name in ("a0_", "a_", "train_loss_", "train_risk_", "layer_loss_"):
        assert np.all(np.isfinite(getattr(model, name))), name
    if leaves == "vector":
        assert np.all(np.isfinite(model.tree_leaf_values_))
    H = model.decision_function(X)
    assert np.all(np.isfinite(H))
    assert model.train_risk_[-1] == 0.0 and np.array_equal(model.predict(X), y)
    assert np.all(np.diff(model.train_loss_) <= 1e-12 * model.train_loss_[:-1])


def _binary_problem(seed=3):
    rng = np.random.default_rng(seed)
    y = (rng.random(160) < 0.4).astype(int)
    X = rng.normal(size=(160, 3)) + 0.8 * y[:, None] * np.array([1.0, -0.5, 0.3])
    return X, y


def _stumps(X, thresholds):
    """Every stump x_j > tau as f in {-1, +1}, in the engine's order (feature, then threshold)."""
    return [(j, i, np.where(X[:, j] > thresholds[j, i], 1.0, -1.0)) for j in range(X.shape[1]) for i in range(thresholds.shape[1])]  # fmt: skip


def test_two_classes_exp_binary_is_adaboost():
    """K = 2 with 0-1 costs: H_1 = -H_0 is discrete AdaBoost's score F started at the bias 1/2 ln(N+/N-)."""
    X, y = _binary_problem()
    model = RebelClassifier(n_estimators=25, max_depth=1, n_thresholds=15).fit(X, y)
    s = np.where(y == 1, 1.0, -1.0)
    F = np.full(len(y), 0.5 * np.log((y == 1).sum() / (y == 0).sum()))
    stumps = _stumps(X, model.thresholds_)
    for _ in range(25):
        w = np.exp(-s * F)
        errs = [w[f != s].sum() / w.sum() for _, _, f in stumps]
        # the best weak learner of either polarity: the smallest min(err, 1 - err)
        k = int(np.argmin([min(e, 1 - e) for e in errs]))
        err, f = errs[k], stumps[k][2]
        F = F + 0.5 * np.log((1 - err) / err) * f
    H = model.risk_scores(X)
    np.testing.assert_allclose(H[:, 1], -H[:, 0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(H[:, 1], F, rtol=1e-6, atol=1e-6)


def test_two_classes_logistic_binary_is_newton_logitboost():
    """K = 2 with 0-1 costs: H_1 = -H_0 is Newton boosting of the binary logistic loss ln(1 + e^{-y F}) with
    +-1 stumps: the stump maximising (sum f g)^2 / sum h, the step -sum f g / sum h, halved until the loss
    does not increase (LogitBoost's Newton step), started at ln(N+/N-)."""
    X, y = _binary_problem(5)
    model = RebelClassifier(n_estimators=20, max_depth=1, n_thresholds=15, loss="logistic").fit(X, y)
    s = np.where(y == 1, 1.0, -1.0)
    F = np.full(len(y), np.log((y == 1).sum() / (y == 0).sum()))
    stumps = _stumps(X, model.thresholds_)

    def loss(F):
        return np.logaddexp(0.0, -s * F).sum()

    for _ in range(20):
        p = 1 / (1 + np.exp(-F))
        g, h = p - (s > 0), p * (1 - p)
        k = int(np.argmax([(f @ g) ** 2 for _, _, f in stumps]))
        f = stumps[k][2]
        step = -(f @ g) / (h.sum() * (1 + 2e-9))  # + the engine's tiny ridge
        scale = 1.0
        while loss(F + scale * step * f) > loss(F):
            scale /= 2
        F = F + scale * step * f
    H = model.risk_scores(X)
    np.testing.assert_allclose(H[:, 1], -H[:, 0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(H[:, 1], F, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("loss", "leaves"), VARIANTS)
def test_predict_proba_is_the_posterior_the_loss_implies(loss, leaves):
    X, y = _blobs(300, K=3, seed=4)
    model = RebelClassifier(n_estimators=30, max_depth=2, n_thresholds=20, loss=loss, leaves=leaves).fit(X, y)
    H = model.decision_function(X)
    q = 1 / (1 + np.exp(-(2.0 if loss == "exp" else 1.0) * H))
    np.testing.assert_allclose(model.predict_proba(X), q / q.sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(posterior_from_scores(H, loss), model.predict_proba(X))
    assert not hasattr(
        RebelClassifier(cost_matrix=_costs(3, 1), n_estimators=3, loss=loss, leaves=leaves).fit(X, y),
        "predict_proba",
    )


def test_two_class_logistic_posterior_is_the_sigmoid_of_the_score():
    X, y = _binary_problem(7)
    model = RebelClassifier(n_estimators=15, n_thresholds=15, loss="logistic").fit(X, y)
    H = model.risk_scores(X)
    np.testing.assert_allclose(model.predict_proba(X)[:, 1], 1 / (1 + np.exp(-H[:, 1])), rtol=1e-9)


@pytest.mark.parametrize(("loss", "leaves"), VARIANTS)
def test_integer_sample_weights_equal_repeated_rows(loss, leaves):
    rng = np.random.default_rng(8)
    X, y = _blobs(120, K=3, seed=8)
    w = rng.integers(0, 4, size=120)
    w[:3] = [0, 2, 3]
    kw = {
        "n_estimators": 12,
        "max_depth": 2,
        "n_thresholds": 10,
        "loss": loss,
        "leaves": leaves,
        "cost_matrix": _costs(3, 9),
    }
    weighted = RebelClassifier(**kw).fit(X, y, sample_weight=w)
    repeated = RebelClassifier(**kw).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_array_equal(weighted.tree_features_, repeated.tree_features_)
    np.testing.assert_array_equal(weighted.tree_thr_idx_, repeated.tree_thr_idx_)
    # equal up to summation order (a sum of w copies vs w times the row), amplified in tiny-hessian leaves
    np.testing.assert_allclose(
        weighted.decision_function(X), repeated.decision_function(X), rtol=1e-6, atol=1e-9
    )
    np.testing.assert_allclose(weighted.train_loss_, repeated.train_loss_, rtol=1e-9)


def test_uniform_sample_weights_change_nothing_and_bad_weights_are_refused():
    X, y = _blobs(150, seed=2)
    plain = RebelClassifier(n_estimators=10, n_thresholds=20).fit(X, y)
    weighted = RebelClassifier(n_estimators=10, n_thresholds=20).fit(X, y, sample_weight=np.full(150, 3.0))
    np.testing.assert_array_equal(plain.tree_features_, weighted.tree_features_)
    np.testing.assert_allclose(plain.decision_function(X), weighted.decision_function(X), rtol=1e-12)
    for bad, match in (
        (np.ones(3), "one weight per row"),
        (-np.ones(150), ">= 0"),
        (np.zeros(150), "not all zero"),
    ):
        with pytest.raises(ValueError, match=match):
            RebelClassifier(n_estimators=2).fit(X, y, sample_weight=bad)


@pytest.mark.parametrize(("loss", "leaves"), [("exp", "binary"), ("logistic", "vector")])
def test_early_stopping_keeps_the_rounds_up_to_the_lowest_validation_cost(loss, leaves):
    X, y = _blobs(600, K=3, seed=6, spread=0.8)  # heavy overlap: the validation cost stops improving
    kw = {
        "n_estimators": 400,
        "max_depth": 3,
        "n_thresholds": 30,
        "loss": loss,
        "leaves": leaves,
        "random_state": 0,
    }
    model = RebelClassifier(n_iter_no_change=15, validation_fraction=0.25, **kw).fit(X, y)
    assert model.n_estimators_ < 400
    v = model.validation_cost_
    assert v.shape == (model.n_estimators_ + 1,) and v[-1] == v.min()
    again = RebelClassifier(n_iter_no_change=15, validation_fraction=0.25, **kw).fit(X, y)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    assert not hasattr(RebelClassifier(**kw).set_params(n_estimators=5).fit(X, y), "validation_cost_")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"loss": "squared"}, r"loss must be one of \['exp', 'logistic'\]"),
        ({"leaves": "tree"}, r"leaves must be one of \['binary', 'vector'\]"),
        ({"learning_rate": 0.0}, r"learning_rate must be in \(0, 1\]"),
        ({"learning_rate": "fast"}, "learning_rate must be a number"),
        ({"n_iter_no_change": 0}, r"n_iter_no_change must be in \[1, "),
        ({"n_iter_no_change": 5, "validation_fraction": 1.0}, r"validation_fraction must be in \(0, 1\)"),
    ],
)
def test_bad_options_name_the_argument(kwargs, match):
    X, y = _blobs(60)
    with pytest.raises(ValueError, match=match):
        RebelClassifier(n_estimators=2, **kwargs).fit(X, y)


def test_paper_mode_defaults_and_smoothing_size():
    model = RebelClassifier()
    assert (model.loss, model.leaves, model.learning_rate, model.n_iter_no_change) == (
        "exp",
        "binary",
        1.0,
        None,
    )
    assert SMOOTHING == 1e-9


@pytest.mark.parametrize(("loss", "leaves"), VARIANTS)
def test_model_files_round_trip_the_options(loss, leaves):
    from rebel.io import dumps_model, loads_model

    X, y = _blobs(300, seed=9)
    kw = {"n_estimators": 40, "max_depth": 2, "n_thresholds": 20, "loss": loss, "leaves": leaves}
    model = RebelClassifier(learning_rate=0.5, n_iter_no_change=5, random_state=1, **kw).fit(X, y)
    loaded = loads_model(dumps_model(model))
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.validation_cost_, model.validation_cost_)
    assert hasattr(loaded, "tree_leaf_values_") == (leaves == "vector")


# ------------------------------------------------------------------ l2_regularization and min_samples_leaf
REGULARISED = [("exp", "vector"), ("logistic", "binary"), ("logistic", "vector")]


@pytest.mark.parametrize(("loss", "leaves"), REGULARISED)
def test_regularisation_shrinks_steps_and_keeps_the_loss_non_increasing(loss, leaves):
    X, y = _blobs(300, K=3, seed=5)
    C = _costs(3, 6)
    steps = []
    for l2 in (0.0, 1.0, 30.0):
        model = RebelClassifier(C, 20, 2, n_thresholds=30, loss=loss, leaves=leaves, l2_regularization=l2)
        model.fit(X, y)
        assert np.all(np.diff(model.train_loss_) <= 1e-12 * np.abs(model.train_loss_[:-1]))
        np.testing.assert_allclose(
            model.train_loss_[-1], training_loss(model.risk_scores(X), C[y], loss), rtol=1e-9
        )
        first = model.tree_leaf_values_[0] if leaves == "vector" else model.a_[0]
        steps.append(np.abs(first).max())
    assert steps[0] > steps[1] > steps[2] > 0  # the first round: the same sums, a larger hessian term


@pytest.mark.parametrize(("loss", "leaves"), REGULARISED)
def test_min_samples_leaf_leaves_no_small_leaf(loss, leaves):
    X, y = _blobs(300, K=3, seed=8)
    for msl in (10, 40):
        model = RebelClassifier(_costs(3, 9), 15, 3, n_thresholds=40, binning="quantile", loss=loss, leaves=leaves,
                                min_samples_leaf=msl).fit(X, y)  # fmt: skip
        leaves_of = model.apply(X)
        for t in range(model.n_estimators_):
            counts = np.bincount(leaves_of[:, t], minlength=8)
            assert np.all((counts == 0) | (counts >= msl)), (msl, t, counts)
    free = RebelClassifier(_costs(3, 9), 15, 3, n_thresholds=40, binning="quantile", loss=loss, leaves=leaves)
    counts = [np.bincount(c) for c in free.fit(X, y).apply(X).T]
    assert min(c[c > 0].min() for c in counts) < 10  # without the option some leaf is smaller


BAD_OPTIONS = {
    ("l2_regularization", -0.5): "l2_regularization must be in [0, 1e+06]; got -0.5.",
    ("l2_regularization", float("nan")): "l2_regularization must be in [0, 1e+06]; got nan.",
    ("l2_regularization", "big"): "l2_regularization must be a number in [0, 1e+06]; got 'big'.",
    ("min_samples_leaf", 0): "min_samples_leaf must be in [1, 1000000]; got 0.",
    ("min_samples_leaf", 2.5): "min_samples_leaf must be a whole number in [1, 1000000]; got 2.5.",
    ("min_samples_leaf", True): "min_samples_leaf must be a whole number in [1, 1000000]; got True.",
}


@pytest.mark.parametrize(("option", "message"), list(BAD_OPTIONS.items()), ids=str)
def test_bad_regularisation_options_are_refused_by_name(option, message):
    X, y = _blobs(60)
    with pytest.raises(ValueError) as exc:
        RebelClassifier(n_estimators=2, leaves="vector", **{option[0]: option[1]}).fit(X, y)
    assert message in str(exc.value)


@pytest.mark.parametrize("option", [{"l2_regularization": 0.1}, {"min_samples_leaf": 3}])
def test_paper_mode_refuses_the_regularisation_options_with_the_fix(option):
    X, y = _blobs(60)
    with pytest.raises(ValueError) as exc:
        RebelClassifier(n_estimators=2, **option).fit(X, y)
    (name,) = option
    assert f"{name}=" in str(exc.value) and "paper mode" in str(exc.value)
    assert "Set loss='logistic' or leaves='vector'" in str(exc.value)


def test_regularisation_options_round_trip_the_model_file_and_old_files_load_with_the_defaults():
    import json

    from rebel.io import dumps_model, loads_model

    X, y = _blobs(120)
    model = RebelClassifier(
        n_estimators=5, max_depth=2, loss="logistic", l2_regularization=0.5, min_samples_leaf=4
    )
    model.fit(X, y)
    doc = json.loads(dumps_model(model))
    assert (doc["params"]["l2_regularization"], doc["params"]["min_samples_leaf"]) == (0.5, 4)
    loaded = loads_model(json.dumps(doc))
    assert loaded.get_params()["l2_regularization"] == 0.5 and loaded.get_params()["min_samples_leaf"] == 4
    np.testing.assert_array_equal(loaded.risk_scores(X), model.risk_scores(X))
    plain = json.loads(dumps_model(RebelClassifier(n_estimators=3, leaves="vector").fit(X, y)))
    assert "l2_regularization" not in plain["params"] and "min_samples_leaf" not in plain["params"]
    old = loads_model(json.dumps(plain))  # as written before the options existed
    assert (old.l2_regularization, old.min_samples_leaf) == (0.0, 1)
