"""Opening one page of the app in Streamlit's AppTest, the way the page tests do (one helper, not one a file)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from rebel.ui.state import STATE_KEY, AppState

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def open_page(page: str, timeout: float, state: AppState | None = None, **widgets) -> AppTest:
    """A fresh app switched to ``page`` with the Playground's shared ``state`` (if given) and the widget values
    ``widgets`` (key -> value) in its session, run once; fails on any exception element."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    if state is not None:
        at.session_state[STATE_KEY] = state
    for key, value in widgets.items():
        at.session_state[key] = value
    at.switch_page(page)
    at.run(timeout=timeout)
    assert not at.exception, [e.message for e in at.exception]
    return at
