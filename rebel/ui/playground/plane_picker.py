"""The sidebar's points upload (``points_uploader``) and its choice of the two columns drawn when the uploaded CSV file has more than two feature columns
(``rebel.ui.plane_columns``; the pair is kept with the upload in ``AppState.upload`` and its link).

The two select boxes are keyed by the upload and the pair drawn, so a new pair (picked here, or from a link)
draws new boxes showing it. Picking for one axis the column the other shows swaps the two.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from rebel.ui import components as ui
from rebel.ui.config import content_key
from rebel.ui.playground import actions as act
from rebel.ui.state import AppState, get_state

AXES = ("x", "y")


def _key(axis: str, tag: str) -> str:
    return f"w_plane_{axis}_{tag}"


def _on_pick(tag: str, axis: int) -> None:
    A = get_state()
    old = tuple(A.dataset.feature_names)
    new = list(old)
    new[axis] = st.session_state.get(_key(AXES[axis], tag), old[axis])
    if new[axis] == old[1 - axis]:  # the other axis's column: swap
        new[1 - axis] = old[axis]
    act.pick_columns(A, tuple(new))


def column_picker(A: AppState, sb) -> None:
    """Two select boxes in ``sb`` for the drawn columns of an uploaded file with more than two features."""
    full = A.upload_table
    if A.data_source != "csv" or full is None or len(full.feature_names) <= 2:
        return
    names = list(full.feature_names)
    pair = tuple(A.dataset.feature_names)
    tag = content_key(A.upload[:1], list(pair))[:12]
    for i, axis in enumerate(AXES):
        sb.selectbox(
            "Column on the x axis" if i == 0 else "Column on the y axis",
            names,
            index=names.index(pair[i]),
            key=_key(axis, tag),
            on_change=ui.guarded_callback(_on_pick),
            args=(tag, i),
        )


def points_uploader(A: AppState, sb, on_upload: Callable[[], None]) -> None:
    """The CSV uploader of points (``on_upload``: its callback) and, under it, the columns drawn."""
    sb.file_uploader(
        "Upload points (CSV: two or more feature columns, label[, split])",
        type=["csv"],
        key="w_csv_upload",
        on_change=ui.guarded_callback(on_upload),
    )
    column_picker(A, sb)
