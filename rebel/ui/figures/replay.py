"""The training replay: ONE plotly figure holding every round's decision regions and points as animation frames,
with a round slider and Play / Pause buttons, so scrubbing and playing run in the browser (no server round trip).

Reads ``staged_regions`` (T + 1, ny, nx) class indices over cell centres ``grid_xs`` (nx,), ``grid_ys`` (ny,)
(row 0 at ``grid_ys[0]``), points as ``(X (N, 2), y_idx (N,), staged_pred (T + 1, N))`` and optional staged
training-point sizes (T + 1, N).

The regions are a layout image (a palette PNG of the uint8 class grid: a few hundred bytes per round for a
200 x 200 grid, where a uint8 heatmap takes ~53 kB base64), so a frame changes only the image source, the mistake
crosses (float32 x, y of the round's mistaken points: moving a few hundred crosses repaints far faster than
restyling every point's opacity) and, when given, the training points' sizes (uint8
pixels). Nothing in a frame needs a full redraw, so plotly animates it without re-rendering the plot.

Once the figure's size is fixed, ``points_as_image`` can draw its data points as one image (``point_raster``)
under hover-only traces: a new figure then draws in about half the time.
"""

from __future__ import annotations

import base64
import functools
import html
import struct
import zlib

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.utils import to_typed_array_spec

from rebel.budget import BudgetError
from rebel.ui.figures import point_raster, style
from rebel.ui.figures.palette import BAYES_COLOR, MODEL_COLORS, class_colors, region_rgb
from rebel.ui.figures.regions import (
    BAYES_STYLE,
    boundary_traces,
    mistake_trace,
    plane_axes,
    plane_axes_layout,
    point_traces,
    regions_layout,
    regions_layout_dict,
)
from rebel.ui.figures.style import (
    LEAN_TEMPLATE,
    esc,
    legend_entry,
    line,
    merge_layout,
    modebar_layout,
    set_layout,
)

FONT_NUMBERS = 14  # the numbers line above the regions
FONT_STRIP_KEY = 11  # the cost strip's legend (the models' names in their lines' colours)
STRIP_KEY = "strip legend"  # the name of the cost strip's legend trace
FRAME_MS = 40  # Play: 25 frames a second asked (plotly waits for a frame to be drawn: ~15-20 painted)
# zlib level of the region PNGs: a replay encodes one per round (101 for 100 rounds) on every retrain. Level 1
# takes less than half the time of the default 6 for about a third more bytes (~60 kB of base64 for 101 rounds of
# a 200 x 200 grid); the pixels are the same.
PNG_LEVEL = 1


@functools.lru_cache(maxsize=32)
def _region_palette(n_classes: int) -> tuple:
    """The region colours of ``n_classes`` classes as a flat RGB palette (computed once per class count)."""
    return tuple(region_rgb(n_classes).ravel().tolist())


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def palette_pngs(codes, palette, transparent_zero: bool = False) -> list:
    """Palette PNGs of code grids ``codes`` (n, ny, nx) of uint8 indices into ``palette`` (flat RGB): one PNG
    per grid, row 0 its top row; code 0 fully transparent with ``transparent_zero``.

    Written directly (IHDR, PLTE, tRNS, one IDAT at zlib level ``PNG_LEVEL``, IEND), all grids at once: a
    replay encodes one grid per round (101 for 100 rounds) on every retrain, and doing it with PIL took three
    times as long. Rows are packed at the smallest bit depth that holds the palette (1, 2, 4 or 8 bits, as PIL
    writes them): the bytes sent for four classes are less than half of one byte a cell.
    """
    codes = np.asarray(codes, dtype=np.uint8)
    n_colors = len(palette) // 3
    if codes.ndim != 3 or codes.shape[1] == 0 or codes.shape[2] == 0:
        raise ValueError(
            f"codes must be a stack of non-empty 2-D grids (n, ny, nx), got shape {codes.shape}."
        )
    if codes.size and int(codes.max()) >= n_colors:
        raise ValueError(f"codes hold indices outside the palette's 0..{n_colors - 1}.")
    n, h, w = codes.shape
    bits = next(b for b in (1, 2, 4, 8) if n_colors <= 1 << b)
    per_byte = 8 // bits
    row_bytes = -(-w // per_byte)
    rows = np.zeros((n, h, row_bytes + 1), dtype=np.uint8)  # a leading 0 per row: PNG filter "none"
    packed = rows[:, :, 1:]
    for j in range(per_byte):  # pixel j of each byte in its bits, the first in the high bits
        part = codes[:, :, j::per_byte]
        packed[:, :, : part.shape[2]] |= part << np.uint8(bits * (per_byte - 1 - j))
    head = (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bits, 3, 0, 0, 0))
        + _png_chunk(b"PLTE", bytes(int(v) for v in palette))
        + (_png_chunk(b"tRNS", b"\x00") if transparent_zero else b"")
    )
    end = _png_chunk(b"IEND", b"")
    return [head + _png_chunk(b"IDAT", zlib.compress(r.tobytes(), PNG_LEVEL)) + end for r in rows]


def class_grid_pngs(regions, n_classes: int) -> list:
    """Class-index grids (n, ny, nx) as palette PNGs in the region colours (``palette_pngs``); row 0 of each
    grid is its image's top row."""
    grids = np.asarray(regions)
    if grids.ndim != 3 or grids.size == 0:
        raise ValueError(
            f"regions must be a non-empty stack of 2-D class-index grids, got shape {grids.shape}."
        )
    if grids.min() < 0 or grids.max() >= n_classes:
        raise ValueError(f"regions hold class indices outside 0..{n_classes - 1}: pass the right n_classes.")
    return palette_pngs(grids, _region_palette(n_classes))


def class_grid_png(regions, n_classes: int) -> bytes:
    """A class-index grid (ny, nx) as a palette PNG in the region colours (``class_grid_pngs``).

    Row 0 of the grid is the image's top row.
    """
    grid = np.asarray(regions)
    if grid.ndim != 2 or grid.size == 0:
        raise ValueError(f"regions must be a non-empty 2-D class-index grid, got shape {grid.shape}.")
    return class_grid_pngs(grid[None], n_classes)[0]


def png_data_uri(png: bytes) -> str:
    """PNG bytes as a ``data:`` URI (what a plotly layout image's ``source`` takes)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def grid_placement(xs, ys) -> dict:
    """Layout-image placement (data coordinates, drawn below the traces) whose pixels sit on the grid's cells."""
    xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    dx, dy = xs[1] - xs[0], ys[1] - ys[0]
    return {
        "xref": "x",
        "yref": "y",
        "x": float(xs[0] - dx / 2),
        "y": float(ys[-1] + dy / 2),
        "sizex": float(xs[-1] - xs[0] + dx),
        "sizey": float(ys[-1] - ys[0] + dy),
        "sizing": "stretch",
        "layer": "below",
    }


def region_layout_images(xs, ys, staged_regions, n_classes: int) -> list:
    """Class-index grids (n, ny, nx) as plotly layout images (drawn below the traces) whose pixels sit on the
    grid's cells: one per grid, all encoded at once (``class_grid_pngs``)."""
    grids = np.asarray(staged_regions)[:, ::-1]  # image rows run top-down
    place = grid_placement(xs, ys)
    return [
        {"source": png_data_uri(png), **place, "name": "regions"} for png in class_grid_pngs(grids, n_classes)
    ]


def region_layout_image(xs, ys, regions, n_classes: int) -> dict:
    """A class-index grid as a plotly layout image (drawn below the traces) whose pixels sit on the grid's cells."""
    return region_layout_images(xs, ys, np.asarray(regions)[None], n_classes)[0]


def check_staged(staged_regions, train=None, test=None, train_sizes=None) -> int:
    """Check that the staged regions, predictions and sizes agree on T + 1 rounds; returns T."""
    S = np.asarray(staged_regions)
    if S.ndim != 3 or S.shape[0] < 1:
        raise ValueError(f"staged_regions must have shape (T + 1, ny, nx), got {S.shape}.")
    for label, data in (("train", train), ("test", test)):
        if data is not None and np.shape(data[2])[:1] != (S.shape[0],):
            raise ValueError(
                f"{label}[2] must be the staged predictions (T + 1, N) with T + 1 = {S.shape[0]}, "
                f"got shape {np.shape(data[2])}."
            )
    if train_sizes is not None and np.shape(train_sizes)[:1] != (S.shape[0],):
        raise ValueError(f"train_sizes must have shape (T + 1, N), got {np.shape(train_sizes)}.")
    return S.shape[0] - 1


def _stack_points(train, test) -> tuple:
    """Train and test points stacked: ``(X (M, 2), y (M,), staged_pred (T + 1, M))`` or None."""
    parts = [d for d in (train, test) if d is not None and len(d[0])]
    if not parts:
        return None
    X = np.vstack([np.asarray(d[0], dtype=np.float64) for d in parts])
    y = np.concatenate([np.asarray(d[1]) for d in parts])
    pred = np.hstack([np.asarray(d[2]) for d in parts])
    return X, y, pred


def _controls(T: int, frame_ms: int, start: int) -> dict:
    """Layout of the Play / Pause buttons and the round slider (one step per frame, labelled with t)."""
    play = {
        "frame": {"duration": frame_ms, "redraw": False},
        "fromcurrent": True,
        "transition": {"duration": 0},
    }
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}}
    buttons = [
        {"label": "▶ Play", "method": "animate", "args": [None, play]},
        {"label": "▶ from t = 0", "method": "animate", "args": [None, {**play, "fromcurrent": False}]},
        {"label": "❚❚ Pause", "method": "animate", "args": [[None], pause]},
    ]
    steps = [
        {
            "label": str(t),
            "method": "animate",
            "args": [[f"t{t}"], pause],
            "name": f"t{t}",
        }
        for t in range(T + 1)
    ]
    return {
        "updatemenus": [
            {
                "type": "buttons",
                "direction": "left",
                "showactive": False,
                "x": 0,
                "y": -0.09,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 0, "r": 6},
                "buttons": buttons,
            }
        ],
        "sliders": [
            {
                "active": start,
                "steps": steps,
                # a row of its own under the buttons: beside them, the current value ran into them at
                # narrow widths
                "x": 0,
                "len": 1.0,
                "y": -0.17,
                "yanchor": "top",
                "pad": {"t": 0, "b": 0},
                "currentvalue": {
                    "prefix": "round t = ",
                    "suffix": f" of {T}",
                    "font": {"size": 13, "color": "#222"},
                },
                "ticklen": 3,
                # one label per round would overlap: the tick labels are hidden, the current value names t
                "font": {"size": 10, "color": "rgba(0,0,0,0)"},
            }
        ],
    }


def _sizes_u8(sizes) -> np.ndarray:
    return np.clip(np.rint(np.asarray(sizes, dtype=np.float64)), 0, 255).astype(np.uint8)


def _grid_layout_images(xs, ys, codes, palette: list, name: str, layer: int, **extra) -> list:
    """Small-code grids (n, ny, nx; code 0 transparent) as layout images over the regions, one per grid.

    plotly keys its layout images by their placement and draws only one image per placement, so overlay
    ``layer`` (1, 2, ...) is shifted by ``layer`` billionths of the width: invisible, but a distinct key.
    """
    image = grid_placement(xs, ys)  # the placement of the regions
    image["x"] += layer * 1e-9 * image["sizex"]
    pngs = palette_pngs(np.asarray(codes, dtype=np.uint8)[:, ::-1], palette, transparent_zero=True)
    return [{**image, "source": png_data_uri(png), "name": name, **extra} for png in pngs]


def mask_layout_images(xs, ys, masks, opacity: float = 0.38) -> list:
    """Boolean grids (n, ny, nx) as layout images: dark grey where True, transparent elsewhere."""
    return _grid_layout_images(xs, ys, masks, [0, 0, 0, 40, 40, 40], "disagreement", 1, opacity=opacity)


def boundary_codes(labels) -> np.ndarray:
    """Boundary cells of class grids (..., ny, nx) as codes: 0 inside a region, 1/2 alternating every 3 cells
    along the boundary (a white/near-black dash)."""
    L = np.asarray(labels)
    edge = np.zeros(L.shape, dtype=bool)
    edge[..., :, :-1] |= L[..., :, 1:] != L[..., :, :-1]
    edge[..., :-1, :] |= L[..., 1:, :] != L[..., :-1, :]
    i, j = np.indices(L.shape[-2:])
    dash = np.where((i + j) // 3 % 2 == 0, 2, 1).astype(np.uint8)
    return np.where(edge, dash, np.uint8(0)).astype(np.uint8)


def boundary_layout_images(xs, ys, codes) -> list:
    """The boundaries of class grids drawn in their own cells (``codes = boundary_codes(grids)``, (n, ny, nx)):
    a dashed line of near-black and white cells (readable on every region colour), transparent elsewhere. A
    few hundred bytes of PNG per round, where line traces would take tens of kB."""
    return _grid_layout_images(xs, ys, codes, [0, 0, 0, 255, 255, 255, 17, 17, 17], "two-step boundaries", 2)


class _SentAsIs(dict):
    """A frame's content, already in the form plotly sends (numpy arrays as base64 typed arrays): never changed
    after it is built, so ``fig.to_dict()`` (run by ``st.plotly_chart`` on every rerun) shares it instead of
    deep-copying every frame (~1 ms a frame, the largest part of a replay's serialisation)."""

    def __deepcopy__(self, memo):
        return self


def _sent_as_is(obj):
    """``obj`` (dicts, lists, numpy arrays) with every array as plotly's base64 typed array, and every dict as a
    ``_SentAsIs``: what ``fig.to_dict()`` would produce, built once."""
    if isinstance(obj, dict):
        return _SentAsIs({k: _sent_as_is(v) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return [_sent_as_is(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _typed_array(obj)
    return obj


_SHORT_TYPES = {"float32": "f4", "float64": "f8", "uint8": "u1", "int8": "i1", "int16": "i2", "int32": "i4"}


def _typed_array(a: np.ndarray):
    """A numpy array as plotly's base64 typed array (``{"dtype", "bdata"[, "shape"]}``), as ``fig.to_dict()``
    writes it; dtypes outside ``_SHORT_TYPES`` go through plotly's own conversion."""
    short = _SHORT_TYPES.get(str(a.dtype))
    if short is None or a.size == 0:
        return to_typed_array_spec(a)
    out = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(a)).decode("ascii")}
    if a.ndim > 1:
        out["shape"] = str(a.shape)[1:-1]
    return out


def _frames(T: int, updates: list, images: list) -> list:
    """One frame per round from per-round trace updates ``[(trace index, [dict] * (T + 1))]`` and layout images
    ``[[dict] * (T + 1)]``: only what changes with t.

    Built from plain dicts without plotly's per-property validation (it would take ~10 ms a frame); the keys are
    fixed in this module and the tests check the frames' content. Each frame's content is final (``_sent_as_is``).
    """
    frames = []
    for t in range(T + 1):
        frame = go.Frame(name=f"t{t}", _validate=False)
        frame._orphan_props = _sent_as_is(
            {
                "data": [{"type": "scatter", **u[t]} for _, u in updates],
                "traces": [i for i, _ in updates],
                "layout": {"images": [im[t] for im in images]},
                "name": f"t{t}",
            }
        )
        frames.append(frame)
    return frames


def set_frames(fig: go.Figure, frames: list) -> None:
    """Attach frames built with ``_validate=False`` as they are: the ``fig.frames`` setter would rebuild and
    re-validate every one (~0.5 ms a frame, the largest cost of a replay figure). Uses plotly's storage of a
    figure's frames (``_frame_objs``, a tuple of ``go.Frame``); the replay tests read them back through
    ``fig.to_dict()``, as ``st.plotly_chart`` does."""
    fig._frame_objs = tuple(frames)


def _add_points(fig: go.Figure, classes, train, test, train_sizes, start: int, updates: list) -> None:
    """The train / test point traces; with ``train_sizes`` each class's training trace resizes per round."""
    colors = class_colors(len(classes))
    sizes = None if train_sizes is None else _sizes_u8(train_sizes)
    for split, data in (("train", train), ("test", test)):
        if data is None or not len(data[0]):
            continue
        sized = split == "train" and sizes is not None
        traces = point_traces(np.asarray(data[0]), np.asarray(data[1]), classes, colors, split)
        for tr in traces:
            tr.meta = POINTS_META
            if sized:
                rows = np.asarray(tr.customdata)
                tr.marker.size = sizes[start][rows]
                updates.append((len(fig.data), [{"marker": {"size": s[rows]}} for s in sizes]))
            fig.add_trace(tr)


POINTS_META = "points"
"""The point traces' ``meta``: ``points_as_image`` and the browser's scripts and tests find them by it."""
POINTS_IMAGE = "points image"
"""The name of the layout image that draws the points (``points_as_image``)."""
POINTS_IMAGE_META = "points_image"
"""The key in the figure's ``layout.meta`` of the points image's extent and the plot area's px it was drawn for:
``[x0, x1, y0, y1, width px, height px]``."""


def has_points_image(fig: go.Figure) -> bool:
    """Whether ``fig`` draws its data points as one image (``points_as_image``)."""
    return any(im.name == POINTS_IMAGE for im in fig.layout.images)


def plane_px(fig: go.Figure) -> tuple | None:
    """The regions' plot area (W, H) in px as the browser lays it out from ``fig``'s fixed width, height,
    margins, axis domains and equal-scale ranges; None when the figure's width or height is not fixed."""
    L = fig.layout
    if not L.width or not L.height or L.xaxis.range is None or L.yaxis.range is None:
        return None
    m = L.margin

    def px(v):
        return 80 if v is None else v  # plotly's default margin

    dx, dy = L.xaxis.domain or (0, 1), L.yaxis.domain or (0, 1)
    span_x, span_y = (float(r[1]) - float(r[0]) for r in (L.xaxis.range, L.yaxis.range))
    across = (L.width - px(m.l) - px(m.r)) * (dx[1] - dx[0])
    down = (L.height - px(m.t) - px(m.b)) * (dy[1] - dy[0])
    scale = min(across / span_x, down / span_y) if span_x > 0 and span_y > 0 else 0.0
    if scale <= 0:
        return None
    return max(1, round(span_x * scale)), max(1, round(span_y * scale))


POINTS_SCALE = 2  # image pixels per screen px: sharp on a high-density screen


def _point_layer(tr) -> tuple:
    """A point trace as a ``point_raster`` layer: ``(X (n, 2), symbol, size, colour, (outline width, outline
    colour))``; a hollow marker's outline is in its own colour."""
    m = tr.marker
    stroke = m.line.color if m.line.color is not None else m.color
    X = np.column_stack([np.asarray(tr.x, dtype=np.float64), np.asarray(tr.y, dtype=np.float64)])
    return X, m.symbol, float(m.size), m.color, (float(m.line.width or 0.0), stroke)


def warm_point_stamps(n_classes: int = 12, scale: int = POINTS_SCALE) -> None:
    """Make the marker stamps of the training and test points of classes 0..n_classes-1
    (``point_raster.marker_stamps``, kept for the process: a class's colour and shape do not depend on how many
    classes there are), so the first figure drawn with its points as an image does not pay for them (~12 ms a
    class and split). ``rebel.ui.launch`` calls it once the first page is served."""
    classes = [str(k) for k in range(n_classes)]
    X, y = np.zeros((n_classes, 2)), np.arange(n_classes)
    colors = class_colors(n_classes)
    layers = [
        _point_layer(tr) for split in ("train", "test") for tr in point_traces(X, y, classes, colors, split)
    ]
    point_raster.points_image(layers, (-1, 1), (-1, 1), (4, 4), scale)


def points_as_image(fig: go.Figure, render, scale: int = POINTS_SCALE) -> bool:
    """Draw the data points of a replay figure as one image instead of one SVG marker each
    (``point_raster``): ``render(layers, x_range, y_range, (W, H), scale)`` returns the PNG of ``layers`` at
    ``scale`` times the plot area's size (``plane_px``), its top row first. The point traces keep their hover
    labels with no markers (``mode="none"``), a legend-only entry per class keeps its place in the legend
    (``legendrank``), the image is a layout image after the regions' (drawn over them and under every trace:
    the mistake crosses stay on top; the frames replace the layout images before it by index and leave it in
    every frame). Legend clicks no longer hide a class (the image cannot follow).

    Wherever the browser lays the plot area out at another size than the image was drawn for (its px size is in
    ``layout.meta[POINTS_IMAGE_META]``: Streamlit's chart follows its box when the figure's size is not the
    box's), the browser
    draws the points again at their own size (``viewport.POINTS_ZOOM``), as it does when zoomed.

    Leaves the figure as it is and returns False when the plot area's size is not fixed, a point trace's
    markers change size (boundary sizes by weight: per-round sizes) or ``render`` refuses the size
    (``BudgetError``: a plot too large for one image); True when the points are an image (already, or now).
    """
    if has_points_image(fig):
        return True
    size = plane_px(fig)
    points = [i for i, tr in enumerate(fig.data) if getattr(tr, "meta", None) == POINTS_META]
    if size is None or not points:
        return False
    if any(np.ndim(fig.data[i].marker.size) for i in points):
        return False
    layers = [_point_layer(fig.data[i]) for i in points]
    x_range, y_range = tuple(fig.layout.xaxis.range), tuple(fig.layout.yaxis.range)
    W, H = size[0] * scale, size[1] * scale
    try:
        png = render(layers, x_range, y_range, (W, H), scale)
    except BudgetError:
        return False
    for i, tr in enumerate(list(fig.data)):
        if getattr(tr, "showlegend", False) is not False and tr.legendrank is None:
            tr.legendrank = i + 1  # the legend's order as it was, with the entries below appended
    for i in points:
        tr = fig.data[i]
        if tr.showlegend is not False:
            entry = legend_entry(tr.name, **tr.marker.to_plotly_json())
            entry.update(legendgroup=tr.legendgroup, legendrank=tr.legendrank, legend=tr.legend)
            fig.add_trace(entry)
        tr.update(mode="none", showlegend=False)
    (x0, x1), (y0, y1) = x_range, y_range
    # a layout image after the regions' (drawn above them and under every trace): the frames set the layout
    # images before it by index and leave it alone. An image trace would be dropped from the page by the first
    # frame that moves the mistake crosses (plotly redraws only the animated traces' layers), and the points
    # would vanish for the whole replay.
    fig.add_layout_image(
        source=png_data_uri(png),
        xref="x",
        yref="y",
        x=x0,
        y=y1,
        sizex=x1 - x0,
        sizey=y1 - y0,
        xanchor="left",
        yanchor="top",
        sizing="stretch",
        layer="below",
        name=POINTS_IMAGE,
    )
    # the image's extent and the plot area's px it was drawn for: zoomed past it or laid out at another size,
    # the browser draws the points again at their own size (``viewport.POINTS_ZOOM``)
    meta = dict(fig.layout.meta) if isinstance(fig.layout.meta, dict) else {}
    meta[POINTS_IMAGE_META] = [float(x0), float(x1), float(y0), float(y1), int(size[0]), int(size[1])]
    fig.layout.meta = meta
    no_clicks = {"itemclick": False, "itemdoubleclick": False}
    fig.update_layout(legend=no_clicks)
    if any(getattr(tr, "legend", None) == "legend2" for tr in fig.data):
        fig.update_layout(legend2=no_clicks)
    return True


def _add_mistakes(fig: go.Figure, train, test, start: int, updates: list) -> None:
    """One cross trace holding, per round, the points mistaken at that round (train and test)."""
    points = _stack_points(train, test)
    if points is None:
        return
    X, y, pred = points
    X32 = X.astype(np.float32)
    wrong = [X32[p != y] for p in pred]
    updates.append((len(fig.data), [{"x": w[:, 0], "y": w[:, 1]} for w in wrong]))
    fig.add_trace(mistake_trace(wrong[start]))


HEADER_DOMAIN = (0.999, 1.0)  # paper y of the numbers lines' anchor: they grow upwards into the top margin
CURVE_DOMAIN = (0.0, 0.13)  # paper y of the cost strip under the regions
PLANE_DOMAIN = (0.38, 1.0)  # paper y of the regions (square: their width follows); the legend sits below
LINE_PX = 19  # height of one numbers line (FONT_NUMBERS = 14)
# What lies under the regions keeps its size in px on a taller screen: the cost strip, the gap to the legend and
# all of it (strip, legend, the regions' tick labels), as the fractions above make them at 1280 x 720 (a plot
# area of ~442 px). A taller plot gives its extra height to the regions, not to empty space under them.
CURVE_PX, LEGEND_GAP_PX, BELOW_PLANE_PX = 58, 13, 168
# Left and bottom margins (px) of the one-screen layout: the room plotly's automatic margins take in Streamlit's
# chart theme (the cost strip's tick labels and title on the left; the Play buttons and round slider below).
# Asked for up front, plotly draws the figure once; from smaller margins it draws, widens them and draws again,
# which doubled the time to a painted picture (a wider need still widens them, so nothing is ever clipped).
ONE_SCREEN_MARGIN = (70, 142)
BEFORE_AFTER_MARGIN = (32, 66)  # the same for ``before_after_figure`` (tick labels, legend below)
# The projector layout (presentation mode): the regions fill the plot's height on the left; the verdict's figures,
# the legend and the cost strip sit beside them; only the round and the three costs stay above.
PROJECTOR_PLANE_X = (0.0, 0.6)  # paper x of the regions (square: the narrower of width and height wins)
PROJECTOR_SIDE_X = (0.67, 1.0)  # paper x of the column beside them
PROJECTOR_CURVE_Y = (0.1, 0.34)  # paper y of the cost strip in that column (room under it for its ticks)
PROJECTOR_CURVE_Y_MANY = (0.07, 0.24)  # with a two-column legend (more classes): a lower, flatter strip
PROJECTOR_LEGEND_ROWS = 2  # more classes: the projector's legend splits into two columns (legend, legend2)
PROJECTOR_CONTROLS_DROP = 8  # px (before presentation mode's font scaling): the buttons and slider sit lower
PROJECTOR_NAME_CHARS = 10  # characters of a class name in a half column


def _numbers_parts(numbers: dict, t: int, T: int) -> tuple:
    """Round t's numbers as ``(head, costs, verdict)``: the round line, the three test costs (REBEL, two-step,
    Bayes when known) and the verdict's figures (the difference, ignoring the costs, the regret against Bayes)
    as a list of short phrases."""
    r, s = float(numbers["REBEL"][t]), float(numbers["two-step"][t])
    bayes = numbers.get("Bayes")
    costs = f"<b>REBEL {r:.3f}</b> · <b>two-step {s:.3f}</b> · " + (
        "Bayes n/a" if bayes is None else f"<b>Bayes {bayes:.3f}</b>"
    )
    diff = r - s
    who = (
        "tie"
        if abs(diff) <= numbers.get("tie", 0.0)
        else ("REBEL cheaper" if diff < 0 else "two-step cheaper")
    )
    verdict = [f"{who} ({diff:+.3f})", f"costs ignored: {float(numbers['blind'][t]):.3f}"]
    if bayes is not None:
        verdict += [f"above Bayes: REBEL {r - bayes:+.3f},", f"two-step {s - bayes:+.3f}"]
    return f"<b>t = {t}</b> of {T} · test cost per point:", costs, verdict


def numbers_text(numbers: dict, t: int, T: int, title: str = "") -> str:
    """The numbers lines of round t: the three test costs (REBEL, two-step, Bayes when known) and the verdict's
    figures (the difference, ignoring the costs, the regret against Bayes). Numbers only; ``title`` (escaped)
    heads them."""
    head, costs, verdict = _numbers_parts(numbers, t, T)
    lines = [head, costs, " · ".join(verdict[:2])]
    if len(verdict) > 2:
        lines.append(" ".join(verdict[2:]))
    return "<br>".join(([f"<b>{esc(title)}</b>"] if title else []) + lines)


def projector_texts(numbers: dict, t: int, T: int, title: str = "") -> tuple:
    """The projector layout's numbers of round t: ``(head, side)``, the round and the three test costs above
    the regions (two lines), the title and the verdict's figures beside them (one short phrase a line)."""
    head, costs, verdict = _numbers_parts(numbers, t, T)
    return head + "<br>" + costs, "<br>".join(([f"<b>{esc(title)}</b>"] if title else []) + verdict)


def numbers_lines(numbers: dict, title: str = "") -> int:
    """How many lines ``numbers_text`` writes (the top margin they need)."""
    return 3 + (numbers.get("Bayes") is not None) + bool(title)


def _text_trace(text: str, x: float, position: str, name: str, size: int = FONT_NUMBERS) -> go.Scatter:
    """A block of text lines on the hidden axes x2/y2 (x in [0, 1] across the plot, y = 1 its top)."""
    return go.Scatter(
        x=[x],
        y=[1],
        text=[text],
        mode="text",
        textposition=position,
        cliponaxis=False,
        textfont={"size": size},
        xaxis="x2",
        yaxis="y2",
        showlegend=False,
        hoverinfo="skip",
        name=name,
    )


def _add_numbers(
    fig: go.Figure, numbers: dict, T: int, start: int, updates: list, title: str = "", projector: bool = False
) -> None:
    """The numbers line (axes x2/y2 above the regions) and the cost strip with its round marker (axes x3/y3
    under them, or beside them in the ``projector`` layout, where the verdict's figures go beside the regions
    too), all following t in the frames."""
    if projector:
        pairs = [projector_texts(numbers, t, T, title) for t in range(T + 1)]
        updates.append((len(fig.data), [{"text": [head]} for head, _ in pairs]))
        fig.add_trace(_text_trace(pairs[start][0], 0, "top right", "numbers"))
        updates.append((len(fig.data), [{"text": [side]} for _, side in pairs]))
        fig.add_trace(_text_trace(pairs[start][1], PROJECTOR_SIDE_X[0], "bottom right", "verdict", 13))
    else:
        texts = [numbers_text(numbers, t, T, title) for t in range(T + 1)]
        updates.append((len(fig.data), [{"text": [text]} for text in texts]))
        fig.add_trace(_text_trace(texts[start], 0, "top right", "numbers"))
    r, s = np.asarray(numbers["REBEL"], dtype=np.float64), np.asarray(numbers["two-step"], dtype=np.float64)
    rounds = np.arange(T + 1)
    for name, cost in (("REBEL", r), ("two-step", s)):
        fig.add_trace(
            line(
                rounds,
                cost,
                f"{name} test cost",
                MODEL_COLORS[name],
                2.0,
                xaxis="x3",
                yaxis="y3",
                showlegend=False,
                hovertemplate=f"{name} t=%{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    # the strip's own legend: each model's name in its line's colour, at its top right (the curves end low)
    key = " ".join(f"<span style='color:{MODEL_COLORS[n]}'>━ {n}</span>" for n in ("REBEL", "two-step"))
    fig.add_trace(
        go.Scatter(
            x=[T],
            y=[max(float(np.nanmax(r)), float(np.nanmax(s)))],
            text=[key],
            mode="text",
            textposition="bottom left",
            textfont={"size": FONT_STRIP_KEY},
            cliponaxis=False,
            xaxis="x3",
            yaxis="y3",
            showlegend=False,
            hoverinfo="skip",
            name=STRIP_KEY,
        )
    )
    if numbers.get("Bayes") is not None:
        b = float(numbers["Bayes"])
        fig.add_trace(
            line(
                [0, T],
                [b, b],
                "Bayes",
                BAYES_COLOR,
                1.2,
                "dash",
                xaxis="x3",
                yaxis="y3",
                showlegend=False,
                hoverinfo="skip",
            )
        )
    colors = [MODEL_COLORS["REBEL"], MODEL_COLORS["two-step"]]
    updates.append((len(fig.data), [{"x": [t, t], "y": [r[t], s[t]]} for t in range(T + 1)]))
    fig.add_trace(
        go.Scatter(
            x=[start, start],
            y=[r[start], s[start]],
            mode="markers",
            marker={"color": colors, "size": 10, "line": {"color": "white", "width": 1.5}},
            xaxis="x3",
            yaxis="y3",
            showlegend=False,
            hoverinfo="skip",
            name="round marker",
        )
    )


def below_plane(area_px: float | None) -> tuple:
    """(the cost strip's top, the legend's bottom, the regions' bottom) in paper y for a plot area ``area_px``
    high: ``CURVE_DOMAIN``, ``PLANE_DOMAIN`` and the legend's gap as fractions, or their px sizes at 1280 x 720
    (``CURVE_PX``, ``LEGEND_GAP_PX``, ``BELOW_PLANE_PX``) where those are the smaller share; the fractions when
    the area is not known (the chart fills its box)."""
    if not area_px or area_px <= 0:
        return CURVE_DOMAIN[1], CURVE_DOMAIN[1] + 0.03, PLANE_DOMAIN[0]
    curve = min(CURVE_DOMAIN[1], CURVE_PX / area_px)
    return curve, curve + min(0.03, LEGEND_GAP_PX / area_px), min(PLANE_DOMAIN[0], BELOW_PLANE_PX / area_px)


def _numbers_axes(numbers: dict, T: int, below: tuple | None = None) -> dict:
    """Layout of the numbers line's axes (x2/y2, hidden) and the cost strip's (x3/y3); the regions' y domain
    (``below``: ``below_plane``'s split, the fractions by default)."""
    curve_top, _, plane_bottom = below or below_plane(None)
    r, s = np.asarray(numbers["REBEL"], dtype=np.float64), np.asarray(numbers["two-step"], dtype=np.float64)
    lo = min(float(np.nanmin(r)), float(np.nanmin(s)), numbers.get("Bayes") or np.inf)
    hi = max(float(np.nanmax(r)), float(np.nanmax(s)))
    pad = max(hi - lo, 1e-6) * 0.1
    return {
        "xaxis2": {"domain": [0, 1], "range": [0, 1], "visible": False, "fixedrange": True, "anchor": "y2"},
        "yaxis2": {
            "domain": list(HEADER_DOMAIN),
            "range": [0, 1],
            "visible": False,
            "fixedrange": True,
            "anchor": "x2",
        },
        "xaxis3": {
            "domain": [0, 1],
            "range": [0, max(T, 1)],
            "fixedrange": True,
            "anchor": "y3",
            "showgrid": False,
            "ticks": "outside",
        },
        "yaxis3": {
            "domain": [CURVE_DOMAIN[0], curve_top],
            "range": [lo - pad, hi + pad],
            "fixedrange": True,
            "anchor": "x3",
            "nticks": 3,
            "title": {"text": "test cost"},
        },
        "yaxis": {"domain": [plane_bottom, PLANE_DOMAIN[1]]},
    }


def replay_figure(
    grid_xs,
    grid_ys,
    staged_regions,
    classes,
    *,
    train=None,
    test=None,
    train_sizes=None,
    other_regions=None,
    show_other: bool = False,
    show_disagreement: bool = False,
    bayes_regions=None,
    title: str = "",
    start: int | None = None,
    frame_ms: int = FRAME_MS,
    height: int = 600,
    numbers: dict | None = None,
    projector: bool = False,
) -> go.Figure:
    """Every round's min-risk regions with the data, in one figure: a slider over t and Play / Pause buttons that
    animate the rounds in the browser (plotly frames; no server round trip per frame).

    staged_regions : (T + 1, ny, nx) class indices of the model after t = 0..T rounds
    train, test : ``(X (N, 2), y_idx (N,), staged_pred (T + 1, N))`` or None; the mistake crosses follow t
    train_sizes : (T + 1, N) marker sizes of the training points per round (e.g. ``weight_sizes`` of the
        boosting weights), or None for a fixed size
    other_regions : (T + 1, ny, nx) another model's classes per round (the two-step baseline): its boundaries
        (dashed black and white cells) if ``show_other``, a dark overlay where it disagrees if
        ``show_disagreement``, both following t
    bayes_regions : (ny, nx) Bayes-optimal classes, drawn once as dashed boundaries
    title : the figure title, the same in every frame (plotly repaints a frame's traces and layout images
        without a redraw, but not the title); the round counter is the slider's "round t = 12 of 100". With
        ``numbers`` the title heads the numbers line instead (one screen: no title band)
    height : px, or None to fill the chart's box (``st.plotly_chart(height="stretch")``)
    start : the round shown first (default T); frame_ms : time per frame when playing
    numbers : per-round test costs ``{"REBEL": (T + 1,), "two-step": (T + 1,), "blind": (T + 1,), "Bayes": float
        or None, "tie": float}`` (``rebel.ui.playground.compute.round_numbers``), or None. When given, the
        numbers line above the regions (``numbers_text``) and a cost strip with a round marker under them are
        part of the frames, so the one round slider moves the picture and every number together.
    projector : with ``numbers``, the projector layout (presentation mode): the regions take the plot's full
        height on the left, the verdict's figures, the legend and the cost strip go beside them
        (``PROJECTOR_*``); only the round and the three costs stay above (two lines)
    """
    T = check_staged(staged_regions, train, test, train_sizes)
    start = T if start is None else int(np.clip(start, 0, T))
    S = np.asarray(staged_regions)
    images = [region_layout_images(grid_xs, grid_ys, S, len(classes))]
    other = None if other_regions is None else np.asarray(other_regions)
    if other is not None and other.shape != S.shape:
        raise ValueError(f"other_regions must have the shape of staged_regions {S.shape}, got {other.shape}.")
    fig, updates = go.Figure(), []
    if other is not None and show_disagreement:
        images.append(mask_layout_images(grid_xs, grid_ys, other != S))
        fig.add_trace(legend_entry("REBEL ≠ two-step", symbol="square", size=12, color="rgba(40,40,40,0.5)"))
    if other is not None and show_other:
        codes = boundary_codes(other)  # every round at once
        images.append(boundary_layout_images(grid_xs, grid_ys, codes))
        fig.add_trace(line([None], [None], "two-step boundaries", "#111111", 2.2, "dot", hoverinfo="skip"))
    if bayes_regions is not None:
        name = "Bayes-optimal boundaries"
        fig.add_traces(boundary_traces(grid_xs, grid_ys, bayes_regions, name, BAYES_STYLE))
    _add_points(fig, classes, train, test, train_sizes, start, updates)
    _add_mistakes(fig, train, test, start, updates)
    if numbers is not None:
        _add_numbers(fig, numbers, T, start, updates, title, projector)
    set_frames(fig, _frames(T, updates, images))
    layout = merge_layout(
        {"images": [im[start] for im in images], "template": LEAN_TEMPLATE},
        regions_layout_dict(title if numbers is None else "", height),
        plane_axes_layout(grid_xs, grid_ys),
    )
    if numbers is None:
        merge_layout(layout, {"margin": {"b": 150}, "legend": {"y": -0.36}}, _controls(T, frame_ms, start))
        return set_layout(fig, layout)
    # One screen: the title heads the numbers line, the legend sits beside the regions, the round control
    # right under the cost strip (pixel offsets, so it stays put at any figure height).
    controls = _controls(T, frame_ms, start)
    # the projector's regions reach the plot's bottom (their x axis title right above the buttons): more room
    drop = PROJECTOR_CONTROLS_DROP if projector else 0
    controls["updatemenus"][0].update(y=0, yanchor="top", pad={"t": 26 + drop, "r": 6})
    controls["sliders"][0].update(y=0, yanchor="top", pad={"t": 62 + drop, "b": 0})
    lines = 2 if projector else numbers_lines(numbers, title)
    top = LINE_PX * lines + 8  # the numbers lines' margin
    curve_y = PROJECTOR_CURVE_Y_MANY if len(classes) > PROJECTOR_LEGEND_ROWS else PROJECTOR_CURVE_Y
    # the plot area's height in px when the figure's height is known (the margins below)
    area = None if projector or not height else height - top - ONE_SCREEN_MARGIN[1]
    below = below_plane(area)
    legend = (
        {"orientation": "v", "x": PROJECTOR_SIDE_X[0], "y": curve_y[1] + 0.055, "yanchor": "bottom"}
        if projector
        else {"orientation": "h", "x": 0, "y": below[1], "yanchor": "bottom"}
    )
    merge_layout(
        layout,
        {
            "margin": {"l": 10, "r": 10, "t": top, "b": 118 + drop}
            if projector
            else {"l": ONE_SCREEN_MARGIN[0], "r": 10, "t": top, "b": ONE_SCREEN_MARGIN[1]},
            "legend": {**legend, "font": {"size": 11}},
        },
        controls,
        _numbers_axes(numbers, T, below),
    )
    if projector:
        _projector_legend(fig, len(classes), {**legend, "font": {"size": 11}, "tracegroupgap": 0}, layout)
        merge_layout(
            layout,
            {
                "xaxis": {"domain": list(PROJECTOR_PLANE_X)},
                "yaxis": {"domain": [0, 1]},
                "xaxis3": {"domain": list(PROJECTOR_SIDE_X), "title": {"text": "test cost by round t"}},
                "yaxis3": {"domain": list(curve_y), "title": {"text": ""}},
            },
        )
    else:
        _class_legend(fig, len(classes), False, layout)  # one row at 1280x720: clear of the tick labels
        # The legend sits right under the regions' tick labels: the x axis is named at its right end instead.
        x_title = layout["xaxis"]["title"]
        layout["annotations"] = [
            {
                "text": x_title["text"],
                "font": dict(x_title["font"]),
                "x": 1,
                "y": 0,
                "xref": "x domain",
                "yref": "y domain",
                "xanchor": "left",
                "yanchor": "top",
                "xshift": 4,
                "showarrow": False,
            }
        ]
        x_title["text"] = ""
    merge_layout(layout, modebar_layout(layout["margin"]["r"]))
    return set_layout(fig, layout)


def _projector_legend(fig: go.Figure, n_classes: int, legend: dict, layout: dict) -> None:
    """The projector's legend: ``_class_legend``, in two columns beside the regions when there are more than
    ``PROJECTOR_LEGEND_ROWS`` classes, so twelve classes fit a 1280x720 screen without pushing the regions
    down."""
    two = _class_legend(fig, n_classes, True, layout)
    if not two:
        return
    half = -(-(n_classes + 2) // 2)  # the mistake and hollow entries close the second column
    for tr in fig.data:
        group = tr.legendgroup
        if (group is not None and str(group).isdigit() and int(group) >= half) or tr.name in (
            "mistake",
            TEST_HINT,
        ):
            tr.legend = "legend2"
    x0, x1 = PROJECTOR_SIDE_X
    layout["legend2"] = {**legend, "x": x0 + 0.53 * (x1 - x0)}


def fit_projector_legend(fig: go.Figure, gap_px: float = 10.0) -> None:
    """In the projector layout (fonts set, ``style.presentation``), the legend's top (both columns') right under
    the verdict's lines beside the regions, at any font size: the verdict grows down from the plot's top and a
    legend anchored by its bottom would grow up into it. Leaves a figure of unknown height as it is."""
    L = fig.layout
    verdict = next((tr for tr in fig.data if tr.name == "verdict"), None)
    if verdict is None or not L.height:
        return
    area = L.height - (L.margin.t or 0) - (L.margin.b or 0)
    lines = str(verdict.text[0]).count("<br>") + 1
    y = 1 - (lines * (verdict.textfont.size or FONT_NUMBERS) * 1.3 + gap_px) / max(area, 1)
    fig.update_layout(legend={"y": y, "yanchor": "top"})
    two = "legend2" in L.to_plotly_json()
    if two:
        fig.update_layout(legend2={"y": y, "yanchor": "top"})
    # the cost strip's top under the legend's rows (its entries a column, ~1.45 lines of its font each)
    entries = [tr for tr in fig.data if tr.showlegend is not False and tr.name]
    rows = -(-len(entries) // 2) if two else len(entries)
    bottom = y - (rows * (L.legend.font.size or FONT_NUMBERS) * 1.45 + 2 * gap_px) / max(area, 1)
    low, high = L.yaxis3.domain
    if bottom < high:
        fig.update_layout(yaxis3={"domain": [low, max(low + 0.08, bottom)]})


TEST_HINT = "hollow: test"


def _class_legend(fig: go.Figure, n_classes: int, columns: bool, layout: dict) -> bool:
    """One legend entry per class (its name and training marker; a class's test points share it), then the
    mistake crosses and, with test points, one grey hollow entry saying what hollow means. Returns whether the
    legend needs two ``columns`` (more than ``PROJECTOR_LEGEND_ROWS`` classes; names then cut to a half
    column)."""
    seen = set()
    two = columns and n_classes > PROJECTOR_LEGEND_ROWS
    tests = any(str(tr.name).endswith(" (test)") for tr in fig.data if tr.legendgroup is not None)
    for tr in fig.data:
        group = tr.legendgroup
        if group is None or not str(group).isdigit():
            continue
        if group in seen:
            tr.showlegend = False
        else:
            seen.add(group)
            name = html.unescape(str(tr.name).rsplit(" (", 1)[0])  # "apple (train)" -> "apple"
            if two and len(name) > PROJECTOR_NAME_CHARS:  # a half column: long names end in "…"
                name = name[: PROJECTOR_NAME_CHARS - 1] + "…"
            tr.name = esc(name)
    if tests:
        fig.add_trace(
            legend_entry(TEST_HINT, symbol="circle-open", size=8, color="#555555", line={"width": 1.6})
        )
    merge_layout(layout, {"legend": {"tracegroupgap": 0}})
    return two


def before_after_figure(grid_xs, grid_ys, panels, classes, test, height: int = 380) -> go.Figure:
    """Two region pictures side by side in ONE figure (one chart to draw instead of two), each with the test
    points and its own mistakes: ``panels`` = ``[(regions (ny, nx), test predictions (N,), title)] * 2``;
    ``test`` = ``(X (N, 2), y_idx (N,))``. The regions are layout images, as in the replay."""
    fig = style.two_panels([esc(title) for _, _, title in panels], spacing=0.06)
    colors = class_colors(len(classes))
    X, y = np.asarray(test[0], dtype=np.float64), np.asarray(test[1])
    xs, ys = np.asarray(grid_xs, dtype=np.float64), np.asarray(grid_ys, dtype=np.float64)
    images = []
    for col, (grid, pred, _) in enumerate(panels, start=1):
        axis = "" if col == 1 else str(col)
        images.append(
            {**region_layout_image(xs, ys, grid, len(classes)), "xref": f"x{axis}", "yref": f"y{axis}"}
        )
        for tr in [*point_traces(X, y, classes, colors, "test"), mistake_trace(X[np.asarray(pred) != y])]:
            tr.showlegend = col == 1
            fig.add_trace(tr, row=1, col=col)
        plane_axes(fig, xs, ys, col=col)
    regions_layout(fig, "", height)
    # room for the subplot titles (top); left and bottom: what plotly's automatic margins take in Streamlit's
    # theme, asked up front so the figure is drawn once (``ONE_SCREEN_MARGIN``)
    return fig.update_layout(
        images=images, margin={"t": 40, "l": BEFORE_AFTER_MARGIN[0], "b": BEFORE_AFTER_MARGIN[1]}
    )
