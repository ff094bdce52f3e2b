"""Uploaded points in the Playground's link (``?upload=``, ``rebel.ui.uploads``): written while they are in use,
read on a session's first run; the CSV uploader's callback. A student whose replica died comes back on another one with the same points; a
link whose points the store no longer has says so and asks for the file again (the default preset is shown
meanwhile, with that message above it).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from rebel.ui import components as ui
from rebel.ui import config as cfgmod
from rebel.ui import upload_store, uploads
from rebel.ui.playground import actions as act
from rebel.ui.state import AppState, get_state

CSV_REFUSED = "pg_csv_refused"  # set by a refused upload, for the run that shows its message
NOTE = "pg_upload_note"  # (kind, message, id of the dataset it is about): what the link's upload came to
GONE = (
    "The uploaded points this link names are gone: the server no longer has them (uploads are kept {days} days "
    "after their last use, or the server's upload store was emptied). Upload the CSV file again in the sidebar "
    "(Files and sharing: Upload points); the default preset is shown meanwhile."
)


def restore(A: AppState, apply_default: Callable[[], None], resync: Callable[[], None]) -> bool:
    """On a session's first run: the uploaded points the link names, if it names some (True; else False and
    nothing is done). ``apply_default`` makes the default preset current first (the mixture "Back to the
    designed mixture" returns to); ``resync`` writes the widgets from the state afterwards."""
    text = st.query_params.get(uploads.QUERY_KEY)
    if not text:
        return False
    apply_default()
    try:
        note = act.use_link_upload(A, text)
    except uploads.MissingUpload:
        _note(A, "error", GONE.format(days=round(upload_store.MAX_AGE / 86400)))
        return True
    except (ValueError, OSError) as exc:  # a damaged link, a refused file, a store out of reach
        _note(A, "error", f"The link's uploaded points could not be used: {exc} Upload the CSV file again.")
        return True
    resync()
    ds = A.dataset
    _note(
        A,
        "info",
        f"The uploaded points of this link are back: {len(ds.y_train)} training and {len(ds.y_test)} test "
        f"points, {len(ds.classes)} classes." + (f" {note}" if note else ""),
    )
    return True


def _note(A: AppState, kind: str, message: str) -> None:
    st.session_state[NOTE] = (kind, message, id(A.dataset))


def show_note(A: AppState) -> None:
    """What became of the link's upload, shown on every run while the data it is about is in use (a one-run
    message can be missed: a page that reconnects to another replica is redrawn by several runs at once)."""
    kind, message, about = st.session_state.get(NOTE, (None, None, None))
    if kind is None:
        return
    if about != id(A.dataset):
        del st.session_state[NOTE]
        return
    ui.show_message(kind, message)


def on_csv_upload(uploaded: Callable[[str], bytes | None], costs_key: str) -> None:
    """The CSV uploader's callback: its file (``uploaded(key)``) replaces the points, or a message says why not;
    the cost editor ``costs_key`` shows the costs afresh."""
    data = uploaded("w_csv_upload")
    if data is None:
        return
    A = get_state()
    try:
        ui.flash("success", act.use_csv(A, data))
    except ValueError as exc:
        ui.flash("error", f"CSV file not loaded: {exc} The previous dataset is still in use.")
        st.session_state[CSV_REFUSED] = (
            True  # the sidebar's "Using the uploaded CSV points" would read as this file's
        )
    ui.reset_cost_editor(costs_key, A.cost_matrix)


def sync(A: AppState) -> bool:
    """Write the link of uploaded points in use (``?upload=``; no ``?cfg=``, which describes designed mixtures)
    and return True; else drop ``?upload=`` and return False."""
    text = act.upload_link(A)
    if text is None:
        if uploads.QUERY_KEY in st.query_params:
            del st.query_params[uploads.QUERY_KEY]
        return False
    if cfgmod.QUERY_KEY in st.query_params:
        del st.query_params[cfgmod.QUERY_KEY]
    if st.query_params.get(uploads.QUERY_KEY) != text:
        st.query_params[uploads.QUERY_KEY] = text
    return True
