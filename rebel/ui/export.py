"""Downloads for lectures: the training replay as an animated GIF and the current regions as a PNG, drawn with
numpy and Pillow (no browser; plotly is not used to draw).

Reads class-index grids over cell centres ``grid_xs`` (nx,), ``grid_ys`` (ny,) (row 0 at ``grid_ys[0]``): one
``regions`` (ny, nx) for a PNG, ``staged_regions`` (T + 1, ny, nx) for a GIF, and points as ``(X (N, 2), y_idx
(N,), pred (N,))`` (PNG) or ``(X, y_idx, staged_pred (T + 1, N))`` (GIF). Every picture uses one fixed palette
(region colours, point colours, white, black, grey), so a frame is exact colour indices: no dithering, small files.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from rebel.ui.figures.palette import BOUNDARY_COLOR, class_colors, hex_to_rgb, region_colors
from rebel.ui.figures.replay import check_staged

GIF_SIZE = (480, 480)
GIF_FRAME_MS = 120
LAST_FRAME_MS = 1500  # the final round stays on screen a little longer before the GIF loops
POINT_RADIUS = 3
MAX_PIXELS = 4096  # per side


def _palette(K: int) -> tuple:
    """The fixed GIF/PNG palette and the index of each role in it."""
    colors = region_colors(K) + class_colors(K) + ["#FFFFFF", "#000000", BOUNDARY_COLOR]
    flat = [v for c in colors for v in hex_to_rgb(c)]
    roles = {"region": 0, "point": K, "white": 2 * K, "black": 2 * K + 1, "line": 2 * K + 2}
    return flat + [0] * (768 - len(flat)), roles


def _check_size(size) -> tuple:
    w, h = (int(v) for v in size)
    if not (16 <= w <= MAX_PIXELS and 16 <= h <= MAX_PIXELS):
        raise ValueError(f"size must be (width, height) within 16..{MAX_PIXELS} pixels, got {tuple(size)}.")
    return w, h


class _Canvas:
    """Maps grid coordinates to pixels of a ``size`` picture (the y axis points up, as in the app)."""

    def __init__(self, xs, ys, shape: tuple, size: tuple):
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
        ny, nx = shape
        self.w, self.h = size
        dx, dy = xs[1] - xs[0], ys[1] - ys[0]
        self.x0, self.x1 = xs[0] - dx / 2, xs[-1] + dx / 2
        self.y0, self.y1 = ys[0] - dy / 2, ys[-1] + dy / 2
        self.cols = np.minimum((np.arange(self.w) + 0.5) * nx // self.w, nx - 1).astype(np.intp)
        self.rows = np.minimum((np.arange(self.h) + 0.5) * ny // self.h, ny - 1).astype(np.intp)[::-1]

    def regions(self, grid, offset: int) -> np.ndarray:
        """The grid upscaled to the picture (nearest cell), as palette indices (uint8, (h, w))."""
        return (np.asarray(grid)[np.ix_(self.rows, self.cols)] + offset).astype(np.uint8)

    def pixels(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64).reshape(-1, 2)
        px = (X[:, 0] - self.x0) / (self.x1 - self.x0) * self.w
        py = (self.y1 - X[:, 1]) / (self.y1 - self.y0) * self.h
        return np.column_stack([px, py])


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def _draw_points(draw: ImageDraw.ImageDraw, canvas: _Canvas, points, roles: dict, r: int) -> None:
    """Training points filled with a white rim; test points as rings; a black x on each mistake."""
    for split, (X, y, pred) in points:
        P = canvas.pixels(X)
        for (px, py), k in zip(P, np.asarray(y)):
            box = (px - r, py - r, px + r, py + r)
            if split == "train":
                draw.ellipse(box, fill=roles["point"] + int(k), outline=roles["white"])
            else:
                draw.ellipse(box, outline=roles["point"] + int(k), width=2)
        for px, py in P[np.asarray(pred) != np.asarray(y)]:
            draw.line((px - r, py - r, px + r, py + r), fill=roles["black"], width=1)
            draw.line((px - r, py + r, px + r, py - r), fill=roles["black"], width=1)


def _label(draw: ImageDraw.ImageDraw, text: str, roles: dict, font) -> None:
    """``text`` in the top-left corner on a white box."""
    left, top, right, bottom = draw.textbbox((6, 4), text, font=font)
    draw.rectangle((left - 4, top - 3, right + 4, bottom + 3), fill=roles["white"])
    draw.text((6, 4), text, fill=roles["black"], font=font)


def render_regions(
    grid_xs, grid_ys, regions, n_classes: int, *, points=(), label: str = "", size=GIF_SIZE
) -> Image.Image:
    """One picture ("P" mode): the regions in their light colours, the points on top and ``label`` in a corner.

    points : a sequence of ``(split, (X, y_idx, pred))`` with split "train" (filled) or "test" (rings)
    """
    w, h = _check_size(size)
    flat, roles = _palette(n_classes)
    grid = np.asarray(regions)
    canvas = _Canvas(grid_xs, grid_ys, grid.shape, (w, h))
    img = Image.fromarray(canvas.regions(grid, roles["region"]))
    img.putpalette(flat)  # "L" -> "P": the pixel values are palette indices
    draw = ImageDraw.Draw(img)
    _draw_points(draw, canvas, points, roles, max(2, round(POINT_RADIUS * min(w, h) / 480)))
    if label:
        _label(draw, label, roles, _font(max(12, round(min(w, h) / 24))))
    return img


def _points_at(train, test, t: int | None) -> list:
    out = []
    for split, data in (("train", train), ("test", test)):
        if data is None or len(data[0]) == 0:
            continue
        pred = np.asarray(data[2])
        out.append((split, (data[0], data[1], pred if t is None else pred[t])))
    return out


def regions_png(
    grid_xs, grid_ys, regions, classes, *, train=None, test=None, label="", size=(800, 800)
) -> bytes:
    """The current regions with the data as PNG bytes (``train``/``test``: ``(X, y_idx, pred)`` or None)."""
    img = render_regions(
        grid_xs, grid_ys, regions, len(classes), points=_points_at(train, test, None), label=label, size=size
    )
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def replay_gif(
    grid_xs,
    grid_ys,
    staged_regions,
    classes,
    *,
    size=GIF_SIZE,
    frame_ms: int = GIF_FRAME_MS,
    label: str = "round t = {t} of {T}",
    train=None,
    test=None,
) -> bytes:
    """The training replay as an animated GIF: one frame per round t = 0..T (regions, points, mistakes, a round
    counter from ``label`` with ``{t}`` and ``{T}``), looping, the last round held a little longer.

    train, test : ``(X (N, 2), y_idx (N,), staged_pred (T + 1, N))`` or None
    """
    S = np.asarray(staged_regions)
    T = check_staged(S, train, test)
    frames = [
        render_regions(
            grid_xs,
            grid_ys,
            S[t],
            len(classes),
            points=_points_at(train, test, t),
            label=label.format(t=t, T=T),
            size=size,
        )
        for t in range(T + 1)
    ]
    buf = io.BytesIO()
    durations = [int(frame_ms)] * T + [max(int(frame_ms), LAST_FRAME_MS)]
    frames[0].save(
        buf,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return buf.getvalue()
