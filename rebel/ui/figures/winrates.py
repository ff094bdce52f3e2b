"""Win-rate figures: REBEL's share of trials won against a two-step method as capacity (rounds, depth) or the
spread of per-example costs (lambda) grows.

Reads small tables: ``rates`` with columns ``depth, rounds, win_rate, trials`` (capacity) or ``lambda,
win_rate, trials, rebel_cost, two_step_cost, bayes_cost`` (example costs). Pure functions returning figures.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rebel.ui.figures.palette import BAYES_COLOR, METHOD_COLORS, MODEL_COLORS
from rebel.ui.figures.style import layout, legend_below, line

_HALF = {"color": "#888", "dash": "dash", "width": 1.2}


def _half_line(fig: go.Figure, **where) -> None:
    fig.add_hline(
        y=0.5, line=_HALF, annotation_text="half the trials", annotation_position="top left", **where
    )


def win_rate_capacity_figure(rates, part_label: str = "test points", height: int = 360) -> go.Figure:
    """Win rate (y, 0-1) against boosting rounds (x, log scale), one line per tree depth."""
    fig = go.Figure()
    for i, (depth, g) in enumerate(rates.groupby("depth", sort=True)):
        g = g.sort_values("rounds")
        name = "stumps (depth 1)" if depth == 1 else f"depth {depth}"
        hover = "%{x} rounds: REBEL won %{y:.0%} of %{customdata} trials<extra>" + name + "</extra>"
        trace = line(
            g["rounds"], g["win_rate"], name, METHOD_COLORS[i % len(METHOD_COLORS)], mode="lines+markers"
        )
        fig.add_trace(trace.update(customdata=g["trials"], hovertemplate=hover))
    _half_line(fig)
    layout(
        fig, f"REBEL's win rate against capacity ({part_label})", height, grid=True, legend=legend_below(-0.3)
    )
    ticks = sorted({int(t) for t in rates["rounds"]})
    fig.update_xaxes(
        title_text="boosting rounds (both sides)",
        type="log",
        tickvals=ticks,
        ticktext=[str(t) for t in ticks],
    )
    fig.update_yaxes(title_text="trials REBEL wins", range=[0, 1.02], tickformat=".0%")
    return fig


def win_rate_lambda_figure(rates, height: int = 360) -> go.Figure:
    """Left: win rate against lambda (how strongly a point's cost varies along x1). Right: mean test costs of
    REBEL, the two-step method and the Bayes rule against lambda."""
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=("REBEL's win rate", "mean test cost"), horizontal_spacing=0.1
    )
    rates = rates.sort_values("lambda")
    x = rates["lambda"]
    hover = "λ = %{x}: REBEL won %{y:.0%} of %{customdata} trials<extra></extra>"
    win = line(x, rates["win_rate"], "REBEL win rate", MODEL_COLORS["REBEL"], mode="lines+markers")
    fig.add_trace(win.update(customdata=rates["trials"], hovertemplate=hover, showlegend=False), row=1, col=1)
    _half_line(fig, row=1, col=1)
    for name, col, color, dash in (
        ("REBEL (per-example costs)", "rebel_cost", MODEL_COLORS["REBEL"], "solid"),
        ("two-step (class-averaged costs)", "two_step_cost", MODEL_COLORS["two-step"], "solid"),
        ("Bayes rule (knows every cost)", "bayes_cost", BAYES_COLOR, "dot"),
    ):
        fig.add_trace(line(x, rates[col], name, color, dash=dash, mode="lines+markers"), row=1, col=2)
    layout(fig, "", height, grid=True, legend=legend_below(-0.3), top=30)
    fig.update_xaxes(title_text="λ (spread of the per-example costs)", tickvals=sorted(rates["lambda"]))
    fig.update_yaxes(title_text="trials REBEL wins", range=[0, 1.02], tickformat=".0%", row=1, col=1)
    fig.update_yaxes(title_text="mean cost per test point", rangemode="tozero", row=1, col=2)
    return fig
