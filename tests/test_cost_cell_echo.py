"""The cost editor's cells against a rerun the browser asked for before it received the run that changed a cost
from outside the cell (the page's computed edit, a preset, the log control): that request still carries the cell's
old value, and must not be taken for the user's change of the cell (``components._cell``)."""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

OUTSIDE = 6.5  # the cost stored from outside the cell (truth b, prediction a)


def _editor():
    import numpy as np
    import streamlit as st

    from rebel.ui import components as ui

    ss = st.session_state
    ss.setdefault("C", np.array([[0.0, 1.0], [20.0, 0.0]]))

    def outside():
        C = ss["C"].copy()
        C[1, 0] = 6.5
        ss["C"] = C

    def store(C):
        ss["C"] = np.array(C, dtype=np.float64)

    st.button("outside", on_click=outside)
    ui.cost_editor(ss["C"], ["a", "b"], "w_costs", store)


def _cell(at, i: int, j: int):
    (cell,) = [t for t in at.text_input if t.key.endswith(f"_{i}_{j}")]
    return cell


def test_a_stale_request_after_a_cost_changed_outside_the_cell_keeps_the_cost():
    at = AppTest.from_function(_editor, default_timeout=30).run()
    assert _cell(at, 1, 0).value == "20"
    stale = at._tree.get_widget_states()  # what the browser sends until it has received the next run
    old_key = _cell(at, 1, 0).key
    at.button[0].click().run()  # the cost changed outside the cell
    assert at.session_state["C"][1, 0] == OUTSIDE
    assert _cell(at, 1, 0).value == "6.5"
    at._run(stale)  # a rerun the browser asked for before it received that run: the cell's old "20" in it
    assert not at.exception
    assert at.session_state["C"][1, 0] == OUTSIDE, (
        "a stale cell value undid the cost changed outside the cell"
    )
    assert _cell(at, 1, 0).value == "6.5"
    assert _cell(at, 1, 0).key != old_key  # a new cell (its key ends with its place, as before)


def test_a_cell_committed_after_an_outside_change_is_stored_and_keeps_its_key():
    at = AppTest.from_function(_editor, default_timeout=30).run()
    at.button[0].click().run()
    key = _cell(at, 1, 0).key
    _cell(at, 1, 0).set_value("7").run()
    assert at.session_state["C"][1, 0] == 7.0 and np.array_equal(at.session_state["C"][0], [0.0, 1.0])
    assert _cell(at, 1, 0).key == key and _cell(at, 1, 0).value == "7"  # typed, stored: the same cell
    _cell(at, 1, 0).set_value("x").run()  # refused: said, and the cell shows the stored cost again
    assert at.session_state["C"][1, 0] == 7.0
    assert _cell(at, 1, 0).value == "7"


def test_an_edit_typed_into_a_replaced_cell_before_its_replacement_arrived_is_stored():
    at = AppTest.from_function(_editor, default_timeout=30).run()
    typed = at._tree.get_widget_states()
    old_key = _cell(at, 1, 0).key
    (state,) = [w for w in typed.widgets if w.id.endswith(old_key)]
    state.string_value = "7"  # typed and committed in the browser's old cell while the outside change ran
    at.button[0].click().run()
    at._run(typed)
    assert at.session_state["C"][1, 0] == 7.0, "an edit typed into the old cell was lost"
    assert _cell(at, 1, 0).value == "7"
