"""The one palette of the project: class colours and marker shapes (in sorted class order) and the fixed colours
of models, methods and marks.

Points use the full colour (darker); decision regions use the same hue mixed with white (lighter), so a point
always reads against its own region. Classes 0-11 take ``CLASS_PALETTE``: orange first (Okabe-Ito), then colours
chosen greedily so that every prefix of K = 3..12 region tints stays apart under normal vision and simulated
protanopia, deuteranopia and tritanopia (min CIEDE2000 >= 5.5, >= 16 up to K = 4; ``rebel.ui.figures.cvd``,
tests/test_palette_cvd.py). Classes from 12 on (a CSV may hold up to ``rebel.params.MAX_CLASSES``) take
golden-angle hues at a point-like lightness, so every K gives valid ``#RRGGBB`` strings. Each class also has its
own marker shape (``class_symbols``), so no class depends on colour alone. Pure data and string helpers: no
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
CLASS_PALETTE = (
    "#E69F00",  # orange (Okabe-Ito)
    "#1F59F9",  # blue
    "#1FF9CE",  # aquamarine
    "#F91F59",  # crimson
    "#7C6403",  # olive brown
    "#04A3AE",  # teal
    "#C0AB59",  # sand
    "#318171",  # sea green
    "#EBF91F",  # yellow
    "#843FA6",  # purple
    "#59C090",  # mint
    "#A6763F",  # ochre
)
"""Class colours 0-11 (see the module docstring: each prefix is checked under colour-vision deficiencies)."""
CLASS_SYMBOLS = (
    "circle",
    "square",
    "diamond",
    "triangle-up",
    "triangle-down",
    "pentagon",
    "hexagon",
    "star",
    "hourglass",
    "triangle-left",
    "triangle-right",
    "star-diamond",
)
"""Plotly marker shapes of classes 0-11 (cycling after); test points use their ``-open`` variant."""
REGION_MIX = 0.42
POINT_MAX_LIGHTNESS = 75.0  # palette colours lighter than this (L*) are darkened for points
POINT_DARKEN = 0.4  # share of white mixed into a class colour for its decision region
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
    if k < len(CLASS_PALETTE):
        return CLASS_PALETTE[k]
    j = k - len(CLASS_PALETTE)
    hue = (0.07 + j * _GOLDEN) % 1.0
    r, g, b = colorsys.hls_to_rgb(hue, _EXTRA_LIGHTNESS[j % len(_EXTRA_LIGHTNESS)], 0.75)
    return rgb_to_hex((255 * r, 255 * g, 255 * b))


def class_symbols(n_classes: int, hollow: bool = False) -> list:
    """Marker shapes of classes 0..K-1 (``-open`` variants when ``hollow``: the test points)."""
    return [
        CLASS_SYMBOLS[k % len(CLASS_SYMBOLS)] + ("-open" if hollow else "") for k in range(int(n_classes))
    ]


def _lightness(color: str) -> float:
    """CIE lightness L* (0..100) of an sRGB colour."""
    c = np.array(hex_to_rgb(color)) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    y = float(lin @ np.array([0.2126729, 0.7151522, 0.0721750]))
    return 116 * np.cbrt(y) - 16 if y > (6 / 29) ** 3 else y * (29 / 3) ** 3


def class_colors(n_classes: int) -> list:
    """Point colours of classes 0..K-1: ``CLASS_PALETTE`` (then golden-angle hues), light ones darkened
    (``POINT_DARKEN`` above L* = ``POINT_MAX_LIGHTNESS``) so points stand out on their own region's tint."""
    out = []
    for k in range(int(n_classes)):
        c = _class_color(k)
        out.append(darken(c, POINT_DARKEN) if _lightness(c) > POINT_MAX_LIGHTNESS else c)
    return out


def region_colors(n_classes: int) -> list:
    """Region colours of classes 0..K-1: the palette colours mixed with white (``REGION_MIX``)."""
    return [lighten(_class_color(k)) for k in range(int(n_classes))]


def region_rgb(n_classes: int):
    """Region colours as a ``(K, 3)`` uint8 array, for raster images of class-index grids."""
    return np.array([hex_to_rgb(c) for c in region_colors(n_classes)], dtype=np.uint8).reshape(-1, 3)
