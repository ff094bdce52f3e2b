"""The regime map with every method: per regime, each method family's held-out mean test cost relative to the
cheapest family there, the cheapest ringed (``rebel.experiments.method_map``; the "methods" entry of
docs/regime_map.json). Pure function returning a figure."""

from __future__ import annotations

import plotly.graph_objects as go

from rebel.ui.figures.palette import METHOD_COLORS
from rebel.ui.figures.style import esc, layout, legend_below

COST_SENSITIVE_SYMBOL, TWO_STEP_SYMBOL, REFERENCE_SYMBOL = "circle", "square", "diamond-open"


def method_map_figure(record: dict, height: int | None = None) -> go.Figure:
    """One row per regime (top to bottom in the record's order); x = a family's mean test cost divided by the
    lowest family mean in that regime (1 = the cheapest, ringed). Circles: cost-sensitive training (REBEL,
    cost-weighted boosting and logistic regression); squares: two-step methods; open diamond: REBEL in paper
    mode with 100 stumps (not selected). ``record``: ``{"families": {key: label}, "rows": [...]}`` with rows as
    written by ``rebel.experiments.method_map.method_record``."""
    rows = record["rows"]
    labels = [esc(f"{r['factor']}: {r['setting']}") for r in rows]
    families = [*record["families"], "rebel_paper"]
    fig = go.Figure()
    for k, fam in enumerate(families):
        ratio, custom = [], []
        for r in rows:
            m = r["methods"][fam]
            low = min(r["methods"][f]["cost"] for f in record["families"])
            ratio.append(m["cost"] / low if low > 0 else 1.0)
            custom.append([m["cost"], esc(m["setting"])])
        symbol = (
            REFERENCE_SYMBOL
            if fam == "rebel_paper"
            else TWO_STEP_SYMBOL
            if fam.startswith("two_step")
            else COST_SENSITIVE_SYMBOL
        )
        name = record["families"].get(fam, "REBEL, paper mode, 100 stumps")
        fig.add_trace(
            go.Scatter(
                x=ratio,
                y=labels,
                mode="markers",
                name=esc(name),
                marker={"color": METHOD_COLORS[k % len(METHOD_COLORS)], "size": 10, "symbol": symbol},
                customdata=custom,
                hovertemplate="%{y}: "
                + esc(name)
                + " %{customdata[0]:.4f} (%{customdata[1]})<extra></extra>",
            )
        )
    best = [r["methods"][r["best"]]["cost"] for r in rows]
    fig.add_trace(
        go.Scatter(
            x=[1.0] * len(rows),
            y=labels,
            mode="markers",
            name="cheapest in the regime",
            marker={"color": "rgba(0,0,0,0)", "size": 20, "line": {"color": "#111", "width": 2}},
            customdata=[[c, esc(record["families"][r["best"]])] for c, r in zip(best, rows)],
            hovertemplate="%{y}: cheapest %{customdata[1]} (%{customdata[0]:.4f})<extra></extra>",
        )
    )
    height = height or 180 + 34 * len(rows)
    layout(fig, "Mean test cost of each method per regime (1 = the cheapest there)", height, grid=True,
           legend=legend_below(-0.14))  # fmt: skip
    fig.update_xaxes(title_text="mean test cost / the cheapest method's", type="log")
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], title_text="")
    return fig
