"""The one palette of the project: class colours (Okabe-Ito, colour-blind safe, in sorted class order) and the
fixed colours of models, methods and marks.

Points use the full colour (darker); decision regions use the same hue mixed with white (lighter), so a point
always reads against its own region. Classes 0-6 take the Okabe-Ito colours, classes 7-13 the same hues 30 %
darker, and classes from 14 on (a CSV may hold up to ``rebel.params.MAX_CLASSES``) golden-angle hues at a
point-like lightness, so every K gives valid, distinct ``#RRGGBB`` strings. Pure data and string helpers: no
plotting, no streamlit.
"""

from __future__ import annotations

import colorsys

import numpy as np

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
SHADE_MIX = 0.3  # share of black in the second lap of the palette (classes 7-13)
REGION_MIX = 0.62  # share of white mixed into a class colour for its decision region
MISTAKE_COLOR = "#000000"
BOUNDARY_COLOR = "#222222"
HALO_COLOR = "#FFFFFF"  # under-stroke that keeps a dark line readable on any region colour

MODEL_COLORS = {"REBEL": "#0072B2", "two-step": "#D55E00"}
BAYES_COLOR = "#555555"
OUTCOME_COLORS = {
    "REBEL cheaper": MODEL_COLORS["REBEL"],
    "tie": "#999999",
    "two-step cheaper": MODEL_COLORS["two-step"],
}
SIGN_COLORS = {1: "#5A5A5A", -1: "#D9D9D9"}  # f_t = +1 / -1 (neutral greys: classes keep their own palette)
METHOD_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
PATH_LINE_COLOR = "#111111"

_GOLDEN = 0.6180339887498949  # hue step of the classes past the two Okabe-Ito laps
_EXTRA_LIGHTNESS = (0.38, 0.30, 0.46)  # HLS lightness of those classes, cycling (dark enough for points)


def hex_to_rgb(color: str) -> tuple:
    """``"#RRGGBB"`` -> ``(r, g, b)`` integers in 0..255."""
    color = color.lstrip("#")
    return tuple(int(color[i : i + 2], 16) for i in (0, 2, 4))


def rgb_to_hex(rgb) -> str:
    """``(r, g, b)`` in 0..255 (rounded, clipped) -> ``"#RRGGBB"``."""
    return "#" + "".join(f"{min(255, max(0, round(c))):02X}" for c in rgb)


def _check_mix(mix: float) -> float:
    if not 0.0 <= mix <= 1.0:
        raise ValueError(f"mix must lie in [0, 1], got {mix!r}: use 0 to keep the colour, 1 for white/black.")
    return mix


def lighten(color: str, mix: float = REGION_MIX) -> str:
    """``color`` mixed with white: ``mix`` = 0 keeps it, 1 gives white."""
    mix = _check_mix(mix)
    return rgb_to_hex(c + (255 - c) * mix for c in hex_to_rgb(color))


def darken(color: str, mix: float = 0.25) -> str:
    """``color`` mixed with black: ``mix`` = 0 keeps it, 1 gives black."""
    mix = _check_mix(mix)
    return rgb_to_hex(c * (1 - mix) for c in hex_to_rgb(color))


def _class_color(k: int) -> str:
    base = len(OKABE_ITO)
    if k < base:
        return OKABE_ITO[k]
    if k < 2 * base:
        return darken(OKABE_ITO[k - base], SHADE_MIX)
    j = k - 2 * base
    hue = (0.07 + j * _GOLDEN) % 1.0
    r, g, b = colorsys.hls_to_rgb(hue, _EXTRA_LIGHTNESS[j % len(_EXTRA_LIGHTNESS)], 0.75)
    return rgb_to_hex((255 * r, 255 * g, 255 * b))


def class_colors(n_classes: int) -> list:
    """Point colours of classes 0..K-1: Okabe-Ito, then its hues 30 % darker, then golden-angle hues."""
    return [_class_color(k) for k in range(int(n_classes))]


def region_colors(n_classes: int) -> list:
    """Region colours of classes 0..K-1: the point colours, lighter."""
    return [lighten(c) for c in class_colors(n_classes)]


def region_rgb(n_classes: int):
    """Region colours as a ``(K, 3)`` uint8 array, for raster images of class-index grids."""
    return np.array([hex_to_rgb(c) for c in region_colors(n_classes)], dtype=np.uint8).reshape(-1, 3)
