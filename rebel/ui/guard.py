"""The page boundary: ``app.py`` runs every page through ``run_page``, so no exception reaches a user as a
traceback. An unexpected error is logged on the server with its traceback and shown to the user as one escaped
message (``components.show_error``); the session state is untouched, so the user's data, costs and settings stay.
Streamlit's own control flow (``st.rerun``, ``st.stop``) derives from BaseException and passes through.
"""

from __future__ import annotations

import logging

from rebel.ui.components import show_error

LOG = logging.getLogger("rebel.ui")


def run_page(page) -> None:
    """Run a ``st.navigation`` page; any ``Exception`` becomes a logged traceback and a clear message."""
    try:
        page.run()
    except Exception as exc:
        LOG.exception("page %r failed", getattr(page, "title", page))
        show_error(
            f"This page hit an unexpected problem and stopped drawing ({type(exc).__name__}: {exc}). Your data, "
            "costs and settings are kept: undo the last change, or reload the page. The details are in the "
            "server log."
        )
