"""AppTest of the binary equivalence in the app: on the Theory page (section 4, the two-class xor preset) REBEL
trained with costs (0, 1; r, 0) and the two-step method on the 0-1 model decide every test point alike, for each
r tried; on the Real data page, breast cancer gets the two-class note and equal curves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from rebel.data import PRESETS
from rebel.ui.state import STATE_KEY, AppState

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 60  # the first run compiles (or loads) the numba kernels


def _run(at: AppTest) -> AppTest:
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_theory_binary_costs_rebel_equals_the_two_step_on_xor():
    p = PRESETS["xor"]
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[STATE_KEY] = AppState(
        dataset=p.dataset(),
        cost_matrix=p.cost_matrix.copy(),
        hyper={"n_estimators": 20, "max_depth": 2, "n_thresholds": 64},
        preset="xor",
        data_source="mixture",
    )
    at.switch_page("pages/9_Theory.py")
    _run(at)
    seen = []
    for r in (5.0, 0.2, 37.0):
        at.number_input(key="th_bin_r").set_value(r)
        _run(at)
        eq = at.session_state["th_binary_costs"]
        n_test = int(np.isin(np.asarray(p.dataset().y_test).astype(str), eq.classes).sum())
        assert eq.r == r and len(eq.rebel) == n_test
        assert eq.same_learners and eq.ties == 0 and eq.agree == n_test
        assert np.array_equal(eq.rebel, (eq.posterior > 1 / (1 + r)).astype(int))
        seen.append(eq.rebel.sum())
        metric = next(m for m in at.metric if m.label == "same decision")
        assert metric.value == f"{n_test} of {n_test}"
    assert len(set(seen)) > 1  # r moves the decisions (of both rules alike)
    assert not at.error


def test_real_data_page_on_breast_cancer_says_two_classes_and_the_curves_coincide():
    """Binary breast cancer: the page says REBEL and the REBEL two-step decide alike, and their test-cost
    curves are equal round by round (same decisions, so the same mean cost)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in {"w6_rounds": 10, "w6_methods": ["rebel"], "w6_cost": "random"}.items():
        at.session_state[key] = value
    at.switch_page("pages/6_Real_data.py")
    _run(at)
    at.selectbox(key="w6_dataset").set_value("breast_cancer")
    _run(at)
    assert any("Two classes" in c.value for c in at.caption)
    at.button(key="w6_train").click()
    _run(at)
    curves = at.session_state["real_run"].curves
    per_method = [g.sort_values("t")["test_cost"].to_numpy() for _, g in curves.groupby("method", sort=False)]
    assert len(per_method) == 2 and np.array_equal(per_method[0], per_method[1])
