"""Figures of one boosting round (the Trees page, Fig. 2): the tree f_t, its output vector a_t, the loss while
it grows layer by layer, and the regions of f_t in the plane.

Reads the node table of ``rebel.analysis_runs.tree_nodes`` (columns ``node, level, x, parent, branch, kind,
feature, threshold, sign, idle, reachable`` and optionally ``n, top_class``), ``a`` (K,), per-layer ``losses``
and a weak learner's ``f_grid`` (ny, nx) of +1 / -1 values.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.palette import MODEL_COLORS, SIGN_COLORS, class_colors
from rebel.ui.figures.regions import AXIS_NAMES, grid_heatmap, plane_axes
from rebel.ui.figures.style import class_labels, esc, layout, legend_entry


def _edge_traces(nodes) -> list:
    """The tree's branches as one line trace and their yes / no labels as one text trace."""
    pos = {int(r.node): (float(r.x), -float(r.level)) for r in nodes.itertuples()}
    ex, ey, lx, ly, lt = [], [], [], [], []
    for r in nodes.itertuples():
        if r.parent < 0:
            continue
        (x0, y0), (x1, y1) = pos[int(r.parent)], pos[int(r.node)]
        ex += [x0, x1, None]
        ey += [y0, y1, None]
        lx.append((x0 + x1) / 2)
        ly.append((y0 + y1) / 2)
        lt.append("yes" if r.branch == "<=" else "no")
    edges = go.Scatter(
        x=ex, y=ey, mode="lines", hoverinfo="skip", showlegend=False, line={"color": "#999", "width": 1.4}
    )
    labels = go.Scatter(
        x=lx,
        y=ly,
        mode="text",
        text=lt,
        hoverinfo="skip",
        showlegend=False,
        textfont={"size": 10, "color": "#777"},
    )
    return [edges, labels]


def _node_text(r, kind: str, depth: int, classes, has_n: bool, colors) -> tuple:
    """Label, hover text, fill and ring colour of one node."""
    count = f"<br>n = {r.n}" if has_n else ""
    edge = "#BBBBBB" if not r.reachable else "#333333"
    if kind == "split":
        test = f"{esc(r.feature)} ≤ {r.threshold:.3g}"
        note = "<br>copy of its parent: all its samples go one way" if r.idle else ""
        return (f"({test})" if r.idle else test), f"node {r.node}: {test}?{note}{count}", "white", edge
    top = ""
    if has_n and classes is not None and r.top_class >= 0:
        top = f"<br>most: {esc(classes[r.top_class])}"
        edge = colors[r.top_class]
    hover = f"leaf {r.node - (2**depth - 1)}: f = {r.sign:+d}{count}{top}"
    return f"f = {r.sign:+d}{count}", hover, SIGN_COLORS[int(r.sign)], edge


def _node_trace(part, kind: str, depth: int, classes, has_n: bool, colors) -> go.Scatter:
    """The split squares (test above) or the leaf circles (output and sample count below) of a tree."""
    texts, hovers, fills, lines = zip(
        *(_node_text(r, kind, depth, classes, has_n, colors) for r in part.itertuples())
    )
    leaf = kind == "leaf"
    return go.Scatter(
        x=part["x"],
        y=-part["level"],
        mode="markers+text",
        text=list(texts),
        hovertext=list(hovers),
        hoverinfo="text",
        showlegend=False,
        name=kind,
        textposition="bottom center" if leaf else "top center",
        textfont={
            "size": 12 if depth <= 3 else 10,
            "color": ["#333" if ok else "#AAA" for ok in part["reachable"]],
        },
        marker={
            "symbol": "circle" if leaf else "square",
            "size": 20 if leaf else 16,
            "color": list(fills),
            "line": {"color": list(lines), "width": 2.5 if leaf else 1.5},
        },
    )


def tree_diagram_figure(nodes, classes=None, title: str = "", height: int = 380) -> go.Figure:
    """One round's tree (Fig. 2) from ``rebel.analysis_runs.tree_nodes``: split nodes show their test
    ``feature <= threshold`` (left branch = yes), leaves the weak learner's output f = +1 / -1 (dark / light
    grey) and, when the table has counts, ``n`` = the training samples reaching them (written under each leaf)
    with a ring in the colour of their most frequent class."""
    depth = int(nodes["level"].max())
    has_n = "n" in nodes.columns
    colors = class_colors(len(classes)) if classes is not None else None
    fig = go.Figure(_edge_traces(nodes))
    for kind in ("split", "leaf"):
        fig.add_trace(_node_trace(nodes[nodes["kind"] == kind], kind, depth, classes, has_n, colors))
    layout(fig, title, height)
    fig.update_xaxes(visible=False, range=[-0.02, 1.02])
    fig.update_yaxes(visible=False, range=[-depth - (0.8 if has_n else 0.6), 0.45])
    return fig


def a_vector_figure(a, classes, title: str = "", height: int = 150) -> go.Figure:
    """A round's output vector a_t over the classes as a one-row heatmap (blue > 0, red < 0): where f_t = +1
    the score of class k moves by +a_k, where f_t = -1 by -a_k."""
    a = np.asarray(a, dtype=np.float64)[None, :]
    span = float(np.abs(a).max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=a,
            x=class_labels(classes),
            y=["a_t"],
            colorscale="RdBu",
            zmin=-span,
            zmax=span,
            text=[[f"{v:+.3f}" for v in a[0]]],
            texttemplate="%{text}",
            showscale=False,
            hovertemplate="class %{x}<br>a = %{z:+.4f}<extra></extra>",
        )
    )
    layout(fig, title, height)
    fig.update_xaxes(type="category")
    return fig


def weak_learner_figure(
    xs, ys, f_grid, X, y_idx, classes, title: str = "", height: int = 420, axis_names=AXIS_NAMES
) -> go.Figure:
    """The regions of one weak learner f_t (dark grey: +1, light grey: -1) with the training points in their
    class colours on top."""
    grey = [[0, SIGN_COLORS[-1]], [0.5, SIGN_COLORS[-1]], [0.5, SIGN_COLORS[1]], [1, SIGN_COLORS[1]]]
    fig = go.Figure(
        grid_heatmap(xs, ys, np.asarray(f_grid).astype(np.int8), -1, 1, grey, name="f_t", opacity=0.55)
    )
    for sign in (1, -1):
        fig.add_trace(legend_entry(f"f_t = {sign:+d}", symbol="square", size=12, color=SIGN_COLORS[sign]))
    colors = class_colors(len(classes))
    X, y_idx = np.asarray(X), np.asarray(y_idx)
    for k, name in enumerate(classes):
        mask = y_idx == k
        fig.add_trace(
            go.Scattergl(
                x=X[mask, 0],
                y=X[mask, 1],
                mode="markers",
                name=esc(name),
                marker={"color": colors[k], "size": 5, "line": {"color": "white", "width": 0.4}},
                hoverinfo="skip",
            )
        )
    layout(fig, title, height, legend={"orientation": "h", "y": -0.05, "x": 0})
    return plane_axes(fig, xs, ys, axis_names=axis_names)


def layer_loss_figure(losses, title: str = "", height: int = 300) -> go.Figure:
    """The training loss while one tree grows: before the round, then after each layer (never higher)."""
    losses = np.asarray(losses, dtype=np.float64)
    labels = ["before"] + [f"layer {d}" for d in range(1, len(losses))]
    fig = go.Figure(
        go.Scatter(
            x=labels,
            y=losses,
            mode="lines+markers+text",
            text=[f"{v:.4f}" for v in losses],
            textposition="top center",
            line={"color": MODEL_COLORS["REBEL"], "width": 2.4},
            marker={"size": 9},
            hovertemplate="%{x}<br>loss %{y:.5f}<extra></extra>",
        )
    )
    layout(fig, title, height, showlegend=False)
    pad = max(float(np.ptp(losses)) * 0.35, 1e-6)
    fig.update_yaxes(
        title_text="training loss L",
        range=[losses.min() - pad, losses.max() + pad],
        showgrid=True,
        gridcolor="#eee",
    )
    fig.update_xaxes(type="category")
    return fig
