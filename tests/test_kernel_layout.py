"""The layout of ``rebel/kernels/``: one module per stage, each small and saying what it holds, and the paper's
equation table mapping every equation to one existing function that has a naive twin in ``tests/naive.py``."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import rebel.kernels as kern

from . import naive

KERNELS = Path(kern.__file__).resolve().parent


def test_every_stage_module_is_small_and_documented():
    modules = sorted(KERNELS.glob("*.py"))
    assert len(modules) >= 10
    for path in modules:
        assert len(path.read_text().splitlines()) <= 500, path.name
        module = importlib.import_module(
            f"rebel.kernels.{path.stem}" if path.stem != "__init__" else "rebel.kernels"
        )
        assert module.__doc__ and len(module.__doc__) > 80, path.name


def _table_rows(doc: str) -> list[tuple[str, list[str]]]:
    """(equation, [function names]) rows of the package docstring's equation tables."""
    rows = []
    for line in doc.splitlines():
        names = re.findall(r"``([\w.]+)``", line)
        equation = line.split("``")[0].strip()
        if names and equation:  # (the stage table's rows start with the module's name)
            rows.append((equation, names))
    return rows


def test_each_paper_equation_maps_to_one_function_with_a_naive_twin():
    doc = kern.__doc__
    assert "Paper equation -> function" in doc
    rows = _table_rows(doc.split("Paper equation -> function")[1].split("Arrays they read and write")[0])
    assert len(rows) == 18 and any("Eq. 3" in eq for eq, _ in rows) and any("S.6" in eq for eq, _ in rows)
    for equation, names in rows:
        first = names[0]
        if first.startswith("rebel."):  # the decomposition and the loss live in Python
            module, _, attr = first.rpartition(".")
            assert callable(getattr(importlib.import_module(module), attr)), equation
            continue
        stage, _, attr = first.partition(".")
        func = getattr(importlib.import_module(f"rebel.kernels.{stage}"), attr)
        assert func is getattr(kern, attr), equation  # one function, exported by the package
        assert hasattr(naive, attr), f"{attr} ({equation}) has no naive twin"
