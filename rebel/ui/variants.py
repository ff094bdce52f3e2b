"""The engine choices the app offers beside paper REBEL, as ``RebelClassifier`` options (no streamlit here).

``ENGINES`` maps a choice to its label; ``engine_options(name)`` gives the options merged into a page's
hyper-parameter dict (``{}`` for paper mode, so paper results stay bit-identical).
"""

from __future__ import annotations

ENGINES = {"paper": "paper REBEL", "vector": "REBEL, vector leaves, shrinkage 0.3"}
# Vector leaves with shrinkage 0.3: the engine variant with the lowest REBEL cost in docs/REPRODUCTION.md; held
# out it still costs more than the calibrated two-step method ("Against the calibrated two-step").
_OPTIONS = {"paper": {}, "vector": {"leaves": "vector", "learning_rate": 0.3}}


def engine_options(name: str) -> dict:
    """The ``RebelClassifier`` options of the engine ``name`` (a key of ``ENGINES``)."""
    if name not in _OPTIONS:
        raise ValueError(f"engine is {name!r}; choose one of {list(ENGINES)}.")
    return dict(_OPTIONS[name])
