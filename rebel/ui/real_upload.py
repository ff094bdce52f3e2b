"""The Real data page's own CSV file: the uploader, the label column's choice and the user's costs by class name.

The uploaded bytes go to the upload store every replica reads (``rebel.ui.upload_store``) and the address
carries their key (``?table=``) and the label column (``?label=``), so a page reopened on another replica (or a
shared link) reads the same file back; when the store no longer has it, the page says so and asks for the file
again. Session state: "real_table" (key, file name, column names, the file's bytes: at most 5 MiB, where its
text cells would take several times that), "real_user_data" (the ``UserData`` of the current label column), "real_costs" (class names -> the user's costs); widget keys start
with "w6_". Parsing is ``rebel.ui.user_table``'s.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rebel.costs import uniform_costs
from rebel.names import clean_name
from rebel.ui import components as ui
from rebel.ui import upload_store
from rebel.ui import user_table as ut
from rebel.ui.text import md

S = st.session_state
UPLOAD = "upload"  # the dataset choice of the user's own file
TABLE, DATA, COSTS = "real_table", "real_user_data", "real_costs"
FILE_KEY, LABEL_KEY, EDITOR = "w6_file", "w6_label", "w6_costs"
LINK_TABLE, LINK_LABEL = "table", "label"
GONE = (
    "The CSV file this link names is gone: the server no longer has it (uploads are kept {days} days after their "
    "last use). Upload the file again."
)


def _uploaded() -> tuple | None:
    """The uploader's (bytes, file name), the name through the name door (stripped: a label the user does not
    edit)."""
    f = S.get(FILE_KEY)
    if f is None:
        return None
    try:
        name = clean_name(str(f.name), "the file name", strip=True)
    except ValueError:
        name = "your CSV file"
    return f.getvalue(), name


def _load(data: bytes, file_name: str, store=None) -> None:
    """Read ``data`` (refused: a ValueError) and keep it (session and upload store)."""
    df = ut.read_user_table(data)
    try:
        key = (store or upload_store.store()).put(data)
    except upload_store.StoreError:  # only this server holds it; the page still works
        key = upload_store.upload_key(data)
    S[TABLE] = (key, file_name, list(df.columns), bytes(data))
    S.pop(DATA, None)
    S[LABEL_KEY] = ut.default_label(df.columns)
    S["w6_calibrated"] = True


def _on_file() -> None:
    got = _uploaded()
    if got is None:
        return
    try:
        _load(*got)
    except ValueError as exc:
        ui.flash("error", f"CSV file not loaded: {exc} The previous file is still in use.")


def restore_from_link() -> None:
    """On a visit without a table in the session: the file the link names (``?table=``), read from the store."""
    key = st.query_params.get(LINK_TABLE)
    if not key or TABLE in S:
        return
    try:
        data = upload_store.store().get(upload_store.check_key(key))
        if data is None:
            ui.show_error(GONE.format(days=round(upload_store.MAX_AGE / 86400)))
            return
        label = st.query_params.get(LINK_LABEL)
        _load(data, "the linked CSV file")
    except (ValueError, OSError) as exc:
        ui.show_error(f"The link's CSV file could not be used: {exc} Upload the file again.")
        return
    if label in S[TABLE][2]:
        S[LABEL_KEY] = label


def _sync_link(key: str, label: str) -> None:
    for name, value in ((LINK_TABLE, key), (LINK_LABEL, label)):
        if st.query_params.get(name) != value:
            st.query_params[name] = value


def drop_link() -> None:
    """Another dataset is chosen: the address no longer names the file (the label column chosen is kept)."""
    keep((LABEL_KEY,))
    for name in (LINK_TABLE, LINK_LABEL):
        if name in st.query_params:
            del st.query_params[name]


def user_data() -> ut.UserData | None:
    """The uploader and the label column's choice; the user's data when a file is loaded and usable. Messages of
    the callbacks (a refused file or cost) first."""
    ui.show_flash()
    st.file_uploader(
        "Your CSV file: feature columns and a label column (one row a point; an empty cell is a missing value, "
        "a column of text is a categorical feature, a split column of train/test is used when present)",
        type=["csv"],
        key=FILE_KEY,
        on_change=ui.guarded_callback(_on_file),
    )
    if TABLE not in S:
        st.info("Upload a CSV file to train on it.")
        return None
    key, file_name, columns, raw = S[TABLE]
    if S.get(LABEL_KEY) not in columns:
        S[LABEL_KEY] = ut.default_label(columns)
    label = st.selectbox("label column (the classes)", columns, key=LABEL_KEY)
    _sync_link(key, label)
    cached = S.get(DATA)
    if cached is None or cached[0] != (key, label):
        try:
            data = ut.user_dataset(ut.read_user_table(raw), label, name="your CSV file")
        except ValueError as exc:
            ui.show_error(f"The file cannot be trained on with {label!r} as the label column: {exc}")
            return None
        cached = S[DATA] = ((key, label), data)
    data = cached[1]
    ds = data.dataset
    st.caption(
        md(
            "{}: {} training and {} test rows, {} features ({} categorical), {} missing cells, {} classes.",
            file_name,
            len(ds.y_train),
            len(ds.y_test),
            len(ds.feature_names),
            int(data.categorical.sum()),
            data.n_missing,
            ds.n_classes,
        )
    )
    return data


def keep(keys) -> None:
    """Keep these widgets' values through a run that does not draw them (Streamlit drops an undrawn widget's)."""
    for key in keys:
        if key in S:
            S[key] = S[key]


def user_costs(classes) -> np.ndarray:
    """The user's costs for these classes (0-1 until edited)."""
    names = tuple(map(str, classes))
    C = S.setdefault(COSTS, {}).get(names)
    return uniform_costs(len(names)) if C is None else np.array(C)


def cost_editor(classes) -> None:
    """The user's costs by class name (rows = true class, columns = predicted class)."""
    names = tuple(map(str, classes))
    st.caption(
        "Your costs: rows = the true class, columns = the predicted class; type a number and press Enter."
    )
    ui.cost_editor(user_costs(classes), names, EDITOR, lambda C: S.setdefault(COSTS, {}).update({names: C}))
