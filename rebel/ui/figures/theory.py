"""Theory figures (Sec. 6, S.6, S.8): the edge of each weak learner, the measured loss reduction against the
exponential bound, and the binary reduction of REBEL to AdaBoost.

Reads per-round tables: ``t`` with ``gamma, gamma_wlc, phi, phi_paper`` (edges), ``ratio, bound, bound_exp,
cum_ratio, cum_bound`` (bound), or ``REBEL loss, AdaBoost loss, a_t (class 1), a_t (class 2), AdaBoost
alpha_t`` (binary reduction).
"""

from __future__ import annotations

import plotly.graph_objects as go

from rebel.ui.figures.palette import MODEL_COLORS, class_colors
from rebel.ui.figures.style import esc, layout, legend_below, line, two_panels

REBEL = MODEL_COLORS["REBEL"]


def _finish(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_xaxes(title_text="round t")
    return layout(fig, title, height, grid=True, top=46, legend=legend_below())


def _add_series(fig: go.Figure, rounds, series) -> go.Figure:
    """Add ``(column, panel, name, color, width, dash, mode)`` series of a per-round table to a 2-panel figure."""
    for col, panel, name, color, width, dash, mode in series:
        trace = line(rounds["t"], rounds[col], name, color, width, dash, mode=mode)
        if "markers" in mode:
            trace.update(marker={"color": color, "size": 5 if mode == "markers" else 4})
        fig.add_trace(trace, row=1, col=panel)
    return fig


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
            hover = f"{name}<br>t=%{{x}}: %{{y:.4f}}<extra></extra>"
            fig.add_trace(line(rounds["t"], rounds[col], name, color, 2, dash, hovertemplate=hover))
    fig.update_yaxes(title_text="edge", rangemode="tozero")
    return _finish(fig, "edge of each round's weak learner", height)


def bound_figure(rounds, height: int = 360) -> go.Figure:
    """Left: the per-round loss ratio (L_t - L*)/(L_{t-1} - L*) with its bounds sqrt(1 - phi_t^2) and
    e^{-phi_t^2/2} (Eq. 8). Right: the cumulative ratio (L_t - L*)/(L_0 - L*) with prod e^{-phi^2/2} (log y)."""
    fig = two_panels(("per round: (L_t − L*) / (L_{t−1} − L*)", "since t = 0: (L_t − L*) / (L_0 − L*)"))
    series = (
        ("ratio", 1, "measured ratio", REBEL, 2, "solid", "markers"),
        ("bound", 1, "√(1 − φ_t²)", "#D55E00", 1.6, "solid", "lines"),
        ("bound_exp", 1, "e^(−φ_t²/2)", "#555", 1.2, "dot", "lines"),
        ("cum_ratio", 2, "measured (cumulative)", REBEL, 2.4, "solid", "lines"),
        ("cum_bound", 2, "∏ e^(−φ_s²/2)", "#555", 1.8, "dash", "lines"),
    )
    _add_series(fig, rounds, series)
    fig.update_yaxes(type="log", row=1, col=2)
    return _finish(fig, "loss reduction vs the exponential bound of S.6.1", height)


def binary_reduction_figure(rounds, classes, height: int = 340) -> go.Figure:
    """S.8 on a 2-class problem. Left: REBEL's loss and AdaBoost's exponential loss per round. Right: REBEL's
    a_t for both classes against AdaBoost's alpha_t (a_t,1 = alpha_t = -a_t,2)."""
    c1, c2 = (esc(c) for c in classes)
    colors = class_colors(2)
    fig = two_panels(("training loss", "weak-learner weights"))
    series = (
        ("REBEL loss", 1, "REBEL loss L_t", REBEL, 4, "solid", "lines"),
        ("AdaBoost loss", 1, "AdaBoost (1/N) Σ e^(−y h)", "#D55E00", 1.5, "dot", "lines+markers"),
        ("a_t (class 1)", 2, f"REBEL a_t for {c1}", colors[0], 4, "solid", "lines"),
        ("a_t (class 2)", 2, f"REBEL a_t for {c2}", colors[1], 4, "solid", "lines"),
        ("AdaBoost alpha_t", 2, "AdaBoost α_t (signed)", "#111", 2, "solid", "markers"),
    )
    _add_series(fig, rounds, series)
    return _finish(fig, "binary reduction: REBEL with 0-1 costs is AdaBoost", height)
