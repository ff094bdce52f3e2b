"""The app layer of REBEL Explorer (may import streamlit and plotly; the engine under ``rebel/`` never does).

- ``state``: the one typed cross-page state (``AppState``) and its model cache.
- ``components``: shared widgets (safe messages, cost and mixture editors, round player, run-with-Stop).
- ``config``: the Playground's shareable configuration, session files, links and CSV uploads.
- ``figures``: pure plotly figure builders (no streamlit, no training); ``export``: PNG and GIF for lectures.
- One view-model module per page: the ``playground`` package (``compute``, ``actions`` for state changes,
  ``widgets`` for the sidebar and numbers, ``details`` for the views below the first screen), ``vs_two_step``, ``paths``, ``gallery``, ``trees``, ``real_data``, ``theory``.
"""
