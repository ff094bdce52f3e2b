"""One range table for links, session files and widgets (``rebel.params.DATA_RANGES`` and ``INT_PARAMS``).

- Every widget of a setting a link or session file holds shows the schema's whole range (read from the
  rendered widgets), so any accepted value can be shown.
- Values outside the table are refused with a message naming the entry, the value and the range (the
  Playground then starts from its default preset); the issue's links (test_fraction 0, 0.01, 0.95; label_noise
  0.6, 0.99) no longer stop the page at a slider.
- Property (hypothesis): configurations drawn from the schema's ranges, extremes included, open from a link and
  every page renders without an exception element. Work is kept small: points x rounds is capped, so the
  largest point count comes with few rounds and the most rounds with few points; pages run with small settings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from rebel.params import DATA_RANGES, INT_PARAMS
from rebel.ui import config as cf
from rebel.ui.playground.widgets import MIN_POINTS
from rebel.ui.schemas import InputError, session_document
from rebel.ui.text import visible
from tests.test_injection import PAGES, _link, _session_doc

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 120
WIDGETS = {  # schema entry -> the Playground widget showing it
    "spec.n_points": "w_n_points",
    "spec.seed": "w_seed",
    "spec.label_noise": "w_noise",
    "spec.test_fraction": "w_test",
    **{f"hyper.{name}": f"w_{name}" for name in INT_PARAMS},
}
MAX_WORK = DATA_RANGES["n_points"].high * 5  # points x rounds of one drawn configuration


def _bounds(entry: str) -> tuple:
    group, name = entry.split(".")
    if group == "spec":
        return DATA_RANGES[name].low, DATA_RANGES[name].high
    return INT_PARAMS[name].low, INT_PARAMS[name].app_high


def _open(doc: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[cf.QUERY_KEY] = _link(doc)
    at.run(timeout=TIMEOUT)
    return at


def _no_exception(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"


def _widget(at: AppTest, key: str):
    for kind in ("slider", "number_input"):
        for w in at.get(kind):
            if w.key == key:
                return w
    raise AssertionError(f"no widget {key}")


def _accepted(entry: str, value) -> bool:
    """Whether a link or session file may hold ``value`` at ``entry`` (the schema, then the app's checks)."""
    group, name = entry.split(".")
    doc = _session_doc(**{f"{group}__{name}": value})
    try:
        cf.Config.from_dict(doc)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("entry", list(WIDGETS))
def test_the_schema_takes_exactly_the_tables_range(entry):
    low, high = _bounds(entry)
    step = 1 if isinstance(low, int) else 0.001
    assert _accepted(entry, low) and _accepted(entry, high)
    assert not _accepted(entry, low - step) and not _accepted(entry, high + step)


def test_every_widget_shows_the_schemas_whole_range():
    at = _open(_session_doc())
    _no_exception(at, "Playground")
    for entry, key in WIDGETS.items():
        low, high = _bounds(entry)
        w = _widget(at, key)
        if key == "w_n_points":  # a free number box, checked on change against the same table
            assert (MIN_POINTS, cf.MAX_POINTS) == (low, high)
            continue
        assert (w.min, w.max) == (low, high), f"{key} shows {w.min}..{w.max}; the schema takes {low}..{high}"


@pytest.mark.parametrize(
    ("entry", "value"),
    [
        ("test_fraction", 0),
        ("test_fraction", 0.01),
        ("test_fraction", 0.95),
        ("label_noise", 0.6),
        ("label_noise", 0.99),
        ("seed", 2**40),
        ("n_points", 5),
    ],
)
def test_values_no_widget_can_show_are_refused_with_the_range(entry, value):
    doc = _session_doc(**{f"spec__{entry}": value})
    with pytest.raises(InputError, match=rf"{entry} is .*; the Playground takes {entry} between"):
        session_document(doc)
    at = _open(doc)  # the links: the page stopped at the slider (StreamlitValueBelowMinError)
    _no_exception(at, entry)
    text = visible(" ".join(e.value for e in at.error))
    assert f"the Playground takes {entry} between" in text, text
    assert at.session_state["w_test"] <= DATA_RANGES["test_fraction"].high  # the default preset is shown
    assert at.get("file_uploader"), "the session uploader disappeared"


def _extremes(r) -> st.SearchStrategy:
    if isinstance(r.low, int) and isinstance(r.high, int):
        inside = st.integers(r.low, r.high)
    else:
        inside = st.floats(r.low, r.high, allow_nan=False)
    return st.one_of(st.just(r.low), st.just(r.high), inside)


def _int_extremes(p) -> st.SearchStrategy:
    return st.one_of(st.just(p.low), st.just(p.app_high), st.integers(p.low, p.app_high))


@st.composite
def configurations(draw) -> dict:
    spec = {name: draw(_extremes(r)) for name, r in DATA_RANGES.items()}
    hyper = {name: draw(_int_extremes(p)) for name, p in INT_PARAMS.items()}
    if spec["n_points"] * hyper["n_estimators"] > MAX_WORK:  # keep the work small: few rounds on many points
        hyper["n_estimators"] = max(1, MAX_WORK // spec["n_points"])
    return {"preset": draw(st.sampled_from(["xor", "fig7"])), "spec": spec, "hyper": hyper}


def _doc(cfg: dict) -> dict:
    doc = cf.preset_config(cfg["preset"]).to_dict()
    doc["spec"].update(cfg["spec"])
    doc["hyper"] = cfg["hyper"]
    return doc


LOWEST = {
    "preset": "xor",
    "spec": {name: r.low for name, r in DATA_RANGES.items()},
    "hyper": {name: p.low for name, p in INT_PARAMS.items()},
}
HIGHEST = {
    "preset": "fig7",
    "spec": {name: r.high for name, r in DATA_RANGES.items()},
    "hyper": {**{name: p.app_high for name, p in INT_PARAMS.items()}, "n_estimators": 5},
}


@settings(
    max_examples=2,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(configurations())
@example(LOWEST)
@example(HIGHEST)
def test_any_configuration_the_schema_accepts_renders_every_page(cfg):
    doc = _doc(cfg)
    session_document(doc)  # the schema accepts it
    at = _open(doc)
    _no_exception(at, "Playground")
    assert not at.error, [visible(e.value) for e in at.error]
    spec = at.session_state["rebel_state"].spec
    assert (spec.n_points, spec.seed) == (cfg["spec"]["n_points"], cfg["spec"]["seed"]), (
        "the link was not used"
    )
    for page, widgets in PAGES.items():
        for key, value in widgets.items():
            at.session_state[key] = value
        at.switch_page(page)
        at.run(timeout=TIMEOUT)
        _no_exception(at, page)
        assert at.title, f"{page} did not render"
