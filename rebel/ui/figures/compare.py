"""Figures of the REBEL-vs-two-step study (Fig. 3, Fig. 9) and of method comparisons over rounds (Fig. 6).

Reads the trial table (``dataset, cost_id, rebel_cost, two_step_cost``), dataset thumbnails (dicts with ``X``
(N, 2), ``y_idx``, ``n_classes``, ``title``) and the long curve table (``method, t`` and a metric column).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.palette import METHOD_COLORS, OUTCOME_COLORS, class_colors
from rebel.ui.figures.style import GRID_COLOR, esc, layout, legend_below, line, markers, panel_grid

_EXTRA_DASHES = ("dot", "dash", "dashdot", "longdash", "solid")


def fig3_scatter_figure(trials, height: int = 460) -> go.Figure:
    """Fig. 3: two-step test cost (x) against REBEL's (y) per trial; below the diagonal REBEL is cheaper.
    ``trials``: rows with ``dataset, cost_id, rebel_cost, two_step_cost``."""
    outcome = np.where(
        trials["rebel_cost"] < trials["two_step_cost"],
        "REBEL cheaper",
        np.where(trials["rebel_cost"] == trials["two_step_cost"], "tie", "two-step cheaper"),
    )
    fig = go.Figure()
    hi = (
        float(max(trials["rebel_cost"].max(), trials["two_step_cost"].max(), 1e-9)) * 1.05
        if len(trials)
        else 1
    )
    fig.add_trace(
        go.Scatter(
            x=[0, hi],
            y=[0, hi],
            mode="lines",
            name="equal cost",
            hoverinfo="skip",
            line={"color": "#888", "dash": "dash", "width": 1.2},
        )
    )
    for name, color in OUTCOME_COLORS.items():
        part = trials[outcome == name]
        hover = "%{customdata[0]}, cost matrix %{customdata[1]}<br>two-step %{x:.4f}<br>REBEL %{y:.4f}<extra></extra>"
        label = f"{name} ({len(part)})"
        info = np.column_stack([part["dataset"].map(esc), part["cost_id"]])
        trace = markers(
            part["two_step_cost"], part["rebel_cost"], label, color, customdata=info, hovertemplate=hover
        )
        fig.add_trace(trace.update(marker_opacity=0.8))
    layout(
        fig,
        f"test cost per trial ({len(trials)} trials)",
        height,
        legend=legend_below(-0.15),
        uirevision="fig3",
    )
    axis = {"range": [0, hi], "showgrid": True, "gridcolor": GRID_COLOR, "constrain": "domain"}
    fig.update_xaxes(title_text="two-step (0-1 boosting + min-risk rule) test cost", **axis)
    fig.update_yaxes(title_text="REBEL (cost-sensitive) test cost", scaleanchor="x", scaleratio=1, **axis)
    return fig


def dataset_thumbnails_figure(panels, cols: int = 5, size: int = 170) -> go.Figure:
    """Small scatter plots of several datasets (Fig. 9); ``panels``: dicts with ``X`` (N, 2), ``y_idx``,
    ``n_classes`` and ``title``. Class colours from the palette."""
    fig, rows, cols = panel_grid(len(panels), cols, [p["title"] for p in panels], 0.02, 0.12)
    for i, p in enumerate(panels):
        colors = class_colors(p["n_classes"])
        X, y = np.asarray(p["X"]), np.asarray(p["y_idx"])
        fig.add_trace(
            go.Scattergl(
                x=X[:, 0],
                y=X[:, 1],
                mode="markers",
                hoverinfo="skip",
                showlegend=False,
                marker={"size": 3, "color": [colors[k] for k in y]},
            ),
            row=i // cols + 1,
            col=i % cols + 1,
        )
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False)
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False)
    layout(fig, "", size * rows + 40)
    fig.update_layout(margin={"t": 30})  # room for the first row's subplot titles
    return fig


def _same_as(curves, metric: str) -> dict:
    """``{method: earlier method}`` for each method whose curve equals an earlier one's at every round."""
    series = {m: part.set_index("t")[metric] for m, part in curves.groupby("method", sort=False)}
    same = {}
    for i, (m, s) in enumerate(series.items()):
        for other in list(series)[:i]:
            o = series[other]
            if other not in same and len(o) == len(s) and o.index.equals(s.index) and np.allclose(o, s):
                same[m] = other
                break
    return same


def method_curves_figure(curves, metric: str = "test_cost", title: str = "", height: int = 400) -> go.Figure:
    """Test cost (or error) vs boosting round for several methods (Fig. 6): long table with method, t and
    ``metric``; the first method (REBEL, cost-sensitive) drawn thickest. A curve equal to an earlier one (e.g.
    REBEL and two-step under 0-1 costs) is drawn dashed with markers on top of it and its legend entry says
    which curve it coincides with, so neither hides the other."""
    fig = go.Figure()
    same = _same_as(curves, metric)
    for i, (method, part) in enumerate(curves.groupby("method", sort=False)):
        name = esc(method)
        dash = "solid" if i < 2 else _EXTRA_DASHES[(i - 2) % len(_EXTRA_DASHES)]
        color = METHOD_COLORS[i % len(METHOD_COLORS)]
        hover = f"{name}<br>t=%{{x}}<br>%{{y:.4f}}<extra></extra>"
        extra = {}
        if method in same:
            name = f"{name} (same curve as {esc(same[method])})"
            dash = "dash"
            step = max(1, len(part) // 12)  # about a dozen markers along the curve
            sizes = np.where(np.arange(len(part)) % step == 0, 8, 0)
            extra = {"mode": "lines+markers", "marker": {"size": sizes, "symbol": "diamond"}}
        if len(part) == 1:  # a model read once (the calibrated two-step's final model): a marker at its round
            extra = {"mode": "markers", "marker": {"size": 12, "symbol": "star", "color": color}}
        width = 3 if i == 0 else 1.6
        fig.add_trace(line(part["t"], part[metric], name, color, width, dash, hovertemplate=hover, **extra))
    layout(
        fig,
        title,
        height,
        grid=True,
        xaxis_title="round t",
        yaxis_title=metric.replace("_", " "),
        legend=legend_below(-0.2),
        uirevision="methods",
    )
    fig.update_yaxes(rangemode="tozero")
    return fig
