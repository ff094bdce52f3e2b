"""``rebel.ui.chart_preload`` on a static folder laid out as Streamlit's: which chunks the page is made to
preload, where the links go, and the Starlette handler Streamlit builds answering with that page (or with its own
page when the folder is not as expected)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rebel.ui import chart_preload

PAGE = """<!DOCTYPE html>
<html><head>
    <script type="module" crossorigin src="./static/js/index.AAA.js"></script>
    <link rel="modulepreload" crossorigin href="./static/js/runtime.BBB.js">
  </head><body><div id="root"></div></body></html>
"""
MODULES = {
    "index.AAA.js": 'import{a as b}from"./runtime.BBB.js";console.log(b);',
    "runtime.BBB.js": "export const a=1;",
    "PlotlyChart.CCC.js": (
        'import{a as e}from"./runtime.BBB.js";import"./side.DDD.js";'
        'import{t as n}from"./index.AAA.js";import{w}from"./wrap.EEE.js";'
        'const later=()=>import(`./lazy.FFF.js`);const s="from\\"./fake.js\\"";'
    ),
    "side.DDD.js": 'import{w}from"./wrap.EEE.js";',
    "wrap.EEE.js": 'import{a}from"./runtime.BBB.js";export const w=a;',
    "lazy.FFF.js": "export default 1;",
}


def _static(tmp_path: Path, page: str = PAGE, modules: dict = MODULES) -> Path:
    js = tmp_path.joinpath(*chart_preload.JS_DIR)
    js.mkdir(parents=True)
    (tmp_path / "index.html").write_text(page)
    for name, text in modules.items():
        (js / name).write_text(text)
    return tmp_path


def test_the_bundle_and_the_chunks_it_imports_that_the_page_lacks_are_preloaded_bundle_first(tmp_path):
    static = _static(tmp_path)
    assert chart_preload.static_imports(static / "static/js/PlotlyChart.CCC.js") == [
        "runtime.BBB.js",
        "side.DDD.js",
        "index.AAA.js",
        "wrap.EEE.js",
    ]  # the leading import statements only: no dynamic import(), no text inside the code
    assert chart_preload.preload_paths(static, PAGE) == [
        "static/js/PlotlyChart.CCC.js",
        "static/js/side.DDD.js",
        "static/js/wrap.EEE.js",
    ]  # index.AAA.js (the page's script) and runtime.BBB.js (already preloaded) are left out


LINKS = (
    '    <link rel="modulepreload" crossorigin href="./static/js/PlotlyChart.CCC.js">\n'
    '    <link rel="modulepreload" crossorigin href="./static/js/side.DDD.js">\n'
    '    <link rel="modulepreload" crossorigin href="./static/js/wrap.EEE.js">\n'
)
HEAD_END = PAGE.index("</head>")


def test_the_links_and_the_start_go_before_the_end_of_the_head_links_written_as_streamlit_writes_its_own(
    tmp_path, monkeypatch
):
    monkeypatch.delenv(chart_preload.OFF_SWITCH, raising=False)
    page = chart_preload.preloaded_page(_static(tmp_path)).decode()
    added = page[HEAD_END : page.index("</head>")]
    assert page == PAGE[:HEAD_END] + added + PAGE[HEAD_END:]  # nothing else changed
    assert added.startswith(LINKS)
    start = added[len(LINKS) :]
    assert start.lstrip().startswith('<script type="module">') and start.rstrip().endswith("</script>")
    assert (
        'import("./static/js/PlotlyChart.CCC.js")' in start
    )  # the bundle, once the script runs on the server
    assert 'data-test-script-state="running"' in start
    assert '!["Lessons"].includes(page)' in start  # a page without charts is not kept busy by the bundle


def test_fetch_mode_adds_the_links_alone(tmp_path, monkeypatch):
    monkeypatch.setenv(chart_preload.OFF_SWITCH, "fetch")
    page = chart_preload.preloaded_page(_static(tmp_path)).decode()
    assert page == PAGE[:HEAD_END] + LINKS + PAGE[HEAD_END:]


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda m: {k: v for k, v in m.items() if not k.startswith("PlotlyChart")}, LookupError),
        (lambda m: {**m, "PlotlyChart.ZZZ.js": ""}, LookupError),  # two bundles: which one is unknown
        (lambda m: {k: v for k, v in m.items() if k != "wrap.EEE.js"}, LookupError),  # an import missing
    ],
    ids=["no-bundle", "two-bundles", "missing-import"],
)
def test_a_folder_not_as_expected_is_an_error_naming_what_differs(tmp_path, change, error):
    with pytest.raises(error, match=r"PlotlyChart|wrap\.EEE\.js"):
        chart_preload.preloaded_page(_static(tmp_path, modules=change(MODULES)))


def test_a_page_without_a_head_end_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="</head>"):
        chart_preload.preloaded_page(_static(tmp_path, page=PAGE.replace("</head>", "")))


def _get(static, path: str = ""):
    scope = {"type": "http", "method": "GET", "path": "/" + path, "headers": [], "root_path": ""}
    # in a thread of its own: a browser test's Playwright may hold an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, static.get_response(path, scope)).result()


@pytest.fixture
def routes(monkeypatch):
    """Streamlit's static routes module, its handler factory restored after the test."""
    from streamlit.web.server.starlette import starlette_static_routes as routes

    monkeypatch.setattr(routes, "create_streamlit_static_handler", routes.create_streamlit_static_handler)
    monkeypatch.delenv(chart_preload.OFF_SWITCH, raising=False)
    return routes


def test_streamlits_static_handler_serves_the_page_with_the_preloads_and_other_files_unchanged(
    tmp_path, routes
):
    static_dir = _static(tmp_path)
    assert chart_preload.install()
    static = routes.create_streamlit_static_handler(str(static_dir), None)
    for path in ("", "index.html", "Lessons"):  # the root, the file, a page's URL (falls back to the page)
        response = _get(static, path)
        assert response.status_code == 200
        assert response.headers["cache-control"] == "no-cache"
        assert response.body == chart_preload.preloaded_page(static_dir), path
    bundle = _get(static, "static/js/PlotlyChart.CCC.js")
    assert Path(bundle.path).read_text() == MODULES["PlotlyChart.CCC.js"]


def test_a_folder_not_as_expected_leaves_streamlits_page_unchanged_and_says_so_in_one_line(
    tmp_path, routes, caplog
):
    static_dir = _static(tmp_path, modules={k: v for k, v in MODULES.items() if k != "wrap.EEE.js"})
    assert chart_preload.install()
    with caplog.at_level("WARNING", logger=chart_preload.__name__):
        static = routes.create_streamlit_static_handler(str(static_dir), None)
    assert len(caplog.records) == 1 and "served unchanged" in caplog.records[0].getMessage()
    assert Path(_get(static).path).read_text() == PAGE


def test_the_switch_off_installs_nothing(routes, monkeypatch):
    before = routes.create_streamlit_static_handler
    monkeypatch.setenv(chart_preload.OFF_SWITCH, "0")
    assert not chart_preload.install()
    assert routes.create_streamlit_static_handler is before
