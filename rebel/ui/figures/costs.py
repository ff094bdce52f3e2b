"""Cost figures of the Playground: the cost matrix, the cost-weighted confusion matrix, cost vs round.

Reads ``cost_matrix`` (K, K) with rows = truth and columns = prediction, confusion ``counts`` (K, K) with their
``cost_share`` (K, K), and the long cost table ``curves`` (columns ``t, model, split, cost``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.palette import BAYES_COLOR, MODEL_COLORS
from rebel.ui.figures.style import FONT, GRID_COLOR, TITLE_FONT, class_labels, clear_of_modebar, line, markers

MAX_WRITTEN_CLASSES = 6
"""Up to this many classes the matrix cells carry their numbers; beyond, cells get too small to read them (a
10 x 10 matrix in a page column shrinks the numbers to ~6 px), so the values move to hover and a colour bar."""
MATRIX_TOP = 72  # top margin: the title on its own line above the "predicted" axis title and the class labels


def _matrix_figure(z, classes, colorscale: str, text, hovertemplate: str, title: str, height: int, **kw):
    """A K x K heatmap with class labels, truth down the rows (top to bottom) and prediction along the top.

    The figure title sits at the very top of the figure and the "predicted" axis title below it, so they never
    overlap; with more than ``MAX_WRITTEN_CLASSES`` classes the numbers are left out of the cells (hover shows
    them) and a colour bar gives the scale.
    """
    written = len(classes) <= MAX_WRITTEN_CLASSES
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=class_labels(classes),
            y=class_labels(classes),
            colorscale=colorscale,
            zmin=0,
            showscale=not written,
            colorbar={"thickness": 12, "len": 0.9},
            text=text,
            texttemplate="%{text}" if written else "",
            textfont={"size": 12},
            hovertemplate=hovertemplate,
            **kw,
        )
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": MATRIX_TOP, "b": 10},
        font=FONT,
        title={
            "text": title,
            "x": 0.01,
            "xanchor": "left",
            "y": 1,
            "yref": "container",
            "yanchor": "top",
            "pad": {"t": 6},
            "font": TITLE_FONT,
        },
    )
    fig.update_xaxes(title_text="predicted", side="top", type="category", title_standoff=4)
    fig.update_yaxes(title_text="truth", autorange="reversed", type="category")
    return clear_of_modebar(fig)


def cost_heatmap(cost_matrix, classes, height: int = 300) -> go.Figure:
    """The cost matrix as a heatmap: rows = truth (top to bottom), columns = prediction, values written in."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    return _matrix_figure(
        C,
        classes,
        "Blues",
        [[f"{v:.3g}" for v in row] for row in C],
        "truth %{y}<br>predicted %{x}<br>cost %{z:.4g}<extra></extra>",
        "cost C[truth, predicted]",
        height,
    )


def confusion_figure(counts, cost_share, classes, title: str = "", height: int = 300) -> go.Figure:
    """Cost-weighted confusion matrix: colour = each cell's share of the mean cost, text = count and share."""
    counts, share = np.asarray(counts), np.asarray(cost_share, dtype=np.float64)
    text = [[f"{n}<br>{s:.3f}" if s > 0 else f"{n}" for n, s in zip(rn, rs)] for rn, rs in zip(counts, share)]
    return _matrix_figure(
        share,
        classes,
        "Reds",
        text,
        "truth %{y}<br>predicted %{x}<br>%{customdata} points<br>cost share %{z:.4f}<extra></extra>",
        title or "test points: count / cost share",
        height,
        customdata=counts,
    )


def cost_curves_figure(
    curves, t: int | None = None, bayes_cost: float | None = None, height: int = 340
) -> go.Figure:
    """Train and test cost vs iteration for REBEL and two-step (long table with t, model, split, cost), the
    Bayes rule's test cost as a horizontal line and a marker at iteration t."""
    fig = go.Figure()
    for (model, split), part in curves.groupby(["model", "split"], sort=False):
        color, test = MODEL_COLORS.get(model, "#333"), split == "test"
        hover = f"{model} {split}<br>t=%{{x}}<br>cost %{{y:.4f}}<extra></extra>"
        width, dash = (2.4, "solid") if test else (1.4, "dot")
        fig.add_trace(
            line(part["t"], part["cost"], f"{model} {split}", color, width, dash, hovertemplate=hover)
        )
    if bayes_cost is not None:
        # The line carries no text in the plot (curves and the t cursor would cross it); the legend names it.
        bayes = {"color": BAYES_COLOR, "dash": "dash", "width": 1.5}
        fig.add_hline(y=bayes_cost, line=bayes)
        fig.add_trace(line([None], [None], f"Bayes rule (test) {bayes_cost:.3f}", BAYES_COLOR, 1.5, "dash"))
    if t is not None:
        fig.add_vline(x=t, line={"color": "#888", "width": 1})
        at = curves[(curves["t"] == t) & (curves["split"] == "test")]
        colors = [MODEL_COLORS.get(m, "#333") for m in at["model"]]
        cursor = markers(
            at["t"], at["cost"], f"t = {t}", colors, 10, rim=1.5, showlegend=False, hoverinfo="skip"
        )
        fig.add_trace(cursor)
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        font=FONT,
        title={"text": "mean cost vs boosting round t", "x": 0.01, "font": TITLE_FONT},
        xaxis_title="round t",
        yaxis_title="mean cost",
        plot_bgcolor="white",
        legend={"orientation": "h", "y": -0.25, "x": 0},
        uirevision="curves",
    )
    fig.update_xaxes(showgrid=True, gridcolor=GRID_COLOR)
    fig.update_yaxes(showgrid=True, gridcolor=GRID_COLOR, rangemode="tozero")
    return clear_of_modebar(fig)
