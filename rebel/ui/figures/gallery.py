"""Gallery panels: one compact region panel of the cost gallery (Fig. 7) and grey-scale image grids (Fig. 10,
11).

Reads a class-index grid ``regions`` (ny, nx) with its points, or ``images`` (n, h, w) with one title each.
"""

from __future__ import annotations

import textwrap

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.palette import class_colors, class_symbols
from rebel.ui.figures.regions import regions_figure
from rebel.ui.figures.style import clear_of_modebar, esc, layout, legend_entry, panel_grid

TITLE_CHARS = 22  # characters per title line: a quarter of a 1280 px wide page (sidebar open) holds ~26


def image_gallery_figure(images, titles, cols: int = 5, size: int = 150, title: str = "") -> go.Figure:
    """Grey-scale images (n, h, w) in a row-major grid with a short title each (Fig. 10, 11)."""
    images = np.asarray(images, dtype=np.float32)
    fig, rows, cols = panel_grid(len(images), cols, titles, 0.03, 0.18)
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
    return layout(fig, title, size * rows + (40 if title else 20))


def wrapped_title(text: str, width: int = TITLE_CHARS) -> str:
    """``text`` HTML-escaped and wrapped into lines of at most ``width`` characters (plotly ``<br>``)."""
    return "<br>".join(esc(line) for line in textwrap.wrap(str(text), width)) if str(text).strip() else ""


def gallery_panel_figure(
    grid_xs, grid_ys, regions, classes, *, title: str = "", height: int = 300, **shown
) -> go.Figure:
    """One Fig. 7 panel: a model's min-risk regions with the points (mistakes marked), compact, no legend (the
    gallery's legend is ``class_legend_figure``); the title wraps to fit a quarter of a 1280 px page. ``shown``:
    ``regions_figure``'s keywords of what is drawn (``train``, ``test``, ``axis_names``)."""
    fig = regions_figure(grid_xs, grid_ys, regions, classes, title="", height=height, **shown)
    text = wrapped_title(title)
    fig.update_layout(
        showlegend=False,
        # room for two title lines at least: the plots of panels side by side line up
        margin={"l": 4, "r": 4, "t": 12 + 16 * max(2, text.count("<br>") + 1), "b": 4},
        title={
            "text": text,
            "x": 0.01,
            "font": {"size": 12},
        },
    )
    return clear_of_modebar(fig)


def class_legend_figure(classes, height: int = 44) -> go.Figure:
    """A legend strip of the classes (colour and marker shape of their points), for panels without a legend."""
    colors, symbols = class_colors(len(classes)), class_symbols(len(classes))
    fig = go.Figure(
        [legend_entry(esc(c), color=colors[k], symbol=symbols[k], size=10) for k, c in enumerate(classes)]
    )
    fig.update_layout(
        height=height,
        margin={"l": 0, "r": 0, "t": 0, "b": 0},
        showlegend=True,
        legend={"orientation": "h", "x": 0, "y": 1, "yanchor": "top", "font": {"size": 13}},
        xaxis={"visible": False},
        yaxis={"visible": False},
        plot_bgcolor="white",
    )
    return fig
