"""Theory: the cost decomposition (S.3-S.5), the weak learning condition and the exponential bound of S.6.1 on
the current model, the binary reduction to AdaBoost (S.8) and, with costs, to the two-step method; when
training with the costs pays (a regime of the map with every method, redrawn).

Widgets and layout only; numbers come from ``rebel.ui`` view-models and ``rebel.experiments.studies``,
figures from ``rebel.plots``. Reads the
Playground's shared state (``rebel.ui.state.AppState``, its model cache); page-private keys start with "th_".
"""

import pandas as pd
import streamlit as st

from rebel.params import INT_PARAMS
from rebel.ui import components as ui
from rebel.ui import page_link
from rebel.ui import theory as th
from rebel.ui.config import DEFAULT_PRESET, content_key
from rebel.ui.figures import style, theory
from rebel.ui.state import Problem, get_state, model_key, problem_caption, problem_or_default

S = st.session_state
A = get_state()
NUM = st.column_config.NumberColumn


def _cached(name: str, key: str, compute):
    """Session cache of one page result per setting (the last few kept)."""
    store = S.setdefault(name, {})
    if key not in store:
        while len(store) >= 3:
            store.pop(next(iter(store)))
        store[key] = compute()
    return store[key]


def _table(df: pd.DataFrame, fmt: str = "%.4g") -> None:
    st.dataframe(df, width="stretch", column_config={c: NUM(format=fmt) for c in df.columns})


def _decomposition(problem: Problem) -> None:
    st.header("1 · Decomposing each row of the cost matrix")
    st.markdown(
        "Each row **c** of the cost matrix (the costs of every decision for one true class) is split as "
        "**c = β·1 + c⁺** (S.3): **β** is a constant that no decision can avoid, so it never affects training; "
        "**c⁺ = c − β** (≥ 0) is what the scores pay through e^H, and **c⁻ = max(c) − c** (≥ 0) what they "
        "pay through e^−H — large c⁻ on a class pushes its score up. **c\\*** is the least value of "
        "⟨c⁺, e^H⟩ + ⟨c⁻, e^−H⟩, reached at the optimal scores **H\\* = ½ (ln c⁻ − ln c⁺)** (S.5): "
        "+∞ for the true class when its c⁺ is 0 (with 0-1 costs, a sample's own class should score as high as "
        "possible)."
    )
    tables = th.decomposition_tables(problem.cost_matrix, problem.classes)
    a, b = st.columns([3, 2])
    with a:
        st.caption("Per true class (row): β, the largest cost φ, Σb = φ − β and c*.")
        _table(tables["summary"])
    with b:
        levels = th.loss_levels(problem.cost_matrix, problem.y_train_idx)
        m = st.columns(2)
        m[0].metric(
            "L* (loss floor)",
            ui.md("{:.4g}", levels["L*"]),
            help="Eq. 4: the loss if every training sample had its optimal scores H*.",
        )
        m[1].metric(
            "L• (zero-cost level)",
            ui.md("{:.4g}", levels["L_bullet"]),
            help="S.4/S.5: once the loss is below L•, no training sample is misclassified at a cost. "
            "We weight the single-sample excess by 1/(2N), as the mean loss does.",
        )
        st.caption("Computed with the training labels of the current data.")
    c = st.columns(3)
    for col, (name, title) in zip(
        c, (("c+", "c⁺ = c − β"), ("c-", "c⁻ = max(c) − c"), ("H*", "H* = ½ (ln c⁻ − ln c⁺)"))
    ):
        with col:
            st.caption(ui.md("**{}** (rows = truth, columns = class k)", title))
            _table(tables[name], "%.3g")


def _bound(problem: Problem) -> None:
    st.header("2 · Weak learning condition and the exponential bound")
    st.markdown(
        "At round t the weak learner f_t splits the weighted samples; with the multi-class weights "
        "w⁺ = c⁺ e^H, w⁻ = c⁻ e^−H it yields the vectors **s⁺, s⁻** of Eq. 7. Its **edge** "
        "γ_t = ⟨|s⁺ − s⁻|, 1⟩ / (⟨s⁺ + s⁻, 1⟩ − c\\*) says how much better than nothing it splits (S.6.1, Eq. 10; "
        "the dotted line is the Eq. 11 form). With φ_t = ⟨|s⁺ − s⁻|, 1⟩ / ⟨s⁺ + s⁻, 1⟩ the loss above L\\* "
        "shrinks at least by √(1 − φ_t²) ≤ e^(−φ_t²/2) per round (Eq. 8), so it falls exponentially while "
        "the edges stay away from 0."
    )
    hyper = problem.hyper
    p, depths = INT_PARAMS["n_estimators"], list(range(1, INT_PARAMS["max_depth"].app_high + 1))
    S.setdefault("th_depth", int(hyper["max_depth"]))
    S.setdefault("th_rounds", int(hyper["n_estimators"]))
    link = [
        page_link.Setting("depth", "th_depth", "choice", choices=tuple(depths)),
        page_link.Setting("rounds", "th_rounds", "int", p.low, p.app_high),
    ]
    page_link.restore("theory", link)
    page_link.sync(link)
    w = st.columns([2, 2, 4], vertical_alignment="bottom")
    depth = w[0].selectbox(
        "Weak learner depth",
        depths,
        key="th_depth",
        help="Defaults to the Playground's depth; then the Playground's own model is used.",
    )
    rounds = w[1].number_input("Rounds", p.low, p.app_high, step=10, key="th_rounds")
    params = {**hyper, "max_depth": int(depth), "n_estimators": int(rounds)}
    shared = (
        problem.source == "playground" and model_key(problem.dataset, problem.cost_matrix, params) in A.models
    )
    if shared and params == hyper:
        w[2].caption("Showing the Playground's trained model.")
    else:
        w[2].caption(
            ui.md(
                "Showing a model trained here: {} rounds of depth-{} trees, the current costs.", rounds, depth
            )
        )
    with st.spinner("Training…"):
        model = A.fit(problem.dataset, problem.cost_matrix, params)
    ds = problem.dataset
    diag = _cached(
        "th_diag",
        content_key(problem.key, depth, rounds, id(model)),
        lambda: th.round_diagnostics(model, ds.X_train, ds.y_train),
    )
    S["th_diagnostics"] = diag  # read by tests
    if diag.empty:
        st.info("The model has no rounds yet.")
        return
    m = st.columns(4)
    held = float((diag["ratio"] <= diag["bound"] * (1 + 1e-9)).mean())
    m[0].metric("median edge γ_t", ui.md("{:.3f}", diag["gamma"].median()))
    m[1].metric("smallest edge γ_t", ui.md("{:.3f}", diag["gamma"].min()))
    m[2].metric(
        "rounds within the bound",
        ui.md("{:.0%}", held),
        help="Share of rounds with (L_t − L*)/(L_{t−1} − L*) ≤ √(1 − φ_t²).",
    )
    m[3].metric(
        "loss above L* after T",
        ui.md("{:.3g} of L₀ − L\\*", diag["cum_ratio"].iloc[-1]),
        help=ui.md("The bound ∏ e^(−φ²/2) allows {:.3g}.", diag["cum_bound"].iloc[-1]),
    )
    a, b = st.columns([2, 3])
    a.plotly_chart(theory.edge_figure(diag), config=style.PNG_CONFIG, key="th_edge")
    b.plotly_chart(theory.bound_figure(diag), config=style.PNG_CONFIG, key="th_bound")
    with st.expander("Per-round numbers"):
        _table(diag.set_index("t"))
        st.caption(
            "f_t on the training points is recovered from the staged scores (H_t − H_(t−1) = f_t a_t); "
            "a_star_err compares ½(ln s⁻ − ln s⁺) with the model's a_t (they agree up to the engine's "
            "smoothing). ratio uses the engine's train_loss_."
        )


def _binary(problem: Problem) -> None:
    st.header("3 · Two classes: REBEL is AdaBoost")
    st.markdown(
        "With two classes and 0-1 costs, REBEL's loss becomes (1/N) Σ e^(−y·H₁) and every round gives "
        "a_t,1 = −a_t,2 (S.8): the scores stay opposite, H₁ = −H₂, and H₁ is exactly the score of binary "
        "**AdaBoost** with the same stumps. Below, both are trained on two classes of the current data "
        "(REBEL with stumps; AdaBoost by its own search over the same thresholds, with bias ½ ln(N₊/N₋))."
    )
    classes = list(map(str, problem.classes))
    w = st.columns([2, 2, 3], vertical_alignment="bottom")
    c1 = w[0].selectbox("First class (y = +1)", classes, index=0, key="th_c1")
    c2 = w[1].selectbox("Second class (y = −1)", classes, index=1, key="th_c2")
    n = w[2].slider("Rounds", 1, 100, 30, key="th_bin_rounds")
    if c1 == c2:
        ui.show_message("warning", "Pick two different classes for the binary example.")
        return
    try:
        demo = _cached(
            "th_binary",
            content_key(problem.key, c1, c2, n),
            lambda: th.binary_reduction(problem.dataset, (c1, c2), n, problem.hyper["n_thresholds"]),
        )
    except ValueError as exc:
        ui.show_error(f"Binary example not trained: {exc}")
        return
    S["th_binary_demo"] = demo
    r = demo.rounds
    m = st.columns(3)
    m[0].metric(
        "max |H₁ + H₂|", ui.md("{:.2g}", r["max |H1 + H2|"].max()), help="0 means H₁ = −H₂ on every sample."
    )
    m[1].metric("max |H₁ − h_AdaBoost|", ui.md("{:.2g}", r["max |H1 - h|"].max()))
    m[2].metric(
        "max |L_REBEL − L_AdaBoost|", ui.md("{:.2g}", (r["REBEL loss"] - r["AdaBoost loss"]).abs().max())
    )
    st.plotly_chart(theory.binary_reduction_figure(r, demo.classes), config=style.PNG_CONFIG, key="th_binary")
    with st.expander("Per-round numbers"):
        _table(r.set_index("t"))


def _binary_costs(problem: Problem) -> None:
    st.header("4 · Two classes with costs: REBEL is the two-step method")
    st.markdown(
        "With costs (0, 1; r, 0), REBEL's weights r·e^(−H) and e^H are √r times the 0-1 loss's weights at "
        "H − ½ ln r. The bias a₀ absorbs the shift, so every round picks the same weak learner, "
        "H = H₀₋₁ + ½ ln r, and REBEL predicts the second class exactly where σ(2H₀₋₁) > 1/(1 + r): the "
        "two-step rule on the 0-1 model. So with two classes, REBEL trained with the costs (exp loss) cannot "
        "beat the two-step method on the same engine, nor lose to it; a difference needs three or more classes, "
        "another posterior or the logistic loss. In floating point the engine's smoothing of a* can break a near "
        "tie between two splits differently in the two fits (XOR-like data with stumps), and a few decisions then "
        "differ. Below: the two classes above, REBEL trained with the costs next to the two-step method, on their "
        "test points (proof: docs/REPRODUCTION.md)."
    )
    classes = sorted(map(str, (S.get("th_c1"), S.get("th_c2"))))
    r = st.number_input(
        ui.md("Cost of missing {} (missing {} costs 1)", classes[1], classes[0]),
        0.01,
        100.0,
        5.0,
        key="th_bin_r",
        help="r in the cost matrix (0, 1; r, 0), rows = truth.",
    )
    depth, rounds = int(S.get("th_depth", 1)), int(S.get("th_bin_rounds", 30))
    try:
        eq, table = _cached(
            "th_bincost_cache",
            content_key(problem.key, *classes, r, depth, rounds),
            lambda: th.binary_cost_check(
                problem.dataset, tuple(classes), r, rounds, depth, problem.hyper["n_thresholds"]
            ),
        )
    except ValueError as exc:
        ui.show_error(f"Binary cost example not trained: {exc}")
        return
    S["th_binary_costs"] = eq  # read by tests
    m = st.columns(3)
    m[0].metric("same decision", ui.md("{} of {}", eq.agree, len(eq.rebel)))
    m[1].metric(
        "same weak learners",
        "every round" if eq.same_learners else "not every round",
        help=ui.md("{} rounds of depth-{} trees (the depth of section 2).", rounds, depth),
    )
    m[2].metric(
        "max |H − H₀₋₁ − ½ ln r|",
        ui.md("{:.2g}", eq.shift_error),
        help="0 in exact arithmetic; the engine's smoothing of a* leaves about 1e-8.",
    )
    st.caption("The test points nearest the threshold, where the two rules would part if they could.")
    _table(table, "%.4f")


def _pays() -> None:
    st.header("5 · When does training with the costs pay?")
    st.markdown(
        "On the regime map with every method (docs/REPRODUCTION.md: 11 regimes, 40 held-out trials each), "
        "training with the costs beat the two-step method of its own model class in 3 of 33 comparisons, never "
        "REBEL. The clearest: cost-weighted logistic regression against the logistic two-step method with a "
        "rare costly class (4 classes, one with prior 0.1 whose misses cost 10 times more; difference −0.0383, "
        "95 % CI −0.0613 to −0.0161). On 10 fresh draws of that regime (5 cost matrices each) it did not hold "
        "up: weighting was cheaper on 5 of the 10 draws (difference −0.0141, 95 % CI −0.0378 to +0.0075), "
        "while the two-step method on a boosted posterior was cheaper than both on all 10 (0.4885 against "
        "0.6775). Weighting changes which linear boundaries the model learns; a posterior model that can follow "
        "the data did far more. Below: one draw at a time (draws 0–9 are those ten)."
    )
    i = st.number_input("Draw", 0, 99, 0, key="th_pays_draw", help="A new dataset of the regime per number.")
    means, table = _cached("th_pays_cache", str(i), lambda: th.weighting_check(int(i)))
    S["th_pays"] = means  # read by tests
    _table(table, "%.4f")
    st.caption(ui.md("{}", th.weighting_verdict(means)))


# ---------------------------------------------------------------------------------------------------------- page
st.title("Theory on your problem")
problem, _note = problem_or_default(A, DEFAULT_PRESET)
if _note:
    ui.show_message("warning", _note)
st.caption(ui.plain(problem_caption(problem)))
_decomposition(problem)
try:
    _bound(problem)
except ValueError as exc:
    ui.show_error(f"Per-round analysis failed: {exc} Fix the data or costs on the Playground.")
if len(problem.classes) >= 2:
    _binary(problem)
    _binary_costs(problem)
_pays()
