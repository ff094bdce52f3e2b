"""Playground: design a dataset, edit the cost matrix, train REBEL and the two-step baseline, watch the regions.

One screen (1440x900): the cost editor, the decision regions with the data, the round player and the verdict
(REBEL vs two-step vs Bayes at t) are together; details (before/after, curves, per-class numbers, confusion
matrix, clusters, how to read) come one at a time below. The main area is one ``st.fragment``: an edit reruns it,
not the sidebar. Widgets and layout only: state changes in ``rebel.ui.playground_actions``, computations in
``rebel.ui.playground``, widgets in ``rebel.ui.components`` and ``rebel.ui.playground_widgets``, figures in
``rebel.ui.figures`` (the regions replay: ``replay.replay_figure``, animated in the browser). Cross-page state:
``rebel.ui.state.AppState``; "t" is the round the numbers show.
"""

import warnings

import streamlit as st

from rebel.cost_presets import normalize_costs
from rebel.costs import CostWarning, validate_cost_matrix
from rebel.data import PRESETS, DatasetSpec
from rebel.ui import components as ui
from rebel.ui import config as cfgmod
from rebel.ui import lesson_widgets as lessons
from rebel.ui import playground as pg
from rebel.ui import playground_actions as act
from rebel.ui import playground_widgets as side
from rebel.ui.figures import regions, replay, style
from rebel.ui.playground_details import details
from rebel.ui.state import get_state
from rebel.ui.variants import engine_options

COSTS = side.COSTS
S = st.session_state
A = get_state()


def _set_costs(C) -> None:
    """Replace the cost matrix from outside the editor (preset, normalize, log control): redraw the editor."""
    A.set_costs(C)
    ui.reset_cost_editor(COSTS, C)


def _on_normalize() -> None:
    try:
        _set_costs(normalize_costs(A.cost_matrix, A.dataset.priors()))
    except ValueError as exc:
        ui.flash("error", f"Costs not normalized: {exc}")


# ------------------------------------------------------------------------------------------------------- panels
def _cost_panel() -> None:
    classes = list(A.classes)
    editor, notes = st.container(key="cost_editor"), st.container()
    C = ui.log_cost_control(A.cost_matrix, classes, "w_log")  # below the editor, drawn before it: the
    if not (C == A.cost_matrix).all():  # cells then show the value set here in this very run
        _set_costs(C)
    with editor:
        st.markdown(
            "**Costs** · rows = truth, columns = prediction; type a number (20, 0.5, 1e3) and press Enter"
        )
        ui.cost_editor(A.cost_matrix, classes, COSTS, on_change=A.set_costs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CostWarning)
        validate_cost_matrix(A.cost_matrix, n_classes=len(classes))
    for w in caught:
        ui.show_message("warning", w.message, notes)
    a, b = st.columns(2)
    with a.popover("Cost presets", icon=":material/tune:", width="stretch"):
        side.cost_preset_controls(classes, on_apply=_set_costs)
    b.button(
        "Normalize",
        on_click=ui.guarded_callback(_on_normalize),
        key="w_normalize",
        width="stretch",
        help="Scale so that guessing a class at random costs 1 (training-set priors).",
    )


def _training() -> pg.TrainedPair | None:
    try:
        with st.spinner("Training REBEL and the two-step baseline…"):
            engine = engine_options(A.engine)
            pair = pg.train_pair(A.dataset, A.cost_matrix, A.hyper, cache=A.models, engine=engine)
    except ValueError as exc:
        ui.show_error(f"Training failed: {exc}")
        return A.trained
    A.models.put(pair.key, pair, "pair")
    if A.pair_key != pair.key:  # a new model: show its final round
        A.pair_key = pair.key
        S["t"] = pair.n_rounds
    S["t"] = pair.clamp(S.get("t", pair.n_rounds))
    return pair


def _regions(pair: pg.TrainedPair, t: int, show: dict) -> None:
    """The regions of every round in one figure (slider and Play run in the browser), starting at round t."""
    ds = pair.dataset
    staged = pair.staged_train["REBEL"], pair.staged_test["REBEL"]
    fig = replay.replay_figure(
        pair.grid.xs,
        pair.grid.ys,
        pair.regions,
        ds.classes,
        train=(ds.X_train, pair.y_train_idx, staged[0]),
        test=(ds.X_test, pair.y_test_idx, staged[1]),
        train_sizes=regions.weight_sizes(pair.weights) if show["weights"] else None,
        other_regions=pair.two_step_regions if (show["two"] or show["dis"]) else None,
        show_other=show["two"],
        show_disagreement=show["dis"],
        bayes_regions=pair.bayes_regions if show["bayes"] else None,
        title=f"REBEL's minimum-risk class (numbers at t = {t} of {pair.n_rounds} rounds)",
        start=t,
        height=560,
    )
    if show["box"]:
        fig.update_layout(dragmode="select")
    if S.get("w_present"):
        style.presentation(fig)
    event = st.plotly_chart(
        fig,
        key=f"regions_{S.get('chart_v', 0)}",
        config=style.PNG_CONFIG,
        on_select="rerun" if show["box"] else "ignore",
        selection_mode="box",
    )
    if show["box"]:
        _add_dragged_cluster(event)


def _add_dragged_cluster(event) -> None:
    box = pg.box_from_selection(getattr(event, "selection", None) or {})
    if box is None:
        return
    cls = S.get("w_box_class") or A.classes[0]
    try:
        mixture = cfgmod.add_box_cluster(A.spec.mixture, cls, *box)
        spec = A.spec
        act.set_spec(
            A, DatasetSpec(mixture, spec.n_points, spec.test_fraction, spec.seed, spec.label_noise), ""
        )
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


def _banner() -> None:
    """The preset's story and lesson, a note when the costs no longer tell it, and queued messages."""
    st.markdown("#### REBEL Playground")
    preset = PRESETS.get(A.preset)
    if preset is not None and preset.story and A.data_source == "mixture":
        st.info(ui.md("**{}**: {} {}", A.preset, preset.story, pg.preset_lesson(A.preset)))
        note = act.costs_story_note(A)
        if note:
            st.warning(ui.plain(note))
    else:
        st.caption("Your own data: edit the costs and watch the regions move.")
    ui.show_flash()


def _live() -> None:
    """The main area: costs and numbers (right), round and regions (left), then one detail view."""
    _banner()
    left, right = st.columns([1.3, 1], gap="medium")
    with right:
        _cost_panel()
        pair = _training()
    if pair is None:
        return
    with right:
        t = ui.round_player(pair.n_rounds, "t")
        st.markdown(ui.md("**Test cost per point at t = {}** (mean of C[truth, prediction])", t))
        side.verdict_numbers(pair, t)
        st.markdown(ui.plain(pg.verdict(pair, t)))
    with left:
        plot = st.container()
        show = side.view_toggles(pair.has_bayes, A.data_source == "mixture")
        with plot:
            _regions(pair, t, show)
    details(pair, t, COSTS)
    side.sync_url(A)


# ---------------------------------------------------------------------------------------------------------- page
side.init_state(A)
side.read_sidebar(A)
lessons.scene_bar(A)  # the lesson path's "next scene" (only while a lesson scene is shown)
st.fragment(ui.guarded(_live))()
side.sidebar(A)  # drawn after the main area: the regions reach the browser first
