"""Gallery panels: one compact region panel of the cost gallery (Fig. 7) and grey-scale image grids (Fig. 10,
11).

Reads a class-index grid ``regions`` (ny, nx) with its points, or ``images`` (n, h, w) with one title each.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.regions import regions_figure
from rebel.ui.figures.style import layout, panel_grid


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
