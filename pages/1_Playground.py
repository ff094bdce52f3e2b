"""Playground: design a dataset, edit the cost matrix, train REBEL and the two-step baseline, watch the regions.

One screen at 1280x720 and up (``side.one_screen_style``): the regions plot (round control and every number of the
round inside it), beside it the cost editor and a fixed-height message tray; Details come one at a time below. The
main area is one ``st.fragment``: an edit reruns it, not the sidebar. Widgets and layout only: the view layer is
the ``rebel.ui.playground`` package (``actions``, ``compute``, ``widgets``, ``details``, ``browser_costs``: cost
edits computed in the page), figures in ``rebel.ui.figures``; cross-page state ``rebel.ui.state.AppState``."""

import warnings

import streamlit as st

from rebel.cost_presets import normalize_costs
from rebel.costs import CostWarning, validate_cost_matrix
from rebel.data import PRESETS, DatasetSpec
from rebel.ui import components as ui
from rebel.ui import config as cfgmod
from rebel.ui import lesson_widgets as lessons
from rebel.ui import viewport as vp
from rebel.ui.figures import replay, style
from rebel.ui.playground import actions as act
from rebel.ui.playground import browser_costs as browser
from rebel.ui.playground import calibrated, exercise, keys, order, present, renamed, screen, upload_link
from rebel.ui.playground import compute as pg
from rebel.ui.playground import widgets as side
from rebel.ui.playground.details import details
from rebel.ui.state import get_state
from rebel.ui.text import md
from rebel.ui.variants import engine_options

COSTS = side.COSTS
S = st.session_state
A = get_state()


def _set_costs(C) -> None:
    """Replace the cost matrix from outside the editor (preset, normalize, log control): redraw the editor."""
    A.set_costs(C)
    ui.reset_cost_editor(COSTS, C)


def _on_log_cost(i: int, j: int, value: float) -> None:
    """The log control moved: entry (i, j) of the stored matrix (as it is now) set to ``value``."""
    C = A.cost_matrix.copy()
    C[i, j] = value
    _set_costs(C)


def _on_normalize() -> None:
    try:
        _set_costs(normalize_costs(A.cost_matrix, A.dataset.priors()))
    except ValueError as exc:
        ui.flash("error", f"Costs not normalized: {exc}")


# ------------------------------------------------------------------------------------------------------- panels
def _cost_panel(notes, viewport) -> None:
    """The cost editor, its log control and presets; cost warnings go to ``notes`` (the message tray)."""
    classes = list(A.classes)
    editor = st.container(key="cost_editor")
    shown = order.order_of(A)  # the classes in the order the user set (None: sorted); the log control below:
    ui.log_cost_control(A.cost_matrix, classes, "w_log", on_move=_on_log_cost, order=shown)
    with editor:
        large = present.on()
        st.markdown(
            md("**Costs** · rows = truth, columns = prediction; {}", ui.cost_editor_hint(len(classes), large))
        )
        ui.cost_editor(
            A.cost_matrix,
            classes,
            COSTS,
            on_change=A.set_costs,
            large=large,
            table_height=side.cost_table_height(viewport),
            order=shown,
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CostWarning)
        validate_cost_matrix(A.cost_matrix, n_classes=len(classes), classes=classes)  # names the classes
    for w in caught:
        ui.show_message("warning", w.message, notes)
    a, b = st.columns(2)
    with a.popover("Cost presets", icon=":material/tune:", width="stretch"):
        side.cost_preset_controls(classes, on_apply=_set_costs)
    normalize_help = "Scale so that guessing a class at random costs 1 (training-set priors)."
    ui.action_button(b, "Normalize", _on_normalize, key="w_normalize", width="stretch", help=normalize_help)


def _training(tray) -> pg.TrainedPair | None:
    try:
        engine = engine_options(A.engine)
        with st.spinner(ui.plain(pg.training_message(A.dataset, {**A.hyper, **engine}))):
            pair = renamed.trained(A, engine, browser.pair_for)  # a rename relabels; a page-drawn edit defers
    except ValueError as exc:
        ui.show_error(f"Training failed: {exc}", where=tray)
        return A.trained
    A.models.put(pair.key, pair, "pair")
    if A.pair_key != pair.key:  # a new model: show its final round (or the round in the link that opened it)
        S[side.AUTOPLAY] = side.autoplay_token(A.pair_key is not None)  # a retrain may replay from t = 0
        A.pair_key = pair.key
        S["t"] = side.first_round(pair.n_rounds)
    S["t"] = pair.clamp(S.get("t", pair.n_rounds))
    return pair


def _regions(pair: pg.TrainedPair, t: int, show: dict, viewport) -> tuple:
    """The regions of every round in one figure (slider and Play run in the browser), starting at round t (at
    t = 0 and playing by itself right after a retrain with "Replay after retraining" on). The figure is the size
    of its box (``side.plot_height``, the box's width) once the browser has told it (``rebel.ui.viewport``), so it
    is drawn once; before that (a first visit), the size of a 1280 x 720 projector's box (``viewport.UNKNOWN``):
    drawn once there, at any other size drawn again at its box's size by Streamlit's chart. ``show["cal"]``: the
    calibrated two-step's cost in the numbers line."""
    projector, lesson = present.on(), lessons.shown_scene() is not None
    guess = vp.or_guess(viewport)  # (a first visit: taken to be a projector's, the sidebar open)
    narrow = projector and screen.narrow_plot(guess, lesson)  # (the layout of the size the figure is made at)
    reason = browser.why_not(A.engine, pair, show, narrow)
    drawn = browser.figure_pair(pair, reason)  # the chart's pair: its own, or one the browser repainted
    view = (tuple(sorted(show.items())), projector, lesson, S.get("chart_v", 0))  # (the picture but its size)
    autoplay = screen.replay_token(drawn.key, view, drawn is pair)  # (none on a chart the browser repainted)
    t = 0 if autoplay else t
    picture = shown = (drawn.key, t, autoplay, *view)
    if projector:  # legend and strip placed for the box's height and shape: a new picture if they change
        picture += (side.plot_height(guess, lesson), narrow)
    size = vp.figure_size(guess, picture)
    height = side.plot_height(size, lesson)  # the plot's box (sized from the viewport), or None: measured

    def figure():  # (the last one again when nothing it is made of has changed: no work for a kept chart)
        cal = calibrated.test_cost(order.unordered(drawn)) if show["cal"] else None
        fig = pg.replay_of(drawn, t, show, height=height, projector=projector, narrow=narrow, calibrated=cal)
        if height is not None:  # the box's width: Streamlit measures it too, and draws once if equal
            fig.update_layout(width=size.width)
        if show["box"]:
            fig.update_layout(dragmode="select")
        screen.mark_picture(fig, autoplay, shown)  # (``side.ROUND_IN_LINK``: Play once, a box's redraw)
        if projector:  # fonts for a projector; the plot keeps filling its box
            style.presentation(fig, size=None, font_size=style.PRESENTATION_FONT_SCREEN)
            replay.fit_projector_legend(fig)
            test_points = lambda tr: "(test)" in (tr.name or "")  # one legend entry per class
            fig.for_each_trace(lambda tr: tr.update(showlegend=False), selector=test_points)
        if not show["box"]:  # (a dragged box selects over marker traces: the points stay markers)
            pg.points_as_image(fig)
        browser.mark(fig, drawn, reason)
        return fig

    fig = browser.kept_figure((drawn, picture, size, height, reason), figure)
    event = st.plotly_chart(
        fig,
        height=height or "stretch",
        key=f"regions_{S.get('chart_v', 0)}",
        config=style.PRESENTATION_CONFIG if projector else style.PNG_CONFIG,
        on_select="rerun" if show["box"] else "ignore",
        selection_mode="box",
    )
    if show["box"]:
        _add_dragged_cluster(event)
    return drawn, reason


def _add_dragged_cluster(event) -> None:
    box = pg.box_from_selection(getattr(event, "selection", None) or {})
    if box is None:
        return
    cls = S.get("w_box_class") or A.classes[0]
    try:
        mixture = cfgmod.add_box_cluster(A.spec.mixture, cls, *box)
        s = A.spec
        act.set_spec(A, DatasetSpec(mixture, s.n_points, s.test_fraction, s.seed, s.label_noise), "")
    except ValueError as exc:
        ui.show_error(f"Cluster not added: {exc}")
        return
    side.reset_mixture_editor(mixture)
    ui.reset_cost_editor(COSTS, A.cost_matrix)
    S["chart_v"] = S.get("chart_v", 0) + 1  # a fresh chart drops the box, so it is not added twice
    ui.flash(
        "success", f"Added a cluster of class {cls!r} at ({sum(box[0]) / 2:.2f}, {sum(box[1]) / 2:.2f})."
    )
    st.rerun()


def _tray_messages(tray, pair, with_calibrated: bool = False) -> None:
    """The message tray (fixed height, scrolls): queued messages, an open lesson scene's notes, the calibrated
    two-step's test cost (``with_calibrated``), the preset's story and lesson, a note when the costs no longer tell it,
    and the verdict after all rounds (the figure shows the numbers at every round)."""
    with tray:
        ui.show_flash()
        browser.failure_note()
        upload_link.show_note(A)
        notes = lessons.scene_notes()
        if notes:  # the open lesson scene's "what to notice" and question first, then what was checked
            st.info(ui.md("**What to notice:** {} *{}*", *notes))
            with st.spinner("Checking the scene's numbers on this draw..."):
                checked = lessons.scene_checks(A)
            if checked:
                st.caption(ui.md("**Checked on this draw:** {}", "; ".join(checked)))
        if pair is not None and with_calibrated:
            with st.spinner("Calibrating the 0-1 model's posterior (out-of-fold models)..."):
                n = calibrated.costs(pair, A.models)
            st.success(
                ui.md(
                    "**Calibrated two-step** (temperature scaling, out of fold), after all {} rounds: test cost "
                    "**{:.3f}**, against the two-step's {:.3f} on the posterior as trained and REBEL's {:.3f}.",
                    pair.n_rounds,
                    n["two-step, calibrated posterior"],
                    n["two-step, posterior as trained"],
                    pair.metrics(pair.n_rounds, "REBEL").cost,
                )
            )
        preset = PRESETS.get(A.preset)
        if preset is not None and preset.story and A.data_source == "mixture":
            note = act.costs_story_note(A)
            if note:
                st.warning(ui.plain(note))
            st.info(ui.md("**{}**: {} {}", A.preset, preset.story, pg.preset_lesson(A.preset)))
        else:
            st.caption("Your own data: edit the costs and watch the regions move.")
        if pair is not None:
            browser.verdict(pair)  # (a fragment: a cost edit the page computed reruns it alone)


def _live() -> None:
    """The main area, one screen: regions with the round control and the numbers (left), costs and the message
    tray (right); the plot is sized from the viewport and messages never move it. Then one detail view."""
    stage = side.plot_first_stage()
    if stage == side.PLOT_FIRST_WAITING:  # the main area reran before the browser's press: the whole page now
        side.rest_of_page_now()
    projector = present.on()
    screen.one_screen_style(projector, lessons.shown_scene() is not None, A.classes, A.cost_matrix)
    viewport = vp.known()  # the browser's viewport height and plot width (or None)
    left, right = st.columns(side.PRESENT_COLUMNS if projector else side.SCREEN_COLUMNS, gap="medium")
    with right:
        with st.container(key="pg_present"):  # on the first screen, above the costs
            side.presentation_switch()
        costs_box = st.container()
        tray = st.container(height=side.TRAY_HEIGHT, key="pg_tray")
    with left:
        plot = st.container(key="pg_plot")
    # The model and its picture first, then the cost editor above the tray: the browser then has nothing to draw
    # while the server trains, and the regions' chart is the first thing it draws after an edit. Every cost
    # change (cells, log control, presets) is stored by a callback, before this run starts. New classes (a renamed
    # cluster, say): their costs first, so the names are on screen while the server trains.
    costs_first = A.trained is not None and tuple(A.trained.classes) != tuple(A.classes)
    with costs_box:
        if costs_first:
            _cost_panel(tray, viewport)
        pair = _training(tray)
    if pair is not None:
        t = pair.clamp(S["t"])  # the round the replay opens at (a link's t); its slider moves from there
        with left:
            show = side.view_toggles(pair.has_bayes, A.data_source == "mixture")
            show["cal"] = show["cal"] or lessons.calibration_scene_open()  # (the calibration scene's number)
            with plot:
                chart = _regions(order.shown(pair, A), t, show, viewport)  # (its pair, why not the browser's)
        if stage == side.PLOT_FIRST_NOW:  # a session's first run: the rest once the plot is drawn
            side.plot_drawn_alone()
            return
    elif stage == side.PLOT_FIRST_NOW:  # no plot to wait for: everything in this run
        side.forget_plot_first()
    if not costs_first:
        with costs_box:
            _cost_panel(tray, viewport)
    with_calibrated = pair is not None and show["cal"]
    _tray_messages(tray, pair, with_calibrated)  # after the plot (its slot is kept): the picture first
    if pair is None:
        return
    with st.container(key=exercise.box("details")):
        details(order.shown(pair, A), t, COSTS)
    side.sync_url(A)
    exercise.sync()
    side.round_in_link()
    keys.replay_keys()  # ← → step a round, Space plays and pauses, Home and End
    browser.send(*chart, projector, show["cal"])  # what the browser needs to compute cost edits itself
    vp.keep()  # below the first screen: the hidden text box the browser writes its size into
    side.collapse_sidebar_once()  # last: its element's gap is below the first screen


# ---------------------------------------------------------------------------------------------------------- page
# Where the sidebar goes in a whole-page run. A session's first run: after the main area, since the browser is
# then busy with its chart code and the regions should reach it first (and with a browser behind the session, not
# in that run at all: the plot is sent alone, ``side.start_plot_first``). Later runs (a preset, a sidebar
# setting): before it, so the browser draws the sidebar while the server trains and has less to do after the chart.
first_run = not S.get(side.PRELOADED)
preload = side.preload_charts()  # first: the browser loads its chart code while the first model trains
present.keep_mode()  # presentation mode as it was left (Streamlit forgets the switch on other pages)
for problem in exercise.start(st.query_params):  # an exercise link's hidden controls, once per session
    ui.flash("warning", f"{problem}.")
exercise.style()
side.init_state(A)
side.read_sidebar(A)
side.start_plot_first(first_run)
lessons.scene_bar(A)  # the lesson path's bar: "next scene", and "back to the scene" after an edit
if not first_run:
    side.sidebar(A)
st.fragment(ui.guarded(_live))()
if side.plot_first_stage() == side.PLOT_FIRST_WAITING:
    vp.rest_button()  # outside the main area: its press (once the plot is drawn) reruns the whole page
elif first_run:
    side.sidebar(A)
preload.empty()  # the page's own charts only, once it is drawn
