"""Cost sweep (beyond the paper): one cost entry over a log range; recall, precision and test cost of REBEL and
the two-step method at every value.

Widgets and layout only; training and metrics come from ``rebel.ui`` view-models and ``rebel.experiments.studies``,
figures from ``rebel.plots``.
Reads the Playground's shared state (``rebel.ui.state.AppState``); page-private keys start
with "sw_".
"""

import streamlit as st

from rebel.data import PRESETS
from rebel.experiments import studies as sw
from rebel.ui import components as ui
from rebel.ui import page_link
from rebel.ui.config import DEFAULT_PRESET, content_key
from rebel.ui.figures import style, sweep
from rebel.ui.state import Problem, get_state, problem_caption

S = st.session_state
A = get_state()


def _stop(key: str) -> None:
    S["sw_stopped"] = key


def _run_again() -> None:
    S.pop("sw_stopped", None)


def _sweep(problem: Problem, entry: tuple, values, key: str) -> sw.SweepResult | None:
    """The sweep for these settings: cached for this session, else computed with a progress bar and a Stop
    button (a click interrupts the run; the page then offers to start it again)."""
    store = S.setdefault("sw_cache", {})
    if key in store:
        return store[key]
    if S.get("sw_stopped") == key:
        st.info("Sweep stopped. Change a setting or press **Run the sweep** to compute it.")
        st.button("Run the sweep", on_click=ui.guarded_callback(_run_again), key="sw_run", type="primary")
        return None
    a, b = st.columns([6, 1], vertical_alignment="center")
    bar = a.progress(0.0, text="Starting the sweep…")
    stop = b.empty()
    stop.button(
        "Stop", on_click=ui.guarded_callback(_stop), args=(key,), key="sw_stop", icon=":material/stop:"
    )
    result = sw.run_sweep(
        problem.dataset,
        problem.cost_matrix,
        problem.hyper,
        entry,
        values,
        progress=lambda i, n, label: bar.progress(i / n, text=ui.md("Training: {} ({}/{})", label, i, n)),
        app=True,
    )
    bar.empty()
    stop.empty()
    while len(store) >= 4:
        store.pop(next(iter(store)))
    store[key] = result
    return result


def _default_entry(problem: Problem, classes: list) -> tuple:
    """The preset's costliest mistake (truth, predicted), else the last class taken for the first."""
    mistakes = getattr(PRESETS.get(problem.preset), "costly_mistakes", ()) if problem.preset else ()
    if mistakes:
        return str(mistakes[0][0]), str(mistakes[0][1])
    return classes[-1], classes[0]


# ---------------------------------------------------------------------------------------------------------- page
problem = ui.problem_page_header(
    "Cost sweep",
    ui.md(
        "Pick one mistake of the cost matrix and set its cost to a range of values (by default 0.1 to 100, "
        "log-spaced; the other entries stay as they are). REBEL is retrained at every value; the **two-step** method keeps one cost-blind "
        "model and only changes its decision rule. Watch how recall and precision trade off and which method "
        "pays less on the test set."
    ),
    A,
    DEFAULT_PRESET,
)
st.caption(ui.plain(problem_caption(problem) + ui.md(" Depth-{} trees.", problem.hyper["max_depth"])))
ds = problem.dataset
classes = [str(k) for k in ds.classes]
truth0, pred0 = _default_entry(problem, classes)
if S.get("sw_truth") not in classes:
    S["sw_truth"] = truth0
if S.get("sw_pred") not in classes:
    S["sw_pred"] = pred0

for key, value in {"sw_lo": 0.1, "sw_hi": 100.0, "sw_n": 13}.items():
    S.setdefault(key, value)
LINK = [
    page_link.Setting("truth", "sw_truth", "choice", choices=tuple(classes)),
    page_link.Setting("pred", "sw_pred", "choice", choices=tuple(classes)),
    page_link.Setting("lo", "sw_lo", "float", 1e-4, 1e4),
    page_link.Setting("hi", "sw_hi", "float", 1e-4, 1e4),
    page_link.Setting("n", "sw_n", "int", 3, 25),
]
page_link.restore("sweep", LINK)
page_link.sync(LINK)
w = st.columns([2, 2, 1.3, 1.3, 2], vertical_alignment="bottom")
truth = w[0].selectbox("Truth (row)", classes, key="sw_truth")
pred = w[1].selectbox("Predicted (column)", classes, key="sw_pred")
lo = w[2].number_input("from", min_value=1e-4, max_value=1e4, format="%.4g", key="sw_lo")
hi = w[3].number_input("to", min_value=1e-4, max_value=1e4, format="%.4g", key="sw_hi")
n = w[4].slider("values (log-spaced)", 3, 25, key="sw_n")
i, j = classes.index(truth), classes.index(pred)
if i == j:
    ui.show_message(
        "warning",
        "A correct decision costs 0 by definition: pick a predicted class different from the truth.",
    )
    st.stop()
try:
    values = sw.sweep_values(lo, hi, n)
except ValueError as exc:
    ui.show_error(f"Sweep range: {exc}")
    st.stop()
label = f"C[{truth} → {pred}]"
current = float(problem.cost_matrix[i, j])
st.caption(
    ui.md(
        "Sweeping the cost of predicting **{}** when the truth is **{}** (currently {:g}); every other entry "
        "keeps its value.",
        pred,
        truth,
        current,
    )
)
try:
    result = _sweep(problem, (i, j), values, content_key(problem.key, (i, j), values))
except ValueError as exc:
    ui.show_error(f"Sweep failed: {exc}")
    st.stop()
if result is None:
    st.stop()
S["sw_result"] = result  # read by tests
if S.get("sw_show_for", (truth, pred)) != (truth, pred) or "sw_show" not in S:  # another entry: its classes
    S["sw_show"] = [truth, pred]
S["sw_show_for"] = (truth, pred)
show = st.multiselect("Classes in the recall/precision plot", classes, key="sw_show")
current_line = current if current > 0 else None
st.plotly_chart(
    sweep.sweep_cost_figure(result.costs, label, current_line), config=style.PNG_CONFIG, key="sw_cost_fig"
)
st.plotly_chart(
    sweep.sweep_metrics_figure(
        result.metrics, ds.classes, [classes.index(s) for s in show], label, current_line
    ),
    config=style.PNG_CONFIG,
    key="sw_metrics_fig",
)
st.caption(
    "Solid lines: REBEL (retrained for each value); dashed: two-step (one 0-1 model, decisions by the "
    "swept matrix); dotted vertical line: the entry's current value. Test cost is the mean cost of the test points under the swept matrix. Precision is "
    "missing where a method never predicts the class."
)
with st.expander("Numbers"):
    table = result.costs.pivot(index="value", columns="method", values="test_cost")
    st.dataframe(table.rename(columns=lambda m: f"{m} test cost"), width="stretch")
