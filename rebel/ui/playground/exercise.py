"""Exercise links: a lecturer hands out a cut-down Playground, as the TensorFlow Playground's ``<name>_hide=true``
parameters do. ``?hide=data,training`` hides those groups of controls (``GROUPS``), so that, say, only the cost matrix
can be changed. The hidden set comes from the link once, when a session starts, and stays with the session; the
page's address keeps it (``sync``), so a copied link hands out the same exercise.

Each group is drawn in a box of its own (``box``) and a hidden group's box is not displayed (``style``): its widgets
keep their state (a link's settings, the page's own bookkeeping), only the student does not see them.

``parse`` reads the parameter (unknown names are named in a message and ignored); ``hidden(group)`` answers for
the page. No user text reaches the page unescaped: messages go through the callers' ``plain``.
"""

from __future__ import annotations

import streamlit as st

PARAM = "hide"
GROUPS = {
    "data": "the dataset's settings (preset, points, seed, noise, test share)",
    "training": "the training settings (rounds, depth, thresholds, engine)",
    "files": "files and sharing (downloads, uploads, sessions)",
    "view": "the view's switches under the plot (boundaries, disagreement, weights, clusters by drag)",
    "details": "the detail views under the first screen",
}
KEY = "_exercise_hidden"  # the session's hidden groups (a sorted tuple)
S = st.session_state


def parse(value) -> tuple[tuple, list]:
    """``(the hidden groups, problems)`` from the ``hide`` parameter's text (comma-separated group names)."""
    names = [s.strip().lower() for s in str(value or "").split(",") if s.strip()]
    unknown = [n for n in names if n not in GROUPS]
    problems = [
        f"hide={n[:20]!r} is not a group of controls (known: {', '.join(GROUPS)}); it is left shown"
        for n in unknown[:3]
    ]
    return tuple(sorted({n for n in names if n in GROUPS})), problems


def encode(groups) -> str | None:
    """The ``hide`` parameter's text for ``groups`` (None when nothing is hidden)."""
    groups = sorted(set(groups) & set(GROUPS))
    return ",".join(groups) or None


def start(params) -> list:
    """At a session's first Playground run: take the hidden groups from the link; returns the problems."""
    if KEY in S:
        return []
    groups, problems = parse(params.get(PARAM))
    S[KEY] = groups
    return problems


def box(group: str) -> str:
    """The key of the container that holds ``group``'s controls."""
    return f"pg_hide_{group}"


# The style that hides each group's box (fixed text: the page's markdown guard takes module-level literals only).
_NONE = " {display: none !important;}</style>"
HIDE_DATA = "<style>div.st-key-pg_hide_data" + _NONE
HIDE_TRAINING = "<style>div.st-key-pg_hide_training" + _NONE
HIDE_FILES = "<style>div.st-key-pg_hide_files" + _NONE
HIDE_VIEW = "<style>div.st-key-pg_hide_view" + _NONE
HIDE_DETAILS = "<style>div.st-key-pg_hide_details" + _NONE


def style() -> None:
    """Hide the boxes of the hidden groups."""
    if hidden("data"):
        st.html(HIDE_DATA)
    if hidden("training"):
        st.html(HIDE_TRAINING)
    if hidden("files"):
        st.html(HIDE_FILES)
    if hidden("view"):
        st.html(HIDE_VIEW)
    if hidden("details"):
        st.html(HIDE_DETAILS)


def hidden(group: str) -> bool:
    """Whether the exercise hides ``group`` (one of ``GROUPS``)."""
    return group in S.get(KEY, ())


def sync() -> None:
    """Keep the hidden groups in the page's address."""
    text = encode(S.get(KEY, ()))
    if text is None:
        if PARAM in st.query_params:
            del st.query_params[PARAM]
    elif st.query_params.get(PARAM) != text:
        st.query_params[PARAM] = text
