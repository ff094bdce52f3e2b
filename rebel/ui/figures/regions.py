"""Decision-region figures: a class-index grid as a light uint8 heatmap with the data points on top.

Reads ``regions`` (ny, nx) integer class indices over cell centres ``xs`` (nx,), ``ys`` (ny,) and points as
``(X (N, 2), y_idx (N,), pred_idx (N,))``. Regions are one uint8 heatmap (a few bytes per cell once plotly
base64-encodes it), boundaries one line trace of cell edges, hover off on the grid layers.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.palette import (
    BOUNDARY_COLOR,
    HALO_COLOR,
    MISTAKE_COLOR,
    class_colors,
    class_symbols,
    region_colors,
)
from rebel.ui.figures.style import FONT, discrete_colorscale, esc, legend_entry, merge_layout, modebar_layout

DISAGREE_COLOR = "rgba(40,40,40,0.38)"
TWO_STEP_STYLE = {"color": "#111111", "dash": "dot", "width": 2.2}
"""The two-step boundary: near-black dots on a white halo, readable on every region colour."""
BAYES_STYLE = {"color": BOUNDARY_COLOR, "dash": "dash", "width": 2.0}


def _cell_edges(xs, ys) -> tuple:
    """Coordinates of the cell edges around centres ``xs`` (nx,) and ``ys`` (ny,): ``(xe (nx+1,), ye (ny+1,))``."""
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    xe = np.r_[xs[0] - (xs[1] - xs[0]) / 2, (xs[:-1] + xs[1:]) / 2, xs[-1] + (xs[-1] - xs[-2]) / 2]
    ye = np.r_[ys[0] - (ys[1] - ys[0]) / 2, (ys[:-1] + ys[1:]) / 2, ys[-1] + (ys[-1] - ys[-2]) / 2]
    return xe, ye


def _boundary_edges(labels) -> np.ndarray:
    """Unit edges between cells of different class as corner index pairs ``(E, 2, 2)``: ``[[r0, c0], [r1, c1]]``
    on the (ny + 1) x (nx + 1) lattice of cell corners."""
    L = np.asarray(labels)
    i, j = np.nonzero(L[:, 1:] != L[:, :-1])  # vertical edges between columns j and j + 1
    v = np.stack([np.column_stack([i, j + 1]), np.column_stack([i + 1, j + 1])], axis=1)
    i, j = np.nonzero(L[1:, :] != L[:-1, :])  # horizontal edges between rows i and i + 1
    h = np.stack([np.column_stack([i + 1, j]), np.column_stack([i + 1, j + 1])], axis=1)
    return np.concatenate([v, h]).reshape(-1, 2, 2)


def boundary_segments(xs, ys, labels) -> tuple:
    """Cell edges where a class-index grid changes, as one polyline with NaN breaks: ``(x, y)`` arrays.

    ``labels`` has shape (ny, nx) over cell centres ``xs`` (nx,), ``ys`` (ny,). Each edge is its own piece.
    """
    xe, ye = _cell_edges(xs, ys)
    E = _boundary_edges(labels)
    gap = np.full((len(E), 1), np.nan)
    return np.hstack([xe[E[:, :, 1]], gap]).ravel(), np.hstack([ye[E[:, :, 0]], gap]).ravel()


def _chains(E: np.ndarray, n_cols: int) -> list:
    """Join unit edges ``(E, 2, 2)`` that share corners into maximal chains of corner ids (walks both ways)."""
    ids = E[:, :, 0] * n_cols + E[:, :, 1]
    touching: dict = {}
    for e, (a, b) in enumerate(ids.tolist()):
        touching.setdefault(a, []).append(e)
        touching.setdefault(b, []).append(e)
    used = np.zeros(len(ids), dtype=bool)

    def walk(vertex: int) -> list:
        path = []
        while True:
            free = [e for e in touching[vertex] if not used[e]]
            if not free:
                return path
            used[free[0]] = True
            a, b = ids[free[0]]
            vertex = int(b if a == vertex else a)
            path.append(vertex)

    chains = []
    for e in range(len(ids)):
        if used[e]:
            continue
        used[e] = True
        a, b = (int(v) for v in ids[e])
        chains.append(walk(a)[::-1] + [a, b] + walk(b))
    return chains


def boundary_polylines(xs, ys, labels) -> tuple:
    """The cell edges of ``boundary_segments`` joined into long polylines (NaN between them): ``(x, y)``.

    Dash and dot patterns restart on every piece of a line, so one-cell pieces would draw every boundary
    solid; joined, a dashed boundary stays dashed.
    """
    xe, ye = _cell_edges(xs, ys)
    n_cols = len(xe)
    px, py = [], []
    for chain in _chains(_boundary_edges(labels), n_cols):
        c = np.asarray(chain)
        px += [xe[c % n_cols], [np.nan]]
        py += [ye[c // n_cols], [np.nan]]
    if not px:
        return np.empty(0), np.empty(0)
    return np.concatenate(px), np.concatenate(py)


def weight_sizes(weights, base: float = 7.0, lo: float = 3.0, hi: float = 30.0) -> np.ndarray:
    """Marker sizes for boosting weights (mean 1): area proportional to weight, clipped to [lo, hi] pixels."""
    return np.clip(base * np.sqrt(np.asarray(weights, dtype=np.float64)), lo, hi)


def boundary_traces(xs, ys, labels, name: str, style: dict, halo: bool = False) -> list:
    """The boundaries of a class grid as one line trace (``style``: plotly line dict), optionally on a white
    halo (a wider solid under-stroke, no legend entry) so the line stays visible on any fill."""
    bx, by = boundary_polylines(xs, ys, labels)
    common = {"x": bx, "y": by, "mode": "lines", "hoverinfo": "skip", "connectgaps": False}
    traces = []
    if halo:
        halo_line = {"color": HALO_COLOR, "width": style["width"] + 2.4, "dash": "solid"}
        traces.append(go.Scatter(**common, name=f"{name} halo", showlegend=False, line=halo_line))
    traces.append(go.Scatter(**common, name=name, line=dict(style)))
    return traces


def grid_heatmap(xs, ys, z, zmin: float, zmax: float, colorscale, **kw) -> go.Heatmap:
    """A layer of the plane: ``z`` (ny, nx) over cell centres ``xs``, ``ys`` as a heatmap with no colour bar and
    no hover (``kw``: further heatmap settings: ``name``, ``opacity``)."""
    backdrop = {"showscale": False, "hoverinfo": "skip"}
    return go.Heatmap(x=xs, y=ys, z=z, zmin=zmin, zmax=zmax, colorscale=colorscale, **backdrop, **kw)


def region_heatmap(xs, ys, regions, n_classes: int, name: str = "regions") -> go.Heatmap:
    """A class-index grid as a uint8 heatmap in the light region colours."""
    colorscale = discrete_colorscale(region_colors(n_classes))
    z = np.asarray(regions).astype(np.uint8)
    return grid_heatmap(xs, ys, z, -0.5, n_classes - 0.5, colorscale, name=name)


def point_traces(X, y_idx, classes, colors, split: str, sizes=None) -> list:
    """One marker trace per class present, in the class's colour and shape: training points filled, test points
    hollow."""
    traces = []
    filled = split == "train"
    symbols = class_symbols(len(classes), hollow=not filled)
    for k, name in enumerate(classes):
        mask = np.asarray(y_idx) == k
        if not mask.any():
            continue
        size = 7 if sizes is None else np.asarray(sizes)[mask]
        marker = (
            {"color": colors[k], "size": size, "symbol": symbols[k], "line": {"color": "white", "width": 0.6}}
            if filled
            else {"color": colors[k], "size": size, "symbol": symbols[k], "line": {"width": 1.8}}
        )
        traces.append(
            go.Scatter(
                x=X[mask, 0],
                y=X[mask, 1],
                mode="markers",
                marker=marker,
                legendgroup=str(k),
                name=f"{esc(name)} ({split})",
                customdata=np.flatnonzero(mask),
                hovertemplate=f"{esc(name)} ({split})<br>x=%{{x:.2f}}, y=%{{y:.2f}}<extra></extra>",
            )
        )
    return traces


def mistake_trace(wrong) -> go.Scatter:
    """Small black crosses at the given (M, 2) points."""
    wrong = np.asarray(wrong, dtype=np.float64).reshape(-1, 2)
    return go.Scatter(
        x=wrong[:, 0],
        y=wrong[:, 1],
        mode="markers",
        name="mistake",
        hoverinfo="skip",
        marker={
            "symbol": "x-thin-open",
            "size": 6,
            "color": MISTAKE_COLOR,
            "line": {"width": 1.2, "color": MISTAKE_COLOR},
        },
    )


def _disagreement_traces(xs, ys, regions, other_regions) -> list:
    differ = (np.asarray(other_regions) != np.asarray(regions)).astype(np.uint8)
    colorscale = [[0, "rgba(0,0,0,0)"], [0.5, "rgba(0,0,0,0)"], [0.5, DISAGREE_COLOR], [1, DISAGREE_COLOR]]
    overlay = grid_heatmap(xs, ys, differ, 0, 1, colorscale, name="disagreement")
    # A legend entry for the overlay (heatmaps have none).
    return [overlay, legend_entry("REBEL ≠ two-step", symbol="square", size=12, color="rgba(40,40,40,0.5)")]


def _point_layers(fig: go.Figure, classes, train, test, train_sizes) -> None:
    colors = class_colors(len(classes))
    mistakes = []
    for split, data, sizes in (("train", train, train_sizes), ("test", test, None)):
        if data is None or len(data[0]) == 0:
            continue
        X, y_idx, pred = np.asarray(data[0]), np.asarray(data[1]), np.asarray(data[2])
        fig.add_traces(point_traces(X, y_idx, classes, colors, split, sizes))
        mistakes.append(X[y_idx != pred])
    wrong = np.vstack(mistakes) if mistakes else np.empty((0, 2))
    if len(wrong):
        fig.add_trace(mistake_trace(wrong))


AXIS_NAMES = ("x", "y")  # the plane's axes when the data has no feature names (the trees' splits say "x ≤ …")
EQUAL_SCALE_SPAN = 2.0  # spans of the two axes within this factor: equal scale; else a square plot box


def plane_scale_ratio(xs, ys) -> float:
    """The y axis's pixels per unit over the x axis's: 1 (equal scale: a drawn mixture's shapes are true) when
    the two spans are within a factor ``EQUAL_SCALE_SPAN``, else span_x / span_y, a square plot box (two
    columns of a file in different units would otherwise draw as a thin strip)."""
    span_x, span_y = float(xs[-1]) - float(xs[0]), float(ys[-1]) - float(ys[0])
    if span_x <= 0 or span_y <= 0 or max(span_x, span_y) <= EQUAL_SCALE_SPAN * min(span_x, span_y):
        return 1.0
    return span_x / span_y


def plane_axes_layout(xs, ys, axis_names=AXIS_NAMES, axes=("xaxis", "yaxis")) -> dict:
    """The layout of the plane's axes ``axes`` (layout keys, e.g. ``("xaxis2", "yaxis2")``): a square plot
    (equal scale, or a square box when the spans differ much: ``plane_scale_ratio``), spanning the grid, no grid
    lines, titled with the two feature names. A plain dict (``plane_axes`` applies it)."""
    x_key, y_key = axes
    anchor = "x" + x_key[len("xaxis") :]
    x_name, y_name = (esc(n) for n in (tuple(axis_names or AXIS_NAMES) + AXIS_NAMES)[:2])
    common = {"showgrid": False, "zeroline": False, "constrain": "domain", "automargin": True}
    font = {"size": 12}
    return {
        x_key: {
            "range": [float(xs[0]), float(xs[-1])],
            **common,
            "title": {"text": x_name, "font": dict(font), "standoff": 4},
        },
        y_key: {
            "range": [float(ys[0]), float(ys[-1])],
            "scaleanchor": anchor,
            "scaleratio": plane_scale_ratio(xs, ys),
            **common,
            "title": {"text": y_name, "font": dict(font), "standoff": 4},
        },
    }


def plane_axes(fig: go.Figure, xs, ys, col: int | None = None, axis_names=AXIS_NAMES) -> go.Figure:
    """Equal-scale x/y axes spanning the grid, no grid lines, titled with the two feature names
    (``plane_axes_layout``; of subplot (1, ``col``) when given)."""
    axes = ("xaxis", "yaxis")
    if col is not None:
        sub = fig.get_subplot(1, col)
        axes = (sub.xaxis.plotly_name, sub.yaxis.plotly_name)
    return fig.update_layout(plane_axes_layout(xs, ys, axis_names, axes))


def regions_layout_dict(title: str, height: int, box_select: bool = False) -> dict:
    """The layout of a region view (title, size, legend below; equal axes come from ``plane_axes_layout``) as
    a plain dict, clear of the modebar (``style.modebar_layout``)."""
    layout = {
        "title": {"text": title, "x": 0.01},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        "font": dict(FONT),
        "plot_bgcolor": "white",
        "uirevision": "regions",
        "dragmode": "select" if box_select else "zoom",
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.09, "x": 0, "font": {"size": 11}},
    }
    return merge_layout(layout, modebar_layout(layout["margin"]["r"]))


def regions_layout(fig: go.Figure, title: str, height: int, box_select: bool = False) -> go.Figure:
    """The layout of a region view (``regions_layout_dict``) applied to ``fig``."""
    return fig.update_layout(regions_layout_dict(title, height, box_select))


def regions_figure(
    grid_xs,
    grid_ys,
    regions,
    classes,
    *,
    train=None,
    test=None,
    train_sizes=None,
    bayes_regions=None,
    other_regions=None,
    show_other=False,
    show_disagreement=False,
    title: str = "",
    box_select: bool = False,
    height: int = 560,
    axis_names=AXIS_NAMES,
) -> go.Figure:
    """Min-risk decision regions at one iteration with the data on top (the Playground's main view).

    regions : (ny, nx) class indices of the model on the grid (light class colours)
    train, test : ``(X, y_idx, pred_idx)`` or None; train points filled, test points hollow, mistakes marked x
    train_sizes : marker sizes of the training points (e.g. ``weight_sizes`` of boosting weights)
    bayes_regions : (ny, nx) Bayes-optimal classes, drawn as dashed boundaries
    other_regions : (ny, nx) another model's classes (the two-step baseline): dotted near-black boundaries on a
        white halo if ``show_other``, and a dark overlay where it disagrees with ``regions`` if
        ``show_disagreement``
    axis_names : the two feature names, the axis titles
    """
    fig = go.Figure(region_heatmap(grid_xs, grid_ys, regions, len(classes)))
    if other_regions is not None and show_disagreement:
        fig.add_traces(_disagreement_traces(grid_xs, grid_ys, regions, other_regions))
    if other_regions is not None and show_other:
        fig.add_traces(
            boundary_traces(grid_xs, grid_ys, other_regions, "two-step boundaries", TWO_STEP_STYLE, True)
        )
    if bayes_regions is not None:
        fig.add_traces(
            boundary_traces(grid_xs, grid_ys, bayes_regions, "Bayes-optimal boundaries", BAYES_STYLE)
        )
    _point_layers(fig, classes, train, test, train_sizes)
    regions_layout(fig, title, height, box_select)
    return plane_axes(fig, grid_xs, grid_ys, axis_names=axis_names)
