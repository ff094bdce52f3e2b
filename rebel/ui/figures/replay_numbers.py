"""The replay's numbers and its one-screen layout: the numbers lines over the regions (or beside them in the
projector layout), the cost strip with its marker and legend, the layout's constants, and the projector legend's
and strip's places once the fonts are set (``fit_projector_legend``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.palette import BAYES_COLOR, MODEL_COLORS
from rebel.ui.figures.style import (
    esc,
    line,
)

FONT_NUMBERS = 14  # the numbers line above the regions
FONT_STRIP_KEY = 13  # the cost strip's legend (the models' names in their lines' colours)
STRIP_KEY = "strip legend"  # the name of the cost strip's legend trace
HEADER_DOMAIN = (0.999, 1.0)  # paper y of the numbers lines' anchor: they grow upwards into the top margin
CURVE_DOMAIN = (0.0, 0.13)  # paper y of the cost strip under the regions
PLANE_DOMAIN = (0.38, 1.0)  # paper y of the regions (square: their width follows); the legend sits below
LINE_PX = 19  # height of one numbers line (FONT_NUMBERS = 14)
# What lies under the regions keeps its size in px on a taller screen: the cost strip, the gap to the legend and
# all of it (strip, legend, the regions' tick labels), as the fractions above make them at 1280 x 720 (a plot
# area of ~442 px). A taller plot gives its extra height to the regions, not to empty space under them.
CURVE_PX, LEGEND_GAP_PX, BELOW_PLANE_PX = 58, 13, 168
# Left and bottom margins (px) of the one-screen layout: the room plotly's automatic margins take in Streamlit's
# chart theme (the cost strip's tick labels and title on the left; the Play buttons and round slider below).
# Asked for up front, plotly draws the figure once; from smaller margins it draws, widens them and draws again,
# which doubled the time to a painted picture (a wider need still widens them, so nothing is ever clipped).
ONE_SCREEN_MARGIN = (70, 142)
BEFORE_AFTER_MARGIN = (32, 66)  # the same for ``before_after_figure`` (tick labels, legend below)
# The projector layout (presentation mode): the regions fill the plot's height on the left; the verdict's figures,
# the legend and the cost strip sit beside them; only the round and the three costs stay above.
PROJECTOR_PLANE_X = (0.0, 0.6)  # paper x of the regions (square: the narrower of width and height wins)
PROJECTOR_SIDE_X = (0.65, 1.0)  # paper x of the column beside them (the regions sit at their domain's left)
PROJECTOR_CURVE_Y = (0.1, 0.34)  # paper y of the cost strip in that column (room under it for its ticks)
PROJECTOR_CURVE_Y_MANY = (0.07, 0.24)  # with a two-column legend (more classes): a lower, flatter strip
PROJECTOR_LEGEND_ROWS = 2  # more classes: the projector's legend splits into two columns (legend, legend2)
PROJECTOR_CONTROLS_DROP = 8  # px (before presentation mode's font scaling): the buttons and slider sit lower
PROJECTOR_BUTTONS_DROP = (
    15  # px: the buttons lower still, clear of the regions' x axis title (the slider stays)
)
PROJECTOR_NAME_CHARS = 10  # characters of a class name in a half column
PROJECTOR_GUESS_HEIGHT = (
    668  # px: the plot box at 1280 x 720 (``screen.PLOT_TOP`` under the viewport's height)
)
# The narrow projector layout, for a plot box narrower than ``NARROW_RATIO`` times its height (the sidebar open at
# 1280x720): the beside column is too narrow for the verdict's lines and a cost strip with its title, so the
# verdict joins the numbers above the regions (``numbers_text``'s lines, the title left out), and the column
# beside them holds the legend (from the plot's top) and the cost strip under it, its key above it instead of
# its title. More classes than ``NARROW_LEGEND_ROWS`` (a two-column legend): narrower regions.
NARROW_RATIO = 1.05
NARROW_LEGEND_ROWS = 4  # more classes: the narrow layout's legend splits into two columns
NARROW_PLANE_X, NARROW_PLANE_X_MANY = (0.0, 0.6), (0.0, 0.5)  # paper x of the regions
NARROW_SIDE_X, NARROW_SIDE_X_MANY = (0.64, 1.0), (0.54, 1.0)  # paper x of the legend beside them
NARROW_STRIP_SKIP = 0.1  # paper x from the column's left to the strip's: room for its tick labels
NARROW_NAME_CHARS = 7  # characters of a class name in a half column of the narrow layout
# px: the projector layouts' cost strip is never flatter under a two-column legend (its curves readable in a room)
STRIP_MIN_PX = 84
NARROW_CONTROLS_RISE = (
    17  # px (before font scaling): the round control higher (the x axis named beside its ticks)
)


def narrow_box(width: float | None, height: float | None) -> bool:
    """Whether a plot box ``width`` x ``height`` px takes the narrow projector layout (``NARROW_RATIO``); False
    when either is not known."""
    return bool(width and height) and float(width) < NARROW_RATIO * float(height)


def projector_columns(narrow: bool, many: bool) -> tuple:
    """Paper x of the projector layout's parts: ``(regions, the column beside them, the cost strip)``; ``many``:
    a two-column legend."""
    if not narrow:
        return PROJECTOR_PLANE_X, PROJECTOR_SIDE_X, PROJECTOR_SIDE_X
    side = NARROW_SIDE_X_MANY if many else NARROW_SIDE_X
    return (NARROW_PLANE_X_MANY if many else NARROW_PLANE_X), side, (side[0] + NARROW_STRIP_SKIP, 1.0)


def _numbers_parts(numbers: dict, t: int, T: int) -> tuple:
    """Round t's numbers as ``(head, costs, verdict, calibrated)``: the round line, the three test costs (REBEL,
    two-step, Bayes when known), the verdict's figures (the difference, ignoring the costs, the regret against
    Bayes) as a list of short phrases, and the calibrated two-step's test cost after all rounds as two phrases (an
    empty list when not given)."""
    r, s = float(numbers["REBEL"][t]), float(numbers["two-step"][t])
    bayes = numbers.get("Bayes")
    costs = f"<b>REBEL {r:.3f}</b> · <b>two-step {s:.3f}</b> · " + (
        "Bayes n/a" if bayes is None else f"<b>Bayes {bayes:.3f}</b>"
    )
    diff = r - s
    who = (
        "tie"
        if abs(diff) <= numbers.get("tie", 0.0)
        else ("REBEL cheaper" if diff < 0 else "two-step cheaper")
    )
    verdict = [f"{who} ({diff:+.3f})", f"costs ignored: {float(numbers['blind'][t]):.3f}"]
    if bayes is not None:
        verdict += [f"above Bayes: REBEL {r - bayes:+.3f},", f"two-step {s - bayes:+.3f}"]
    cal = numbers.get("calibrated")  # one model, after all rounds
    calibrated = [] if cal is None else ["calibrated two-step:", f"<b>{float(cal):.3f}</b> at t = {T}"]
    return f"<b>t = {t}</b> of {T} · test cost per point:", costs, verdict, calibrated


def numbers_text(numbers: dict, t: int, T: int, title: str = "") -> str:
    """The numbers lines of round t: the three test costs (REBEL, two-step, Bayes when known), the verdict's
    figures (the difference, ignoring the costs, the regret against Bayes) and the calibrated two-step's cost when
    given. Numbers only; ``title`` (escaped) heads them."""
    head, costs, verdict, calibrated = _numbers_parts(numbers, t, T)
    lines = [head, costs, " · ".join(verdict[:2])]
    if len(verdict) > 2:
        lines.append(" ".join(verdict[2:]))
    if calibrated:
        lines.append(" ".join(calibrated))
    return "<br>".join(([f"<b>{esc(title)}</b>"] if title else []) + lines)


def projector_texts(numbers: dict, t: int, T: int, title: str = "") -> tuple:
    """The projector layout's numbers of round t: ``(head, side)``, the round and the three test costs above
    the regions (two lines), the title, the verdict's figures and the calibrated two-step's cost when given
    beside them (one short phrase a line)."""
    head, costs, verdict, calibrated = _numbers_parts(numbers, t, T)
    side = ([f"<b>{esc(title)}</b>"] if title else []) + verdict + calibrated
    return head + "<br>" + costs, "<br>".join(side)


def numbers_lines(numbers: dict, title: str = "") -> int:
    """How many lines ``numbers_text`` writes (the top margin they need)."""
    return 3 + (numbers.get("Bayes") is not None) + (numbers.get("calibrated") is not None) + bool(title)


def _text_trace(text: str, x: float, position: str, name: str, size: int = FONT_NUMBERS) -> go.Scatter:
    """A block of text lines on the hidden axes x2/y2 (x in [0, 1] across the plot, y = 1 its top)."""
    return go.Scatter(
        x=[x],
        y=[1],
        text=[text],
        mode="text",
        textposition=position,
        cliponaxis=False,
        textfont={"size": size},
        xaxis="x2",
        yaxis="y2",
        showlegend=False,
        hoverinfo="skip",
        name=name,
    )


def _add_numbers(
    fig: go.Figure,
    numbers: dict,
    T: int,
    start: int,
    updates: list,
    title: str = "",
    projector: bool = False,
    key_apart: bool = False,
) -> None:
    """The numbers line (axes x2/y2 above the regions) and the cost strip with its round marker (axes x3/y3
    under them, or beside them in the ``projector`` layout, where the verdict's figures go beside the regions
    too), all following t in the frames; ``key_apart``: the strip's key is not drawn inside its top right (the
    projector layouts put it outside the strip's plotting area, where no curve runs: ``strip_key_note`` above
    the narrow layout's strip, the strip's title under the wide layout's)."""
    if projector:
        pairs = [projector_texts(numbers, t, T, title) for t in range(T + 1)]
        updates.append((len(fig.data), [{"text": [head]} for head, _ in pairs]))
        fig.add_trace(_text_trace(pairs[start][0], 0, "top right", "numbers"))
        updates.append((len(fig.data), [{"text": [side]} for _, side in pairs]))
        fig.add_trace(_text_trace(pairs[start][1], PROJECTOR_SIDE_X[0], "bottom right", "verdict", 13))
    else:
        texts = [numbers_text(numbers, t, T, title) for t in range(T + 1)]
        updates.append((len(fig.data), [{"text": [text]} for text in texts]))
        fig.add_trace(_text_trace(texts[start], 0, "top right", "numbers"))
    r, s = np.asarray(numbers["REBEL"], dtype=np.float64), np.asarray(numbers["two-step"], dtype=np.float64)
    rounds = np.arange(T + 1)
    for name, cost in (("REBEL", r), ("two-step", s)):
        fig.add_trace(
            line(
                rounds,
                cost,
                f"{name} test cost",
                MODEL_COLORS[name],
                2.0,
                xaxis="x3",
                yaxis="y3",
                showlegend=False,
                hovertemplate=f"{name} t=%{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    # the strip's own legend: each model's name in its line's colour, at its top right (the curves end low)
    if not key_apart:
        fig.add_trace(
            go.Scatter(
                x=[T],
                y=[max(float(np.nanmax(r)), float(np.nanmax(s)))],
                text=[STRIP_KEY_TEXT],
                mode="text",
                textposition="bottom left",
                textfont={"size": FONT_STRIP_KEY},
                cliponaxis=False,
                xaxis="x3",
                yaxis="y3",
                showlegend=False,
                hoverinfo="skip",
                name=STRIP_KEY,
            )
        )
    if numbers.get("Bayes") is not None:
        b = float(numbers["Bayes"])
        fig.add_trace(
            line(
                [0, T],
                [b, b],
                "Bayes",
                BAYES_COLOR,
                1.2,
                "dash",
                xaxis="x3",
                yaxis="y3",
                showlegend=False,
                hoverinfo="skip",
            )
        )
    colors = [MODEL_COLORS["REBEL"], MODEL_COLORS["two-step"]]
    updates.append((len(fig.data), [{"x": [t, t], "y": [r[t], s[t]]} for t in range(T + 1)]))
    fig.add_trace(
        go.Scatter(
            x=[start, start],
            y=[r[start], s[start]],
            mode="markers",
            marker={"color": colors, "size": 10, "line": {"color": "white", "width": 1.5}},
            xaxis="x3",
            yaxis="y3",
            showlegend=False,
            hoverinfo="skip",
            name="round marker",
        )
    )


def below_plane(area_px: float | None) -> tuple:
    """(the cost strip's top, the legend's bottom, the regions' bottom) in paper y for a plot area ``area_px``
    high: ``CURVE_DOMAIN``, ``PLANE_DOMAIN`` and the legend's gap as fractions, or their px sizes at 1280 x 720
    (``CURVE_PX``, ``LEGEND_GAP_PX``, ``BELOW_PLANE_PX``) where those are the smaller share; the fractions when
    the area is not known (the chart fills its box)."""
    if not area_px or area_px <= 0:
        return CURVE_DOMAIN[1], CURVE_DOMAIN[1] + 0.03, PLANE_DOMAIN[0]
    curve = min(CURVE_DOMAIN[1], CURVE_PX / area_px)
    return curve, curve + min(0.03, LEGEND_GAP_PX / area_px), min(PLANE_DOMAIN[0], BELOW_PLANE_PX / area_px)


STRIP_KEY_TEXT = " ".join(
    f"<span style='color:{MODEL_COLORS[n]}'>━ {n}</span>" for n in ("REBEL", "two-step")
)


def strip_key_note() -> dict:
    """The cost strip's key as a note right-aligned above the strip's plotting area (the narrow projector
    layout), named ``STRIP_KEY``; ``fit_projector_legend`` lifts it clear of the strip's top tick label."""
    return {
        "text": STRIP_KEY_TEXT,
        "name": STRIP_KEY,
        "font": {"size": FONT_STRIP_KEY},
        "xref": "x3 domain",
        "x": 1,
        "xanchor": "right",
        "yref": "y3 domain",
        "y": 1,
        "yanchor": "bottom",
        "showarrow": False,
    }


def _strip_range(numbers: dict) -> tuple:
    """The cost strip's y range: the costs of every round and Bayes's, with a tenth of their spread around."""
    r, s = np.asarray(numbers["REBEL"], dtype=np.float64), np.asarray(numbers["two-step"], dtype=np.float64)
    lo = min(float(np.nanmin(r)), float(np.nanmin(s)), numbers.get("Bayes") or np.inf)
    hi = max(float(np.nanmax(r)), float(np.nanmax(s)))
    pad = max(hi - lo, 1e-6) * 0.1
    return lo - pad, hi + pad


def _numbers_axes(numbers: dict, T: int, below: tuple | None = None) -> dict:
    """Layout of the numbers line's axes (x2/y2, hidden) and the cost strip's (x3/y3); the regions' y domain
    (``below``: ``below_plane``'s split, the fractions by default)."""
    curve_top, _, plane_bottom = below or below_plane(None)
    return {
        "xaxis2": {"domain": [0, 1], "range": [0, 1], "visible": False, "fixedrange": True, "anchor": "y2"},
        "yaxis2": {
            "domain": list(HEADER_DOMAIN),
            "range": [0, 1],
            "visible": False,
            "fixedrange": True,
            "anchor": "x2",
        },
        "xaxis3": {
            "domain": [0, 1],
            "range": [0, max(T, 1)],
            "fixedrange": True,
            "anchor": "y3",
            "showgrid": False,
            "ticks": "outside",
        },
        "yaxis3": {
            "domain": [CURVE_DOMAIN[0], curve_top],
            "range": list(_strip_range(numbers)),
            "fixedrange": True,
            "anchor": "x3",
            "nticks": 3,
            "title": {"text": "test cost"},
        },
        "yaxis": {"domain": [plane_bottom, PLANE_DOMAIN[1]]},
    }


def fit_projector_legend(fig: go.Figure, gap_px: float = 10.0) -> None:
    """In the projector layout (fonts set, ``style.presentation``), the legend's top (both columns') right under
    the verdict's lines beside the regions, at any font size: the verdict grows down from the plot's top and a
    legend anchored by its bottom would grow up into it; the cost strip under the legend. In the narrow layout (no
    verdict beside the regions) the legend starts at the plot area's top, and the strip takes what is left under
    it and its key, above its tick labels. Under a two-column legend (more classes) the strip is ``STRIP_MIN_PX``
    high at least: up into the room the legend leaves, or, when the legend's rows leave too little, first, with
    the legend under it (``_strip_above_legend``).
    A figure of unknown height is placed for ``PROJECTOR_GUESS_HEIGHT``."""
    L = fig.layout
    verdict = next((tr for tr in fig.data if tr.name == "verdict"), None)
    narrow = verdict is None
    if narrow and not any(tr.name == "numbers" for tr in fig.data):
        return
    # a figure that fills its box (no height of its own yet): placed for a 1280 x 720 screen's box
    height = L.height or PROJECTOR_GUESS_HEIGHT
    area = max(height - (L.margin.t or 0) - (L.margin.b or 0), 1)
    lines = 0 if narrow else str(verdict.text[0]).count("<br>") + 1
    y = 1 - (0 if narrow else lines * (verdict.textfont.size or FONT_NUMBERS) * 1.3 + gap_px) / area
    fig.update_layout(legend={"y": y, "yanchor": "top"})
    two = "legend2" in L.to_plotly_json()
    if two:
        fig.update_layout(legend2={"y": y, "yanchor": "top"})
    # the cost strip's top under the legend's rows (its entries a column, ~1.45 lines of its font each)
    entries = [tr for tr in fig.data if tr.showlegend is not False and tr.name]
    rows = -(-len(entries) // 2) if two else len(entries)
    bottom = y - (rows * (L.legend.font.size or FONT_NUMBERS) * 1.45 + 2 * gap_px) / area
    low, high = L.yaxis3.domain
    font = L.font.size or FONT_NUMBERS
    key = next((a for a in L.annotations if a.name == STRIP_KEY), None)
    key_px = 0.0 if key is None else (key.font.size or FONT_STRIP_KEY) * 1.3 + 0.7 * font
    if key is not None:  # the narrow layout: its key above it, its ticks under it
        low, high = font * 1.7 / area, 1.0
    under = bottom - key_px / area  # the strip's top under the legend (and its key)
    if two and (under - low) * area < STRIP_MIN_PX:  # the legend's rows would squeeze it flat
        # (the narrow layout: a gap under the numbers above; the wide one's ``y`` has it under the verdict)
        top = y - (gap_px / area if key is not None else 0.0)
        low, high = _strip_above_legend(fig, top, area, font, gap_px)
    else:
        if key is not None:  # clear of its top tick label
            key.yshift = 0.7 * font
            if bottom - key_px / area >= low + 0.08:
                bottom -= key_px / area
            else:  # no room for the key: the strip alone, its lines still REBEL's and two-step's colours
                L.annotations = [a for a in L.annotations if a.name != STRIP_KEY]
        if bottom < high:
            high = max(low + 0.08, bottom)
        elif two and (high - low) * area < STRIP_MIN_PX:  # up into the room the legend leaves, to its minimum
            high = low + STRIP_MIN_PX / area
        fig.update_layout(yaxis3={"domain": [low, high]})
    # as many of the strip's tick labels as its height holds apart (2 or 3; none when 2 do not fit)
    ticks = int((high - low) * area // (1.6 * font))
    fig.update_layout(yaxis3={"nticks": max(2, min(3, ticks)), "showticklabels": ticks >= 2})


def _strip_above_legend(fig: go.Figure, top: float, area: float, font: float, gap_px: float) -> tuple:
    """The cost strip at ``top`` (paper y: under the verdict, or the plot area's top), ``STRIP_MIN_PX`` high with
    its key right above it (``strip_key_note``, in the legend's font, instead of the wide layout's title under
    it), and the legend (both columns) under the strip's round labels, down into the bottom margin beside the
    round control if it needs to: the legend's rows never squeeze the curves flat. Returns the strip's paper y
    ``(low, high)``."""
    L = fig.layout
    if not any(a.name == STRIP_KEY for a in L.annotations):
        fig.add_annotation(strip_key_note())
        fig.update_layout(xaxis3={"title": {"text": ""}})
    key = next(a for a in L.annotations if a.name == STRIP_KEY)
    key.font.size = max(key.font.size or FONT_STRIP_KEY, L.legend.font.size or FONT_NUMBERS)
    key.yshift = 0.25 * font  # (the key is right-aligned: the strip's tick labels are at its left)
    high = top - (key.font.size * 1.3 + key.yshift) / area
    low = high - STRIP_MIN_PX / area
    legend = {"y": low - (font * 1.7 + gap_px) / area, "yanchor": "top"}
    fig.update_layout(yaxis3={"domain": [max(low, 0.0), high]}, legend=legend)
    if "legend2" in L.to_plotly_json():
        fig.update_layout(legend2=legend)
    return max(low, 0.0), high
