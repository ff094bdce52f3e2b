"""The replay's data points as one image (``point_raster``) under hover-only traces, once the figure's size is
fixed: a layout image after the regions', its extent and drawn size in ``layout.meta`` for the browser's redraw
(``viewport.POINTS_ZOOM``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.budget import BudgetError
from rebel.ui.figures import point_raster
from rebel.ui.figures.palette import class_colors
from rebel.ui.figures.region_png import png_data_uri
from rebel.ui.figures.regions import (
    point_traces,
)
from rebel.ui.figures.style import (
    legend_entry,
)

POINTS_META = "points"
"""The point traces' ``meta``: ``points_as_image`` and the browser's scripts and tests find them by it."""
POINTS_IMAGE = "points image"
"""The name of the layout image that draws the points (``points_as_image``)."""
POINTS_IMAGE_META = "points_image"
"""The key in the figure's ``layout.meta`` of the points image's extent and the plot area's px it was drawn for:
``[x0, x1, y0, y1, width px, height px]``."""


def has_points_image(fig: go.Figure) -> bool:
    """Whether ``fig`` draws its data points as one image (``points_as_image``)."""
    return any(im.name == POINTS_IMAGE for im in fig.layout.images)


def plane_px(fig: go.Figure) -> tuple | None:
    """The regions' plot area (W, H) in px as the browser lays it out from ``fig``'s fixed width, height,
    margins, axis domains and scale-anchored ranges; None when the figure's width or height is not fixed."""
    L = fig.layout
    if not L.width or not L.height or L.xaxis.range is None or L.yaxis.range is None:
        return None
    m = L.margin

    def px(v):
        return 80 if v is None else v  # plotly's default margin

    dx, dy = L.xaxis.domain or (0, 1), L.yaxis.domain or (0, 1)
    span_x, span_y = (float(r[1]) - float(r[0]) for r in (L.xaxis.range, L.yaxis.range))
    across = (L.width - px(m.l) - px(m.r)) * (dx[1] - dx[0])
    down = (L.height - px(m.t) - px(m.b)) * (dy[1] - dy[0])
    span_y *= L.yaxis.scaleratio or 1.0  # y in x's units: a square box's ratio (regions.plane_scale_ratio)
    scale = min(across / span_x, down / span_y) if span_x > 0 and span_y > 0 else 0.0
    if scale <= 0:
        return None
    return max(1, round(span_x * scale)), max(1, round(span_y * scale))


POINTS_SCALE = 2  # image pixels per screen px: sharp on a high-density screen


def _point_layer(tr) -> tuple:
    """A point trace as a ``point_raster`` layer: ``(X (n, 2), symbol, size, colour, (outline width, outline
    colour))``; a hollow marker's outline is in its own colour."""
    m = tr.marker
    stroke = m.line.color if m.line.color is not None else m.color
    X = np.column_stack([np.asarray(tr.x, dtype=np.float64), np.asarray(tr.y, dtype=np.float64)])
    return X, m.symbol, float(m.size), m.color, (float(m.line.width or 0.0), stroke)


def warm_point_stamps(n_classes: int = 12, scale: int = POINTS_SCALE) -> None:
    """Make the marker stamps of the training and test points of classes 0..n_classes-1
    (``point_raster.marker_stamps``, kept for the process: a class's colour and shape do not depend on how many
    classes there are), so the first figure drawn with its points as an image does not pay for them (~12 ms a
    class and split). ``rebel.ui.launch`` calls it once the first page is served."""
    classes = [str(k) for k in range(n_classes)]
    X, y = np.zeros((n_classes, 2)), np.arange(n_classes)
    colors = class_colors(n_classes)
    layers = [
        _point_layer(tr) for split in ("train", "test") for tr in point_traces(X, y, classes, colors, split)
    ]
    point_raster.points_image(layers, (-1, 1), (-1, 1), (4, 4), scale)


def points_as_image(fig: go.Figure, render, scale: int = POINTS_SCALE) -> bool:
    """Draw the data points of a replay figure as one image instead of one SVG marker each
    (``point_raster``): ``render(layers, x_range, y_range, (W, H), scale)`` returns the PNG of ``layers`` at
    ``scale`` times the plot area's size (``plane_px``), its top row first. The point traces keep their hover
    labels with no markers (``mode="none"``), a legend-only entry per class keeps its place in the legend
    (``legendrank``), the image is a layout image after the regions' (drawn over them and under every trace:
    the mistake crosses stay on top; the frames replace the layout images before it by index and leave it in
    every frame). Legend clicks no longer hide a class (the image cannot follow).

    Wherever the browser lays the plot area out at another size than the image was drawn for (its px size is in
    ``layout.meta[POINTS_IMAGE_META]``: Streamlit's chart follows its box when the figure's size is not the
    box's), the browser
    draws the points again at their own size (``viewport.POINTS_ZOOM``), as it does when zoomed.

    Leaves the figure as it is and returns False when the plot area's size is not fixed, a point trace's
    markers change size (boundary sizes by weight: per-round sizes) or ``render`` refuses the size
    (``BudgetError``: a plot too large for one image); True when the points are an image (already, or now).
    """
    if has_points_image(fig):
        return True
    size = plane_px(fig)
    points = [i for i, tr in enumerate(fig.data) if getattr(tr, "meta", None) == POINTS_META]
    if size is None or not points:
        return False
    if any(np.ndim(fig.data[i].marker.size) for i in points):
        return False
    layers = [_point_layer(fig.data[i]) for i in points]
    x_range, y_range = tuple(fig.layout.xaxis.range), tuple(fig.layout.yaxis.range)
    W, H = size[0] * scale, size[1] * scale
    try:
        png = render(layers, x_range, y_range, (W, H), scale)
    except BudgetError:
        return False
    for i, tr in enumerate(list(fig.data)):
        if getattr(tr, "showlegend", False) is not False and tr.legendrank is None:
            tr.legendrank = i + 1  # the legend's order as it was, with the entries below appended
    for i in points:
        tr = fig.data[i]
        if tr.showlegend is not False:
            entry = legend_entry(tr.name, **tr.marker.to_plotly_json())
            entry.update(legendgroup=tr.legendgroup, legendrank=tr.legendrank, legend=tr.legend)
            fig.add_trace(entry)
        tr.update(mode="none", showlegend=False)
    (x0, x1), (y0, y1) = x_range, y_range
    # a layout image after the regions' (drawn above them and under every trace): the frames set the layout
    # images before it by index and leave it alone. An image trace would be dropped from the page by the first
    # frame that moves the mistake crosses (plotly redraws only the animated traces' layers), and the points
    # would vanish for the whole replay.
    fig.add_layout_image(
        source=png_data_uri(png),
        xref="x",
        yref="y",
        x=x0,
        y=y1,
        sizex=x1 - x0,
        sizey=y1 - y0,
        xanchor="left",
        yanchor="top",
        sizing="stretch",
        layer="below",
        name=POINTS_IMAGE,
    )
    # the image's extent and the plot area's px it was drawn for: zoomed past it or laid out at another size,
    # the browser draws the points again at their own size (``viewport.POINTS_ZOOM``)
    meta = dict(fig.layout.meta) if isinstance(fig.layout.meta, dict) else {}
    meta[POINTS_IMAGE_META] = [float(x0), float(x1), float(y0), float(y1), int(size[0]), int(size[1])]
    fig.layout.meta = meta
    no_clicks = {"itemclick": False, "itemdoubleclick": False}
    fig.update_layout(legend=no_clicks)
    if any(getattr(tr, "legend", None) == "legend2" for tr in fig.data):
        fig.update_layout(legend2=no_clicks)
    return True
