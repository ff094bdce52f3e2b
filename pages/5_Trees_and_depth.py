"""Trees and depth (paper Sec. 4, Fig. 2, Table 1): one round's tree as a diagram, its a-vector, the regions of that
single weak learner, the loss after each layer of growing it, and a depth study on the current dataset.

Widgets and layout only: logic in ``rebel.ui.trees`` and ``rebel.experiments.studies``, figures in ``rebel.plots``. Reads
the Playground's problem from ``rebel.ui.state.AppState`` (else the default preset) and fits through its model
cache. Own state: "depth_run" (the last depth study and the problem it belongs to); widget keys start with "w5_".
"""

import numpy as np
import streamlit as st

from rebel.experiments.studies import depth_study_steps
from rebel.params import INT_PARAMS
from rebel.ui import components as ui
from rebel.ui import page_link
from rebel.ui import trees as tr
from rebel.ui.config import content_key, dataset_key
from rebel.ui.figures import style, trees
from rebel.ui.playground.compute import make_grid
from rebel.ui.state import get_state, problem_or_default

S = st.session_state
A = get_state()
GRID = 150  # cells per axis of the weak-learner regions
MAX_ROUNDS = 300  # rounds offered on this page (each round is drawn on its own)


def _problem() -> tuple:
    """The Playground's dataset and cost matrix, or the default preset's when there are none (or they disagree)."""
    problem, note = problem_or_default(A)
    if note:
        ui.show_message("warning", note)
    ds = problem.dataset
    if problem.source == "playground":
        st.caption(
            ui.md(
                "Data and costs: the Playground's ({} training points, {} classes).",
                len(ds.y_train),
                ds.n_classes,
            )
        )
    else:
        st.caption(
            ui.md(
                "Data and costs: the default preset “{}” (design your own in the Playground).", problem.preset
            )
        )
    return problem


def _model_controls() -> tuple:
    hyper = A.hyper
    S.setdefault("w5_depth", max(2, int(hyper["max_depth"])))
    S.setdefault("w5_rounds", min(int(hyper["n_estimators"]), MAX_ROUNDS))
    link = [
        page_link.Setting("depth", "w5_depth", "int", 1, INT_PARAMS["max_depth"].app_high),
        page_link.Setting("rounds", "w5_rounds", "int", 1, MAX_ROUNDS),
    ]
    page_link.restore("trees", link)
    page_link.sync(link)
    c = st.columns([2, 2, 5])
    depth = c[0].slider(
        "tree depth",
        1,
        INT_PARAMS["max_depth"].app_high,
        key="w5_depth",
        help="Depth of every weak learner (1 = stumps).",
    )
    rounds = c[1].slider("boosting rounds", 1, MAX_ROUNDS, key="w5_rounds")
    return rounds, depth, int(hyper["n_thresholds"])


def _round_view(model, ds, y_idx) -> None:
    T = model.n_estimators_
    if not 1 <= S.get("w5_t", 1) <= T:
        S["w5_t"] = min(max(S.get("w5_t", 1), 1), T)
    help_t = "The weak learner f_t and output vector a_t added in round t."
    t = st.slider("round t", 1, max(T, 2), key="w5_t", disabled=T < 2, help=ui.plain(help_t)) if T > 1 else 1
    nodes = tr.tree_nodes(model, t, ds.feature_names, ds.X_train, y_idx)
    left, right = st.columns([3, 2])
    with left:
        st.plotly_chart(
            trees.tree_diagram_figure(
                nodes, ds.classes, title=f"round {t}: tree f_{t} (depth {model.depth_})"
            ),
            config=style.PNG_CONFIG,
            key="w5_tree",
        )
        st.caption(
            "Each square asks “feature ≤ threshold?” (left = yes). Leaves give f_t = +1 (dark) or -1 "
            "(light); a leaf's ring has the colour of its most frequent training class, n counts the "
            "training points reaching it. A test in brackets copies its parent (Sec. 4, step 1, kept "
            "because no split was better): all its points go one way."
        )
    with right:
        a = model.a_[t - 1]
        st.plotly_chart(
            trees.a_vector_figure(a, ds.classes, title=f"a_{t}: change of each class's score"),
            config=style.PNG_CONFIG,
            key="w5_a",
        )
        plus, minus = tr.favoured_classes(a, ds.classes)
        st.caption(
            ui.md(
                "Where f_{} = +1 the scores of {} rise; where f_{} = -1 those of {} rise (H = a0 + Σ f_t a_t, Eq. 3).",
                t,
                ", ".join(map(str, plus)) or "no class",
                t,
                ", ".join(map(str, minus)) or "no class",
            )
        )
        losses = tr.layer_losses(model, t)
        st.plotly_chart(
            trees.layer_loss_figure(
                losses, title=f"training loss while growing f_{t}, layer by layer", height=260
            ),
            config=style.PNG_CONFIG,
            key="w5_layers",
        )
        steps = np.diff(losses)
        st.caption(
            ui.md(
                "Loss before round {}: {:.4f}; after its {} layer(s): {:.4f}. {}",
                t,
                losses[0],
                len(steps),
                losses[-1],
                "Every layer lowered it or kept it (Sec. 4's guarantee)."
                if np.all(steps <= 1e-12)
                else "A layer raised the loss: this contradicts Sec. 4; please report it.",
            )
        )
    if ds.X_train.shape[1] == 2:
        grid = make_grid(np.vstack([ds.X_train, ds.X_test]) if len(ds.y_test) else ds.X_train, GRID)
        f = tr.weak_learner_grid(model, t, grid.xs, grid.ys)
        st.plotly_chart(
            trees.weak_learner_figure(
                grid.xs,
                grid.ys,
                f,
                ds.X_train,
                y_idx,
                ds.classes,
                title=f"regions of the single weak learner f_{t}",
                axis_names=ds.feature_names,
            ),
            config=style.PNG_CONFIG,
            key="w5_regions",
        )
    else:
        st.info(
            ui.md(
                "The data has {} features, so the regions of f_t cannot be drawn in the plane.",
                ds.X_train.shape[1],
            )
        )


def _depth_study(ds, C, problem_key: str) -> None:
    st.subheader("Depth study (Table 1)", anchor=False)
    st.markdown(
        "REBEL with stumps against depth-2, 3 and 4 trees on this dataset: all its points are split "
        "50/25/25 (train / validation / test) several times; the number of rounds is picked on validation. "
        "Trained with 0-1 costs the table shows the test error, trained with the costs the test cost."
    )
    S.setdefault("w5_study_rounds", 100)
    S.setdefault("w5_study_splits", 3)
    link = [
        page_link.Setting("study_rounds", "w5_study_rounds", "int", 10, 300, step=10),
        page_link.Setting("study_splits", "w5_study_splits", "int", 1, 5),
    ]
    page_link.restore("trees_study", link)
    page_link.sync(link)
    with st.form("w5_study_form"):
        c = st.columns([2, 2, 3], vertical_alignment="bottom")
        c[0].slider("rounds (at most)", 10, 300, step=10, key="w5_study_rounds")
        c[1].slider("random splits", 1, 5, key="w5_study_splits")
        c[2].form_submit_button(
            "Run depth study",
            type="primary",
            key="w5_study_run",
            on_click=ui.guarded_callback(lambda: S.update(depth_requested=True)),
        )
    key = (problem_key, int(S["w5_study_rounds"]), int(S["w5_study_splits"]))
    stored = S.get("depth_run")
    if S.pop("depth_requested", False) or stored is None or stored[0][0] != problem_key:
        ui.run_with_stop(
            depth_study_steps(ds, C, n_rounds=key[1], n_splits=key[2]),
            lambda study: S.update(depth_run=(key, study)),
            lambda study: (len(study.depths_done), len(study.depths)),
            key="w5_stop",
            unit="depths",
            stop_help="Stop after the current depth.",
            failure="The depth study could not run",
        )
    if S.get("depth_run") is None or S["depth_run"][0][0] != problem_key:
        return
    key, study = S["depth_run"]
    if study.cancelled:
        ui.show_message(
            "warning",
            f"Stopped early: depths {study.depths_done} finished. Press “Run depth study” to start again.",
        )
    if study.table.empty:
        return
    st.caption(
        ui.md("{} random splits, at most {} rounds; mean over the splits (lower is better).", key[2], key[1])
    )
    st.dataframe(study.table.style.format("{:.4f}").highlight_min(axis=1, color="#CFE8F3"), width="stretch")
    st.markdown(ui.plain(_depth_text(study.table)))


def _depth_text(table) -> ui.Markdown:
    lines = []
    for metric in table.index:
        row = table.loc[metric]
        best = row.idxmin()
        if "stumps" not in row or len(row) < 2:
            continue
        deeper = row.drop("stumps")
        verdict = "beat" if deeper.min() < row["stumps"] else "did not beat"
        lines.append(
            ui.md(
                "- **{}**: lowest with {} ({:.4f}); the best deeper tree {} stumps ({:.4f} vs {:.4f}).",
                metric,
                best,
                row[best],
                verdict,
                deeper.min(),
                row["stumps"],
            )
        )
    lines.append(
        ui.md(
            "The paper (Table 1, SUN and CUB) found deeper trees better than stumps; on a small 2-D problem "
            "the differences are often within the split-to-split noise."
        )
    )
    return ui.md("\n").join(lines)


st.title("Trees and depth", anchor=False)
st.markdown(
    "REBEL's weak learners are small binary trees grown one layer at a time (Sec. 4, Fig. 2): each leaf "
    "becomes a stump, the stumps are chosen with a_t fixed, then a_t is re-solved, so **a layer never makes "
    "the loss worse**. Pick a round to see its tree, what it adds to each class's score, and where it "
    "splits the plane."
)
problem = _problem()
dataset, cost_matrix = problem.dataset, problem.cost_matrix
n_rounds, depth, n_thresholds = _model_controls()
problem_key = content_key(dataset_key(dataset), cost_matrix)
hyper = {"n_estimators": n_rounds, "max_depth": depth, "n_thresholds": n_thresholds}
try:
    with st.spinner("Training REBEL…"):
        model = A.fit(dataset, cost_matrix, hyper)
except ValueError as exc:
    ui.show_error(f"Training failed: {exc} Fix the data or costs in the Playground.")
    model = None
if model is not None:
    _round_view(model, dataset, dataset.class_index(dataset.y_train))
st.divider()
_depth_study(dataset, cost_matrix, problem_key)
