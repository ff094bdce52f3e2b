"""Playground: design a dataset, edit the cost matrix, train REBEL and the two-step baseline, watch the regions.

One screen (1440x900): the cost editor, the decision regions with the data, the round player and the verdict
(REBEL vs two-step vs Bayes at t) are together; details (before/after, curves, per-class numbers, confusion
matrix, clusters, how to read) come one at a time below. The main area is one ``st.fragment``: an edit reruns it,
not the sidebar. Widgets and layout only: state changes in ``rebel.ui.playground_actions``, computations in
``rebel.ui.playground``, widgets in ``rebel.ui.components`` and ``rebel.ui.playground_widgets``, figures in
``rebel.ui.figures``. Cross-page state: ``rebel.ui.state.AppState``; "t" and "playing" belong to the player.
"""

import math
import warnings

import streamlit as st

from rebel.cost_presets import normalize_costs
from rebel.costs import CostWarning, validate_cost_matrix
from rebel.data import PRESETS, DatasetSpec
from rebel.ui import components as ui
from rebel.ui import config as cfgmod
from rebel.ui import playground as pg
from rebel.ui import playground_actions as act
from rebel.ui import playground_widgets as side
from rebel.ui.figures import regions, style
from rebel.ui.playground_details import details
from rebel.ui.state import get_state

PLAY_INTERVAL = 0.4  # seconds between animation frames
PLAY_FRAMES = 50  # frames for a full replay t = 0..T
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


def _toggle_play() -> None:
    S["playing"] = not S.get("playing", False)
    if S["playing"] and A.trained is not None and S.get("t", 0) >= A.trained.n_rounds:
        S["t"] = 0


def _step(delta: int) -> None:
    S["playing"] = False
    if A.trained is not None:
        S["t"] = A.trained.clamp(S.get("t", 0) + delta)


# ------------------------------------------------------------------------------------------------------- panels
def _cost_panel() -> None:
    classes = list(A.classes)
    with st.container(key="cost_editor"):
        st.markdown("**Costs** · rows = truth, columns = prediction; type a number (20, 0.5, 1e3)")
        ui.cost_editor(A.cost_matrix, classes, COSTS, on_change=A.set_costs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CostWarning)
        validate_cost_matrix(A.cost_matrix, n_classes=len(classes))
    for w in caught:
        ui.show_message("warning", w.message)
    C = ui.log_cost_control(A.cost_matrix, classes, "w_log")
    if not (C == A.cost_matrix).all():
        _set_costs(C)
    a, b = st.columns(2)
    with a.popover("Cost presets", icon=":material/tune:", width="stretch"):
        side.cost_preset_controls(classes, on_apply=_set_costs)
    b.button(
        "Normalize",
        on_click=_on_normalize,
        key="w_normalize",
        width="stretch",
        help="Scale so that guessing a class at random costs 1 (training-set priors).",
    )


def _training() -> pg.TrainedPair | None:
    try:
        with st.spinner("Training REBEL and the two-step baseline…"):
            pair = pg.train_pair(A.dataset, A.cost_matrix, A.hyper, cache=A.models)
    except ValueError as exc:
        ui.show_error(f"Training failed: {exc}")
        return A.trained
    A.models.put(pair.key, pair, "pair")
    if A.pair_key != pair.key:  # a new model: show its final rounds, stop any replay
        A.pair_key = pair.key
        S.update(playing=False, t=pair.n_rounds)
    return pair


def _advance(pair: pg.TrainedPair, playing: bool) -> int:
    T = pair.n_rounds
    if playing:
        if S.get("t", 0) >= T:
            S["playing"] = False
        else:
            S["t"] = min(T, S.get("t", 0) + max(1, math.ceil(T / PLAY_FRAMES)))
    S["t"] = pair.clamp(S.get("t", T))
    return ui.round_player(T, "t", bool(S.get("playing")), _toggle_play, _step)


def _regions(pair: pg.TrainedPair, t: int, show: dict) -> None:
    ds = pair.dataset
    fig = regions.regions_figure(
        pair.grid.xs,
        pair.grid.ys,
        pair.regions[t],
        ds.classes,
        train=(ds.X_train, pair.y_train_idx, pair.train_predictions(t)),
        test=(ds.X_test, pair.y_test_idx, pair.test_predictions(t)),
        train_sizes=regions.weight_sizes(pair.weights[t]) if show["weights"] else None,
        bayes_regions=pair.bayes_regions if show["bayes"] else None,
        other_regions=pair.two_step_regions[t] if (show["two"] or show["dis"]) else None,
        show_other=show["two"],
        show_disagreement=show["dis"],
        box_select=show["box"],
        title=f"REBEL's minimum-risk class after t = {t} of {pair.n_rounds} rounds",
        height=440,
    )
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
        st.info(f"**{A.preset}**: {preset.story} {pg.preset_lesson(A.preset)}")
        note = act.costs_story_note(A)
        if note:
            st.warning(note)
    else:
        st.caption("Your own data: edit the costs and watch the regions move.")
    ui.show_flash()


def _live(playing: bool) -> None:
    """The main area: costs and numbers (right), player and regions (left), then one detail view."""
    if S.get("playing", False) != playing:
        st.rerun()  # switch the fragment's timer on or off
    _banner()
    left, right = st.columns([1.2, 1], gap="medium")
    with right:
        _cost_panel()
        pair = _training()
    if pair is None:
        return
    with left:
        t = _advance(pair, playing)
        plot = st.container()
        show = side.view_toggles(pair.has_bayes, A.data_source == "mixture")
        with plot:
            _regions(pair, t, show)
    with right:
        st.markdown(f"**Test cost per point at t = {t}** (mean of C[truth, prediction])")
        side.verdict_numbers(pair, t)
        st.markdown(pg.verdict(pair, t))
    details(pair, t, COSTS)
    side.sync_url(A)


# ---------------------------------------------------------------------------------------------------------- page
side.init_state(A)
side.sidebar(A)
st.fragment(run_every=PLAY_INTERVAL if S.get("playing") else None)(_live)(bool(S.get("playing")))
