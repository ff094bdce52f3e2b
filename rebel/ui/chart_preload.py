"""Streamlit's page asks for the chart bundle in its ``<head>``: the server that ``rebel.ui.launch`` starts serves
Streamlit's ``index.html`` with a ``<link rel="modulepreload">`` of the Plotly chart's code (``PlotlyChart.<hash>.js``,
about 4.7 MB) and of the chunks it imports that the page does not already preload, and a module script that
imports the bundle once the page shows the app's script running on the server.

Left alone, the browser fetches that bundle only when React mounts the first chart, after the server's first
messages and after the lazily loaded elements before the chart (each one's code fetched in turn); the fetch then
takes about 0.4 s, and evaluating the bundle (one task of about 1 s on the page's main thread) follows. Preloaded,
it is fetched while Streamlit's own code loads; started at the server's first message, its evaluation overlaps
the server's run of the script.

The bundle's hashed name is found at start-up in Streamlit's static folder, and the page is served by wrapping the
static-file handler Streamlit's Starlette server builds for its own assets. Whatever does not match what this
expects (no such bundle, another server, no ``</head>``) leaves the page unchanged and logs one line: the app
works the same without it. ``REBEL_CHART_PRELOAD=0`` turns it off, ``REBEL_CHART_PRELOAD=fetch`` keeps the
preloads without the early start (for before/after measurements: ``benchmarks.bench_chart_preload``).

Measured there (first visits at 1280x720 in presentation mode, each arm's visits interleaved with the other's,
``benchmarks/results/chart_preload_2026-12-02.txt``), as paired differences against Streamlit's page unchanged:
at load 7.1-8.8 on 2 cores (10 rounds), the regions painted 309 ms sooner in the median (98 % interval -671 to
+72 ms; sooner in 8 of 10 rounds; medians 3130 against 3455 ms), and the page's waiting before the paint (the
paint less the main thread's frames of 100 ms or more) 338 ms shorter (253-725 ms; in 10 of 10). At load
16.6-21.6 the waiting was 627 ms shorter (254-894 ms; 9 of 10), but the paint's differences varied by seconds
with the CPU work (interval -2233 to +1494 ms). Preloading also the first screen's other element chunks was tried
and dropped: no gain seen, and more main-thread work in long frames before the paint in 8 of 8 rounds.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re
from pathlib import Path

LOG = logging.getLogger(__name__)
OFF_SWITCH = "REBEL_CHART_PRELOAD"  # "0": Streamlit's page unchanged; "fetch": the preloads without the start
BUNDLE = "PlotlyChart"  # the chart element's lazily loaded chunk: static/js/PlotlyChart.<hash>.js
JS_DIR = ("static", "js")  # under Streamlit's static folder; the page refers to it as "./static/js/..."
# One static import at the start of a bundled ES module: `import{a as b}from"./x.js";` or `import"./x.js";`
_IMPORT = re.compile(r"""\s*import\s*(?:[^;"'`()]*?\bfrom\s*)?["'](\./[\w.\-]+\.js)["']\s*;?""")
_PRELUDE = 65536  # bytes read from each module to find its imports (they come first in a bundled chunk)
_HREF = re.compile(r"""\b(?:href|src)\s*=\s*["']\./((?:[\w\-]+/)*[\w.\-]+\.js)["']""")


def static_imports(path: Path) -> list[str]:
    """The file names a bundled ES module at ``path`` imports statically (its leading import statements), in
    order; dynamic ``import()`` calls are not followed."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read(_PRELUDE)
    names, pos = [], 0
    while match := _IMPORT.match(text, pos):
        names.append(match.group(1)[2:])
        pos = match.end()
    return names


def find_bundle(js_dir: Path) -> Path:
    """The one ``PlotlyChart.<hash>.js`` in ``js_dir``; ``LookupError`` when there is none or more than one."""
    found = sorted(js_dir.glob(f"{BUNDLE}.*.js"))
    if len(found) != 1:
        raise LookupError(f"expected one {BUNDLE}.<hash>.js in {js_dir}, found {[p.name for p in found]}")
    return found[0]


def preload_paths(static_dir: Path, page: str) -> list[str]:
    """Paths (relative to ``static_dir``, as the page writes them) of the chart bundle and every chunk it imports,
    directly or not, that ``page`` (Streamlit's ``index.html``) does not already load or preload; the bundle
    first. ``LookupError`` if the bundle or one of its imports is missing."""
    js_dir = static_dir.joinpath(*JS_DIR)
    bundle = find_bundle(js_dir)
    on_page = set(_HREF.findall(page))
    prefix = "/".join(JS_DIR) + "/"
    order, seen, todo = [], {bundle.name}, [bundle.name]
    while todo:
        name = todo.pop(0)
        path = js_dir / name
        if not path.is_file():
            raise LookupError(f"{bundle.name} imports {name}, which is not in {js_dir}")
        if prefix + name not in on_page:
            order.append(prefix + name)
        for dep in static_imports(path):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return order


def with_preload(page: str, paths: list[str]) -> str:
    """``page`` with one ``<link rel="modulepreload">`` per path just before ``</head>`` (written as Streamlit
    writes its own: relative and ``crossorigin``, so the chart's ``import()`` finds the same module).
    ``ValueError`` when the page has no ``</head>``."""
    end = page.find("</head>")
    if end < 0:
        raise ValueError("Streamlit's index.html has no </head>")
    links = "".join(
        f'    <link rel="modulepreload" crossorigin href="./{html.escape(p, quote=True)}">\n' for p in paths
    )
    return page[:end] + links + page[end:]


# Evaluating the bundle is one task of ~1 s on the main thread. It starts when the app's script starts running on
# the server (the page is then waiting for the server's messages), so it overlaps the server's run. Left to the
# chart, it would start only once React has mounted the lazily loaded elements before it, one after the other.
_START = """    <script type="module">
      const page = location.pathname.replace(/\\/+$/, "").split("/").pop();
      const running = () => document.querySelector('[data-testid="stApp"][data-test-script-state="running"]');
      const watch = new MutationObserver(() => {
        if (!running()) return;
        watch.disconnect();
        setTimeout(() => import("./BUNDLE").catch(() => {}), 0);
      });
      if (!SKIP.includes(page)) {
        watch.observe(document.documentElement, {
          subtree: true, childList: true, attributes: true, attributeFilter: ["data-test-script-state"],
        });
        setTimeout(() => watch.disconnect(), 60000);  // no run seen by then: the chart loads it when it needs it
      }
    </script>
"""
# Pages (the last part of their URL) that draw no chart: opened first, they are not kept busy by the bundle.
NO_CHART_PAGES = ("Lessons",)


def with_start(page: str, bundle: str) -> str:
    """``page`` with a module script before ``</head>`` that imports ``bundle`` (a path as the page writes it)
    once the server reports the app's script running (``_START``), on every page but ``NO_CHART_PAGES``."""
    end = page.find("</head>")
    if end < 0:
        raise ValueError("Streamlit's index.html has no </head>")
    script = _START.replace("BUNDLE", html.escape(bundle, quote=True))
    script = script.replace("SKIP", html.escape(json.dumps(list(NO_CHART_PAGES)), quote=False))
    return page[:end] + script + page[end:]


def preloaded_page(static_dir: Path) -> bytes:
    """Streamlit's ``index.html`` in ``static_dir`` with the chart bundle's preloads and its early start (only
    the preloads when ``REBEL_CHART_PRELOAD=fetch``), as served."""
    page = (static_dir / "index.html").read_text(encoding="utf-8")
    paths = preload_paths(static_dir, page)
    page = with_preload(page, paths)
    if os.environ.get(OFF_SWITCH, "").strip() != "fetch":
        page = with_start(page, paths[0])
    return page.encode("utf-8")


def _serve_page(static, index_path: str, body: bytes) -> None:
    """Make the Starlette ``StaticFiles`` app ``static`` answer a full GET of ``index_path`` (the root page, a
    page's URL, any path it falls back to the page for) with ``body`` instead of the file."""
    from starlette.responses import FileResponse, Response

    index_real = os.path.realpath(index_path)
    original = static.get_response

    async def get_response(path, scope):
        response = await original(path, scope)
        if (
            isinstance(response, FileResponse)
            and response.status_code == 200
            and scope.get("method") == "GET"
            and os.path.basename(response.path) == "index.html"
            and os.path.realpath(response.path) == index_real
        ):
            page = Response(body, media_type="text/html")
            page.headers["Cache-Control"] = response.headers.get("cache-control", "no-cache")
            return page
        return response

    static.get_response = get_response


def install() -> bool:
    """Serve Streamlit's page with the chart bundle's preloads from now on (call before the server starts);
    True if installed. Anything unexpected leaves the page as Streamlit serves it and logs one line."""
    if os.environ.get(OFF_SWITCH, "1").strip() == "0":
        LOG.info("chart bundle preload off (%s=0)", OFF_SWITCH)
        return False
    try:
        from streamlit.web.server.starlette import starlette_static_routes as routes

        build = routes.create_streamlit_static_handler
    except Exception as exc:  # noqa: BLE001 (another Streamlit: its page as it is, said in one line)
        LOG.warning("chart bundle preload not installed, Streamlit's page served unchanged: %r", exc)
        return False

    def create_streamlit_static_handler(directory, base_url):
        static = build(directory, base_url)
        try:
            _serve_page(static, os.path.join(directory, "index.html"), preloaded_page(Path(directory)))
        except Exception as exc:  # noqa: BLE001 (the page as Streamlit serves it, said in one line)
            LOG.warning("chart bundle preload not installed, Streamlit's page served unchanged: %r", exc)
        return static

    routes.create_streamlit_static_handler = create_streamlit_static_handler
    return True
