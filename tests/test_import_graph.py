"""The import graph of ``rebel/`` has no circle: data flows one way, and a module never needs one above it.

The graph is read from the source (``ast``), every import counted, those inside functions too (a deferred import
is still a dependency: it only hides the circle until the call). A package's ``__init__`` is a node like any
module; ``from . import x`` names the submodule ``x`` when there is one, and importing ``a.b.c`` is an edge to
``a.b.c`` alone (Python importing the parents first is no design choice of the importer).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_names(package_dir: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module under ``package_dir`` (its parent is the import root)."""
    names = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> list[str]:
    """The modules of ``known`` an import statement in ``module`` reaches (the longest known prefix of each)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        names = [f"{source}.{a.name}" if f"{source}.{a.name}" in known else source for a in node.names]
    found = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.append(name)
    return found


@functools.cache
def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its source (module level or in a function)."""
    modules = module_names(package_dir)
    known = set(modules)
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges.update(_targets(name, path.name == "__init__.py", node, known))
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (each holds at least one circle), as a path that
    walks one circle of it: [a, b, ..., a]."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v: str) -> None:  # Tarjan's algorithm; the graphs here are small, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_one_circle(graph, group) for group in groups]


def _one_circle(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A circle through the group's first module, found by a breadth-first walk inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & group):
                if w == start:
                    return [*paths[v], start]
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no circle through {start} in {sorted(group)}")


def test_rebel_has_no_import_circle():
    graph = import_graph(ROOT / "rebel")
    assert len(graph) > 40 and "rebel.kernels.tree" in graph["rebel.kernels"]
    assert "rebel.fitting" in graph["rebel.estimator"]  # the edges are read at all
    found = circles(graph)
    assert not found, "import circles in rebel/: " + "; ".join(" -> ".join(c) for c in found)


def test_nothing_in_the_fit_path_imports_the_estimator_or_the_warm_up():
    """The estimator is the top of the fit; the warm-up sits above it (it fits through the estimator)."""
    graph = import_graph(ROOT / "rebel")
    below = [
        "rebel.fitting",
        "rebel.booster",
        "rebel.variants",
        "rebel.grower",
        "rebel.binning",
        "rebel.costs",
    ]
    below += [m for m in graph if m.startswith("rebel.kernels")]
    for module in below:
        assert not graph[module] & {"rebel.estimator", "rebel.warmup"}, module


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_circle_through_a_deferred_import_is_found(tmp_path):
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "top.py": "from .mid import run\n",
            "mid.py": "from . import low\n",
            "low.py": "def f():\n    from .top import g  # deferred, still an edge\n",
            "side.py": "import pkg.low\n",
        },
    )
    graph = import_graph(pkg)
    assert graph["pkg.top"] == {"pkg.mid"} and graph["pkg.mid"] == {"pkg.low"}
    assert graph["pkg.side"] == {"pkg.low"}
    assert circles(graph) == [["pkg.low", "pkg.top", "pkg.mid", "pkg.low"]]


def test_a_package_and_its_submodules_form_no_circle_of_their_own(tmp_path):
    """``__init__`` importing its stages and a stage importing a sibling (``from .common import x``, ``from .
    import common``) is no circle; a stage importing a name of the package's ``__init__`` is."""
    files = {
        "__init__.py": "",
        "k/__init__.py": "from .a import f\nfrom . import b\n",
        "k/a.py": "from .common import C\n",
        "k/b.py": "from . import common\n",
        "k/common.py": "C = 1\n",
    }
    assert circles(import_graph(_package(tmp_path, files))) == []
    files["k/common.py"] = "from . import f\n"  # the name f of the package: an edge to k's __init__
    found = circles(import_graph(_package(tmp_path / "again", files)))
    assert found == [["pkg.k", "pkg.k.a", "pkg.k.common", "pkg.k"]]
