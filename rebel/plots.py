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
    return go.Scatter(
        x=bx,
        y=by,
        mode="lines",
        name=name,
        hoverinfo="skip",
        connectgaps=False,
        line={"color": color, "width": width, "dash": dash},
    )


def _point_traces(X, y_idx, classes, colors, split: str, sizes=None) -> list:
    traces = []
    filled = split == "train"
    for k, name in enumerate(classes):
        mask = np.asarray(y_idx) == k
        if not mask.any():
            continue
        size = 7 if sizes is None else np.asarray(sizes)[mask]
        marker = (
            {"color": colors[k], "size": size, "line": {"color": "white", "width": 0.6}}
            if filled
            else {"color": colors[k], "size": size, "symbol": "circle-open", "line": {"width": 1.8}}
        )
        traces.append(
            go.Scatter(
                x=X[mask, 0],
                y=X[mask, 1],
                mode="markers",
                marker=marker,
                legendgroup=str(k),
                name=f"{html.escape(str(name))} ({split})",
                customdata=np.flatnonzero(mask),
                hovertemplate=f"{html.escape(str(name))} ({split})<br>x=%{{x:.2f}}, y=%{{y:.2f}}<extra></extra>",
            )
        )
    return traces


def regions_figure(
    grid_xs,
    grid_ys,
    regions,
    classes,
    *,
    train=None,
    test=None,
    train_sizes=None,
    bayes_regions=None,
    other_regions=None,
    show_other=False,
    show_disagreement=False,
    title: str = "",
    box_select: bool = False,
    height: int = 560,
) -> go.Figure:
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
    fig.add_trace(
        go.Heatmap(
            x=grid_xs,
            y=grid_ys,
            z=np.asarray(regions, dtype=np.float32),
            zmin=-0.5,
            zmax=K - 0.5,
            colorscale=_discrete_colorscale(light),
            showscale=False,
            hoverinfo="skip",
            name="regions",
        )
    )
    if other_regions is not None and show_disagreement:
        differ = np.where(np.asarray(other_regions) != np.asarray(regions), 1.0, np.nan).astype(np.float32)
        fig.add_trace(
            go.Heatmap(
                x=grid_xs,
                y=grid_ys,
                z=differ,
                zmin=0,
                zmax=1,
                showscale=False,
                hoverinfo="skip",
                colorscale=[[0, "rgba(40,40,40,0.38)"], [1, "rgba(40,40,40,0.38)"]],
                name="disagreement",
            )
        )
        # A legend entry for the overlay (heatmaps have none).
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name="REBEL ≠ two-step",
                marker={"symbol": "square", "size": 12, "color": "rgba(40,40,40,0.5)"},
            )
        )
    if other_regions is not None and show_other:
        fig.add_trace(
            _boundary_trace(
                grid_xs, grid_ys, other_regions, "two-step boundaries", "dot", MODEL_COLORS["two-step"], 2.2
            )
        )
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
        fig.add_trace(
            go.Scatter(
                x=wrong[:, 0],
                y=wrong[:, 1],
                mode="markers",
                name="mistake",
                hoverinfo="skip",
                marker={
                    "symbol": "x-thin-open",
                    "size": 6,
                    "color": MISTAKE_COLOR,
                    "line": {"width": 1.2, "color": MISTAKE_COLOR},
                },
            )
        )
    fig.update_layout(
        title={"text": title, "x": 0.01},
        height=height,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        font=FONT,
        plot_bgcolor="white",
        uirevision="regions",
        dragmode="select" if box_select else "zoom",
        legend={"orientation": "h", "yanchor": "top", "y": -0.09, "x": 0, "font": {"size": 11}},
    )
    fig.update_xaxes(range=[grid_xs[0], grid_xs[-1]], showgrid=False, zeroline=False, constrain="domain")
    fig.update_yaxes(
        range=[grid_ys[0], grid_ys[-1]],
        showgrid=False,
        zeroline=False,
        scaleanchor="x",
        scaleratio=1,
        constrain="domain",
    )
    return fig


def cost_heatmap(cost_matrix, classes, height: int = 300) -> go.Figure:
    """The cost matrix as a heatmap: rows = truth (top to bottom), columns = prediction, values written in."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    colors = class_colors(len(classes))
    labels = [class_label(c, colors[k]) for k, c in enumerate(classes)]
    fig = go.Figure(
        go.Heatmap(
            z=C,
            x=labels,
            y=labels,
            colorscale="Blues",
            zmin=0,
            showscale=False,
            text=[[f"{v:.3g}" for v in row] for row in C],
            texttemplate="%{text}",
            hovertemplate="truth %{y}<br>predicted %{x}<br>cost %{z:.4g}<extra></extra>",
        )
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        font=FONT,
        title={"text": "cost C[truth, predicted]", "x": 0.01, "font": {"size": 13}},
    )
    fig.update_xaxes(title_text="predicted", side="top", type="category")
    fig.update_yaxes(title_text="truth", autorange="reversed", type="category")
    return fig


def cost_curves_figure(
    curves, t: int | None = None, bayes_cost: float | None = None, height: int = 340
) -> go.Figure:
    """Train and test cost vs iteration for REBEL and two-step (long table with t, model, split, cost), the
    Bayes rule's test cost as a horizontal line and a marker at iteration t."""
    fig = go.Figure()
    for (model, split), part in curves.groupby(["model", "split"], sort=False):
        fig.add_trace(
            go.Scatter(
                x=part["t"],
                y=part["cost"],
                mode="lines",
                name=f"{model} {split}",
                line={
                    "color": MODEL_COLORS.get(model, "#333"),
                    "width": 2.4 if split == "test" else 1.4,
                    "dash": "solid" if split == "test" else "dot",
                },
                hovertemplate=f"{model} {split}<br>t=%{{x}}<br>cost %{{y:.4f}}<extra></extra>",
            )
        )
    if bayes_cost is not None:
        fig.add_hline(
            y=bayes_cost,
            line={"color": BAYES_COLOR, "dash": "dash", "width": 1.5},
            annotation_text=f"Bayes rule (test) {bayes_cost:.3f}",
            annotation_position="top right",
        )
    if t is not None:
        fig.add_vline(x=t, line={"color": "#888", "width": 1})
        at = curves[(curves["t"] == t) & (curves["split"] == "test")]
        fig.add_trace(
            go.Scatter(
                x=at["t"],
                y=at["cost"],
                mode="markers",
                name=f"t = {t}",
                showlegend=False,
                marker={
                    "size": 10,
                    "color": [MODEL_COLORS.get(m, "#333") for m in at["model"]],
                    "line": {"color": "white", "width": 1.5},
                },
                hoverinfo="skip",
            )
        )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        font=FONT,
        title={"text": "mean cost vs boosting round t", "x": 0.01, "font": {"size": 13}},
        xaxis_title="round t",
        yaxis_title="mean cost",
        plot_bgcolor="white",
        legend={"orientation": "h", "y": -0.25, "x": 0},
        uirevision="curves",
    )
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#eee", rangemode="tozero")
    return fig


def confusion_figure(counts, cost_share, classes, title: str = "", height: int = 300) -> go.Figure:
    """Cost-weighted confusion matrix: colour = each cell's share of the mean cost, text = count and share."""
    counts, share = np.asarray(counts), np.asarray(cost_share, dtype=np.float64)
    colors = class_colors(len(classes))
    labels = [class_label(c, colors[k]) for k, c in enumerate(classes)]
    text = [[f"{n}<br>{s:.3f}" if s > 0 else f"{n}" for n, s in zip(rn, rs)] for rn, rs in zip(counts, share)]
    fig = go.Figure(
        go.Heatmap(
            z=share,
            x=labels,
            y=labels,
            colorscale="Reds",
            zmin=0,
            showscale=False,
            text=text,
            texttemplate="%{text}",
            customdata=counts,
            hovertemplate="truth %{y}<br>predicted %{x}<br>%{customdata} points<br>cost share %{z:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        font=FONT,
        title={"text": title or "test points: count / cost share", "x": 0.01, "font": {"size": 13}},
    )
    fig.update_xaxes(title_text="predicted", side="top", type="category")
    fig.update_yaxes(title_text="truth", autorange="reversed", type="category")
    return fig


# ---- analysis pages: REBEL vs two-step, trees, real data

OUTCOME_COLORS = {
    "REBEL cheaper": MODEL_COLORS["REBEL"],
    "tie": "#999999",
    "two-step cheaper": MODEL_COLORS["two-step"],
}
SIGN_COLORS = {1: "#5A5A5A", -1: "#D9D9D9"}  # f_t = +1 / -1 (neutral greys: classes keep their own palette)
METHOD_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


def _layout(fig: go.Figure, title: str, height: int, **kw) -> go.Figure:
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        font=FONT,
        title={"text": title, "x": 0.01, "font": {"size": 13}},
        plot_bgcolor="white",
        **kw,
    )
    return fig


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
        fig.add_trace(
            go.Scatter(
                x=part["two_step_cost"],
                y=part["rebel_cost"],
                mode="markers",
                name=f"{name} ({len(part)})",
                marker={"color": color, "size": 8, "opacity": 0.8, "line": {"color": "white", "width": 0.5}},
                customdata=np.column_stack(
                    [part["dataset"].map(lambda s: html.escape(str(s))), part["cost_id"]]
                ),
                hovertemplate="%{customdata[0]}, cost matrix %{customdata[1]}<br>two-step %{x:.4f}<br>"
                "REBEL %{y:.4f}<extra></extra>",
            )
        )
    _layout(
        fig,
        f"test cost per trial ({len(trials)} trials)",
        height,
        legend={"orientation": "h", "y": -0.15, "x": 0},
        uirevision="fig3",
    )
    fig.update_xaxes(
        title_text="two-step (0-1 boosting + min-risk rule) test cost",
        range=[0, hi],
        showgrid=True,
        gridcolor="#eee",
        constrain="domain",
    )
    fig.update_yaxes(
        title_text="REBEL (cost-sensitive) test cost",
        range=[0, hi],
        showgrid=True,
        gridcolor="#eee",
        scaleanchor="x",
        scaleratio=1,
        constrain="domain",
    )
    return fig


def dataset_thumbnails_figure(panels, cols: int = 5, size: int = 170) -> go.Figure:
    """Small scatter plots of several datasets (Fig. 9); ``panels``: dicts with ``X`` (N, 2), ``y_idx``,
    ``n_classes`` and ``title``. Class colours from the palette."""
    from plotly.subplots import make_subplots

    n = max(len(panels), 1)
    cols = min(cols, n)
    rows = -(-n // cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[html.escape(str(p["title"])) for p in panels],
        horizontal_spacing=0.02,
        vertical_spacing=0.12 / rows,
    )
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
    fig.update_annotations(font={"size": 11})
    _layout(fig, "", size * rows + 40)
    fig.update_layout(margin={"t": 30})  # room for the first row's subplot titles
    return fig


def tree_diagram_figure(nodes, classes=None, title: str = "", height: int = 380) -> go.Figure:
    """One round's tree (Fig. 2) from ``rebel.analysis_runs.tree_nodes``: split nodes show their test
    ``feature <= threshold`` (left branch = yes), leaves the weak learner's output f = +1 / -1 (dark / light
    grey) and, when given, the training samples reaching them and their most frequent class."""
    depth = int(nodes["level"].max())
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
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=ex, y=ey, mode="lines", hoverinfo="skip", showlegend=False, line={"color": "#999", "width": 1.4}
        )
    )
    fig.add_trace(
        go.Scatter(
            x=lx,
            y=ly,
            mode="text",
            text=lt,
            hoverinfo="skip",
            showlegend=False,
            textfont={"size": 10, "color": "#777"},
        )
    )
    has_n = "n" in nodes.columns
    colors = class_colors(len(classes)) if classes is not None else None
    for kind in ("split", "leaf"):
        part = nodes[nodes["kind"] == kind]
        texts, hovers, fills, lines = [], [], [], []
        for r in part.itertuples():
            count = f"<br>n = {r.n}" if has_n else ""
            if kind == "split":
                test = f"{html.escape(str(r.feature))} ≤ {r.threshold:.3g}"
                texts.append(f"({test})" if r.idle else test)
                note = "<br>copy of its parent: all its samples go one way" if r.idle else ""
                hovers.append(f"node {r.node}: {test}?{note}{count}")
                fills.append("white")
            else:
                texts.append(f"f = {r.sign:+d}")
                top = ""
                if has_n and classes is not None and r.top_class >= 0:
                    top = f"<br>most: {html.escape(str(classes[r.top_class]))}"
                hovers.append(f"leaf {r.node - (2**depth - 1)}: f = {r.sign:+d}{count}{top}")
                fills.append(SIGN_COLORS[int(r.sign)])
            edge = "#BBBBBB" if not r.reachable else "#333333"
            if kind == "leaf" and has_n and colors is not None and r.top_class >= 0:
                edge = colors[r.top_class]
            lines.append(edge)
        fig.add_trace(
            go.Scatter(
                x=part["x"],
                y=-part["level"],
                mode="markers+text",
                text=texts,
                hovertext=hovers,
                hoverinfo="text",
                showlegend=False,
                name=kind,
                textposition="top center" if kind == "split" else "bottom center",
                textfont={
                    "size": 12 if depth <= 3 else 10,
                    "color": ["#333" if ok else "#AAA" for ok in part["reachable"]],
                },
                marker={
                    "symbol": "square" if kind == "split" else "circle",
                    "size": 16 if kind == "split" else 20,
                    "color": fills,
                    "line": {"color": lines, "width": 2.5 if kind == "leaf" else 1.5},
                },
            )
        )
    _layout(fig, title, height)
    fig.update_xaxes(visible=False, range=[-0.02, 1.02])
    fig.update_yaxes(visible=False, range=[-depth - 0.6, 0.45])
    return fig


def a_vector_figure(a, classes, title: str = "", height: int = 150) -> go.Figure:
    """A round's output vector a_t over the classes as a one-row heatmap (blue > 0, red < 0): where f_t = +1
    the score of class k moves by +a_k, where f_t = -1 by -a_k."""
    a = np.asarray(a, dtype=np.float64)[None, :]
    colors = class_colors(len(classes))
    labels = [class_label(c, colors[k]) for k, c in enumerate(classes)]
    span = float(np.abs(a).max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=a,
            x=labels,
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
    _layout(fig, title, height)
    fig.update_xaxes(type="category")
    return fig


def weak_learner_figure(xs, ys, f_grid, X, y_idx, classes, title: str = "", height: int = 420) -> go.Figure:
    """The regions of one weak learner f_t (dark grey: +1, light grey: -1) with the training points in their
    class colours on top."""
    fig = go.Figure(
        go.Heatmap(
            x=xs,
            y=ys,
            z=np.asarray(f_grid, dtype=np.float32),
            zmin=-1,
            zmax=1,
            showscale=False,
            hoverinfo="skip",
            colorscale=[
                [0, SIGN_COLORS[-1]],
                [0.5, SIGN_COLORS[-1]],
                [0.5, SIGN_COLORS[1]],
                [1, SIGN_COLORS[1]],
            ],
            opacity=0.55,
            name="f_t",
        )
    )
    for sign in (1, -1):
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=f"f_t = {sign:+d}",
                marker={"symbol": "square", "size": 12, "color": SIGN_COLORS[sign]},
            )
        )
    colors = class_colors(len(classes))
    X, y_idx = np.asarray(X), np.asarray(y_idx)
    for k, name in enumerate(classes):
        mask = y_idx == k
        fig.add_trace(
            go.Scattergl(
                x=X[mask, 0],
                y=X[mask, 1],
                mode="markers",
                name=html.escape(str(name)),
                marker={"color": colors[k], "size": 5, "line": {"color": "white", "width": 0.4}},
                hoverinfo="skip",
            )
        )
    _layout(fig, title, height, legend={"orientation": "h", "y": -0.05, "x": 0})
    fig.update_xaxes(range=[xs[0], xs[-1]], showgrid=False, zeroline=False, constrain="domain")
    fig.update_yaxes(
        range=[ys[0], ys[-1]], showgrid=False, zeroline=False, scaleanchor="x", constrain="domain"
    )
    return fig


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
    _layout(fig, title, height, showlegend=False)
    pad = max(float(np.ptp(losses)) * 0.35, 1e-6)
    fig.update_yaxes(
        title_text="training loss L",
        range=[losses.min() - pad, losses.max() + pad],
        showgrid=True,
        gridcolor="#eee",
    )
    fig.update_xaxes(type="category")
    return fig


def method_curves_figure(curves, metric: str = "test_cost", title: str = "", height: int = 400) -> go.Figure:
    """Test cost (or error) vs boosting round for several methods (Fig. 6): long table with method, t and
    ``metric``; the first method (REBEL, cost-sensitive) drawn thickest."""
    fig = go.Figure()
    for i, (method, part) in enumerate(curves.groupby("method", sort=False)):
        name = html.escape(str(method))
        fig.add_trace(
            go.Scatter(
                x=part["t"],
                y=part[metric],
                mode="lines",
                name=name,
                line={
                    "color": METHOD_COLORS[i % len(METHOD_COLORS)],
                    "width": 3 if i == 0 else 1.6,
                    "dash": "solid"
                    if i < 2
                    else ("dot", "dash", "dashdot", "longdash", "solid")[(i - 2) % 5],
                },
                hovertemplate=f"{name}<br>t=%{{x}}<br>%{{y:.4f}}<extra></extra>",
            )
        )
    _layout(
        fig,
        title,
        height,
        xaxis_title="round t",
        yaxis_title=metric.replace("_", " "),
        legend={"orientation": "h", "y": -0.2, "x": 0},
        uirevision="methods",
    )
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#eee", rangemode="tozero")
    return fig


def image_gallery_figure(images, titles, cols: int = 5, size: int = 150, title: str = "") -> go.Figure:
    """Grey-scale images (n, h, w) in a row-major grid with a short title each (Fig. 10, 11)."""
    from plotly.subplots import make_subplots

    images = np.asarray(images, dtype=np.float32)
    n = max(len(images), 1)
    cols = min(cols, n)
    rows = -(-n // cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[html.escape(str(t)) for t in titles],
        horizontal_spacing=0.03,
        vertical_spacing=0.18 / rows,
    )
    for i, img in enumerate(images):
        fig.add_trace(
            go.Heatmap(z=img, colorscale="Greys", showscale=False, hoverinfo="skip"),
            row=i // cols + 1,
            col=i % cols + 1,
        )
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, constrain="domain")
    fig.update_yaxes(
        showticklabels=False, showgrid=False, zeroline=False, autorange="reversed", constrain="domain"
    )
    for i in range(len(images)):
        fig.update_yaxes(scaleanchor=f"x{i + 1 if i else ''}", row=i // cols + 1, col=i % cols + 1)
    fig.update_annotations(font={"size": 11})
    return _layout(fig, title, size * rows + (40 if title else 20))


# ---- analysis pages: paths, gallery, sweep, theory

PATH_LINE_COLOR = "#111111"
TICK_STEP = 0.2  # Fig. 8's nibs at 20 % increments
_METHOD_DASH = {"REBEL": "solid", "two-step": "dash"}


def _ap_layout(fig: go.Figure, title: str, height: int, **kw) -> go.Figure:
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 46 if title else 24, "b": 10},
        font=FONT,
        title={"text": title, "x": 0.01, "font": {"size": 13}},
        plot_bgcolor="white",
        **kw,
    )
    fig.update_xaxes(showgrid=True, gridcolor="#eee", zeroline=False)
    fig.update_yaxes(showgrid=True, gridcolor="#eee", zeroline=False)
    return fig


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
) -> go.Figure:
    """Fig. 8's left panel: min-risk regions with each path drawn on top (arrow at its end, a nib every 20 % of its
    length, its name at the start, waypoints as small squares).

    paths : ``{name: waypoints (m, 2)}``; train : ``(X, y_idx, pred_idx)`` or None.
    click_points : if > 0, an invisible ``click_points`` x ``click_points`` lattice of points over the plane, so
        that a click anywhere selects a point (a click on empty background selects nothing). The drag mode stays
        zoom: streamlit turns click selection off while the box-select tool is active, so that tool is left to the
        user (modebar).
    """
    fig = regions_figure(grid_xs, grid_ys, regions, classes, train=train, title=title, height=height)
    if click_points > 0:
        fig.update_layout(clickmode="event+select")  # a click selects the point under the cursor
        gx, gy = np.meshgrid(
            np.linspace(grid_xs[0], grid_xs[-1], click_points),
            np.linspace(grid_ys[0], grid_ys[-1], click_points),
        )
        fig.add_trace(
            go.Scatter(
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
        )
    span = float(np.hypot(grid_xs[-1] - grid_xs[0], grid_ys[-1] - grid_ys[0]))
    nib = 0.012 * span
    fractions = np.arange(0.0, 1.0 + 1e-9, TICK_STEP)
    for name, pts in paths.items():
        W = np.asarray(pts, dtype=np.float64)
        label = html.escape(str(name))
        for color, width in (("white", 5.0), (PATH_LINE_COLOR, 2.2)):
            fig.add_trace(
                go.Scatter(
                    x=W[:, 0],
                    y=W[:, 1],
                    mode="lines",
                    line={"color": color, "width": width},
                    hoverinfo="skip",
                    showlegend=False,
                    name=f"path {label}",
                )
            )
        P, U = _polyline_at(W, fractions)
        normal = np.column_stack([-U[:, 1], U[:, 0]]) * nib
        tx = np.column_stack(
            [P[:, 0] - normal[:, 0], P[:, 0] + normal[:, 0], np.full(len(P), np.nan)]
        ).ravel()
        ty = np.column_stack(
            [P[:, 1] - normal[:, 1], P[:, 1] + normal[:, 1], np.full(len(P), np.nan)]
        ).ravel()
        fig.add_trace(
            go.Scatter(
                x=tx,
                y=ty,
                mode="lines",
                line={"color": PATH_LINE_COLOR, "width": 2.2},
                hoverinfo="skip",
                showlegend=False,
                name=f"path {label} nibs",
            )
        )
        fig.add_trace(
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
        fig.add_trace(
            go.Scatter(
                x=W[:, 0],
                y=W[:, 1],
                mode="markers",
                showlegend=False,
                name=f"path {label} waypoints",
                marker={
                    "symbol": "square",
                    "size": 6,
                    "color": "white",
                    "line": {"color": PATH_LINE_COLOR, "width": 1.5},
                },
                customdata=np.arange(1, len(W) + 1),
                hovertemplate=f"path {label}, waypoint %{{customdata}}<br>(%{{x:.2f}}, %{{y:.2f}})<extra></extra>",
            )
        )
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
        start = W[0] - U[0] * 2.5 * nib
        fig.add_annotation(
            x=start[0],
            y=start[1],
            text=f"<b>{label}</b>",
            showarrow=False,
            font={"size": 15, "color": PATH_LINE_COLOR},
            bgcolor="rgba(255,255,255,0.8)",
        )
    return fig


def _runs(labels) -> list:
    """Maximal runs of equal labels as ``(start, stop, label)`` index triples (stop exclusive)."""
    labels = np.asarray(labels)
    cuts = np.r_[0, np.flatnonzero(labels[1:] != labels[:-1]) + 1, len(labels)]
    return [(int(cuts[i]), int(cuts[i + 1]), int(labels[cuts[i]])) for i in range(len(cuts) - 1)]


def path_scores_figure(profiles: dict, classes, t: int, height_per_row: int = 260) -> go.Figure:
    """Fig. 8's score panels: H_t(x) along each path (rows) for each model (columns).

    profiles : ``{path name: {model label: (s (n,), H (n, K))}}`` with s the fraction of the path's length.
    One line per class in its colour; the background of each stretch in the light colour of the min-risk class
    argmax_k H_k; a diamond (in the new class's colour) and a dotted line where that class changes.
    """
    from plotly.subplots import make_subplots

    names = list(profiles)
    models = list(next(iter(profiles.values()))) if profiles else []
    K = len(classes)
    colors, light = class_colors(K), region_colors(K)
    titles = [f"path {html.escape(str(p))} · {html.escape(str(m))}" for p in names for m in models]
    fig = make_subplots(
        rows=max(1, len(names)),
        cols=max(1, len(models)),
        subplot_titles=titles,
        horizontal_spacing=0.06,
        vertical_spacing=0.12 if len(names) > 1 else 0.1,
        shared_yaxes="rows",
    )
    shown = set()
    for r, p in enumerate(names, start=1):
        for c, m in enumerate(models, start=1):
            s, H = profiles[p][m]
            x = 100.0 * np.asarray(s, dtype=np.float64)
            H = np.asarray(H, dtype=np.float64)
            win = np.argmax(H, axis=1)
            edges = np.r_[x[0], (x[:-1] + x[1:]) / 2, x[-1]]
            for a, b, k in _runs(win):
                fig.add_vrect(
                    x0=edges[a],
                    x1=edges[b],
                    fillcolor=light[k],
                    opacity=1.0,
                    layer="below",
                    line_width=0,
                    row=r,
                    col=c,
                    exclude_empty_subplots=False,
                )
            for k, name in enumerate(classes):
                fig.add_trace(
                    go.Scatter(
                        x=x,
                        y=H[:, k],
                        mode="lines",
                        line={"color": colors[k], "width": 2.4},
                        name=html.escape(str(name)),
                        legendgroup=f"class{k}",
                        showlegend=k not in shown,
                        hovertemplate=f"{html.escape(str(name))}: H = %{{y:.3f}} at %{{x:.1f}} %<extra></extra>",
                    ),
                    row=r,
                    col=c,
                )
                shown.add(k)
            change = np.flatnonzero(win[1:] != win[:-1]) + 1
            if len(change):
                xc = (x[change - 1] + x[change]) / 2
                for xv in xc:
                    fig.add_vline(
                        x=float(xv),
                        line={"color": "#444", "width": 1, "dash": "dot"},
                        row=r,
                        col=c,
                        exclude_empty_subplots=False,
                    )
                fig.add_trace(
                    go.Scatter(
                        x=xc,
                        y=H[change, win[change]],
                        mode="markers",
                        showlegend=False,
                        name="class change",
                        marker={
                            "symbol": "diamond",
                            "size": 11,
                            "color": [colors[k] for k in win[change]],
                            "line": {"color": "#111", "width": 1.2},
                        },
                        customdata=[str(classes[k]) for k in win[change]],
                        hovertemplate="min-risk class becomes %{customdata} at %{x:.1f} %<extra></extra>",
                    ),
                    row=r,
                    col=c,
                )
    fig.update_xaxes(range=[0, 100], dtick=100 * TICK_STEP, ticksuffix=" %", showgrid=False)
    fig.update_yaxes(
        showgrid=True, gridcolor="rgba(0,0,0,0.08)", zeroline=True, zerolinecolor="rgba(0,0,0,0.25)"
    )
    fig.update_yaxes(title_text="H(x)", col=1)
    fig.update_annotations(font={"size": 12})
    fig.update_layout(
        height=max(300, height_per_row * max(1, len(names)) + 60),
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        font=FONT,
        plot_bgcolor="white",
        title={"text": f"min-risk scores H(x) along the paths at t = {t}", "x": 0.01, "font": {"size": 13}},
        legend={
            "orientation": "h",
            "yref": "container",
            "y": 1.0,
            "yanchor": "top",
            "x": 1,
            "xanchor": "right",
        },
    )
    return fig


def gallery_panel_figure(
    grid_xs, grid_ys, regions, classes, *, train=None, test=None, title: str = "", height: int = 300
) -> go.Figure:
    """One Fig. 7 panel: a model's min-risk regions with the points (mistakes marked), compact, no legend."""
    fig = regions_figure(grid_xs, grid_ys, regions, classes, train=train, test=test, title="", height=height)
    fig.update_layout(
        showlegend=False,
        margin={"l": 4, "r": 4, "t": 30, "b": 4},
        title={"text": title, "x": 0.01, "font": {"size": 12}},
    )
    return fig


def sweep_metrics_figure(
    metrics, classes, show=None, entry_label: str = "cost entry", current=None, height: int = 380
) -> go.Figure:
    """Per-class test recall (left) and precision (right) against the swept cost entry (log x axis).

    metrics : long table with ``value, method, class (index), recall, precision``; colour = class, line style =
    method (REBEL solid, two-step dashed); ``show``: class indices to draw (default all); ``current``: the entry's
    value in the current matrix (vertical line).
    """
    from plotly.subplots import make_subplots

    colors = class_colors(len(classes))
    show = range(len(classes)) if show is None else show
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=("recall (test)", "precision (test)"), horizontal_spacing=0.08
    )
    for col, metric in enumerate(("recall", "precision"), start=1):
        for k in show:
            for method, dash in _METHOD_DASH.items():
                part = metrics[(metrics["class"] == k) & (metrics["method"] == method)]
                if part.empty:
                    continue
                name = f"{html.escape(str(classes[k]))} · {method}"
                fig.add_trace(
                    go.Scatter(
                        x=part["value"],
                        y=part[metric],
                        mode="lines+markers",
                        name=name,
                        legendgroup=name,
                        showlegend=col == 1,
                        line={"color": colors[k], "dash": dash, "width": 2.2},
                        marker={"size": 6, "symbol": "circle" if method == "REBEL" else "square-open"},
                        hovertemplate=f"{name}<br>{html.escape(entry_label)} = %{{x:.3g}}<br>{metric} %{{y:.3f}}"
                        "<extra></extra>",
                    ),
                    row=1,
                    col=col,
                )
    if current is not None:
        fig.add_vline(x=float(current), line={"color": "#888", "width": 1, "dash": "dot"})
    fig.update_xaxes(type="log", title_text=html.escape(entry_label))
    fig.update_yaxes(range=[-0.02, 1.02])
    fig.update_annotations(font={"size": 12})
    return _ap_layout(
        fig,
        f"recall and precision vs {html.escape(entry_label)}",
        height,
        legend={"orientation": "h", "y": -0.22, "x": 0},
    )


def sweep_cost_figure(costs, entry_label: str = "cost entry", current=None, height: int = 340) -> go.Figure:
    """Mean test cost (under the swept matrix) of REBEL and two-step against the swept entry (log x axis)."""
    fig = go.Figure()
    for method, part in costs.groupby("method", sort=False):
        fig.add_trace(
            go.Scatter(
                x=part["value"],
                y=part["test_cost"],
                mode="lines+markers",
                name=method,
                line={
                    "color": MODEL_COLORS.get(method, "#333"),
                    "width": 2.4,
                    "dash": _METHOD_DASH.get(method),
                },
                hovertemplate=f"{method}<br>{html.escape(entry_label)} = %{{x:.3g}}<br>test cost %{{y:.4f}}"
                "<extra></extra>",
            )
        )
    if current is not None:
        # no annotation: on a log axis plotly would place its text at 10^x
        fig.add_vline(x=float(current), line={"color": "#888", "width": 1, "dash": "dot"})
    fig.update_xaxes(type="log", title_text=html.escape(entry_label))
    fig.update_yaxes(title_text="mean test cost", rangemode="tozero")
    return _ap_layout(
        fig,
        f"test cost vs {html.escape(entry_label)}",
        height,
        legend={"orientation": "h", "y": -0.25, "x": 0},
    )


def edge_figure(rounds, height: int = 340) -> go.Figure:
    """Per-round edge of the weak learning condition: gamma_t (Eq. 10 / S.6.1), the Eq. 11 form, the phi_t that
    enters the bound, and the paper's guaranteed phi (where L_{t-1} >= L_bullet)."""
    fig = go.Figure()
    series = (
        ("gamma", "γ_t (S.6.1, Eq. 10)", "#0072B2", "solid"),
        ("gamma_wlc", "γ_t (Eq. 11 form)", "#009E73", "dot"),
        ("phi", "φ_t = ⟨|s⁺−s⁻|,1⟩ / ⟨s⁺+s⁻,1⟩", "#D55E00", "solid"),
        ("phi_paper", "φ from γ (S.6.1, while L ≥ L•)", "#CC79A7", "dash"),
    )
    for col, name, color, dash in series:
        if col in rounds:
            fig.add_trace(
                go.Scatter(
                    x=rounds["t"],
                    y=rounds[col],
                    mode="lines",
                    name=name,
                    line={"color": color, "dash": dash, "width": 2},
                    hovertemplate=f"{name}<br>t=%{{x}}: %{{y:.4f}}<extra></extra>",
                )
            )
    fig.update_xaxes(title_text="round t")
    fig.update_yaxes(title_text="edge", rangemode="tozero")
    return _ap_layout(
        fig, "edge of each round's weak learner", height, legend={"orientation": "h", "y": -0.25, "x": 0}
    )


def bound_figure(rounds, height: int = 360) -> go.Figure:
    """Left: the per-round loss ratio (L_t - L*)/(L_{t-1} - L*) with its bounds sqrt(1 - phi_t^2) and
    e^{-phi_t^2/2} (Eq. 8). Right: the cumulative ratio (L_t - L*)/(L_0 - L*) with prod e^{-phi^2/2} (log y)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.09,
        subplot_titles=("per round: (L_t − L*) / (L_{t−1} − L*)", "since t = 0: (L_t − L*) / (L_0 − L*)"),
    )
    t = rounds["t"]
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["ratio"],
            mode="markers",
            name="measured ratio",
            marker={"color": MODEL_COLORS["REBEL"], "size": 5},
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=t, y=rounds["bound"], mode="lines", name="√(1 − φ_t²)", line={"color": "#D55E00", "width": 1.6}
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["bound_exp"],
            mode="lines",
            name="e^(−φ_t²/2)",
            line={"color": "#555", "width": 1.2, "dash": "dot"},
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["cum_ratio"],
            mode="lines",
            name="measured (cumulative)",
            line={"color": MODEL_COLORS["REBEL"], "width": 2.4},
        ),
        row=1,
        col=2,
    )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["cum_bound"],
            mode="lines",
            name="∏ e^(−φ_s²/2)",
            line={"color": "#555", "width": 1.8, "dash": "dash"},
        ),
        row=1,
        col=2,
    )
    fig.update_xaxes(title_text="round t")
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_annotations(font={"size": 12})
    return _ap_layout(
        fig,
        "loss reduction vs the exponential bound of S.6.1",
        height,
        legend={"orientation": "h", "y": -0.25, "x": 0},
    )


def binary_reduction_figure(rounds, classes, height: int = 340) -> go.Figure:
    """S.8 on a 2-class problem. Left: REBEL's loss and AdaBoost's exponential loss per round. Right: REBEL's
    a_t for both classes against AdaBoost's alpha_t (a_t,1 = alpha_t = -a_t,2)."""
    from plotly.subplots import make_subplots

    c1, c2 = (html.escape(str(c)) for c in classes)
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.09, subplot_titles=("training loss", "weak-learner weights")
    )
    t = rounds["t"]
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["REBEL loss"],
            mode="lines",
            name="REBEL loss L_t",
            line={"color": MODEL_COLORS["REBEL"], "width": 4},
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["AdaBoost loss"],
            mode="lines+markers",
            name="AdaBoost (1/N) Σ e^(−y h)",
            line={"color": "#D55E00", "width": 1.5, "dash": "dot"},
            marker={"size": 4},
        ),
        row=1,
        col=1,
    )
    colors = class_colors(2)
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["a_t (class 1)"],
            mode="lines",
            name=f"REBEL a_t for {c1}",
            line={"color": colors[0], "width": 4},
        ),
        row=1,
        col=2,
    )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["a_t (class 2)"],
            mode="lines",
            name=f"REBEL a_t for {c2}",
            line={"color": colors[1], "width": 4},
        ),
        row=1,
        col=2,
    )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=rounds["AdaBoost alpha_t"],
            mode="markers",
            name="AdaBoost α_t (signed)",
            marker={"color": "#111", "size": 5},
        ),
        row=1,
        col=2,
    )
    fig.update_xaxes(title_text="round t")
    fig.update_annotations(font={"size": 12})
    return _ap_layout(
        fig,
        "binary reduction: REBEL with 0-1 costs is AdaBoost",
        height,
        legend={"orientation": "h", "y": -0.25, "x": 0},
    )
