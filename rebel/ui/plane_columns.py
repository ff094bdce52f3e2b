"""The two columns of an uploaded CSV file the Playground draws: a file may hold any number of feature columns;
the Playground trains on and draws two of them (the first two unless the user picks others), named on the axes.

``pick_plane(ds, columns)`` is the dataset on those two columns (the same rows and split); ``check_columns``
validates a pair (from the sidebar or a link). No streamlit here.
"""

from __future__ import annotations

from dataclasses import replace

from rebel.data import Dataset
from rebel.names import clean_name, shown


def default_columns(names) -> tuple:
    """The pair drawn until the user picks one: the first two feature columns."""
    return tuple(names[:2])


def check_columns(columns, names) -> tuple:
    """``columns`` as a pair of distinct feature names of ``names``; a ValueError names the bad one and the fix."""
    if not isinstance(columns, (list, tuple)) or len(columns) != 2:
        raise ValueError(
            f"the plotted columns must be two column names; got {shown(columns)}. Choose two feature columns."
        )
    pair = tuple(clean_name(c, "plotted column") for c in columns)
    for c in pair:
        if c not in names:
            raise ValueError(
                f"column {shown(c)} is not a feature column of the file; choose two of {list(names)[:12]}."
            )
    if pair[0] == pair[1]:
        raise ValueError(f"both axes show column {shown(pair[0])}; choose two different columns.")
    return pair


def pick_plane(ds: Dataset, columns=None) -> Dataset:
    """``ds`` on the two feature columns ``columns`` (default the first two), named after them."""
    names = list(ds.feature_names)
    if len(names) < 2:
        raise ValueError(
            f"the CSV file has {len(names)} feature column(s) {names}; the Playground draws the plane, so give "
            "at least two (e.g. x,y,label)."
        )
    pair = check_columns(default_columns(names) if columns is None else columns, names)
    if list(pair) == names:
        return ds
    idx = [names.index(c) for c in pair]
    return replace(ds, X_train=ds.X_train[:, idx], X_test=ds.X_test[:, idx], feature_names=pair)
