"""REBEL Explorer: page config, kernel warm-up and navigation. Run with ``make run``.

Cross-page state is one typed object, ``rebel.ui.state.AppState`` (dataset, spec, cost matrix, hyper-parameters
and one model cache), kept under ``st.session_state[rebel.ui.state.STATE_KEY]``; the app layer is ``rebel.ui``.
Class colours: ``rebel.ui.figures.palette``.
"""

import streamlit as st

st.set_page_config(page_title="REBEL Explorer", page_icon="⚖️", layout="wide")
# No empty band above the content: a slim header (it keeps the sidebar and menu buttons) and little top padding.
st.html(
    "<style>header[data-testid='stHeader'] {height: 2.25rem; min-height: 2.25rem; background: transparent;}"
    "[data-testid='stMainBlockContainer'] {padding-top: 2.4rem; padding-bottom: 1rem;}</style>"
)


# What the first start shows while the paper's kernels compile (measured: python -m benchmarks.bench_coldstart).
COMPILING = "Compiling the boosting kernels (first start only, about 10 s)…"


@st.cache_resource(max_entries=1, show_spinner=COMPILING)
def _warmup() -> bool:
    import rebel  # imported after st.navigation: importing numba takes seconds (see below)
    from rebel.warmup import FIRST_PAGE

    # The kernels the first page runs (the others compile after it, under make run). Under make run
    # (rebel.ui.launch) this waits for the warm-up the server started at launch; cached kernels load on first use.
    rebel.warmup(groups=FIRST_PAGE, load=False)
    return True


PAGES = [
    st.Page("pages/1_Playground.py", title="Playground", icon=":material/tune:", default=True),
    st.Page("pages/0_Lessons.py", title="Lessons", icon=":material/school:"),
    st.Page("pages/2_REBEL_vs_two_step.py", title="REBEL vs two-step", icon=":material/balance:"),
    st.Page("pages/3_Risk_paths.py", title="Risk-score paths", icon=":material/timeline:"),
    st.Page("pages/4_Cost_gallery.py", title="Cost gallery", icon=":material/grid_view:"),
    st.Page("pages/5_Trees_and_depth.py", title="Trees and depth", icon=":material/account_tree:"),
    st.Page("pages/6_Real_data.py", title="Real data", icon=":material/pin:"),
    st.Page("pages/7_Example_costs.py", title="Costs per example", icon=":material/scatter_plot:"),
    st.Page("pages/8_Cost_sweep.py", title="Cost sweep", icon=":material/show_chart:"),
    st.Page("pages/9_Theory.py", title="Theory", icon=":material/functions:"),
]

# Navigation first: nothing slow (numba import, kernel compilation) may come before the sidebar's page list.
# A pages/ folder beside app.py puts a server's first session in Streamlit's automatic multi-page mode, whose
# list (with an extra "app" entry) would show until st.navigation replaces it, under a plain `streamlit run`.
# client.showSidebarNavigation = false (.streamlit/config.toml and make run's flags) hides every automatic
# list; the app draws its own page links (tests/e2e/test_first_visit_nav.py starts make run's and a plain one).
page = st.navigation(PAGES, position="hidden")
with st.sidebar:
    for _page in PAGES:
        st.page_link(_page)
_warmup()

from rebel.ui.guard import (  # after navigation (it imports numba)
    freeze_loaded_heap,
    run_page,
    start_memory_release,
)
from rebel.ui.launch import FIRST_PAGE_SERVED


@st.cache_resource(max_entries=1, show_spinner=False)
def _memory_release():
    # the Playground's modules (plotly, the views) imported now, then the loaded heap frozen: later full
    # garbage collections walk only what sessions allocate (``freeze_loaded_heap``)
    import rebel.ui.playground.details
    import rebel.ui.playground.widgets  # noqa: F401

    freeze_loaded_heap()
    return start_memory_release()  # one thread per server: closed sessions' memory goes back to the system


_memory_release()
run_page(page)  # the page boundary: an unexpected error is logged and shown as a message, the state kept
FIRST_PAGE_SERVED.set()  # under make run, the launcher then compiles the engine options' kernels
