"""The Playground's detail views below the first screen, one at a time (only the chosen one is drawn): before /
after (0-1 costs against your costs), cost curves, per-class numbers, confusion matrix, clusters table and how to
read the page (the tab a session opens with, ``link.DEFAULT_DETAIL_VIEW``: text, no chart). Streamlit widgets; the
numbers come from ``rebel.ui.playground.compute``.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from rebel.data import DatasetSpec, validate_mixture
from rebel.ui import components as ui
from rebel.ui import export
from rebel.ui.config import edited_table
from rebel.ui.figures import costs, replay, style
from rebel.ui.guard import lower_priority
from rebel.ui.playground import actions as act
from rebel.ui.playground.compute import TrainedPair, class_table, comparison_table, rebel_points
from rebel.ui.playground.guide import HOW_TO_READ
from rebel.ui.playground.link import DEFAULT_DETAIL_VIEW, DETAIL_VIEWS
from rebel.ui.state import get_state

VIEWS = DETAIL_VIEWS
S = st.session_state


def details(pair: TrainedPair, t: int, costs_key: str) -> None:
    default = None if "w_details" in S else DEFAULT_DETAIL_VIEW  # a link may have set the tab
    view = (
        st.segmented_control("Details", VIEWS, default=default, key="w_details", format_func=ui.plain)
        or DEFAULT_DETAIL_VIEW
    )
    if view == "Before / after":
        _before_after(pair, t)
    elif view == "Cost curves":
        fig = costs.cost_curves_figure(pair.curves, t, pair.bayes_test_cost, height=320)
        st.plotly_chart(fig, config=style.PNG_CONFIG, key="w_curves")
    elif view == "Per class":
        _tables(pair, t)
    elif view == "Confusion matrix":
        _confusion(pair, t)
    elif view == "Clusters":
        _mixture_panel(costs_key)
    elif view == "Lecture":
        _lecture(pair, t)
    else:
        st.markdown(ui.plain(HOW_TO_READ))


def _before_after(pair: TrainedPair, t: int) -> None:
    """The 0-1 model's regions (costs ignored) beside REBEL's with your costs, at the same round, in one chart."""
    ds = pair.dataset
    fig = replay.before_after_figure(
        pair.grid.xs,
        pair.grid.ys,
        [
            (pair.blind_region(t), pair.blind_test[t], f"0-1 costs (most likely class), t = {t}"),
            (pair.regions[t], pair.test_predictions(t), f"your costs (REBEL), t = {t}"),
        ],
        ds.classes,
        (ds.X_test, pair.y_test_idx),
        axis_names=ds.feature_names,
    )
    st.plotly_chart(fig, config=style.PNG_CONFIG, key="w_before_after")
    st.caption(
        ui.md(
            "Test points (rings) on both; × marks a mistake. Under your costs, ignoring them costs {:.3f} per "
            "test point and REBEL {:.3f}.",
            pair.blind_cost(t),
            pair.metrics(t).cost,
        )
    )


def _tables(pair: TrainedPair, t: int) -> None:
    table = comparison_table(pair, t)
    fmt = {c: st.column_config.NumberColumn(format="%.3f") for c in table.columns}
    st.dataframe(table, width="stretch", column_config=fmt)
    pr = class_table(pair, t)
    fmt = {c: st.column_config.NumberColumn(format="%.2f") for c in pr.columns[1:]}
    st.dataframe(pr, hide_index=True, width="stretch", column_config=fmt)
    st.caption(
        "Recall of class c: share of its test points predicted as c. A costly miss of c pushes REBEL to "
        "raise c's recall, paying with precision."
    )


def _confusion(pair: TrainedPair, t: int) -> None:
    which = st.segmented_control(
        "Confusion matrix of", ["REBEL", "two-step"], default="REBEL", key="w_conf_model"
    )
    m = pair.metrics(t, which or "REBEL")
    title = f"{which or 'REBEL'} at t = {t}: count / share of mean cost"
    fig = costs.confusion_figure(m.confusion, m.cost_share, pair.classes, height=320, title=title)
    st.plotly_chart(fig, config=style.PNG_CONFIG, key="w_confusion")


def _mixture_panel(costs_key: str) -> None:
    A = get_state()
    st.caption(
        "One row per Gaussian cluster: class, centre (mean_x, mean_y), spread (std_x, std_y), correlation, "
        "rotation angle in degrees and relative weight. Add or delete rows, or drag a box on the plot (with "
        "“Drag adds a cluster” on). Changes redraw the points and retrain at once."
    )
    if A.data_source == "csv":
        st.info("The uploaded CSV points are in use; editing clusters switches back to the designed mixture.")
    key = f"w_mixture_{S['mixture_editor_v']}"
    edited = mixture_editor(
        S["mixture_base"], key, ui.guarded_callback(partial(_on_mixture_edit, key, costs_key))
    )
    try:
        mixture = validate_mixture(edited)
        if mixture.equals(A.spec.mixture):
            return
        spec = A.spec
        note = act.set_spec(
            A, DatasetSpec(mixture, spec.n_points, spec.test_fraction, spec.seed, spec.label_noise), ""
        )
    except ValueError as exc:
        ui.show_message(
            "warning", f"Clusters table: {exc} The previous clusters stay in use until this is fixed."
        )
        return
    if note:
        ui.flash("info", note)
    ui.reset_cost_editor(costs_key, A.cost_matrix)
    st.rerun()


def _on_mixture_edit(key: str, costs_key: str) -> None:
    """An edit of the clusters table, applied before the run (the run then draws the new classes' costs first,
    and an edit made while it runs comes with the next run's state): a valid table becomes the dataset, and the
    run it starts is the whole page's (the sidebar names the classes too), in place of the main area's: one run
    per edit. A table that is not valid is left to the panel, which says why."""
    A = get_state()
    try:
        mixture = validate_mixture(edited_table(S["mixture_base"], S.get(key)))
        if mixture.equals(A.spec.mixture):
            return
        spec = A.spec
        note = act.set_spec(
            A, DatasetSpec(mixture, spec.n_points, spec.test_fraction, spec.seed, spec.label_noise), ""
        )
    except ValueError:
        return
    if note:
        ui.flash("info", note)
    ui.reset_cost_editor(costs_key, A.cost_matrix)
    st.rerun()  # (from a callback: this interaction's one run is the whole page's, not the fragment's)


def _slide(pair: TrainedPair, size: tuple) -> dict:
    """The keywords of ``export.slide_frames`` for this model (REBEL's points and costs, the two-step method's)."""
    return {
        **rebel_points(pair),
        "two_step_test": pair.staged_test["two-step"],
        "bayes": pair.bayes_test_cost,
        "size": size,
    }


SLIDE_FILES = {"png": "Regions at t (PNG)", "gif": "Replay (GIF)", "mp4": "Replay (MP4)"}  # kind: its button


def _lecture(pair: TrainedPair, t: int) -> None:
    """Slides: the regions at t as PNG and the replay as an animated GIF and as an MP4, each one download button
    whose file is drawn on the click (the last replay drawn is kept once, bounded: ``AppState.exports``). A
    replay over the budget is refused before any drawing (its button disabled, the reason and the fix shown);
    an export that failed says so on the page's next run (presentation mode is a toggle under the plot)."""
    cols = st.columns([1.2, 1, 1, 1])
    size = export.SLIDE_SIZES[
        cols[0].radio(
            "Slide size", list(export.SLIDE_SIZES), key="w_slide_size", horizontal=True, format_func=ui.plain
        )
    ]
    kept = get_state().exports
    kept.forget_unless(pair.key)
    grid = (pair.grid.xs, pair.grid.ys, pair.regions, pair.classes, pair.cost_matrix)
    # drawn outside the page's run (a server thread), at the page runs' lower CPU priority; the staged points
    # (``_slide``) are gathered on the click only
    draw = {
        "png": kept.deferred(
            "png", lambda: lower_priority() or export.regions_png(*grid, t, **_slide(pair, size))
        ),
        "gif": kept.deferred(
            "gif",
            lambda: lower_priority() or export.replay_gif(*grid, **_slide(pair, size)),
            (pair.key, "gif", size),
        ),
        "mp4": kept.deferred(
            "mp4",
            lambda: lower_priority() or export.replay_mp4(*grid, **_slide(pair, size)),
            (pair.key, "mp4", size),
        ),
    }
    n_points, refused = len(pair.y_train_idx) + len(pair.y_test_idx), {}
    for kind in ("gif", "mp4"):
        try:
            export.check_replay(pair.regions.shape[0] - 1, size, kind, n_points)
        except ValueError as exc:
            refused[kind] = str(exc)
    ui.download(cols[1], "Regions at t (PNG)", draw["png"], f"rebel_regions_t{t}.png", ":material/image:")
    ui.download(cols[2], "Replay (GIF)", draw["gif"], "rebel_replay.gif", ":material/gif_box:",
                disabled="gif" in refused)  # fmt: skip
    ui.download(cols[3], "Replay (MP4)", draw["mp4"], "rebel_replay.mp4", ":material/movie:",
                disabled="mp4" in refused)  # fmt: skip
    for kind, message in refused.items():
        ui.show_message("warning", f"{SLIDE_FILES[kind]} not offered: {message}")
    for kind, message in list(kept.failures.items()):
        ui.show_message("error", f"{SLIDE_FILES[kind]} could not be made: {message}")
    st.caption("The plot's own camera icon saves the current view as PNG too.")


def mixture_editor(mixture, key: str, on_change=None):
    """The clusters table (a DataFrame, one row per Gaussian); returns the edited table (validate it before use).
    ``on_change``: a callback run before the page's next run when the table was edited."""
    col = st.column_config
    return st.data_editor(
        mixture,
        key=key,
        on_change=ui.guarded_callback(on_change or (lambda: None)),
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config={
            "class": col.TextColumn("class", required=True, help="Class name; a new name adds a class."),
            "mean_x": col.NumberColumn("mean_x", format="%.2f", required=True),
            "mean_y": col.NumberColumn("mean_y", format="%.2f", required=True),
            "std_x": col.NumberColumn("std_x", min_value=0.01, format="%.2f", required=True),
            "std_y": col.NumberColumn("std_y", min_value=0.01, format="%.2f", required=True),
            "corr": col.NumberColumn("corr", min_value=-0.99, max_value=0.99, format="%.2f"),
            "angle": col.NumberColumn("angle", format="%.0f"),
            "weight": col.NumberColumn("weight", min_value=0.0001, format="%.3f"),
        },
    )
