"""Cost-sweep figures: per-class recall and precision, and the mean test cost, against one swept cost entry.

Reads the long tables of ``rebel.analysis`` sweeps: ``metrics`` (``value, method, class, recall, precision``)
and ``costs`` (``value, method, test_cost``). The x axis is logarithmic.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.palette import MODEL_COLORS, class_colors
from rebel.ui.figures.style import esc, layout, legend_below, line, two_panels

METHOD_DASH = {"REBEL": "solid", "two-step": "dash"}
CURRENT_LINE = {"color": "#888", "width": 1, "dash": "dot"}


def log_ticks(values) -> dict:
    """Tick settings of a log axis over ``values``: one labelled tick per decade (0.1, 1, 10, 100) when they span
    a decade or more, instead of plotly's default "0.1 2 5 1 2 5 10" minor labels; plain labels otherwise."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v) & (v > 0)]
    if len(v) and v.max() / v.min() >= 10:
        return {"dtick": 1, "tickformat": "~g", "minor": {"dtick": "D1", "ticks": "outside", "ticklen": 3}}
    return {"tickformat": "~g"}


def _sweep_axes(fig, entry_label: str, values, current, title: str, height: int, legend_y: float):
    if current is not None:
        # no annotation: on a log axis plotly would place its text at 10^x
        fig.add_vline(x=float(current), line=CURRENT_LINE)
    fig.update_xaxes(type="log", title_text=esc(entry_label), **log_ticks(values))
    return layout(fig, title, height, grid=True, top=46, legend=legend_below(legend_y))


def sweep_metrics_figure(
    metrics, classes, show=None, entry_label: str = "cost entry", current=None, height: int = 380
) -> go.Figure:
    """Per-class test recall (left) and precision (right) against the swept cost entry (log x axis).

    metrics : long table with ``value, method, class (index), recall, precision``; colour = class, line style =
    method (REBEL solid, two-step dashed); ``show``: class indices to draw (default all); ``current``: the entry's
    value in the current matrix (vertical line).
    """
    colors = class_colors(len(classes))
    show = range(len(classes)) if show is None else show
    fig = two_panels(("recall (test)", "precision (test)"), spacing=0.08)
    for col, metric in enumerate(("recall", "precision"), start=1):
        for k in show:
            for method, dash in METHOD_DASH.items():
                part = metrics[(metrics["class"] == k) & (metrics["method"] == method)]
                if part.empty:
                    continue
                name = f"{esc(classes[k])} · {method}"
                trace = line(
                    part["value"],
                    part[metric],
                    name,
                    colors[k],
                    2.2,
                    dash,
                    mode="lines+markers",
                    legendgroup=name,
                    showlegend=col == 1,
                    marker={"size": 6, "symbol": "circle" if method == "REBEL" else "square-open"},
                    hovertemplate=f"{name}<br>{esc(entry_label)} = %{{x:.3g}}<br>{metric} %{{y:.3f}}<extra></extra>",
                )
                fig.add_trace(trace, row=1, col=col)
    fig.update_yaxes(range=[-0.02, 1.02])
    title = f"recall and precision vs {esc(entry_label)}"
    return _sweep_axes(fig, entry_label, metrics["value"], current, title, height, -0.22)


def sweep_cost_figure(costs, entry_label: str = "cost entry", current=None, height: int = 340) -> go.Figure:
    """Mean test cost (under the swept matrix) of REBEL and two-step against the swept entry (log x axis)."""
    fig = go.Figure()
    for method, part in costs.groupby("method", sort=False):
        fig.add_trace(
            line(
                part["value"],
                part["test_cost"],
                method,
                MODEL_COLORS.get(method, "#333"),
                2.4,
                METHOD_DASH.get(method, "solid"),
                mode="lines+markers",
                hovertemplate=f"{method}<br>{esc(entry_label)} = %{{x:.3g}}<br>test cost %{{y:.4f}}<extra></extra>",
            )
        )
    fig.update_yaxes(title_text="mean test cost", rangemode="tozero")
    return _sweep_axes(
        fig, entry_label, costs["value"], current, f"test cost vs {esc(entry_label)}", height, -0.25
    )
