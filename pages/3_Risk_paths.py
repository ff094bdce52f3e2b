"""Risk-score paths (Fig. 8, S.9): the K components of H(x) along paths through the plane, stumps vs depth-2.

Widgets and layout only; paths, models and scores come from ``rebel.ui`` view-models and ``rebel.experiments.studies``,
figures from ``rebel.plots``.
Reads the Playground's shared state (``rebel.ui.state.AppState``); page-private keys start
with "rp_".
"""

import streamlit as st

from rebel.data import PRESETS
from rebel.ui import components as ui
from rebel.ui import page_link
from rebel.ui import paths as an
from rebel.ui.config import dataset_key
from rebel.ui.figures import paths as paths_figs
from rebel.ui.figures import style
from rebel.ui.playground.compute import make_grid
from rebel.ui.state import Problem, get_state, problem_caption, scores_at

DEFAULT_PRESET = "paths"
CLICK_LATTICE = 45  # invisible click targets per axis on the regions plot
NEW_PATH = "➕ new path"
S = st.session_state
A = get_state()


def _models(problem: Problem) -> dict:
    """Stumps and depth-2 models for this problem, through the session's model cache."""
    bar = st.progress(0.0, text="Training stumps and depth-2 trees…")
    models = an.train_path_models(
        problem, lambda i, n, label: bar.progress(i / n, text=ui.plain(label)), state=A
    )
    bar.empty()
    return models


def _set_table(paths: dict) -> None:
    """Replace the waypoint table from outside the editor (preset, clear, clicks): reset the editor."""
    S["rp_table"] = an.paths_table(paths)
    S["rp_paths"] = paths
    S["rp_table_v"] = S.get("rp_table_v", 0) + 1


def _on_preset_paths(problem_paths: dict) -> None:
    _set_table(problem_paths)


def _init_paths(problem: Problem) -> None:
    data_key = dataset_key(problem.dataset)
    if S.get("rp_for") != data_key or "rp_table" not in S:
        S["rp_for"] = data_key
        _set_table(an.default_paths(problem))
    if "rp_target_next" in S:  # a click started a new path: keep extending it
        S["rp_target"] = S.pop("rp_target_next")


def _waypoint_editor():
    st.caption(
        "Waypoints, one row each (rows with the same **path** name form one path, in order). Add, edit or "
        "delete rows, or click on the plot."
    )
    col = st.column_config
    edited = st.data_editor(
        S["rp_table"],
        key=f"rp_editor_{S['rp_table_v']}",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        height=300,
        column_config={
            "path": col.TextColumn("path", required=True, help="Path name, e.g. A"),
            "x": col.NumberColumn("x", format="%.2f", required=True),
            "y": col.NumberColumn("y", format="%.2f", required=True),
        },
    )
    try:
        S["rp_paths"] = an.paths_from_table(edited)
    except ValueError as exc:
        ui.show_message("warning", f"Waypoints: {exc} The last valid paths are drawn until this is fixed.")
    return edited


def _add_clicked(event, edited, target: str) -> None:
    points = an.waypoints_from_selection(getattr(event, "selection", None) or {})
    if not points:
        return
    name = an.next_path_name(dict.fromkeys(an.table_path_names(edited))) if target == NEW_PATH else target
    rows = {}
    for n, x, y in zip(edited["path"], edited["x"], edited["y"]):
        if isinstance(n, str) and n.strip():  # incomplete rows are dropped; their warning is shown above
            rows.setdefault(n.strip(), []).append([x, y])
    try:
        paths = an.add_waypoints(rows, name, points)
    except ValueError as exc:
        ui.show_error(f"Waypoint not added: {exc}")
        return
    S["rp_table"] = an.paths_table(paths)
    S["rp_table_v"] = S.get("rp_table_v", 0) + 1
    S["rp_chart_v"] = S.get("rp_chart_v", 0) + 1  # a fresh chart drops the selection, so it is added once
    if target == NEW_PATH:
        S["rp_target_next"] = name
    st.rerun()


# ---------------------------------------------------------------------------------------------------------- page
problem = ui.problem_page_header(
    "Risk-score paths",
    ui.md(
        "REBEL's output is a score vector **H(x)**, one entry per class; the largest entry is the estimated "
        "minimum-risk class. Walk along a path through the plane and watch the scores: they change across "
        "class boundaries and stay fairly flat inside each region (paper Fig. 8). Left: **stumps**; "
        "right: **depth-2 trees**, both with the same costs and rounds."
    ),
    A,
    DEFAULT_PRESET,
)
st.caption(ui.plain(problem_caption(problem)))
ds = problem.dataset
ui.require_plane(ds.X_train.shape[1])
try:
    models = _models(problem)
except ValueError as exc:
    ui.show_error(f"Training failed: {exc} Fix the data or costs on the Playground.")
    st.stop()
_init_paths(problem)
T = min(m.n_estimators_ for m in models.values())
S.setdefault("rp_regions", list(models)[-1])
LINK = [
    page_link.Setting("t", "rp_t", "int", 0, T),
    page_link.Setting("regions", "rp_regions", "choice", choices=tuple(models)),
]
page_link.restore("paths", LINK)
if S.get("rp_t", T + 1) > T:  # first visit, or fewer rounds than before: show the last round
    S["rp_t"] = T

c = st.columns([4, 2, 2, 2], vertical_alignment="bottom")
t = c[0].slider(
    "Boosting round t",
    0,
    T,
    key="rp_t",
    help="Scores after the first t weak learners (t = 0: the bias a0 only, the same everywhere).",
)
region_model = c[1].selectbox("Regions of", list(models), key="rp_regions")
page_link.sync(LINK)
preset_paths = an.default_paths(problem)
label = "Preset paths" if problem.preset and PRESETS[problem.preset].paths else "Default paths"
c[2].button(
    ui.plain(label),
    on_click=ui.guarded_callback(_on_preset_paths),
    args=(preset_paths,),
    key="rp_reset",
    help="Put back the paths of this dataset (the Fig. 8 preset has paths A and B).",
)
c[3].button(
    "Clear paths",
    on_click=ui.guarded_callback(_set_table),
    args=({},),
    key="rp_clear",
    help="Remove every waypoint; then click on the plot to draw a new path.",
)

left, right = st.columns([3, 2])
with right:
    edited = _waypoint_editor()
    # every path of the table, also one still being drawn (one waypoint), so clicks keep extending it
    options = an.table_path_names(edited) + [NEW_PATH]
    if S.get("rp_target") not in options:
        S["rp_target"] = options[0]
    target = st.selectbox(
        "Clicks and box-drags add a waypoint to",
        options,
        key="rp_target",
        help="A click adds the clicked spot to this path; a dragged box adds its centre. Pick "
        "“➕ new path” to start another path: the next click begins it, later clicks extend it.",
    )
paths = S["rp_paths"]
with left:
    model = models[region_model]
    grid = make_grid(ds.X_train, 150)
    regions = scores_at(model, grid.points, t).argmax(axis=1).reshape(grid.shape)
    fig = paths_figs.paths_regions_figure(
        grid.xs,
        grid.ys,
        regions,
        ds.classes,
        paths,
        train=(ds.X_train, problem.y_train_idx, scores_at(model, ds.X_train, t).argmax(axis=1)),
        title=f"min-risk class ({region_model}) after t = {t} of {T} rounds",
        click_points=CLICK_LATTICE,
        axis_names=ds.feature_names,
    )
    event = st.plotly_chart(
        fig,
        key=f"rp_chart_{S.get('rp_chart_v', 0)}",
        config=style.PNG_CONFIG,
        on_select="rerun",
        selection_mode=("points", "box"),
    )
    st.caption(
        "Arrows show each path's direction; nibs mark every 20 % of its length. **Click** the plot to add a "
        "waypoint, or pick **Box select** in the chart's toolbar and drag a box to add its centre."
    )
    _add_clicked(event, edited, target)

if not paths:
    st.info("No paths yet: click twice on the plot (or add two table rows with the same path name).")
    st.stop()
scores = {label_: an.path_scores(m, paths, t) for label_, m in models.items()}
profiles = {
    name: {label_: (scores[label_][name].s, scores[label_][name].H) for label_ in models} for name in paths
}
S["rp_profiles"] = profiles  # what the score figure shows (read by tests)
st.plotly_chart(
    paths_figs.path_scores_figure(profiles, ds.classes, t), config=style.PNG_CONFIG, key="rp_scores"
)
st.caption(
    "Lines: the score H_k(x) of each class along the path (x axis: share of the path's length). "
    "Background: the min-risk class argmax_k H_k(x); diamonds and dotted lines: where it changes."
)
