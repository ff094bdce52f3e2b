"""Lessons: the lesson path, ordered scenes a teacher opens in the Playground with one click each.

Widgets and layout only: the scenes (configuration, what to notice, question, checked claim) are
``rebel.ui.lessons``; opening one is ``rebel.ui.lesson_widgets.open_scene`` (as a shared link loads).
"""

from functools import partial

import streamlit as st

from rebel.ui import components as ui
from rebel.ui import lesson_widgets as lw
from rebel.ui import lessons as ls
from rebel.ui.state import get_state
from rebel.ui.text import md, plain

A = get_state()

st.markdown("#### Lessons")
st.caption(
    md(
        "{} scenes, in order. Each button opens the Playground with that scene's data, costs and training "
        "settings; a bar at the top of the Playground then leads to the next scene (or back to this one after "
        "an edit). Every “what to notice” is checked by the test suite against the numbers the Playground "
        "computes for that scene, and on {} redraws of its data; “Numbers” shows the checked values here.",
        len(ls.SCENES),
        ls.REDRAWS,
    )
)
for i, scene in enumerate(ls.SCENES):
    with st.container(border=True):
        text, go = st.columns([5, 1], vertical_alignment="center")
        text.markdown(md("**{}**", ls.scene_label(i)))
        if ls.scene_shown(A, i):
            text.caption("The Playground shows this scene now.")
        text.markdown(plain(scene.notice))
        text.caption(md("Question for the class: {}", scene.question))
        if go.button("Open", key=f"w_lesson_{i}", icon=":material/play_arrow:", width="stretch"):
            lw.open_scene(A, i)
            st.switch_page(lw.PLAYGROUND)
        if scene.config.engine == "paper":  # the browser engine is paper mode
            ui.download(
                go,
                "Offline file",
                partial(lw.scene_file, i),
                f"rebel_scene_{i + 1}.html",
                key=f"w_lesson_file_{i}",
                width="stretch",
                help="This scene as one HTML file that runs in any browser without a server or network: "
                "students edit the costs and play the replay in it (it can be embedded in slides or a course "
                "page).",
            )
        if go.button("Numbers", key=f"w_lesson_numbers_{i}", icon=":material/table:", width="stretch"):
            with st.spinner("Training this scene's models…"):
                evidence = scene.evidence(lambda cfg: ls.fit_scene(cfg, cache=A.models))
            text.dataframe(ls.evidence_table(evidence), hide_index=True)
            text.markdown(md("**Checked claim:** {}", scene.claim))
            for line in evidence.tests:
                text.markdown(md("- {}", line))
            text.caption(md("{} {}", ls.verdict_text(evidence), ls.redraw_text(scene)))
