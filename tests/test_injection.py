"""Markdown/HTML injection: user data never becomes a link, an image or HTML in any page, and long values are cut.

Payloads (a markdown image and link, raw HTML, bold, a 4000-digit number) go through every input path: the
``?cfg=`` link, the session file, the CSV upload (class names, header, cells), the cost editor cells, the
clusters table, the Risk-score paths table, the taxonomy tree, and the Real-data page fed with uploaded data.
After each, every markdown-bearing text of the page (alerts, markdown, captions, widget labels and help,
expander and tab labels) is rendered as Streamlit would (GitHub-flavoured markdown with autolinks; HTML allowed,
to be strict) and must hold no ``<a>``/``<img>`` from the payload, no bold from it and no run of 200+ digits;
every plotly figure must hold no live ``<a href>`` or ``<img>`` tag.

Bare URLs and Streamlit's directives (``URLS``, ``DIRECTIVES``) as class names, preset (dataset) names and
hyper-parameter texts reach every page through a link (``test_every_page_shows_hostile_names_inertly``), with a
regression test per reproducer of issue 20. Streamlit links bare URLs *after* resolving backslash escapes, so
``assert_inert`` also runs linkify (markdown-it-py's linkify-it) on the visible text of each rendered element and
looks there for live directives; ``rebel.ui.text.plain`` defeats both with an invisible word joiner.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from linkify_it import LinkifyIt
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from rebel.ui import config as cf
from rebel.ui.text import JOINER, md, plain
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


MARKDOWN_OPTIONS = ("Radio", "ButtonGroup", "Slider")  # selectbox and multiselect options are plain text


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
        for name in ("body", "label", "help", "caption", "delta", "text"):
            if name in fields and isinstance(getattr(proto, name), str) and getattr(proto, name):
                yield f"{type(node).__name__}.{name}", getattr(proto, name)
        for name in ("options", "captions"):  # radio and pill options, radio captions: markdown too
            if name in fields and proto.DESCRIPTOR.name in MARKDOWN_OPTIONS:
                for item in getattr(proto, name):
                    item = getattr(item, "content", item)  # a pill's option is a message with its text
                    if isinstance(item, str) and item:
                        yield f"{type(node).__name__}.{name}", item
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
    "url-class-names": _csv(
        "x,y,label", ["https://evil.example/login :skull:", "www.evil.com/reset :red[EVILRED]"]
    ),
    "url-header": _csv("x,see https://evil.example/fix :material/skull:,label", ["a", "b"]),
    "url-cell": _csv("x,y,label", ["a", "b"], cell="see https://evil.example/fix"),
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
    assert_inert(at, f"csv/{name}")
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
    "edit",
    [{"path": PAYLOAD}, {"x": DIGITS}, {"path": NAMES[1]}, {"path": "www.evil.com/a :red[EVILRED] :skull:"}],
    ids=["path", "digits", "html", "url"],
)
def test_paths_table_cannot_inject(edit):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/3_Risk_paths.py")
    _run(at)
    _edit(at, f"rp_editor_{at.session_state['rp_table_v']}", {0: edit})
    _run(at)
    assert_no_injection(at, "paths table")
    assert_inert(at, "paths table")


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


# ------------------------------------------------------------------------------ bare URLs and Streamlit directives
URLS = [
    "https://evil.example/login",
    "www.evil.example/reset",
    "www.evil.com/reset",
    "mail@evil.com",
    "[EVILLINK](https://evil.example/phish)",
    "![EVILIMG](https://evil.example/img.png)",
]
DIRECTIVES = [":red[EVILRED]", ":material/skull:", ":skull:", "$EVILTEX$"]
HOSTILE = [  # two class names (at most 200 characters each) holding every URL and directive
    f"{URLS[0]} {URLS[4]} {DIRECTIVES[0]} {DIRECTIVES[3]}",
    f"{URLS[1]} {URLS[2]} {URLS[3]} {URLS[5]} {DIRECTIVES[1]} {DIRECTIVES[2]}",
]
LINKIFY = LinkifyIt().tlds("example", True)  # Streamlit links "www.x.example" whatever the top-level domain
MD_LINKIFY = MarkdownIt("gfm-like", {"linkify": True})
MD_LINKIFY.linkify.tlds("example", True)
# Colour, icon and emoji directives are applied to the text after escapes are resolved (so looked for in the
# visible text); LaTeX is parsed like emphasis (an escaped "$" is literal), so looked for in the source.
LIVE_DIRECTIVE = re.compile(
    r":(?:red|orange|green|blue|violet|gray|grey|rainbow|primary)\[|:material/|:skull:"
)
LIVE_LATEX = re.compile(r"(?<!\\)\$[^$]+(?<!\\)\$")


def visible(rendered_html: str) -> str:
    """The text a reader sees of rendered markdown (tags dropped, entities resolved; joiners kept)."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered_html))


def inert_problems(text: str) -> list[str]:
    """Why ``text`` (markdown as an element carries it) is not inert: a link or image once rendered, a URL that
    Streamlit's autolink would link in the visible text, or a live colour/icon/emoji/LaTeX directive."""
    rendered = MD_LINKIFY.render(text)
    seen = visible(rendered)
    out = [f"renders {tag}" for tag in ("<a ", "<img") if tag in rendered]
    out += [f"autolinks {m.url}" for m in LINKIFY.match(seen) or [] if "evil" in m.url]
    out += [f"live directive {m.group(0)!r}" for m in LIVE_DIRECTIVE.finditer(seen)]
    out += [f"live LaTeX {m.group(0)!r}" for m in LIVE_LATEX.finditer(text)]
    return out


def assert_inert(at: AppTest, where: str) -> int:
    """No markdown text of the page holds a link, an image, an autolink or a live directive."""
    assert not at.exception, [e.message for e in at.exception]
    checked = 0
    for kind, text in _markdown_texts(at):
        if kind == "plotly":
            continue
        checked += 1
        found = inert_problems(text)
        assert not found, f"{where}: {kind} {found}: {text[:300]!r}"
    assert checked, f"{where}: nothing rendered"
    return checked


def _shown(text: str) -> str:
    """What the reader sees of an element's markdown: rendered, joiners dropped."""
    return visible(MD_LINKIFY.render(text)).replace(JOINER, "").strip()


@pytest.mark.parametrize("value", [*URLS, *DIRECTIVES, " ".join(HOSTILE), PAYLOAD])
def test_plain_and_md_make_urls_and_directives_inert(value):
    assert inert_problems(value) or value == PAYLOAD, "the payload is not hostile to begin with"
    for text in (plain(value), md("**Class {}** costs {:.2f}", value, 0.5)):
        assert not inert_problems(text), text
    assert _shown(plain(value)) == value  # shown as typed


def test_the_check_sees_what_old_escaping_left_live():
    """Backslash escapes alone (the escaping before issue 20) leave bare URLs live: the check must see it."""
    old = re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", URLS[0])
    assert "<a " not in MD_LINKIFY.render(old) and inert_problems(old)


def _hostile_doc(**changes) -> dict:
    doc = _session_doc(**changes)
    old = sorted({row["class"] for row in doc["spec"]["mixture"]})
    rename = dict(zip(old, HOSTILE, strict=True))
    for row in doc["spec"]["mixture"]:
        row["class"] = rename[row["class"]]
    doc.pop("classes", None)
    doc["preset"] = URLS[2] + " " + DIRECTIVES[0]  # the dataset's (preset's) name
    return doc


PAGES = {  # page -> small settings so each renders in seconds
    "pages/2_REBEL_vs_two_step.py": {"w2_n_datasets": 1, "w2_n_costs": 1, "w2_n_rounds": 5},
    "pages/3_Risk_paths.py": {},
    "pages/4_Cost_gallery.py": {},
    "pages/5_Trees_and_depth.py": {"w5_rounds": 5, "w5_study_rounds": 10, "w5_study_splits": 1},
    "pages/6_Real_data.py": {"w6_rounds": 10, "w6_methods": ["rebel"], "w6_dataset": "playground"},
    "pages/7_Example_costs.py": {"w7_n_datasets": 1, "w7_n_costs": 1, "w7_n_rounds": 5},
    "pages/8_Cost_sweep.py": {"sw_n": 3},
    "pages/9_Theory.py": {"th_rounds": 10},
}


@pytest.fixture(scope="module")
def hostile() -> AppTest:
    """The app opened from a link whose class names and preset name are URLs and directives."""
    at = _start(_link(_hostile_doc()))
    assert list(_state(at).dataset.classes) == sorted(HOSTILE), "the link's classes were not used"
    return at


def test_playground_and_cost_editor_show_url_class_names_inertly(hostile):
    assert_inert(hostile, "Playground")
    captions = [_shown(c.value) for c in hostile.caption]
    assert all(name in captions for name in HOSTILE), "the cost editor's class captions are missing"


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_shows_hostile_names_inertly(hostile, page):
    at = hostile
    for key, value in PAGES[page].items():
        at.session_state[key] = value
    at.switch_page(page)
    _run(at)
    assert_inert(at, page)


def _texts(elements) -> list[str]:
    return [_shown(e.value) for e in elements]


def test_cost_gallery_panel_message_is_inert(hostile):
    """Reproducer: ``st.success(f"No {cls} prediction ...")`` rendered a class name as a live link."""
    at = hostile
    at.switch_page("pages/4_Cost_gallery.py")
    _run(at)
    c = at.session_state["gal_c"]
    about_c = [
        t for t in _texts(at.success) + _texts(at.caption) if c in t and ("prediction" in t or "called" in t)
    ]
    assert about_c, "panel (c)'s message about class c is missing"
    assert_inert(at, "Cost gallery")


def test_cost_sweep_caption_is_inert(hostile):
    """Reproducer: ``st.caption(f"Sweeping the cost of predicting **{pred}** ...")`` showed a link, an image."""
    at = hostile
    at.session_state["sw_n"] = 3
    at.switch_page("pages/8_Cost_sweep.py")
    _run(at)
    sweeping = [c.value for c in at.caption if "Sweeping the cost" in c.value]
    assert sweeping and at.session_state["sw_pred"] in _shown(sweeping[0])
    assert "<strong>" in MD_LINKIFY.render(sweeping[0])  # our own bold stays; the class name is inert
    assert_inert(at, "Cost sweep")


def test_trees_favoured_classes_caption_is_inert(hostile):
    """Reproducer: the favoured-classes caption showed a link, an image and :red[...] text."""
    at = hostile
    for key, value in PAGES["pages/5_Trees_and_depth.py"].items():
        at.session_state[key] = value
    at.switch_page("pages/5_Trees_and_depth.py")
    _run(at)
    where = [_shown(c.value) for c in at.caption if "the scores of" in c.value]
    assert where and any(name in where[0] for name in HOSTILE), "the favoured classes are not named"
    assert_inert(at, "Trees and depth")


def test_url_in_a_hyper_parameter_reaches_the_error_box_inertly():
    """Reproducer: ``"n_estimators": "see https://evil.example/fix"`` in a link gave a clickable error box."""
    at = _start(_link(_session_doc(hyper__n_estimators="see https://evil.example/fix")))
    errors = _texts(at.error)
    assert any("n_estimators" in e for e in errors), errors
    assert any("evil" in e for e in errors), "the echoed value is not quoted at all"
    assert_inert(at, "link error")


def test_url_in_a_cost_cell_error_is_inert(playground):
    at = playground
    _type_cost(at, 0, str(_state(at).dataset.classes[1]), "see https://evil.example/fix :red[EVILRED]")
    _run(at)
    assert at.error, "the bad cell gave no message"
    assert_inert(at, "cost cell")
