"""Cost-sensitivity gallery (Fig. 7, S.9): four cost matrices, four models, side by side on the current data.

Widgets and layout only; training and metrics come from ``rebel.ui`` view-models and ``rebel.experiments.studies``,
figures from ``rebel.plots``.
Reads the Playground's shared state (``rebel.ui.state.AppState``); page-private keys start with "gal_".
"""

import math

import pandas as pd
import streamlit as st

from rebel.ui import components as ui
from rebel.ui import gallery as an
from rebel.ui import page_link
from rebel.ui.config import content_key
from rebel.ui.figures import costs as costs_figs
from rebel.ui.figures import gallery as gallery_figs
from rebel.ui.figures import style
from rebel.ui.state import Problem, get_state, problem_caption

DEFAULT_PRESET = "fig7"
S = st.session_state
A = get_state()


def _gallery(problem: Problem, c: int, m: float, other: int) -> an.Gallery:
    """The four trained panels, computed once per setting (the last few are kept for this session)."""
    key = content_key(problem.key, c, m, other)
    store = S.setdefault("gal_cache", {})
    if key not in store:
        bar = st.progress(0.0, text="Training the four models…")
        gallery = an.train_gallery(
            problem,
            c,
            m,
            other,
            progress=lambda i, n, label: bar.progress(i / n, text=ui.plain(label)),
            state=A,
        )
        bar.empty()
        while len(store) >= 3:
            store.pop(next(iter(store)))
        store[key] = gallery
    return store[key]


def _fmt(v) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def _panel_numbers(gallery: an.Gallery, panel: an.GalleryPanel, cls: str) -> None:
    r = panel.report(gallery.problem.y_train_idx, gallery.problem.y_test_idx, gallery.c)
    table = pd.DataFrame(
        {
            split: [
                _fmt(r[split]["precision"]),
                _fmt(r[split]["recall"]),
                str(r[split]["wrong"]),
                str(r[split]["missed"]),
            ]
            for split in ("train", "test")
        },
        index=["precision", "recall", "wrong calls", "missed"],
    )
    # Short row labels so train and test both fit in a quarter-width panel; the caption below the panels says
    # what each row counts.
    st.dataframe(table, width="stretch")
    if panel.key == "c":
        if r["train"]["wrong"] == 0:
            st.success(ui.md("No {} prediction on the training set is wrong.", cls))
        else:
            st.caption(ui.md("{} training points wrongly called {}.", r["train"]["wrong"], cls))
    if panel.key == "d":
        if r["train"]["missed"] == 0:
            st.success(ui.md("No {} training point is missed.", cls))
        else:
            st.caption(ui.md("{} {} training points missed.", r["train"]["missed"], cls))


# ---------------------------------------------------------------------------------------------------------- page
problem = ui.problem_page_header(
    "Cost-sensitivity gallery",
    ui.md(
        "The same data, four cost matrices (paper Fig. 7): **(a)** every mistake costs 1; **(b)** missing the "
        "*other* class costs ×m; **(c)** wrongly *predicting* class c costs ×m (false positive); **(d)** "
        "*missing* class c costs ×m (false negative). REBEL moves its boundaries accordingly: in (c) it "
        "predicts c only where it is sure (high precision), in (d) it rarely misses a c point (high recall)."
    ),
    A,
    DEFAULT_PRESET,
)
st.caption(
    ui.plain(
        problem_caption(problem)
        + ui.md(
            " Each panel: {} rounds of depth-{} trees.",
            problem.hyper["n_estimators"],
            problem.hyper["max_depth"],
        )
    )
)
ds = problem.dataset
classes = [str(k) for k in ds.classes]
ui.require_plane(ds.X_train.shape[1])
c_default, other_default = an.default_gallery_classes(problem)
if S.get("gal_c") not in classes:
    S["gal_c"] = classes[c_default]
if S.get("gal_other") not in classes:
    S["gal_other"] = classes[other_default]

S.setdefault("gal_m", 10.0)
LINK = [
    page_link.Setting("c", "gal_c", "choice", choices=tuple(classes)),
    page_link.Setting("other", "gal_other", "choice", choices=tuple(classes)),
    page_link.Setting("m", "gal_m", "float", 0.01, 1000.0),
    page_link.Setting("test", "gal_test", "bool"),
]
page_link.restore("gallery", LINK)
page_link.sync(LINK)
w = st.columns([2, 2, 2, 2], vertical_alignment="bottom")
c_name = w[0].selectbox("Class c (the “red” class of Fig. 7)", classes, key="gal_c")
other_name = w[1].selectbox("Other class (panel b)", classes, key="gal_other")
m = w[2].number_input(
    "Multiplier m",
    min_value=0.01,
    max_value=1000.0,
    step=1.0,
    key="gal_m",
    help="The chosen costs are m instead of 1 (on top of 0-1 costs, as in the paper).",
)
show_test = w[3].toggle(
    "Show test points", key="gal_test", help="Rings: test points; filled: training points."
)
c, other = classes.index(c_name), classes.index(other_name)
if c == other:
    ui.show_message(
        "warning",
        "Pick an *other* class different from class c for panel (b); the other three panels are shown.",
    )
    other = (c - 1) % len(classes)
try:
    gallery = _gallery(problem, c, float(m), other)
except ValueError as exc:
    ui.show_error(f"Gallery not trained: {exc}")
    st.stop()
S["gal_result"] = gallery  # read by tests and kept while the page is open

grid = gallery.grid
st.plotly_chart(
    gallery_figs.class_legend_figure(ds.classes), config={"displayModeBar": False}, key="gal_legend"
)
cols = st.columns(4)
for col, panel in zip(cols, gallery.panels.values()):
    with col:
        test = (ds.X_test, problem.y_test_idx, panel.test_pred) if show_test else None
        st.plotly_chart(
            gallery_figs.gallery_panel_figure(
                grid.xs,
                grid.ys,
                panel.regions,
                ds.classes,
                train=(ds.X_train, problem.y_train_idx, panel.train_pred),
                test=test,
                title=panel.title,
                axis_names=ds.feature_names,
            ),
            config=style.PNG_CONFIG,
            key=f"gal_fig_{panel.key}",
        )
        _panel_numbers(gallery, panel, c_name)
st.caption(
    "Background: each model's min-risk class; dots: training points (× marks a mistake). Under each panel, for "
    "class c: precision = share of c predictions that are right; recall = share of c points found; wrong calls "
    "= points wrongly predicted as c; missed = c points predicted as another class."
)
with st.expander("The four cost matrices"):
    hc = st.columns(4)
    for col, panel in zip(hc, gallery.panels.values()):
        col.plotly_chart(
            costs_figs.cost_heatmap(panel.cost_matrix, ds.classes, height=240),
            config=style.PNG_CONFIG,
            key=f"gal_cost_{panel.key}",
        )
