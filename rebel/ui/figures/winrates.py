"""Win-rate figures: REBEL's share of trials won against a two-step method as capacity (rounds, depth) or the
spread of per-example costs (lambda) grows.

Reads small tables: ``rates`` with columns ``depth, rounds, win_rate, trials`` (capacity) or ``lambda,
win_rate, trials, rebel_cost, two_step_cost, bayes_cost`` (example costs), or the regime map's rows
(``rebel.experiments.calibrated.regime_record``). Pure functions returning figures.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rebel.ui.figures.palette import BAYES_COLOR, METHOD_COLORS, MODEL_COLORS, OUTCOME_COLORS
from rebel.ui.figures.style import esc, layout, legend_below, line

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


REGIME_OUTCOMES = {
    "REBEL cheaper": "REBEL cheaper (interval of the cost difference below 0)",
    "baseline cheaper": "baseline cheaper (interval above 0)",
    "unclear": "no clear difference (interval contains 0)",
}


def regime_outcome(row) -> str:
    """The key of ``REGIME_OUTCOMES`` for one regime row (its cost difference REBEL - baseline and interval)."""
    if row["diff_hi"] is not None and row["diff_hi"] < 0:
        return "REBEL cheaper"
    if row["diff_lo"] is not None and row["diff_lo"] > 0:
        return "baseline cheaper"
    return "unclear"


def regime_map_figure(rows, baseline: str, height: int | None = None) -> go.Figure:
    """The regime map: one row per regime (``factor: setting``, top to bottom in the given order), REBEL's win
    rate against ``baseline`` as a point with its interval (``win_lo``, ``win_hi``), coloured by whether the
    mean cost difference's interval favours REBEL, the baseline or neither; the 50 % line marks half the trials.
    ``rows``: dicts (or a DataFrame) with ``factor, setting, win_rate, win_lo, win_hi, trials, a_cost, b_cost,
    diff, diff_lo, diff_hi`` (``calibrated.regime_record``'s rows)."""
    rows = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    labels = [esc(f"{r['factor']}: {r['setting']}") for r in rows]
    fig = go.Figure()
    for key, color in zip(
        REGIME_OUTCOMES,
        (OUTCOME_COLORS["REBEL cheaper"], OUTCOME_COLORS["two-step cheaper"], OUTCOME_COLORS["tie"]),
    ):
        idx = [i for i, r in enumerate(rows) if regime_outcome(r) == key]
        if not idx:
            continue
        sub = [rows[i] for i in idx]
        win = [r["win_rate"] for r in sub]
        error = {
            "type": "data",
            "symmetric": False,
            "array": [r["win_hi"] - r["win_rate"] for r in sub],
            "arrayminus": [r["win_rate"] - r["win_lo"] for r in sub],
            "color": color,
        }
        custom = [[r["trials"], r["a_cost"], r["b_cost"], r["win_lo"], r["win_hi"]] for r in sub]
        hover = (
            "%{y}: REBEL won %{x:.0%} of %{customdata[0]} trials (95 % CI %{customdata[3]:.0%}–"
            "%{customdata[4]:.0%}); mean cost REBEL %{customdata[1]:.4f}, baseline %{customdata[2]:.4f}"
            "<extra></extra>"
        )
        trace = go.Scatter(
            x=win,
            y=[labels[i] for i in idx],
            mode="markers",
            name=REGIME_OUTCOMES[key],
            marker={"color": color, "size": 10, "line": {"color": "#222", "width": 0.8}},
            error_x=error,
            customdata=custom,
            hovertemplate=hover,
        )
        fig.add_trace(trace)
    fig.add_vline(x=0.5, line=_HALF, annotation_text="half the trials", annotation_position="top right")
    height = height or 140 + 34 * len(rows)
    layout(
        fig, f"REBEL's win rate against the {esc(baseline)}", height, grid=True, legend=legend_below(-0.18)
    )
    fig.update_xaxes(title_text="trials REBEL wins (95 % interval)", range=[-0.02, 1.02], tickformat=".0%")
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], title_text="")
    return fig
