"""Risk-path figures (Fig. 8): min-risk regions with paths drawn on top, and the scores H(x) along each path.

Reads a class-index grid ``regions`` (ny, nx) over ``grid_xs``/``grid_ys``, ``paths`` as ``{name: waypoints
(m, 2)}`` and score ``profiles`` as ``{path: {model: (s (n,), H (n, K))}}`` with s the fraction of the length.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.palette import PATH_LINE_COLOR, class_colors, region_colors
from rebel.ui.figures.regions import AXIS_NAMES, regions_figure
from rebel.ui.figures.style import FONT, TITLE_FONT, clear_of_modebar, esc

TICK_STEP = 0.2  # Fig. 8's nibs at 20 % increments
_NONE = {"hoverinfo": "skip", "showlegend": False}


def _polyline_at(waypoints, fractions) -> tuple:
    """Points at the given fractions of a polyline's length, and the unit direction there: ``(P, U)``."""
    W = np.asarray(waypoints, dtype=np.float64)
    keep = np.r_[True, np.any(np.diff(W, axis=0) != 0, axis=1)]
    W = W[keep] if keep.sum() >= 2 else W[[0, -1]]  # repeated waypoints add no length
    seg = np.linalg.norm(np.diff(W, axis=0), axis=1)
    cum = np.r_[0.0, np.cumsum(seg)]
    s = np.asarray(fractions, dtype=np.float64) * cum[-1]
    i = np.clip(np.searchsorted(cum, s, side="right") - 1, 0, len(seg) - 1)
    d = (W[i + 1] - W[i]) / np.maximum(seg[i], 1e-300)[:, None]
    return W[i] + d * (s - cum[i])[:, None], d


def _click_lattice(grid_xs, grid_ys, n: int) -> go.Scatter:
    """An invisible n x n lattice of points over the plane, so that a click anywhere selects a point."""
    gx, gy = np.meshgrid(np.linspace(grid_xs[0], grid_xs[-1], n), np.linspace(grid_ys[0], grid_ys[-1], n))
    return go.Scatter(
        x=gx.ravel(),
        y=gy.ravel(),
        mode="markers",
        name="click target",
        showlegend=False,
        marker={"size": 9, "color": "rgba(0,0,0,0)"},
        unselected={"marker": {"opacity": 0}},
        selected={"marker": {"opacity": 0}},
        hovertemplate="click: add (%{x:.2f}, %{y:.2f})<extra></extra>",
    )


def _path_traces(W, label: str, nib: float, fractions) -> list:
    """A path's line (on a white halo), its nibs every ``TICK_STEP``, hover targets there and its waypoints."""
    traces = [
        go.Scatter(
            x=W[:, 0], y=W[:, 1], mode="lines", line={"color": c, "width": w}, name=f"path {label}", **_NONE
        )
        for c, w in (("white", 5.0), (PATH_LINE_COLOR, 2.2))
    ]
    P, U = _polyline_at(W, fractions)
    normal = np.column_stack([-U[:, 1], U[:, 0]]) * nib
    gap = np.full(len(P), np.nan)
    tx = np.column_stack([P[:, 0] - normal[:, 0], P[:, 0] + normal[:, 0], gap]).ravel()
    ty = np.column_stack([P[:, 1] - normal[:, 1], P[:, 1] + normal[:, 1], gap]).ravel()
    nibs = {"color": PATH_LINE_COLOR, "width": 2.2}
    traces.append(go.Scatter(x=tx, y=ty, mode="lines", line=nibs, name=f"path {label} nibs", **_NONE))
    traces.append(
        go.Scatter(
            x=P[:, 0],
            y=P[:, 1],
            mode="markers",
            marker={"size": 10, "color": "rgba(0,0,0,0)"},
            showlegend=False,
            name=f"path {label} 20 %",
            customdata=np.round(100 * fractions),
            hovertemplate=f"path {label}: %{{customdata:.0f}} %<extra></extra>",
        )
    )
    square = {
        "symbol": "square",
        "size": 6,
        "color": "white",
        "line": {"color": PATH_LINE_COLOR, "width": 1.5},
    }
    traces.append(
        go.Scatter(
            x=W[:, 0],
            y=W[:, 1],
            mode="markers",
            showlegend=False,
            name=f"path {label} waypoints",
            marker=square,
            customdata=np.arange(1, len(W) + 1),
            hovertemplate=f"path {label}, waypoint %{{customdata}}<br>(%{{x:.2f}}, %{{y:.2f}})<extra></extra>",
        )
    )
    return traces


def _path_annotations(fig: go.Figure, W, label: str, nib: float) -> None:
    """An arrow head at the path's end and its name just before its start."""
    tail, _ = _polyline_at(W, [0.96])
    fig.add_annotation(
        x=W[-1, 0],
        y=W[-1, 1],
        ax=tail[0, 0],
        ay=tail[0, 1],
        xref="x",
        yref="y",
        axref="x",
        ayref="y",
        showarrow=True,
        arrowhead=2,
        arrowsize=1.4,
        arrowwidth=2.2,
        arrowcolor=PATH_LINE_COLOR,
        text="",
    )
    _, U = _polyline_at(W, [0.0])
    start = W[0] - U[0] * 2.5 * nib
    fig.add_annotation(
        x=start[0],
        y=start[1],
        text=f"<b>{label}</b>",
        showarrow=False,
        font={"size": 15, "color": PATH_LINE_COLOR},
        bgcolor="rgba(255,255,255,0.8)",
    )


def paths_regions_figure(
    grid_xs,
    grid_ys,
    regions,
    classes,
    paths: dict,
    *,
    train=None,
    title: str = "",
    click_points: int = 0,
    height: int = 560,
    axis_names=AXIS_NAMES,
) -> go.Figure:
    """Fig. 8's left panel: min-risk regions with each path drawn on top (arrow at its end, a nib every 20 % of its
    length, its name at the start, waypoints as small squares).

    paths : ``{name: waypoints (m, 2)}``; train : ``(X, y_idx, pred_idx)`` or None.
    click_points : if > 0, an invisible ``click_points`` x ``click_points`` lattice of points over the plane, so
        that a click anywhere selects a point (a click on empty background selects nothing). The drag mode stays
        zoom: streamlit turns click selection off while the box-select tool is active, so that tool is left to the
        user (modebar).
    """
    fig = regions_figure(
        grid_xs, grid_ys, regions, classes, train=train, title=title, height=height, axis_names=axis_names
    )
    if click_points > 0:
        fig.update_layout(clickmode="event+select")  # a click selects the point under the cursor
        fig.add_trace(_click_lattice(grid_xs, grid_ys, click_points))
    nib = 0.012 * float(np.hypot(grid_xs[-1] - grid_xs[0], grid_ys[-1] - grid_ys[0]))
    fractions = np.arange(0.0, 1.0 + 1e-9, TICK_STEP)
    for name, pts in paths.items():
        W = np.asarray(pts, dtype=np.float64)
        fig.add_traces(_path_traces(W, esc(name), nib, fractions))
        _path_annotations(fig, W, esc(name), nib)
    return fig


def _runs(labels) -> list:
    """Maximal runs of equal labels as ``(start, stop, label)`` index triples (stop exclusive)."""
    labels = np.asarray(labels)
    cuts = np.r_[0, np.flatnonzero(labels[1:] != labels[:-1]) + 1, len(labels)]
    return [(int(cuts[i]), int(cuts[i + 1]), int(labels[cuts[i]])) for i in range(len(cuts) - 1)]


def _cell_refs(fig: go.Figure, r: int, c: int) -> tuple[str, str]:
    """The x axis and the y axis's domain that shapes in subplot (r, c) refer to, e.g. ``("x2", "y2 domain")``."""
    cell = fig.get_subplot(r, c)
    x, y = (axis.plotly_name.replace("axis", "") for axis in (cell.xaxis, cell.yaxis))
    return x, f"{y} domain"


def _score_panel(fig: go.Figure, r: int, c: int, s, H, classes, shown: set, shapes: list) -> None:
    """One path x model panel: a line per class, the min-risk class's light colour behind each stretch, and a
    dotted line and a diamond where that class changes. The stretches and lines are appended to ``shapes`` as
    plain dicts, set on the figure at once by the caller: ``fig.add_vrect`` per stretch re-validates every shape
    added before it, which took minutes at 50 classes."""
    colors, light = class_colors(len(classes)), region_colors(len(classes))
    x = 100.0 * np.asarray(s, dtype=np.float64)
    H = np.asarray(H, dtype=np.float64)
    win = np.argmax(H, axis=1)
    edges = np.r_[x[0], (x[:-1] + x[1:]) / 2, x[-1]]
    xref, yref = _cell_refs(fig, r, c)
    span = {"xref": xref, "yref": yref, "y0": 0, "y1": 1}
    for a, b, k in _runs(win):
        shapes.append(
            {"type": "rect", "x0": float(edges[a]), "x1": float(edges[b]), "fillcolor": light[k], "opacity": 1.0,
             "layer": "below", "line": {"width": 0}, **span}
        )  # fmt: skip
    for k, name in enumerate(classes):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=H[:, k],
                mode="lines",
                line={"color": colors[k], "width": 2.4},
                name=esc(name),
                legendgroup=f"class{k}",
                showlegend=k not in shown,
                hovertemplate=f"{esc(name)}: H = %{{y:.3f}} at %{{x:.1f}} %<extra></extra>",
            ),
            row=r,
            col=c,
        )
        shown.add(k)
    change = np.flatnonzero(win[1:] != win[:-1]) + 1
    if not len(change):
        return
    xc = (x[change - 1] + x[change]) / 2
    for xv in xc:
        shapes.append(
            {"type": "line", "x0": float(xv), "x1": float(xv), "line": {"color": "#444", "width": 1, "dash": "dot"},
             **span}
        )  # fmt: skip
    diamond = {
        "symbol": "diamond",
        "size": 11,
        "color": [colors[k] for k in win[change]],
        "line": {"color": "#111", "width": 1.2},
    }
    fig.add_trace(
        go.Scatter(
            x=xc,
            y=H[change, win[change]],
            mode="markers",
            showlegend=False,
            name="class change",
            marker=diamond,
            customdata=[str(classes[k]) for k in win[change]],
            hovertemplate="min-risk class becomes %{customdata} at %{x:.1f} %<extra></extra>",
        ),
        row=r,
        col=c,
    )


def path_scores_figure(profiles: dict, classes, t: int, height_per_row: int = 260) -> go.Figure:
    """Fig. 8's score panels: H_t(x) along each path (rows) for each model (columns).

    profiles : ``{path name: {model label: (s (n,), H (n, K))}}`` with s the fraction of the path's length.
    One line per class in its colour; the background of each stretch in the light colour of the min-risk class
    argmax_k H_k; a diamond (in the new class's colour) and a dotted line where that class changes.
    """
    from plotly.subplots import make_subplots

    names = list(profiles)
    models = list(next(iter(profiles.values()))) if profiles else []
    fig = make_subplots(
        rows=max(1, len(names)),
        cols=max(1, len(models)),
        subplot_titles=[f"path {esc(p)} · {esc(m)}" for p in names for m in models],
        horizontal_spacing=0.06,
        vertical_spacing=0.12 if len(names) > 1 else 0.1,
        shared_yaxes="rows",
    )
    shown, shapes = set(), []
    for r, p in enumerate(names, start=1):
        for c, m in enumerate(models, start=1):
            _score_panel(fig, r, c, *profiles[p][m], classes, shown, shapes)
    fig.update_layout(shapes=shapes)  # validated once each
    fig.update_xaxes(range=[0, 100], dtick=100 * TICK_STEP, ticksuffix=" %", showgrid=False)
    fig.update_yaxes(
        showgrid=True, gridcolor="rgba(0,0,0,0.08)", zeroline=True, zerolinecolor="rgba(0,0,0,0.25)"
    )
    fig.update_yaxes(title_text="H(x)", col=1)
    fig.update_annotations(font={"size": 12})
    legend = {"orientation": "h", "yref": "container", "y": 1.0, "yanchor": "top", "x": 1, "xanchor": "right"}
    fig.update_layout(
        height=max(300, height_per_row * max(1, len(names)) + 60),
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        font=FONT,
        plot_bgcolor="white",
        title={"text": f"min-risk scores H(x) along the paths at t = {t}", "x": 0.01, "font": TITLE_FONT},
        legend=legend,
    )
    return clear_of_modebar(fig)
