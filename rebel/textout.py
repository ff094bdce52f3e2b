"""The one way out for text: what the command line prints and every CSV file the project writes.

- ``terminal(text)``: text for a terminal, every control character shown as an escape (``\\x1b``, ``\\u202e``;
  ``rebel.names.escaped``) except the line breaks the program writes itself, so data can neither clear the
  screen, retitle the window nor reverse a line. ``say`` prints through it; ``rebel.cli`` and
  ``rebel.__main__`` print nothing any other way (tests/test_text_exit.py checks the source).
- ``csv_text(frame)``: a table as CSV text, with OWASP's rule against spreadsheet formulas: a text cell (or
  column name) starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading single quote,
  unless it is a plain decimal number ("-3", "+1.5e3"), which a spreadsheet reads as that number. Numeric
  columns are written as they are, so negative numbers stay numbers and floats keep every digit. A CSV written
  here and read back therefore keeps the quote on such a label (the price of opening it safely). No other code
  of the project writes CSV (``to_csv``/``csv.writer``; tests/test_text_exit.py).
"""

from __future__ import annotations

import re
import sys

import pandas as pd

from .names import escaped

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def terminal(text) -> str:
    """``text`` as a terminal may show it: control characters escaped, except the line feed."""
    return escaped(text, keep="\n")


def say(*parts, file=None, end: str = "\n", flush: bool = False) -> None:
    """``print`` through ``terminal``: the parts joined by spaces, escaped, then ``end`` (the program's own)."""
    stream = sys.stdout if file is None else file
    print(terminal(" ".join(str(p) for p in parts)), file=stream, end=end, flush=flush)


def neutralised(cell):
    """One cell as a spreadsheet may open it: text starting like a formula gets a leading ``'``."""
    if isinstance(cell, str) and cell.startswith(FORMULA_START) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def _safe_column(col: pd.Series) -> pd.Series:
    if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        return col
    return col.map(neutralised)


def csv_text(frame: pd.DataFrame, **options) -> str:
    """``frame`` as CSV text (no index, ``\\n`` line ends, floats in full), its text cells and column names
    neutralised (see the module docstring). ``options`` go to ``DataFrame.to_csv`` (e.g. ``float_format``)."""
    safe = pd.DataFrame({i: _safe_column(frame.iloc[:, i]) for i in range(frame.shape[1])}, index=frame.index)
    safe.columns = [neutralised(str(c)) for c in frame.columns]
    options = {"index": False, "lineterminator": "\n", **options}
    return safe.to_csv(**options)
