"""Cost-matrix files of ``python -m rebel`` (``--cost-matrix``): a CSV grid ``C[truth, prediction]`` (K rows of K
numbers in sorted class order, or a header ``truth,<class>,...`` and one row per true class in any order), or a
JSON file: a preset (``sample_data/*.json``), a session file of the app, or a bare K x K list; named classes are
matched by name and pass the name door (``rebel.names``). Every refusal names the file, the bad cell and the fix."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np

from .cli_args import MAX_BYTES, check_size
from .costs import validate_cost_matrix
from .data.files import _shorten
from .names import clean_name


def _number(cell, where: str) -> float:
    if isinstance(cell, bool) or not isinstance(cell, (str, int, float)):
        raise ValueError(f"{where}: {cell!r} is not a number; costs are numbers >= 0.")  # noqa: TRY004 (file content)
    try:
        value = float(cell)
    except ValueError:
        raise ValueError(f"{where}: {cell.strip()!r} is not a number; costs are numbers >= 0.") from None
    if not math.isfinite(value):
        raise ValueError(f"{where}: {str(cell).strip()!r} is not finite; costs are finite numbers >= 0.")
    return value


def _named_grid(path, header: list, rows: dict, names: list) -> list:
    """Rows and columns of a cost grid named by class (``rows``: name -> cells), in the order of ``names``; the
    names pass the name door (``rebel.names``: refused with control characters or over 200 characters)."""
    what = f"--cost-matrix {path}: the class name"
    header, rows = [clean_name(h, what) for h in header], {clean_name(n, what): r for n, r in rows.items()}
    if sorted(header) != sorted(names) or sorted(rows) != sorted(names):
        raise ValueError(
            f"--cost-matrix {path} names the classes {_shorten(header)} (columns) and {_shorten(sorted(rows))} "
            f"(rows); the data has {names}. Name each class once in the header and once per row."
        )
    order = [header.index(n) for n in names]
    grid = []
    for n in names:
        cells = rows[n]
        if len(cells) != len(names):
            raise ValueError(f"--cost-matrix {path}: row {n!r} has {len(cells)} costs; give {len(names)}.")
        grid.append([_number(cells[j], f"--cost-matrix {path} row {n!r}") for j in order])
    return grid


def _csv_grid(path, text: str, names: list) -> list:
    rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    if not rows:
        raise ValueError(f"--cost-matrix {path} is empty; give {len(names)} rows of {len(names)} costs.")
    try:  # a header line starts with a name (e.g. "truth") or an empty cell; a grid starts with a number
        float(rows[0][0])
    except ValueError:
        header = [c.strip() for c in rows[0][1:]]
        return _named_grid(path, header, {r[0].strip(): r[1:] for r in rows[1:]}, names)
    return [[_number(c, f"--cost-matrix {path} line {i + 1}") for c in r] for i, r in enumerate(rows)]


def _json_grid(path, text: str, names: list) -> list:
    """A cost grid from a JSON preset or session file (``cost_matrix`` with ``classes``, or the classes of its
    ``spec.mixture``) or a bare list of rows."""
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" ({exc.msg} at line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise ValueError(
            f"--cost-matrix {path} is not valid JSON{where}; give a preset or session file (e.g. "
            "sample_data/airport.json) or a CSV grid."
        ) from None
    if isinstance(obj, dict):
        if not isinstance(obj.get("cost_matrix"), list):
            raise ValueError(  # noqa: TRY004 (a file's content, not an argument's type)
                f"--cost-matrix {path} is JSON without a 'cost_matrix' list; give a preset or session file "
                "(e.g. sample_data/airport.json) or a CSV grid."
            )
        grid, labels = obj["cost_matrix"], obj.get("classes")
        if labels is None and isinstance(obj.get("spec"), dict) and "mixture" in obj["spec"]:
            from .data.mixture import mixture_classes

            labels = list(mixture_classes(obj["spec"]["mixture"]))
    elif isinstance(obj, list):
        grid, labels = obj, None
    else:
        raise ValueError(  # noqa: TRY004
            f"--cost-matrix {path} holds a JSON {type(obj).__name__}; give a K x K list of costs."
        )
    if not all(isinstance(r, list) for r in grid):
        raise ValueError(f"--cost-matrix {path}: 'cost_matrix' must be a list of rows of numbers.")
    if labels is None:
        return [[_number(c, f"--cost-matrix {path} row {i + 1}") for c in r] for i, r in enumerate(grid)]
    if not isinstance(labels, list) or not all(isinstance(c, (str, int)) for c in labels):
        raise ValueError(f"--cost-matrix {path}: 'classes' must be a list of class names.")
    labels = [str(c) for c in labels]
    if len(labels) != len(grid):
        raise ValueError(
            f"--cost-matrix {path} names {len(labels)} classes but has {len(grid)} cost rows; give one row per class."
        )
    return _named_grid(path, labels, dict(zip(labels, grid, strict=True)), names)


def read_cost_matrix(path: Path, classes, max_bytes: int = MAX_BYTES) -> np.ndarray:
    """The cost matrix of a CSV or JSON file, rows and columns in the order of ``classes`` (sorted labels)."""
    check_size(Path(path), max_bytes, "--cost-matrix")
    try:
        text = Path(path).read_bytes().decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        raise ValueError(f"--cost-matrix {path} is not UTF-8 text; give a CSV or JSON file.") from None
    names = [str(c) for c in classes]
    k = len(names)
    is_json = text.lstrip()[:1] in ("{", "[")
    grid = _json_grid(path, text, names) if is_json else _csv_grid(path, text, names)
    if len(grid) != k or any(len(r) != k for r in grid):
        raise ValueError(
            f"--cost-matrix {path} is {len(grid)} x {max(map(len, grid), default=0)}; the data has {k} classes "
            f"{_shorten(names)}, so give a {k} x {k} grid."
        )
    return validate_cost_matrix(np.array(grid, dtype=float), n_classes=k, name="--cost-matrix")
