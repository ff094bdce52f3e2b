"""Streamlit building blocks every page shares: safe messages, the cost editor, the round player,
and run-with-Stop.

- ``plain(text)`` and ``md(template, *values)`` (from ``rebel.ui.text``): the only ways text reaches Streamlit's
  markdown (user text made inert: no link, autolink, image, HTML, colour, icon, emoji or LaTeX directive).
  ``show_error`` / ``show_message``: the one way a page shows a user-facing message; the whole message goes
  through ``plain`` (our own messages carry no markdown, or are ``md`` texts).
- ``cost_editor``: the cost matrix as a grid of text cells, each committed on its own and parsed by
  ``rebel.ui.config.apply_cost_cell``; a refused entry is named in a visible message and the stored
  (previous) value stays. ``log_cost_control``: one entry on a log scale 0.01-1000.
- ``run_with_stop``: runs a generator of partial results with a progress bar and a Stop button, storing every
  partial result, so a Stop (which interrupts the script) keeps what is done.
- Page frames: ``run_button`` (a primary play button that raises a session flag), ``problem_page_header``
  (title, intro and the page's problem with a warning when it fell back to a default), ``run_page``
  (title, intro, settings, then the last run's results, rerunning on request or when there is none),
  ``run_trials_with_stop`` (``run_with_stop`` for a study of trials) and ``require_plane`` (stop a page that
  draws the plane unless the data has 2 features).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable

import numpy as np
import streamlit as st

from rebel.budget import BudgetError
from rebel.ui import config
from rebel.ui.figures import cost_table as ct
from rebel.ui.figures.cost_table import ROW_PX, column_labels, cost_table_figure
from rebel.ui.figures.palette import class_colors
from rebel.ui.state import AppState, Problem, problem_or_default
from rebel.ui.text import Markdown, md, plain


def show_message(kind: str, message, where=None) -> None:
    """Show ``message`` as ``st.error``/``warning``/``info``/``success`` (in ``where``, default the page)."""
    if kind not in ("error", "warning", "info", "success"):
        raise ValueError(f"message kind is {kind!r}; use error, warning, info or success.")
    getattr(where or st, kind)(plain(message))


def show_error(message, where=None) -> None:
    """The one way to show a user-facing error: the message, escaped and truncated (see ``plain``)."""
    show_message("error", message, where)


def show_refusal(exc: BudgetError, where=None) -> None:
    """The one way a request over the budget (``rebel.budget``) is shown: "Not computed: " and its message
    (the amount, how it was counted, the limit, the reason and what to lower)."""
    show_error(f"Not computed: {exc}", where)


# ---------------------------------------------------------------------------------------------- page boundary
LOG = logging.getLogger("rebel.ui")
UNEXPECTED_KEY = "ui_unexpected"  # messages of callbacks that failed, shown by ``guard.run_page`` at the top


def unexpected_message(exc: Exception, what: str) -> str:
    """What a user reads when ``what`` ("This page", ...) failed unexpectedly."""
    return (
        f"{what} hit an unexpected problem and stopped ({type(exc).__name__}: {exc}). Your data, costs and "
        "settings are kept: undo the last change, or reload the page. The details are in the server log."
    )


def _behind_boundary(fn: Callable, report: Callable[[Exception], None]) -> Callable:
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            LOG.exception("%s failed", getattr(fn, "__qualname__", fn))
            report(exc)

    return run


def guarded(fn: Callable) -> Callable:
    """``fn`` behind the page boundary of ``guard.run_page``, for code Streamlit runs outside the page's own run:
    a fragment's rerun (``st.fragment(guarded(f))``). An ``Exception`` is logged and shown as one message."""
    return _behind_boundary(fn, lambda exc: show_error(unexpected_message(exc, "This part of the page")))


def guarded_callback(fn: Callable) -> Callable:
    """A widget callback (``on_change`` / ``on_click``) behind the page boundary: callbacks run before the page,
    so an ``Exception`` is logged and its message queued for ``guard.run_page`` to show at the top."""

    def queue(exc: Exception) -> None:
        st.session_state.setdefault(UNEXPECTED_KEY, []).append(unexpected_message(exc, "That action"))

    return _behind_boundary(fn, queue)


def action_button(where, label: str, action: Callable, **options):
    """A button on ``where`` (``st`` or a container) whose click runs ``action`` as a ``guarded_callback``
    (``options``: the rest of ``st.button``'s keywords)."""
    return where.button(plain(label), on_click=guarded_callback(action), **options)


MIME_TYPES = {"csv": "text/csv", "json": "application/json", "html": "text/html", "png": "image/png"}
MIME_TYPES |= {"gif": "image/gif", "mp4": "video/mp4"}


def download(where, label: str, data, file_name: str, icon: str = ":material/download:", **options):
    """The one download button of the app: on ``where`` for ``data`` (bytes, or a function building them on the
    click) saved as ``file_name``, its MIME type from the name's ending (``MIME_TYPES``); ``options``: the rest of
    ``st.download_button``'s keywords. A click never reruns the page: the browser sends the rerun before it asks
    for a file built on the click, and that rerun revokes the file it asks for (the download then never came; seen
    beside busy loops), and a rerun of a whole page for a download is work for nothing."""
    mime = MIME_TYPES[file_name.rsplit(".", 1)[-1]]
    return where.download_button(
        plain(label), data, file_name=file_name, mime=mime, icon=icon, on_click="ignore", **options
    )


# ---------------------------------------------------------------------------------------------------- messages
FLASH_KEY = "ui_flash"


def flash(kind: str, message: str) -> None:
    """Queue a message for the top of the page (callbacks run before the page is drawn)."""
    st.session_state.setdefault(FLASH_KEY, []).append((kind, str(message)))


def show_flash() -> None:
    for kind, message in st.session_state.pop(FLASH_KEY, []):
        show_message(kind, message)


# ------------------------------------------------------------------------------------------------- cost editor
def reset_cost_editor(key: str, cost_matrix) -> None:
    """Show ``cost_matrix`` afresh in the editor ``key`` (after a preset, a session file, a refused entry...):
    the next run draws new cells (a new version in their keys) holding these values."""
    st.session_state[f"{key}_base"] = np.array(cost_matrix, dtype=np.float64)
    st.session_state[f"{key}_v"] = st.session_state.get(f"{key}_v", 0) + 1


def cost_cell_key(key: str, i: int, j: int, names, version: int = 0) -> str:
    """The session key of the editor's cell (truth i, prediction j, as shown; ``names``: the classes as shown). It
    is named by its two classes and their places, not by the editor's version: a value typed into it while the
    page reruns (for a renamed class, say) still reaches its callback in the next run, and the cell keeps its key
    when other classes change. ``version``: how many times the stored cost was changed from outside the cell
    (``_cell``); it is mixed into the key's 8 hex digits, so the key always ends with ``_<i>_<j>``."""
    tag = (
        config.content_key(names[i], names[j])
        if not version
        else config.content_key(names[i], names[j], version)
    )
    return f"{key}_{tag[:8]}_{i}_{j}"


def _cell(key: str, i: int, j: int, names, cost: float) -> tuple[str, str | None]:
    """The key and the ``value`` to draw the editor's cell (i, j) with, showing ``cost``.

    A cell that holds another number than the stored cost (changed elsewhere: the page's own computed edit, a
    preset, the log control, a session file, a refused entry) is drawn as a new cell (the next version of its
    key, ``cost_cell_key``) with the cost as its ``value``, never by writing the cost into the shown cell's session
    value: the browser keeps sending that cell's old value with every rerun it asks for until it has received the
    new one, and Streamlit would take that old value, arriving after the write, for the user's change of the cell
    and store it again (seen: a cost edit undone by a rerun the page asked for while the server drew the edit).
    The replaced cell's value is kept (``_ECHO``): the same value coming back for it is that old request, not an
    edit (``_on_cost_cell``). A new cell's number is also in its first paint (a value set through the session is
    filled in after it, a blank frame). A cell that already shows the cost keeps its key and gets ``value=None``."""
    ss = st.session_state
    versions = ss.setdefault(f"{key}_cells", {})
    stable = cost_cell_key(key, i, j, names)
    version = versions.get(stable, 0)
    cell = cost_cell_key(key, i, j, names, version)
    if cell not in ss:
        return cell, config.format_cost(cost)
    try:
        same = float(str(ss[cell]).strip()) == float(cost)
    except ValueError:
        same = False
    if same:
        return cell, None
    echoes = ss.setdefault(f"{key}{_ECHO}", {})
    echoes[cell] = str(ss[cell])
    while len(echoes) > _ECHOES_KEPT:  # the oldest replaced cells: no request of theirs is still on its way
        echoes.pop(next(iter(echoes)))
    versions[stable] = version + 1
    return cost_cell_key(key, i, j, names, version + 1), config.format_cost(cost)


_ECHO = "_replaced"  # session key suffix: {replaced cell's key: the value it held}
_ECHOES_KEPT = 256  # replaced cells remembered per editor (a 12-class matrix has 144 cells)


def _on_cost_cell(
    key: str, cell: str, i: int, j: int, names: tuple, on_change: Callable[[np.ndarray], None], perm
) -> None:
    """The cell ``cell`` (the session key of entry i, j as shown) was committed (Enter or leaving it): store the
    typed cost, or say why not and redraw the cells from the stored values. ``perm``: the stored index of each
    class as shown (``class_order.positions``)."""
    ss = st.session_state
    if ss.get(f"{key}{_ECHO}", {}).get(cell, None) == str(ss.get(cell)):
        return  # a replaced cell's old value, sent by a browser that had not yet received its replacement
    base = np.array(ss[f"{key}_base"], dtype=np.float64)
    shown = base[np.ix_(perm, perm)]
    C, message = config.apply_cost_cell(shown, i, j, ss.get(cell), names)
    if message is not None:
        flash("error", message)
        reset_cost_editor(key, base)
        return
    base[np.ix_(perm, perm)] = C
    ss[f"{key}_base"] = base
    on_change(base)


# A cost cell's number is also its placeholder, drawn as its value is (but while the cell is being typed in):
# Streamlit's text box is painted empty first and filled a frame or more later, so a first visit showed blank cells.
COST_CELL_CSS = '<style>div[class*="st-key-w_costs_"] input:not(:focus)::placeholder {color: inherit; opacity: 1;}</style>'
GRID_MAX_CLASSES = 6  # more: one entry at a time under a read-only table (a K x K grid won't fit 1280x720)
GRID_MAX_CLASSES_LARGE = 4  # the same in presentation mode (large fonts: "0.777" no longer fits a cell of 5)
TABLE_HEIGHT_LARGE = 350  # px: the read-only table's height at most in presentation mode, by default
TABLE_ROW_LARGE = 36  # px: its rows at most (the font is half a row: 18 px)


def cost_editor_hint(n_classes: int, large: bool = False) -> str:
    """What the cost editor's header tells a user to do: type into the grid's cells, or (above
    ``GRID_MAX_CLASSES``, ``GRID_MAX_CLASSES_LARGE`` with ``large``) pick one entry under the read-only table."""
    if uses_entry_editor(n_classes, large):
        return ct.PRESENT_HINT if large else "pick an entry under the table, type its cost and press Enter"
    return "type a number and press Enter"


def uses_entry_editor(n_classes: int, large: bool = False) -> bool:
    """Whether ``cost_editor`` shows a read-only table with one entry edited at a time (too many classes for a
    grid of cells)."""
    return int(n_classes) > (GRID_MAX_CLASSES_LARGE if large else GRID_MAX_CLASSES)


def _one_entry_editor(
    C: np.ndarray,
    names: tuple,
    key: str,
    on_change,
    perm,
    large: bool = False,
    table_height: int | None = None,
) -> None:
    """Many classes: the matrix as a read-only table that fits the column (``_cost_table``), and one entry
    (truth, prediction) edited at a time."""
    tag = config.content_key(list(names))[:10]  # other classes, new boxes (the browser keeps a box's label)
    picks = f"{key}_truth_{tag}", f"{key}_pred_{tag}"
    # (named columns: the header's "columns = prediction" says it)
    if not large and column_labels(names)[0] == "1":
        st.caption("Columns: the predicted class, by its row's number.")
    table_box = st.container(key=f"{key}_table_box")  # (filled last: the entry's Cost box comes first)
    st.html(COST_CELL_CSS)
    a, b, c = st.columns([2, 2, 1.4], vertical_alignment="bottom")
    i = a.selectbox("Truth", range(len(names)), format_func=names.__getitem__, key=picks[0])
    j = b.selectbox("Prediction", range(len(names)), format_func=names.__getitem__, key=picks[1])
    cell, value = _cell(key, i, j, names, C[i, j])
    c.text_input(
        "Cost",
        value=value,
        placeholder=config.format_cost(C[i, j]),
        key=cell,
        on_change=guarded_callback(_on_cost_cell),
        args=(key, cell, i, j, names, on_change, perm),
    )
    with table_box:  # (the page hides its costs where they don't fit: ``screen``)
        st.fragment(guarded(_cost_table), key=table_fragment(key))(
            key, names, perm, picks, large, table_height
        )


def table_fragment(key: str) -> str:
    """The fragment key of cost editor ``key``'s read-only table (a cost edit computed in the page reruns it)."""
    return f"{key}_table_fragment"


def _cost_table(key: str, names: tuple, perm, picks: tuple, large: bool, table_height: int | None) -> None:
    """The one-entry editor's read-only table of the stored costs (``cost_table_figure``; in presentation mode,
    ``large``, with the classes' colours as the regions show them and the picked entry framed). A fragment: it
    reads the costs stored now, so it can rerun alone."""
    C = np.asarray(st.session_state[f"{key}_base"], dtype=np.float64)[np.ix_(perm, perm)]
    row_px = table_row_px(len(names), large, table_height)
    if large:
        palette, picked = class_colors(len(names)), tuple(st.session_state.get(k, 0) for k in picks)
        figure = cost_table_figure(C, names, row_px, colors=[palette[p] for p in perm], picked=picked)
    else:
        figure = cost_table_figure(C, names, row_px)
    st.plotly_chart(figure, config={"displayModeBar": False, "staticPlot": False}, key=f"{key}_table")


def table_row_px(n_classes: int, large: bool, table_height: int | None = None) -> int:
    """Row height (px) of the read-only cost table: in presentation mode (``large``) as large as fits
    ``table_height`` px (``TABLE_HEIGHT_LARGE`` by default) for the K rows and the header, up to
    ``TABLE_ROW_LARGE``."""
    if not large:
        return ROW_PX
    room = TABLE_HEIGHT_LARGE if table_height is None else int(table_height)
    return max(ROW_PX, min(TABLE_ROW_LARGE, room // (int(n_classes) + 1)))


def cost_editor(
    cost_matrix,
    classes,
    key: str,
    on_change: Callable[[np.ndarray], None],
    *,
    large: bool = False,
    table_height: int | None = None,
    order=None,
) -> None:
    """The cost matrix as a grid of text cells (rows = truth, columns = prediction); ``on_change(C)`` stores a
    changed matrix. ``order``: the index in ``classes`` of each class in the order shown (rows and columns; its
    cells edit the entries of their classes); None: as given.

    Each cell commits on its own (Enter, or leaving it) and is parsed by ``rebel.ui.config.apply_cost_cell``:
    an accepted entry is stored as typed; a refused one keeps the previous value, its reason is queued with
    ``flash`` and the cells are redrawn from the stored values. A matrix changed elsewhere (preset, log
    control, session file) redraws the cells too. Class names are shown as inert text (``plain``). Above
    ``GRID_MAX_CLASSES`` classes (``GRID_MAX_CLASSES_LARGE`` with ``large``, presentation mode's large fonts)
    the matrix is a read-only table with one entry edited at a time, at most ``table_height`` px high in
    presentation mode (``table_row_px``)."""
    stored = np.array(cost_matrix, dtype=np.float64)
    perm = np.arange(len(classes)) if order is None else np.asarray(order, dtype=np.intp)
    names = tuple(str(classes[p]) for p in perm)
    C = stored[np.ix_(perm, perm)]  # as shown
    base = st.session_state.get(f"{key}_base")
    if base is None or np.shape(base) != stored.shape or not np.array_equal(base, stored):
        reset_cost_editor(key, stored)
    if uses_entry_editor(len(names), large):
        _one_entry_editor(C, names, key, on_change, perm, large, table_height)
        return
    st.html(COST_CELL_CSS)
    widths = [1.4] + [1] * len(names)
    head = st.columns(widths, gap="small", vertical_alignment="bottom")
    head[0].caption(plain(config.COST_INDEX_LABEL))
    for j, name in enumerate(names):
        head[j + 1].caption(plain(name))
    for i in range(len(names)):
        row = st.columns(widths, gap="small", vertical_alignment="center")
        row[0].caption(plain(names[i]))
        for j in range(len(names)):
            cell, value = _cell(key, i, j, names, C[i, j])
            row[j + 1].text_input(
                md("Cost of predicting class {} when the truth is class {}", j + 1, i + 1),
                value=value,
                placeholder=config.format_cost(C[i, j]),
                key=cell,
                label_visibility="collapsed",
                on_change=guarded_callback(_on_cost_cell),
                args=(key, cell, i, j, names, on_change, perm),
            )


def log_entry_key(key: str, names) -> str:
    """The session key of the log control ``key``'s entry box (its value: the entry shown, (truth, prediction))
    for the classes ``names``."""
    return f"{key}_entry_{config.content_key([str(n) for n in names])[:10]}"


def log_cost_control(
    cost_matrix, classes, key: str, on_move: Callable[[int, int, float], None], order=None
) -> None:
    """One off-diagonal entry on a log slider (0.01 .. 1000); a move calls ``on_move(i, j, value)`` before the
    next run (a guarded widget callback), so everything drawn in that run, above or below, has the new cost.

    The entry box is keyed by the class names: other classes (a preset change) make a new box, so the browser
    never keeps the previous classes' label ("harmless → liquid") over an entry of the new ones."""
    names = [str(c) for c in classes]
    shown = range(len(names)) if order is None else [int(p) for p in order]  # the entries in the order shown
    pairs = [(i, j) for i in shown for j in shown if i != j]
    a, b = st.columns([1, 1], vertical_alignment="bottom")
    i, j = a.selectbox(
        "Entry, truth → prediction",
        pairs,
        format_func=lambda p: f"{names[p[0]]} → {names[p[1]]}",
        key=log_entry_key(key, names),
    )
    C = np.array(cost_matrix, dtype=np.float64)
    current = float(np.clip(C[i, j], config.LOG_COST_MIN, config.LOG_COST_MAX))
    steps = config.LOG_COST_STEPS
    nearest = min(steps, key=lambda v: abs(np.log10(v) - np.log10(max(current, 1e-12))))
    slider_key = f"{key}_value_{i}_{j}_{C[i, j]!r}"  # a new widget whenever the stored value changes
    b.select_slider(
        "Its cost, log scale",
        steps,
        value=nearest,
        key=slider_key,
        format_func=lambda v: plain(f"{v:g}"),
        on_change=guarded_callback(lambda: on_move(i, j, float(st.session_state[slider_key]))),
    )


# ---------------------------------------------------------------------------------------------- run with Stop
def run_with_stop(
    steps: Iterable,
    store: Callable[[object], None],
    count: Callable[[object], tuple],
    *,
    key: str,
    unit: str,
    stop_help: str,
    failure: str,
) -> None:
    """Run ``steps`` (a generator of partial results) under a progress bar ("done of total ``unit``") and a
    Stop button: each partial result goes to ``store`` first, so pressing Stop (which reruns the page and
    interrupts this loop) keeps everything finished. A request over the budget (``BudgetError``, raised by
    ``steps`` before any work) is shown by ``show_refusal``, any other ``ValueError`` as ``failure: message``."""
    bar = st.progress(0.0, text="Starting…")
    stop = st.empty()
    stop.button("Stop", key=key, icon=":material/stop:", help=plain(stop_help))
    try:
        for result in steps:
            store(result)
            done, total = count(result)
            bar.progress(min(done / max(total, 1), 1.0), text=md("{} of {} {}", done, total, unit))
    except BudgetError as exc:
        show_refusal(exc)
    except ValueError as exc:
        show_error(f"{failure}: {exc}")
    bar.empty()
    stop.empty()


# ------------------------------------------------------------------------------------------------- page frames
def run_button(label: str, flag: str, *, key: str | None = None, form: bool = False) -> None:
    """A primary play button (``form``: the submit button of the enclosing ``st.form``) that sets the session
    flag ``flag`` to True when pressed; the page pops the flag to start a run."""
    options = {
        "type": "primary",
        "icon": ":material/play_arrow:",
        "key": key,
        "on_click": guarded_callback(lambda: st.session_state.update({flag: True})),
    }
    if form:
        st.form_submit_button(plain(label), **options)
    else:
        st.button(plain(label), **options)


def problem_page_header(title: str, intro: Markdown, state: AppState, default_preset: str) -> Problem:
    """Title and intro (our own markdown, from ``md``) of a page that works on the Playground's problem;
    returns that problem, or ``default_preset``'s with a warning saying why."""
    st.title(plain(title), anchor=False)  # no anchor link: the page URL carries link values (user text)
    st.markdown(plain(intro))
    problem, note = problem_or_default(state, default_preset)
    if note:
        show_message("warning", note)
    return problem


def run_page(title: str, intro: Markdown, settings: Callable[[], dict], run, results, prefix: str) -> None:
    """Title, intro (our own markdown, from ``md``) and ``settings()`` of a page that runs a study; ``run(settings)`` when
    the session flag ``<prefix>_requested`` is up or no run ``<prefix>_run`` is stored yet, then
    ``results(<prefix>_run)`` for the stored run (kept when a run is stopped)."""
    S = st.session_state
    st.title(plain(title), anchor=False)  # no anchor link: the page URL carries link values (user text)
    st.markdown(plain(intro))
    chosen = settings()
    if S.pop(f"{prefix}_requested", False) or f"{prefix}_run" not in S:
        run(chosen)
    if f"{prefix}_run" in S:
        results(S[f"{prefix}_run"])


def run_trials_with_stop(steps: Iterable, run_key: str, *, key: str) -> None:
    """``run_with_stop`` for a study of trials whose partial runs have ``done`` and ``planned`` counts: each
    partial run is stored in the session under ``run_key``; the Stop button (``key``) keeps finished trials."""
    run_with_stop(
        steps,
        lambda run: st.session_state.update({run_key: run}),
        lambda run: (run.done, run.planned),
        key=key,
        unit="trials",
        stop_help="Stop after the current dataset; the finished trials are kept.",
        failure="The comparison could not run",
    )


def require_plane(n_features: int) -> None:
    """Stop the page with a warning unless the dataset has the 2 features a page that draws the plane needs."""
    if n_features != 2:
        show_message(
            "warning",
            f"This page draws the plane, so it needs 2 features; the dataset has {n_features}. "
            "Load a 2-D dataset on the Playground.",
        )
        st.stop()
