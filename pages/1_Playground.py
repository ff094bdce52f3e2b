"""Playground: design a dataset, edit the cost matrix, train REBEL and the two-step baseline, watch the regions.

Widgets and layout only; every computation is in ``rebel.playground`` and every figure in ``rebel.ui.figures``.
Cross-page state (plain session keys): "spec", "preset", "hyper", "dataset", "data_source", "cost_matrix",
"trained", "model", "two_step_model". Widget keys start with "w_" and are re-seeded from that state.
"""

import math
import warnings

import pandas as pd
import streamlit as st

from rebel import playground as pg
from rebel.cost_presets import COST_PRESETS, make_costs, normalize_costs
from rebel.costs import CostWarning, validate_cost_matrix
from rebel.data import PRESETS, DatasetSpec, validate_mixture
from rebel.ui.figures import costs, regions, style

PLAY_INTERVAL = 0.4  # seconds between animation frames
PLAY_FRAMES = 50  # frames for a full replay t = 0..T
COST_KINDS = {
    "suggested": "Preset's suggested costs",
    **{k: p.label for k, p in COST_PRESETS.items()},
    "taxonomy": "Taxonomy (tree distance)",
}
S = st.session_state


# ------------------------------------------------------------------------------------------------ state helpers
def _flash(kind: str, message: str) -> None:
    """Queue a message for the top of the page (callbacks run before the page is drawn)."""
    S.setdefault("flash", []).append((kind, message))


def _bump(name: str) -> None:
    S[name] = S.get(name, 0) + 1


def _set_costs(C) -> None:
    """Replace the cost matrix from outside the editor (preset, normalize, resize, session): reset the editor."""
    S["cost_matrix"] = C.copy()
    S["cost_base"] = C.copy()
    _bump("cost_editor_v")


def _set_mixture_base(mixture) -> None:
    S["mixture_base"] = mixture.copy()
    _bump("mixture_editor_v")


def _sync_widgets() -> None:
    """Write the widgets' keys from the plain state (after a preset, session file, link or page revisit)."""
    spec, hyper = S["spec"], S["hyper"]
    S["w_n_points"] = int(spec.n_points)
    S["w_seed"] = int(spec.seed or 0)
    S["w_noise"] = round(float(spec.label_noise), 2)
    S["w_test"] = round(float(spec.test_fraction), 2)
    for name in pg.DEFAULT_HYPER:
        S[f"w_{name}"] = int(hyper[name])
    if S.get("preset") in PRESETS:
        S["w_preset"] = S["preset"]


def _apply_config(cfg: pg.Config) -> None:
    """Make a validated configuration current; nothing changes if its dataset cannot be drawn."""
    ds = pg.dataset_from_config(cfg)
    S.update(spec=cfg.spec, preset=cfg.preset, hyper=dict(cfg.hyper), dataset=ds, data_source="mixture")
    _set_costs(cfg.cost_matrix)
    _set_mixture_base(cfg.spec.mixture)
    _sync_widgets()


def _set_spec(spec: DatasetSpec) -> None:
    """Draw a new dataset from an edited spec; the cost matrix follows the classes (kept by name)."""
    ds = pg.dataset_from_spec(spec, S.get("preset") or "custom")
    old = S["dataset"].classes
    S.update(spec=spec, dataset=ds, data_source="mixture")
    if tuple(ds.classes) != tuple(old):
        _set_costs(pg.resize_cost_matrix(S["cost_matrix"], old, ds.classes))
        _flash(
            "info",
            f"Classes are now {', '.join(map(str, ds.classes))}: the cost matrix kept the costs "
            "between existing classes and gave new ones 0-1 costs.",
        )


def _current_config() -> pg.Config:
    return pg.Config(S["spec"], S["cost_matrix"], S["hyper"], S.get("preset", ""))


def _init_state() -> None:
    """First visit: the configuration in the link (?cfg=...) if any, else the default preset."""
    if "spec" in S:
        if "w_preset" not in S:  # widget keys (and the editors' pending edits) are dropped on other pages
            _sync_widgets()
            _set_costs(S["cost_matrix"])
            _set_mixture_base(S["spec"].mixture)
        return
    text = st.query_params.get(pg.QUERY_KEY)
    if text:
        try:
            _apply_config(pg.decode_query(text))
            return
        except ValueError as exc:
            _flash("error", f"The link's configuration could not be used: {exc} Showing the default preset.")
    _apply_config(pg.preset_config(pg.DEFAULT_PRESET))


# ---------------------------------------------------------------------------------------------------- callbacks
def _on_preset() -> None:
    try:
        _apply_config(pg.preset_config(S["w_preset"], S["hyper"]))
    except ValueError as exc:
        _flash("error", f"Preset not loaded: {exc}")


def _on_regenerate() -> None:
    S["w_seed"] = int(S.get("w_seed", 0)) + 1


def _uploaded_bytes(key: str):
    f = S.get(key)
    return None if f is None else f.getvalue()


def _on_session_upload() -> None:
    data = _uploaded_bytes("w_session_upload")
    if data is None:
        return
    try:
        cfg = pg.parse_session_json(data)
        _apply_config(cfg)
    except ValueError as exc:
        _flash("error", f"Session file not loaded: {exc} Your data and costs are unchanged.")
    else:
        _flash("success", "Session loaded: dataset, costs and hyper-parameters restored.")


def _on_csv_upload() -> None:
    data = _uploaded_bytes("w_csv_upload")
    if data is None:
        return
    try:
        ds = pg.parse_dataset_csv(
            data, S["spec"].test_fraction, int(S["spec"].seed or 0), name="uploaded CSV"
        )
    except ValueError as exc:
        _flash("error", f"CSV file not loaded: {exc} The previous dataset is still in use.")
        return
    old = S["dataset"].classes
    S.update(dataset=ds, data_source="csv")
    if tuple(ds.classes) != tuple(old):
        _set_costs(pg.resize_cost_matrix(S["cost_matrix"], old, ds.classes))
    _flash(
        "success",
        f"Loaded {len(ds.y_train)} training and {len(ds.y_test)} test points "
        f"({len(ds.classes)} classes) from the CSV file.",
    )


def _on_back_to_mixture() -> None:
    _set_spec(S["spec"])


def _on_cost_preset() -> None:
    ds = S["dataset"]
    kind = S["w_cost_preset"]
    try:
        if kind == "suggested":
            preset = PRESETS.get(S.get("preset", ""))
            if preset is None or tuple(preset.classes) != tuple(ds.classes):
                raise ValueError(
                    "the current data is not an unchanged preset, so there is no suggested matrix; "
                    "pick another cost preset."
                )
            C = preset.cost_matrix
        else:
            spec = {"preset": kind}
            if kind in ("fn", "fp"):
                # By index: class names from a CSV file may be numbers, which make_costs reads as indices.
                spec.update(c=list(ds.classes).index(S["w_cost_class"]), m=float(S["w_cost_m"]))
            elif kind == "random":
                spec["rng"] = int(S["w_cost_seed"])
            elif kind == "taxonomy":
                spec["tree"] = pg.parse_tree_json(S["w_cost_tree"])
            C = make_costs(spec, ds.classes)
    except ValueError as exc:
        _flash("error", f"Cost preset not applied: {exc}")
        return
    _set_costs(C)


def _on_normalize() -> None:
    try:
        _set_costs(normalize_costs(S["cost_matrix"], S["dataset"].priors()))
    except ValueError as exc:
        _flash("error", f"Costs not normalized: {exc}")


def _toggle_play() -> None:
    S["playing"] = not S.get("playing", False)
    trained = S.get("trained")
    if S["playing"] and trained is not None and S.get("t", 0) >= trained.n_rounds:
        S["t"] = 0


def _step(delta: int) -> None:
    S["playing"] = False
    trained = S.get("trained")
    if trained is not None:
        S["t"] = trained.clamp(S.get("t", 0) + delta)


# ------------------------------------------------------------------------------------------------------- panels
def _sidebar() -> None:
    sb = st.sidebar
    sb.header("Dataset")
    names = list(PRESETS)
    sb.selectbox(
        "Preset",
        names,
        key="w_preset",
        on_change=_on_preset,
        help="Each preset is a Gaussian mixture with a story and suggested costs.",
    )
    sb.number_input(
        "Number of points (train + test)", min_value=20, max_value=pg.MAX_POINTS, step=100, key="w_n_points"
    )
    c1, c2 = sb.columns([3, 2], vertical_alignment="bottom")
    c1.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key="w_seed")
    c2.button("Redraw", on_click=_on_regenerate, icon=":material/casino:", help="Draw new points (seed + 1).")
    sb.slider(
        "Label noise (training labels)",
        0.0,
        0.5,
        step=0.01,
        key="w_noise",
        help="Share of training points relabelled to another class; test labels stay clean.",
    )
    sb.slider("Test share", 0.05, 0.9, step=0.01, key="w_test")
    _read_dataset_widgets()
    if S["data_source"] == "csv":
        sb.info("Using the uploaded CSV points; the mixture settings above are not in use.")
        sb.button("Back to the designed mixture", on_click=_on_back_to_mixture)

    sb.header("Training")
    sb.slider("Boosting rounds (n_estimators)", 1, 1000, key="w_n_estimators")
    sb.slider("Tree depth (max_depth)", 1, 4, key="w_max_depth", help="1 = stumps; the paper uses depth 2.")
    sb.slider("Thresholds per feature (n_thresholds)", 2, 255, key="w_n_thresholds")
    S["hyper"] = pg.validate_hyper({name: int(S[f"w_{name}"]) for name in pg.DEFAULT_HYPER})

    sb.header("Files and sharing")
    ds = S["dataset"]
    sb.download_button(
        "Download points (CSV)",
        pg.dataset_to_csv(ds),
        file_name="rebel_points.csv",
        mime="text/csv",
        icon=":material/download:",
    )
    sb.file_uploader(
        "Upload points (CSV: x, y, label[, split])",
        type=["csv"],
        key="w_csv_upload",
        on_change=_on_csv_upload,
    )
    if S["data_source"] == "mixture":
        sb.download_button(
            "Download session (JSON)",
            pg.session_json(_current_config()),
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
        "Load a session (JSON)", type=["json"], key="w_session_upload", on_change=_on_session_upload
    )


def _read_dataset_widgets() -> None:
    """Apply changed dataset settings (points, seed, noise, test share) as a new spec; keep the old on error."""
    spec = S["spec"]
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
        _set_spec(
            DatasetSpec(
                spec.mixture,
                new[0],
                spec.test_fraction if new[3] == old[3] else new[3],
                new[1],
                spec.label_noise if new[2] == old[2] else new[2],
            )
        )
    except ValueError as exc:
        st.sidebar.error(f"Dataset settings not applied: {exc}")


def _mixture_editor() -> None:
    st.subheader("Design the data: clusters")
    st.caption(
        "One row per Gaussian cluster: class, centre (mean_x, mean_y), spread (std_x, std_y), correlation, "
        "rotation angle in degrees and relative weight. Add or delete rows, or drag a box on the plot above "
        "(with “Drag adds a cluster” on). Changes redraw the points and retrain at once."
    )
    if S["data_source"] == "csv":
        st.info("The uploaded CSV points are in use; editing clusters switches back to the designed mixture.")
    col = st.column_config
    edited = st.data_editor(
        S["mixture_base"],
        key=f"w_mixture_{S['mixture_editor_v']}",
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
    try:
        mixture = validate_mixture(edited)
        if mixture.equals(S["spec"].mixture):
            return
        spec = S["spec"]
        _set_spec(DatasetSpec(mixture, spec.n_points, spec.test_fraction, spec.seed, spec.label_noise))
        S["preset"] = ""
    except ValueError as exc:
        st.warning(f"Clusters table: {exc} The previous clusters stay in use until this is fixed.")


def _cost_panel() -> None:
    ds = S["dataset"]
    classes = list(ds.classes)
    st.subheader("Costs")
    c1, c2, c3 = st.columns([5, 4, 3])
    with c1:
        st.caption(
            "Cost of each decision: **rows = truth, columns = prediction**. Raise an entry to make that "
            "mistake more expensive; REBEL retrains at once."
        )
        col = st.column_config
        edited = st.data_editor(
            pg.cost_frame(S["cost_base"], classes),
            key=f"w_costs_{S['cost_editor_v']}",
            num_rows="fixed",
            width="stretch",
            column_config={
                "_index": col.TextColumn("truth \\ predicted", width="small"),
                **{
                    name: col.NumberColumn(name, min_value=0.0, format="%.3g", required=True, width="small")
                    for name in classes
                },
            },
        )
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", CostWarning)
                C = validate_cost_matrix(pg.cost_from_frame(edited, classes), n_classes=len(classes))
            for w in caught:
                st.warning(f"{w.message}")
            if not (C == S["cost_matrix"]).all():
                S["cost_matrix"] = C
        except ValueError as exc:
            st.error(f"Cost matrix: {exc} The previous matrix stays in use until this is fixed.")
    with c2:
        st.plotly_chart(
            costs.cost_heatmap(S["cost_matrix"], classes, height=260),
            config=style.PNG_CONFIG,
            key="cost_heatmap",
        )
    with c3:
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
                S["w_cost_tree"], S["cost_tree_for"] = pg.default_tree_json(classes), tuple(classes)
            st.text_area("class tree (JSON: child → parent)", key="w_cost_tree", height=110)
        a, b = st.columns(2)
        a.button("Apply", on_click=_on_cost_preset, key="w_apply_cost", type="primary")
        b.button(
            "Normalize",
            on_click=_on_normalize,
            key="w_normalize",
            help="Scale so that guessing a class at random costs 1 (training-set priors).",
        )


@st.cache_resource(max_entries=4, show_spinner="Training REBEL and the two-step baseline…")
def _train(key: str, _dataset, _cost_matrix, _hyper) -> pg.TrainedPair:
    return pg.train_pair(_dataset, _cost_matrix, _hyper)


def _training() -> pg.TrainedPair | None:
    ds, C, hyper = S["dataset"], S["cost_matrix"], S["hyper"]
    key = pg.content_key(pg.dataset_key(ds), C, hyper)
    try:
        pair = _train(key, ds, C, hyper)
    except ValueError as exc:
        st.error(f"Training failed: {exc}")
        return S.get("trained")
    if S.get("shown_key") != pair.key:  # a new model: show its final rounds, stop any replay
        S.update(shown_key=pair.key, playing=False, t=pair.n_rounds)
    S.update(trained=pair, model=pair.rebel, two_step_model=pair.two_step)
    n = pair.grid.shape[0]
    st.caption(
        f"REBEL trained in **{1e3 * pair.fit_seconds:.0f} ms** ({pair.n_rounds} rounds of depth-"
        f"{hyper['max_depth']} trees, regions on a {n}×{n} grid); two-step baseline in "
        f"{1e3 * pair.baseline_seconds:.0f} ms. Results are cached: going back to a setting is instant."
    )
    return pair


# ------------------------------------------------------------------------------------------- the live main view
def _view(playing_mode: bool) -> None:
    pair: pg.TrainedPair = S["trained"]
    T = pair.n_rounds
    if S.get("playing", False) != playing_mode:
        st.rerun()  # switch the fragment's timer on or off
    if playing_mode:
        if S.get("t", 0) >= T:
            S["playing"] = False
            st.rerun()
        S["t"] = min(T, S.get("t", 0) + max(1, math.ceil(T / PLAY_FRAMES)))
    S["t"] = pair.clamp(S.get("t", T))

    c = st.columns([1.1, 0.6, 0.6, 0.6, 6], vertical_alignment="bottom")
    c[0].button(
        "Pause" if playing_mode else "Play",
        on_click=_toggle_play,
        key="w_play",
        width="stretch",
        icon=":material/pause:" if playing_mode else ":material/play_arrow:",
        help="Replay training round by round.",
    )
    c[1].button(
        "",
        on_click=_step,
        args=(-T,),
        key="w_first",
        icon=":material/first_page:",
        help="Back to t = 0 (a0 only).",
    )
    c[2].button(
        "", on_click=_step, args=(-1,), key="w_back", icon=":material/chevron_left:", help="One round back."
    )
    c[3].button(
        "", on_click=_step, args=(1,), key="w_fwd", icon=":material/chevron_right:", help="One round forward."
    )
    t = c[4].slider(
        "Boosting round t",
        0,
        T,
        key="t",
        help="The model after its first t weak learners; t = 0 uses only the bias a0.",
    )

    ds = pair.dataset
    mixture_mode = S.get("data_source") == "mixture"
    o = st.columns(5)
    show_bayes = o[0].toggle(
        "Bayes boundaries",
        key="w_show_bayes",
        disabled=not pair.has_bayes,
        help="Dashed: the best possible decisions, from the known mixture and these costs.",
    )
    show_two = o[1].toggle(
        "Two-step boundaries",
        key="w_show_two",
        help="Dotted: 0-1 boosting + posterior + cheapest class, with the same rounds.",
    )
    show_dis = o[2].toggle(
        "Disagreement", key="w_show_dis", help="Shaded where REBEL and two-step decide differently."
    )
    show_w = o[3].toggle(
        "Size = weight",
        key="w_show_w",
        help="Training points sized by their boosting weight at round t: REBEL focuses on them.",
    )
    box_on = o[4].toggle("Drag adds a cluster", key="w_box", disabled=not mixture_mode)

    left, right = st.columns([3, 2])
    with left:
        if box_on:
            st.selectbox("Class of the new cluster", list(ds.classes), key="w_box_class")
        other = pair.two_step_regions[t] if (show_two or show_dis) else None
        fig = regions.regions_figure(
            pair.grid.xs,
            pair.grid.ys,
            pair.regions[t],
            ds.classes,
            train=(ds.X_train, pair.y_train_idx, pair.train_predictions(t)),
            test=(ds.X_test, pair.y_test_idx, pair.test_predictions(t)),
            train_sizes=regions.weight_sizes(pair.weights[t]) if show_w else None,
            bayes_regions=pair.bayes_regions if show_bayes else None,
            other_regions=other,
            show_other=show_two,
            show_disagreement=show_dis,
            box_select=box_on,
            title=f"REBEL's minimum-risk class after t = {t} of {T} rounds",
        )
        event = st.plotly_chart(
            fig,
            key=f"w_regions_{S.get('chart_v', 0)}",
            config=style.PNG_CONFIG,
            on_select="rerun" if box_on else "ignore",
            selection_mode="box",
        )
        st.caption(
            "Background: the class REBEL decides at each place (lighter colours). Filled dots: training "
            "points; rings: test points; ×: a mistake at round t."
        )
        if box_on:
            _add_dragged_cluster(event)
    with right:
        _numbers(pair, t)
    a, b = st.columns([3, 2])
    with a:
        st.plotly_chart(
            costs.cost_curves_figure(pair.curves, t, pair.bayes_test_cost, height=320),
            config=style.PNG_CONFIG,
            key="w_curves",
        )
    with b:
        _confusion(pair, t)


def _add_dragged_cluster(event) -> None:
    box = pg.box_from_selection(getattr(event, "selection", None) or {})
    if box is None:
        return
    cls = S.get("w_box_class") or S["dataset"].classes[0]
    try:
        mixture = pg.add_box_cluster(S["spec"].mixture, cls, *box)
        spec = S["spec"]
        _set_spec(DatasetSpec(mixture, spec.n_points, spec.test_fraction, spec.seed, spec.label_noise))
    except ValueError as exc:
        st.error(f"Cluster not added: {exc}")
        return
    _set_mixture_base(mixture)
    S["preset"] = ""
    _bump("chart_v")  # a fresh chart drops the box, so it is not added twice
    _flash("success", f"Added a cluster of class {cls!r} at ({sum(box[0]) / 2:.2f}, {sum(box[1]) / 2:.2f}).")
    st.rerun()


def _numbers(pair: pg.TrainedPair, t: int) -> None:
    rebel_m, two_m = pair.metrics(t, "REBEL"), pair.metrics(t, "two-step")
    m = st.columns(3)
    m[0].metric(
        "REBEL test cost",
        f"{rebel_m.cost:.3f}",
        f"{rebel_m.cost - two_m.cost:+.3f}",
        delta_color="inverse",
        help="Mean cost C[truth, prediction] over the test points; the small "
        "number is the difference to the two-step method (green = cheaper).",
    )
    m[1].metric(
        "error rate",
        f"{rebel_m.error:.1%}",
        f"{rebel_m.error - two_m.error:+.1%}",
        delta_color="inverse",
        help="Share of test points misclassified (every mistake counts 1); the "
        "small number is the difference to the two-step method.",
    )
    m[2].metric(
        "regret vs Bayes",
        "n/a" if rebel_m.regret is None else f"{rebel_m.regret:.3f}",
        help="Test cost minus the test cost of the Bayes-optimal rule on the same points.",
    )
    rows = {"REBEL": rebel_m, "two-step": two_m}
    table = pd.DataFrame(
        {"test cost": [r.cost for r in rows.values()], "error rate": [r.error for r in rows.values()]},
        index=list(rows),
    )
    if pair.bayes_test_cost is not None:  # regret needs the Bayes rule, known only for designed mixtures
        table["regret"] = [r.regret for r in rows.values()]
        table.loc["Bayes rule"] = [pair.bayes_test_cost, pair.bayes_test_error, 0.0]
    st.dataframe(
        table,
        width="stretch",
        column_config={c: st.column_config.NumberColumn(format="%.3f") for c in table.columns},
    )
    pr = pd.DataFrame(
        {
            "class": [str(c) for c in pair.classes],
            "REBEL prec.": rebel_m.precision,
            "REBEL recall": rebel_m.recall,
            "2-step prec.": two_m.precision,
            "2-step recall": two_m.recall,
        }
    )
    st.dataframe(
        pr,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.2f", width="small") for c in pr.columns[1:]
        },
    )
    st.caption(
        "Recall of class c: share of its test points predicted as c. A costly miss of c pushes REBEL to "
        "raise c's recall, paying with precision."
    )


def _confusion(pair: pg.TrainedPair, t: int) -> None:
    which = (
        st.segmented_control(
            "Confusion matrix of", ["REBEL", "two-step"], default="REBEL", key="w_conf_model"
        )
        or "REBEL"
    )
    m = pair.metrics(t, which)
    st.plotly_chart(
        costs.confusion_figure(
            m.confusion,
            m.cost_share,
            pair.classes,
            height=300,
            title=f"{which} at t = {t}: count / share of mean cost",
        ),
        config=style.PNG_CONFIG,
        key="w_confusion",
    )


def _show_flash() -> None:
    for kind, message in S.pop("flash", []):
        getattr(st, kind)(message)


def _sync_url() -> None:
    if S["data_source"] != "mixture":
        if pg.QUERY_KEY in st.query_params:
            del st.query_params[pg.QUERY_KEY]
        return
    try:
        text = pg.encode_query(_current_config())
    except ValueError:
        return
    if st.query_params.get(pg.QUERY_KEY) != text:
        st.query_params[pg.QUERY_KEY] = text


# ---------------------------------------------------------------------------------------------------------- page
_init_state()
st.title("REBEL Playground")
st.markdown(
    "REBEL boosts straight for the **minimum-risk class**: tell it what each mistake costs and it spends "
    "its weak learners on the boundaries that matter. Edit the costs or the clusters and watch the coloured "
    "regions move; press **▶ Play** to replay training round by round, and compare with the usual "
    "**two-step** method (learn posteriors with 0-1 costs, then pick the cheapest class)."
)
with st.expander("How to read this page"):
    st.markdown(
        "- **Costs** (top): entry (truth, prediction) is what that decision costs. The airport preset is the "
        "paper's Fig. 1: letting a weapon through costs 20, a false alarm 1.\n"
        "- **Regions** (left plot): the class REBEL picks at each place, i.e. its estimate of the "
        "minimum-risk class. Raise a cost and watch the costly class's region grow (paper Fig. 7).\n"
        "- **Round t** (slider, ▶ Play): the model after its first t weak learners. With costs, REBEL places the "
        "expensive boundaries first; *Size = weight* shows which points it is working on.\n"
        "- **Two-step** (toggles): the usual recipe, boosting with 0-1 costs, then posterior and cheapest class. "
        "*Disagreement* shades where the two decide differently; *Bayes boundaries* are the best possible ones.\n"
        "- **Numbers** (right, below): test cost, error rate and regret (cost above the Bayes rule) at round t, "
        "and where the cost comes from in the confusion matrix."
    )
header = st.container()
cost_area = st.container(border=True)
status = st.container()
view_area = st.container()
design_area = st.container(border=True)

_sidebar()
with design_area:
    _mixture_editor()
with cost_area:
    _cost_panel()
with header:
    story = getattr(PRESETS.get(S.get("preset", "")), "story", "") if S.get("preset") in PRESETS else ""
    if story and S["data_source"] == "mixture":
        st.info(f"**{S['preset']}**: {story}")
    _show_flash()
with status:
    trained = _training()
if trained is not None:
    with view_area:
        st.fragment(run_every=PLAY_INTERVAL if S.get("playing") else None)(_view)(bool(S.get("playing")))
_sync_url()
