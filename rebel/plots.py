"""Plotly figure builders: pure functions, arrays in, ``go.Figure`` out (no streamlit, no training).

Classes are always in sorted order and take their colours from ``rebel.palette`` (regions lighter, points
darker). Figures keep payloads small: regions are one float32 heatmap, boundaries are one line trace of cell
edges, and hover is off on the grid layers.
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from rebel.palette import BOUNDARY_COLOR, MISTAKE_COLOR, class_colors, region_colors

MODEL_COLORS = {"REBEL": "#0072B2", "two-step": "#D55E00"}
BAYES_COLOR = "#555555"
FONT = {"size": 13}
PNG_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
"""Plotly ``config`` for every chart: the modebar's camera button downloads a PNG."""


def class_label(name, color: str) -> str:
    """A class name with a colour swatch, HTML-escaped (class names come from user files)."""
    return f"<span style='color:{color}'>■</span> {html.escape(str(name))}"


def _discrete_colorscale(colors: list) -> list:
    """A step colorscale mapping integer k (with zmin = -0.5, zmax = K - 0.5) to ``colors[k]``."""
    K = len(colors)
    scale = []
    for k, c in enumerate(colors):
        scale += [[k / K, c], [(k + 1) / K, c]]
    return scale


def boundary_segments(xs, ys, labels) -> tuple:
    """Cell edges where a class-index grid changes, as one polyline with NaN breaks: ``(x, y)`` arrays.

    ``labels`` has shape (ny, nx) over cell centres ``xs`` (nx,), ``ys`` (ny,).
    """
    xs, ys, L = np.asarray(xs, float), np.asarray(ys, float), np.asarray(labels)
    xe = np.r_[xs[0] - (xs[1] - xs[0]) / 2, (xs[:-1] + xs[1:]) / 2, xs[-1] + (xs[-1] - xs[-2]) / 2]
    ye = np.r_[ys[0] - (ys[1] - ys[0]) / 2, (ys[:-1] + ys[1:]) / 2, ys[-1] + (ys[-1] - ys[-2]) / 2]
    i, j = np.nonzero(L[:, 1:] != L[:, :-1])  # vertical edges between columns j and j + 1
    vx = np.column_stack([xe[j + 1], xe[j + 1], np.full(len(j), np.nan)])
    vy = np.column_stack([ye[i], ye[i + 1], np.full(len(i), np.nan)])
    i, j = np.nonzero(L[1:, :] != L[:-1, :])  # horizontal edges between rows i and i + 1
    hx = np.column_stack([xe[j], xe[j + 1], np.full(len(j), np.nan)])
    hy = np.column_stack([ye[i + 1], ye[i + 1], np.full(len(i), np.nan)])
    return np.r_[vx.ravel(), hx.ravel()], np.r_[vy.ravel(), hy.ravel()]


def weight_sizes(weights, base: float = 7.0, lo: float = 3.0, hi: float = 30.0) -> np.ndarray:
    """Marker sizes for boosting weights (mean 1): area proportional to weight, clipped to [lo, hi] pixels."""
    return np.clip(base * np.sqrt(np.asarray(weights, dtype=np.float64)), lo, hi)


def _boundary_trace(xs, ys, labels, name: str, dash: str, color: str = BOUNDARY_COLOR, width: float = 2.0):
    bx, by = boundary_segments(xs, ys, labels)
    return go.Scatter(x=bx, y=by, mode="lines", name=name, hoverinfo="skip", connectgaps=False,
                      line={"color": color, "width": width, "dash": dash})


def _point_traces(X, y_idx, classes, colors, split: str, sizes=None) -> list:
    traces = []
    filled = split == "train"
    for k, name in enumerate(classes):
        mask = np.asarray(y_idx) == k
        if not mask.any():
            continue
        size = 7 if sizes is None else np.asarray(sizes)[mask]
        marker = ({"color": colors[k], "size": size, "line": {"color": "white", "width": 0.6}} if filled else
                  {"color": colors[k], "size": size, "symbol": "circle-open", "line": {"width": 1.8}})
        traces.append(go.Scatter(
            x=X[mask, 0], y=X[mask, 1], mode="markers", marker=marker, legendgroup=str(k),
            name=f"{html.escape(str(name))} ({split})", customdata=np.flatnonzero(mask),
            hovertemplate=f"{html.escape(str(name))} ({split})<br>x=%{{x:.2f}}, y=%{{y:.2f}}<extra></extra>",
        ))
    return traces


def regions_figure(grid_xs, grid_ys, regions, classes, *, train=None, test=None, train_sizes=None,
                   bayes_regions=None, other_regions=None, show_other=False, show_disagreement=False,
                   title: str = "", box_select: bool = False, height: int = 560) -> go.Figure:
    """Min-risk decision regions at one iteration with the data on top (the Playground's main view).

    regions : (ny, nx) class indices of the model on the grid (light class colours)
    train, test : ``(X, y_idx, pred_idx)`` or None; train points filled, test points hollow, mistakes marked x
    train_sizes : marker sizes of the training points (e.g. ``weight_sizes`` of boosting weights)
    bayes_regions : (ny, nx) Bayes-optimal classes, drawn as dashed boundaries
    other_regions : (ny, nx) another model's classes (the two-step baseline): dotted boundaries if
        ``show_other``, and a dark overlay where it disagrees with ``regions`` if ``show_disagreement``
    """
    K = len(classes)
    colors, light = class_colors(K), region_colors(K)
    fig = go.Figure()
    fig.add_trace(go.Heatmap(
        x=grid_xs, y=grid_ys, z=np.asarray(regions, dtype=np.float32), zmin=-0.5, zmax=K - 0.5,
        colorscale=_discrete_colorscale(light), showscale=False, hoverinfo="skip", name="regions",
    ))
    if other_regions is not None and show_disagreement:
        differ = np.where(np.asarray(other_regions) != np.asarray(regions), 1.0, np.nan).astype(np.float32)
        fig.add_trace(go.Heatmap(
            x=grid_xs, y=grid_ys, z=differ, zmin=0, zmax=1, showscale=False, hoverinfo="skip",
            colorscale=[[0, "rgba(40,40,40,0.38)"], [1, "rgba(40,40,40,0.38)"]], name="disagreement",
        ))
        # A legend entry for the overlay (heatmaps have none).
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="REBEL ≠ two-step",
                                 marker={"symbol": "square", "size": 12, "color": "rgba(40,40,40,0.5)"}))
    if other_regions is not None and show_other:
        fig.add_trace(_boundary_trace(grid_xs, grid_ys, other_regions, "two-step boundaries", "dot",
                                      MODEL_COLORS["two-step"], 2.2))
    if bayes_regions is not None:
        fig.add_trace(_boundary_trace(grid_xs, grid_ys, bayes_regions, "Bayes-optimal boundaries", "dash"))
    mistakes = []
    for split, data, sizes in (("train", train, train_sizes), ("test", test, None)):
        if data is None or len(data[0]) == 0:
            continue
        X, y_idx, pred = np.asarray(data[0]), np.asarray(data[1]), np.asarray(data[2])
        fig.add_traces(_point_traces(X, y_idx, classes, colors, split, sizes))
        mistakes.append(X[y_idx != pred])
    wrong = np.vstack(mistakes) if mistakes else np.empty((0, 2))
    if len(wrong):
        fig.add_trace(go.Scatter(x=wrong[:, 0], y=wrong[:, 1], mode="markers", name="mistake", hoverinfo="skip",
                                 marker={"symbol": "x-thin-open", "size": 6, "color": MISTAKE_COLOR,
                                         "line": {"width": 1.2, "color": MISTAKE_COLOR}}))
    fig.update_layout(
        title={"text": title, "x": 0.01}, height=height, margin={"l": 10, "r": 10, "t": 40 if title else 10,
                                                                 "b": 10},
        font=FONT, plot_bgcolor="white", uirevision="regions", dragmode="select" if box_select else "zoom",
        legend={"orientation": "h", "yanchor": "top", "y": -0.04, "x": 0, "font": {"size": 11}},
    )
    fig.update_xaxes(range=[grid_xs[0], grid_xs[-1]], showgrid=False, zeroline=False, constrain="domain")
    fig.update_yaxes(range=[grid_ys[0], grid_ys[-1]], showgrid=False, zeroline=False, scaleanchor="x",
                     scaleratio=1, constrain="domain")
    return fig


def cost_heatmap(cost_matrix, classes, height: int = 300) -> go.Figure:
    """The cost matrix as a heatmap: rows = truth (top to bottom), columns = prediction, values written in."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    colors = class_colors(len(classes))
    labels = [class_label(c, colors[k]) for k, c in enumerate(classes)]
    fig = go.Figure(go.Heatmap(
        z=C, x=labels, y=labels, colorscale="Blues", zmin=0, showscale=False,
        text=[[f"{v:.3g}" for v in row] for row in C], texttemplate="%{text}",
        hovertemplate="truth %{y}<br>predicted %{x}<br>cost %{z:.4g}<extra></extra>",
    ))
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 30, "b": 10}, font=FONT,
                      title={"text": "cost C[truth, predicted]", "x": 0.01, "font": {"size": 13}})
    fig.update_xaxes(title_text="predicted", side="top", type="category")
    fig.update_yaxes(title_text="truth", autorange="reversed", type="category")
    return fig


def cost_curves_figure(curves, t: int | None = None, bayes_cost: float | None = None,
                       height: int = 340) -> go.Figure:
    """Train and test cost vs iteration for REBEL and two-step (long table with t, model, split, cost), the
    Bayes rule's test cost as a horizontal line and a marker at iteration t."""
    fig = go.Figure()
    for (model, split), part in curves.groupby(["model", "split"], sort=False):
        fig.add_trace(go.Scatter(
            x=part["t"], y=part["cost"], mode="lines", name=f"{model} {split}",
            line={"color": MODEL_COLORS.get(model, "#333"), "width": 2.4 if split == "test" else 1.4,
                  "dash": "solid" if split == "test" else "dot"},
            hovertemplate=f"{model} {split}<br>t=%{{x}}<br>cost %{{y:.4f}}<extra></extra>",
        ))
    if bayes_cost is not None:
        fig.add_hline(y=bayes_cost, line={"color": BAYES_COLOR, "dash": "dash", "width": 1.5},
                      annotation_text=f"Bayes rule (test) {bayes_cost:.3f}", annotation_position="top right")
    if t is not None:
        fig.add_vline(x=t, line={"color": "#888", "width": 1})
        at = curves[(curves["t"] == t) & (curves["split"] == "test")]
        fig.add_trace(go.Scatter(x=at["t"], y=at["cost"], mode="markers", name=f"t = {t}", showlegend=False,
                                 marker={"size": 10, "color": [MODEL_COLORS.get(m, "#333") for m in at["model"]],
                                         "line": {"color": "white", "width": 1.5}}, hoverinfo="skip"))
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 30, "b": 10}, font=FONT,
                      title={"text": "mean cost vs boosting round t", "x": 0.01, "font": {"size": 13}},
                      xaxis_title="round t", yaxis_title="mean cost", plot_bgcolor="white",
                      legend={"orientation": "h", "y": -0.25, "x": 0}, uirevision="curves")
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#eee", rangemode="tozero")
    return fig


def confusion_figure(counts, cost_share, classes, title: str = "", height: int = 300) -> go.Figure:
    """Cost-weighted confusion matrix: colour = each cell's share of the mean cost, text = count and share."""
    counts, share = np.asarray(counts), np.asarray(cost_share, dtype=np.float64)
    colors = class_colors(len(classes))
    labels = [class_label(c, colors[k]) for k, c in enumerate(classes)]
    text = [[f"{n}<br>{s:.3f}" if s > 0 else f"{n}" for n, s in zip(rn, rs)] for rn, rs in zip(counts, share)]
    fig = go.Figure(go.Heatmap(
        z=share, x=labels, y=labels, colorscale="Reds", zmin=0, showscale=False, text=text,
        texttemplate="%{text}", customdata=counts,
        hovertemplate="truth %{y}<br>predicted %{x}<br>%{customdata} points<br>cost share %{z:.4f}<extra></extra>",
    ))
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 30, "b": 10}, font=FONT,
                      title={"text": title or "test points: count / cost share", "x": 0.01, "font": {"size": 13}})
    fig.update_xaxes(title_text="predicted", side="top", type="category")
    fig.update_yaxes(title_text="truth", autorange="reversed", type="category")
    return fig
