"""Real data (paper Fig. 4, 6, 10, 11): REBEL trained with the costs against two-step baselines on a bundled
dataset (digits, iris, wine, breast cancer), a sample_data file, the Playground's data or the user's own CSV file
(``rebel.ui.real_upload``); test cost after every round, the calibrated two-step's once, and for digits the lowest-
and highest-risk test images.

Widgets and layout only: runs from ``rebel.experiments.real_runs``, risk examples from ``rebel.ui.real_data``, figures in
``rebel.plots``. Own state: "real_run" (the last run, kept when stopped) and "real_settings"; widget keys start
with "w6_". Reads the Playground's dataset and cost matrix from ``rebel.ui.state.AppState`` when present.
"""

import numpy as np
import pandas as pd
import streamlit as st

from rebel.baselines import ESTIMATORS, available_estimators
from rebel.experiments import real_runs as ar
from rebel.params import INT_PARAMS
from rebel.ui import components as ui
from rebel.ui import page_link
from rebel.ui import real_data as rd
from rebel.ui import real_upload as ru
from rebel.ui.figures import compare, costs, gallery, style
from rebel.ui.state import get_state

S = st.session_state
A = get_state()
PLAYGROUND = "playground"
DEFAULT_METHODS = [
    m for m in ("rebel", "adaboost_mh", "one_vs_all", "lightgbm") if m in available_estimators()
]
YOURS = "yours"
COST_LABELS = {**rd.REAL_COSTS, PLAYGROUND: "The Playground's cost matrix", YOURS: "Your costs (edit below)"}


@st.cache_resource(max_entries=8, ttl=3600, show_spinner="Loading the dataset…")
def _load(name: str):
    return ar.load_real(name)


def _dataset(name: str):
    """(dataset, the user's data or None); (None, None) while no usable file is uploaded."""
    if name == ru.UPLOAD:
        data = ru.user_data()
        return (None, None) if data is None else (data.dataset, data)
    ru.drop_link()
    return (A.dataset if name == PLAYGROUND else _load(name)), None


def _cost_kinds(name: str, ds) -> list:
    kinds = ar.real_cost_kinds(ds)
    C = A.cost_matrix
    if C is not None and np.shape(C) == (ds.n_classes, ds.n_classes) and name == PLAYGROUND:
        kinds.append(PLAYGROUND)
    if name == ru.UPLOAD:
        kinds.append(YOURS)
    return kinds


def _method_label(name: str) -> str:
    return "REBEL (0-1 costs)" if name == "rebel" else ESTIMATORS[name]


def _controls():
    names = list(ar.REAL_DATASETS) + [ru.UPLOAD] + ([PLAYGROUND] if A.dataset is not None else [])
    labels = {**ar.REAL_DATASETS, PLAYGROUND: "the Playground's current data", ru.UPLOAD: "your own CSV file"}
    defaults = {"w6_dataset": "digits", "w6_seed": 0, "w6_rounds": 100, "w6_depth": 1, "w6_calibrated": False}
    for key, value in defaults.items():
        S.setdefault(key, value)
    S.setdefault("w6_methods", DEFAULT_METHODS)
    link = [
        page_link.Setting("dataset", "w6_dataset", "choice", choices=tuple(names)),
        page_link.Setting("cost", "w6_cost", "choice", choices=tuple(COST_LABELS)),
        page_link.Setting("seed", "w6_seed", "int", 0, 2**31 - 1),
        page_link.Setting("rounds", "w6_rounds", "int", 10, 300, step=10),
        page_link.Setting("depth", "w6_depth", "int", 1, INT_PARAMS["max_depth"].app_high),
        page_link.Setting("methods", "w6_methods", "choices", choices=tuple(available_estimators())),
        page_link.Setting("calibrated", "w6_calibrated", "bool"),
    ]
    page_link.restore("real", link)
    ru.restore_from_link()
    if S["w6_dataset"] not in names:
        S["w6_dataset"] = "digits"
    c = st.columns([1, 1]) + st.columns([1, 1, 1])
    name = c[0].selectbox(
        "dataset",
        names,
        key="w6_dataset",
        format_func=lambda n: labels[n] if n in (PLAYGROUND, ru.UPLOAD) else f"{n}: {labels[n]}",
    )
    ds, user = _dataset(name)
    if ds is None:  # no usable file yet: the settings' widgets are not drawn, their values kept
        ru.keep(("w6_cost", "w6_seed", "w6_rounds", "w6_depth", "w6_methods", "w6_calibrated"))
        page_link.sync(link)
        return None
    if ds.n_classes == 2:
        st.caption(
            "Two classes: REBEL trained with the costs (exp loss) makes the same decisions as the two-step method "
            "on REBEL's own 0-1 model, so their curves coincide (Theory page, section 4); a gap to another "
            "baseline is a difference between posteriors, not a gain from training with the costs."
        )
    kinds = _cost_kinds(name, ds)
    if S.get("w6_cost") not in kinds:
        S["w6_cost"] = "taxonomy" if "taxonomy" in kinds else kinds[-1] if name == PLAYGROUND else kinds[0]
    kind = c[1].selectbox("cost matrix", kinds, key="w6_cost", format_func=COST_LABELS.get)
    seed = c[2].number_input("cost seed", min_value=0, step=1, key="w6_seed", disabled=kind != "random")
    rounds = c[3].slider("boosting rounds", 10, 300, step=10, key="w6_rounds")
    depth = c[4].slider("tree depth", 1, INT_PARAMS["max_depth"].app_high, key="w6_depth")
    methods = st.multiselect(
        "two-step baselines (trained with 0-1 costs, then the minimum-risk rule)",
        available_estimators(),
        key="w6_methods",
        format_func=_method_label,
    )
    calibrated = st.checkbox(
        "calibrated two-step (rebel.MinRiskClassifier: HistGradientBoosting of the same rounds and depth, "
        "temperature-calibrated by 5-fold cross-fitting, then the minimum-risk rule; one model, no curve)",
        key="w6_calibrated",
    )
    page_link.sync(link)
    if kind == YOURS:
        ru.cost_editor(ds.classes)
    try:
        if kind == YOURS:
            C = ru.user_costs(ds.classes)
        else:
            C = np.asarray(A.cost_matrix) if kind == PLAYGROUND else ar.real_costs(kind, ds, int(seed))
    except ValueError as exc:
        ui.show_error(f"Cost matrix not built: {exc}")
        return None
    settings = {
        "dataset": name,
        "cost": kind,
        "seed": int(seed),
        "rounds": int(rounds),
        "depth": int(depth),
        "methods": list(methods),
        "calibrated": bool(calibrated),
        "costs": C.tolist() if kind == YOURS else None,
        "file": S[ru.TABLE][0] if user is not None else None,
        "label": S.get(ru.LABEL_KEY) if user is not None else None,
    }
    return ds, C, settings, user


def _run(ds, C, settings: dict, user) -> None:
    table = {} if user is None else {"categorical": user.categorical, "n_columns": user.n_columns}
    steps = ar.train_real_steps(
        ds,
        C,
        settings["methods"],
        settings["rounds"],
        settings["depth"],
        True,
        settings["calibrated"],
        **table,
    )
    ui.run_with_stop(
        steps,
        lambda run: S.update(real_run=run, real_settings=settings),
        lambda run: (run.done, run.planned),
        key="w6_stop",
        unit="models trained",
        stop_help="Stop after the current model; finished ones are kept.",
        failure="Training failed",
    )


def _results(run: ar.RealRun, settings: dict) -> None:
    ds = run.dataset
    st.caption(
        ui.md(
            "Run shown: {}, {}, {} rounds of depth-{} trees; {} training and {} test points.",
            settings["dataset"],
            COST_LABELS[settings["cost"]].lower(),
            settings["rounds"],
            settings["depth"],
            len(ds.y_train),
            len(ds.y_test),
        )
    )
    if run.cancelled:
        ui.show_message(
            "warning",
            f"Stopped early: {run.done} of {run.planned} models trained. Press Train to start again.",
        )
    for note in run.notes:
        st.info(ui.plain(note))
    left, right = st.columns([3, 2])
    with left:
        metric = (
            st.segmented_control(
                "show",
                ["test_cost", "test_error"],
                default="test_cost",
                key="w6_metric",
                format_func=lambda m: ui.plain(m.replace("_", " ")),
            )
            or "test_cost"
        )
        st.plotly_chart(
            compare.method_curves_figure(
                run.curves, metric, title=f"{metric.replace('_', ' ')} vs boosting round on {ds.name}"
            ),
            config=style.PNG_CONFIG,
            key="w6_curves",
        )
    with right:
        st.plotly_chart(
            costs.cost_heatmap(run.cost_matrix, ds.classes, height=320),
            config=style.PNG_CONFIG,
            key="w6_costs",
        )
    summary = run.summary()
    st.dataframe(
        summary,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.4f") for c in summary.columns if c != "at round"
        },
    )
    best = summary["test cost (last round)"].idxmin()
    rebel_cost = summary["test cost (last round)"].iloc[0]
    st.markdown(
        ui.md(
            "After the last round the cheapest model on the test points is **{}** ({:.4f}); REBEL trained with "
            "the costs reaches {:.4f}. The lowest-cost round is picked on the test set here, so that column is "
            "optimistic (the paper picks rounds on a validation split).",
            best,
            summary.loc[best, "test cost (last round)"],
            rebel_cost,
        )
    )
    _examples(run)


def _examples(run: ar.RealRun) -> None:
    ds = run.dataset
    low, high, pred, paid = rd.risk_examples(run.rebel_scores, run.y_test_idx, run.cost_matrix)
    classes = list(ds.classes)
    st.subheader("Lowest- and highest-risk test examples (REBEL)")
    st.caption(
        "Risk = the cost REBEL's prediction actually pays, C[truth, prediction]; ties broken by REBEL's "
        "margin (top score minus runner-up): first the cheapest and most confident, then the costliest "
        "mistakes, most confident first (as in Fig. 10, 11)."
    )
    if ds.name == "digits" and ds.X_test.shape[1] == 64:

        def titles(idx):
            return [
                f"GT {classes[run.y_test_idx[i]]} / PRED {classes[pred[i]]}, cost {paid[i]:.2g}" for i in idx
            ]

        st.plotly_chart(
            gallery.image_gallery_figure(ds.X_test[low].reshape(-1, 8, 8), titles(low), title="lowest risk"),
            config=style.PNG_CONFIG,
            key="w6_low",
        )
        if len(high):
            st.plotly_chart(
                gallery.image_gallery_figure(
                    ds.X_test[high].reshape(-1, 8, 8), titles(high), title="highest risk"
                ),
                config=style.PNG_CONFIG,
                key="w6_high",
            )
        else:
            st.success("REBEL makes no mistake on the test images.")
        return
    rows = [
        {
            "kind": kind,
            "test point": int(i),
            "truth": str(classes[run.y_test_idx[i]]),
            "prediction": str(classes[pred[i]]),
            "cost paid": float(paid[i]),
        }
        for kind, idx in (("lowest risk", low), ("highest risk", high))
        for i in idx
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


st.title("Real data")
st.markdown(
    "REBEL on real datasets (Fig. 4, 6): trained with the cost matrix, against boosting baselines trained "
    "with 0-1 costs and then made cost-aware with the minimum-risk rule (the two-step method). Digits come "
    "with a taxonomy of visually similar digits (loops 0 6 8 9, straight strokes 1 4 7, curves 2 3 5): "
    "confusing two digits of one group costs half as much."
)
picked = _controls()
ui.run_button("Train", "real_requested", key="w6_train")
if picked is not None:
    dataset, cost_matrix, settings, user_data = picked
    if S.pop("real_requested", False) or "real_run" not in S:
        _run(dataset, cost_matrix, settings, user_data)
    if "real_run" in S:
        if S.get("real_settings") != settings:
            st.info("The settings above changed since this run: press Train to update it.")
        _results(S["real_run"], S["real_settings"])
