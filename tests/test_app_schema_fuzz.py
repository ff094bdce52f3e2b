"""Typed schemas of the session file, the ``?cfg=`` link and the taxonomy tree (``rebel.ui.schemas``): the
reproducers of the outside attack, and Hypothesis fuzzers of each schema through the app's real entry points.

Each fuzzer mutates a valid document (wrong types, extra nesting, huge/NaN/inf numbers, missing and extra keys,
deep nesting, long strings, markdown payloads) and hands it to the parser the page calls. The only exception
allowed is ``ValueError`` (``InputError`` for structure and type errors); a document that is accepted gives a
configuration the Playground can sample.
"""

from __future__ import annotations

import base64
import copy
import json
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebel.cost_presets import taxonomy_costs
from rebel.ui import config as cfgmod
from rebel.ui.schemas import InputError, session_document, tree_document
from tests.fuzzing import JSON, mutate

EXAMPLES = 2000  # per schema, derandomized by the suite's default profile
FAST = {"n_estimators": 5, "max_depth": 1, "n_thresholds": 8}


def _session(n_points: int | None = None) -> dict:
    d = cfgmod.preset_config("xor", FAST).to_dict()
    if n_points is not None:
        d["spec"]["n_points"] = n_points
    return d


def _link(obj) -> str:
    raw = json.dumps(obj).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def _with(path: str, value) -> dict:
    d = _session()
    target = d
    *parents, last = path.split(".")
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    target[int(last) if isinstance(target, list) else last] = value
    return d


SESSION_CASES = [
    ("mixture-entry-1", _with("spec.mixture.0", 1), r"spec\.mixture\.0"),
    ("mixture-entry-null", _with("spec.mixture.0", None), r"spec\.mixture\.0"),
    ("mixture-entry-text", _with("spec.mixture.0", "x"), r"spec\.mixture\.0"),
    ("mixture-not-a-list", _with("spec.mixture", {"a": 1}), r"spec\.mixture"),
    ("version-true", _with("version", True), "version"),
    ("version-float", _with("version", 1.0), "version"),
    ("version-2", _with("version", 2), "reads version 1"),
    ("format-foreign", _with("format", "other"), "format"),
    ("cost-text-number", _with("cost_matrix.0.1", "1"), r"cost_matrix\.0\.1"),
    ("cost-bool", _with("cost_matrix.0.1", True), r"cost_matrix\.0\.1"),
    ("cost-nan", _with("cost_matrix.0.1", float("nan")), "finite"),
    ("cost-huge-int", _with("cost_matrix.0.1", 10**400), r"cost_matrix\.0\.1"),
    ("hyper-not-a-dict", _with("hyper", [5]), "hyper"),
    ("mean-text", _with("spec.mixture.0.mean_x", "0"), "mean_x"),
    ("class-number", _with("spec.mixture.0.class", 3), "class"),
    ("class-long", _with("spec.mixture.0.class", "a" * 5000), "class"),
    ("n-points-text", _with("spec.n_points", "100"), "n_points"),
    ("extra-key", _with("payload", 1), "payload"),
    ("deep", _with("preset", [[[[[[[[[[0]]]]]]]]]]), "deep"),
    ("not-an-object", [1, 2], "JSON object"),
]


# Hyper-parameter values are checked by the one parameter table (rebel.params): a ValueError with its range.
PARAM_CASES = [
    (
        "hyper-markdown",
        _with("hyper.n_estimators", "![t](http://x/t.png) [CLICK](http://x/p)"),
        "n_estimators",
    ),
    ("hyper-float", _with("hyper.n_estimators", 5.0), "whole number"),
    ("hyper-huge", _with("hyper.max_depth", 10**4000), "max_depth"),
]


def _parse(route: str, doc):
    if route == "session":
        return cfgmod.parse_session_json(json.dumps(doc).encode())
    return cfgmod.decode_query(_link(doc))


@pytest.mark.parametrize("doc, pattern", [c[1:] for c in SESSION_CASES], ids=[c[0] for c in SESSION_CASES])
@pytest.mark.parametrize("route", ["session", "link"])
def test_bad_session_documents_raise_input_error(doc, pattern, route):
    with pytest.raises(InputError, match=pattern):
        _parse(route, doc)


@pytest.mark.parametrize("doc, pattern", [c[1:] for c in PARAM_CASES], ids=[c[0] for c in PARAM_CASES])
@pytest.mark.parametrize("route", ["session", "link"])
def test_bad_hyper_parameters_raise_value_error(doc, pattern, route):
    with pytest.raises(ValueError, match=pattern):
        _parse(route, doc)


TREE_CASES = [
    ("list", [1, 2], "object"),
    ("number-value", {"duck": 3}, "duck"),
    ("nested-number", {"bird": {"waterfowl": [1, "goose"]}}, "under .waterfowl. holds 1"),
    ("list-in-list", {"bird": [["duck"]]}, "under .bird. holds"),
    ("too-deep", json.loads("{" + '"a": {' * 40 + '"b": null' + "}" * 41), "levels"),
    ("too-many", {f"c{i}": "g" for i in range(2000)}, "entries"),
    ("empty", {}, "non-empty"),
    ("long-name", {"a" * 5000: "bird"}, "5002 chars.*200 characters"),
]


@pytest.mark.parametrize("tree, pattern", [c[1:] for c in TREE_CASES], ids=[c[0] for c in TREE_CASES])
def test_bad_taxonomy_trees_raise_input_error(tree, pattern):
    with pytest.raises(InputError, match=pattern):
        tree_document(tree)
    with pytest.raises(ValueError, match=pattern):
        cfgmod.parse_tree_json(json.dumps(tree))


def test_good_documents_pass_unchanged():
    d = _session()
    assert session_document(copy.deepcopy(d))["spec"]["mixture"] == d["spec"]["mixture"]
    assert cfgmod.Config.from_dict(d).to_dict() == d
    tree = {"bird": {"waterfowl": ["duck", "goose"], "raptor": ["vulture"]}, "cat": None}
    assert tree_document(tree) == tree


def _mutated(data, doc, n_mutations: int):
    """``doc`` after ``n_mutations`` random mutations, as JSON text (None if JSON cannot hold it)."""
    for _ in range(n_mutations):
        doc = mutate(data, doc)
    try:
        return json.dumps(doc)
    except (ValueError, RecursionError):  # ints beyond Python's str conversion, nesting beyond json's limit
        return None


def _only_value_errors(parse, arg) -> None:
    try:
        parse(arg)
    except ValueError:
        pass


@settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
@given(data=st.data(), n_mutations=st.integers(1, 3))
def test_fuzzed_session_files_raise_only_value_errors(data, n_mutations):
    text = _mutated(data, _session(n_points=60), n_mutations)
    if text is None:
        return
    try:
        cfg = cfgmod.parse_session_json(text.encode())
    except ValueError:
        return
    assert cfg.spec.n_points <= cfgmod.MAX_POINTS  # an accepted session is a usable one
    _only_value_errors(cfgmod.dataset_from_config, cfg)


@settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
@given(data=st.data(), n_mutations=st.integers(1, 3))
def test_fuzzed_links_raise_only_value_errors(data, n_mutations):
    text = _mutated(data, _session(n_points=60), n_mutations)
    if text is not None:
        _only_value_errors(cfgmod.decode_query, _link(json.loads(text)))


@settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
@given(data=st.data(), n_mutations=st.integers(0, 3))
def test_fuzzed_taxonomy_trees_raise_only_value_errors(data, n_mutations):
    tree = {"animal": {"bird": {"waterfowl": ["duck", "goose"], "raptor": "vulture"}, "mammal": ["cat"]}}
    text = _mutated(data, tree, n_mutations)
    if text is None:
        return
    try:
        tree = cfgmod.parse_tree_json(text)
    except ValueError:
        return
    _only_value_errors(lambda t: taxonomy_costs(t, ("duck", "goose", "vulture", "cat")), tree)


@settings(max_examples=500, suppress_health_check=list(HealthCheck))
@given(value=JSON)
def test_any_json_value_raises_only_value_errors(value):
    for parse in (session_document, tree_document):
        _only_value_errors(parse, value)
