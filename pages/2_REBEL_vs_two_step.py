"""REBEL vs two-step (paper Fig. 3): cost-sensitive REBEL against 0-1 boosting + the minimum-risk rule, on random
mixtures (the paper's protocol) or on redraws of the Playground's mixture.

Widgets and layout only: runs come from ``rebel.experiments.studies`` (``versus``: the two-step posterior, engine
options for both sides, round checkpoints, training and test costs), texts from ``rebel.ui.vs_two_step``, figures
from ``rebel.ui.figures``. Own state: the last run in "vs_run" (kept when a run is stopped); widget keys start
with "w2_".
Reads the Playground's dataset and cost matrix from ``rebel.ui.state.AppState`` when present.
"""

import streamlit as st

from rebel.data import PAPER_SEED
from rebel.experiments import studies as ar
from rebel.experiments import versus
from rebel.params import CHOICE_PARAMS, FLOAT_PARAMS
from rebel.ui import components as ui
from rebel.ui import page_link, regime_view
from rebel.ui import vs_two_step as vs
from rebel.ui.figures import calibration, compare, style, winrates
from rebel.ui.state import get_state

S = st.session_state
A = get_state()


def _engine_widgets() -> None:
    """Second row of the form: the two-step posterior and the engine options both sides share."""
    c = st.columns([3, 2, 2, 2, 2])
    c[0].selectbox(
        "two-step posterior",
        versus.available_posteriors(),
        format_func=lambda p: vs.POSTERIOR_LABELS.get(p, versus.POSTERIORS[p]),
        key="w2_posterior",
        help="How the two-step side estimates p(y|x) before the minimum-risk rule. σ(2H) (exp loss) or σ(H) "
        "(logistic loss) is the posterior REBEL's loss implies; the calibrated choices map it through a calibrator fitted on out-of-fold predictions (the strongest known two-step); softmax of H is a naive reading; SAMME and LightGBM are other engines.",
    )
    c[1].selectbox("loss (both sides)", CHOICE_PARAMS["loss"], key="w2_loss")
    c[2].selectbox("leaves (both sides)", CHOICE_PARAMS["leaves"], key="w2_leaves")
    lr = FLOAT_PARAMS["learning_rate"]
    c[3].number_input(
        "learning rate (both)",
        min_value=0.0,
        max_value=lr.high,
        step=0.05,
        key="w2_learning_rate",
        help=ui.plain(lr.help),
    )
    c[4].checkbox(
        "sweep depths 1–3",
        key="w2_sweep",
        help="Win rate against depth too (one more pair of fits per depth). Rounds are read for free from "
        "staged predictions.",
    )


def _link_settings() -> list:
    """The form's settings in the page's link (``rebel.ui.page_link``), with the limits the widgets use."""
    lr = FLOAT_PARAMS["learning_rate"]
    return [
        page_link.Setting("source", "w2_source", "choice", choices=tuple(vs.SOURCES)),
        *[page_link.Setting(k, f"w2_{k}", "int", *vs.LIMITS[k][:2]) for k in ar.FIG3_DEFAULTS],
        page_link.Setting("seed", "w2_seed", "int", 0, 2**31 - 1),
        page_link.Setting(
            "posterior", "w2_posterior", "choice", choices=tuple(versus.available_posteriors())
        ),
        page_link.Setting("loss", "w2_loss", "choice", choices=CHOICE_PARAMS["loss"]),
        page_link.Setting("leaves", "w2_leaves", "choice", choices=CHOICE_PARAMS["leaves"]),
        page_link.Setting("learning_rate", "w2_learning_rate", "float", 0.0, lr.high),
        page_link.Setting("sweep", "w2_sweep", "bool"),
    ]


def _settings() -> dict:
    """The form's settings (the link's, else the defaults on a first visit; kept in the link)."""
    link = _link_settings()
    page_link.restore("vs", link)
    for name, value in ar.FIG3_DEFAULTS.items():
        S.setdefault(f"w2_{name}", value)
    for name, value in vs.ENGINE_DEFAULTS.items():
        S.setdefault(f"w2_{name}", value)
    S.setdefault("w2_seed", PAPER_SEED)
    S.setdefault("w2_source", "random")
    has_playground = A.dataset is not None
    with st.form("w2_form", border=True):
        st.radio(
            "Datasets",
            list(vs.SOURCES),
            format_func=lambda s: ui.plain(vs.SOURCES[s]),
            key="w2_source",
            horizontal=True,
            help="Random: Gaussian mixtures drawn as in the paper. Playground: your mixture sampled again with "
            "new seeds; its first cost matrix is yours, the others random.",
        )
        c = st.columns(5)
        c[0].slider("datasets", *vs.LIMITS["n_datasets"], key="w2_n_datasets")
        c[1].slider("cost matrices per dataset", *vs.LIMITS["n_costs"], key="w2_n_costs")
        c[2].slider("boosting rounds", *vs.LIMITS["n_rounds"], key="w2_n_rounds")
        c[3].slider("tree depth (1 = stumps)", *vs.LIMITS["max_depth"], key="w2_max_depth")
        c[4].number_input("seed", min_value=0, max_value=2**31 - 1, step=1, key="w2_seed")
        _engine_widgets()
        ui.run_button("Run", "vs_requested", key="w2_run", form=True)
        st.caption(
            "The paper: 10 datasets × 20 cost matrices, 100 stumps, exp loss, binary leaves. Each trial trains "
            "REBEL with the costs; the two-step model (0-1 costs, same options, rounds and depth: equal "
            "capacity) is trained once per dataset."
        )
    page_link.sync(link)
    source = S["w2_source"]
    if source == "playground" and not has_playground:
        ui.show_message(
            "warning",
            "There is no Playground dataset yet: open the Playground first, or choose random mixtures. "
            "Showing random mixtures.",
        )
        source = "random"
    return vs.run_settings(S, source)


def _run(settings: dict) -> None:
    """Run Fig. 3 dataset by dataset; every partial result is stored, so the Stop button keeps what is done."""
    steps = ar.fig3_steps(
        settings["source"],
        settings["n_datasets"],
        settings["n_costs"],
        settings["n_rounds"],
        settings["max_depth"],
        settings["seed"],
        dataset=A.dataset,
        cost_matrix=A.cost_matrix,
        posterior=settings["posterior"],
        variant=settings["variant"],
        sweep_depths=settings["sweep_depths"],
        app=True,
    )
    ui.run_trials_with_stop(steps, "vs_run", key="w2_stop")


def _metrics(trials, word: str) -> None:
    counts = vs.fig3_counts(trials)
    m = st.columns(4)
    m[0].metric(
        "REBEL cheaper",
        ui.md("{} / {}", counts["wins"], counts["trials"]),
        help=ui.md("Trials where REBEL's {} cost is strictly lower.", word),
    )
    m[1].metric("ties", ui.md("{}", counts["ties"]))
    m[2].metric("two-step cheaper", ui.md("{} / {}", counts["losses"], counts["trials"]))
    m[3].metric(
        ui.md("mean {} cost", word),
        ui.md("{:.4f}", counts["rebel_cost"]),
        ui.md("{:+.4f} vs two-step", counts["rebel_cost"] - counts["two_step_cost"]),
        delta_color="inverse",
    )


def _capacity(run: ar.Fig3Run, part: str) -> None:
    st.markdown("#### Win rate against capacity")
    rates = vs.capacity_rates(run.grid, part)
    left, right = st.columns([3, 2])
    with left:
        fig = winrates.win_rate_capacity_figure(rates, versus.PARTS[part])
        st.plotly_chart(fig, config=style.PNG_CONFIG, key="w2_capacity")
    with right:
        st.markdown(ui.plain(vs.capacity_text(rates, part)))
        more = "" if len(run.settings["depths"]) > 1 else " Tick 'sweep depths 1–3' and Run to add depths."
        st.caption(
            ui.md(
                "Each point: the share of trials REBEL wins when both sides stop after that many rounds (read "
                "from one fit per side).{}",
                more,
            )
        )


def _reliability(run: ar.Fig3Run) -> None:
    st.markdown("#### Are the two-step posteriors calibrated?")
    left, right = st.columns([3, 2])
    with left:
        fig = calibration.reliability_figure(vs.reliability_curves(run), "reliability on the first dataset")
        st.plotly_chart(fig, config=style.PNG_CONFIG, key="w2_reliability")
    with right:
        st.caption(
            "Every predicted probability p(y = k | x) of the 0-1 model on the first dataset's test points, "
            "binned: on the diagonal, events said to happen 30 % of the time happen 30 % of the time. The "
            "minimum-risk rule needs calibrated probabilities; calibrating the cost-blind model on "
            "out-of-fold predictions is the strongest known two-step baseline (pick it as the two-step "
            "posterior above). ECE: the count-weighted gap to the diagonal."
        )


def _datasets(run: ar.Fig3Run, trials) -> None:
    st.markdown("#### The datasets")
    wins = trials.groupby("dataset", sort=False)["win"].agg(["sum", "size"])
    panels = [
        {
            "X": ds.X_train,
            "y_idx": ds.class_index(ds.y_train),
            "n_classes": ds.n_classes,
            "title": f"{ds.name}: REBEL won {int(wins.loc[ds.name, 'sum'])}/{int(wins.loc[ds.name, 'size'])}",
        }
        for ds in run.datasets
    ]
    st.plotly_chart(compare.dataset_thumbnails_figure(panels), config=style.PNG_CONFIG, key="w2_thumbs")
    with st.expander("All trials (every depth, round count and part)"):
        st.dataframe(run.grid, hide_index=True, width="stretch")
        ui.download(st, "Download trials (CSV)", vs.trials_csv(run.grid), "rebel_fig3.csv")


def _results(run: ar.Fig3Run) -> None:
    s = run.settings
    st.caption(
        ui.md(
            "Run shown: {}, {} datasets × {} cost matrices, seed {}. {}",
            vs.SOURCES[s["source"]].lower(),
            s["n_datasets"],
            s["n_costs"],
            s["seed"],
            vs.variant_text(s),
        )
    )
    if run.cancelled:
        ui.show_message(
            "warning",
            f"Stopped early: {run.done} of {run.planned} trials finished. Press Run to start again.",
        )
    if run.done == 0:
        return
    part = st.radio(
        "Costs measured on",
        list(versus.PARTS),
        format_func=lambda p: ui.plain(versus.PARTS[p]),
        key="w2_part",
        horizontal=True,
        help="Test points show what generalises; training points show how well each side fits its objective.",
    )
    trials = run.part_trials(part)
    word = "test" if part == "test" else "training"
    _metrics(trials, word)
    left, right = st.columns([3, 2])
    with left:
        fig = compare.fig3_scatter_figure(trials)
        if part == "train":
            fig.update_layout(title_text=f"training cost per trial ({len(trials)} trials)")
            fig.update_xaxes(title_text="two-step training cost")
            fig.update_yaxes(title_text="REBEL (cost-sensitive) training cost")
        st.plotly_chart(fig, config=style.PNG_CONFIG, key="w2_scatter")
        st.caption(
            "One point per (dataset, cost matrix). Below the dashed diagonal REBEL is cheaper; above it the "
            "two-step method is."
        )
    with right:
        st.markdown("#### What this run shows")
        st.markdown(ui.plain(vs.fig3_text(run, part=part)))
    _capacity(run, part)
    _reliability(run)
    regime_view.show()
    _datasets(run, trials)


ui.run_page(
    "REBEL vs the two-step method",
    ui.md(
        "Does REBEL, trained with the costs, beat the usual recipe (learn posteriors with 0-1 costs, then pick the "
        "cheapest class)? The paper's Fig. 3 says REBEL wins in ~90 % of 200 random trials. Run the comparison "
        "yourself: each trial is a dataset and a random cost matrix; lower test cost wins. Both sides get the "
        "same engine and capacity; change the two-step posterior or the engine options to see what decides the "
        "outcome."
    ),
    _settings,
    _run,
    _results,
    "vs",
)
