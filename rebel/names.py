"""The one door for names: every name a user supplies (class labels, column names, file names, the names in links,
session files and model files) passes ``clean_name`` (or ``clean_names`` for a column of them) before the project
keeps it.

A name is one line of plain text: at most ``MAX_NAME_CHARS`` characters (what a link may hold), in Unicode NFC
(so "é" typed two ways is one class), without control characters: C0 (newlines and tabs included), DEL, C1, the
line and paragraph separators U+2028/U+2029, and the bidirectional overrides and isolates U+202A-U+202E,
U+2066-U+2069 (which make a name show reversed, "Trojan Source"). ``strip=False`` refuses such a name with a
ValueError naming it (escaped, shortened) and the fix; ``strip=True`` removes them (a newline or tab becomes a
space) and refuses only what is still bad (too long, or nothing left). What each reader does:

- refused (the user can fix the file, and a silent change could merge two classes): CSV uploads and the CLI's
  CSV readers (labels, column names, a cost grid's class names), session files and links (``rebel.ui.schemas``),
  the Playground's cluster table (``rebel.data.mixture``), model files (``rebel.schema``);
- stripped (a label the user does not edit): an uploaded file's own name.

``escaped`` is the display form of any text: each control character shown as a ``\\x1b``/``\\u202e`` escape
(the terminal's escaper, ``rebel.textout.terminal``, and the messages here use it).
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pandas as pd

MAX_NAME_CHARS = 200  # a class, column, preset or file name (a link's limit: one source of truth)
SHOWN_CHARS = 40  # characters of a refused name quoted in a message

# C0 and DEL, C1, line/paragraph separators, bidi embeddings/overrides (U+202A-U+202E) and isolates (U+2066-U+2069)
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SPACE_LIKE = re.compile("[\t\n\r\x0b\x0c\x1c-\x1f\x85\u2028\u2029]")
_KIND = {
    **dict.fromkeys("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", "a line break"),
    **dict.fromkeys("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", "a text-direction control"),
}


def _escape_one(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text, keep: str = "") -> str:
    """``text`` with every control character (``CONTROL``) but those in ``keep`` shown as an escape:
    ``"x\\x1b[2J"`` for ESC, ``"\\u202e"`` for the right-to-left override. Everything else is unchanged."""
    if keep:
        return CONTROL.sub(lambda m: m.group() if m.group() in keep else _escape_one(m), str(text))
    return CONTROL.sub(_escape_one, str(text))


def shown(value, limit: int = SHOWN_CHARS) -> str:
    """A name quoted for a message: escaped, and cut to ``limit`` characters with its length when longer."""
    text = str(value)
    if len(text) > limit:
        return f"'{escaped(text[:limit])}…' ({len(text):,} characters)"
    return f"'{escaped(text)}'"


def clean_name(value, what: str = "name", *, strip: bool = False) -> str:
    """``value`` (text) as a name the project keeps: NFC, no control characters, at most ``MAX_NAME_CHARS``
    characters; surrounding spaces are kept (the readers strip cells themselves). ``strip``: remove control
    characters (line breaks and tabs become a space) and surrounding spaces instead of refusing them. Raises
    ValueError naming ``what``, the value (escaped) and the fix."""
    if not isinstance(value, str):
        raise ValueError(f"{what} is {type(value).__name__} {shown(value)}; a name is text.")  # noqa: TRY004
    if len(value) > 4 * MAX_NAME_CHARS:  # refused before any work (NFC composes 2 or 3 characters into 1)
        _too_long(value, what)
    text = unicodedata.normalize("NFC", value)
    bad = CONTROL.search(text)
    if bad and strip:
        text = CONTROL.sub("", _SPACE_LIKE.sub(" ", text)).strip()
        if not text:
            raise ValueError(f"{what} {shown(value)} holds only control characters; give it a visible name.")
    elif bad:
        char = bad.group()
        kind = _KIND.get(char, "a control character")
        raise ValueError(
            f"{what} {shown(value)} holds {kind} ({_escape_one(bad)}); a name is one line of visible text. "
            "Remove the character (retype the name, or save the file again without it)."
        )
    if len(text) > MAX_NAME_CHARS:
        _too_long(value, what)
    return text


def _too_long(value: str, what: str) -> None:
    raise ValueError(
        f"{what} '{escaped(value[:SHOWN_CHARS])}…' is {len(value):,} characters long; names are at most {MAX_NAME_CHARS} "
        "characters. Shorten it."
    )


def clean_names(values, what: str = "name", *, strip: bool = False) -> np.ndarray:
    """``clean_name`` of every text value of a column (an object array back, other values unchanged); each
    distinct value is checked once (``pandas.factorize``), so N rows of few classes cost few checks."""
    arr = np.asarray(values, dtype=object)
    codes, uniques = pd.factorize(arr.reshape(-1))
    cleaned = np.array(
        [clean_name(v, what, strip=strip) if isinstance(v, str) else v for v in uniques] + [None],
        dtype=object,
    )
    out = cleaned[codes]  # code -1 (a missing value) picks the last entry: put the original back
    missing = codes == -1
    out[missing] = arr.reshape(-1)[missing]
    return out.reshape(arr.shape)
