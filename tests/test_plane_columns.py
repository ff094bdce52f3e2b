"""The Playground draws two chosen columns of a wider CSV file (``rebel.ui.plane_columns``,
``rebel.ui.playground.plane_picker``): the first two by default, others picked in the sidebar, kept with the upload
(state and link), the axes named after them and the plot square."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_wine
from streamlit.testing.v1 import AppTest

from rebel.ui import config as cf
from rebel.ui import plane_columns as pc
from rebel.ui import uploads
from rebel.ui.figures.regions import plane_axes_layout, plane_scale_ratio
from rebel.ui.playground import actions as act
from rebel.ui.state import STATE_KEY, AppState
from rebel.ui.upload_store import DirStore

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 90
COLUMNS = ["alcohol", "proline", "hue", "flavanoids"]
X_BOX, Y_BOX = "Column on the x axis", "Column on the y axis"


def wine_csv() -> bytes:
    w = load_wine(as_frame=True).frame
    df = w[COLUMNS].copy()
    df["label"] = w["target"].map({0: "a", 1: "b", 2: "c"})
    return df.to_csv(index=False).encode()


# ----------------------------------------------------------------------------------------------- the functions
def test_a_wider_csv_is_read_and_drawn_on_two_columns():
    full = cf.read_points_csv(wine_csv(), 0.25, 0)
    assert full.feature_names == tuple(COLUMNS)
    first = cf.parse_dataset_csv(wine_csv(), 0.25, 0)
    assert first.feature_names == ("alcohol", "proline")
    picked = pc.pick_plane(full, ("hue", "alcohol"))
    assert picked.feature_names == ("hue", "alcohol")
    np.testing.assert_array_equal(picked.X_train, full.X_train[:, [2, 0]])
    np.testing.assert_array_equal(picked.y_test, full.y_test)  # the same rows and split


@pytest.mark.parametrize(
    ("columns", "fragment"),
    [
        (("hue", "hue"), "both axes show column 'hue'; choose two different columns"),
        (("hue", "ash"), "column 'ash' is not a feature column"),
        (("hue",), "must be two column names"),
    ],
)
def test_a_bad_pair_names_the_column_and_the_fix(columns, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        pc.pick_plane(cf.read_points_csv(wine_csv()), columns)


def test_a_csv_with_one_feature_column_is_refused():
    with pytest.raises(ValueError, match=r"1 feature column\(s\) \['x'\].*give at least two"):
        cf.parse_dataset_csv(b"x,label\n1,a\n2,b\n3,a\n4,b\n")


def test_the_pair_is_kept_with_the_upload_and_its_link(tmp_path):
    A = AppState()
    act.apply_config(A, cf.preset_config(cf.DEFAULT_PRESET))
    store = DirStore(tmp_path)
    act.use_csv(A, wine_csv(), store)
    assert A.dataset.feature_names == ("alcohol", "proline") and A.upload[3] == ("alcohol", "proline")
    act.pick_columns(A, ("flavanoids", "hue"))
    assert A.dataset.feature_names == ("flavanoids", "hue") and A.upload[3] == ("flavanoids", "hue")
    text = act.upload_link(A)
    assert uploads.decode_link(text)["columns"] == ("flavanoids", "hue")
    B = AppState()  # another replica reads the link
    act.apply_config(B, cf.preset_config(cf.DEFAULT_PRESET))
    act.use_link_upload(B, text, store)
    assert B.dataset.feature_names == ("flavanoids", "hue")
    np.testing.assert_array_equal(B.dataset.X_train, A.dataset.X_train)


def test_the_plot_stays_square():
    """Equal scale when the spans are alike (drawn mixtures unchanged); a square box when they differ."""
    xs, ys = np.linspace(0, 10, 5), np.linspace(-4, 4, 5)
    assert plane_scale_ratio(xs, ys) == 1.0
    xs, ys = np.linspace(11, 15, 5), np.linspace(200, 1700, 5)
    ratio = plane_scale_ratio(xs, ys)
    assert ratio * (ys[-1] - ys[0]) == pytest.approx(xs[-1] - xs[0])  # y's span in x's pixels: a square
    layout = plane_axes_layout(xs, ys, ("alcohol", "proline"))
    assert layout["yaxis"]["scaleratio"] == ratio and layout["yaxis"]["scaleanchor"] == "x"
    assert layout["xaxis"]["title"]["text"] == "alcohol" and layout["yaxis"]["title"]["text"] == "proline"


# ------------------------------------------------------------------------------------------------- the page
def _run(at: AppTest) -> AppTest:
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _regions_chart(at: AppTest) -> dict:
    return next(c for c in (json.loads(el.proto.spec) for el in at.get("plotly_chart")) if c.get("frames"))


def _axis_titles(chart: dict) -> tuple:
    """(x title, y title) as drawn: the x axis is named at its right end (an annotation) on the first screen."""
    L = chart["layout"]
    x = L["xaxis"].get("title", {}).get("text") or next(
        a["text"] for a in L.get("annotations", []) if a.get("xref") == "x domain"
    )
    return x, L["yaxis"]["title"]["text"]


def test_the_playground_picks_two_columns_of_a_four_column_csv_and_names_its_axes():
    at = _run(AppTest.from_file(APP, default_timeout=TIMEOUT))
    at.file_uploader(key="w_csv_upload").set_value(("wine4.csv", wine_csv(), "text/csv"))
    _run(at)
    A: AppState = at.session_state[STATE_KEY]
    assert A.data_source == "csv" and A.dataset.feature_names == ("alcohol", "proline")
    boxes = {s.label: s for s in at.selectbox if s.label.startswith("Column on the")}
    assert set(boxes) == {X_BOX, Y_BOX}
    assert boxes[X_BOX].options == COLUMNS and (boxes[X_BOX].value, boxes[Y_BOX].value) == (
        "alcohol",
        "proline",
    )
    assert _axis_titles(_regions_chart(at)) == ("alcohol", "proline")
    boxes[Y_BOX].set_value("hue")
    _run(at)
    A = at.session_state[STATE_KEY]
    assert A.dataset.feature_names == ("alcohol", "hue") and A.upload[3] == ("alcohol", "hue")
    assert A.trained.rebel.n_features_in_ == 2
    chart = _regions_chart(at)
    assert _axis_titles(chart) == ("alcohol", "hue")
    xr, yr, L = chart["layout"]["xaxis"]["range"], chart["layout"]["yaxis"]["range"], chart["layout"]
    assert (xr[1] - xr[0]) > 2 * (yr[1] - yr[0])  # alcohol spans ~3x hue's range: drawn in a square box
    assert L["yaxis"]["scaleratio"] * (yr[1] - yr[0]) == pytest.approx(xr[1] - xr[0])
    link = at.query_params[uploads.QUERY_KEY]
    link = link[0] if isinstance(link, list) else link
    assert uploads.decode_link(link)["columns"] == ("alcohol", "hue")
    # picking for x the column y shows swaps the two
    next(s for s in at.selectbox if s.label == X_BOX).set_value("hue")
    _run(at)
    assert at.session_state[STATE_KEY].dataset.feature_names == ("hue", "alcohol")
    assert _axis_titles(_regions_chart(at)) == ("hue", "alcohol")
    assert not at.error


def test_a_links_column_names_pass_the_name_door():
    text = uploads.encode_link("0" * 32, 0.25, 0, [[0, 1], [1, 0]], {}, "paper", ("a\u202eb", "c"))
    with pytest.raises(ValueError, match="text-direction control"):
        uploads.decode_link(text)
