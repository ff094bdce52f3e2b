"""The replay's animation frames: one per round, built once as plain dicts already in the form plotly sends
(numpy arrays as base64 typed arrays), attached to a figure without plotly's per-frame validation.
"""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.utils import to_typed_array_spec


class _SentAsIs(dict):
    """A frame's content, already in the form plotly sends (numpy arrays as base64 typed arrays): never changed
    after it is built, so ``fig.to_dict()`` (run by ``st.plotly_chart`` on every rerun) shares it instead of
    deep-copying every frame (~1 ms a frame, the largest part of a replay's serialisation)."""

    def __deepcopy__(self, memo):
        return self


def _sent_as_is(obj):
    """``obj`` (dicts, lists, numpy arrays) with every array as plotly's base64 typed array, and every dict as a
    ``_SentAsIs``: what ``fig.to_dict()`` would produce, built once."""
    if isinstance(obj, dict):
        return _SentAsIs({k: _sent_as_is(v) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return [_sent_as_is(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _typed_array(obj)
    return obj


_SHORT_TYPES = {"float32": "f4", "float64": "f8", "uint8": "u1", "int8": "i1", "int16": "i2", "int32": "i4"}


def _typed_array(a: np.ndarray):
    """A numpy array as plotly's base64 typed array (``{"dtype", "bdata"[, "shape"]}``), as ``fig.to_dict()``
    writes it; dtypes outside ``_SHORT_TYPES`` go through plotly's own conversion."""
    short = _SHORT_TYPES.get(str(a.dtype))
    if short is None or a.size == 0:
        return to_typed_array_spec(a)
    out = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(a)).decode("ascii")}
    if a.ndim > 1:
        out["shape"] = str(a.shape)[1:-1]
    return out


def _frames(T: int, updates: list, images: list) -> list:
    """One frame per round from per-round trace updates ``[(trace index, [dict] * (T + 1))]`` and layout images
    ``[[dict] * (T + 1)]``: only what changes with t.

    Built from plain dicts without plotly's per-property validation (it would take ~10 ms a frame); the keys are
    fixed in this module and the tests check the frames' content. Each frame's content is final (``_sent_as_is``).
    """
    frames = []
    for t in range(T + 1):
        frame = go.Frame(name=f"t{t}", _validate=False)
        frame._orphan_props = _sent_as_is(
            {
                "data": [{"type": "scatter", **u[t]} for _, u in updates],
                "traces": [i for i, _ in updates],
                "layout": {"images": [im[t] for im in images]},
                "name": f"t{t}",
            }
        )
        frames.append(frame)
    return frames


def set_frames(fig: go.Figure, frames: list) -> None:
    """Attach frames built with ``_validate=False`` as they are: the ``fig.frames`` setter would rebuild and
    re-validate every one (~0.5 ms a frame, the largest cost of a replay figure). Uses plotly's storage of a
    figure's frames (``_frame_objs``, a tuple of ``go.Frame``); the replay tests read them back through
    ``fig.to_dict()``, as ``st.plotly_chart`` does."""
    fig._frame_objs = tuple(frames)
