"""Pure plotly figure builders of the app (arrays and tables in, ``go.Figure`` out; no streamlit, no training).

Import the topic modules, nothing is re-exported here:
``palette`` (the one palette), ``style`` (fonts, chart config, layout helpers, presentation mode),
``regions`` (decision regions + points), ``costs`` (cost matrix, confusion, cost vs round), ``trees`` (one
round: tree, a_t, layer losses, weak-learner regions), ``paths`` (risk paths, Fig. 8), ``gallery`` (cost-gallery
panels, image grids), ``compare`` (Fig. 3 scatter, dataset thumbnails, method curves), ``sweep`` (cost sweep)
and ``theory`` (edges, bound, binary reduction).
"""
