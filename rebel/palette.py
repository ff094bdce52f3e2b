"""The one class palette of the project: Okabe-Ito, colour-blind safe, in sorted class order.

Points use the full colour (darker); decision regions use the same hue mixed with white (lighter), so a point
always reads against its own region. Pure data and string helpers: no plotting, no streamlit.
"""

from __future__ import annotations

# Okabe & Ito (2008), "Color Universal Design"; black is left out (it marks mistakes and boundaries).
OKABE_ITO = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#F0E442",  # yellow
)
REGION_MIX = 0.62  # share of white mixed into a class colour for its decision region
MISTAKE_COLOR = "#000000"
BOUNDARY_COLOR = "#222222"


def _hex_to_rgb(color: str) -> tuple:
    color = color.lstrip("#")
    return tuple(int(color[i : i + 2], 16) for i in (0, 2, 4))


def _rgb_to_hex(rgb) -> str:
    return "#" + "".join(f"{round(c):02X}" for c in rgb)


def lighten(color: str, mix: float = REGION_MIX) -> str:
    """``color`` mixed with white: ``mix`` = 0 keeps it, 1 gives white."""
    return _rgb_to_hex(c + (255 - c) * mix for c in _hex_to_rgb(color))


def darken(color: str, mix: float = 0.25) -> str:
    """``color`` mixed with black: ``mix`` = 0 keeps it, 1 gives black."""
    return _rgb_to_hex(c * (1 - mix) for c in _hex_to_rgb(color))


def class_colors(n_classes: int) -> list:
    """Point colours of classes 0..K-1 (cycling, with a darker shade on each further lap, past 7 classes)."""
    base = len(OKABE_ITO)
    return [
        darken(OKABE_ITO[k % base], 0.3 * (k // base)) if k >= base else OKABE_ITO[k]
        for k in range(n_classes)
    ]


def region_colors(n_classes: int) -> list:
    """Region colours of classes 0..K-1: the point colours, lighter."""
    return [lighten(c) for c in class_colors(n_classes)]
