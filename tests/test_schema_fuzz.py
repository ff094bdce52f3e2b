"""Hypothesis fuzzing of the model-file schema (``rebel.schema``, read by ``rebel.io``).

Valid model documents are mutated (wrong types, extra nesting, huge/NaN/inf numbers, missing and extra keys,
deep nesting, long strings, swapped or duplicated list items) and loaded both as a parsed object and as JSON text.
The only exception allowed is ``ModelFileError``; every document that is accepted predicts finite scores, one
known class per row, for ordinary inputs and inputs at the float64 limits.
"""

from __future__ import annotations

import copy
import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebel import RebelClassifier
from rebel.io import ModelFileError, loads_model, model_from_dict, model_to_dict
from tests.fuzzing import JSON, mutate

EXAMPLES = 2500  # >= 2000 per schema in CI; derandomized by the suite's default profile
BIG = np.finfo(np.float64).max


def _documents() -> list[dict]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    C = np.array([[0, 1, 4], [2, 0, 1], [1, 3, 0.0]])
    stopped = RebelClassifier(n_estimators=3).fit(X, y, callback=lambda t, info: t < 2)
    return [
        model_to_dict(RebelClassifier(n_estimators=3, n_thresholds=4).fit(X, y)),
        model_to_dict(
            RebelClassifier(cost_matrix=C, n_estimators=2, max_depth=2, n_thresholds=3).fit(
                X, np.array(["ant", "bee", "cat"])[y]
            )
        ),
        model_to_dict(stopped),
        model_to_dict(  # the engine options: vector leaves, a learning rate, early stopping
            RebelClassifier(
                n_estimators=6,
                max_depth=2,
                n_thresholds=5,
                leaves="vector",
                learning_rate=0.5,
                n_iter_no_change=2,
                validation_fraction=0.3,
            ).fit(X, y)
        ),
    ]


DOCUMENTS = _documents()


def _check_predictions(model: RebelClassifier) -> None:
    d = model.n_features_in_
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(5, d)), np.full((1, d), BIG), np.full((1, d), -BIG), np.zeros((1, d))])
    scores = model.decision_function(X)
    assert scores.shape == (X.shape[0], model.classes_.shape[0])
    assert np.isfinite(scores).all()
    pred = model.predict(X)
    assert pred.shape == (X.shape[0],)
    assert set(pred.tolist()) <= set(model.classes_.tolist())


def _load_object(doc):
    try:
        model = model_from_dict(doc)
    except ModelFileError:
        return None
    _check_predictions(model)
    return model


def _load_text(doc):
    try:
        text = json.dumps(doc)
    except (ValueError, RecursionError):  # ints beyond Python's str conversion, nesting beyond json's limit
        return
    try:
        model = loads_model(text)
    except ModelFileError:
        return
    _check_predictions(model)


@settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
@given(data=st.data(), which=st.integers(0, len(DOCUMENTS) - 1), n_mutations=st.integers(1, 3))
def test_mutated_model_files_raise_only_model_file_error(data, which, n_mutations):
    doc = copy.deepcopy(DOCUMENTS[which])
    for _ in range(n_mutations):
        doc = mutate(data, doc)
    _load_object(doc)
    _load_text(doc)


@settings(max_examples=300, suppress_health_check=list(HealthCheck))
@given(value=JSON)
def test_any_json_value_raises_only_model_file_error(value):
    _load_object(value)
    _load_text(value)


def test_unmutated_documents_load():
    for doc in DOCUMENTS:
        assert _load_object(copy.deepcopy(doc)) is not None
