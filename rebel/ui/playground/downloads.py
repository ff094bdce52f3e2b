"""The sidebar's files as bytes: a download button is given its file's bytes, not a callable built on the click.
A deferred file's id lives one script run, so a click that reached the server during a rerun (or after an
interrupted one) got no file and the button kept its spinner; the small files the sidebar offers are cheap to
keep (the points at most ~0.6 MB, built once per dataset)."""

from __future__ import annotations

import streamlit as st

from rebel.ui import config as cfgmod

_POINTS_CSV = "_points_csv"  # session state: (dataset key, its points as CSV bytes)


def points_csv(ds) -> bytes:
    """The points of ``ds`` as CSV (``config.dataset_to_csv``), built once per dataset in a session (20,000
    points take ~70 ms)."""
    key = cfgmod.dataset_key(ds)
    memo = st.session_state.get(_POINTS_CSV)
    if memo is None or memo[0] != key:
        memo = st.session_state[_POINTS_CSV] = (key, cfgmod.dataset_to_csv(ds).encode("utf-8"))
    return memo[1]
