"""The Playground's first screen (Streamlit): the plot box sized from the viewport (its CSS and height, with
room for a lesson scene's bar), presentation mode's switch, fonts and sidebar fold, the chart bundle's preload,
a session's first run sending the plot alone, and the replay that plays by itself after a retrain.
"""

from __future__ import annotations

import hashlib
import math

import streamlit as st

from rebel.ui import components as ui
from rebel.ui import viewport
from rebel.ui.figures.cost_table import numbers_fit_px
from rebel.ui.guard import page_visit
from rebel.ui.playground import present

S = st.session_state

LINK_T = "pg_link_t"  # the link's round, used when its model is first trained
TRAY_HEIGHT = 230  # px: the message tray under the costs (scrolls; a message never moves the plot)
PLOT_TOP = 52  # px: the page's top padding plus a margin: the plot box takes the viewport's height below it
PLOT_MIN = 420  # px: below this the page scrolls rather than shrinking the plot further
SCREEN_COLUMNS = [1.45, 1]  # widths of the plot's and the costs' columns
PRESENT_COLUMNS = [2.3, 1]  # presentation mode: the plot takes more (its legend and cost strip sit beside it)
# how many times presentation mode was switched on (or opened from a link): the sidebar folds once each time
COLLAPSE = "_collapse_sidebar"


# Style of the Playground's first screen: the regions plot's box (``pg_plot``) as tall as the viewport below the
# page's top padding (the figure fills it, the regions square inside), so the plot, its round control and
# numbers, and the costs beside it fit one screen at any size. The box's height and width are whole pixels, so a
# figure the server makes exactly as high (``plot_height``, from the viewport ``rebel.ui.viewport`` reports) is
# drawn once: Streamlit draws a chart again whenever its measured box differs from the figure's size. In
# presentation mode the fonts of the cost editor and the tray grow too (the figure has its own,
# ``style.presentation``). Fixed text: no user input reaches it.
LESSON_BAR = "lesson_bar"  # the lesson bar's container (``lesson_widgets.scene_bar``)
LESSON_BAR_ROW_PX = 40  # px of the lesson bar's one row (its buttons)
LESSON_BAR_PX = LESSON_BAR_ROW_PX + 16  # px it takes above the plot, with the gap under it
PLOT_TOP_LESSON = PLOT_TOP + LESSON_BAR_PX  # the plot box's top while a lesson scene is open
_PLOT_BOX_REST = (
    " width: round(down, 100%, 1px) !important; flex: 0 0 auto !important;}"
    "div.st-key-pg_plot > [data-testid='stElementContainer'] {flex: 1 1 auto; height: 100% !important;}"
    "div.st-key-pg_plot [data-testid='stFullScreenFrame'], div.st-key-pg_plot [data-testid='stPlotlyChart']"
    " {height: 100% !important;}"
)
_PLOT_BOX_CSS = (
    f"div.st-key-pg_plot {{height: round(down, max(100vh - {PLOT_TOP}px, {PLOT_MIN}px), 1px) !important;"
    + _PLOT_BOX_REST
)
_PLOT_BOX_CSS_LESSON = (
    f"div.st-key-pg_plot {{height: round(down, max(100vh - {PLOT_TOP_LESSON}px, {PLOT_MIN}px), 1px) !important;"
    + _PLOT_BOX_REST
)
# The cost cells' text gets their whole width (Streamlit pads an input by 0.75rem a side): "0.75" fits a cell of
# five classes at 1280x720.
_CELL_CSS = (
    ".st-key-cost_editor [data-testid='stTextInputRootElement'] input"
    " {padding-left: 2px !important; padding-right: 2px !important; text-align: center;}"
)
# The cost grid's class names break at spaces only, never inside a word ("harml ess"). A header column narrower
# than its name (presentation mode with the sidebar open at 1280 x 720) turns the name upright, read bottom to top,
# as spreadsheets do: the whole name stays on screen, and the column keeps the cells' width. Each header column is
# a size container (the header row: the grid's row of captions without cells); the width a name needs is guessed
# from the longest name's length (``COST_NAME_CHAR_PX`` a character of the captions' 14 px font).
COST_NAME_CHAR_PX = 7.2
_HEADER_ROW = (
    ".st-key-cost_editor [data-testid='stHorizontalBlock']"
    ":has([data-testid='stCaptionContainer']):not(:has(input))"
)
_COST_NAMES_CSS = (
    ".st-key-cost_editor [data-testid='stCaptionContainer'] p"
    " {word-break: keep-all; overflow-wrap: normal; hyphens: none;}"
    f"{_HEADER_ROW} > [data-testid='stColumn']:not(:first-child) {{container-type: inline-size;}}"
)

# The controls beside one another in the costs' column (the log control's entry box and slider, the presets and
# Normalize buttons) one under the other when the column is narrower than ``CONTROLS_STACK_PX`` (presentation mode
# with the sidebar open at 1280 x 720 or 1440 x 900: ~230 and ~280 px): side by side, each box showed a part of its
# text ("defect → o", "Cost …"). The many-class editor's row (truth, prediction, cost) puts the truth's box on a
# line of its own, the prediction's and the cost's under it, the cost's box just wide enough for a cost ("app" was
# all of "apple"), in a column narrower than ``ENTRY_STACK_PX`` (the sidebar open at 1280 x 720 without
# presentation mode too: "elderberry" lost its last letter). They sit under the cost matrix, so the plot and the
# matrix keep their place; the message tray under them moves down.
CONTROLS_STACK_PX = 300
ENTRY_STACK_PX = 330
_COSTS_COLUMN = "[data-testid='stColumn']:has(.st-key-cost_editor)"
_CONTROL_ROW = (
    f"{_COSTS_COLUMN} [data-testid='stHorizontalBlock']"
    ":has([data-testid='stSelectbox'], [data-testid='stButton'], [data-testid='stPopover'])"
)
_ENTRY_ROW = f"{_CONTROL_ROW}:has([data-testid='stTextInput'])"  # truth, prediction, cost
_WHOLE_LINE = "{min-width: 100% !important; flex: 1 1 100% !important;}"


# (the rules inside each ``@container (max-width: ...)``: the controls' rows, the entry's row)
_CONTROLS_RULES = (
    f"{{{_CONTROL_ROW} {{flex-wrap: wrap; row-gap: 0.25rem;}}"
    f"{_CONTROL_ROW}:not(:has([data-testid='stTextInput'])) > [data-testid='stColumn'] {_WHOLE_LINE}}}"
)
_ENTRY_RULES = (
    f"{{{_ENTRY_ROW} {{flex-wrap: wrap; row-gap: 0.25rem;}}"
    f"{_ENTRY_ROW} > [data-testid='stColumn']:first-child {_WHOLE_LINE}"
    f"{_ENTRY_ROW} > [data-testid='stColumn']:nth-child(2) {{flex: 1 1 0 !important; width: auto !important;"
    " min-width: 0 !important;}"
    f"{_ENTRY_ROW} > [data-testid='stColumn']:last-child {{flex: 0 0 4.5rem !important; width: 4.5rem !important;"
    " min-width: 0 !important;}}"
)
_STACK_CSS = (
    f"{_COSTS_COLUMN} {{container-type: inline-size;}}"
    f"@container (max-width: {CONTROLS_STACK_PX}px) {_CONTROLS_RULES}"
    f"@container (max-width: {ENTRY_STACK_PX}px) {_ENTRY_RULES}"
)


# The rule turning the names upright, for a longest name of at most 4, 6, 8, 10, 12, 16, 24 characters or more:
# fixed text (``st.html`` takes no built HTML), a width of COST_NAME_CHAR_PX a character + 4 px, rounded up.
_UPRIGHT = (
    "{writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; margin: 0 auto;} }</style>"
)
_NAME_P = " [data-testid='stCaptionContainer'] p "
_UPRIGHT_4 = "<style>@container (max-width: 33px) {" + _NAME_P + _UPRIGHT
_UPRIGHT_6 = "<style>@container (max-width: 48px) {" + _NAME_P + _UPRIGHT
_UPRIGHT_8 = "<style>@container (max-width: 62px) {" + _NAME_P + _UPRIGHT
_UPRIGHT_10 = "<style>@container (max-width: 76px) {" + _NAME_P + _UPRIGHT
_UPRIGHT_12 = "<style>@container (max-width: 91px) {" + _NAME_P + _UPRIGHT
_UPRIGHT_16 = "<style>@container (max-width: 120px) {" + _NAME_P + _UPRIGHT
_UPRIGHT_24 = "<style>@container (max-width: 177px) {" + _NAME_P + _UPRIGHT
_UPRIGHT_MORE = "<style>@container (max-width: 9999px) {" + _NAME_P + _UPRIGHT


def _longest(classes) -> int:
    return max((len(str(c)) for c in classes or ()), default=0)


# What keeps the viewport's size known (``rebel.ui.viewport``) takes no room, nor does the sidebar's fold.
_VIEWPORT_BOX_CSS = "div.st-key-pg_viewport_box {display: none !important;}"  # viewport.BOX
_FOLD_BOX_CSS = "div[class*='st-key-pg_fold_'] {display: none !important;}"  # FOLD_BOX: the sidebar's fold
# The lesson bar: one row of fixed height (``LESSON_BAR_PX`` with the gap under it), its text on one line.
_LESSON_BAR_CSS = (
    f"div.st-key-{LESSON_BAR} {{height: {LESSON_BAR_ROW_PX}px; overflow: hidden;}}"
    f"div.st-key-{LESSON_BAR} p {{white-space: nowrap; overflow: hidden; text-overflow: ellipsis; margin: 0;}}"
)
# In presentation mode a class name's characters are PRESENT_NAME_SCALE times wider (20 px against 14 px): the
# rule turning the grid's names upright is picked for a name that much longer, and the controls stack in a
# column that much wider.
PRESENT_NAME_SCALE = 20 / 14
CONTROLS_STACK_PX_PRESENT = 429  # CONTROLS_STACK_PX and ENTRY_STACK_PX times PRESENT_NAME_SCALE
ENTRY_STACK_PX_PRESENT = 471
# Presentation mode: every text of the first screen at 20 px or more (1.25rem) for the back of a room. The regions
# chart's toolbar keeps two buttons (``style.PRESENTATION_CONFIG``): the groups emptied of theirs take no room, so
# the two end above the verdict's heading beside the regions.
# Every text of the costs' column (its heading, the grid's class names, "truth ↓ pred. →", the entry's labels and
# values, the log control's value, the buttons) at 20 px too, the cost cells and the tray larger still (their
# rules are more specific than ``:where(...)``).
_PRESENT_CSS = (
    "div.st-key-pg_plot .modebar-group:empty {display: none !important;}"
    ".st-key-cost_editor input, .st-key-pg_tray p {font-size: 1.35rem !important;}"
    f".st-key-{LESSON_BAR} p, .st-key-{LESSON_BAR} button p,"
    " .st-key-pg_present label p {font-size: 1.25rem !important;}"
    f":where({_COSTS_COLUMN}) :is(p, label, input, [data-baseweb='select'] div,"
    " [data-testid='stSliderThumbValue'], [data-testid='stMarkdownContainer'] span)"
    " {font-size: 1.25rem !important;}"
    f"@container (max-width: {CONTROLS_STACK_PX_PRESENT}px) {_CONTROLS_RULES}"
    f"@container (max-width: {ENTRY_STACK_PX_PRESENT}px) {_ENTRY_RULES}"
)
_HIDDEN_CSS = _VIEWPORT_BOX_CSS + _FOLD_BOX_CSS
# Presentation mode with many classes (the read-only cost table): the costs' column at least COSTS_TABLE_MIN_PX
# wide and the gap between the columns narrower, so the table's rows keep their names and its columns their
# coloured squares at 20 px with the sidebar open at 1280 x 720. The plot's column gives the width (it may shrink
# below its chart's width; the plot is drawn again for its box). Where a cost at 20 px would not fit its cell the
# table hides its costs (below).
COSTS_TABLE_MIN_PX = 258
_WIDE_COSTS_CSS = (
    f"<style>[data-testid='stColumn']:has(.st-key-cost_editor) {{min-width: {COSTS_TABLE_MIN_PX}px;}}"
    "[data-testid='stColumn']:has(.st-key-pg_plot) {min-width: 0;}"
    "[data-testid='stHorizontalBlock']:has(> [data-testid='stColumn'] .st-key-pg_plot)"
    " {flex-wrap: nowrap; gap: 0.5rem !important;}</style>"
)


# ... and hides its costs while its box is narrower than the least width that holds them at 20 px
# (``cost_table.numbers_fit_px``), rounded up to one of FIT_STEPS (a style sheet is fixed text: one per step)
FIT_STEPS = (200, 240, 280, 320, 360, 420, 480, 560, 640, 760, 900)
_TABLE_BOX = ".st-key-w_costs_table_box"
_FIT = f"<style>{_TABLE_BOX} {{container-type: inline-size;}}@container (max-width: "
_HIDE = f"px) {{{_TABLE_BOX} .heatmaplayer text {{display: none;}}}}</style>"
_FIT_200 = _FIT + "199" + _HIDE
_FIT_240 = _FIT + "239" + _HIDE
_FIT_280 = _FIT + "279" + _HIDE
_FIT_320 = _FIT + "319" + _HIDE
_FIT_360 = _FIT + "359" + _HIDE
_FIT_420 = _FIT + "419" + _HIDE
_FIT_480 = _FIT + "479" + _HIDE
_FIT_560 = _FIT + "559" + _HIDE
_FIT_640 = _FIT + "639" + _HIDE
_FIT_760 = _FIT + "759" + _HIDE
_FIT_900 = _FIT + "899" + _HIDE
_FIT_NONE = f"<style>{_TABLE_BOX} .heatmaplayer text {{display: none;}}</style>"  # wider than any step


def costs_fit_step(fit_px: int) -> int | None:
    """The width (px) below which presentation mode's cost table hides its costs: the least of ``FIT_STEPS`` that
    is at least ``fit_px``, or None (always hidden) above them all."""
    return next((step for step in FIT_STEPS if step >= fit_px), None)


_SCREEN = _CELL_CSS + _COST_NAMES_CSS + _STACK_CSS + _HIDDEN_CSS + _LESSON_BAR_CSS
ONE_SCREEN_CSS = "<style>" + _PLOT_BOX_CSS + _SCREEN + "</style>"
ONE_SCREEN_CSS_PRESENT = "<style>" + _PLOT_BOX_CSS + _SCREEN + _PRESENT_CSS + "</style>"
ONE_SCREEN_CSS_LESSON = "<style>" + _PLOT_BOX_CSS_LESSON + _SCREEN + "</style>"
ONE_SCREEN_CSS_PRESENT_LESSON = "<style>" + _PLOT_BOX_CSS_LESSON + _SCREEN + _PRESENT_CSS + "</style>"


def plot_height(size: viewport.Viewport | None, lesson: bool = False) -> int | None:
    """The regions plot's height in px in the viewport ``size`` (the box ``_PLOT_BOX_CSS[_LESSON]`` makes), or None
    when the viewport is not known (the chart then measures its box)."""
    return viewport.plot_height(size, PLOT_TOP_LESSON if lesson else PLOT_TOP, PLOT_MIN)


def narrow_plot(size: viewport.Viewport | None, lesson: bool = False) -> bool:
    """Whether the plot's box in the viewport ``size`` takes the projector's narrow layout
    (``replay_numbers.narrow_box``: the sidebar open at 1280 x 720); False when the viewport is not known."""
    from rebel.ui.figures.replay_numbers import narrow_box

    return size is not None and narrow_box(size.width, plot_height(size, lesson))


# px of the costs' column around the read-only cost table in presentation mode (the page's top, the header and
# caption above it, the entry row and the preset buttons under it): the table takes the rest of the viewport's
# height, so many classes get larger rows and fonts on a taller screen (``components.table_row_px``).
COSTS_AROUND_TABLE = 370
NARROW_TABLE_GIVES = 40  # px


def cost_table_height(size: viewport.Viewport | None) -> int | None:
    """The read-only cost table's height at most in presentation mode, or None (the default) when the viewport
    is not known. Beside a narrow plot (the sidebar open at 1280 x 720) the table gives up ``NARROW_TABLE_GIVES``
    px to the truth's box on a line of its own under it (``_STACK_CSS``)."""
    if size is None:
        return None
    if narrow_plot(size):  # (no less than its rows' least height, ``components.ROW_PX``)
        return int(size.height) - COSTS_AROUND_TABLE - NARROW_TABLE_GIVES
    return max(ui.TABLE_HEIGHT_LARGE, int(size.height) - COSTS_AROUND_TABLE)


def one_screen_style(present_mode: bool = False, lesson: bool = False, classes=(), costs=None) -> None:
    """The first screen's style: ``ONE_SCREEN_CSS``, with presentation mode's large fonts and a lesson bar's row
    above the plot as they apply, the cost grid's column names upright where a column is too narrow for the
    longest of ``classes``, and presentation mode's cost table (many classes) hiding its ``costs`` where they do
    not fit."""
    if lesson:
        st.html(ONE_SCREEN_CSS_PRESENT_LESSON if present_mode else ONE_SCREEN_CSS_LESSON)
    else:
        st.html(ONE_SCREEN_CSS_PRESENT if present_mode else ONE_SCREEN_CSS)
    n = math.ceil(_longest(classes) * (PRESENT_NAME_SCALE if present_mode else 1))
    st.html(
        _UPRIGHT_4 if n <= 4 else _UPRIGHT_6 if n <= 6 else _UPRIGHT_8 if n <= 8 else _UPRIGHT_10 if n <= 10
        else _UPRIGHT_12 if n <= 12 else _UPRIGHT_16 if n <= 16 else _UPRIGHT_24 if n <= 24 else _UPRIGHT_MORE
    )  # fmt: skip
    if present_mode and ui.uses_entry_editor(len(classes), True):
        st.html(_WIDE_COSTS_CSS)
        step = None if costs is None else costs_fit_step(numbers_fit_px(costs, classes))
        st.html(
            _FIT_200 if step == 200 else _FIT_240 if step == 240 else _FIT_280 if step == 280
            else _FIT_320 if step == 320 else _FIT_360 if step == 360 else _FIT_420 if step == 420
            else _FIT_480 if step == 480 else _FIT_560 if step == 560 else _FIT_640 if step == 640
            else _FIT_760 if step == 760 else _FIT_900 if step == 900 else _FIT_NONE
        )  # fmt: skip


# A new session's first run sends, before anything else, an empty chart that is never shown (in a hidden box of
# the sidebar): the browser starts loading its plotly bundle (~4.7 MB of JavaScript, fetched and compiled only
# when a page first holds a chart) while the server still trains and draws, instead of after the regions arrive
# (a first visit's regions painted ~0.15-0.4 s sooner under load). The page empties the slot again at the end of
# that run, so it holds only its own charts; later runs of the session leave the box empty (the bundle is loaded).
PRELOADED = "_charts_preloaded"
_PRELOAD_CSS = "<style>div.st-key-pg_preload {display: none !important;}</style>"


def preload_charts():
    """Start the browser's loading of the chart bundle at the top of a session's first run (``PRELOADED``).
    Returns the chart's slot: call its ``empty()`` at the end of the run."""
    box = st.sidebar.container(key="pg_preload")
    slot = box.empty()
    if S.get(PRELOADED):
        return slot
    S[PRELOADED] = True
    import plotly.graph_objects as go

    box.html(_PRELOAD_CSS)
    empty = go.Figure(layout={"xaxis": {"visible": False}, "yaxis": {"visible": False}})
    slot.plotly_chart(empty, key="pg_preload_chart", config={"staticPlot": True}, height=10)
    return slot


# A new session's first run, when a browser is behind it, sends the regions plot alone and leaves the rest of the
# page (cost editor, message tray, details, sidebar) to a whole-page run that the browser asks for once the plot is
# drawn: the viewport watcher presses a hidden button sent after the main area (``viewport.rest_button``). The
# browser then has nothing else to draw while it compiles the chart code and mounts the plot (a first visit's
# regions ~0.4 s sooner at 1280x720, the whole first screen ~0.25 s later). With no browser behind the session (a
# test harness), nothing would press it: everything is drawn at once. Later runs never wait.
PLOT_FIRST = "_plot_first"  # "now": this run draws the plot alone; "waiting": for the browser's press
PLOT_FIRST_NOW, PLOT_FIRST_WAITING = "now", "waiting"


def start_plot_first(first_run: bool) -> None:
    """At the top of every whole-page run: mark a session's first run as drawing the plot alone when a browser is
    behind it; any later whole-page run drops the mark (it draws everything)."""
    S.pop(PLOT_FIRST, None)
    if first_run and viewport.browser_behind():
        S[PLOT_FIRST] = PLOT_FIRST_NOW


def plot_first_stage() -> str | None:
    """``PLOT_FIRST_NOW`` (this run draws the plot alone), ``PLOT_FIRST_WAITING`` (the main area reran before the
    browser's press: rerun the whole page) or None (draw everything)."""
    return S.get(PLOT_FIRST)


def plot_drawn_alone() -> None:
    """The plot was sent alone: the page then sends the button that brings the rest (``viewport.rest_button``)."""
    S[PLOT_FIRST] = PLOT_FIRST_WAITING


def forget_plot_first() -> None:
    """No plot was drawn (training failed): this run draws everything."""
    S.pop(PLOT_FIRST, None)


def rest_of_page_now() -> None:
    """The main area reran while the page waited for the browser's press (a toggle under the plot, say): the whole
    page now."""
    forget_plot_first()
    st.rerun(scope="app")


# Folds the sidebar away (a click on its collapse button), once each time presentation mode is switched on (or
# opened from a link), so the plot gets the projector's whole width; the sidebar can be opened again as usual.
# Sent in every run while presentation mode is on, in a hidden box whose key names the time it was switched on
# (``COLLAPSE``, a count): the script folds once per count in a window. Sent once only, the script was lost now and
# then on a loaded machine (the run that carried it was cut short by the next, or the next ended before the
# browser drew it), and the sidebar stayed open.
COLLAPSE_SIDEBAR = """<script>
(() => {
  const me = document.currentScript, box = me && me.closest('[class*="st-key-pg_fold_"]');
  const count = box && [...box.classList].find(c => c.startsWith('st-key-pg_fold_'));
  if (!count || window.__rebelFolded === count) return;
  window.__rebelFolded = count;
  const fold = (tries) => {
    const s = document.querySelector('[data-testid="stSidebar"]');
    if (!s || s.getAttribute('aria-expanded') === 'false' || s.getBoundingClientRect().right <= 1) return;
    const b = document.querySelector(
      '[data-testid="stSidebarCollapseButton"] button, button[data-testid="stSidebarCollapseButton"]');
    if (b) b.click(); else if (tries > 0) setTimeout(() => fold(tries - 1), 200);
  };
  fold(15);
})();
</script>"""
FOLD_BOX = "pg_fold_"  # + the count: the hidden box of ``COLLAPSE_SIDEBAR`` (``_FOLD_BOX_CSS`` hides it)


def switched_on() -> None:
    """Presentation mode was switched on (or opened from a link): the sidebar folds once more."""
    S[COLLAPSE] = int(S.get(COLLAPSE) or 0) + 1


def collapse_sidebar_once() -> None:
    """While presentation mode is on, the script folding the sidebar once per switch (``COLLAPSE_SIDEBAR``, fixed
    text, in a hidden box keyed by the switch's count)."""
    count = S.get(COLLAPSE)
    if present.on() and count:
        with st.container(key=f"{FOLD_BOX}{int(count)}"):
            st.html(COLLAPSE_SIDEBAR, unsafe_allow_javascript=True)


def _on_present() -> None:
    S["w_autoplay"] = present.on()
    if present.on():
        switched_on()


def presentation_switch() -> None:
    """Presentation mode's switch, on the first screen (``present.switch``)."""
    present.switch(_on_present)


AUTOPLAY = "_autoplay"  # a token, set when a retrained model's replay should play from t = 0 by itself


def autoplay_token(retrained: bool) -> str | None:
    """A new token when a model was just retrained, "Replay after retraining" is on and no link asks for a
    round (else None): the replay then opens at t = 0 and ``ROUND_IN_LINK``'s script presses Play once."""
    if not (retrained and S.get("w_autoplay")) or LINK_T in S:  # a link's round wins
        return None
    S["_autoplay_n"] = S.get("_autoplay_n", 0) + 1
    return f"play-{S['_autoplay_n']}"


REPLAYED = "_autoplay_drawn"  # (pair key, token, view, visit): the last figure drawn with an autoplay token


def replay_token(key: str, view: tuple, own: bool) -> str | None:
    """The autoplay token of this run's regions figure, for the pair ``key`` seen as ``view`` (everything the
    figure is made of but its size); None when the chart is not the pair's ``own`` (one the browser repainted is
    kept as it is). A retrain's new token (``AUTOPLAY``, taken once) is remembered; a run with none keeps the last
    one while the pair and the view are the same, so a chart drawn again only for its box (a box reported after
    the retrain's run: the sidebar folding as presentation mode opens, a resized window) opens at t = 0 with the
    same token, and ``ROUND_IN_LINK``'s script carries the replay on from the round it reached, or shows the last
    round if it had ended, instead of the figure jumping to its last round mid-replay. Anything else changed (a
    toggle, another pair, the page left and entered again: ``guard.page_visit``): None, and the figure opens at
    the page's round, as before."""
    token, visit = S.pop(AUTOPLAY, None), page_visit()
    if not own:
        S.pop(REPLAYED, None)
        return None
    if token is not None:
        S[REPLAYED] = (key, token, view, visit)
        return token
    last = S.get(REPLAYED)
    if last is not None and last[0] == key and last[2:] == (view, visit):
        return last[1]
    S.pop(REPLAYED, None)
    return None


def mark_picture(fig, autoplay: str | None, shown: tuple) -> None:
    """The regions figure's ``layout.meta``: ``autoplay``, a retrain's token (``ROUND_IN_LINK``'s script presses
    Play once), and ``picture``, a digest of everything the figure shows but its size (``shown``: the pair, the
    round it opens at, the token, the view). A figure drawn again with the same picture and no token (a box
    reported after the page's run, a resized window) is put back by the script at the round the figure before it
    showed, playing on if it played: it opens at the server's round, and a replay started with Play jumped there."""
    meta = dict(fig.layout.meta) if isinstance(fig.layout.meta, dict) else {}
    meta["picture"] = hashlib.blake2b(repr(shown).encode(), digest_size=8).hexdigest()
    if autoplay:
        meta["autoplay"] = autoplay
    fig.layout.meta = meta
