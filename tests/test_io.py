"""Model JSON files: exact round trips, and clear errors for malformed or foreign files."""

import json

import numpy as np
import pytest

from rebel import RebelClassifier
from rebel.io import ModelFileError, dumps_model, load_model, loads_model, save_model


def _data(K=3, n=150, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=n)
    X = rng.normal(size=(n, 3)) + y[:, None]
    return X, y


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("labels", ["int", "str", "float"])
def test_round_trip_is_bit_identical(tmp_path, depth, labels):
    X, y = _data()
    y = {"int": y, "str": np.array(["cat", "dog", "eel"])[y], "float": y.astype(float) * 2}[labels]
    C = np.array([[0, 1, 5], [2, 0, 1], [1, 3, 0.0]])
    model = RebelClassifier(cost_matrix=C, n_estimators=15, max_depth=depth, n_thresholds=30).fit(X, y)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))  # bit-identical
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert loaded.classes_.dtype.kind == model.classes_.dtype.kind
    np.testing.assert_array_equal(loaded.train_loss_, model.train_loss_)
    assert loaded.get_params() == {**model.get_params(), "cost_matrix": loaded.cost_matrix}
    np.testing.assert_array_equal(loaded.cost_matrix, C)
    assert loaded.expected_cost(X, y) == model.expected_cost(X, y)


def test_predict_proba_survives_the_round_trip():
    X, y = _data()
    model = RebelClassifier(n_estimators=5).fit(X, y)
    loaded = loads_model(dumps_model(model))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def _good():
    X, y = _data()
    return json.loads(dumps_model(RebelClassifier(n_estimators=4, max_depth=2).fit(X, y)))


def _mutate(fn):
    obj = _good()
    fn(obj)
    return json.dumps(obj)


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("", "not valid JSON"),
        ('{"format": "rebel-explorer-model", "version": 1', "not valid JSON"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8|not valid JSON"),
        ("[1, 2, 3]", "not a REBEL Explorer model file"),
        ('{"name": "some other json"}', "not a REBEL Explorer model file"),
        (_mutate(lambda o: o.update(version=99)), "version 99 is not supported"),
        (_mutate(lambda o: o["arrays"].pop("a_")), "malformed.*a_"),
        (_mutate(lambda o: o["arrays"].update(a_="text")), "malformed|dimensions"),
        (_mutate(lambda o: o["arrays"].update(a0_=[1.0])), r"a0_.*shape"),
        (_mutate(lambda o: o["arrays"].update(tree_features_=[[99, 0, 0]] * 4)), "feature indices"),
        (_mutate(lambda o: o["arrays"].update(tree_leaf_signs_=[[2, 1, 1, 1]] * 4)), "leaf signs"),
        (_mutate(lambda o: o["params"].update(max_depth=-1)), "max_depth"),
        (_mutate(lambda o: o.update(classes={"kind": "pickle", "values": []})), "classes"),
        (_mutate(lambda o: o.pop("n_features_in")), "malformed"),
    ],
)
def test_bad_files_give_a_clear_error(text, pattern):
    with pytest.raises(ModelFileError, match=pattern):
        loads_model(text)


def test_saving_an_unfitted_model_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not fitted"):
        save_model(RebelClassifier(), tmp_path / "m.json")
