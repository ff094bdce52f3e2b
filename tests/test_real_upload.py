"""The Real data page's own CSV file: the table reader (``rebel.ui.user_table``) and the page in AppTest.

A table built from scikit-learn's wine data with extra columns (an id, a text column, missing cells, the label in
the middle and named "class") is uploaded, the costs are edited by class name and the page trains REBEL and the
calibrated two-step; bad files give a message naming the column, line or value and the fix.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from streamlit.testing.v1 import AppTest

from rebel import budget
from rebel.experiments import real_runs as ar
from rebel.ui import user_table as ut
from tests.apptest_pages import APP, open_page

REAL = "pages/6_Real_data.py"
TIMEOUT = 240  # the first fit on a table with missing values compiles (or loads) its kernels
NAMES = {0: "barolo", 1: "grignolino", 2: "barbera"}


def wine_table() -> pd.DataFrame:
    """Wine with an id, a text column (region: two values), 12 missing alcohol cells and the label "class" in
    the middle."""
    w = load_wine(as_frame=True).frame
    df = w[["alcohol", "malic_acid", "flavanoids", "color_intensity", "proline"]].copy()
    df.insert(0, "id", np.arange(len(df)))
    df.loc[np.random.default_rng(0).choice(len(df), 12, replace=False), "alcohol"] = np.nan
    df.insert(3, "class", w["target"].map(NAMES))
    df["region"] = np.where(w["hue"] > 0.9, "hills", "plain")
    return df


def wine_csv() -> bytes:
    return wine_table().to_csv(index=False).encode()


def _plain_text(elements) -> str:
    """Messages as the user reads them (the app escapes punctuation and breaks links with a word joiner)."""
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in elements)).replace("\u2060", "")


def _errors(at) -> str:
    return _plain_text(at.error)


# ------------------------------------------------------------------------------------------------- the reader
def test_reader_takes_missing_cells_text_columns_and_a_named_label():
    df = ut.read_user_table(wine_csv())
    assert ut.default_label(df.columns) == "class"
    data = ut.user_dataset(df, "class", "wine")
    ds = data.dataset
    assert ds.classes == ("barbera", "barolo", "grignolino")
    assert ds.feature_names == (
        "id",
        "alcohol",
        "malic_acid",
        "flavanoids",
        "color_intensity",
        "proline",
        "region",
    )
    assert data.categorical.tolist() == [False] * 6 + [True]
    assert data.categories == {"region": ["hills", "plain"]}
    assert data.n_missing == 12 and data.is_table
    # engine columns: 5 plain + a NaN pair for alcohol + one indicator per region
    assert data.n_columns == 5 + 2 + 2
    assert np.isnan(np.concatenate([ds.X_train[:, 1], ds.X_test[:, 1]])).sum() == 12
    assert len(ds.y_test) == 45 and len(ds.y_train) == 133  # scikit-learn rounds the test share up


def test_default_label_is_the_last_column_without_a_label_name():
    assert ut.default_label(["a", "b", "kind"]) == "kind"
    assert ut.default_label(["Y", "a", "b"]) == "Y"
    assert ut.default_label(["target", "label", "z"]) == "label"


@pytest.mark.parametrize(
    ("text", "label", "fragments"),
    [
        ("a,b,label\n1,2,x\n3,4,x\n5,6,x\n", "label", ["single class 'x'", "at least 2 classes"]),
        ("label,split\nx,train\ny,train\nx,test\n", "label", ["no feature column besides the label"]),
        ("a,label\n1,x\n2,y\n3,x\n4,y\n", "a", ["class '1' of the label column 'a' has only 1 row"]),
        (
            "a,b,label\n1,2,x\n3,oops,y\n5,6,x\n7,8,y\n9,1,x\n",
            "label",
            ["line 3", "'b'", "'oops' is not a number", "leave the cell empty"],
        ),
        ("a,b,label\n1,,x\n3,,y\n5,,x\n7,,y\n", "label", ["column 'b' has no values", "drop the column"]),
        ("a,b,label\n1,inf,x\n3,2,y\n5,1,x\n7,1,y\n", "label", ["line 2", "'b'", "infinite"]),
        ("a,b,label\n1,2,x\n3,4,\n5,6,x\n7,8,y\n", "label", ["line 3", "empty", "give every point a class"]),
        ("a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n", "c", ["'c' is not in the file"]),
    ],
)
def test_bad_tables_name_the_column_line_or_value_and_the_fix(text, label, fragments):
    with pytest.raises(ValueError) as info:
        ut.user_dataset(ut.read_user_table(text.encode()), label)
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))


def test_a_text_column_of_too_many_values_is_refused_by_name():
    rows = "\n".join(f"{i},name{i},{'xy'[i % 2]}" for i in range(300))
    with pytest.raises(ValueError, match="column 'who' holds 300 different texts.*at most 255 categories"):
        ut.user_dataset(ut.read_user_table(f"a,who,label\n{rows}\n".encode()), "label")


def test_files_over_the_app_limits_are_refused_before_parsing():
    big = b"a,label\n" + b"1,x\n" * (ut.MAX_BYTES // 4 + 1)
    with pytest.raises(budget.BudgetError, match="bytes.*Upload a sample"):
        ut.read_user_table(big)
    rows = b"a,label\n" + b"1,x\n2,y\n" * (ut.MAX_ROWS // 2 + 1)
    with pytest.raises(ValueError, match="more than 20000 data lines"):
        ut.read_user_table(rows)
    with pytest.raises(ValueError, match="one column"):
        ut.read_user_table(b"a\n1\n2\n")


def test_the_budget_counts_the_engine_columns_and_the_calibrated_fits():
    data = ut.user_dataset(ut.read_user_table(wine_csv()), "class")
    N, K = len(data.dataset.y_train), 3
    cost = ar.real_cost(data.dataset, ["rebel", "hgb", "adaboost_mh"], 50, 2, True, data.n_columns, True)
    one = budget.fit_cost(N, data.n_columns, K, 50, 2).work
    assert cost.n_fits == 1 + 2 + 1 + ar.CALIBRATED_FOLDS  # AdaBoost.MH takes no missing values: left out
    assert cost.work == cost.n_fits * one


# ------------------------------------------------------------------------------------------------- the page
def _upload(at, data: bytes, name: str = "wine.csv"):
    at.file_uploader(key="w6_file").set_value((name, data, "text/csv"))
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _page(**widgets):
    base = {"w6_dataset": "upload", "w6_rounds": 20, "w6_depth": 2, "w6_methods": ["rebel", "adaboost_mh"]}
    return open_page(REAL, TIMEOUT, **{**base, **widgets})


def test_the_page_trains_rebel_and_the_calibrated_two_step_on_the_users_csv_with_their_costs():
    at = _page()
    assert "real_run" not in at.session_state and any("Upload a CSV file" in i.value for i in at.info)
    _upload(at, wine_csv())
    assert at.selectbox(key="w6_label").value == "class"
    assert at.checkbox(key="w6_calibrated").value is True
    assert at.query_params["table"] and at.query_params["label"] == "class"
    at.selectbox(key="w6_cost").set_value("yours")
    at.run(timeout=TIMEOUT)
    # the editor shows the class names; mistaking a barolo (row) for a barbera (column) costs 10
    captions = " ".join(c.value for c in at.caption)
    assert all(name in captions for name in NAMES.values())
    cell = next(
        w for w in at.text_input if w.key and w.key.startswith("w6_costs_") and w.key.endswith("_1_0")
    )
    cell.input("10")  # (the cell's key ends with "_<row>_<column>": components.cost_cell_key)
    at.run(timeout=TIMEOUT)
    at.button(key="w6_train").click()
    at.run(timeout=TIMEOUT)
    assert not at.exception and not at.error, _errors(at)
    run = at.session_state["real_run"]
    assert run.cost_matrix[1, 0] == 10.0 and run.done == run.planned == 3
    assert run.curves["t"].max() == 20  # the page's settings survived the runs without a file
    summary = run.summary()
    rows = list(summary.index)
    assert rows == ["REBEL (cost-sensitive)", "REBEL two-step", ar.calibrated_name()]
    costs = summary["test cost (last round)"]
    assert costs.between(0, 10).all() and np.isfinite(costs).all()
    assert "Left out: AdaBoost.MH" in _plain_text(at.info)
    shown = [df.value for df in at.dataframe if ar.calibrated_name() in list(df.value.index)]
    assert shown, "the summary table shows the calibrated two-step's row"


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        (b"a,b,label\n1,2,x\n3,4,x\n", ["label column 'label'", "single class 'x'", "at least 2 classes"]),
        (b"a,b,label\n1,2,x\n3,oops,y\n5,6,x\n7,8,y\n", ["line 3", "'oops' is not a number"]),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, ["CSV file not loaded", "not UTF-8"]),
    ],
)
def test_bad_files_give_a_message_and_no_traceback(text, fragments):
    at = _upload(_page(), text, "bad.csv")
    errors = _errors(at)
    assert all(f in errors for f in fragments), errors
    assert "real_run" not in at.session_state


def test_an_upload_over_the_budget_is_refused_naming_the_limit_and_the_fix():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 60)).round(2)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(60)])
    df["label"] = rng.choice(["a", "b", "c"], size=4000)
    at = _upload(_page(w6_rounds=300, w6_depth=4), df.to_csv(index=False).encode())
    errors = _errors(at)
    assert "work for one training run" in errors and "3,000 points x 60 features x 300 rounds" in errors
    assert "Lower the number of rounds" in errors
    assert "real_run" not in at.session_state


def test_a_link_reopens_the_uploaded_file_on_another_session_or_says_it_is_gone():
    """The file goes to the upload store every replica reads; a new session given the address reads it back."""
    first = _upload(_page(), wine_csv())
    first.selectbox(key="w6_label").set_value("region")  # another label column, kept in the link
    first.run(timeout=TIMEOUT)
    table, label = first.query_params["table"], first.query_params["label"]
    table, label = (v[0] if isinstance(v, list) else v for v in (table, label))
    assert label == "region"
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in {"w6_rounds": 10, "w6_methods": ["rebel"]}.items():
        again.session_state[key] = value
    again.query_params.update({"dataset": "upload", "table": table, "label": label})
    again.switch_page(REAL)
    again.run(timeout=TIMEOUT)
    assert not again.exception, [e.message for e in again.exception]
    assert again.selectbox(key="w6_label").value == "region" and not again.error, _errors(again)
    assert again.session_state["real_run"].dataset.classes == ("hills", "plain")
    gone = AppTest.from_file(APP, default_timeout=TIMEOUT)
    gone.query_params.update({"dataset": "upload", "table": "0" * 32})
    gone.switch_page(REAL)
    gone.run(timeout=TIMEOUT)
    assert not gone.exception and "is gone" in _errors(gone) and "Upload the file again" in _errors(gone)


def test_settings_survive_choosing_the_upload_before_a_file_is_there():
    at = open_page(REAL, TIMEOUT, w6_dataset="iris", w6_rounds=10, w6_methods=["rebel"])
    at.slider(key="w6_rounds").set_value(30)
    at.run(timeout=TIMEOUT)
    at.selectbox(key="w6_dataset").set_value("upload")
    at.run(timeout=TIMEOUT)  # no file yet: the settings' widgets are not drawn
    assert at.session_state["w6_rounds"] == 30
    _upload(at, wine_csv())
    assert at.slider(key="w6_rounds").value == 30 and at.multiselect(key="w6_methods").value == ["rebel"]


@pytest.mark.parametrize("kind", ["class-names", "header", "url-class-names", "url-header"])
def test_hostile_names_in_the_users_csv_are_shown_inertly(kind):
    """Class and column names holding markdown, HTML, links and directives are plain text on the page (the
    injection suite's files and checks), with the costs editor showing the class names and a run's results."""
    from tests.test_injection import CSVS, assert_inert, assert_no_injection

    at = _upload(_page(w6_rounds=10, w6_methods=["rebel"], w6_cost="yours"), CSVS[kind], "names.csv")
    assert not at.error, _errors(at)
    assert "real_run" in at.session_state
    assert_no_injection(at, f"real data upload ({kind})")
    assert_inert(at, f"real data upload ({kind})")
