"""The cost matrix as a compact read-only table for many classes (the cost editor shows it above ``GRID_MAX_CLASSES``
classes, where a grid of input cells, or a data grid with its 50 px minimum column width, would not fit the costs'
column). Pure function: no streamlit here.

Rows are the truth (class name), columns the prediction: up to ``NAMED_COLUMNS`` classes by name across (cut to
``column_name_chars``), more by name upright (read bottom to top, as spreadsheets do, cut to ``MAX_NAME``), so a
narrow column still names every class; by class number (and the rows by number and name: the key) when the cut
names would clash. Every cell writes its cost, shaded from white (0) to a light orange (the largest cost), the
diagonal grey. The table fills its width and keeps its height (``cost_table_height``): upright names take their
room from the rows.

Presentation mode (``colors`` given) writes every text at ``PRESENT_FONT`` px for the back of a room: each column
is headed by a square in its class's colour (the regions' and legend's colour), each row by the same square and its
name, the costs with 2 significant digits; the entry being edited (``picked``) is framed. Where a cost at that size
would not fit its cell, the page hides the costs (``numbers_fit_px``: the least width that holds them;
``rebel.ui.playground.screen.costs_fit_step``) and the shades say which entries cost more; the entry box under
the table writes the picked one's cost.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rebel.ui.figures.style import esc

ROW_PX = 24  # px per row; the figure is ROW_PX * (K + 1) + margins tall
MAX_NAME = 12  # characters of a class name beside its row (longer names end in "…")
SHADE = [[0.0, "#FFFFFF"], [1.0, "#F5B971"]]
DIAGONAL = "#E3E3E3"


PRESENT_FONT = 20  # px: every text of the table in presentation mode
SWATCH = "\u25a0"  # a black square, coloured as its class
PICKED_LINE = "#111111"
PRESENT_HINT = "darker = costlier; pick an entry below, type its cost, Enter"  # the editor's header says it
NUMBER_PAD = 4  # px kept clear on each side of a cost in its cell
# Widths of characters as shares of the font size in the page's font (Source Sans), measured in Chromium at 20 px:
# digits, "+" and "e" 0.498, "." 0.249, "-" 0.312, the square 0.600, "…" 0.948; letters from 0.246 ("i") to 0.830
# ("m"), taken as 0.70 (a name a little wide hides the costs a little early, never lets them spill)
_EM = {**dict.fromkeys("0123456789+e", 0.5), ".": 0.25, "-": 0.32, SWATCH: 0.6, " ": 0.25, "\u2026": 0.95}
_EM_OTHER = 0.7


NAMED_COLUMNS = 6  # up to this many classes, the columns are named (more: numbered, the names don't fit)


def _short(name: str, chars: int = MAX_NAME) -> str:
    name = str(name)
    return name if len(name) <= chars else name[: chars - 1] + "…"


def column_name_chars(n_classes: int) -> int:
    """Characters of a class name over its column (a 300 px column holds about 40 at the table's font)."""
    return max(3, 40 // max(int(n_classes), 1) - 1)


def column_labels(classes) -> list:
    """The columns' labels: the classes' names when the cut names stay distinct, cut to fit across
    (``column_name_chars``) up to ``NAMED_COLUMNS`` classes, else to ``MAX_NAME`` (written upright,
    ``upright_columns``); else the class numbers."""
    K = len(classes)
    names = [esc(_short(c, column_name_chars(K) if K <= NAMED_COLUMNS else MAX_NAME)) for c in classes]
    return names if len(set(names)) == K else [str(j + 1) for j in range(K)]


def upright_columns(classes) -> bool:
    """Whether the columns' names are written upright (more than ``NAMED_COLUMNS`` classes, named)."""
    return len(classes) > NAMED_COLUMNS and column_labels(classes)[0] != "1"


UPRIGHT_CHAR = 0.6  # the width of a character of a name, as a share of its font size (the header's height)


def cost_table_height(n_classes: int, row_px: int = ROW_PX) -> int:
    """The figure's height in px for ``n_classes`` classes."""
    return int(row_px) * (int(n_classes) + 1) + 8


def short_cost(value: float, n_classes: int) -> str:
    """A cost as the table writes it: 3 significant digits (2 above 8 classes, whose cells are narrow); the
    entry box under the table shows the full value."""
    return f"{float(value):.{3 if n_classes <= 8 else 2}g}"


def present_cost(value: float) -> str:
    """A cost as the presentation table writes it: 2 significant digits (the entry box shows the full value)."""
    return f"{float(value):.2g}"


def present_name_chars(n_classes: int) -> int:
    """Characters of a row's name in the presentation table (longer names end in "…")."""
    return 10 if int(n_classes) <= 8 else 7


def text_px(text: str, size: float = PRESENT_FONT) -> float:
    """About how wide ``text`` is at ``size`` px in the page's font (``_EM``, rounded up)."""
    return size * sum(_EM.get(ch, _EM_OTHER) for ch in str(text))


def _present_rows(classes, colors) -> list:
    K = len(classes)
    return [
        f'<span style="color:{c}">{SWATCH}</span> {esc(_short(name, present_name_chars(K)))}'
        for name, c in zip(classes, colors, strict=True)
    ]


def _names_px(classes) -> int:
    """About how wide the presentation table's left margin is at most: its rows' squares and names at
    ``PRESENT_FONT``."""
    K = len(classes)
    return int(np.ceil(max(text_px(f"{SWATCH} " + _short(c, present_name_chars(K))) for c in classes))) + 6


def numbers_fit_px(cost_matrix, classes) -> int:
    """The least width (px) of the presentation table at which every cost, at ``PRESENT_FONT`` px with
    ``NUMBER_PAD`` px clear on each side, fits its cell: the page hides the costs in a narrower table."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    widest = max(text_px(present_cost(v)) for v in C.ravel())
    return _names_px(classes) + 4 + len(classes) * int(np.ceil(widest + 2 * NUMBER_PAD))


def cost_table_figure(
    cost_matrix, classes, row_px: int = ROW_PX, *, colors=None, picked: tuple[int, int] | None = None
) -> go.Figure:
    """The K x K cost matrix as an annotated table (rows = truth ``k name``, columns = prediction ``k``, costs
    written by ``short_cost``); ``row_px`` sets the rows' height and the font (half of it). With ``colors`` (the
    classes' colours, in the order of ``classes``): presentation mode's table (module docstring), the entry
    ``picked`` (truth, prediction; indices into ``classes``) framed."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    K = len(classes)
    if C.shape != (K, K):
        raise ValueError(f"cost_matrix must be {K}x{K} (one row and column per class), got shape {C.shape}.")
    present = colors is not None
    off = C[~np.eye(K, dtype=bool)]
    top = float(off.max()) if off.size and np.isfinite(off).all() and off.max() > 0 else 1.0
    shade = np.where(np.eye(K, dtype=bool), np.nan, C / top)
    text = [[present_cost(v) if present else short_cost(v, K) for v in row] for row in C]
    cols = [esc(c) for c in classes] if present else column_labels(classes)
    numbered = not present and cols[0] == "1"  # the rows' numbers are the columns' key
    rows = [
        esc(name) if present else f"{i + 1} {esc(_short(name))}" if numbered else esc(_short(name))
        for i, name in enumerate(classes)
    ]
    size = PRESENT_FONT if present else max(9, round(int(row_px) * 0.5))
    ticks = {"size": size if present else max(9, round(size * 0.85))}
    height = cost_table_height(K, row_px)
    top = int(row_px) + 4  # the header row (names across, numbers, or squares)
    if not present and upright_columns(classes):  # the longest name upright; the rows share the rest
        top = int(np.ceil(max(len(c) for c in cols) * UPRIGHT_CHAR * ticks["size"])) + 6
    fig = go.Figure(
        [
            go.Heatmap(  # the diagonal, grey under its zero
                z=np.where(np.eye(K, dtype=bool), 1.0, np.nan),
                x=cols,
                y=rows,
                colorscale=[[0, DIAGONAL], [1, DIAGONAL]],
                showscale=False,
                hoverinfo="skip",
                xgap=1,
                ygap=1,
            ),
            go.Heatmap(
                z=shade,
                x=cols,
                y=rows,
                zmin=0,
                zmax=1,
                colorscale=SHADE,
                showscale=False,
                text=text,
                texttemplate="%{text}",
                textfont={"size": size, "color": "#111111"},
                customdata=[
                    [f"{esc(classes[i])} → {esc(classes[j])}: {C[i, j]:.6g}" for j in range(K)]
                    for i in range(K)
                ],
                hovertemplate="%{customdata}<extra></extra>",
                xgap=1,
                ygap=1,
            ),
        ]
    )
    fig.update_layout(
        height=height,
        margin={"l": 4, "r": 4, "t": top, "b": 4},  # (the rows' names widen it: automargin)
        font={"size": size},
        plot_bgcolor="#CCCCCC",
        dragmode=False,
    )
    if present:
        fig.update_layout(hoverlabel={"font": {"size": PRESENT_FONT}})
        fig.update_xaxes(tickmode="array", tickvals=cols, ticktext=[
            f'<span style="color:{c}">{SWATCH}</span>' for c in colors
        ])  # fmt: skip
        fig.update_yaxes(tickmode="array", tickvals=rows, ticktext=_present_rows(classes, colors))
        if picked is not None:
            i, j = (int(v) for v in picked)
            fig.add_shape(
                type="rect", xref="x", yref="y", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5,
                line={"color": PICKED_LINE, "width": 3}, fillcolor="rgba(0,0,0,0)",
            )  # fmt: skip
    # the class labels' own font (a chart theme, Streamlit's, sets tick labels' size apart from the base font)
    axis = {"fixedrange": True, "showgrid": False, "ticks": "", "type": "category", "tickfont": ticks}
    fig.update_xaxes(side="top", tickangle=-90 if not present and upright_columns(classes) else 0, **axis)
    fig.update_yaxes(autorange="reversed", automargin=True, **axis)
    return fig
