"""REBEL Explorer: page config, kernel warm-up and navigation. Run with ``make run``.

Cross-page state lives in plain ``st.session_state`` keys (set by the Playground, read by later pages):
``"dataset"`` (rebel.datasets.Dataset), ``"spec"`` (DatasetSpec of the designed mixture), ``"cost_matrix"``
(K x K ndarray, sorted class order), ``"hyper"`` (dict), ``"model"`` and ``"two_step_model"``
(fitted RebelClassifier), ``"trained"`` (rebel.playground.TrainedPair). Class colours: ``rebel.palette``.
"""

import streamlit as st

st.set_page_config(page_title="REBEL Explorer", page_icon="⚖️", layout="wide")


@st.cache_resource(show_spinner="Compiling the boosting kernels (first start only)…")
def _warmup() -> bool:
    import rebel  # imported after st.navigation: importing numba takes seconds (see below)

    rebel.warmup()
    return True


PAGES = [
    st.Page("pages/1_Playground.py", title="Playground", icon=":material/tune:", default=True),
    st.Page("pages/2_REBEL_vs_two_step.py", title="REBEL vs two-step", icon="⚖️"),
    st.Page("pages/3_Risk_paths.py", title="Risk-score paths", icon="〰️"),
    st.Page("pages/4_Cost_gallery.py", title="Cost gallery", icon="🖼️"),
    st.Page("pages/5_Trees_and_depth.py", title="Trees and depth", icon="🌳"),
    st.Page("pages/6_Real_data.py", title="Real data", icon="🔢"),
    st.Page("pages/8_Cost_sweep.py", title="Cost sweep", icon="📈"),
    st.Page("pages/9_Theory.py", title="Theory", icon="📐"),
    # Later pages register here, e.g. st.Page("pages/2_....py", title="...").
]

# Navigation first: on a server's first run Streamlit shows its automatic pages/ list (with an extra "app"
# entry) until st.navigation runs, so nothing slow (numba import, kernel compilation) may come before it.
page = st.navigation(PAGES)
_warmup()
page.run()
