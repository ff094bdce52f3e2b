"""Playground: design a dataset, edit the cost matrix, train REBEL and the two-step baseline, watch the regions.

Widgets and layout only: state changes in ``rebel.ui.playground_actions``, computations in
``rebel.ui.playground``, shared widgets in ``rebel.ui.components`` and the sidebar in
``rebel.ui.playground_widgets``; figures in ``rebel.plots``. Cross-page state: ``rebel.ui.state.AppState``.
Widget keys start with "w_" and are re-seeded from that state; "t" and "playing" belong to the round player.
"""

import math
import warnings

import streamlit as st

from rebel.cost_presets import normalize_costs
from rebel.costs import CostWarning, validate_cost_matrix
from rebel.data import PRESETS, DatasetSpec, validate_mixture
from rebel.ui import components as ui
from rebel.ui import config as cfgmod
from rebel.ui import playground as pg
from rebel.ui import playground_actions as act
from rebel.ui import playground_widgets as side
from rebel.ui.figures import costs, regions, style
from rebel.ui.state import get_state

PLAY_INTERVAL = 0.4  # seconds between animation frames
PLAY_FRAMES = 50  # frames for a full replay t = 0..T
COSTS = "w_costs"  # the cost editor's key
S = st.session_state
A = get_state()


def _set_costs(C) -> None:
    """Replace the cost matrix from outside the editor (preset, normalize, session): redraw the editor."""
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
def _mixture_panel() -> None:
    st.subheader("Design the data: clusters")
    st.caption(
        "One row per Gaussian cluster: class, centre (mean_x, mean_y), spread (std_x, std_y), correlation, "
        "rotation angle in degrees and relative weight. Add or delete rows, or drag a box on the plot above "
        "(with “Drag adds a cluster” on). Changes redraw the points and retrain at once."
    )
    if A.data_source == "csv":
        st.info("The uploaded CSV points are in use; editing clusters switches back to the designed mixture.")
    edited = ui.mixture_editor(S["mixture_base"], f"w_mixture_{S['mixture_editor_v']}")
    try:
        mixture = validate_mixture(edited)
        if mixture.equals(A.spec.mixture):
            return
        spec = A.spec
        note = act.set_spec(
            A, DatasetSpec(mixture, spec.n_points, spec.test_fraction, spec.seed, spec.label_noise), ""
        )
        if note:
            ui.flash("info", note)
        ui.reset_cost_editor(COSTS, A.cost_matrix)
    except ValueError as exc:
        ui.show_message(
            "warning", f"Clusters table: {exc} The previous clusters stay in use until this is fixed."
        )


def _cost_panel() -> None:
    classes = list(A.classes)
    st.subheader("Costs")
    c1, c2, c3 = st.columns([5, 4, 3])
    with c1:
        st.caption(
            "Cost of each decision: **rows = truth, columns = prediction**. Type a number (e.g. 20 or 1e3); "
            "REBEL retrains at once."
        )
        ui.cost_editor(A.cost_matrix, classes, COSTS, on_change=A.set_costs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CostWarning)
            validate_cost_matrix(A.cost_matrix, n_classes=len(classes))
        for w in caught:
            ui.show_message("warning", w.message)
    with c2:
        st.plotly_chart(
            costs.cost_heatmap(A.cost_matrix, classes, height=260),
            config=style.PNG_CONFIG,
            key="cost_heatmap",
        )
    with c3:
        side.cost_preset_controls(classes, on_apply=_set_costs)
        st.button(
            "Normalize",
            on_click=_on_normalize,
            key="w_normalize",
            help="Scale so that guessing a class at random costs 1 (training-set priors).",
        )


def _training() -> pg.TrainedPair | None:
    ds, C, hyper = A.dataset, A.cost_matrix, A.hyper
    try:
        with st.spinner("Training REBEL and the two-step baseline…"):
            pair = pg.train_pair(ds, C, hyper, cache=A.models)
    except ValueError as exc:
        ui.show_error(f"Training failed: {exc}")
        return A.trained
    A.models.put(pair.key, pair, "pair")
    if A.pair_key != pair.key:  # a new model: show its final rounds, stop any replay
        A.pair_key = pair.key
        S.update(playing=False, t=pair.n_rounds)
    n = pair.grid.shape[0]
    st.caption(
        f"REBEL trained in **{1e3 * pair.fit_seconds:.0f} ms** ({pair.n_rounds} rounds of depth-"
        f"{hyper['max_depth']} trees, regions on a {n}×{n} grid); two-step baseline in "
        f"{1e3 * pair.baseline_seconds:.0f} ms. Results are cached: going back to a setting is instant."
    )
    return pair


# ------------------------------------------------------------------------------------------- the live main view
def _view(playing_mode: bool) -> None:
    pair = A.trained
    T = pair.n_rounds
    if S.get("playing", False) != playing_mode:
        st.rerun()  # switch the fragment's timer on or off
    if playing_mode:
        if S.get("t", 0) >= T:
            S["playing"] = False
            st.rerun()
        S["t"] = min(T, S.get("t", 0) + max(1, math.ceil(T / PLAY_FRAMES)))
    S["t"] = pair.clamp(S.get("t", T))
    t = ui.round_player(T, "t", playing_mode, _toggle_play, _step)
    show = side.view_toggles(pair.has_bayes, A.data_source == "mixture")
    left, right = st.columns([3, 2])
    with left:
        _regions(pair, t, show)
    with right:
        side.numbers(pair, t)
    a, b = st.columns([3, 2])
    with a:
        st.plotly_chart(
            costs.cost_curves_figure(pair.curves, t, pair.bayes_test_cost, height=320),
            config=style.PNG_CONFIG,
            key="w_curves",
        )
    with b:
        side.confusion(pair, t)


def _regions(pair: pg.TrainedPair, t: int, show: dict) -> None:
    ds = pair.dataset
    if show["box"]:
        st.selectbox("Class of the new cluster", list(ds.classes), key="w_box_class")
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
    )
    event = st.plotly_chart(
        fig,
        key=f"w_regions_{S.get('chart_v', 0)}",
        config=style.PNG_CONFIG,
        on_select="rerun" if show["box"] else "ignore",
        selection_mode="box",
    )
    st.caption(
        "Background: the class REBEL decides at each place (lighter colours). Filled dots: training "
        "points; rings: test points; ×: a mistake at round t."
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


# ---------------------------------------------------------------------------------------------------------- page
side.init_state(A)
st.title("REBEL Playground")
st.markdown(pg.INTRO)
with st.expander("How to read this page"):
    st.markdown(pg.HOW_TO_READ)
header = st.container()
cost_area = st.container(border=True)
status = st.container()
view_area = st.container()
design_area = st.container(border=True)

side.sidebar(A)
with design_area:
    _mixture_panel()
with cost_area:
    _cost_panel()
with header:
    preset = PRESETS.get(A.preset)
    if preset is not None and preset.story and A.data_source == "mixture":
        st.info(f"**{A.preset}**: {preset.story}")
        note = act.costs_story_note(A)
        if note:
            st.warning(note)
    ui.show_flash()
with status:
    trained = _training()
if trained is not None:
    with view_area:
        st.fragment(run_every=PLAY_INTERVAL if S.get("playing") else None)(_view)(bool(S.get("playing")))
side.sync_url(A)
