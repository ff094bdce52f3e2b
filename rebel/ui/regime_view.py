"""The REBEL-vs-two-step page's regime maps (streamlit): the map with every method (which method family is
cheapest in each regime) and, below it, REBEL alone against the calibrated two-step method. Data, captions and
validation come from ``rebel.ui.vs_two_step``; figures from ``rebel.ui.figures``."""

from __future__ import annotations

import streamlit as st

from rebel.ui import components as ui
from rebel.ui import vs_two_step as vs
from rebel.ui.figures import method_map, style, winrates


def show() -> None:
    """Draw the stored regime maps (docs/regime_map.json) with their captions; a note when absent or malformed."""
    st.markdown("#### Which method wins where? REBEL, cost-weighted training and the two-step methods")
    try:
        record = vs.load_regime_map()
    except ValueError as exc:
        ui.show_message("warning", f"The stored regime map could not be read: {exc}")
        return
    if record is None:
        st.caption("The stored regime map (docs/regime_map.json) is not part of this installation.")
        return
    try:
        methods = vs.method_map(record)
    except ValueError as exc:
        ui.show_message("warning", f"The stored method map could not be read: {exc}")
        methods = None
    if methods is not None:
        fig = method_map.method_map_figure(methods)
        st.plotly_chart(fig, config=style.PNG_CONFIG, key="w2_methods")
        st.caption(ui.md("{}", vs.method_map_caption(methods)))
        st.markdown("##### REBEL alone against the calibrated two-step method, one setting for every regime")
    fig = winrates.regime_map_figure(record["rows"], "calibrated two-step method")
    st.plotly_chart(fig, config=style.PNG_CONFIG, key="w2_regimes")
    st.caption(ui.md("{}", vs.regime_caption(record)))
