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


# ----------------------------------------------------------------------------------------------------------
# Reproducers of the hostile model files found by the outside attack: each gives ModelFileError, never an
# OverflowError/TypeError, and never a model that predicts garbage.


def _set(path: str, value):
    """Mutator setting ``obj[a][b]...`` (path "a.b.0") to ``value``."""

    def fn(obj):
        *parents, last = path.split(".")
        for key in parents:
            obj = obj[int(key)] if isinstance(obj, list) else obj[key]
        obj[int(last) if isinstance(obj, list) else last] = value

    return fn


def _text_with(path: str, literal: str) -> str:
    """The good file with one value replaced by a raw JSON literal (e.g. 1e400 or NaN)."""
    marker = "__LITERAL__"
    return _mutate(_set(path, marker)).replace(f'"{marker}"', literal)


HOSTILE = [
    ("feature-index-2**31", _mutate(_set("arrays.tree_features_.0.0", 2**31)), "feature indices|too large"),
    ("feature-index-2**70", _mutate(_set("arrays.tree_features_.0.0", 2**70)), "too large"),
    ("threshold-index-0", _mutate(_set("arrays.tree_thr_idx_.0.0", 0)), "threshold indices"),
    ("threshold-index-past-end", _mutate(_set("arrays.tree_thr_idx_.0.0", 10_000)), "threshold indices"),
    ("leaf-sign-300", _mutate(_set("arrays.tree_leaf_signs_.0.0", 300)), "leaf signs"),
    ("leaf-sign-float", _mutate(_set("arrays.tree_leaf_signs_.0.0", 1.0)), "tree_leaf_signs_.*float"),
    ("class-2**70", _mutate(_set("classes.values.0", 2**70)), "64 bits"),
    ("n-features-1e400", _text_with("n_features_in", "1e400"), "n_features_in"),
    ("n-features-0", _mutate(_set("n_features_in", 0)), "n_features_in"),
    ("n-features-float", _mutate(_set("n_features_in", 3.0)), "n_features_in"),
    ("cost-nan", _text_with("arrays.cost_matrix_.0.1", "NaN"), "NaN"),
    ("cost-1e400", _text_with("arrays.cost_matrix_.0.1", "1e400"), "cost_matrix_.*NaN or infinity"),
    ("cost-negative", _mutate(_set("arrays.cost_matrix_.0.1", -1.0)), ">= 0"),
    ("cost-huge", _mutate(_set("arrays.cost_matrix_.0.1", 1e200)), "at most"),
    ("cost-param-nan", _text_with("cost_matrix_param", "[[0, NaN, 1], [1, 0, 1], [1, 1, 0]]"), "NaN"),
    ("cost-param-negative", _mutate(_set("cost_matrix_param", [[0, -1, 1], [1, 0, 1], [1, 1, 0]])), ">= 0"),
    ("classes-unsorted", _mutate(_set("classes.values", [2, 0, 1])), "sorted and unique"),
    ("classes-duplicate", _mutate(_set("classes.values", [0, 1, 1])), "sorted and unique"),
    ("classes-nan", _text_with("classes.values.1", "NaN"), "NaN"),
    ("classes-nested", _mutate(_set("classes.values", [[0], [1], [2]])), "not a int label"),
    (
        "classes-float-nested",
        _mutate(_set("classes", {"kind": "float", "values": [[0.0, 1.0], [2.0, 3.0]]})),
        "not a float label",
    ),
    ("classes-one", _mutate(_set("classes.values", [0])), "2 to 50"),
    ("classes-bool-as-int", _mutate(_set("classes.values", [False, True, 2])), "not a int label"),
    (
        "classes-long-string",
        _mutate(_set("classes", {"kind": "str", "values": ["a", "b" * 10**6, "c"]})),
        "characters",
    ),
    ("a-1e308", _mutate(_set("arrays.a_", [[1e308, 1e308, 1e308]] * 4)), "scores can reach"),
    ("a0-1e308", _mutate(_set("arrays.a0_", [1e308, 0.0, 0.0])), "scores can reach"),
    ("a-inf", _text_with("arrays.a_.0.0", "Infinity"), "Infinity"),
    ("threshold-1e400", _text_with("arrays.tree_thresholds_.0.0", "1e400"), "tree_thresholds_"),
    ("depth-16-param", _mutate(_set("params.max_depth", 16)), "max_depth must be in"),
    (
        "depth-16-trees",
        _mutate(_set("arrays.tree_leaf_signs_", [[1] * 2**16] * 4)),
        "tree_leaf_signs_.*shape",
    ),
    ("version-true", _mutate(_set("version", True)), "version True is not supported"),
    ("version-1.0", _mutate(_set("version", 1.0)), "version 1.0 is not supported"),
    ("version-huge", _mutate(_set("version", 10**4000)), "version an integer of about 4001 digits is not"),
    ("params-bool", _mutate(_set("params.n_estimators", True)), "n_estimators must be a whole number"),
    ("params-extra-key", _mutate(_set("params.shrinkage", 0.1)), "unknown field"),
    ("top-extra-key", _mutate(_set("payload", "x")), "unknown field"),
    ("binning-list", _mutate(_set("params.binning", ["uniform"])), "binning"),
    ("uses-sample-cost-string", _mutate(_set("uses_sample_cost", "yes")), "uses_sample_cost"),
    ("arrays-ragged", _mutate(_set("arrays.a_.1", [0.5])), "rectangular"),
    ("arrays-deeper", _mutate(_set("arrays.a0_", [[0.0], [0.0], [0.0]])), "a0_.*list"),
    ("arrays-string-number", _mutate(_set("arrays.a0_.0", "1.5")), "a0_.*str"),
    ("more-rounds-than-n-estimators", _mutate(_set("params.n_estimators", 2)), "rounds"),
    ("not-text", 12345, "JSON text"),
]


@pytest.mark.parametrize("text, pattern", [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_hostile_model_files_raise_model_file_error(text, pattern):
    with pytest.raises(ModelFileError, match=pattern):
        loads_model(text)


def test_a_model_stopped_before_round_one_round_trips():
    X, y = _data()
    model = RebelClassifier(n_estimators=5, max_depth=2).fit(X, y, callback=lambda t, info: False)
    assert model.n_estimators_ == 0
    loaded = loads_model(dumps_model(model))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("kind", ["bool", "object-str"])
def test_every_label_kind_round_trips(kind):
    X, y = _data(K=2)
    labels = {"bool": y.astype(bool), "object-str": np.array(["no", "yes"], dtype=object)[y]}[kind]
    model = RebelClassifier(n_estimators=3).fit(X, labels)
    loaded = loads_model(dumps_model(model))
    assert json.loads(dumps_model(model))["classes"]["kind"] == kind
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_object_int_labels_load_as_python_ints():
    loaded = loads_model(_mutate(_set("classes", {"kind": "object-int", "values": [3, 7, 9]})))
    assert loaded.classes_.dtype == object and loaded.classes_.tolist() == [3, 7, 9]


def test_a_labelled_cost_frame_is_saved_aligned_to_the_classes(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(90, 2)), np.array(["a", "b", "c"] * 30)
    C = np.array([[0.0, 1, 2], [3, 0, 4], [5, 6, 0]])
    frame = pd.DataFrame(C[::-1, ::-1], index=["c", "b", "a"], columns=["c", "b", "a"])
    model = RebelClassifier(cost_matrix=frame, n_estimators=3).fit(X, y)
    save_model(model, tmp_path / "m.json")
    again = load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(again.cost_matrix, C)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
