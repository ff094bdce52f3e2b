"""The data points of a region view as one transparent PNG, drawn as plotly draws its markers.

A browser draws plotly's markers as one SVG element each: ~1,500 of them take ~70 ms of the ~110 ms a replay
figure takes to draw, on every cost edit, preset and toggle (``python -m benchmarks.bench_plot_draw``). One image
of all the points costs a few ms instead, and the points do not change with the costs, so the image is made once
per dataset and plot size (``points_png`` is pure; ``compute.points_png_cached`` keeps it, keyed by
``points_key``). The traces stay for the hover labels,
with no markers (``mode="none"``).

Shapes follow plotly's marker geometry (``CLASS_SYMBOLS``: a marker of size s has radius r = s / 2 and its
outline is stroked on the shape's edge, mitred), so a point looks the same drawn either way: filled markers with
a thin white outline (training points), hollow ones outlined in their colour (test points). Each marker is a
small stamp, antialiased by drawing it at ``SUPERSAMPLE`` times the resolution; stamps are made for
``PHASES`` x ``PHASES`` sub-pixel offsets so a point sits within 1 / (2 ``PHASES``) px of its place, then
composited in plotly's drawing order (trace by trace, point by point).
"""

from __future__ import annotations

import hashlib
import io
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from rebel.ui.figures.palette import hex_to_rgb

SUPERSAMPLE = 8  # a stamp's drawing resolution per output pixel
PHASES = 4  # sub-pixel offsets of a stamp per axis
_SQRT3 = np.sqrt(3.0)


def _arc(p0, p1, radius: float, n: int = 12) -> list:
    """Points along the circular arc of ``radius`` from ``p0`` to ``p1`` bulging towards the origin (its centre
    lies away from the origin), ``p0`` excluded."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    mid, chord = (p0 + p1) / 2, p1 - p0
    half = np.linalg.norm(chord) / 2
    normal = np.array([-chord[1], chord[0]]) / (2 * half)
    if normal @ mid < 0:
        normal = -normal
    centre = mid + normal * np.sqrt(radius**2 - half**2)
    a0, a1 = (np.arctan2(*(p - centre)[::-1]) for p in (p0, p1))
    a1 = a0 + (a1 - a0 + np.pi) % (2 * np.pi) - np.pi  # the short way round
    return [centre + radius * np.array([np.cos(a), np.sin(a)]) for a in np.linspace(a0, a1, n + 1)[1:]]


def _star_diamond() -> np.ndarray:
    tips = [(-1.4, 0.0), (0.0, 1.4), (1.4, 0.0), (0.0, -1.4)]
    pts = []
    for i, tip in enumerate(tips):
        pts += _arc(tip, tips[(i + 1) % 4], 1.9)
    return np.array(pts)


def _shapes() -> dict:
    """Outline vertices of each marker shape for r = 1, screen coordinates (y down), as plotly defines them."""
    rt, ring = 2 / _SQRT3, np.linspace(0, 2 * np.pi, 64, endpoint=False)
    star = 1.4 * np.array(
        [
            (0.225, -0.309),
            (0.951, -0.309),
            (0.363, 0.118),
            (0.588, 0.809),
            (0.0, 0.382),
            (-0.588, 0.809),
            (-0.363, 0.118),
            (-0.951, -0.309),
            (-0.225, -0.309),
            (0.0, -1.0),
        ]
    )
    h = _SQRT3 / 2
    return {
        "circle": np.column_stack([np.cos(ring), np.sin(ring)]),
        "square": np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)], float),
        "diamond": 1.3 * np.array([(1, 0), (0, 1), (-1, 0), (0, -1)], float),
        "triangle-up": np.array([(-rt, 0.5), (rt, 0.5), (0, -1)]),
        "triangle-down": np.array([(-rt, -0.5), (rt, -0.5), (0, 1)]),
        "triangle-left": np.array([(0.5, -rt), (0.5, rt), (-1, 0)]),
        "triangle-right": np.array([(-0.5, -rt), (-0.5, rt), (1, 0)]),
        "pentagon": np.array([(0.951, -0.309), (0.588, 0.809), (-0.588, 0.809), (-0.951, -0.309), (0, -1)]),
        "hexagon": np.array([(h, -0.5), (h, 0.5), (0, 1), (-h, 0.5), (-h, -0.5), (0, -1)]),
        "star": star,
        "hourglass": np.array([(1, 1), (-1, 1), (1, -1), (-1, -1)], float),
        "star-diamond": _star_diamond(),
    }


SHAPES = _shapes()


def _offset(poly: np.ndarray, d: float) -> np.ndarray:
    """The outline ``poly`` (counter-clockwise or clockwise) moved outwards by ``d`` (inwards if negative) with
    mitred corners, as a stroke of width 2 |d| centred on it reaches: each edge moves along its normal and the
    corners are where the moved edges meet. The hourglass (a self-crossing outline) is taken as its two
    triangles."""
    if len(poly) == 4 and np.allclose(poly, SHAPES["hourglass"]):
        return poly * (1 + d * 3 / (np.sqrt(5) - 1))  # each triangle's inradius is (sqrt 5 - 1) / 3
    area = 0.5 * np.sum(poly[:, 0] * np.roll(poly[:, 1], -1) - np.roll(poly[:, 0], -1) * poly[:, 1])
    sign = 1.0 if area > 0 else -1.0
    edges = np.roll(poly, -1, axis=0) - poly
    normals = sign * np.column_stack([edges[:, 1], -edges[:, 0]]) / np.linalg.norm(edges, axis=1)[:, None]
    prev = np.roll(normals, 1, axis=0)  # the normal of the edge ending at each vertex
    bisector = normals + prev
    scale = d / np.maximum(np.einsum("ij,ij->i", bisector, normals), 1e-9)
    return poly + bisector * scale[:, None]


def _fine(poly: np.ndarray, size: int) -> np.ndarray:
    """``poly`` (output pixel coordinates) filled on a ``size`` x ``size`` output-pixel canvas at ``SUPERSAMPLE``
    times the resolution: a float array of 0 / 1, ``size * SUPERSAMPLE`` fine pixels a side."""
    n = size * SUPERSAMPLE
    canvas = Image.new("L", (n, n), 0)
    # Pillow's pixel k is centred on coordinate k (here pixel k spans [k, k + 1)), and it fills every pixel the
    # edge touches: the outline is drawn half a fine pixel inside, so the coverage matches the area
    fine = _offset(poly, -0.5 / SUPERSAMPLE) * SUPERSAMPLE - 0.5
    ImageDraw.Draw(canvas).polygon([tuple(p) for p in fine], fill=255)
    return np.asarray(canvas, dtype=np.float32) / 255.0


def _coverages(fine: np.ndarray, size: int) -> list:
    """The fraction of each output pixel a shape drawn by ``_fine`` (centred one output pixel right of and below
    a stamp's centre) covers, for each sub-pixel phase: ``[i][j]`` (size - 1) x (size - 1) with the shape moved
    by (j, i) / ``PHASES`` px from the stamp's centre (the fine canvas is moved, not drawn again)."""
    step, n = SUPERSAMPLE // PHASES, (size - 1) * SUPERSAMPLE
    out = []
    for i in range(PHASES):
        row = []
        for j in range(PHASES):
            top, left = SUPERSAMPLE - i * step, SUPERSAMPLE - j * step
            window = fine[top : top + n, left : left + n]
            row.append(window.reshape(size - 1, SUPERSAMPLE, size - 1, SUPERSAMPLE).mean(axis=(1, 3)))
        out.append(row)
    return out


@lru_cache(maxsize=128)
def marker_stamps(symbol: str, radius: float, color: tuple, line: tuple) -> tuple:
    """RGBA stamps (PIL images) of one marker: ``((PHASES, PHASES) stamps, half size)`` for the marker of
    ``symbol`` (``-open``: hollow), ``radius`` (px), fill ``color`` (r, g, b) and ``line`` = (width px, (r, g,
    b)) stroked on its edge; stamp [i][j] has its centre at (half + 0.5 + j / PHASES, half + 0.5 + i / PHASES)."""
    hollow = symbol.endswith("-open")
    width, stroke = line
    half = int(np.ceil(2.0 * radius + width)) + 1
    size = 2 * half + 1
    # drawn once on a canvas one output pixel larger each way, centred one pixel in from the stamp's centre
    shape = SHAPES[symbol.removesuffix("-open")] * radius + (half + 1.5, half + 1.5)
    outer = _coverages(_fine(_offset(shape, width / 2), size + 1), size + 1)
    inner = _coverages(_fine(_offset(shape, -width / 2), size + 1), size + 1) if width > 0 else outer
    fill, stroke = np.asarray(color, np.float32), np.asarray(stroke, np.float32)
    stamps = []
    for i in range(PHASES):
        row = []
        for j in range(PHASES):
            out_ij = outer[i][j]
            in_ij = np.minimum(inner[i][j], out_ij)
            ring = out_ij - in_ij
            if hollow:  # the outline only, in the marker's colour
                rgb, alpha = ring[..., None] * stroke, ring
            else:
                rgb, alpha = in_ij[..., None] * fill + ring[..., None] * stroke, out_ij
            straight = np.where(alpha[..., None] > 0, rgb / np.maximum(alpha[..., None], 1e-6), 0.0)
            rgba = np.concatenate([straight, alpha[..., None] * 255.0], axis=-1)
            row.append(Image.fromarray(np.clip(np.rint(rgba), 0, 255).astype(np.uint8), "RGBA"))
        stamps.append(row)
    return stamps, half


_NAMED = {"white": "#ffffff", "black": "#000000"}


def _hex_rgb(color: str) -> tuple:
    """(r, g, b) of ``"#rrggbb"`` (or white, black: the outlines' names)."""
    c = _NAMED.get(str(color).lower(), str(color))
    if len(c) != 7 or not c.startswith("#"):
        raise ValueError(f"color must be '#rrggbb', 'white' or 'black', got {color!r}.")
    return hex_to_rgb(c)


def points_image(layers, x_range, y_range, shape_px: tuple, scale: float = 1.0) -> Image.Image:
    """A PIL RGBA image (W x H) of the points of ``layers`` drawn over the data rectangle
    ``x_range`` x ``y_range`` at ``shape_px`` = (W, H) pixels (row 0 at the top, y up), ``scale`` pixels to a
    screen px (2: sharp on a high-density screen).

    ``layers``: in drawing order, ``(X (n, 2), symbol, size px, color "#rrggbb", line)`` with ``line`` =
    ``(width px, "#rrggbb")`` (the outline; a hollow ``-open`` symbol is its outline in ``color``).
    """
    W, H = (int(v) for v in shape_px)
    if W < 1 or H < 1:
        raise ValueError(f"shape_px must be positive pixel sizes (W, H), got {shape_px}.")
    (x0, x1), (y0, y1) = (tuple(map(float, r)) for r in (x_range, y_range))
    drawn = [
        (
            np.asarray(X, np.float64).reshape(-1, 2),
            *marker_stamps(
                symbol, float(size) / 2 * scale, _hex_rgb(color), (float(width) * scale, _hex_rgb(stroke))
            ),
        )
        for X, symbol, size, color, (width, stroke) in layers
    ]
    pad = 1 + max((half for _, _, half in drawn), default=0)  # room for a stamp over the edge (cropped after)
    canvas = Image.new("RGBA", (W + 2 * pad, H + 2 * pad), (0, 0, 0, 0))
    for X, stamps, half in drawn:
        # the stamp's top-left pixel and sub-pixel phase of each point (pixel centres at +0.5)
        px = np.rint(((X[:, 0] - x0) / (x1 - x0) * W + pad - 0.5) * PHASES).astype(np.int64)
        py = np.rint(((y1 - X[:, 1]) / (y1 - y0) * H + pad - 0.5) * PHASES).astype(np.int64)
        left, top = px // PHASES - half, py // PHASES - half
        n = 2 * half + 1
        keep = (left >= 0) & (top >= 0) & (left + n <= W + 2 * pad) & (top + n <= H + 2 * pad)
        for x, y, i, j in zip(
            left[keep].tolist(),
            top[keep].tolist(),
            (py[keep] % PHASES).tolist(),
            (px[keep] % PHASES).tolist(),
        ):
            canvas.alpha_composite(stamps[i][j], dest=(x, y))
    return canvas.crop((pad, pad, pad + W, pad + H))


def points_png(layers, x_range, y_range, shape_px: tuple, scale: float = 1.0) -> bytes:
    """``points_image`` as PNG bytes (a palette PNG, ``palette_image``), its top row first."""
    image = points_image(layers, x_range, y_range, shape_px, scale)
    buf = io.BytesIO()
    palette_image(image).save(buf, "PNG", compress_level=PNG_LEVEL)
    return buf.getvalue()


PALETTE = 256  # colours of a points image's palette (PNG's largest)
PNG_LEVEL = 6  # zlib's level: the image is made once per dataset and plot size, then sent with every figure


def palette_image(image: Image.Image) -> Image.Image:
    """``image`` (RGBA) with a palette of at most ``PALETTE`` colours: exact when it has no more colours than that,
    else the colours nearest its own (Pillow's octree). The figure carries this PNG in every chart the page
    sends, and the browser runs over the chart's whole text several times on every new chart (Streamlit's theme
    colours): a palette PNG is ~4 times smaller than the RGBA one (airport at 1280x720: ~73 against ~290 kB), for
    a mean change of ~1 in 765 (r + g + b over white) on the antialiased edges' ~4,700 colours."""
    image = image.convert("RGBA")
    if image.getcolors(PALETTE) is None:  # more colours than a palette holds
        return image.quantize(PALETTE, method=Image.Quantize.FASTOCTREE)
    a = np.asarray(image)
    colours, index = np.unique(a.reshape(-1, 4).view(np.uint32), return_inverse=True)
    rgba = colours.view(np.uint8).reshape(-1, 4)
    out = Image.fromarray(index.reshape(a.shape[:2]).astype(np.uint8), "P")
    out.putpalette(rgba.tobytes(), rawmode="RGBA")
    return out


def points_key(layers, x_range, y_range, shape_px, scale) -> str:
    """A digest of everything ``points_png`` draws from (the points, their markers, the plot's extent and size):
    the key of a cached image."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((tuple(map(float, x_range)), tuple(map(float, y_range)), tuple(shape_px), scale)).encode())
    for X, symbol, size, color, line in layers:
        h.update(np.ascontiguousarray(X, np.float64).tobytes())
        h.update(repr((symbol, size, color, line)).encode())
    return h.hexdigest()
