"""Costs known per example: cost-sensitive training against two-step methods that average, regress or weight by
the per-example costs.

Widgets and layout only: runs come from ``rebel.experiments.example_costs``, texts and rates from
``rebel.ui.example_costs``, figures from ``rebel.ui.figures``. Own state: the last run in "ec_run" (kept when a
run is stopped); widget keys start with "w7_".
"""

import streamlit as st

from rebel.data import PAPER_SEED
from rebel.experiments import example_costs as ec
from rebel.params import INT_PARAMS
from rebel.ui import components as ui
from rebel.ui import example_costs as view
from rebel.ui import page_link
from rebel.ui.figures import style, winrates
from rebel.ui.figures.regions import regions_figure, weight_sizes
from rebel.ui.variants import ENGINES, engine_options

S = st.session_state


def _link_settings() -> list:
    """The form's settings in the page's link (``rebel.ui.page_link``), with the limits the widgets use."""
    return [
        page_link.Setting("n_datasets", "w7_n_datasets", "int", *ec.LIMITS["n_datasets"][:2]),
        page_link.Setting("n_costs", "w7_n_costs", "int", *ec.LIMITS["n_costs"][:2]),
        page_link.Setting("n_rounds", "w7_n_rounds", "int", 1, INT_PARAMS["n_estimators"].app_high),
        page_link.Setting("max_depth", "w7_max_depth", "int", 1, INT_PARAMS["max_depth"].app_high),
        page_link.Setting("lambdas", "w7_lambdas", "choices", choices=tuple(ec.LAMBDA_CHOICES)),
        page_link.Setting("engine", "w7_engine", "choice", choices=tuple(ENGINES)),
        page_link.Setting("seed", "w7_seed", "int", 0, 2**31 - 1),
    ]


def _settings() -> dict:
    link = _link_settings()
    page_link.restore("ec", link)
    for name, value in ec.DEFAULTS.items():
        S.setdefault(f"w7_{name}", value)
    S.setdefault("w7_lambdas", list(ec.LAMBDAS))
    S.setdefault("w7_engine", "paper")
    S.setdefault("w7_seed", PAPER_SEED)
    with st.form("w7_form", border=True):
        c = st.columns([2, 2, 2, 2, 4])
        c[0].slider("datasets", *ec.LIMITS["n_datasets"], key="w7_n_datasets")
        c[1].slider(
            "cost matrices", *ec.LIMITS["n_costs"], key="w7_n_costs", help="Random cost matrices per dataset."
        )
        c[2].slider("boosting rounds", 1, INT_PARAMS["n_estimators"].app_high, key="w7_n_rounds")
        c[3].slider("tree depth", 1, INT_PARAMS["max_depth"].app_high, key="w7_max_depth")
        c[4].multiselect(
            "λ values (how much a point's costs vary along x₁)",
            list(ec.LAMBDA_CHOICES),
            key="w7_lambdas",
            format_func=lambda v: f"{v:g}",
        )
        c = st.columns([3, 2, 7])
        c[0].selectbox(
            "Engine (both sides)",
            list(ENGINES),
            format_func=ENGINES.get,
            key="w7_engine",
            help="Both REBEL and the two-step model use it (equal capacity).",
        )
        c[1].number_input("seed", min_value=0, max_value=2**31 - 1, step=1, key="w7_seed")
        with c[2]:
            st.write("")
            ui.run_button("Run", "ec_requested", form=True)
    page_link.sync(link)
    return {
        **{name: int(S[f"w7_{name}"]) for name in ec.DEFAULTS},
        "lambdas": list(S["w7_lambdas"]),
        "seed": int(S["w7_seed"]),
        "variant": engine_options(S["w7_engine"]),
    }


def _run(settings: dict) -> None:
    ui.run_trials_with_stop(ec.example_cost_steps(**settings, app=True), "ec_run", key="w7_stop")


def _regions(run: ec.ExampleCostRun) -> None:
    st.markdown("#### What the two models decide")
    lam = st.select_slider(
        "λ of the picture",
        run.settings["lambdas"],
        value=max(run.settings["lambdas"]),
        key="w7_picture_lambda",
        format_func=lambda v: ui.plain(f"{v:g}"),
    )
    split = run.splits[0]
    xs, ys = view.plot_grid(split.X_train)
    r = ec.example_cost_regions(run, lam, xs, ys)
    classes = [str(c) for c in split.classes]
    sizes = weight_sizes(r["train_cost"])
    left, right = st.columns(2)
    for col, key, title in (
        (left, "rebel", "REBEL trained on each point's own costs"),
        (right, "two_step", "two-step: posterior + class-averaged costs"),
    ):
        train = (split.X_train, split.y_train, r[f"{key}_train"])
        fig = regions_figure(xs, ys, r[key], classes, train=train, train_sizes=sizes, title=title, height=460)
        col.plotly_chart(fig, config=style.PNG_CONFIG, key=f"w7_regions_{key}")
    t = run.trials
    row = t[(t["lambda"] == lam) & (t["dataset"] == t["dataset"].iloc[0]) & (t["cost_id"] == 0)].iloc[0]
    st.caption(
        ui.md(
            "First dataset and cost matrix of the run, λ = {:g}: mean test cost REBEL {:.3f}, two-step {:.3f}. A "
            "point's size is its mean mistake cost c_n (what REBEL sees); the two-step method only sees each "
            "class's average. Crosses mark training points each model gets wrong: REBEL gives up cheap (small) "
            "points to get the expensive (large) ones right.",
            lam,
            row["rebel_cost"],
            row["two_step_cost"],
        )
    )


def _results(run: ec.ExampleCostRun) -> None:
    s = run.settings
    st.caption(
        ui.md(
            "Run shown: {} random mixtures × {} cost matrices × {} λ values, {} rounds of depth-{} trees, engine: "
            "{}, seed {}.",
            s["n_datasets"],
            s["n_costs"],
            len(s["lambdas"]),
            s["n_rounds"],
            s["max_depth"],
            ENGINES["vector" if s["variant"] else "paper"],
            s["seed"],
        )
    )
    if run.cancelled:
        ui.show_message("warning", f"Stopped early: {run.done} of {run.planned} trials finished.")
    if run.done == 0:
        return
    rates = view.lambda_rates(run.trials)
    left, right = st.columns([3, 2])
    with left:
        st.plotly_chart(winrates.win_rate_lambda_figure(rates), config=style.PNG_CONFIG, key="w7_lambda")
    with right:
        st.markdown("#### What this run shows")
        st.markdown(ui.plain(view.example_text(run)))
    _regions(run)
    with st.expander("All trials"):
        st.dataframe(run.trials, hide_index=True, width="stretch")


ui.run_page(
    "Costs known per example",
    ui.md(
        "On the REBEL-vs-two-step page every point of a class has the same costs, and the two-step method usually "
        "wins. Here a mistake on point n costs **c_n = C[y_n] · exp(λ · s_y · x₁ / 5)**: the class matrix scaled "
        "along the first feature, up or down with a random sign s_y per class. The costs are known for the "
        "training points only. REBEL trains on each point's own costs. Three two-step methods: the class-averaged "
        "matrix in the minimum-risk rule; the cost rows regressed on x (30 nearest training points of each class); "
        "and training weighted by each point's costs. Test points are scored with their own costs, which no model "
        "sees. Lower mean test cost wins."
    ),
    _settings,
    _run,
    _results,
    "ec",
)
