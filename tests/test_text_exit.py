"""One way out for text (``rebel.textout``), checked on the source and on the hostile payloads.

- The command line and the engine it runs (``CLI_FILES``) print nothing but through ``say`` or ``terminal``: no ``print(``, and a
  ``.write(`` or ``.exit(`` to a stream only of a ``terminal(...)`` text (literals allowed). Files it writes
  (``fh``) are not terminals.
- No code of the project writes CSV but ``rebel/textout.py``: no ``.to_csv(``, ``csv.writer``/``DictWriter`` or
  ``np.savetxt`` anywhere else in ``rebel/``, ``pages/``, ``app.py`` or ``benchmarks/``.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rebel.textout import csv_text, neutralised, say, terminal

ROOT = Path(__file__).resolve().parent.parent
# the command line and everything it runs: the engine, without the app (rebel/ui/ draws through Streamlit)
CLI_FILES = sorted(
    str(p.relative_to(ROOT))
    for p in (ROOT / "rebel").rglob("*.py")
    if "ui" not in p.relative_to(ROOT).parts and p.name != "textout.py"
)
WRITER = "rebel/textout.py"
CSV_FILES = sorted(
    str(p.relative_to(ROOT))
    for p in [
        ROOT / "app.py",
        *(ROOT / "pages").glob("*.py"),
        *(ROOT / "rebel").rglob("*.py"),
        *(ROOT / "benchmarks").rglob("*.py"),
    ]
)
FILE_HANDLES = {"fh", "path_or_buffer"}  # files the program writes (not a terminal)
PAYLOADS = [
    "x\x1b[2J\x1b[H",
    "y\x1b]0;PWNED\x07",
    '=HYPERLINK("https://evil.example","x")',
    "+SUM(1)",
]


def _safe(node: ast.AST) -> bool:
    """Text fit for a terminal: a literal, ``terminal(...)``, or a sum or choice of those."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "terminal"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _safe(node.left) and _safe(node.right)
    if isinstance(node, ast.IfExp):
        return _safe(node.body) and _safe(node.orelse)
    return False


def _receiver(node: ast.Attribute) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def terminal_problems(source: str, path: str = "<source>") -> list:
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        where = f"{path}:{node.lineno}: {ast.unparse(node)[:100]}"
        if isinstance(func, ast.Name) and func.id == "print":
            out.append(f"{where}: print (use say)")
        elif isinstance(func, ast.Attribute) and func.attr == "write" and _receiver(func) not in FILE_HANDLES:
            if not all(_safe(a) for a in node.args):
                out.append(f"{where}: write of text not passed through terminal()")
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "exit"
            and len(node.args) > 1
            and not _safe(node.args[1])
        ):
            out.append(f"{where}: exit message not passed through terminal()")
    return out


def csv_problems(source: str, path: str = "<source>") -> list:
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            root = _receiver(node.func)
            if name == "to_csv" or (root == "csv" and name in {"writer", "DictWriter"}) or name == "savetxt":
                out.append(
                    f"{path}:{node.lineno}: {ast.unparse(node)[:100]} (write CSV with textout.csv_text)"
                )
    return out


@pytest.mark.parametrize("path", CLI_FILES)
def test_the_command_line_prints_only_through_the_escaper(path):
    found = terminal_problems((ROOT / path).read_text(encoding="utf-8"), path)
    assert not found, "Text reaching the terminal unescaped:\n" + "\n".join(found)


def test_the_scan_covers_the_command_line():
    assert {"rebel/cli.py", "rebel/__main__.py", "rebel/warmup.py", "rebel/experiments/commands.py"} <= set(
        CLI_FILES
    )


def test_no_csv_is_written_but_by_the_one_writer():
    found = [
        p
        for path in CSV_FILES
        if path != WRITER
        for p in csv_problems((ROOT / path).read_text(encoding="utf-8"), path)
    ]
    assert not found, "CSV written outside rebel.textout.csv_text:\n" + "\n".join(found)
    assert csv_problems((ROOT / WRITER).read_text(encoding="utf-8"))  # the writer itself is seen


@pytest.mark.parametrize(
    "source",
    [
        "print(name)",
        "print('fixed')",  # even a literal: say() is the one way out
        "sys.stderr.write(line)",
        "self.stream.write('\\r' + line + end)",
        "self.exit(2, f'error: {message}')",
    ],
)
def test_the_terminal_check_catches(source):
    assert terminal_problems(source)


@pytest.mark.parametrize(
    "source",
    [
        "say(name)",
        "self.stream.write(('\\r' if tty else '') + terminal(line) + '\\n')",
        "sys.stdout.write(terminal(text[a:b]))",
        "fh.write(text)",
        "self.exit(2, terminal(message) + '\\n')",
    ],
)
def test_the_terminal_check_allows(source):
    assert not terminal_problems(source)


@pytest.mark.parametrize(
    "source",
    [
        "df.to_csv(path)",
        "frame.to_csv(index=False)",
        "csv.writer(fh)",
        "csv.DictWriter(fh, f)",
        "np.savetxt(p, a)",
    ],
)
def test_the_csv_check_catches(source):
    assert csv_problems(source)


# ------------------------------------------------------------------------------------------------- the payloads
@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_terminal_escaper_shows_control_characters_as_escapes(payload):
    shown = terminal(f"class {payload}\nnext line")
    assert "\x1b" not in shown and "\x07" not in shown
    assert shown.endswith("\nnext line")  # the program's own line break stays
    if "\x1b" in payload:
        assert "\\x1b" in shown
    stream = io.StringIO()
    say("fit", payload, file=stream)
    assert stream.getvalue() == terminal(f"fit {payload}") + "\n"


def test_the_escaper_escapes_carriage_returns_and_bidi_controls():
    assert terminal("a\rb\u202ec\u2066") == "a\\x0db\\u202ec\\u2066"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_csv_writer_neutralises_formulas_and_keeps_numbers(payload):
    frame = pd.DataFrame({"x": [-1.5, 2.25], "n": [-3, 4], "label": [payload, "-7"], payload: ["a", "@b"]})
    text = csv_text(frame)
    back = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert back["x"].tolist() == ["-1.5", "2.25"] and back["n"].tolist() == [
        "-3",
        "4",
    ]  # numbers stay numbers
    assert back["label"].tolist() == [neutralised(payload), "-7"]  # a number in a text column is a number
    assert back.iloc[:, 3].tolist() == ["a", "'@b"]
    for cell in [*back["label"], *back.columns]:
        assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
    if payload[0] in "=+":
        assert back["label"][0] == "'" + payload
    else:
        assert back["label"][0] == payload  # an escape sequence is not a formula (the name door refuses it)


def test_the_csv_writer_keeps_every_digit():
    x = np.array([0.1 + 0.2, -1e-300, 123456789.123456789])
    back = pd.read_csv(io.StringIO(csv_text(pd.DataFrame({"x": x}))))
    assert back["x"].to_numpy().tolist() == x.tolist()
