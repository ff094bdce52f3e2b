"""The Playground's view layer, in one place (the page itself is ``pages/1_Playground.py``: layout only).

- ``compute``: both models trained on one problem, grids, metrics and the verdict at round t (no streamlit).
- ``actions``: what the controls do to the shared ``AppState`` (no streamlit; tests call them directly).
- ``widgets``: the sidebar, the cost-preset controls, the view toggles, the link.
- ``details``: the views below the first screen, one at a time.
"""
