"""The lesson path's controls (Streamlit): open a scene in the Playground, and the Playground's compact lesson
bar ("next scene", and "back to the scene" after an edit). The scenes and their checks are ``rebel.ui.lessons``.

A scene is opened the way a shared link is loaded: ``playground.actions.apply_config`` makes its ``Config``
current, and dropping the Playground's widget keys makes the Playground re-seed its widgets and editors from
that state on its next run (``playground.widgets.init_state``).
"""

from __future__ import annotations

import streamlit as st

from rebel.ui import components as ui
from rebel.ui import lessons as ls
from rebel.ui.playground import actions as act
from rebel.ui.playground import screen as side
from rebel.ui.state import AppState
from rebel.ui.text import md

PLAYGROUND = "pages/1_Playground.py"
LESSONS = "pages/0_Lessons.py"
S = st.session_state


def open_scene(A: AppState, i: int) -> None:
    """Make scene ``i`` the Playground's configuration (as a link does) and remember it for "next scene"."""
    act.apply_config(A, ls.SCENES[i].config)
    S[ls.SCENE_KEY] = i
    S.pop("w_preset", None)  # the Playground re-seeds its widgets and editors from the state (init_state)


def _on_next(A: AppState) -> None:
    open_scene(A, ls.next_scene(S.get(ls.SCENE_KEY)))


def _on_back(A: AppState) -> None:
    i = S.get(ls.SCENE_KEY)
    if i is not None and 0 <= i < len(ls.SCENES):
        open_scene(A, i)


def shown_scene() -> int | None:
    """The lesson scene last opened (0-based), or None."""
    i = S.get(ls.SCENE_KEY)
    return i if isinstance(i, int) and 0 <= i < len(ls.SCENES) else None


def scene_file(i: int) -> str:
    """Scene ``i`` as one self-contained HTML page (``rebel.ui.browser.scene``: data, the two-step's and the Bayes
    rule's posteriors, the browser engine; no network, no server): students edit costs and play it offline. Built
    when the download is clicked."""
    from rebel.ui.browser.scene import scene_data, scene_html

    scene = ls.SCENES[i]
    return scene_html(scene_data(scene.config, ls.scene_label(i), scene.notice, scene.question))


def calibration_scene_open() -> bool:
    """Whether the open lesson scene is about calibration (its number, the calibrated two-step's cost, is then
    shown on the Playground)."""
    i = shown_scene()
    return i is not None and ls.SCENES[i].shows_calibrated


def scene_checks(A: AppState) -> tuple | None:
    """The open scene's checked comparisons on the data shown, each in words with its values (its
    ``Evidence.tests``), while the Playground shows the scene as opened; None otherwise. Computed once per scene and
    data (kept in the session's model cache)."""
    i = shown_scene()
    if i is None or not ls.scene_shown(A, i):
        return None
    scene = ls.SCENES[i]
    fit = lambda cfg: ls.fit_scene(cfg, cache=A.models)  # the Playground's own fits, shared
    evidence = A.models.get_or_fit(f"scene/{scene.config.key()}", lambda: scene.evidence(fit))
    return tuple(evidence.tests)


def scene_notes() -> tuple | None:
    """The open scene's "what to notice" and its question, for the Playground's message tray (the lesson bar
    itself stays one row, so the plot keeps the screen's height), or None."""
    i = shown_scene()
    return None if i is None else (ls.SCENES[i].notice, ls.SCENES[i].question)


def scene_bar(A: AppState) -> None:
    """On the Playground, once a lesson scene was opened: one row (``side.LESSON_BAR_PX`` high) with which
    scene it is and buttons to all scenes and the next one; its "what to notice" and question lead the message
    tray (``scene_notes``). After an edit (the Playground no longer shows the scene's configuration) the bar
    stays, says so, and offers "Back to the scene" (restores its configuration) beside "Next scene"."""
    i = shown_scene()
    if i is None:
        return
    scene, edited = ls.SCENES[i], not ls.scene_shown(A, i)
    bar = st.container(key=side.LESSON_BAR)
    a, *buttons = bar.columns([2.4, 1, 1.4, 1.4] if edited else [3, 1, 1.4], vertical_alignment="center")
    a.markdown(
        md(
            "**Lesson, scene {} of {}: {}**{}",
            i + 1,
            len(ls.SCENES),
            scene.title,
            " (settings changed)" if edited else "",
        )
    )
    buttons[0].page_link(page=LESSONS, label="All scenes", icon=":material/school:")
    if edited:
        buttons[1].button(
            "Back to the scene",
            key="w_lesson_back",
            icon=":material/undo:",
            on_click=ui.guarded_callback(_on_back),
            args=(A,),
            width="stretch",
            help="Restore this scene's data, costs and training settings.",
        )
    buttons[-1].button(
        "Next scene" if i < len(ls.SCENES) - 1 else "Back to scene 1",
        key="w_lesson_next",
        icon=":material/arrow_forward:",
        on_click=ui.guarded_callback(_on_next),
        args=(A,),
        width="stretch",
    )
