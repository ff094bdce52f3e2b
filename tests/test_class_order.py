"""The class order a user sets on the Playground (``rebel.ui.class_order``): moving a class, following a rename, and
keeping the order in session files, ``?cfg=`` links and short links (old ones load as before); on the page, a
move-up click reorders the cost editor's rows and columns with each cost kept on its pair of classes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import class_order as co
from rebel.ui import config as cf
from rebel.ui import short_link
from rebel.ui.state import STATE_KEY

APP = str(Path(__file__).resolve().parent.parent / "app.py")
FIG7 = ("A", "B", "C", "D")


def test_moving_a_class_and_the_sorted_order_as_none():
    assert co.moved(None, FIG7, "C", -1) == ("A", "C", "B", "D")
    assert co.moved(("A", "C", "B", "D"), FIG7, "C", 1) is None  # back to sorted
    assert co.moved(None, FIG7, "A", -1) is None  # stops at the ends
    assert co.moved(None, FIG7, "A", 9) == ("B", "C", "D", "A")
    with pytest.raises(ValueError, match="'E' is not one of the classes"):
        co.moved(None, FIG7, "E", 1)


def test_positions_and_the_matrix_shown_keep_each_cost_on_its_pair():
    order = ("D", "A", "C", "B")
    perm = co.positions(order, FIG7)
    assert [FIG7[p] for p in perm] == list(order)
    C = np.arange(16.0).reshape(4, 4)
    shown = co.shown_matrix(C, order, FIG7)
    for a, x in enumerate(order):
        for b, y in enumerate(order):
            assert shown[a, b] == C[FIG7.index(x), FIG7.index(y)]
    assert (co.ranks(order, FIG7)[perm] == np.arange(4)).all()


@pytest.mark.parametrize(
    ("order", "problem"),
    [
        (("A", "B", "C"), "once each"),
        (("A", "B", "C", "C"), "once each"),
        (("A", "B", "C", "E"), "once each"),
    ],
)
def test_a_bad_order_is_refused_with_the_classes_named(order, problem):
    with pytest.raises(ValueError, match=problem):
        co.checked_order(order, FIG7)


def test_a_renamed_class_keeps_its_place_and_new_classes_go_last():
    assert co.followed(("D", "A", "C", "B"), FIG7, ("A", "B", "Cat", "D")) == ("D", "A", "Cat", "B")
    assert co.followed(None, FIG7, ("A", "B", "D", "Zed")) == ("A", "B", "Zed", "D")  # C renamed Zed
    assert co.followed(None, FIG7, ("A", "B", "C", "D", "E")) is None  # added: sorted stays sorted
    assert co.followed(("B", "A", "C", "D"), FIG7, ("A", "B", "C")) == ("B", "A", "C")  # removed
    assert co.renamed(FIG7, ("A", "B", "Cat", "D")) == {"C": "Cat"}
    assert co.renamed(FIG7, ("A", "B")) == {}


def _ordered_fig7() -> cf.Config:
    base = cf.preset_config("fig7")
    return cf.Config(base.spec, base.cost_matrix, base.hyper, base.preset, base.engine, ("D", "C", "A", "B"))


def test_the_order_survives_session_files_and_both_kinds_of_link():
    cfg = _ordered_fig7()
    assert json.loads(cf.session_json(cfg))["order"] == ["D", "C", "A", "B"]
    assert cf.parse_session_json(cf.session_json(cfg)).order == ("D", "C", "A", "B")
    assert cf.decode_query(cf.encode_query(cfg)).order == ("D", "C", "A", "B")
    params = short_link.link_params(cfg)
    assert params["p"] == "fig7" and "d" in params  # the preset and what differs: the order
    back, _ = short_link.config_from_params(params)
    assert back.order == ("D", "C", "A", "B")
    np.testing.assert_array_equal(back.cost_matrix, cfg.cost_matrix)  # costs stay in the sorted order


def test_the_sorted_order_writes_nothing_and_old_documents_load():
    cfg = cf.preset_config("fig7")
    doc = cfg.to_dict()
    assert "order" not in doc  # documents without an order are as they were
    assert short_link.link_params(cfg) == {"p": "fig7"}
    assert cf.Config.from_dict(doc).order is None
    explicit = dict(doc, order=list(FIG7))  # the sorted order written out reads as no order
    assert cf.Config.from_dict(explicit).order is None


def test_a_link_with_a_bad_order_is_refused_with_a_message():
    doc = dict(cf.preset_config("fig7").to_dict(), order=["A", "B", "C", "Q"])
    with pytest.raises(ValueError, match="once each"):
        cf.decode_query(cf.pack_query(doc))
    with pytest.raises(ValueError):
        cf.Config.from_dict(dict(doc, order="ABCD"))


def _cells(at: AppTest, K: int) -> np.ndarray:
    """The cost editor's cells as shown, (K, K) numbers (each cell's key ends with its place "_<i>_<j>")."""
    shown = np.zeros((K, K))
    for w in at.text_input:
        if w.key and w.key.startswith("w_costs_"):
            i, j = map(int, w.key.rsplit("_", 2)[1:])
            shown[i, j] = float(w.value)
    return shown


def _head(at: AppTest, K: int) -> list:
    """The cost editor's column names, as shown (the captions after "truth ↓ pred. →")."""
    captions = [c.value for c in at.caption]
    start = next(i for i, c in enumerate(captions) if "truth" in c)
    return [c.replace("\\", "") for c in captions[start + 1 : start + 1 + K]]


def _legend(at: AppTest) -> list:
    """The regions replay's class entries, in legend order: (name, marker colour)."""
    chart = next(
        json.loads(c.proto.spec) for c in at.get("plotly_chart") if json.loads(c.proto.spec).get("frames")
    )
    return [(d["name"], d["marker"]["color"]) for d in chart["data"] if d.get("name") in FIG7]


def test_move_up_reorders_the_cost_matrix_rows_and_columns_with_their_costs():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["p"] = "fig7"
    at.run()
    assert not at.exception
    C = at.session_state[STATE_KEY].cost_matrix.copy()
    np.testing.assert_array_equal(_cells(at, 4), C)
    assert _head(at, 4) == list(FIG7)
    colours = [colour for _, colour in _legend(at)]
    at.selectbox(key="w_order_class").set_value("C")
    at.button(key="w_order_up").click().run()
    assert not at.exception
    assert at.session_state[STATE_KEY].class_order == ("A", "C", "B", "D")
    assert _head(at, 4) == ["A", "C", "B", "D"]
    perm = [0, 2, 1, 3]
    np.testing.assert_array_equal(_cells(at, 4), C[np.ix_(perm, perm)])  # C[i][j] stays on (class i, class j)
    np.testing.assert_array_equal(at.session_state[STATE_KEY].cost_matrix, C)  # stored as before
    assert _legend(at) == list(zip(["A", "C", "B", "D"], colours, strict=True))  # legend and colours follow
    link = at.query_params
    back, _ = short_link.config_from_params({k: link.get(k) for k in short_link.LINK_KEYS})
    assert back.order == ("A", "C", "B", "D")  # the address bar's link keeps it
    # a cost typed in the reordered grid lands on its pair of classes: row C, column B
    next(w for w in at.text_input if w.key and w.key.endswith("_1_2")).input("4").run()
    assert at.session_state[STATE_KEY].cost_matrix[2, 1] == 4.0
    assert _cells(at, 4)[1, 2] == 4.0


def test_a_class_renamed_in_the_clusters_table_keeps_its_place_and_its_costs():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["p"] = "fig7"
    at.run()
    C = at.session_state[STATE_KEY].cost_matrix.copy()
    at.session_state["w_details"] = "Clusters"
    at.run()
    edits = {"edited_rows": {4: {"class": "Zed"}}, "added_rows": [], "deleted_rows": []}  # C's only cluster
    at.session_state[f"w_mixture_{at.session_state['mixture_editor_v']}"] = edits
    at.run()
    assert not at.exception
    state = at.session_state[STATE_KEY]
    assert state.classes == ("A", "B", "D", "Zed") and state.class_order == ("A", "B", "Zed", "D")
    assert _head(at, 4) == ["A", "B", "Zed", "D"]
    np.testing.assert_array_equal(_cells(at, 4), C)  # Zed shown where C was, with C's costs


def test_a_clusters_table_edit_is_applied_as_streamlit_applies_it():
    """``config.edited_table``: the clusters table's edits (cells, then deleted rows, then added rows) as the
    Playground's callback applies them before a run."""
    from rebel.data import PRESETS, validate_mixture

    table = PRESETS["fig7"].spec.mixture
    edits = {
        "edited_rows": {4: {"class": "Cat"}, 0: {"mean_x": 1.5}},
        "deleted_rows": [1],
        "added_rows": [{"class": "E", "mean_x": 0.0, "mean_y": 0.0, "std_x": 1.0, "std_y": 1.0}],
    }
    out = validate_mixture(cf.edited_table(table, edits))
    assert out["class"].tolist() == ["A", "B", "B", "Cat", "D", "D", "E"]
    assert out.loc[0, "mean_x"] == 1.5 and out.loc[6, "weight"] == 1.0  # defaults fill the added row
    assert cf.edited_table(table, None).equals(table.reset_index(drop=True).astype(object))
