"""Shared look of every figure: fonts, the chart ``config``, layout and trace helpers, presentation mode.

Pure functions on plotly objects (no streamlit). Class names come from user files, so every label built here
is HTML-escaped.
"""

from __future__ import annotations

import html

import plotly.graph_objects as go

from rebel.ui.figures.palette import class_colors

FONT = {"size": 13}
TITLE_FONT = {"size": 13}
GRID_COLOR = "#eee"
PNG_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
"""Plotly ``config`` for every chart: the modebar's camera button downloads a PNG."""
SVG_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "svg"}}
"""Plotly ``config`` whose camera button downloads an SVG (vector figures for slides and papers)."""

# Presentation mode's charts: the toolbar keeps the full screen and the PNG buttons only (its zoom and pan ones
# are a drag and a double-click away), two buttons standing upright at the figure's top right. So short, it ends
# above the verdict's heading beside the regions ("REBEL's minimum-risk class", which at 1280 x 720 reaches into
# the right margin the toolbar stands in) and within the projector layout's top margin.
PRESENTATION_CONFIG = {
    **PNG_CONFIG,
    "modeBarButtonsToRemove": ["zoom2d", "pan2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "resetScale2d"],
}
"""Plotly ``config`` of a chart in presentation mode: ``PNG_CONFIG`` with a two-button toolbar."""

MODEBAR_MARGIN = 34  # px of right margin: room for plotly's hover toolbar standing upright at the right edge
"""The hover toolbar (modebar) sits at the figure's top right; lying flat it covered the title's end."""

PRESENTATION_SIZE = (1280, 720)
PRESENTATION_FONT = 22
PRESENTATION_FONT_SCREEN = 21  # the Playground's presentation mode: 20 px or more for the back of a room
PRESENTATION_FONT_MIN = 20  # no text of a figure in presentation mode is smaller (legends included)


def esc(text) -> str:
    """User text made safe for plotly's HTML-like labels."""
    return html.escape(str(text))


def class_label(name, color: str) -> str:
    """A class name with a colour swatch, HTML-escaped (class names come from user files)."""
    return f"<span style='color:{color}'>■</span> {esc(name)}"


def class_labels(classes) -> list:
    """``class_label`` of every class in its palette colour."""
    colors = class_colors(len(classes))
    return [class_label(c, colors[k]) for k, c in enumerate(classes)]


def discrete_colorscale(colors: list) -> list:
    """A step colorscale mapping integer k (with zmin = -0.5, zmax = K - 0.5) to ``colors[k]``."""
    K = len(colors)
    scale = []
    for k, c in enumerate(colors):
        scale += [[k / K, c], [(k + 1) / K, c]]
    return scale


def legend_below(y: float = -0.25) -> dict:
    """A horizontal legend under the plot."""
    return {"orientation": "h", "y": y, "x": 0}


def layout(fig: go.Figure, title: str, height: int, *, grid: bool = False, top: int | None = None, **kw):
    """Title, height, margins, font and white background; ``grid`` adds light grid lines on every axis."""
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": top if top is not None else (40 if title else 10), "b": 10},
        font=FONT,
        title={"text": title, "x": 0.01, "font": TITLE_FONT},
        plot_bgcolor="white",
        **kw,
    )
    if grid:
        fig.update_xaxes(showgrid=True, gridcolor=GRID_COLOR, zeroline=False)
        fig.update_yaxes(showgrid=True, gridcolor=GRID_COLOR, zeroline=False)
    return clear_of_modebar(fig)


def modebar_layout(right_margin) -> dict:
    """Plotly's hover toolbar upright in a right margin of at least ``MODEBAR_MARGIN`` px, clear of the title
    line (a layout dict)."""
    return {
        "modebar": {"orientation": "v", "bgcolor": "rgba(255,255,255,0.7)"},
        "margin": {"r": max(right_margin or 0, MODEBAR_MARGIN)},
    }


def clear_of_modebar(fig: go.Figure) -> go.Figure:
    """``modebar_layout`` applied to ``fig``."""
    return fig.update_layout(modebar_layout(fig.layout.margin.r))


def merge_layout(base: dict, *updates: dict) -> dict:
    """``updates`` merged into the layout dict ``base`` (in place; returned) as ``fig.update_layout`` would:
    nested dicts merge key by key, anything else (lists included) replaces. Dicts of ``updates`` may end up in
    ``base`` as they are: pass fresh ones."""
    for update in updates:
        for key, value in update.items():
            if isinstance(value, dict) and isinstance(base.get(key), dict):
                merge_layout(base[key], value)
            else:
                base[key] = value
    return base


def _without_none(layout: dict) -> dict:
    """``layout`` without its None values, at any depth (plotly's update reads None as "not set")."""
    return {k: _without_none(v) if isinstance(v, dict) else v for k, v in layout.items() if v is not None}


# Once streamlit is imported, plotly's default template is Streamlit's, which holds ~40 colour placeholders
# ("#000001", ...). Its chart component swaps them for the theme's colours in the browser with a ``replaceAll``
# per placeholder over the whole spec as text, twice on every mount, and each placeholder found makes a new copy
# of that text (~1.3 MB for the Playground's replay: ~100 MB of garbage a chart; the swaps ~10 ms longer, the
# garbage collector busier). A large chart that uses none of them takes this template instead: the one default of
# Streamlit's it relies on (no marker outlines unless set); the theme's fonts and colours are still added in the
# browser.
LEAN_TEMPLATE = {"data": {"scatter": [{"marker": {"line": {"width": 0}}, "type": "scatter"}]}}


def set_layout(fig: go.Figure, layout: dict) -> go.Figure:
    """Set the layout keys of ``layout`` (a plain dict, e.g. built with ``merge_layout``) on ``fig`` as they are,
    each replacing the key it names (None values are left unset), without plotly's per-property validation:
    validating a figure's layout key by key took ~35 ms of a Playground replay figure. The keys are fixed in this
    package, and a test checks every figure built this way against plotly's validation
    (``tests/test_figures_replay.py``); later ``fig.update_layout`` calls validate as usual."""
    fig.layout._validate = False
    try:
        fig.update_layout(_without_none(layout), overwrite=True)
    finally:
        fig.layout._validate = True
    return fig


def line(x, y, name: str, color: str, width: float = 2.0, dash: str = "solid", **kw) -> go.Scatter:
    """One named line trace (``mode`` defaults to lines; extra keywords pass to ``go.Scatter``)."""
    kw.setdefault("mode", "lines")
    return go.Scatter(x=x, y=y, name=name, line={"color": color, "width": width, "dash": dash}, **kw)


def markers(x, y, name: str, color, size: float = 8, **kw) -> go.Scatter:
    """One named marker trace with a thin white rim (extra keywords pass to ``go.Scatter``)."""
    marker = {"color": color, "size": size, "line": {"color": "white", "width": kw.pop("rim", 0.5)}}
    marker.update(kw.pop("marker", {}))
    return go.Scatter(x=x, y=y, name=name, mode="markers", marker=marker, **kw)


def legend_entry(name: str, **marker) -> go.Scatter:
    """A legend-only entry (no data) for layers that have no legend of their own (heatmaps, shapes)."""
    return go.Scatter(x=[None], y=[None], mode="markers", name=name, marker=marker, hoverinfo="skip")


def two_panels(titles, spacing: float = 0.09):
    """A figure of two side-by-side subplots with the given titles."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, horizontal_spacing=spacing, subplot_titles=titles)
    fig.update_annotations(font={"size": 12})
    return fig


def panel_grid(n: int, cols: int, titles, hspace: float, vspace: float) -> tuple:
    """A row-major grid of subplots for ``n`` small panels with ``cols`` per row: ``(fig, rows, cols)``."""
    from plotly.subplots import make_subplots

    cols = min(cols, max(n, 1))
    rows = -(-max(n, 1) // cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[esc(t) for t in titles],
        horizontal_spacing=hspace,
        vertical_spacing=vspace / rows,
    )
    fig.update_annotations(font={"size": 11})
    return fig, rows, cols


def presentation(
    fig: go.Figure, size: tuple | None = PRESENTATION_SIZE, font_size: int = PRESENTATION_FONT
) -> go.Figure:
    """Presentation mode for lectures: fonts large enough to read from the back of a room, at a fixed ``size``
    (width, height) or, with ``size=None``, at the size of the chart's box (the Playground sizes it from the
    viewport).

    Scales every explicit font (title, legend, subplot titles, annotations, trace text, the round slider and
    Play buttons) and the pixel offsets that depend on them (top and bottom margins, controls' padding) by the
    same factor as the base font, and thickens lines a little. Returns the same figure, changed in place.
    """
    factor = font_size / FONT["size"]
    floor = min(font_size, PRESENTATION_FONT_MIN)
    fig.update_layout(
        font={"size": font_size},
        title_font={"size": round(font_size * 1.15)},
        legend_font={"size": max(floor, round(font_size * 0.9))},
    )
    if (
        "legend2" in fig.layout.to_plotly_json()
    ):  # two legend columns (the projector's, many classes): smaller
        small = max(floor, round(font_size * 0.8))
        fig.update_layout(legend_font={"size": small}, legend2_font={"size": small})
    if size is not None:
        fig.update_layout(width=size[0], height=size[1], autosize=False)
    m = fig.layout.margin
    bottom = max(m.b or 0, 20) if size is not None else round((m.b or 10) * factor)
    fig.update_layout(
        margin={"l": max(m.l or 0, 20), "r": max(m.r or 0, 20), "t": round((m.t or 10) * factor), "b": bottom}
    )
    for ann in fig.layout.annotations or ():
        ann.font.size = round((ann.font.size or FONT["size"]) * factor)
    # explicit axis fonts: a chart theme (Streamlit's) sets the tick labels' own size, which the base font
    # does not reach
    axis_fonts = {"tickfont": {"size": font_size}, "title": {"font": {"size": font_size}}}
    fig.update_xaxes(**axis_fonts)
    fig.update_yaxes(**axis_fonts)
    for trace in fig.data:
        if getattr(trace, "textfont", None) is not None and trace.textfont.size:
            trace.textfont.size = round(trace.textfont.size * factor)
        if getattr(trace, "line", None) is not None and trace.line.width:
            trace.line.width = trace.line.width * 1.4
    for slider in fig.layout.sliders or ():
        slider.currentvalue.font.size = round((slider.currentvalue.font.size or FONT["size"]) * factor)
        slider.pad.t = round((slider.pad.t or 0) * factor)
    for menu in fig.layout.updatemenus or ():
        menu.font.size = round((menu.font.size or FONT["size"]) * factor)
        menu.pad.t = round((menu.pad.t or 0) * factor)
    return fig
