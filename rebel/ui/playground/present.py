"""Presentation mode's switch and what it keeps (Streamlit): the switch sits on the first screen (the top of the
costs' column), and the mode survives leaving the Playground (a lesson scene opened from the Lessons page, another
page and back), edits and links.

Streamlit forgets a widget's value once a run of another page does not draw it, so the mode is kept under a key of
its own (``KEEP``) and the switch's key (``KEY``) is seeded from it at the top of every Playground run
(``keep_mode``). Every reader asks ``on()``.
"""

from __future__ import annotations

import streamlit as st

from rebel.ui import components as ui

KEY = "w_present"  # the switch
KEEP = "_present"  # the mode, kept across pages
S = st.session_state


def on() -> bool:
    """Whether presentation mode is on."""
    return bool(S.get(KEY, S.get(KEEP)))


def keep_mode() -> None:
    """At the top of a Playground run: the switch shows the kept mode (Streamlit dropped its value on another
    page)."""
    if KEY not in S and S.get(KEEP) is not None:
        S[KEY] = bool(S[KEEP])


def set_mode(value: bool) -> None:
    """Switch presentation mode (a link, a lesson scene) and keep it."""
    S[KEY] = S[KEEP] = bool(value)


def switch(on_change) -> bool:
    """The switch (on the first screen); ``on_change()`` runs after the kept mode follows it."""

    def changed() -> None:
        S[KEEP] = bool(S.get(KEY))
        on_change()

    return st.toggle(
        "Presentation mode",
        key=KEY,
        on_change=ui.guarded_callback(changed),
        help="A projector layout: the sidebar folds away, the regions fill the screen's height with the "
        "verdict, legend and cost curve beside them, large fonts everywhere (plot, numbers, cost editor, "
        "lesson bar).",
    )
