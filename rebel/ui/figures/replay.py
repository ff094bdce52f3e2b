"""The training replay: ONE plotly figure holding every round's decision regions and points as animation frames,
with a round slider and Play / Pause buttons, so scrubbing and playing run in the browser (no server round trip).

Reads ``staged_regions`` (T + 1, ny, nx) class indices over cell centres ``grid_xs`` (nx,), ``grid_ys`` (ny,)
(row 0 at ``grid_ys[0]``), points as ``(X (N, 2), y_idx (N,), staged_pred (T + 1, N))`` and optional staged
training-point sizes (T + 1, N).

The regions are a layout image (a palette PNG of the uint8 class grid: a few hundred bytes per round for a
200 x 200 grid, where a uint8 heatmap takes ~53 kB base64), so a frame changes only the image source, the mistake
crosses (float32 x, y of the round's mistaken points: moving a few hundred crosses repaints far faster than
restyling every point's opacity) and, when given, the training points' sizes (uint8
pixels). Nothing in a frame needs a full redraw, so plotly animates it without re-rendering the plot.

Once the figure's size is fixed, ``points_as_image`` can draw its data points as one image (``point_raster``)
under hover-only traces: a new figure then draws in about half the time.

The replay's parts live beside it: the pictures of class grids (``region_png``), the frames (``replay_frames``), the
points image (``points_image``) and the numbers and layout (``replay_numbers``); this module assembles the figure
(and names their public parts, as before).
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures import style
from rebel.ui.figures.palette import class_colors
from rebel.ui.figures.points_image import (  # noqa: F401 (the replay's points image, as it was in this module)
    POINTS_IMAGE,
    POINTS_IMAGE_META,
    POINTS_META,
    POINTS_SCALE,
    has_points_image,
    plane_px,
    points_as_image,
    warm_point_stamps,
)
from rebel.ui.figures.region_png import (  # noqa: F401 (the replay's pictures, as they were in this module)
    boundary_codes,
    boundary_layout_images,
    class_grid_png,
    class_grid_pngs,
    mask_layout_images,
    palette_pngs,
    png_data_uri,
    region_layout_image,
    region_layout_images,
)
from rebel.ui.figures.regions import (
    AXIS_NAMES,
    BAYES_STYLE,
    boundary_traces,
    mistake_trace,
    plane_axes,
    plane_axes_layout,
    point_traces,
    regions_layout,
    regions_layout_dict,
)
from rebel.ui.figures.replay_frames import _frames, set_frames
from rebel.ui.figures.replay_numbers import (  # noqa: F401 (the numbers and layout, as they were in this module)
    BEFORE_AFTER_MARGIN,
    BELOW_PLANE_PX,
    CURVE_DOMAIN,
    CURVE_PX,
    FONT_NUMBERS,
    FONT_STRIP_KEY,
    LEGEND_GAP_PX,
    LINE_PX,
    NARROW_CONTROLS_RISE,
    NARROW_LEGEND_ROWS,
    NARROW_NAME_CHARS,
    ONE_SCREEN_MARGIN,
    PLANE_DOMAIN,
    PROJECTOR_BUTTONS_DROP,
    PROJECTOR_CONTROLS_DROP,
    PROJECTOR_CURVE_Y,
    PROJECTOR_CURVE_Y_MANY,
    PROJECTOR_GUESS_HEIGHT,
    PROJECTOR_LEGEND_ROWS,
    PROJECTOR_NAME_CHARS,
    PROJECTOR_PLANE_X,
    PROJECTOR_SIDE_X,
    STRIP_KEY,
    STRIP_KEY_TEXT,
    STRIP_MIN_PX,
    _add_numbers,
    _numbers_axes,
    below_plane,
    fit_projector_legend,
    narrow_box,
    numbers_lines,
    numbers_text,
    projector_columns,
    projector_texts,
    strip_key_note,
)
from rebel.ui.figures.style import (
    LEAN_TEMPLATE,
    esc,
    legend_entry,
    line,
    merge_layout,
    modebar_layout,
    set_layout,
)

# Play's time per frame. Plotly's animation loop checks on every display frame (requestAnimationFrame) whether more
# than this has passed since the last round began, so a 60 Hz screen (a frame every 16.7 ms) shows the next round
# on the first frame after that: 40 ms gave every third frame (20 rounds a second), 25 ms every second (30).
FRAME_MS = 25


def check_staged(staged_regions, train=None, test=None, train_sizes=None) -> int:
    """Check that the staged regions, predictions and sizes agree on T + 1 rounds; returns T."""
    S = np.asarray(staged_regions)
    if S.ndim != 3 or S.shape[0] < 1:
        raise ValueError(f"staged_regions must have shape (T + 1, ny, nx), got {S.shape}.")
    for label, data in (("train", train), ("test", test)):
        if data is not None and np.shape(data[2])[:1] != (S.shape[0],):
            raise ValueError(
                f"{label}[2] must be the staged predictions (T + 1, N) with T + 1 = {S.shape[0]}, "
                f"got shape {np.shape(data[2])}."
            )
    if train_sizes is not None and np.shape(train_sizes)[:1] != (S.shape[0],):
        raise ValueError(f"train_sizes must have shape (T + 1, N), got {np.shape(train_sizes)}.")
    return S.shape[0] - 1


def _stack_points(train, test) -> tuple:
    """Train and test points stacked: ``(X (M, 2), y (M,), staged_pred (T + 1, M))`` or None."""
    parts = [d for d in (train, test) if d is not None and len(d[0])]
    if not parts:
        return None
    X = np.vstack([np.asarray(d[0], dtype=np.float64) for d in parts])
    y = np.concatenate([np.asarray(d[1]) for d in parts])
    pred = np.hstack([np.asarray(d[2]) for d in parts])
    return X, y, pred


def _controls(T: int, frame_ms: int, start: int) -> dict:
    """Layout of the Play / Pause buttons and the round slider (one step per frame, labelled with t)."""
    play = {
        "frame": {"duration": frame_ms, "redraw": False},
        "fromcurrent": True,
        "transition": {"duration": 0},
    }
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}}
    buttons = [
        {"label": "▶ Play", "method": "animate", "args": [None, play]},
        {"label": "▶ from t = 0", "method": "animate", "args": [None, {**play, "fromcurrent": False}]},
        {"label": "❚❚ Pause", "method": "animate", "args": [[None], pause]},
    ]
    steps = [
        {
            "label": str(t),
            "method": "animate",
            "args": [[f"t{t}"], pause],
            "name": f"t{t}",
        }
        for t in range(T + 1)
    ]
    return {
        "updatemenus": [
            {
                "type": "buttons",
                "direction": "left",
                "showactive": False,
                "x": 0,
                "y": -0.09,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 0, "r": 6},
                "buttons": buttons,
            }
        ],
        "sliders": [
            {
                "active": start,
                "steps": steps,
                # a row of its own under the buttons: beside them, the current value ran into them at
                # narrow widths
                "x": 0,
                "len": 1.0,
                "y": -0.17,
                "yanchor": "top",
                "pad": {"t": 0, "b": 0},
                "currentvalue": {
                    "prefix": "round t = ",
                    "suffix": f" of {T}",
                    "font": {"size": 13, "color": "#222"},
                },
                "ticklen": 3,
                # one label per round would overlap: the tick labels are hidden, the current value names t
                "font": {"size": 10, "color": "rgba(0,0,0,0)"},
            }
        ],
    }


def _sizes_u8(sizes) -> np.ndarray:
    return np.clip(np.rint(np.asarray(sizes, dtype=np.float64)), 0, 255).astype(np.uint8)


def _add_points(fig: go.Figure, classes, train, test, train_sizes, start: int, updates: list) -> None:
    """The train / test point traces; with ``train_sizes`` each class's training trace resizes per round."""
    colors = class_colors(len(classes))
    sizes = None if train_sizes is None else _sizes_u8(train_sizes)
    for split, data in (("train", train), ("test", test)):
        if data is None or not len(data[0]):
            continue
        sized = split == "train" and sizes is not None
        traces = point_traces(np.asarray(data[0]), np.asarray(data[1]), classes, colors, split)
        for tr in traces:
            tr.meta = POINTS_META
            if sized:
                rows = np.asarray(tr.customdata)
                tr.marker.size = sizes[start][rows]
                updates.append((len(fig.data), [{"marker": {"size": s[rows]}} for s in sizes]))
            fig.add_trace(tr)


def _add_mistakes(fig: go.Figure, train, test, start: int, updates: list) -> None:
    """One cross trace holding, per round, the points mistaken at that round (train and test)."""
    points = _stack_points(train, test)
    if points is None:
        return
    X, y, pred = points
    X32 = X.astype(np.float32)
    wrong = [X32[p != y] for p in pred]
    updates.append((len(fig.data), [{"x": w[:, 0], "y": w[:, 1]} for w in wrong]))
    fig.add_trace(mistake_trace(wrong[start]))


def replay_figure(
    grid_xs,
    grid_ys,
    staged_regions,
    classes,
    *,
    train=None,
    test=None,
    train_sizes=None,
    other_regions=None,
    show_other: bool = False,
    show_disagreement: bool = False,
    bayes_regions=None,
    title: str = "",
    start: int | None = None,
    frame_ms: int = FRAME_MS,
    height: int = 600,
    numbers: dict | None = None,
    projector: bool = False,
    axis_names=AXIS_NAMES,
    narrow: bool = False,
) -> go.Figure:
    """Every round's min-risk regions with the data, in one figure: a slider over t and Play / Pause buttons that
    animate the rounds in the browser (plotly frames; no server round trip per frame).

    staged_regions : (T + 1, ny, nx) class indices of the model after t = 0..T rounds
    train, test : ``(X (N, 2), y_idx (N,), staged_pred (T + 1, N))`` or None; the mistake crosses follow t
    train_sizes : (T + 1, N) marker sizes of the training points per round (e.g. ``weight_sizes`` of the
        boosting weights), or None for a fixed size
    other_regions : (T + 1, ny, nx) another model's classes per round (the two-step baseline): its boundaries
        (dashed black and white cells) if ``show_other``, a dark overlay where it disagrees if
        ``show_disagreement``, both following t
    bayes_regions : (ny, nx) Bayes-optimal classes, drawn once as dashed boundaries
    title : the figure title, the same in every frame (plotly repaints a frame's traces and layout images
        without a redraw, but not the title); the round counter is the slider's "round t = 12 of 100". With
        ``numbers`` the title heads the numbers line instead (one screen: no title band)
    height : px, or None to fill the chart's box (``st.plotly_chart(height="stretch")``)
    start : the round shown first (default T); frame_ms : time per frame when playing
    numbers : per-round test costs ``{"REBEL": (T + 1,), "two-step": (T + 1,), "blind": (T + 1,), "Bayes": float
        or None, "tie": float}`` (``rebel.ui.playground.compute.round_numbers``), or None. When given, the
        numbers line above the regions (``numbers_text``) and a cost strip with a round marker under them are
        part of the frames, so the one round slider moves the picture and every number together.
    projector : with ``numbers``, the projector layout (presentation mode): the regions take the plot's full
        height on the left, the verdict's figures, the legend and the cost strip go beside them
        (``PROJECTOR_*``); only the round and the three costs stay above (two lines). With ``narrow`` (a box
        narrower than it is high, ``narrow_box``), the narrow projector layout (``NARROW_*``): the verdict's
        figures join the numbers above the regions, the legend and the cost strip sit beside them
    axis_names : the two feature names, the axis titles
    """
    T = check_staged(staged_regions, train, test, train_sizes)
    start = T if start is None else int(np.clip(start, 0, T))
    S = np.asarray(staged_regions)
    images = [region_layout_images(grid_xs, grid_ys, S, len(classes))]
    other = None if other_regions is None else np.asarray(other_regions)
    if other is not None and other.shape != S.shape:
        raise ValueError(f"other_regions must have the shape of staged_regions {S.shape}, got {other.shape}.")
    fig, updates = go.Figure(), []
    if other is not None and show_disagreement:
        images.append(mask_layout_images(grid_xs, grid_ys, other != S))
        fig.add_trace(legend_entry("REBEL ≠ two-step", symbol="square", size=12, color="rgba(40,40,40,0.5)"))
    if other is not None and show_other:
        codes = boundary_codes(other)  # every round at once
        images.append(boundary_layout_images(grid_xs, grid_ys, codes))
        fig.add_trace(line([None], [None], "two-step boundaries", "#111111", 2.2, "dot", hoverinfo="skip"))
    if bayes_regions is not None:
        name = "Bayes-optimal boundaries"
        fig.add_traces(boundary_traces(grid_xs, grid_ys, bayes_regions, name, BAYES_STYLE))
    _add_points(fig, classes, train, test, train_sizes, start, updates)
    _add_mistakes(fig, train, test, start, updates)
    narrow = bool(projector and narrow)
    if numbers is not None:
        _add_numbers(
            fig, numbers, T, start, updates, "" if narrow else title, projector and not narrow, projector
        )
    set_frames(fig, _frames(T, updates, images))
    layout = merge_layout(
        {"images": [im[start] for im in images], "template": LEAN_TEMPLATE},
        regions_layout_dict(title if numbers is None else "", height),
        plane_axes_layout(grid_xs, grid_ys, axis_names),
    )
    if numbers is None:
        merge_layout(layout, {"margin": {"b": 150}, "legend": {"y": -0.36}}, _controls(T, frame_ms, start))
        return set_layout(fig, layout)
    # One screen: the title heads the numbers line, the legend sits beside the regions, the round control
    # right under the cost strip (pixel offsets, so it stays put at any figure height).
    controls = _controls(T, frame_ms, start)
    # the projector's regions reach the plot's bottom (their x axis title right above the buttons): more room
    # (the narrow layout names the x axis beside its tick labels: the controls rise into the title's room)
    drop = (PROJECTOR_CONTROLS_DROP - (NARROW_CONTROLS_RISE if narrow else 0)) if projector else 0
    buttons_drop = PROJECTOR_BUTTONS_DROP - (NARROW_CONTROLS_RISE if narrow else 0) if projector else 0
    controls["updatemenus"][0].update(y=0, yanchor="top", pad={"t": 26 + buttons_drop, "r": 6})
    controls["sliders"][0].update(y=0, yanchor="top", pad={"t": 62 + drop, "b": 0})
    lines = numbers_lines(numbers) if narrow else 2 if projector else numbers_lines(numbers, title)
    top = LINE_PX * lines + 8  # the numbers lines' margin
    many = len(classes) > (NARROW_LEGEND_ROWS if narrow else PROJECTOR_LEGEND_ROWS)
    curve_y = PROJECTOR_CURVE_Y_MANY if many else PROJECTOR_CURVE_Y
    plane_x, side_x, strip_x = projector_columns(narrow, many)
    # the plot area's height in px when the figure's height is known (the margins below)
    area = None if projector or not height else height - top - ONE_SCREEN_MARGIN[1]
    below = below_plane(area)
    legend = (
        {"orientation": "v", "x": side_x[0], "y": 1 if narrow else curve_y[1] + 0.055, "yanchor": "bottom"}
        if projector
        else {"orientation": "h", "x": 0, "y": below[1], "yanchor": "bottom"}
    )
    merge_layout(
        layout,
        {
            "margin": {"l": 10, "r": 10, "t": top, "b": 118 + drop}
            if projector
            else {"l": ONE_SCREEN_MARGIN[0], "r": 10, "t": top, "b": ONE_SCREEN_MARGIN[1]},
            "legend": {**legend, "font": {"size": 11}},
        },
        controls,
        _numbers_axes(numbers, T, below),
    )
    if narrow:  # (the legend's top at the plot area's top; the strip's key above the strip)
        layout["legend"]["yanchor"] = legend["yanchor"] = "top"
        layout["annotations"] = [strip_key_note()]
    if projector:
        # the strip's key outside its plotting area, where it never covers a curve: above it (narrow), else
        # under its round labels, with its title
        strip_title = "" if narrow else f"test cost by round t<br>{STRIP_KEY_TEXT}"
        legend.update(font={"size": 11}, tracegroupgap=0)
        _projector_legend(fig, len(classes), legend, layout, side_x, narrow)
        merge_layout(
            layout,
            {
                "xaxis": {
                    "domain": list(plane_x),
                    "constraintoward": "left",
                },  # its tick labels left of the numbers
                "yaxis": {"domain": [0, 1]},
                # the narrow layout: the strip's key above it says what it shows
                # (the narrow strip: 3 round labels at most, upright; more were turned on their side)
                "xaxis3": {
                    "domain": list(strip_x),
                    "title": {"text": strip_title},
                    "nticks": 3 if narrow else 0,
                },
                "yaxis3": {"domain": list(curve_y), "title": {"text": ""}},
            },
        )
    else:
        _class_legend(fig, len(classes), False, layout)  # one row at 1280x720: clear of the tick labels
    if narrow or not projector:
        _name_x_at_right(layout)
    merge_layout(layout, modebar_layout(layout["margin"]["r"]))
    return set_layout(fig, layout)


def _name_x_at_right(layout: dict) -> None:
    """The regions' x axis named at its right end, level with its tick labels, instead of under them (where the
    one-screen legend or the narrow layout's Play buttons sit)."""
    x_title = layout["xaxis"]["title"]
    note = {"text": x_title["text"], "font": dict(x_title["font"]), "x": 1, "y": 0, "xref": "x domain"}
    note.update(yref="y domain", xanchor="left", yanchor="top", xshift=4, showarrow=False)
    layout["annotations"] = [*layout.get("annotations", []), note]
    x_title["text"] = ""


def _projector_legend(
    fig: go.Figure, n_classes: int, legend: dict, layout: dict, side_x=PROJECTOR_SIDE_X, narrow: bool = False
) -> None:
    """The projector's legend: ``_class_legend``, in two columns beside the regions (paper x ``side_x``) when
    there are more than ``PROJECTOR_LEGEND_ROWS`` classes (``NARROW_LEGEND_ROWS`` in the ``narrow`` layout), so
    twelve classes fit a 1280x720 screen without pushing the regions down."""
    rows, chars = (
        (NARROW_LEGEND_ROWS, NARROW_NAME_CHARS) if narrow else (PROJECTOR_LEGEND_ROWS, PROJECTOR_NAME_CHARS)
    )
    two = _class_legend(fig, n_classes, True, layout, chars, rows)
    if not two:
        return
    half = -(-(n_classes + 2) // 2)  # the mistake and hollow entries close the second column
    for tr in fig.data:
        group = tr.legendgroup
        late = group is not None and str(group).isdigit() and int(group) >= half
        if late or tr.name in ("mistake", TEST_HINT):
            tr.legend = "legend2"
    x0, x1 = side_x
    layout["legend2"] = {**legend, "x": x0 + 0.53 * (x1 - x0)}


TEST_HINT = "hollow: test"


def _class_legend(
    fig: go.Figure,
    n_classes: int,
    columns: bool,
    layout: dict,
    chars: int = PROJECTOR_NAME_CHARS,
    rows: int = PROJECTOR_LEGEND_ROWS,
) -> bool:
    """One legend entry per class (its name and training marker; a class's test points share it), then the
    mistake crosses and, with test points, one grey hollow entry saying what hollow means. Returns whether the
    legend needs two ``columns`` (more than ``rows`` classes; names then cut to ``chars`` characters, a half
    column)."""
    seen = set()
    two = columns and n_classes > rows
    tests = any(str(tr.name).endswith(" (test)") for tr in fig.data if tr.legendgroup is not None)
    for tr in fig.data:
        group = tr.legendgroup
        if group is None or not str(group).isdigit():
            continue
        if group in seen:
            tr.showlegend = False
        else:
            seen.add(group)
            name = html.unescape(str(tr.name).rsplit(" (", 1)[0])  # "apple (train)" -> "apple"
            if two and len(name) > chars:  # a half column: long names end in "…"
                name = name[: chars - 1] + "…"
            tr.name = esc(name)
    if tests:
        fig.add_trace(
            legend_entry(TEST_HINT, symbol="circle-open", size=8, color="#555555", line={"width": 1.6})
        )
    merge_layout(layout, {"legend": {"tracegroupgap": 0}})
    return two


def before_after_figure(
    grid_xs, grid_ys, panels, classes, test, height: int = 380, axis_names=AXIS_NAMES
) -> go.Figure:
    """Two region pictures side by side in ONE figure (one chart to draw instead of two), each with the test
    points and its own mistakes: ``panels`` = ``[(regions (ny, nx), test predictions (N,), title)] * 2``;
    ``test`` = ``(X (N, 2), y_idx (N,))``. The regions are layout images, as in the replay; the axes are
    titled ``axis_names``."""
    fig = style.two_panels([esc(title) for _, _, title in panels], spacing=0.06)
    colors = class_colors(len(classes))
    X, y = np.asarray(test[0], dtype=np.float64), np.asarray(test[1])
    xs, ys = np.asarray(grid_xs, dtype=np.float64), np.asarray(grid_ys, dtype=np.float64)
    images = []
    for col, (grid, pred, _) in enumerate(panels, start=1):
        axis = "" if col == 1 else str(col)
        images.append(
            {**region_layout_image(xs, ys, grid, len(classes)), "xref": f"x{axis}", "yref": f"y{axis}"}
        )
        for tr in [*point_traces(X, y, classes, colors, "test"), mistake_trace(X[np.asarray(pred) != y])]:
            tr.showlegend = col == 1
            fig.add_trace(tr, row=1, col=col)
        plane_axes(fig, xs, ys, col=col, axis_names=axis_names)
    regions_layout(fig, "", height)
    # room for the subplot titles (top); left and bottom: what plotly's automatic margins take in Streamlit's
    # theme, asked up front so the figure is drawn once (``ONE_SCREEN_MARGIN``)
    return fig.update_layout(
        images=images, margin={"t": 40, "l": BEFORE_AFTER_MARGIN[0], "b": BEFORE_AFTER_MARGIN[1]}
    )
