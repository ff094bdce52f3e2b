"""Every reader of user data takes its names through the one door, ``rebel.names.clean_name``: checked on the
source of ``rebel/``, ``pages/`` and ``app.py``, and on the readers' behaviour.

The source check: a function that parses user data (``PARSERS``: ``pd.read_csv``, ``csv.reader``, ``json.loads``,
pydantic's ``model_validate``...) must reach the door, i.e. call ``clean_name``/``clean_names`` itself or call
a function that does (followed by name through every scanned file, as far as it goes). A function that reads
only the project's own files (``sample_data/``, ``docs/``) is listed in ``OWN_FILES`` with the reason. The
pydantic schemas of session files and links reach the door through their ``Name`` type, whose validator is
``clean_name`` (checked below). What the check cannot see (a reader that calls the door on one name and builds
another without it) the behaviour tests below cover, one per kind of name.
"""

from __future__ import annotations

import ast
import base64
import functools
import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from rebel.data.mixture import validate_mixture
from rebel.names import MAX_NAME_CHARS, clean_name, clean_names, escaped
from rebel.ui import config as cf

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(p for p in (ROOT / "rebel").rglob("*.py"))]
)
DOORS = {"clean_name", "clean_names"}
# (module alias, function) pairs that turn bytes or text a user gave into tables, objects or names
PARSERS = {
    ("pd", "read_csv"),
    ("pd", "read_table"),
    ("pd", "read_json"),
    ("pd", "read_excel"),
    ("csv", "reader"),
    ("csv", "DictReader"),
    ("json", "loads"),
    ("json", "load"),
    ("np", "loadtxt"),
    ("np", "genfromtxt"),
}
LIBRARIES = {"pd", "np", "csv", "json", "io", "os", "sys", "re", "st", "zlib", "base64", "unicodedata"}
PARSER_METHODS = {"model_validate", "model_validate_json"}  # pydantic
SCHEMAS = "rebel/ui/schemas.py"  # its model_validate calls reach the door through the Name type
OWN_FILES = {
    ("rebel/data/samples.py", "load_preset"): "a preset's JSON in sample_data/, written by the project",
    ("rebel/ui/playground/thumbs.py", "preset_thumbnail"): "a preset's points in sample_data/",
    ("rebel/ui/vs_two_step.py", "load_regime_map"): "docs/regime_map.json, written by the project",
    ("rebel/experiments/honest.py", "parse_variant"): "a variant's settings the project named (key=value)",
    (
        "rebel/ui/config.py",
        "unpack_query",
    ): "a link parameter's base64/zlib/JSON to a dict, no names built; its "
    "callers check what it returns (decode_query and short_link through Config.from_dict, whose schema's Name "
    "type is the door; uploads.decode_link reads a content key, numbers and the two plotted column names, which "
    "pass clean_name in plane_columns.check_columns; the file's names come from the stored file through "
    "read_points_csv)",
    ("rebel/ui/playground/browser_costs.py", "_on_edit"): "the page script's message after a cost edit it "
    "computed: a K x K matrix of numbers (checked: shape, finite, range), the scene's key and flags; no names",
}


def _called(node: ast.Call) -> tuple:
    func = node.func
    if isinstance(func, ast.Attribute):
        root = func.value.id if isinstance(func.value, ast.Name) else None
        return root, func.attr
    if isinstance(func, ast.Name):
        return None, func.id
    return None, None


def _functions(tree: ast.Module):
    """Every function of the module (methods and nested ones too), and the module's own statements."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
    yield (
        "<module>",
        ast.Module(
            body=[s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.ClassDef))], type_ignores=[]
        ),
    )


def _calls(fn: ast.AST):
    """The calls made by ``fn``'s own body (a nested function's calls are its own)."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not fn:
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(ast.iter_child_nodes(node))


@functools.cache
def _facts(path: str, source: str) -> tuple:
    """``(callees, parsing)`` of one file: function name -> the names it calls, and (path, function, line,
    parser) for every call of a parser."""
    callees: dict = {}  # functions of the same name merged
    parsing = []
    for name, fn in _functions(ast.parse(source)):
        names = callees.setdefault(name, set())
        for call in _calls(fn):
            root, attr = _called(call)
            if root not in LIBRARIES:  # pd.read_csv is not the project's read_csv
                names.add(attr)
            if (root, attr) in PARSERS or attr in PARSER_METHODS:
                if attr in PARSER_METHODS and path == SCHEMAS:
                    names.add("clean_name")  # the schemas' Name type validates with clean_name
                else:
                    parsing.append((path, name, call.lineno, f"{root}.{attr}" if root else attr))
    return callees, parsing


def scan(sources: dict) -> list:
    """``sources``: path -> source text. Returns one line per parsing function that does not reach the door."""
    callees: dict = {}
    parsing = []
    for path, source in sources.items():
        names, parsed = _facts(path, source)
        for name, called in names.items():
            callees.setdefault(name, set()).update(called)
        parsing += parsed
    reach = set(DOORS)
    grew = True
    while grew:
        grew = False
        for name, names in callees.items():
            if name not in reach and names & reach:
                reach.add(name)
                grew = True
    return [
        f"{path}:{line}: {name}() parses user data with {parser} but never reaches clean_name"
        for path, name, line, parser in parsing
        if name not in reach and (path, name) not in OWN_FILES
    ]


@functools.cache
def _sources() -> tuple:
    return tuple((str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in FILES)


def _tree_sources() -> dict:
    return dict(_sources())


def test_every_reader_of_user_data_reaches_the_name_door():
    found = scan(_tree_sources())
    assert not found, "A reader builds names without rebel.names.clean_name:\n" + "\n".join(found)


def test_the_scan_covers_the_readers():
    sources = _tree_sources()
    assert {"rebel/data/files.py", "rebel/cli.py", "rebel/io.py", SCHEMAS, "rebel/ui/config.py"} <= set(
        sources
    )
    for path, name in OWN_FILES:  # an entry for a function that is gone or no longer parses is stale
        parsed = [p for p in scan({path: sources[path]}) if f" {name}() " in p]
        assert parsed or name in {n for n, _ in _functions(ast.parse(sources[path]))}, (path, name)


def test_the_schemas_name_type_is_the_door():
    tree = ast.parse((ROOT / SCHEMAS).read_text(encoding="utf-8"))
    name = next(
        n
        for n in tree.body
        if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "Name" for t in n.targets)
    )
    assert "AfterValidator(clean_name)" in ast.unparse(name.value)


BYPASSES = {
    "a new CSV reader": "import pandas as pd\ndef labels(path):\n    return list(pd.read_csv(path)['label'])\n",
    "a JSON reader": "import json\ndef names(text):\n    return json.loads(text)['classes']\n",
    "a csv.reader": "import csv\ndef header(f):\n    return next(csv.reader(f))\n",
    "a helper that does not clean": (
        "import json\ndef helper(x):\n    return x\ndef read(text):\n    return helper(json.loads(text))\n"
    ),
}


@pytest.mark.parametrize("source", BYPASSES.values(), ids=BYPASSES.keys())
def test_the_check_catches(source):
    assert scan({"rebel/planted.py": source})


def test_the_check_catches_the_door_removed_from_the_csv_reader():
    """The planted bypass of the report: ``_parse_table`` without its clean_name call."""
    sources = _tree_sources()
    text = sources["rebel/data/files.py"]
    door = 'df.columns = [clean_name(c.strip(), "CSV column name") for c in df.columns]'
    assert door in text
    sources["rebel/data/files.py"] = text.replace(door, "df.columns = [c.strip() for c in df.columns]")
    assert any("_parse_table()" in p for p in scan(sources))


GOOD = [
    "import json\nfrom rebel.names import clean_name\ndef read(t):\n    return clean_name(json.loads(t))\n",
    "import csv\ndef clean(x):\n    return clean_names(x)\ndef read(f):\n    return clean(next(csv.reader(f)))\n",
]


@pytest.mark.parametrize("source", GOOD)
def test_the_check_allows(source):
    assert not scan({"rebel/planted.py": source})


# ------------------------------------------------------------------------------------------------ the door itself
HOSTILE = {
    "newline": "a\nb",
    "carriage return": "a\rb",
    "escape": "x\x1b[2J\x1b[H",
    "osc title": "y\x1b]0;PWNED\x07",
    "C1": "a\x9bb",
    "right-to-left override": "\u202eevil",
    "isolate": "a\u2066b",
    "line separator": "a\u2028b",
    "NUL": "a\x00",
}


@pytest.mark.parametrize("value", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_door_refuses_control_characters_naming_the_escaped_value(value):
    with pytest.raises(ValueError, match="one line of visible text") as exc:
        clean_name(value, "class label")
    message = str(exc.value)
    assert escaped(value) in message and "class label" in message
    assert not any(c in message for c in value if not c.isprintable())  # the message itself is safe to print


def test_the_door_strips_when_asked_and_normalises_and_caps():
    assert clean_name("a\nb\u202e\tc", strip=True) == "a b c"
    assert clean_name("e\u0301") == "\u00e9"  # NFC: one class however "é" was typed
    assert clean_name("x" * MAX_NAME_CHARS) == "x" * MAX_NAME_CHARS
    with pytest.raises(ValueError, match=f"at most {MAX_NAME_CHARS} characters") as exc:
        clean_name("x" * 4_000_000, "class label")
    assert len(str(exc.value)) < 300  # the value is shortened in the message
    with pytest.raises(ValueError, match="only control characters"):
        clean_name("\x1b\x07", strip=True)
    assert clean_names(np.array(["a", "b", "a", 3], dtype=object)).tolist() == ["a", "b", "a", 3]


def test_the_links_limit_is_the_doors():
    from rebel.schema import MAX_LABEL_CHARS
    from rebel.ui import schemas

    assert schemas.MAX_NAME_CHARS is MAX_NAME_CHARS and MAX_LABEL_CHARS == MAX_NAME_CHARS


# ------------------------------------------------------------------------------- every reader, through the door
def _csv(label: str = "a", column: str = "x") -> bytes:
    def q(text: str) -> str:
        return '"' + text.replace('"', '""') + '"'

    rows = "".join(f"{i},{i % 3},{q(label) if i % 2 else 'b'}\n" for i in range(12))
    return f"{q(column)},y,label\n{rows}".encode()


def _doc(**changes) -> dict:
    """The airport preset's configuration as a session document, its first cluster's class or its preset name
    changed."""
    doc = cf.preset_config("airport").to_dict()
    if "cls" in changes:
        doc["spec"]["mixture"][0]["class"] = changes["cls"]
        doc.pop("classes", None)
    if "preset" in changes:
        doc["preset"] = changes["preset"]
    return doc


def _link(doc: dict) -> str:
    raw = json.dumps(doc).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


def _two_clusters(name: str) -> list:
    return [
        {"class": name, "mean_x": 0, "mean_y": 0, "std_x": 1, "std_y": 1},
        {"class": "b", "mean_x": 1, "mean_y": 1, "std_x": 1, "std_y": 1},
    ]


READERS = {
    "CSV upload label": lambda v: cf.parse_dataset_csv(_csv(label=v)),
    "CSV upload column": lambda v: cf.parse_dataset_csv(_csv(column=v)),
    "link class": lambda v: cf.decode_query(_link(_doc(cls=v))),
    "link preset": lambda v: cf.decode_query(_link(_doc(preset=v))),
    "session file": lambda v: cf.parse_session_json(json.dumps(_doc(cls=v)).encode()),
    "class tree": lambda v: cf.parse_tree_json(json.dumps({v: "g", "b": "g"})),
    "cluster table": lambda v: validate_mixture(_two_clusters(v)),
}


@pytest.mark.parametrize("reader", READERS, ids=READERS.keys())
@pytest.mark.parametrize("value", ["a\nb", "\u202eevil", "x\x1b[2J", "n" * (MAX_NAME_CHARS + 1)])
def test_every_reader_refuses_a_bad_name_with_the_doors_message(reader, value):
    with pytest.raises(ValueError) as exc:
        READERS[reader](value)
    message = str(exc.value)
    assert "one line of visible text" in message or f"at most {MAX_NAME_CHARS} characters" in message, message
    assert not any(c in message for c in "\n\x1b\u202e")


def test_a_uploaded_files_own_name_is_stripped_not_refused():
    from rebel.data import read_csv

    assert read_csv(_csv(), name="points\u202e.csv\n").name == "points.csv"
