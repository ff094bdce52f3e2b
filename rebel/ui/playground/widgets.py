"""The Playground's sidebar and panels (Streamlit widgets): dataset settings, training settings, files
and sharing, the cost-preset controls and the view toggles; the state a link or a page revisit brings. The first
screen's layout is ``screen``, the address ``links`` (their public parts are named here too, as before).

Widgets write their own "w_*" keys; this module turns changes into ``rebel.ui.playground.actions`` calls on
the shared ``AppState`` and re-seeds the widget keys from that state when the page is (re)visited, since
Streamlit drops widget keys on other pages.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from rebel.cost_presets import COST_PRESETS
from rebel.data import PRESETS, DatasetSpec
from rebel.params import DATA_RANGES, INT_PARAMS
from rebel.ui import components as ui
from rebel.ui import config as cfgmod
from rebel.ui import short_link
from rebel.ui.lessons import SCENE_KEY
from rebel.ui.playground import actions as act
from rebel.ui.playground import downloads, exercise, link, order, plane_picker, present, thumbs, upload_link
from rebel.ui.playground.compute import preset_order
from rebel.ui.playground.links import (  # noqa: F401 (the address's parts, as they were in this module)
    ROUND_IN_LINK,
    current_config,
    round_in_link,
    sync_url,
)
from rebel.ui.playground.screen import (  # noqa: F401 (the first screen's parts, as they were in this module)
    _PLOT_BOX_CSS,
    AUTOPLAY,
    LESSON_BAR,
    LESSON_BAR_PX,
    LINK_T,
    ONE_SCREEN_CSS,
    ONE_SCREEN_CSS_PRESENT,
    PLOT_FIRST,
    PLOT_FIRST_NOW,
    PLOT_FIRST_WAITING,
    PRELOADED,
    PRESENT_COLUMNS,
    SCREEN_COLUMNS,
    TRAY_HEIGHT,
    autoplay_token,
    collapse_sidebar_once,
    cost_table_height,
    forget_plot_first,
    one_screen_style,
    plot_drawn_alone,
    plot_first_stage,
    plot_height,
    preload_charts,
    presentation_switch,
    rest_of_page_now,
    start_plot_first,
    switched_on,
)
from rebel.ui.state import AppState, get_state
from rebel.ui.variants import ENGINES

COSTS = "w_costs"
COST_KINDS = {
    "suggested": "Preset's suggested costs",
    **{k: p.label for k, p in COST_PRESETS.items()},
    "taxonomy": "Taxonomy (tree distance)",
}
HYPER_LABELS = {
    "n_estimators": "Boosting rounds (n_estimators)",
    "max_depth": "Tree depth (max_depth)",
    "n_thresholds": "Thresholds per feature (n_thresholds)",
}
S = st.session_state
RANGES = DATA_RANGES  # the one range table of the dataset settings: links and session files read it too
MIN_POINTS = RANGES["n_points"].low


def reset_mixture_editor(mixture) -> None:
    S["mixture_base"], S["mixture_editor_v"] = mixture.copy(), S.get("mixture_editor_v", 0) + 1


def _sync_widgets(A: AppState) -> None:
    """Write the widgets' keys from the shared state (after a preset, session file, link or page revisit)."""
    spec = A.spec
    S["w_n_points"] = int(spec.n_points)
    S["w_seed"] = int(spec.seed or 0)
    S["w_noise"] = round(float(spec.label_noise), 2)
    S["w_test"] = round(float(spec.test_fraction), 2)
    for name in INT_PARAMS:
        S[f"w_{name}"] = int(A.hyper[name])
    S["w_engine"] = A.engine
    if A.preset in PRESETS:
        S["w_preset"] = A.preset


def _apply(A: AppState, cfg, preset: bool = False) -> None:
    note = act.apply_preset(A, cfg) if preset else act.apply_config(A, cfg)
    if note:
        ui.flash("info", note)
    _apply_state(A)


def _apply_state(A: AppState) -> None:
    """The editors and widgets show the state afresh."""
    ui.reset_cost_editor(COSTS, A.cost_matrix)
    reset_mixture_editor(A.spec.mixture)
    _sync_widgets(A)


def init_state(A: AppState) -> None:
    """First visit: the configuration in the link (?cfg=...) if any, else the default preset."""
    if A.dataset is not None:
        if "w_preset" not in S:  # widget keys (and the editors' pending edits) are dropped on other pages
            _sync_widgets(A)
            ui.reset_cost_editor(COSTS, A.cost_matrix)
            reset_mixture_editor(A.spec.mixture)
        return
    default = partial(_apply, A, cfgmod.preset_config(cfgmod.DEFAULT_PRESET))
    if upload_link.restore(A, default, lambda: _apply_state(A)):  # the link names uploaded points
        return
    try:
        named = short_link.config_from_params({k: st.query_params.get(k) for k in short_link.LINK_KEYS})
    except ValueError as exc:
        named = None
        ui.flash("error", f"The link's configuration could not be used: {exc} Showing the default preset.")
    if named is not None:
        cfg, scene = named
        _apply(A, cfg)
        if scene is not None:  # the lesson bar comes with the scene
            S[SCENE_KEY] = scene
        _restore_view()
        return
    _apply(A, cfgmod.preset_config(cfgmod.DEFAULT_PRESET))


def first_round(T: int) -> int:
    """The round a newly trained model opens at: the link's (once, when the link opened the page), else its
    last; the address bar's t is reset to it (``sync_url`` writes it)."""
    if "t" in st.query_params:
        del st.query_params["t"]
    return min(int(S.pop(LINK_T, T)), T)


def _restore_view() -> None:
    """The view in the link (``rebel.ui.playground.link``): round, overlays, Details tab, presentation mode."""
    view, problems = link.decode_view({k: st.query_params.get(k) for k in link.VIEW_KEYS})
    if "t" in view:
        S[LINK_T] = view["t"]
    for name in view.get("overlays", ()):
        S[link.OVERLAYS[name]] = True
    if "details" in view:
        S["w_details"] = view["details"]
    if view.get("present"):
        present.set_mode(True)
        S["w_autoplay"] = True
        switched_on()
    for problem in problems:
        ui.flash("warning", f"The link's view: {problem}.")


# ---------------------------------------------------------------------------------------------------- callbacks
def _on_preset() -> None:
    A = get_state()
    try:
        _apply(A, cfgmod.preset_config(S["w_preset"], A.hyper, A.engine), preset=True)
    except ValueError as exc:
        ui.flash("error", f"Preset not loaded: {exc}")


def _on_thumbnail(name: str) -> None:
    """A preset thumbnail's click: the same action as choosing ``name`` in the Preset box."""
    S["w_preset"] = name
    _on_preset()


@st.cache_data(show_spinner=False, max_entries=64)
def _thumbnail(name: str) -> bytes | None:
    return thumbs.preset_thumbnail(name)


PRESET_PICTURES = "Presets as pictures"  # the expander's label (browser tests open it by it)
THUMB_COLUMNS = 2  # the names under the pictures fit at two a row (at four they were cut to "a…")


def preset_thumbnails(where) -> None:
    """The presets as small pictures of their points, each with a button that loads it (``_on_thumbnail``).
    Drawn only while their expander is open: closed, a run sends none of its pictures and buttons (one of each per
    preset; a preset's run draws the whole page, and the browser's work on them delayed the regions' paint)."""
    box = where.expander(ui.plain(PRESET_PICTURES), expanded=False, key="w_thumbs_open", on_change="rerun")
    if not box.open:
        return
    with box:
        names = preset_order(PRESETS)
        for row in range(0, len(names), THUMB_COLUMNS):
            cols = st.columns(THUMB_COLUMNS, gap="small")
            for col, name in zip(cols, names[row : row + THUMB_COLUMNS], strict=False):
                png = _thumbnail(name)
                if png is not None:
                    col.image(png, width="stretch")
                col.button(
                    ui.plain(name),
                    key=f"w_thumb_{name}",
                    on_click=ui.guarded_callback(_on_thumbnail),
                    args=(name,),
                    width="stretch",
                    type="primary" if name == get_state().preset else "secondary",
                )


def _on_n_points() -> None:
    """Refuse a number of points outside the app's range with a message; the previous number stays."""
    A = get_state()
    value = S.get("w_n_points")
    if value is None or not MIN_POINTS <= value <= cfgmod.MAX_POINTS:
        S["w_n_points"] = int(A.spec.n_points)
        ui.flash(
            "error",
            f"Number of points {value!r} not applied: the Playground takes {MIN_POINTS} to {cfgmod.MAX_POINTS} "
            f"points (it retrains on every change). It stays {A.spec.n_points}.",
        )


def _on_regenerate() -> None:
    """The dice: the next seed. Fast clicks send the seed field as the browser still shows it (the value before
    the streak), which would reset each click's seed + 1; so a server-only record (shown, drawn) of the streak
    continues from the last drawn seed while the field shows either of them."""
    shown = int(S.get("w_seed", 0))
    start, drawn = S.get("w_dice", (None, None))
    base = drawn if shown in (start, drawn) else shown
    seed = min(int(base) + 1, int(RANGES["seed"].high))
    S["w_dice"] = (start if shown == start else shown, seed)
    S["w_seed"] = seed


def _uploaded_bytes(key: str):
    f = S.get(key)
    return None if f is None else f.getvalue()


def _on_session_upload() -> None:
    data = _uploaded_bytes("w_session_upload")
    if data is None:
        return
    try:
        _apply(get_state(), cfgmod.parse_session_json(data))
    except ValueError as exc:
        ui.flash("error", f"Session file not loaded: {exc} Your data and costs are unchanged.")
    else:
        ui.flash("success", "Session loaded: dataset, costs and hyper-parameters restored.")


def _on_back_to_mixture() -> None:
    A = get_state()
    note = act.back_to_mixture(A)
    ui.reset_cost_editor(COSTS, A.cost_matrix)
    if note:
        ui.flash("info", note)


def _on_cost_preset(on_apply) -> None:
    A = get_state()
    try:
        C = act.cost_preset_matrix(
            A,
            S["w_cost_preset"],
            cls=S.get("w_cost_class"),
            m=S.get("w_cost_m", 10.0),
            seed=S.get("w_cost_seed", 0),
            tree=S.get("w_cost_tree", ""),
        )
    except ValueError as exc:
        ui.flash("error", f"Cost preset not applied: {exc}")
        return
    on_apply(C)


# ------------------------------------------------------------------------------------------------------- panels
_SPEC_ERROR = "pg_spec_error"  # a refused dataset setting's message, shown under the dataset widgets


def read_sidebar(A: AppState) -> None:
    """Apply the sidebar's settings (kept in the session under the widgets' keys) to the state. Runs before the
    main area, so the sidebar itself can be drawn after it (``sidebar``) in a session's first run: the picture
    reaches the browser first."""
    _read_dataset_widgets(A)
    A.hyper = cfgmod.validate_hyper({name: int(S[f"w_{name}"]) for name in INT_PARAMS})
    S.setdefault("w_engine", A.engine)
    A.engine = S["w_engine"]


def sidebar(A: AppState) -> None:
    """Draw the sidebar: dataset, training and files (its settings were applied by ``read_sidebar``), less the
    groups an exercise link hides (``exercise``)."""
    sb = st.sidebar
    hidden = [name for name in exercise.GROUPS if exercise.hidden(name)]
    if hidden:
        sb.caption(ui.md("This exercise hides {}.", "; ".join(exercise.GROUPS[n] for n in hidden)))
    _dataset_controls(A, sb.container(key=exercise.box("data")))
    _training_controls(sb.container(key=exercise.box("training")))
    _files(A, sb.container(key=exercise.box("files")))


def _dataset_controls(A: AppState, sb) -> None:
    sb.header("Dataset")
    sb.selectbox(
        "Preset",
        preset_order(PRESETS),
        key="w_preset",
        on_change=ui.guarded_callback(_on_preset),
        help="Each preset is a Gaussian mixture with a story and suggested costs.",
    )
    preset_thumbnails(sb)
    sb.number_input(
        ui.plain(RANGES["n_points"].label),
        step=100,
        key="w_n_points",
        on_change=ui.guarded_callback(_on_n_points),
        help=ui.md("From {} to {}: the Playground retrains on every change.", MIN_POINTS, cfgmod.MAX_POINTS),
    )
    c1, c2 = sb.columns([4, 1], vertical_alignment="bottom")
    seed = RANGES["seed"]
    c1.number_input(
        ui.plain(seed.label), min_value=seed.low, max_value=seed.high, step=seed.step, key="w_seed"
    )
    ui.action_button(
        c2,
        "",
        _on_regenerate,
        icon=":material/casino:",
        key="w_redraw",
        help="Redraw: new points (seed + 1).",
    )
    for key, r in (("w_noise", RANGES["label_noise"]), ("w_test", RANGES["test_fraction"])):
        sb.slider(
            ui.plain(r.label), r.low, r.high, step=r.step, key=key, help=ui.plain(r.help.capitalize() + ".")
        )
    order.controls(A, sb, COSTS)
    error = S.pop(_SPEC_ERROR, None)
    if error:
        ui.show_error(error, where=sb)
    refused = S.pop(upload_link.CSV_REFUSED, False)
    if A.data_source == "csv":
        if not refused:
            sb.info("Using the uploaded CSV points; the mixture settings above are not in use.")
        ui.action_button(sb, "Back to the designed mixture", _on_back_to_mixture, key="w_back_to_mixture")


def _training_controls(sb) -> None:
    sb.header("Training")
    for name, p in INT_PARAMS.items():
        sb.slider(ui.plain(HYPER_LABELS[name]), p.low, p.app_high, key=f"w_{name}", help=ui.plain(p.help))
    sb.selectbox(
        "Engine",
        list(ENGINES),
        format_func=ENGINES.get,
        key="w_engine",
        help="Both models use it. Paper REBEL adds f(x)·a per round at full step; vector leaves give every "
        "leaf its own K-vector, with steps shrunk to 0.3. Held out, it still costs more than the calibrated "
        "two-step method (0.1647 against 0.1554; REBEL wins 29 %, 95 % CI 18–39 %, docs/REPRODUCTION.md), "
        "and on a small Playground dataset it can cost more than paper REBEL: compare the numbers.",
    )


def _files(A: AppState, sb) -> None:
    """The sidebar's (``sb``) files section: download or upload the points and the session (JSON)."""
    sb.header("Files and sharing")
    ui.download(sb, "Download points (CSV)", downloads.points_csv(A.dataset), "rebel_points.csv")
    plane_picker.points_uploader(A, sb, partial(upload_link.on_csv_upload, _uploaded_bytes, COSTS))
    if A.data_source == "mixture":
        # written on the click, from the state then: a cost edit the page computed reruns no sidebar
        ui.download(
            sb,
            "Download session (JSON)",
            lambda: cfgmod.session_json(current_config(A)),
            "rebel_session.json",
        )
        sb.caption("The page address (URL) also holds the full configuration: copy it to share this view.")
    else:
        sb.caption(
            "Sessions and links describe designed mixtures; share the CSV file and the cost matrix instead."
        )
    sb.file_uploader(
        "Load a session (JSON)",
        type=["json"],
        key="w_session_upload",
        on_change=ui.guarded_callback(_on_session_upload),
    )


def _read_dataset_widgets(A: AppState) -> None:
    """Apply changed dataset settings (points, seed, noise, test share) as a new spec; keep the old on error."""
    spec = A.spec
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
        test = spec.test_fraction if new[3] == old[3] else new[3]
        noise = spec.label_noise if new[2] == old[2] else new[2]
        note = act.set_spec(A, DatasetSpec(spec.mixture, new[0], test, new[1], noise))
    except ValueError as exc:
        S[_SPEC_ERROR] = f"Dataset settings not applied: {exc}"
        return
    ui.reset_cost_editor(COSTS, A.cost_matrix)
    if note:
        ui.flash("info", note)


def cost_preset_controls(classes: list, on_apply) -> None:
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
            S["w_cost_tree"], S["cost_tree_for"] = cfgmod.default_tree_json(classes), tuple(classes)
        st.text_area("class tree (JSON: child → parent)", key="w_cost_tree", height=110)
    st.button(
        "Apply",
        on_click=ui.guarded_callback(_on_cost_preset),
        args=(on_apply,),
        key="w_apply_cost",
        type="primary",
    )


def view_toggles(has_bayes: bool, mixture_mode: bool) -> dict:
    box = st.container(key=exercise.box("view"))
    o = box.columns(2) + box.columns(2) + box.columns(2) + box.columns(2)
    return {
        "bayes": o[1].toggle(
            "Bayes boundaries",
            key="w_show_bayes",
            disabled=not has_bayes,
            help="Dashed: the best possible decisions, from the known mixture and these costs.",
        ),
        "two": o[0].toggle(
            "Two-step boundaries",
            key="w_show_two",
            help="Dotted: 0-1 boosting + posterior + cheapest class, with the same rounds.",
        ),
        "dis": o[2].toggle(
            "Disagreement", key="w_show_dis", help="Shaded where REBEL and two-step decide differently."
        ),
        "weights": o[3].toggle(
            "Size = weight",
            key="w_show_w",
            help="Training points sized by their boosting weight at round t: REBEL focuses on them.",
        ),
        "box": o[4].toggle("Drag adds a cluster", key="w_box", disabled=not mixture_mode),
        "_": o[5].selectbox(
            "Class of a dragged cluster",
            list(get_state().classes),
            key="w_box_class",
            label_visibility="collapsed",
            disabled=not (mixture_mode and S.get("w_box")),
        ),
        "cal": o[7].toggle(
            "Calibrated two-step",
            key="w_show_cal",
            help="The two-step method on the 0-1 model's posterior calibrated by temperature scaling on out-of-fold "
            "models: its test cost after all rounds, in the message tray (a few seconds the first time).",
        ),
        "autoplay": o[6].toggle(
            "Replay after retraining",
            key="w_autoplay",
            help="After each retrain the replay plays from t = 0 by itself, so training appears to happen live "
            "(on in presentation mode).",
        ),
    }
