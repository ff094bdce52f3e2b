"""Markdown/HTML injection: user data never becomes a link, an image or HTML in any page, and long values are cut.

Payloads (a markdown image and link, raw HTML, bold, a 4000-digit number) go through every input path: the
``?cfg=`` link, the session file, the CSV upload (class names, header, cells), the cost editor cells, the
clusters table, the Risk-score paths table, the taxonomy tree, and the Real-data page fed with uploaded data.
After each, every markdown-bearing text of the page (alerts, markdown, captions, widget labels and help,
expander and tab labels) is rendered as Streamlit would (GitHub-flavoured markdown with autolinks; HTML allowed,
to be strict) and must hold no ``<a>``/``<img>`` from the payload, no bold from it and no run of 200+ digits;
every plotly figure must hold no live ``<a href>`` or ``<img>`` tag.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from rebel.ui import config as cf
from tests.test_bad_inputs import FAST, TIMEOUT, _edit, _run, _state, _type_cost

APP = str(Path(__file__).resolve().parent.parent / "app.py")
LINKS = "![t](http://x/t.png) [CLICK](http://x/p)"
HTML = "<img src=x onerror=alert(1)> <a href=http://x/p>a</a>"
BOLD = "**b**"
DIGITS = "9" * 4000
PAYLOAD = f"{LINKS} {HTML} {BOLD}"
NAMES = [f"{LINKS} {BOLD}", HTML]  # two class names (a mixture needs two classes)
MD = MarkdownIt("gfm-like")  # tables, strikethrough, autolinks, raw HTML on
FORBIDDEN = [
    re.compile(r"<img", re.IGNORECASE),
    re.compile(r"<a\s[^>]*href=\"?http://x/", re.IGNORECASE),
    re.compile(r"<strong>b</strong>"),
    re.compile(r"\d{200}"),
]
PLOTLY_FORBIDDEN = [
    re.compile(r"<a\s+href", re.IGNORECASE),
    re.compile(r"<img", re.IGNORECASE),
    re.compile(r"\d{200}"),
]


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def _markdown_texts(at: AppTest):
    """(where, text) of every markdown-bearing string of the page."""
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        fields = proto.DESCRIPTOR.fields_by_name
        for name in ("body", "label", "help", "caption"):
            if name in fields and isinstance(getattr(proto, name), str) and getattr(proto, name):
                yield f"{type(node).__name__}.{name}", getattr(proto, name)
        for block in ("expandable", "tab"):
            if block in fields and proto.HasField(block):
                yield f"{block}.label", getattr(proto, block).label
        if "spec" in fields and isinstance(proto.spec, str):
            yield "plotly", proto.spec


def assert_no_injection(at: AppTest, path: str) -> int:
    """Check every text of the page; returns how many were checked."""
    checked = 0
    for where, text in _markdown_texts(at):
        checked += 1
        if where == "plotly":
            for pattern in PLOTLY_FORBIDDEN:
                assert not pattern.search(text), f"{path}: a figure holds {pattern.pattern!r}"
            continue
        html = MD.render(text)
        for pattern in FORBIDDEN:
            assert not pattern.search(html), f"{path}: {where} renders {pattern.pattern!r}: {text[:300]!r}"
    assert checked, f"{path}: nothing rendered"
    return checked


def _session_doc(**changes) -> dict:
    d = cf.preset_config("xor", FAST).to_dict()
    for path, value in changes.items():
        target = d
        *parents, last = path.split("__")
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[last] = value
    return d


def _named(doc: dict) -> dict:
    """The document with its two classes renamed to the payload names."""
    old = sorted({row["class"] for row in doc["spec"]["mixture"]})
    rename = dict(zip(old, NAMES, strict=True))
    for row in doc["spec"]["mixture"]:
        row["class"] = rename[row["class"]]
    doc.pop("classes", None)
    return doc


def _link(doc: dict) -> str:
    import base64
    import zlib

    raw = json.dumps(doc).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def _start(link: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[cf.QUERY_KEY] = link or cf.encode_query(cf.preset_config("airport", FAST))
    return _run(at)


DOCS = {
    "hyper": _session_doc(hyper__n_estimators=PAYLOAD),
    "digits": json.loads(
        json.dumps(_session_doc(hyper__max_depth=0)).replace('"max_depth": 0', f'"max_depth": {DIGITS}')
    ),
    "preset": _session_doc(preset=PAYLOAD),
    "extra-key": {**_session_doc(), PAYLOAD: 1},
    "class-names": _named(_session_doc()),
    "cost-text": _session_doc(cost_matrix=[[0, PAYLOAD], [1, 0]]),
}


@pytest.mark.parametrize("name", list(DOCS))
def test_links_cannot_inject(name):
    at = _start(_link(DOCS[name]))
    assert_no_injection(at, f"link/{name}")
    if name == "class-names":
        assert list(_state(at).dataset.classes) == sorted(NAMES)  # the names were used, and shown inertly


@pytest.mark.parametrize("name", list(DOCS))
def test_session_files_cannot_inject(name):
    at = _start()
    at.file_uploader(key="w_session_upload").set_value(
        ("s.json", json.dumps(DOCS[name]).encode(), "application/json")
    )
    _run(at)
    assert_no_injection(at, f"session/{name}")


def _csv(header: str, labels, cell: str = "1") -> bytes:
    rows = "\n".join(f"{i % 7},{cell if i == 3 else i % 5},{labels[i % len(labels)]}" for i in range(40))
    return f"{header}\n{rows}\n".encode()


CSVS = {
    "header": _csv(f"x,{PAYLOAD},label", ["a", "b"]),
    "class-names": _csv("x,y,label", [n.replace(",", " ") for n in NAMES]),
    "cell": _csv("x,y,label", ["a", "b"], cell=PAYLOAD.replace(",", " ")),
    "digits": _csv("x,y,label", ["a", "b"], cell=DIGITS),
}


@pytest.fixture(scope="module")
def playground() -> AppTest:
    return _start()


@pytest.mark.parametrize("name", list(CSVS))
def test_csv_uploads_cannot_inject(playground, name):
    at = playground
    at.file_uploader(key="w_csv_upload").set_value((f"{name}.csv", CSVS[name], "text/csv"))
    _run(at)
    assert_no_injection(at, f"csv/{name}")
    at.file_uploader(key="w_csv_upload").set_value(None)
    _run(at)


@pytest.mark.parametrize("value", [PAYLOAD, DIGITS], ids=["payload", "digits"])
def test_cost_editor_cells_cannot_inject(playground, value):
    at = playground
    _type_cost(at, 0, str(_state(at).dataset.classes[1]), value)
    _run(at)
    assert at.error, "the bad cell gave no message"
    assert_no_injection(at, "cost cell")


@pytest.mark.parametrize(
    "edit", [{"class": NAMES[0]}, {"mean_x": PAYLOAD}, {"mean_x": DIGITS}], ids=["class", "mean", "digits"]
)
def test_clusters_table_cannot_inject(playground, edit):
    at = playground
    _edit(at, f"w_mixture_{at.session_state['mixture_editor_v']}", {0: edit})
    _run(at)
    assert_no_injection(at, "clusters table")
    _edit(at, f"w_mixture_{at.session_state['mixture_editor_v']}")
    _run(at)


@pytest.mark.parametrize("text", [PAYLOAD, json.dumps({NAMES[0]: HTML}), json.dumps({"duck": DIGITS})])
def test_taxonomy_tree_cannot_inject(playground, text):
    at = playground
    at.selectbox(key="w_cost_preset").set_value("taxonomy")
    _run(at)
    at.text_area(key="w_cost_tree").set_value(text)
    at.button(key="w_apply_cost").click()
    _run(at)
    assert_no_injection(at, "taxonomy tree")


@pytest.mark.parametrize(
    "edit", [{"path": PAYLOAD}, {"x": DIGITS}, {"path": NAMES[1]}], ids=["path", "digits", "html"]
)
def test_paths_table_cannot_inject(edit):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/3_Risk_paths.py")
    _run(at)
    _edit(at, f"rp_editor_{at.session_state['rp_table_v']}", {0: edit})
    _run(at)
    assert_no_injection(at, "paths table")


def test_real_data_page_shows_uploaded_class_names_inertly():
    at = _start()
    at.file_uploader(key="w_csv_upload").set_value(("names.csv", CSVS["class-names"], "text/csv"))
    _run(at)
    assert set(_state(at).dataset.classes) == {n.replace(",", " ") for n in NAMES}
    at.switch_page("pages/6_Real_data.py")
    _run(at)
    at.selectbox(key="w6_dataset").set_value("playground")  # the page's value for the Playground's data
    _run(at)
    assert at.session_state["w6_dataset"] == "playground"
    assert_no_injection(at, "real data")
