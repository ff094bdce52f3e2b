"""Text on slides (``rebel.ui.export``): every name drawn on one line and cut to its box in a few measurements.

A class name or axis title comes from the user (a CSV label, a column name, a link) and may be long or hold line
breaks. ``one_line`` shows every run of line breaks as one space (Pillow refuses to measure a text with a newline,
and a slide's rows have room for one line); ``fit`` cuts a text that does not fit its width, with an ellipsis,
by a binary search on the cut: about log2 of the text's length measurements, each of at most ``width + 1``
characters (a visible character is at least a pixel wide; zero-width ones, such as combining marks, past that
count are cut too), so an 8,000-character name costs about as much as a short one. Pure functions of Pillow; no streamlit here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PIL import ImageFont

ELLIPSIS = "…"
# the characters str.splitlines breaks at: a slide shows each run of them as one space
LINE_BREAKS = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")


def one_line(text) -> str:
    """``text`` as a string with every run of line breaks shown as one space."""
    return LINE_BREAKS.sub(" ", str(text))


def fit(measure: Callable[[str], float], text, width: float) -> str:
    """``text`` on one line (``one_line``), cut with an ellipsis to fit ``width`` pixels as ``measure`` (the
    width of a string in pixels) counts them. The cut is the longest one that fits, found by a binary search:
    at most ``2 + log2(width + 2)`` measurements, however long the text. A box narrower than the ellipsis gets
    the ellipsis alone."""
    text = one_line(text)
    room = max(0, int(width)) + 1  # more characters than this never fit (see the module docstring)
    if len(text) <= room and measure(text) <= width:
        return text
    text = text[:room]
    lo, hi = 0, len(text)  # the longest fitting cut lies in lo..hi (lo = 0: the ellipsis alone)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if measure(text[:mid] + ELLIPSIS) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + ELLIPSIS


def fit_draw(draw, text, font, width: float) -> str:
    """``fit`` with the widths of ``font`` on the Pillow ``draw``."""
    return fit(lambda s: draw.textlength(s, font=font), text, width)


def font(size: float):
    """Pillow's default font at ``size`` pixels (at least 8), or its fixed bitmap font without FreeType."""
    try:
        return ImageFont.load_default(size=max(8, int(size)))
    except (TypeError, OSError):  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()
