"""A class's replicas train the Playground's first pair at launch (``REBEL_WARM_PLAYGROUND``, set by
``rebel.ui.classroom``): the first students on each replica then wait for no training. The pair goes into the
shared store that ``compute.train_pair`` (``shared_models.one_build_at_a_time``) reads."""

from __future__ import annotations

WARM_ENV = "REBEL_WARM_PLAYGROUND"  # "1": train the default page's pair at launch; "p=...&d=..." a link's


def warm(query: str = "") -> str:
    """Train, into the shared store, the pair that a first visit of the Playground at ``query`` (a link's query
    string, e.g. ``"p=fig7"``; empty: the page without one, the default preset) trains: made from the link's
    configuration as the page makes it (``actions.apply_config``, the engine's options), so the page's own call
    finds it (or waits for it: ``one_build_at_a_time``). A class's replicas do it at launch, so the first students
    on each do not wait for the training. Returns the pair's key. Raises ``ValueError`` for a link that names no
    configuration or a bad one."""
    from urllib.parse import parse_qs

    from rebel.ui import short_link
    from rebel.ui.config import DEFAULT_PRESET, preset_config
    from rebel.ui.playground import actions
    from rebel.ui.playground import compute as pg
    from rebel.ui.state import AppState
    from rebel.ui.variants import engine_options

    cfg = preset_config(DEFAULT_PRESET)
    if query.lstrip("?"):
        params = {k: v[-1] for k, v in parse_qs(query.lstrip("?")).items()}
        named = short_link.config_from_params({k: params.get(k) for k in short_link.LINK_KEYS})
        if named is None:
            raise ValueError(f"the link {query[:80]!r} names no configuration; give e.g. 'p=airport'.")
        cfg = named[0]
    state = AppState()
    actions.apply_config(state, cfg)
    pair = pg.train_pair(
        state.dataset, state.cost_matrix, state.hyper, cache=state.models, engine=engine_options(state.engine)
    )
    return pair.key


def warm_from_env(environ=None) -> str | None:
    """``warm`` what ``REBEL_WARM_PLAYGROUND`` names ("1": the page without a link; otherwise a link's query
    string), or nothing when it is unset, empty or "0". Returns the pair's key (None: nothing asked, or it failed:
    logged with the reason; the page trains it when asked, as without this)."""
    import logging
    import os

    value = (os.environ if environ is None else environ).get(WARM_ENV, "").strip()
    if value in ("", "0"):
        return None
    try:
        return warm("" if value == "1" else value)
    except Exception:
        logging.getLogger(__name__).exception("%s=%r: the Playground's pair was not trained", WARM_ENV, value)
        return None
