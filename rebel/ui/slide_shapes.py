"""Marker shapes on slides (``rebel.ui.export``): plotly's marker names drawn as Pillow polygons, so a slide's
points have the shapes of the app's plots. No streamlit here.
"""

from __future__ import annotations

import math


def shape(name: str, cx: float, cy: float, r: float):
    """Polygon of a plotly marker shape name (``-open`` ignored) around (cx, cy), or None for a circle."""
    base = name.removesuffix("-open")

    def ring(n, rot=0.0, radii=(r,)):
        return [
            (cx + radii[i % len(radii)] * math.sin(rot + 2 * math.pi * i / n),
             cy - radii[i % len(radii)] * math.cos(rot + 2 * math.pi * i / n))
            for i in range(n)
        ]  # fmt: skip

    shapes = {
        "square": lambda: ring(4, math.pi / 4, (r * 1.25,)),
        "diamond": lambda: ring(4, 0.0, (r * 1.3,)),
        "triangle-up": lambda: ring(3, 0.0, (r * 1.35,)),
        "triangle-down": lambda: ring(3, math.pi, (r * 1.35,)),
        "triangle-left": lambda: ring(3, -math.pi / 2, (r * 1.35,)),
        "triangle-right": lambda: ring(3, math.pi / 2, (r * 1.35,)),
        "pentagon": lambda: ring(5, 0.0, (r * 1.15,)),
        "hexagon": lambda: ring(6, math.pi / 6, (r * 1.12,)),
        "star": lambda: ring(10, 0.0, (r * 1.45, r * 0.6)),
        "star-diamond": lambda: ring(8, 0.0, (r * 1.4, r * 0.5)),
        "hourglass": lambda: [(cx - r, cy - r), (cx + r, cy - r), (cx - r, cy + r), (cx + r, cy + r)],
    }
    return shapes[base]() if base in shapes else None


def marker(draw, name: str, cx: float, cy: float, r: float, fill, outline, width: int = 1) -> None:
    poly = shape(name, cx, cy, r)
    if poly is None:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=width)
    else:
        draw.polygon(poly, fill=fill, outline=outline, width=width)
