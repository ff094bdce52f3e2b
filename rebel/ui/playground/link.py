"""The Playground's view in its link, beside the configuration (``?cfg=``, ``rebel.ui.config``): the round t the
replay shows, the overlays, the open Details tab and presentation mode. No streamlit here.

Query keys: ``t`` (round, an integer; the replay figure keeps it up to date in the address bar as you scrub),
``show`` (comma-separated overlays, ``OVERLAYS``), ``details`` (a ``DETAIL_VIEWS`` name) and ``present`` (1).
A link without them (an older link) opens the default view.
"""

from __future__ import annotations

DETAIL_VIEWS = (
    "Before / after",
    "Cost curves",
    "Per class",
    "Confusion matrix",
    "Clusters",
    "Lecture",
    "How to read",
)
DEFAULT_DETAIL_VIEW = "How to read"
"""The Details tab a session opens with: text, so a first visit draws no chart below the first screen (the
before/after chart, two regions and their test points, took about 0.2 s of a first visit's 2.8 s in the
browser: ``benchmarks.bench_browser``). A link names any other tab."""
OVERLAYS = {"bayes": "w_show_bayes", "two": "w_show_two", "dis": "w_show_dis", "weights": "w_show_w"}
"""Overlay name in the link -> the toggle's widget key."""
VIEW_KEYS = ("t", "show", "details", "present")
MAX_T = 10**6


def encode_view(t: int | None, overlays, details: str | None, present: bool) -> dict:
    """The view's query parameters (only those that differ from the default view)."""
    out = {}
    if t is not None:
        out["t"] = str(int(t))
    names = [name for name in OVERLAYS if name in set(overlays)]
    if names:
        out["show"] = ",".join(names)
    if details and details != DEFAULT_DETAIL_VIEW:
        out["details"] = details
    if present:
        out["present"] = "1"
    return out


def decode_view(params) -> tuple:
    """``(view, problems)`` from query parameters: ``view`` holds the understood settings (``t``, ``overlays``,
    ``details``, ``present``), ``problems`` a sentence per parameter that was not understood (it is ignored)."""
    view: dict = {}
    problems = []
    t = params.get("t")
    if t is not None:
        try:
            value = int(str(t))
            if not 0 <= value <= MAX_T:
                raise ValueError
            view["t"] = value
        except ValueError:
            problems.append(
                f"the round t={str(t)[:20]!r} is not a whole number from 0 up; showing the last round"
            )
    show = params.get("show")
    if show is not None:
        names = [s.strip() for s in str(show).split(",") if s.strip()]
        unknown = [s for s in names if s not in OVERLAYS]
        if unknown:
            problems.append(
                f"overlay {unknown[0][:20]!r} is unknown (known: {', '.join(OVERLAYS)}); it is left off"
            )
        view["overlays"] = [s for s in names if s in OVERLAYS]
    details = params.get("details")
    if details is not None:
        if details in DETAIL_VIEWS:
            view["details"] = details
        else:
            problems.append(f"details tab {str(details)[:30]!r} is unknown; showing {DEFAULT_DETAIL_VIEW!r}")
    present = params.get("present")
    if present is not None:
        if str(present) in ("0", "1"):
            view["present"] = str(present) == "1"
        else:
            problems.append(f"present={str(present)[:10]!r} is neither 0 nor 1; presentation mode stays off")
    return view, problems
