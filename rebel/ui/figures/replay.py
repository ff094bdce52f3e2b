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
"""

from __future__ import annotations

import base64
import io

import numpy as np
import plotly.graph_objects as go
from PIL import Image

from rebel.ui.figures.palette import class_colors, region_rgb
from rebel.ui.figures.regions import (
    BAYES_STYLE,
    boundary_traces,
    mistake_trace,
    plane_axes,
    point_traces,
    regions_layout,
)

FRAME_MS = 80  # Play: 12.5 frames per second (the browser paints at least 10 on a loaded laptop)


def class_grid_png(regions, n_classes: int) -> bytes:
    """A class-index grid (ny, nx) as a palette PNG (one byte per cell before compression) in the region colours.

    Row 0 of the grid is the image's top row.
    """
    grid = np.asarray(regions)
    if grid.ndim != 2 or grid.size == 0:
        raise ValueError(f"regions must be a non-empty 2-D class-index grid, got shape {grid.shape}.")
    if grid.min() < 0 or grid.max() >= n_classes:
        raise ValueError(f"regions hold class indices outside 0..{n_classes - 1}: pass the right n_classes.")
    img = Image.fromarray(np.ascontiguousarray(grid, dtype=np.uint8))
    img.putpalette(region_rgb(n_classes).ravel().tolist())
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def png_data_uri(png: bytes) -> str:
    """PNG bytes as a ``data:`` URI (what a plotly image trace's ``source`` takes)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def region_layout_image(xs, ys, regions, n_classes: int) -> dict:
    """A class-index grid as a plotly layout image (drawn below the traces) whose pixels sit on the grid's cells."""
    xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    dx, dy = xs[1] - xs[0], ys[1] - ys[0]
    return {
        "source": png_data_uri(
            class_grid_png(np.asarray(regions)[::-1], n_classes)
        ),  # image rows run top-down
        "xref": "x",
        "yref": "y",
        "x": float(xs[0] - dx / 2),
        "y": float(ys[-1] + dy / 2),
        "sizex": float(xs[-1] - xs[0] + dx),
        "sizey": float(ys[-1] - ys[0] + dy),
        "sizing": "stretch",
        "layer": "below",
        "name": "regions",
    }


def _check_staged(staged_regions, train, test, train_sizes) -> int:
    """Check the staged arrays agree on T + 1; returns T."""
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
                "x": 0.36,
                "len": 0.64,
                "y": -0.07,
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


def _title_trace(xs, ys, text: str) -> go.Scatter:
    """The title as a text trace just above the plot's top-left corner: plotly repaints scatter traces in a frame
    without a redraw, but not the layout title or annotations, so the round counter lives here."""
    return go.Scatter(
        x=[float(xs[0] - (xs[1] - xs[0]) / 2)],
        y=[float(ys[-1] + (ys[1] - ys[0]) / 2)],
        text=[text],
        mode="text",
        textposition="top right",
        textfont={"size": 17, "color": "#222"},
        cliponaxis=False,
        hoverinfo="skip",
        showlegend=False,
        name="title",
    )


def _frame(t: int, image: dict, title: tuple, mistakes, wrong, groups, sizes) -> go.Frame:
    """Frame t: only what changes with t (the regions image, mistake visibility, training-point sizes).

    Built from plain dicts without plotly's per-property validation (it would take ~10 ms a frame); the keys are
    fixed here and the tests check the frames' content.
    """
    data, idx = [{"type": "scatter", "text": [title[1]]}], [title[0]]
    if wrong is not None:
        data.append({"type": "scatter", "x": wrong[t][:, 0], "y": wrong[t][:, 1]})
        idx.append(mistakes)
    if sizes is not None:
        for i, rows in groups:
            data.append({"type": "scatter", "marker": {"size": sizes[t][rows]}})
            idx.append(i)
    return go.Frame(data=data, traces=idx, layout={"images": [image]}, name=f"t{t}", _validate=False)


def replay_figure(
    grid_xs,
    grid_ys,
    staged_regions,
    classes,
    *,
    train=None,
    test=None,
    train_sizes=None,
    bayes_regions=None,
    title: str = "",
    start: int | None = None,
    frame_ms: int = FRAME_MS,
    height: int = 600,
) -> go.Figure:
    """Every round's min-risk regions with the data, in one figure: a slider over t and Play / Pause buttons that
    animate the rounds in the browser (plotly frames; no server round trip per frame).

    staged_regions : (T + 1, ny, nx) class indices of the model after t = 0..T rounds
    train, test : ``(X (N, 2), y_idx (N,), staged_pred (T + 1, N))`` or None; the mistake crosses follow t
    train_sizes : (T + 1, N) marker sizes of the training points per round (e.g. ``weight_sizes`` of the
        boosting weights), or None for a fixed size
    bayes_regions : (ny, nx) Bayes-optimal classes, drawn once as dashed boundaries
    title : the figure title (a text trace named "title"), formatted per frame with ``{t}`` (the round
        shown) and ``{T}``, e.g. ``"REBEL after t = {t} of {T} rounds"``
    start : the round shown first (default T); frame_ms : time per frame when playing
    """
    T = _check_staged(staged_regions, train, test, train_sizes)
    start = T if start is None else int(np.clip(start, 0, T))
    K, S = len(classes), np.asarray(staged_regions)
    images = [region_layout_image(grid_xs, grid_ys, S[t], K) for t in range(T + 1)]
    fig = go.Figure()
    if bayes_regions is not None:
        fig.add_traces(
            boundary_traces(grid_xs, grid_ys, bayes_regions, "Bayes-optimal boundaries", BAYES_STYLE)
        )
    colors = class_colors(K)
    groups = []  # (trace index, rows of the training set) of each class's training-point trace
    for split, data in (("train", train), ("test", test)):
        if data is None or not len(data[0]):
            continue
        X, y = np.asarray(data[0]), np.asarray(data[1])
        sized = split == "train" and train_sizes is not None
        for tr in point_traces(
            X, y, classes, colors, split, _sizes_u8(train_sizes[start]) if sized else None
        ):
            if sized:
                groups.append((len(fig.data), np.asarray(tr.customdata)))
            fig.add_trace(tr)
    points, wrong, mistakes = _stack_points(train, test), None, None
    if points is not None:
        X, y, pred = points
        X32 = X.astype(np.float32)
        wrong = [X32[p != y] for p in pred]  # per round, the mistaken points (their crosses)
        mistakes = len(fig.data)
        fig.add_trace(mistake_trace(wrong[start]))
    sizes = None if train_sizes is None else _sizes_u8(train_sizes)
    titles = [title.format(t=t, T=T) for t in range(T + 1)]
    fig.add_trace(_title_trace(grid_xs, grid_ys, titles[start]))
    head = len(fig.data) - 1
    fig.frames = [
        _frame(t, images[t], (head, titles[t]), mistakes, wrong, groups, sizes) for t in range(T + 1)
    ]
    fig.update_layout(images=[images[start]])
    regions_layout(fig, "", height)
    fig.update_layout(margin={"t": 40})
    fig.update_layout(**_controls(T, frame_ms, start))
    fig.update_layout(margin={"b": 110}, legend={"y": -0.25})
    return plane_axes(fig, grid_xs, grid_ys)
