"""The Playground's sidebar and panels (Streamlit widgets): dataset settings, training settings, files
and sharing, the cost-preset controls, the view toggles and the link.

Widgets write their own "w_*" keys; this module turns changes into ``rebel.ui.playground.actions`` calls on
the shared ``AppState`` and re-seeds the widget keys from that state when the page is (re)visited, since
Streamlit drops widget keys on other pages.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from rebel.cost_presets import COST_PRESETS
from rebel.data import PRESETS, DatasetSpec
from rebel.params import DATA_RANGES, INT_PARAMS
from rebel.ui import components as ui
from rebel.ui import config as cfgmod
from rebel.ui import short_link, viewport
from rebel.ui.lessons import SCENE_KEY, scene_shown
from rebel.ui.playground import actions as act
from rebel.ui.playground import exercise, link, present, thumbs, upload_link
from rebel.ui.playground.compute import preset_order
from rebel.ui.state import AppState, get_state
from rebel.ui.variants import ENGINES

COSTS = "w_costs"
COST_KINDS = {
    "suggested": "Preset's suggested costs",
    **{k: p.label for k, p in COST_PRESETS.items()},
    "taxonomy": "Taxonomy (tree distance)",
}
HYPER_LABELS = {
    "n_estimators": "Boosting rounds (n_estimators)",
    "max_depth": "Tree depth (max_depth)",
    "n_thresholds": "Thresholds per feature (n_thresholds)",
}
S = st.session_state
RANGES = DATA_RANGES  # the one range table of the dataset settings: links and session files read it too
MIN_POINTS = RANGES["n_points"].low
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
# What keeps the viewport's size known (``rebel.ui.viewport``) takes no room, nor does the sidebar's fold.
_VIEWPORT_BOX_CSS = "div.st-key-pg_viewport_box {display: none !important;}"  # viewport.BOX
_FOLD_BOX_CSS = "div[class*='st-key-pg_fold_'] {display: none !important;}"  # FOLD_BOX: the sidebar's fold
# The lesson bar: one row of fixed height (``LESSON_BAR_PX`` with the gap under it), its text on one line.
_LESSON_BAR_CSS = (
    f"div.st-key-{LESSON_BAR} {{height: {LESSON_BAR_ROW_PX}px; overflow: hidden;}}"
    f"div.st-key-{LESSON_BAR} p {{white-space: nowrap; overflow: hidden; text-overflow: ellipsis; margin: 0;}}"
)
# Presentation mode: every text of the first screen at 20 px or more (1.25rem) for the back of a room.
_PRESENT_CSS = (
    ".st-key-cost_editor input, .st-key-pg_tray p {font-size: 1.35rem !important;}"
    f".st-key-{LESSON_BAR} p, .st-key-{LESSON_BAR} button p,"
    " .st-key-pg_present label p {font-size: 1.25rem !important;}"
)
_HIDDEN_CSS = _VIEWPORT_BOX_CSS + _FOLD_BOX_CSS


_SCREEN = _CELL_CSS + _HIDDEN_CSS + _LESSON_BAR_CSS
ONE_SCREEN_CSS = "<style>" + _PLOT_BOX_CSS + _SCREEN + "</style>"
ONE_SCREEN_CSS_PRESENT = "<style>" + _PLOT_BOX_CSS + _SCREEN + _PRESENT_CSS + "</style>"
ONE_SCREEN_CSS_LESSON = "<style>" + _PLOT_BOX_CSS_LESSON + _SCREEN + "</style>"
ONE_SCREEN_CSS_PRESENT_LESSON = "<style>" + _PLOT_BOX_CSS_LESSON + _SCREEN + _PRESENT_CSS + "</style>"


def plot_height(size: viewport.Viewport | None, lesson: bool = False) -> int | None:
    """The regions plot's height in px in the viewport ``size`` (the box ``_PLOT_BOX_CSS[_LESSON]`` makes), or None
    when the viewport is not known (the chart then measures its box)."""
    return viewport.plot_height(size, PLOT_TOP_LESSON if lesson else PLOT_TOP, PLOT_MIN)


# px of the costs' column around the read-only cost table in presentation mode (the page's top, the header and
# caption above it, the entry row and the preset buttons under it): the table takes the rest of the viewport's
# height, so many classes get larger rows and fonts on a taller screen (``components.table_row_px``).
COSTS_AROUND_TABLE = 370


def cost_table_height(size: viewport.Viewport | None) -> int | None:
    """The read-only cost table's height at most in presentation mode, or None (the default) when the viewport
    is not known."""
    if size is None:
        return None
    return max(ui.TABLE_HEIGHT_LARGE, int(size.height) - COSTS_AROUND_TABLE)


def one_screen_style(present_mode: bool = False, lesson: bool = False) -> None:
    """The first screen's style: ``ONE_SCREEN_CSS``, with presentation mode's large fonts and a lesson bar's row
    above the plot as they apply."""
    if lesson:
        st.html(ONE_SCREEN_CSS_PRESENT_LESSON if present_mode else ONE_SCREEN_CSS_LESSON)
    else:
        st.html(ONE_SCREEN_CSS_PRESENT if present_mode else ONE_SCREEN_CSS)


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


def _switched_on() -> None:
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
        _switched_on()


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


def reset_mixture_editor(mixture) -> None:
    S["mixture_base"] = mixture.copy()
    S["mixture_editor_v"] = S.get("mixture_editor_v", 0) + 1


def _sync_widgets(A: AppState) -> None:
    """Write the widgets' keys from the shared state (after a preset, session file, link or page revisit)."""
    spec = A.spec
    S["w_n_points"] = int(spec.n_points)
    S["w_seed"] = int(spec.seed or 0)
    S["w_noise"] = round(float(spec.label_noise), 2)
    S["w_test"] = round(float(spec.test_fraction), 2)
    for name in INT_PARAMS:
        S[f"w_{name}"] = int(A.hyper[name])
    S["w_engine"] = A.engine
    if A.preset in PRESETS:
        S["w_preset"] = A.preset


def _apply(A: AppState, cfg, preset: bool = False) -> None:
    note = act.apply_preset(A, cfg) if preset else act.apply_config(A, cfg)
    if note:
        ui.flash("info", note)
    _apply_state(A)


def _apply_state(A: AppState) -> None:
    """The editors and widgets show the state afresh."""
    ui.reset_cost_editor(COSTS, A.cost_matrix)
    reset_mixture_editor(A.spec.mixture)
    _sync_widgets(A)


def init_state(A: AppState) -> None:
    """First visit: the configuration in the link (?cfg=...) if any, else the default preset."""
    if A.dataset is not None:
        if "w_preset" not in S:  # widget keys (and the editors' pending edits) are dropped on other pages
            _sync_widgets(A)
            ui.reset_cost_editor(COSTS, A.cost_matrix)
            reset_mixture_editor(A.spec.mixture)
        return
    default = partial(_apply, A, cfgmod.preset_config(cfgmod.DEFAULT_PRESET))
    if upload_link.restore(A, default, lambda: _apply_state(A)):  # the link names uploaded points
        return
    try:
        named = short_link.config_from_params({k: st.query_params.get(k) for k in short_link.LINK_KEYS})
    except ValueError as exc:
        named = None
        ui.flash("error", f"The link's configuration could not be used: {exc} Showing the default preset.")
    if named is not None:
        cfg, scene = named
        _apply(A, cfg)
        if scene is not None:  # the lesson bar comes with the scene
            S[SCENE_KEY] = scene
        _restore_view()
        return
    _apply(A, cfgmod.preset_config(cfgmod.DEFAULT_PRESET))


LINK_T = "pg_link_t"  # the link's round, used when its model is first trained


def first_round(T: int) -> int:
    """The round a newly trained model opens at: the link's (once, when the link opened the page), else its
    last; the address bar's t is reset to it (``sync_url`` writes it)."""
    if "t" in st.query_params:
        del st.query_params["t"]
    return min(int(S.pop(LINK_T, T)), T)


def _restore_view() -> None:
    """The view in the link (``rebel.ui.playground.link``): round, overlays, Details tab, presentation mode."""
    view, problems = link.decode_view({k: st.query_params.get(k) for k in link.VIEW_KEYS})
    if "t" in view:
        S[LINK_T] = view["t"]
    for name in view.get("overlays", ()):
        S[link.OVERLAYS[name]] = True
    if "details" in view:
        S["w_details"] = view["details"]
    if view.get("present"):
        present.set_mode(True)
        S["w_autoplay"] = True
        _switched_on()
    for problem in problems:
        ui.flash("warning", f"The link's view: {problem}.")


# ---------------------------------------------------------------------------------------------------- callbacks
def _on_preset() -> None:
    A = get_state()
    try:
        _apply(A, cfgmod.preset_config(S["w_preset"], A.hyper, A.engine), preset=True)
    except ValueError as exc:
        ui.flash("error", f"Preset not loaded: {exc}")


def _on_thumbnail(name: str) -> None:
    """A preset thumbnail's click: the same action as choosing ``name`` in the Preset box."""
    S["w_preset"] = name
    _on_preset()


@st.cache_data(show_spinner=False, max_entries=64)
def _thumbnail(name: str) -> bytes | None:
    return thumbs.preset_thumbnail(name)


PRESET_PICTURES = "Presets as pictures"  # the expander's label (browser tests open it by it)
THUMB_COLUMNS = 2  # the names under the pictures fit at two a row (at four they were cut to "a…")


def preset_thumbnails(where) -> None:
    """The presets as small pictures of their points, each with a button that loads it (``_on_thumbnail``).
    Drawn only while their expander is open: closed, a run sends none of its pictures and buttons (one of each per
    preset; a preset's run draws the whole page, and the browser's work on them delayed the regions' paint)."""
    box = where.expander(ui.plain(PRESET_PICTURES), expanded=False, key="w_thumbs_open", on_change="rerun")
    if not box.open:
        return
    with box:
        names = preset_order(PRESETS)
        for row in range(0, len(names), THUMB_COLUMNS):
            cols = st.columns(THUMB_COLUMNS, gap="small")
            for col, name in zip(cols, names[row : row + THUMB_COLUMNS], strict=False):
                png = _thumbnail(name)
                if png is not None:
                    col.image(png, width="stretch")
                col.button(
                    ui.plain(name),
                    key=f"w_thumb_{name}",
                    on_click=ui.guarded_callback(_on_thumbnail),
                    args=(name,),
                    width="stretch",
                    type="primary" if name == get_state().preset else "secondary",
                )


def _on_n_points() -> None:
    """Refuse a number of points outside the app's range with a message; the previous number stays."""
    A = get_state()
    value = S.get("w_n_points")
    if value is None or not MIN_POINTS <= value <= cfgmod.MAX_POINTS:
        S["w_n_points"] = int(A.spec.n_points)
        ui.flash(
            "error",
            f"Number of points {value!r} not applied: the Playground takes {MIN_POINTS} to {cfgmod.MAX_POINTS} "
            f"points (it retrains on every change). It stays {A.spec.n_points}.",
        )


def _on_regenerate() -> None:
    """The dice: the next seed. Fast clicks send the seed field as the browser still shows it (the value before
    the streak), which would reset each click's seed + 1; so a server-only record (shown, drawn) of the streak
    continues from the last drawn seed while the field shows either of them."""
    shown = int(S.get("w_seed", 0))
    start, drawn = S.get("w_dice", (None, None))
    base = drawn if shown in (start, drawn) else shown
    seed = min(int(base) + 1, int(RANGES["seed"].high))
    S["w_dice"] = (start if shown == start else shown, seed)
    S["w_seed"] = seed


def _uploaded_bytes(key: str):
    f = S.get(key)
    return None if f is None else f.getvalue()


def _on_session_upload() -> None:
    data = _uploaded_bytes("w_session_upload")
    if data is None:
        return
    try:
        _apply(get_state(), cfgmod.parse_session_json(data))
    except ValueError as exc:
        ui.flash("error", f"Session file not loaded: {exc} Your data and costs are unchanged.")
    else:
        ui.flash("success", "Session loaded: dataset, costs and hyper-parameters restored.")


def _on_back_to_mixture() -> None:
    A = get_state()
    note = act.back_to_mixture(A)
    ui.reset_cost_editor(COSTS, A.cost_matrix)
    if note:
        ui.flash("info", note)


def _on_cost_preset(on_apply) -> None:
    A = get_state()
    try:
        C = act.cost_preset_matrix(
            A,
            S["w_cost_preset"],
            cls=S.get("w_cost_class"),
            m=S.get("w_cost_m", 10.0),
            seed=S.get("w_cost_seed", 0),
            tree=S.get("w_cost_tree", ""),
        )
    except ValueError as exc:
        ui.flash("error", f"Cost preset not applied: {exc}")
        return
    on_apply(C)


# ------------------------------------------------------------------------------------------------------- panels
_SPEC_ERROR = "pg_spec_error"  # a refused dataset setting's message, shown under the dataset widgets


def read_sidebar(A: AppState) -> None:
    """Apply the sidebar's settings (kept in the session under the widgets' keys) to the state. Runs before the
    main area, so the sidebar itself can be drawn after it (``sidebar``) in a session's first run: the picture
    reaches the browser first."""
    _read_dataset_widgets(A)
    A.hyper = cfgmod.validate_hyper({name: int(S[f"w_{name}"]) for name in INT_PARAMS})
    S.setdefault("w_engine", A.engine)
    A.engine = S["w_engine"]


def sidebar(A: AppState) -> None:
    """Draw the sidebar: dataset, training and files (its settings were applied by ``read_sidebar``), less the
    groups an exercise link hides (``exercise``)."""
    sb = st.sidebar
    hidden = [name for name in exercise.GROUPS if exercise.hidden(name)]
    if hidden:
        sb.caption(ui.md("This exercise hides {}.", "; ".join(exercise.GROUPS[n] for n in hidden)))
    _dataset_controls(A, sb.container(key=exercise.box("data")))
    _training_controls(sb.container(key=exercise.box("training")))
    _files(A, sb.container(key=exercise.box("files")))


def _dataset_controls(A: AppState, sb) -> None:
    sb.header("Dataset")
    sb.selectbox(
        "Preset",
        preset_order(PRESETS),
        key="w_preset",
        on_change=ui.guarded_callback(_on_preset),
        help="Each preset is a Gaussian mixture with a story and suggested costs.",
    )
    preset_thumbnails(sb)
    sb.number_input(
        ui.plain(RANGES["n_points"].label),
        step=100,
        key="w_n_points",
        on_change=ui.guarded_callback(_on_n_points),
        help=ui.md("From {} to {}: the Playground retrains on every change.", MIN_POINTS, cfgmod.MAX_POINTS),
    )
    c1, c2 = sb.columns([4, 1], vertical_alignment="bottom")
    seed = RANGES["seed"]
    c1.number_input(
        ui.plain(seed.label), min_value=seed.low, max_value=seed.high, step=seed.step, key="w_seed"
    )
    c2.button(
        "",
        on_click=ui.guarded_callback(_on_regenerate),
        icon=":material/casino:",
        key="w_redraw",
        help="Redraw: new points (seed + 1).",
    )
    for key, r in (("w_noise", RANGES["label_noise"]), ("w_test", RANGES["test_fraction"])):
        sb.slider(
            ui.plain(r.label), r.low, r.high, step=r.step, key=key, help=ui.plain(r.help.capitalize() + ".")
        )
    error = S.pop(_SPEC_ERROR, None)
    if error:
        ui.show_error(error, where=sb)
    refused = S.pop(upload_link.CSV_REFUSED, False)
    if A.data_source == "csv":
        if not refused:
            sb.info("Using the uploaded CSV points; the mixture settings above are not in use.")
        sb.button(
            "Back to the designed mixture",
            on_click=ui.guarded_callback(_on_back_to_mixture),
            key="w_back_to_mixture",
        )


def _training_controls(sb) -> None:
    sb.header("Training")
    for name, p in INT_PARAMS.items():
        sb.slider(ui.plain(HYPER_LABELS[name]), p.low, p.app_high, key=f"w_{name}", help=ui.plain(p.help))
    sb.selectbox(
        "Engine",
        list(ENGINES),
        format_func=ENGINES.get,
        key="w_engine",
        help="Both models use it. Paper REBEL adds f(x)·a per round at full step; vector leaves give every "
        "leaf its own K-vector, with steps shrunk to 0.3. Held out, it still costs more than the calibrated "
        "two-step method (0.1647 against 0.1554; REBEL wins 29 %, 95 % CI 18–39 %, docs/REPRODUCTION.md), "
        "and on a small Playground dataset it can cost more than paper REBEL: compare the numbers.",
    )


def _files(A: AppState, sb) -> None:
    """The sidebar's (``sb``) files section: download or upload the points and the session (JSON)."""
    sb.header("Files and sharing")
    # The files are built on the click (a callable), not on every run of the page.
    sb.download_button(
        "Download points (CSV)",
        partial(cfgmod.dataset_to_csv, A.dataset),
        file_name="rebel_points.csv",
        mime="text/csv",
        icon=":material/download:",
    )
    sb.file_uploader(
        "Upload points (CSV: x, y, label[, split])",
        type=["csv"],
        key="w_csv_upload",
        on_change=ui.guarded_callback(partial(upload_link.on_csv_upload, _uploaded_bytes, COSTS)),
    )
    if A.data_source == "mixture":
        sb.download_button(
            "Download session (JSON)",
            partial(cfgmod.session_json, _config(A)),
            file_name="rebel_session.json",
            mime="application/json",
            icon=":material/download:",
        )
        sb.caption("The page address (URL) also holds the full configuration: copy it to share this view.")
    else:
        sb.caption(
            "Sessions and links describe designed mixtures; share the CSV file and the cost matrix instead."
        )
    sb.file_uploader(
        "Load a session (JSON)",
        type=["json"],
        key="w_session_upload",
        on_change=ui.guarded_callback(_on_session_upload),
    )


def _read_dataset_widgets(A: AppState) -> None:
    """Apply changed dataset settings (points, seed, noise, test share) as a new spec; keep the old on error."""
    spec = A.spec
    new = (
        int(S["w_n_points"]),
        int(S["w_seed"]),
        round(float(S["w_noise"]), 2),
        round(float(S["w_test"]), 2),
    )
    old = (spec.n_points, int(spec.seed or 0), round(spec.label_noise, 2), round(spec.test_fraction, 2))
    if new == old:
        return
    try:
        # Unchanged fields keep their exact values (a preset's test share 1/3 is shown rounded as 0.33).
        test = spec.test_fraction if new[3] == old[3] else new[3]
        noise = spec.label_noise if new[2] == old[2] else new[2]
        note = act.set_spec(A, DatasetSpec(spec.mixture, new[0], test, new[1], noise))
    except ValueError as exc:
        S[_SPEC_ERROR] = f"Dataset settings not applied: {exc}"
        return
    ui.reset_cost_editor(COSTS, A.cost_matrix)
    if note:
        ui.flash("info", note)


def cost_preset_controls(classes: list, on_apply) -> None:
    if S.get("w_cost_class") not in classes:
        S["w_cost_class"] = classes[0]
    kind = st.selectbox("Cost preset", list(COST_KINDS), format_func=COST_KINDS.get, key="w_cost_preset")
    if kind in ("fn", "fp"):
        a, b = st.columns(2)
        a.selectbox("class c", classes, key="w_cost_class")
        b.number_input("× m", min_value=0.01, value=10.0, step=1.0, key="w_cost_m")
    elif kind == "random":
        st.number_input("random seed", min_value=0, value=0, step=1, key="w_cost_seed")
    elif kind == "taxonomy":
        if S.get("cost_tree_for") != tuple(classes) or "w_cost_tree" not in S:
            S["w_cost_tree"], S["cost_tree_for"] = cfgmod.default_tree_json(classes), tuple(classes)
        st.text_area("class tree (JSON: child → parent)", key="w_cost_tree", height=110)
    st.button(
        "Apply",
        on_click=ui.guarded_callback(_on_cost_preset),
        args=(on_apply,),
        key="w_apply_cost",
        type="primary",
    )


def view_toggles(has_bayes: bool, mixture_mode: bool) -> dict:
    box = st.container(key=exercise.box("view"))
    o = box.columns(2) + box.columns(2) + box.columns(2) + box.columns(2)
    return {
        "bayes": o[1].toggle(
            "Bayes boundaries",
            key="w_show_bayes",
            disabled=not has_bayes,
            help="Dashed: the best possible decisions, from the known mixture and these costs.",
        ),
        "two": o[0].toggle(
            "Two-step boundaries",
            key="w_show_two",
            help="Dotted: 0-1 boosting + posterior + cheapest class, with the same rounds.",
        ),
        "dis": o[2].toggle(
            "Disagreement", key="w_show_dis", help="Shaded where REBEL and two-step decide differently."
        ),
        "weights": o[3].toggle(
            "Size = weight",
            key="w_show_w",
            help="Training points sized by their boosting weight at round t: REBEL focuses on them.",
        ),
        "box": o[4].toggle("Drag adds a cluster", key="w_box", disabled=not mixture_mode),
        "_": o[5].selectbox(
            "Class of a dragged cluster",
            list(get_state().classes),
            key="w_box_class",
            label_visibility="collapsed",
            disabled=not (mixture_mode and S.get("w_box")),
        ),
        "cal": o[7].toggle(
            "Calibrated two-step",
            key="w_show_cal",
            help="The two-step method on the 0-1 model's posterior calibrated by temperature scaling on out-of-fold "
            "models: its test cost after all rounds, in the message tray (a few seconds the first time).",
        ),
        "autoplay": o[6].toggle(
            "Replay after retraining",
            key="w_autoplay",
            help="After each retrain the replay plays from t = 0 by itself, so training appears to happen live "
            "(on in presentation mode).",
        ),
    }


def _config(A: AppState) -> cfgmod.Config:
    return cfgmod.Config(A.spec, A.cost_matrix, A.hyper, A.preset, A.engine)


def sync_url(A: AppState) -> None:
    if upload_link.sync(A) or A.data_source != "mixture":
        for key in short_link.LINK_KEYS:  # (uploaded points: their own link, ``?upload=``)
            if key in st.query_params:
                del st.query_params[key]
        return
    try:
        lesson = scene_shown(A, S.get(SCENE_KEY))
        params = short_link.link_params(_config(A), lesson=lesson)
    except ValueError:
        return
    for key in short_link.LINK_KEYS:  # the shortest link that names the configuration, nothing else
        if key not in params and key in st.query_params:
            del st.query_params[key]
        elif key in params and st.query_params.get(key) != params[key]:
            st.query_params[key] = params[key]
    view = link.encode_view(
        S.get("t"),
        [name for name, key in link.OVERLAYS.items() if S.get(key)],
        S.get("w_details"),
        present.on(),
    )
    for key in link.VIEW_KEYS:
        if key == "t" and key in st.query_params:
            continue  # the replay keeps t up to date in the address bar as you scrub (``ROUND_IN_LINK``)
        if view.get(key) is None:
            if key in st.query_params:
                del st.query_params[key]
        elif st.query_params.get(key) != view[key]:
            st.query_params[key] = view[key]


ROUND_IN_LINK = """<script>
(() => {
  // The round shown by the regions replay (its slider, Play) goes into the address bar as ?t=..., so a copied
  // link reopens the same round. Hooks every (re)drawn replay figure once. Also plays a retrained replay.
  const hook = () => {
    const gd = document.querySelector('.st-key-pg_plot .js-plotly-plot');
    if (!gd || gd.__rebelRound || !gd.on) return;
    gd.__rebelRound = true;
    // Play moves the slider 20 times a second: the address is written once the round has stayed put for
    // 250 ms (each history.replaceState costs a few ms, and Chromium throttles many in a row). Only while this
    // plot is drawn and the address is still its page's: a page link clicked in those 250 ms changes the
    // address, and the round must not go into the other page's.
    const path = window.location.pathname;
    let pending = null;
    const write = () => { clearTimeout(pending); pending = setTimeout(writeNow, 250); };
    const writeNow = () => {
      if (!gd.isConnected || window.location.pathname !== path) return;
      const slider = gd.layout && gd.layout.sliders && gd.layout.sliders[0];
      if (!slider) return;
      const step = slider.steps[slider.active];
      if (!step) return;
      const url = new URL(window.location.href);
      if (url.searchParams.get('t') === step.label) return;
      url.searchParams.set('t', step.label);
      window.history.replaceState(window.history.state, '', url);
    };
    gd.on('plotly_sliderchange', write);
    gd.on('plotly_animated', write);
  };
  // "Replay after retraining": a figure whose layout.meta carries an autoplay token (a new one per retrain,
  // the figure opening at t = 0) gets its Play button pressed once, when its frames are in and its box has
  // kept its size for two ticks: a chart resized while it plays (the sidebar folding away as presentation mode
  // opens from a link) can be left drawn at the old size.
  const autoplay = () => {
    const gd = document.querySelector('.st-key-pg_plot .js-plotly-plot');
    const token = gd && gd.layout && gd.layout.meta && gd.layout.meta.autoplay;
    if (!token || gd.__rebelPlayed === token) return;
    const frames = gd._transitionData && gd._transitionData._frames;
    const play = gd.querySelector('.updatemenu-button');
    if (!frames || !frames.length || !play) return;
    const box = gd.getBoundingClientRect();
    const size = Math.round(box.width) + 'x' + Math.round(box.height) + '/' +
      Math.round((gd._fullLayout && gd._fullLayout.width) || 0);
    if (gd.__rebelSize !== size) { gd.__rebelSize = size; gd.__rebelSame = 0; return; }
    if (++gd.__rebelSame < 2 || Math.abs(box.width - gd._fullLayout.width) > 2) return;
    gd.__rebelPlayed = token;
    play.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  };
  if (!window.__rebelRoundTimer) window.__rebelRoundTimer = setInterval(() => { hook(); autoplay(); }, 200);
})();
</script>"""


def round_in_link() -> None:
    """Keep the replay's round in the address bar (``ROUND_IN_LINK``: a fixed script, no user text)."""
    st.html(ROUND_IN_LINK, unsafe_allow_javascript=True)
