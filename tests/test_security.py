"""Safe server defaults and safe handling of user text and files.

- ``.streamlit/config.toml``: bound to localhost, XSRF protection on, uploads capped (and no larger than what
  the parsers accept), error details hidden, no usage statistics.
- The code: no ``unsafe_allow_html``/``st.html``/components with user text, no pickle anywhere a user file
  could reach, every file uploader restricted to CSV or JSON.
- Uploads are parsed as CSV/JSON only: a pickle whose unpickling would run code is rejected without running it,
  and HTML in class names is shown as text (markdown elements never allow HTML).
"""

from __future__ import annotations

import ast
import pickle
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rebel.io import ModelFileError, loads_model
from rebel.ui import config as cf
from rebel.ui.state import STATE_KEY, AppState
from rebel.ui.text import visible
from tests.test_markdown_calls import _is_fixed, static_names

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
APP_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
ENGINE_FILES = sorted((ROOT / "rebel").glob("*.py"))


def _state(at: AppTest) -> AppState:
    """The app's shared state (rebel.ui.state.AppState)."""
    return at.session_state[STATE_KEY]


@pytest.fixture(scope="module")
def config() -> dict:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())


def test_server_is_bound_to_localhost_with_xsrf_protection(config):
    assert config["server"]["address"] in ("127.0.0.1", "localhost")
    assert config["server"]["enableXsrfProtection"] is True
    assert config["server"].get("enableCORS", True) is True  # CORS protection stays on


def test_upload_size_is_capped_at_what_the_parsers_accept(config):
    cap_mib = config["server"]["maxUploadSize"]
    assert 0 < cap_mib <= 10
    assert cap_mib * 1024 * 1024 <= cf.MAX_UPLOAD_BYTES


def test_error_details_are_hidden_and_no_usage_statistics(config):
    assert config["client"]["showErrorDetails"] in ("none", False)
    assert config["browser"]["gatherUsageStats"] is False


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            yield name, node


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: p.name)
def test_pages_never_render_raw_html(path):
    """No iframe, no components, and st.html only with fixed text written in the source (a style sheet): the
    same rule as tests/test_markdown_calls.py."""
    fixed = static_names(ast.parse(path.read_text()))
    for name, node in _calls(path):
        assert name != "iframe", f"{path.name}:{node.lineno}: st.iframe renders raw HTML"
        if name == "html":
            assert node.args and all(_is_fixed(a, fixed) for a in node.args), (
                f"{path.name}:{node.lineno}: st.html renders HTML that is not fixed text"
            )
        for kw in node.keywords:
            if kw.arg == "unsafe_allow_html":
                assert isinstance(kw.value, ast.Constant) and kw.value.value is False, (
                    f"{path.name}:{node.lineno}: unsafe_allow_html"
                )
    assert "streamlit.components" not in path.read_text()


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: p.name)
def test_file_uploaders_accept_only_csv_or_json(path):
    for name, node in _calls(path):
        if name != "file_uploader":
            continue
        types = next((kw.value for kw in node.keywords if kw.arg == "type"), None)
        assert types is not None, f"{path.name}:{node.lineno}: file_uploader without type="
        values = (
            {ast.literal_eval(types)} if isinstance(types, ast.Constant) else set(ast.literal_eval(types))
        )
        assert values <= {"csv", "json"}, f"{path.name}:{node.lineno}: accepts {values}"


@pytest.mark.parametrize("path", APP_FILES + ENGINE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_pickle_or_eval_on_any_path_user_data_can_reach(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not {"pickle", "cPickle", "dill", "cloudpickle", "shelve", "marshal"} & set(names), (
                f"{path.name}:{node.lineno}: imports a pickle-like module"
            )
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            assert name not in ("eval", "exec", "read_pickle"), f"{path.name}:{node.lineno}: {name}()"
            for kw in node.keywords:
                if kw.arg == "allow_pickle":
                    assert isinstance(kw.value, ast.Constant) and kw.value.value is False, (
                        f"{path.name}:{node.lineno}: allow_pickle"
                    )


class _Trap:
    """Unpickling this object would call ``_Trap.spring`` (what a malicious pickle does with os.system)."""

    sprung = False

    def __reduce__(self):
        return (_spring, ())


def _spring():
    _Trap.sprung = True


@pytest.mark.parametrize(
    "parse",
    [
        lambda b: cf.parse_dataset_csv(b),
        lambda b: cf.parse_session_json(b),
        lambda b: cf.decode_query(b.decode("latin-1")),
        lambda b: loads_model(b),
    ],
    ids=["csv", "session", "link", "model"],
)
@pytest.mark.parametrize("protocol", [0, pickle.HIGHEST_PROTOCOL])
def test_a_malicious_pickle_is_rejected_without_being_unpickled(parse, protocol):
    payload = pickle.dumps(_Trap(), protocol=protocol)
    _Trap.sprung = False
    with pytest.raises((ValueError, ModelFileError)):
        parse(payload)
    assert not _Trap.sprung


def test_html_in_class_names_is_shown_as_text():
    evil = "<img src=x onerror=alert(1)>"
    rows = "\n".join(f"{i % 7},{i % 5},{'ok' if i % 2 else evil}" for i in range(40))
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params[cf.QUERY_KEY] = cf.encode_query(
        cf.preset_config("xor", {"n_estimators": 5, "max_depth": 1, "n_thresholds": 8})
    )
    at.run()
    at.file_uploader(key="w_csv_upload").set_value(("evil.csv", f"x,y,label\n{rows}\n".encode(), "text/csv"))
    at.run()
    assert not at.exception
    assert evil in _state(at).dataset.classes
    for el in at.get("markdown"):
        assert not el.proto.allow_html, f"markdown with HTML allowed: {el.value[:80]}"
    for kind in ("success", "info", "error", "warning", "caption"):
        for el in at.get(kind):
            assert not getattr(el.proto, "allow_html", False), f"{kind} with HTML allowed"


# ------------------------------------------------------------------------------------------ the page boundary
def _link_of(doc: dict) -> str:
    import base64
    import json
    import zlib

    return base64.urlsafe_b64encode(zlib.compress(json.dumps(doc).encode(), 9)).decode().rstrip("=")


@pytest.mark.parametrize("entry", [1, None, "x"], ids=["one", "null", "text"])
def test_a_link_with_a_mixture_entry_that_is_not_an_object_shows_an_error(entry):
    """F1: ``spec.mixture`` entries 1, null and "x" raised a TypeError that crashed the Playground."""
    doc = cf.preset_config("xor", {"n_estimators": 5, "max_depth": 1, "n_thresholds": 8}).to_dict()
    doc["spec"]["mixture"][0] = entry
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params[cf.QUERY_KEY] = _link_of(doc)
    at.run()
    assert not at.exception
    text = visible(" ".join(e.value for e in at.error))
    assert "spec.mixture.0" in text and "should be a JSON object" in text
    assert at.session_state[STATE_KEY].preset == cf.DEFAULT_PRESET  # the default preset is shown instead


def _boundary_script(fail: str) -> None:
    import streamlit as st

    from rebel.ui.guard import run_page

    class Page:
        title = "boom"

        def run(self):
            st.session_state["work"] = st.session_state.get("work", 0) + 1
            st.write("drawn before the failure")
            if fail == "key":
                raise KeyError("no such class")
            if fail == "stop":
                st.stop()

    run_page(Page())
    st.write("after the page")


def test_an_unexpected_error_is_caught_at_the_page_boundary_and_the_state_kept():
    """Any exception from a page (here a KeyError) becomes one escaped message; the session state stays."""
    at = AppTest.from_function(_boundary_script, args=("key",), default_timeout=30)
    at.run()
    assert not at.exception
    text = visible(" ".join(e.value for e in at.error))
    assert "unexpected problem" in text and "KeyError" in text and "settings are kept" in text
    assert at.session_state["work"] == 1
    at.run()
    assert not at.exception and at.session_state["work"] == 2


def test_the_page_boundary_lets_streamlit_control_flow_through():
    at = AppTest.from_function(_boundary_script, args=("stop",), default_timeout=30)
    at.run()
    assert not at.exception and not at.error
    assert "after the page" not in [m.value for m in at.markdown]  # st.stop() still stops the run


def test_the_app_runs_every_page_through_the_boundary():
    tree = ast.parse((ROOT / "app.py").read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert any(getattr(c.func, "id", "") == "run_page" for c in calls)
    assert not any(isinstance(c.func, ast.Attribute) and c.func.attr == "run" for c in calls)


def _callback_and_fragment_script() -> None:
    import streamlit as st

    from rebel.ui.components import guarded, guarded_callback
    from rebel.ui.guard import run_page

    def boom():
        raise ZeroDivisionError("a callback failed")

    class Page:
        title = "callbacks"

        def run(self):
            st.session_state["work"] = st.session_state.get("work", 0) + 1
            st.button("Go", key="go", on_click=guarded_callback(boom))
            st.fragment(guarded(lambda: [].pop()))()
            st.write("after the fragment")

    run_page(Page())


def test_failing_callbacks_and_fragments_show_a_message_and_keep_the_state():
    """A fragment's failure is shown in place and the page goes on; a callback's failure (callbacks run before
    the page) is shown at the top of the next run. No exception element, the session state kept."""
    at = AppTest.from_function(_callback_and_fragment_script, default_timeout=30)
    at.run()
    errors = visible(" ".join(e.value for e in at.error))
    assert not at.exception and "IndexError" in errors and "This part of the page" in errors
    assert "after the fragment" in [m.value for m in at.markdown]
    at.button(key="go").click().run()
    errors = visible(" ".join(e.value for e in at.error))
    assert not at.exception and "ZeroDivisionError" in errors and "That action" in errors
    assert at.session_state["work"] == 2


def test_every_widget_callback_and_fragment_is_guarded():
    """on_change / on_click callables and st.fragment bodies go through guarded_callback / guarded (the only
    exception: cost_editor's on_change, which it wraps itself)."""
    for path in [*APP_FILES, *sorted((ROOT / "rebel" / "ui").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            for kw in node.keywords:
                if kw.arg in ("on_change", "on_click") and name != "cost_editor":
                    if isinstance(kw.value, ast.Constant) and kw.value.value in ("ignore", "rerun"):
                        continue  # Streamlit's own behaviours, no code of ours runs
                    wrapper = kw.value.func if isinstance(kw.value, ast.Call) else None
                    wrapped = getattr(wrapper, "attr", getattr(wrapper, "id", ""))
                    assert wrapped == "guarded_callback", (
                        f"{path.name}:{node.lineno}: {kw.arg} is not guarded"
                    )
            if name == "fragment" and node.args:
                arg = node.args[0]
                inner = arg.func if isinstance(arg, ast.Call) else None
                wrapped = getattr(inner, "attr", getattr(inner, "id", ""))
                assert wrapped == "guarded", f"{path.name}:{node.lineno}: st.fragment body is not guarded"


CACHE_FILES = [*APP_FILES, *sorted((ROOT / "rebel" / "ui").rglob("*.py"))]


@pytest.mark.parametrize("path", CACHE_FILES, ids=lambda p: p.name)
def test_every_streamlit_cache_is_bounded(path):
    """Every st.cache_data / st.cache_resource has max_entries (and may add a ttl): server memory is bounded."""
    for name, node in _calls(path):
        if name in ("cache_data", "cache_resource"):
            keywords = {kw.arg for kw in node.keywords}
            assert "max_entries" in keywords, f"{path.name}:{node.lineno}: st.{name} without max_entries"
    text = path.read_text()
    for bare in ("@st.cache_data\n", "@st.cache_resource\n"):
        assert bare not in text, f"{path.name}: {bare.strip()} without bounds"


def test_two_hostile_uploads_at_the_size_cap_are_refused_together_quickly():
    """Two 4.9 MB CSV uploads of one header line each (626,389 columns) used to hold two sessions for minutes
    (the header was checked name against name); now both are refused on the header's length at once."""
    import threading

    data = (",".join(f"c{j}" for j in range(626_389)) + "\n").encode()[: int(4.9 * 1024 * 1024)]
    errors: list = []

    def upload():
        try:
            cf.parse_dataset_csv(data)
        except ValueError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=upload) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)  # a safety net only: the refusal comes from the header, before any parsing
    assert not any(t.is_alive() for t in threads)
    assert len(errors) == 2 and all("characters in the CSV header line" in e for e in errors), errors
