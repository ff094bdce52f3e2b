"""Short links to the Playground: a lesson scene as ``?scene=N``, a preset as ``?p=NAME`` plus only what differs
from it (``&d=``, compressed), instead of the whole configuration document (``?cfg=``: 500-600 characters for a
preset, which nobody can type). Old ``?cfg=`` links still load (``rebel.ui.config.decode_query``).

``link_params(cfg)`` gives the query parameters that name ``cfg`` (the shortest that does); ``config_from_params``
reads them back. Every decoded document goes through ``Config.from_dict`` (the same checks as a session file), and
the diff is packed and read as ``?cfg=`` is (``config.pack_query``, ``config.unpack_query``: bounded in size). No streamlit here.
"""

from __future__ import annotations

from rebel.data import PRESETS
from rebel.ui.config import QUERY_KEY, Config, decode_query, pack_query, preset_config, unpack_query

SCENE_KEY = "scene"  # ?scene=N: lesson scene N (1-based, as the Lessons page numbers them)
PRESET_KEY = "p"  # ?p=NAME: a preset ...
DIFF_KEY = "d"  # ... &d=...: the fields that differ from it (base64url of zlib-compressed JSON)
LINK_KEYS = (SCENE_KEY, PRESET_KEY, DIFF_KEY, QUERY_KEY)  # every key that names a configuration
# what a diff may hold (the rest follows from them)
_FIELDS = ("spec", "cost_matrix", "hyper", "engine", "order")


def _preset_with_diff(name: str, text: str) -> Config:
    """Preset ``name``'s configuration with the fields of diff ``text`` (``config.pack_query``) in place of its own, checked
    as a session file is (its names through ``rebel.names.clean_name``)."""
    obj = unpack_query(text, DIFF_KEY)
    if not isinstance(obj, dict) or set(obj) - set(_FIELDS):
        raise ValueError(
            f"the link's '{DIFF_KEY}' parameter is damaged (could not decode it); copy the full address "
            "again or remove the parameter."
        )
    doc = preset_config(name).to_dict()
    doc.update(obj)
    doc.pop("classes", None)  # they follow from the mixture
    return Config.from_dict(doc, what="the link's configuration")


def _scenes():
    from rebel.ui.lessons import SCENES  # (the scenes train nothing on import)

    return SCENES


def scene_number(cfg: Config) -> int | None:
    """The 1-based number of the lesson scene whose configuration ``cfg`` is, or None."""
    key = cfg.key()
    return next((i + 1 for i, s in enumerate(_scenes()) if s.config.key() == key), None)


def link_params(cfg: Config, lesson: bool = False) -> dict:
    """The query parameters naming ``cfg``: with ``lesson`` (a lesson scene is open), ``{"scene": N}`` for a
    scene's configuration; ``{"p": preset}`` (and ``"d"``: the differing fields) for a preset's; else
    ``{"cfg": the whole document}``."""
    n = scene_number(cfg) if lesson else None
    if n is not None:
        return {SCENE_KEY: str(n)}
    if cfg.preset not in PRESETS:
        return {QUERY_KEY: _encode_full(cfg)}
    mine = cfg.to_dict()
    base = preset_config(cfg.preset).to_dict()
    diff = {k: mine[k] for k in _FIELDS if k in mine and mine[k] != base.get(k)}
    return {PRESET_KEY: cfg.preset, DIFF_KEY: pack_query(diff)} if diff else {PRESET_KEY: cfg.preset}


def _encode_full(cfg: Config) -> str:
    from rebel.ui.config import encode_query

    return encode_query(cfg)


def scene_index(value) -> int:
    """The 0-based scene index of ``?scene=`` text ``value`` (1-based); ValueError naming the value and the fix."""
    n = len(_scenes())
    text = str(value).strip()
    if not text.isdigit() or not 1 <= int(text) <= n:
        raise ValueError(f"scene={text[:10]!r} is not a scene number; use 1 to {n}.")
    return int(text) - 1


def config_from_params(params: dict) -> tuple[Config, int | None] | None:
    """The configuration a link's query ``params`` names (and the 0-based lesson scene, when ``?scene=``), or None
    when they name none. Raises ValueError naming the bad parameter and the fix."""
    if params.get(SCENE_KEY) is not None:
        i = scene_index(params[SCENE_KEY])
        return _scenes()[i].config, i
    if params.get(PRESET_KEY) is not None:
        name = str(params[PRESET_KEY])
        if name not in PRESETS:
            raise ValueError(f"p={name[:30]!r} is not a preset; choose one of {', '.join(PRESETS)}.")
        if params.get(DIFF_KEY) is None:
            return preset_config(name), None
        return _preset_with_diff(name, params[DIFF_KEY]), None
    if params.get(QUERY_KEY) is not None:
        return decode_query(params[QUERY_KEY]), None
    return None
