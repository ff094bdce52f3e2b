"""A lecture slide drawn with numpy and Pillow (no browser; plotly is not used to draw): a title, the regions plot
with its axes (ticks and axis titles) and the points, and beside it the numbers of the round (t, the test costs of
REBEL, the two-step method and the Bayes rule, REBEL's training cost), a class legend (region tint, point colour,
marker shape and name of each class) and the cost matrix as an inset table. ``slide_frames`` yields one slide per
round; ``rebel.ui.export`` encodes them as PNG, GIF and MP4 files. Pure functions: no streamlit here.

Reads class-index grids over cell centres ``grid_xs`` (nx,), ``grid_ys`` (ny,) (row 0 at ``grid_ys[0]``) staged as
``staged_regions`` (T + 1, ny, nx), and points as ``(X (N, 2), y_idx (N,), staged_pred (T + 1, N))``. Colours and
marker shapes come from ``rebel.ui.figures.palette``. Every picture uses one fixed palette (region colours, point
colours, white, black, greys), so a frame is exact colour indices: no dithering, small files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from rebel.ui.figures import palette
from rebel.ui.figures.palette import BOUNDARY_COLOR, class_colors, hex_to_rgb, region_colors
from rebel.ui.figures.replay import check_staged
from rebel.ui.slide_shapes import marker as _marker
from rebel.ui.slide_text import fit_draw as _fit
from rebel.ui.slide_text import font as _font

WIDE = (1920, 1080)
SQUARE = (1080, 1080)
SLIDE_SIZES = {"16:9 (1920x1080)": WIDE, "square (1080x1080)": SQUARE}
TITLE = "REBEL: minimum-risk regions under your costs"
GIF_FRAME_MS = 120
LAST_FRAME_MS = 1500  # the final round stays on screen a little longer before the GIF loops
MAX_GIF_FRAMES = 101  # more rounds than this: evenly spaced rounds (always t = 0 and t = T)
POINT_RADIUS = 7  # at 1080 px height
MIN_PIXELS, MAX_PIXELS = 480, 4096  # per side
GRID_GREY = "#BBBBBB"


# --------------------------------------------------------------------------------------------------- numbers


def staged_costs(cost_matrix, y_idx, staged_pred) -> np.ndarray:
    """Mean cost ``C[truth, prediction]`` per round: ``(T + 1,)`` from ``staged_pred`` (T + 1, N)."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    y, S = np.asarray(y_idx, dtype=np.intp), np.asarray(staged_pred, dtype=np.intp)
    if len(y) == 0:
        return np.full(S.shape[0], np.nan)
    return C[y[None, :], S].mean(axis=1)


def round_numbers(cost_matrix, *, train=None, test=None, two_step_test=None, bayes=None) -> dict:
    """The numbers every frame shows, for t = 0..T at once: REBEL's test and training cost, the two-step method's
    test cost (each ``(T + 1,)`` or None) and the Bayes rule's test cost (a float or None).

    train, test : ``(X, y_idx, staged_pred (T + 1, N))`` of REBEL or None; two_step_test : the two-step method's
    staged test predictions ``(T + 1, N_test)`` or None (needs ``test``).
    """
    out = {"REBEL test": None, "two-step test": None, "REBEL train": None, "Bayes": None}
    if test is not None and len(test[1]):
        out["REBEL test"] = staged_costs(cost_matrix, test[1], test[2])
        if two_step_test is not None:
            out["two-step test"] = staged_costs(cost_matrix, test[1], two_step_test)
    if train is not None and len(train[1]):
        out["REBEL train"] = staged_costs(cost_matrix, train[1], train[2])
    if bayes is not None:
        out["Bayes"] = float(bayes)
    return out


def _fmt(value) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{float(value):.3f}"


def frame_lines(numbers: dict, t: int, T: int) -> list:
    """The numbers block of round t as ``(label, value)`` rows (the first is the round)."""

    def at(key):
        return None if numbers[key] is None else numbers[key][t]

    return [
        ("round t", f"{t} of {T}"),
        ("test cost per point", ""),
        ("  REBEL", _fmt(at("REBEL test"))),
        ("  two-step", _fmt(at("two-step test"))),
        ("  Bayes rule", _fmt(numbers["Bayes"])),
        ("train cost (REBEL)", _fmt(at("REBEL train"))),
    ]


# --------------------------------------------------------------------------------------------------- drawing


def _check_size(size) -> tuple:
    try:
        w, h = (int(v) for v in size)
    except (TypeError, ValueError):
        raise ValueError(f"size must be (width, height) in pixels, got {size!r}; e.g. {WIDE}.") from None
    if not (MIN_PIXELS <= w <= MAX_PIXELS and MIN_PIXELS <= h <= MAX_PIXELS):
        raise ValueError(
            f"size must be (width, height) within {MIN_PIXELS}..{MAX_PIXELS} pixels, got {tuple(size)}; "
            f"use {WIDE} or {SQUARE}."
        )
    return w, h


def class_markers(n_classes: int) -> list:
    """Marker shape names of classes 0..K-1 from the palette (plotly's names): the same shapes as the plots."""
    return list(palette.class_symbols(n_classes))


def _palette(K: int) -> tuple:
    """The fixed palette of every frame and the index of each role in it."""
    colors = region_colors(K) + class_colors(K) + ["#FFFFFF", "#000000", BOUNDARY_COLOR, GRID_GREY]
    flat = [v for c in colors for v in hex_to_rgb(c)]
    roles = {
        "region": 0,
        "point": K,
        "white": 2 * K,
        "black": 2 * K + 1,
        "line": 2 * K + 2,
        "grey": 2 * K + 3,
    }
    return flat + [0] * (768 - len(flat)), roles


def nice_ticks(lo: float, hi: float, n: int = 7) -> np.ndarray:
    """About ``n`` round tick values inside [lo, hi] (steps of 1, 2 or 5 times a power of ten)."""
    span = hi - lo
    if not np.isfinite(span) or span <= 0:
        return np.array([lo])
    raw = span / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks = np.arange(first, hi + step * 1e-9, step)
    return np.round(ticks, 10)


@dataclass(frozen=True)
class Layout:
    """Pixel boxes ``(left, top, right, bottom)`` of one slide's parts."""

    size: tuple
    scale: float
    title: tuple
    plot: tuple  # the square regions plot (inside the axes)
    numbers: tuple
    legend: tuple
    inset: tuple


def slide_layout(size, n_classes: int) -> Layout:
    """Where the title, the plot and the side panel (numbers, legend, cost matrix) go on a ``size`` slide."""
    w, h = _check_size(size)
    s = min(w, h) / 1080
    title_h, left, bottom, gap = round(90 * s), round(130 * s), round(105 * s), round(30 * s)
    wide = w >= 1.3 * h  # 16:9: everything beside the plot; squarer: the cost matrix goes under it
    panel_w = round(max(0.34 * w, 360 * s)) if wide else round(max(0.3 * w, 320 * s))
    under = 0 if wide else round(0.25 * h)
    side = max(64, min(w - left - panel_w - 2 * gap, h - title_h - bottom - gap - under))
    top = title_h + max(0, (h - title_h - bottom - under - side) // 2)
    plot = (left, top, left + side, top + side)
    px0, px1 = left + side + 2 * gap, w - gap
    row = round(34 * s)
    numbers = (px0, title_h, px1, title_h + 6 * row + round(10 * s))
    legend_rows = min(n_classes, 12)
    legend = (px0, numbers[3] + gap, px1, numbers[3] + gap + (legend_rows + 1) * row)
    inset = (px0, legend[3] + gap, px1, h - gap) if wide else (gap, top + side + bottom, w - gap, h - gap)
    return Layout((w, h), s, (0, 0, w, title_h), plot, numbers, legend, inset)


class _Canvas:
    """Maps grid coordinates to the pixels of the plot box (the y axis points up, as in the app)."""

    def __init__(self, xs, ys, shape: tuple, box: tuple):
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
        ny, nx = shape
        self.box = box
        self.w, self.h = box[2] - box[0], box[3] - box[1]
        dx = xs[1] - xs[0] if len(xs) > 1 else 1.0
        dy = ys[1] - ys[0] if len(ys) > 1 else 1.0
        self.x0, self.x1 = xs[0] - dx / 2, xs[-1] + dx / 2
        self.y0, self.y1 = ys[0] - dy / 2, ys[-1] + dy / 2
        self.cols = np.minimum((np.arange(self.w) + 0.5) * nx // self.w, nx - 1).astype(np.intp)
        self.rows = np.minimum((np.arange(self.h) + 0.5) * ny // self.h, ny - 1).astype(np.intp)[::-1]

    def regions(self, grid, offset: int) -> np.ndarray:
        """The grid upscaled to the plot box (nearest cell), as palette indices (uint8, (h, w))."""
        return (np.asarray(grid)[np.ix_(self.rows, self.cols)] + offset).astype(np.uint8)

    def px(self, x) -> np.ndarray:
        return self.box[0] + (np.asarray(x, dtype=np.float64) - self.x0) / (self.x1 - self.x0) * self.w

    def py(self, y) -> np.ndarray:
        return self.box[1] + (self.y1 - np.asarray(y, dtype=np.float64)) / (self.y1 - self.y0) * self.h


def _text_up(img: Image.Image, text: str, font, center: tuple, ink: int) -> None:
    """``text`` written bottom-to-top (a y axis title) centred on ``center``."""
    probe = ImageDraw.Draw(img)
    right, bottom = probe.textbbox((0, 0), text, font=font)[2:]
    mask = Image.new("L", (right + 2, bottom + 2), 0)
    ImageDraw.Draw(mask).text((0, 0), text, fill=255, font=font)
    mask = mask.rotate(90, expand=True).point(lambda v: 255 if v > 127 else 0).convert("1")
    img.paste(ink, (round(center[0] - mask.width / 2), round(center[1] - mask.height / 2)), mask)


def _axes(img, draw, canvas: _Canvas, lay: Layout, roles: dict, titles: tuple) -> None:
    s = lay.scale
    tick_font, title_font = _font(24 * s), _font(28 * s)
    x0, y0, x1, y1 = lay.plot
    tick = round(10 * s)
    for v in nice_ticks(canvas.x0, canvas.x1):
        p = float(canvas.px(v))
        draw.line((p, y1, p, y1 + tick), fill=roles["black"], width=max(1, round(2 * s)))
        draw.text((p, y1 + tick + 2), f"{v:g}", fill=roles["black"], font=tick_font, anchor="mt")
    for v in nice_ticks(canvas.y0, canvas.y1):
        p = float(canvas.py(v))
        draw.line((x0 - tick, p, x0, p), fill=roles["black"], width=max(1, round(2 * s)))
        draw.text((x0 - tick - 4, p), f"{v:g}", fill=roles["black"], font=tick_font, anchor="rm")
    x_title, y_title = (_fit(draw, v, title_font, x1 - x0) for v in titles)  # user column names
    draw.text(((x0 + x1) / 2, y1 + round(48 * s)), x_title, fill=roles["black"], font=title_font, anchor="mt")
    _text_up(img, y_title, title_font, (x0 - round(100 * s), (y0 + y1) / 2), roles["black"])


def _legend(draw, lay: Layout, classes, roles: dict) -> None:
    s, (x0, y0, x1, y1) = lay.scale, lay.legend
    K = len(classes)
    head = _font(28 * s)
    draw.text((x0, y0), _fit(draw, "classes", head, x1 - x0), fill=roles["black"], font=head)
    shown = min(K, 12)
    row = (y1 - y0) / (shown + 1)
    font = _font(min(26 * s, row * 0.8))
    markers = class_markers(K)
    for k in range(shown):
        cy = y0 + row * (k + 1.5)
        sw = row * 0.9
        more = k == 11 and K > 12  # the last row counts the classes left out
        if not more:
            draw.rectangle(
                (x0, cy - sw / 2, x0 + sw * 1.6, cy + sw / 2), fill=roles["region"] + k, outline=roles["line"]
            )
            _marker(draw, markers[k], x0 + sw * 0.8, cy, sw * 0.28, roles["point"] + k, roles["white"])
        name = f"… and {K - 11} more" if more else classes[k]
        draw.text(
            (x0 + sw * 1.6 + 12 * s, cy),
            _fit(draw, name, font, x1 - x0 - sw * 1.6 - 12 * s),
            fill=roles["black"],
            font=font,
            anchor="lm",
        )


def _inset(draw, lay: Layout, classes, cost_matrix, roles: dict) -> None:
    """The cost matrix as a table: rows = truth, columns = prediction, a colour bar beside each class name."""
    s, (x0, y0, x1, y1) = lay.scale, lay.inset
    C = np.asarray(cost_matrix, dtype=np.float64)
    K = C.shape[0]
    head = _font(28 * s)
    draw.text(
        (x0, y0), _fit(draw, "costs C[truth, prediction]", head, x1 - x0), fill=roles["black"], font=head
    )
    top = y0 + round(40 * s)
    label_w = min((x1 - x0) * 0.3, 150 * s)
    cell_w = min((x1 - x0 - label_w) / K, 150 * s)
    cell_h = min((y1 - top) / (K + 1), 44 * s)
    if cell_h < 6:
        return
    font = _font(min(24 * s, cell_h * 0.7, cell_w / 3))
    bar = max(3, round(6 * s))
    for j in range(K):  # column heads: predictions
        cx = x0 + label_w + cell_w * j
        draw.rectangle((cx + 1, top + cell_h - bar, cx + cell_w - 1, top + cell_h), fill=roles["point"] + j)
        draw.text(
            (cx + cell_w / 2, top + (cell_h - bar) / 2),
            _fit(draw, classes[j], font, cell_w - 4),
            fill=roles["black"],
            font=font,
            anchor="mm",
        )
    for i in range(K):  # rows: truth
        ry = top + cell_h * (i + 1)
        draw.rectangle((x0 + label_w - bar, ry + 1, x0 + label_w, ry + cell_h - 1), fill=roles["point"] + i)
        draw.text(
            (x0 + label_w - bar - 6 * s, ry + cell_h / 2),
            _fit(draw, classes[i], font, label_w - bar - 8 * s),
            fill=roles["black"],
            font=font,
            anchor="rm",
        )
        for j in range(K):
            cx = x0 + label_w + cell_w * j
            draw.rectangle(
                (cx, ry, cx + cell_w, ry + cell_h),
                fill=roles["grey"] if i == j else roles["white"],
                outline=roles["line"],
            )
            draw.text(
                (cx + cell_w / 2, ry + cell_h / 2),
                _fit(draw, f"{C[i, j]:.3g}", font, cell_w - 4),
                fill=roles["black"],
                font=font,
                anchor="mm",
            )


def _numbers(draw, lay: Layout, lines: list, roles: dict) -> None:
    s, (x0, y0, x1, y1) = lay.scale, lay.numbers
    draw.rectangle((x0, y0, x1, y1), fill=roles["white"])
    row = (y1 - y0) / len(lines)
    big, font = _font(32 * s), _font(26 * s)
    for i, (label, value) in enumerate(lines):
        f = big if i == 0 else font
        cy = y0 + row * (i + 0.5)
        room = x1 - x0 - (draw.textlength(value, font=f) + 12 * s if value else 0)
        draw.text((x0, cy), _fit(draw, label, f, room), fill=roles["black"], font=f, anchor="lm")
        if value:
            draw.text((x1, cy), value, fill=roles["black"], font=f, anchor="rm")


def _points(draw, canvas: _Canvas, points, roles: dict, markers: list, r: float) -> None:
    """Training points filled with a white rim; test points hollow; a black x on each mistake."""
    for split, (X, y, pred) in points:
        X = np.asarray(X, dtype=np.float64).reshape(-1, 2)
        P = np.column_stack([canvas.px(X[:, 0]), canvas.py(X[:, 1])])
        for (px, py), k in zip(P, np.asarray(y)):
            k = int(k)
            if split == "train":
                _marker(draw, markers[k], px, py, r, roles["point"] + k, roles["white"])
            else:
                _marker(draw, markers[k], px, py, r, None, roles["point"] + k, width=2)
        for px, py in P[np.asarray(pred) != np.asarray(y)]:
            draw.line((px - r, py - r, px + r, py + r), fill=roles["black"], width=2)
            draw.line((px - r, py + r, px + r, py - r), fill=roles["black"], width=2)


def _n_points(slide: dict) -> int:
    """Points a slide draws (``slide``: the keywords of ``slide_frames``)."""
    return sum(len(slide[k][1]) for k in ("train", "test") if slide.get(k) is not None)


def _points_at(train, test, t: int) -> list:
    return [
        (split, (data[0], data[1], np.asarray(data[2])[t]))
        for split, data in (("train", train), ("test", test))
        if data is not None and len(data[0])
    ]


def slide_frames(
    grid_xs,
    grid_ys,
    staged_regions,
    classes,
    cost_matrix,
    *,
    rounds=None,
    train=None,
    test=None,
    two_step_test=None,
    bayes=None,
    title: str = TITLE,
    axis_titles: tuple = ("x", "y"),
    size=WIDE,
    inset: bool = True,
):
    """One slide ("P" mode) per round in ``rounds`` (default: every t = 0..T), yielded one at a time.

    train, test : REBEL's ``(X (N, 2), y_idx (N,), staged_pred (T + 1, N))`` or None (train filled, test hollow);
    two_step_test : the two-step method's staged test predictions or None; bayes : the Bayes rule's test cost.
    inset : draw the cost matrix table (off: that part of the panel stays white).
    """
    S = np.asarray(staged_regions)
    T = check_staged(S, train, test)
    classes = [str(c) for c in classes]
    K = len(classes)
    C = np.asarray(cost_matrix, dtype=np.float64)
    if C.shape != (K, K):
        raise ValueError(f"cost_matrix must be {K}x{K} (one row and column per class), got shape {C.shape}.")
    rounds = range(T + 1) if rounds is None else [int(t) for t in rounds]
    if any(not 0 <= t <= T for t in rounds):
        raise ValueError(f"rounds must lie in 0..{T}, got {list(rounds)}.")
    lay = slide_layout(size, K)
    flat, roles = _palette(K)
    canvas = _Canvas(grid_xs, grid_ys, S.shape[1:], lay.plot)
    base = Image.new("P", lay.size, roles["white"])
    base.putpalette(flat)
    draw = ImageDraw.Draw(base)
    draw.text((lay.plot[0], lay.title[3] / 2), _fit(draw, title, _font(44 * lay.scale), lay.size[0] - 60),
              fill=roles["black"], font=_font(44 * lay.scale), anchor="lm")  # fmt: skip
    _axes(base, draw, canvas, lay, roles, axis_titles)
    _legend(draw, lay, classes, roles)
    if inset:
        _inset(draw, lay, classes, C, roles)
    numbers = round_numbers(C, train=train, test=test, two_step_test=two_step_test, bayes=bayes)
    markers = class_markers(K)
    r = POINT_RADIUS * lay.scale
    x0, y0, x1, y1 = lay.plot
    for t in rounds:
        img = base.copy()
        img.paste(Image.fromarray(canvas.regions(S[t], roles["region"])), (x0, y0))
        d = ImageDraw.Draw(img)
        _points(d, canvas, _points_at(train, test, t), roles, markers, r)
        d.rectangle((x0 - 1, y0 - 1, x1, y1), outline=roles["black"], width=max(1, round(2 * lay.scale)))
        _numbers(d, lay, frame_lines(numbers, t, T), roles)
        yield img
