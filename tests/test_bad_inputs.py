"""Bad-input matrix: odd numbers in cost cells, odd files and links never crash the app or lose the user's work.

App level (AppTest of the Playground, plus the waypoint table of Risk-score paths): each bad input must show an
``st.error``/``st.warning`` whose text names the problem and the fix, raise no exception, and leave the previous
dataset, cost matrix, hyper-parameters and data source in session state unchanged. A bad link (``?cfg=``) on a
first visit falls back to the default preset with an error.

Engine level: estimator misuse, bad arguments to ``RebelClassifier`` and malformed model JSON raise a
``ValueError`` (or scikit-learn's ``NotFittedError``) whose message names the argument.

``BAD_INPUTS_TRIED`` counts every case in this file.
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from streamlit.testing.v1 import AppTest

from rebel.estimator import RebelClassifier
from rebel.io import ModelFileError, dumps_model, loads_model
from rebel.params import MAX_CLASSES
from rebel.ui import config as cf
from rebel.ui.state import STATE_KEY, AppState
from rebel.ui.text import visible

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 90
FAST = {"n_estimators": 10, "max_depth": 1, "n_thresholds": 16}
CLASSES = ("harmless", "liquid", "weapon")  # the airport preset the app starts from


@dataclass
class Case:
    """One bad input: how to deliver it (``kind``), what to deliver, and phrases the message must contain."""

    id: str
    kind: str  # cell | cells | csv | session | link | mixture | tree | fn_m | waypoints
    payload: object
    expect: list = field(default_factory=list)


def _state(at: AppTest) -> AppState:
    """The app's shared state (rebel.ui.state.AppState)."""
    return at.session_state[STATE_KEY]


def _rows(n: int, classes=b"ab") -> bytes:
    return b"".join(b"%d,%d,%c\n" % (i % 97, i % 89, classes[i % len(classes)]) for i in range(n))


def _link(obj) -> str:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def _session(**changes) -> bytes:
    d = cf.preset_config("xor", FAST).to_dict()
    for path, value in changes.items():
        target = d
        *parents, last = path.split("__")
        for p in parents:
            target = target[p]
        target[last] = value
    return json.dumps(d).encode()


_GOOD_SESSION = cf.session_json(cf.preset_config("xor", FAST)).encode()
_MODEL_JSON = dumps_model(
    RebelClassifier(n_estimators=2).fit(np.arange(20.0).reshape(10, 2), np.arange(10) % 2)
)
_CELL_FIX = "enter a number >= 0"
_CSV = "CSV file not loaded"
_SESSION = "Session file not loaded"
_LINK = "link's configuration could not be used"

APP_CASES = [
    # ---- cost matrix cells (rows = truth, columns = prediction)
    Case("cell-negative", "cell", (0, "liquid", -1.0), ["'liquid'", "truth is 'harmless'", _CELL_FIX]),
    Case("cell-nan", "cell", (0, "liquid", float("nan")), ["'liquid'", "nan", _CELL_FIX]),
    Case("cell-empty", "cell", (2, "harmless", None), ["truth is 'weapon'", _CELL_FIX]),
    Case("cell-inf", "cell", (1, "weapon", float("inf")), ["'weapon'", "inf", _CELL_FIX]),
    Case("cell-minus-inf", "cell", (1, "weapon", float("-inf")), ["'weapon'", _CELL_FIX]),
    Case("cell-text", "cell", (0, "weapon", "abc"), ["'weapon'", _CELL_FIX]),
    Case("cell-overflowing", "cell", (0, "liquid", 1e308), ["'liquid'", "at most", "divide all"]),
    Case("fn-m-overflowing", "fn_m", 1e200, ["Cost preset not applied", "at most", "divide all"]),
    Case(
        "tree-not-json", "tree", "{duck: bird", ["Cost preset not applied", "not valid JSON", "write it like"]
    ),
    Case("tree-a-list", "tree", "[1, 2]", ["Cost preset not applied", "must be a JSON object"]),
    Case("tree-too-deep", "tree", "[" * 50_000 + "]" * 50_000, ["Cost preset not applied", "not valid JSON"]),
    # ---- datasets and CSV files
    Case(
        "csv-nan-feature", "csv", b"x,y,label\n1,2,a\nnan,3,b\n2,2,a\n", ["line 3", "'x'", "finite numbers"]
    ),
    Case(
        "csv-inf-feature", "csv", b"x,y,label\n1,2,a\ninf,3,b\n2,2,a\n", ["line 3", "'inf'", "finite numbers"]
    ),
    Case(
        "csv-text-feature",
        "csv",
        b"x,y,label\n1,2,a\n3,foo,b\n",
        ["line 3", "'y'", "'foo'", "finite numbers"],
    ),
    Case("csv-empty", "csv", b"", ["empty", "give a header line"]),
    Case("csv-header-only", "csv", b"x,y,label\n", ["no data lines", "add one line per point"]),
    Case("csv-one-row", "csv", b"x,y,label\n1,2,a\n", ["single class", "at least 2 classes"]),
    Case(
        "csv-one-class", "csv", b"x,y,label\n" + _rows(30, b"a"), ["single class 'a'", "at least 2 classes"]
    ),
    Case("csv-1e6-rows", "csv", b"x,y,label\n" + b"0,0,a\n1,1,b\n" * 500_000, ["bytes", "at most 5242880"]),
    Case("csv-over-row-cap", "csv", b"x,y,label\n" + _rows(cf.MAX_POINTS + 1), ["more than 20000", "sample"]),
    Case(
        "csv-1000-classes",
        "csv",
        b"x,y,label\n" + b"".join(b"%d,%d,c%d\n" % (i, i, i) for i in range(1000)),
        ["1000 classes", f"at most {MAX_CLASSES}"],
    ),
    Case(
        "csv-malformed-quotes", "csv", b'x,y,label\n1,2,"a\n3,4,b\n5,6,"b\n', ["label", "holds a line break"]
    ),
    Case("csv-binary-bytes", "csv", bytes(range(256)) * 4, ["not UTF-8", "save it as UTF-8 CSV"]),
    Case("csv-png-file", "csv", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, ["not UTF-8", "save it as UTF-8 CSV"]),
    Case("csv-latin-1", "csv", "x,y,label\n1,2,caf\xe9\n3,4,b\n".encode("latin-1"), ["not UTF-8"]),
    Case("csv-semicolons", "csv", b"x;y;label\n1;2;a\n3;4;b\n", ["no 'label' column", "save it with commas"]),
    Case("csv-no-label-column", "csv", b"x,y\n1,2\n3,4\n5,6\n", ["no 'label' column", "['x', 'y']"]),
    Case(
        "csv-one-feature",
        "csv",
        b"x,label\n" + b"".join(b"%d,%c\n" % (i, b"ab"[i % 2]) for i in range(30)),
        ["1 feature column", "at least two"],
    ),
    Case("csv-huge-header", "csv", b"x,y," + b"l" * 200_000 + b"\n1,2,a\n", ["header", "check the quoting"]),
    Case(
        "csv-5000-columns",
        "csv",
        b",".join(b"c%d" % i for i in range(4999)) + b",label\n" + b"1," * 4999 + b"a\n",
        ["4999 feature columns", "at most MAX_FEATURES"],
    ),
    Case(
        "csv-empty-label", "csv", b"x,y,label\n1,2,\n3,4,b\n5,6,a\n", ["line 2", "empty", "give every point"]
    ),
    Case(
        "csv-bad-split",
        "csv",
        b"x,y,label,split\n1,2,a,train\n3,4,b,maybe\n",
        ["'maybe'", "'train' or 'test'"],
    ),
    Case(
        "csv-class-only-in-test",
        "csv",
        b"x,y,label,split\n1,2,a,train\n3,4,b,test\n5,6,a,train\n",
        ["training split", "at least 2 classes"],
    ),
    # ---- session files (JSON)
    Case(
        "session-truncated", "session", _GOOD_SESSION[: len(_GOOD_SESSION) // 2], ["not valid JSON", "upload"]
    ),
    Case("session-wrong-version", "session", _session(version=99), ["version is 99", "reads version 1"]),
    Case(
        "session-wrong-type-hyper",
        "session",
        _session(hyper__n_estimators="many"),
        ["n_estimators", "got 'many'", "whole number in [1, 1000]"],
    ),
    Case("session-wrong-type-costs", "session", _session(cost_matrix="abc"), ["cost_matrix", "numbers"]),
    Case("session-wrong-type-spec", "session", _session(spec=[1, 2]), ["dataset spec must be a dict"]),
    Case(
        "session-costs-wrong-k",
        "session",
        _session(cost_matrix=(1 - np.eye(3)).tolist()),
        ["3 x 3 but the data has 2 classes", "2 x 2 matrix"],
    ),
    Case(
        "session-costs-negative", "session", _session(cost_matrix=[[0, -1], [1, 0]]), ["costs must be >= 0"]
    ),
    Case(
        "session-costs-nan",
        "session",
        _session(cost_matrix=[[0, float("nan")], [1, 0]]),
        ["is nan", "finite number"],
    ),
    Case("session-1e6-points", "session", _session(spec__n_points=10**6), ["n_points is 1000000", "between"]),
    Case(
        "session-1000-classes",
        "session",
        _session(
            spec__mixture=[
                {"class": f"c{i}", "mean_x": i, "mean_y": 0, "std_x": 1, "std_y": 1} for i in range(1000)
            ]
        ),
        ["1000 components", "at most"],
    ),
    Case(
        "session-foreign-json",
        "session",
        json.dumps({"name": "pkg", "version": "1.0.0"}).encode(),
        ["session version is '1.0.0'", "reads version 1"],
    ),
    Case(
        "session-model-file",
        "session",
        _MODEL_JSON.encode(),
        ["format is 'rebel-explorer-model'", "expected"],
    ),
    Case("session-json-array", "session", b"[1, 2, 3]", ["must be a JSON object"]),
    Case("session-binary", "session", bytes(range(256)), ["not UTF-8", "upload a .json file"]),
    Case("session-nested-deep", "session", b"[" * 100_000 + b"]" * 100_000, ["could not be read", "upload"]),
    Case(
        "session-huge-number", "session", b'{"spec": ' + b"9" * 5000 + b"}", ["could not be read", "upload"]
    ),
    # ---- links (?cfg=...) on a first visit
    Case("link-damaged", "link", "abc$$", ["damaged", "copy the full address again"]),
    Case("link-too-long", "link", "A" * 30_000, ["30000 characters", "Share a session file instead"]),
    Case("link-zip-bomb", "link", _link(b"{" + b" " * 5_000_000 + b"}"), ["damaged", "remove the parameter"]),
    Case(
        "link-negative-cost",
        "link",
        _link(json.loads(_session(cost_matrix=[[0, -1], [1, 0]]))),
        ["costs must be >= 0"],
    ),
    Case("link-too-many-points", "link", _link(json.loads(_session(spec__n_points=10**6))), ["n_points"]),
    Case("link-nested-deep", "link", _link(b"[" * 200_000 + b"]" * 200_000), ["damaged"]),
    # ---- the clusters table (mixture editor)
    Case("mixture-negative-std", "mixture", {0: {"std_x": -1.0}}, ["Clusters table", "std_x", "previous"]),
    Case("mixture-empty-class", "mixture", {0: {"class": ""}}, ["Clusters table", "class"]),
    Case("mixture-nan-mean", "mixture", {0: {"mean_x": None}}, ["Clusters table", "mean_x"]),
    Case("mixture-one-class", "mixture_one_class", None, ["Clusters table", "class"]),
    # ---- the waypoint table of Risk-score paths
    Case("waypoints-nan", "waypoints", {0: {"x": None}}, ["Waypoints", "finite"]),
    Case("waypoints-no-name", "waypoints", {0: {"path": ""}}, ["Waypoints", "path name"]),
]


# ----------------------------------------------------------------------------------------------------- helpers
def _run(at: AppTest) -> AppTest:
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _fresh() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[cf.QUERY_KEY] = cf.encode_query(cf.preset_config("airport", FAST))
    return _run(at)


@pytest.fixture(scope="module")
def playground() -> AppTest:
    """One Playground session for all app-level cases: every bad input must leave it as it was."""
    return _fresh()


def _snapshot(at: AppTest) -> dict:
    s = _state(at)
    return {
        "dataset": s.dataset,
        "cost_matrix": s.cost_matrix.copy(),
        "hyper": dict(s.hyper),
        "spec": json.dumps(s.spec.to_dict(), sort_keys=True),
        "data_source": s.data_source,
        "preset": s.preset,
    }


def _assert_unchanged(at: AppTest, before: dict) -> None:
    after = _snapshot(at)
    assert after["dataset"] is before["dataset"], "the dataset was replaced"
    np.testing.assert_array_equal(
        after["cost_matrix"], before["cost_matrix"], err_msg="the cost matrix changed"
    )
    for key in ("hyper", "spec", "data_source", "preset"):
        assert after[key] == before[key], f"{key} changed"


def _messages(at: AppTest) -> str:
    """Errors and warnings as the user reads them (``rebel.ui.text.visible``: escapes and joiners dropped)."""
    return visible(" ".join([e.value for e in at.error] + [w.value for w in at.warning]))


def _edit(at: AppTest, key: str, edited=None, deleted=None) -> None:
    at.session_state[key] = {"edited_rows": edited or {}, "added_rows": [], "deleted_rows": deleted or []}


def _type_cost(at: AppTest, row: int, column: str, value) -> None:
    """Type ``value`` (as text; None: an emptied cell) into the cost editor's cell (row, column = class name)
    and commit it."""
    j = [str(c) for c in _state(at).classes].index(column)
    cell = f"_{row}_{j}"  # a cost cell's key ends with its place (``components.cost_cell_key``)
    next(w for w in at.text_input if w.key and w.key.startswith("w_costs_") and w.key.endswith(cell)).input(
        "" if value is None else str(value)
    )


def _open_clusters(at: AppTest) -> None:
    """Show the clusters table (one of the Playground's detail views)."""
    at.session_state["w_details"] = "Clusters"
    _run(at)


def _deliver(at: AppTest, case: Case) -> AppTest:
    """Give the app one bad input through the widget a user would use."""
    s = at.session_state
    if case.kind == "cell":
        row, col, value = case.payload
        _type_cost(at, row, col, value)
    elif case.kind == "csv":
        at.file_uploader(key="w_csv_upload").set_value((f"{case.id}.csv", case.payload, "text/csv"))
    elif case.kind == "session":
        at.file_uploader(key="w_session_upload").set_value(
            (f"{case.id}.json", case.payload, "application/json")
        )
    elif case.kind in ("fn_m", "tree"):
        at.selectbox(key="w_cost_preset").set_value("fn" if case.kind == "fn_m" else "taxonomy")
        _run(at)
        if case.kind == "fn_m":
            at.number_input(key="w_cost_m").set_value(case.payload)
        else:
            at.text_area(key="w_cost_tree").set_value(case.payload)
        at.button(key="w_apply_cost").click()
    elif case.kind == "mixture":
        _open_clusters(at)
        _edit(at, f"w_mixture_{s['mixture_editor_v']}", case.payload)
    elif case.kind == "mixture_one_class":
        _open_clusters(at)
        classes = _state(at).spec.mixture["class"].tolist()
        _edit(
            at,
            f"w_mixture_{s['mixture_editor_v']}",
            deleted=[i for i, c in enumerate(classes) if c != "harmless"],
        )
    else:
        raise AssertionError(case.kind)
    return _run(at)


def _clear(at: AppTest, case: Case) -> None:
    """Undo the widget side of the bad input (the user fixes the cell, removes the file), so cases stay apart."""
    s = at.session_state
    if case.kind in ("mixture", "mixture_one_class"):
        _edit(at, f"w_mixture_{s['mixture_editor_v']}")
    elif case.kind in ("csv", "session"):
        at.file_uploader(key=f"w_{case.kind}_upload").set_value(None)
    _run(at)
    assert not at.error and not at.warning, _messages(at)


# ------------------------------------------------------------------------------------------------- app level
PLAYGROUND_CASES = [c for c in APP_CASES if c.kind not in ("link", "waypoints")]


@pytest.mark.parametrize("case", PLAYGROUND_CASES, ids=lambda c: c.id)
def test_bad_input_in_the_playground_shows_a_message_and_keeps_the_work(playground, case):
    before = _snapshot(playground)
    _deliver(playground, case)
    text = _messages(playground)
    assert text, f"{case.id}: no st.error or st.warning was shown"
    for phrase in case.expect:
        assert phrase in text, f"{case.id}: {phrase!r} not in the message {text!r}"
    _assert_unchanged(playground, before)
    _clear(playground, case)
    _assert_unchanged(playground, before)


@pytest.mark.parametrize("case", [c for c in APP_CASES if c.kind == "link"], ids=lambda c: c.id)
def test_bad_link_falls_back_to_the_default_preset(case):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[cf.QUERY_KEY] = case.payload
    _run(at)
    text = _messages(at)
    assert _LINK in text and "Showing the default preset" in text
    for phrase in case.expect:
        assert phrase in text, f"{case.id}: {phrase!r} not in {text!r}"
    default = cf.preset_config(cf.DEFAULT_PRESET)
    assert _state(at).preset == cf.DEFAULT_PRESET
    np.testing.assert_array_equal(_state(at).cost_matrix, default.cost_matrix)
    assert _state(at).trained.rebel.n_estimators_ == cf.DEFAULT_HYPER["n_estimators"]


@pytest.fixture(scope="module")
def risk_paths() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/3_Risk_paths.py")
    return _run(at)


@pytest.mark.parametrize("case", [c for c in APP_CASES if c.kind == "waypoints"], ids=lambda c: c.id)
def test_bad_waypoint_keeps_the_last_valid_paths(risk_paths, case):
    at = risk_paths
    before = {k: np.asarray(v).tolist() for k, v in at.session_state["rp_paths"].items()}
    assert before, "Risk-score paths starts with default paths"
    _edit(at, f"rp_editor_{at.session_state['rp_table_v']}", case.payload)
    _run(at)
    text = _messages(at)
    for phrase in case.expect:
        assert phrase in text, f"{case.id}: {phrase!r} not in {text!r}"
    assert {k: np.asarray(v).tolist() for k, v in at.session_state["rp_paths"].items()} == before
    _edit(at, f"rp_editor_{at.session_state['rp_table_v']}")
    _run(at)


def test_state_survives_the_whole_matrix_and_training_still_works(playground):
    """After every bad input above, a good edit still retrains with the new matrix."""
    _type_cost(playground, 0, "liquid", 4.0)
    _run(playground)
    assert not playground.error
    assert _state(playground).trained.rebel.cost_matrix_[0, 1] == 4.0


# ---------------------------------------------------------------------------------------------- engine level
_X = np.random.default_rng(0).normal(size=(40, 2))
_Y = np.arange(40) % 3
_C3 = 1 - np.eye(3)


def _fitted() -> RebelClassifier:
    return RebelClassifier(n_estimators=3, max_depth=1, n_thresholds=8).fit(_X, _Y)


def _model_dict() -> dict:
    return json.loads(dumps_model(_fitted()))


def _with(d: dict, **changes) -> str:
    """The model JSON with entries replaced; ``arrays__a0_=...`` reaches into the nested dict."""
    for path, value in changes.items():
        *parents, last = path.split("__")
        target = d
        for p in parents:
            target = target[p]
        target[last] = value
    return json.dumps(d)


ENGINE_CASES = [
    ("predict-before-fit", lambda: RebelClassifier().predict(_X), NotFittedError, "fit"),
    ("scores-before-fit", lambda: RebelClassifier().decision_function(_X), NotFittedError, "fit"),
    ("staged-before-fit", lambda: next(RebelClassifier().staged_predict(_X)), NotFittedError, "fit"),
    ("wrong-n-features", lambda: _fitted().predict(np.ones((3, 5))), ValueError, "5 features"),
    (
        "cost-negative",
        lambda: RebelClassifier(cost_matrix=_C3 - 2 * np.eye(3)).fit(_X, _Y),
        ValueError,
        ">= 0",
    ),
    (
        "cost-nan",
        lambda: RebelClassifier(cost_matrix=np.where(_C3 > 0, np.nan, 0)).fit(_X, _Y),
        ValueError,
        "finite",
    ),
    ("cost-text", lambda: RebelClassifier(cost_matrix=[["a", 1, 1]] * 3).fit(_X, _Y), ValueError, "numbers"),
    (
        "cost-wrong-shape",
        lambda: RebelClassifier(cost_matrix=np.ones((3, 2))).fit(_X, _Y),
        ValueError,
        "square",
    ),
    ("cost-wrong-k", lambda: RebelClassifier(cost_matrix=1 - np.eye(4)).fit(_X, _Y), ValueError, "3 classes"),
    (
        "cost-all-zero",
        lambda: RebelClassifier(cost_matrix=np.zeros((3, 3))).fit(_X, _Y),
        ValueError,
        "all zeros",
    ),
    ("cost-overflowing", lambda: RebelClassifier(cost_matrix=_C3 * 1e300).fit(_X, _Y), ValueError, "at most"),
    ("x-inf", lambda: RebelClassifier().fit(np.where(_X > 1, np.inf, _X), _Y), ValueError, "infinity"),
    ("x-empty", lambda: RebelClassifier().fit(np.empty((0, 2)), np.empty(0)), ValueError, "0 sample"),
    ("y-one-class", lambda: RebelClassifier().fit(_X, np.zeros(40)), ValueError, "only one class"),
    (
        "sample-cost-shape",
        lambda: RebelClassifier().fit(_X, _Y, sample_cost=np.ones((40, 2))),
        ValueError,
        "sample_cost",
    ),
    ("model-truncated", lambda: loads_model(dumps_model(_fitted())[:200]), ModelFileError, "not valid JSON"),
    ("model-wrong-version", lambda: loads_model(_with(_model_dict(), version=99)), ModelFileError, "version"),
    (
        "model-wrong-array-type",
        lambda: loads_model(_with(_model_dict(), arrays__a0_="abc")),
        ModelFileError,
        "malformed",
    ),
    (
        "model-wrong-param-type",
        lambda: loads_model(_with(_model_dict(), params__n_estimators="many")),
        ModelFileError,
        "n_estimators must be a whole number",
    ),
    (
        "model-wrong-shape",
        lambda: loads_model(_with(_model_dict(), arrays__a0_=[0.0])),
        ModelFileError,
        "a0_",
    ),
    (
        "model-foreign-json",
        lambda: loads_model('{"name": "pkg", "version": "1.0.0"}'),
        ModelFileError,
        "format",
    ),
    ("model-session-file", lambda: loads_model(_GOOD_SESSION), ModelFileError, "format"),
    ("model-binary", lambda: loads_model(bytes(range(256))), ModelFileError, "UTF-8"),
]


@pytest.mark.parametrize(
    ("fn", "error", "phrase"), [c[1:] for c in ENGINE_CASES], ids=[c[0] for c in ENGINE_CASES]
)
def test_engine_misuse_raises_a_clear_error(fn, error, phrase):
    with pytest.raises(error, match=phrase):
        fn()


ENGINE_XFAIL_CASES = [
    ("model-nested-deep", b"[" * 100_000 + b"]" * 100_000),
    ("model-huge-number", b'{"format": ' + b"9" * 5000 + b"}"),
]


@pytest.mark.parametrize("data", [c[1] for c in ENGINE_XFAIL_CASES], ids=[c[0] for c in ENGINE_XFAIL_CASES])
def test_malformed_model_json_raises_model_file_error(data):
    with pytest.raises(ModelFileError):
        loads_model(data)


BAD_INPUTS_TRIED = len(APP_CASES) + len(ENGINE_CASES) + len(ENGINE_XFAIL_CASES)
