"""Reliability diagram: how often an event happens against the probability a posterior gave it.

Reads ``rebel.calibration.reliability`` tables (columns ``lo, hi, predicted, observed, count``), one per
posterior. Pure function returning a figure; names are escaped.
"""

from __future__ import annotations

import plotly.graph_objects as go

from rebel.calibration import ece
from rebel.ui.figures.palette import METHOD_COLORS
from rebel.ui.figures.style import esc, layout, legend_below, line


def reliability_figure(curves: dict, title: str = "reliability diagram", height: int = 380) -> go.Figure:
    """``curves``: {posterior name: reliability table}. One line per posterior (marker size ~ points in the
    bin), the diagonal of perfect calibration, and each posterior's ECE in its legend entry."""
    fig = go.Figure()
    fig.add_trace(line([0, 1], [0, 1], "perfectly calibrated", "#888", width=1.2, dash="dash"))
    for i, (name, table) in enumerate(curves.items()):
        label = f"{esc(name)} (ECE {ece(table):.3f})" if len(table) else esc(name)
        size = 5 + 12 * (table["count"] / max(int(table["count"].max()), 1)) ** 0.5 if len(table) else 6
        trace = line(
            table["predicted"],
            table["observed"],
            label,
            METHOD_COLORS[i % len(METHOD_COLORS)],
            mode="lines+markers",
        )
        hover = (
            "predicted %{x:.2f}, observed %{y:.2f} (%{customdata} probabilities)<extra>"
            + esc(name)
            + "</extra>"
        )
        fig.add_trace(trace.update(marker={"size": size}, customdata=table["count"], hovertemplate=hover))
    layout(fig, title, height, grid=True, legend=legend_below(-0.3))
    fig.update_xaxes(title_text="predicted probability", range=[0, 1])
    fig.update_yaxes(title_text="observed frequency", range=[0, 1])
    return fig


__all__ = ["reliability_figure"]
