"""Preset thumbnails: every preset has a small picture of its points in the Playground's class colours, and
clicking one loads that preset like the Preset box does."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image
from streamlit.testing.v1 import AppTest

from rebel.data import PRESETS
from rebel.ui.figures.palette import class_colors, hex_to_rgb
from rebel.ui.playground import thumbs

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def test_every_preset_has_a_thumbnail_of_its_points_in_the_class_colours():
    for name, preset in PRESETS.items():
        png = thumbs.preset_thumbnail(name)
        assert png is not None, name
        img = Image.open(io.BytesIO(png)).convert("RGB")
        assert img.size == (thumbs.SIZE, thumbs.SIZE)
        pixels = set(map(tuple, np.asarray(img).reshape(-1, 3).tolist()))
        for k, color in enumerate(class_colors(len(preset.classes))):
            assert tuple(int(c) for c in hex_to_rgb(color)) in pixels, (name, k)
    assert thumbs.preset_thumbnail("no such preset") is None


def test_clicking_a_thumbnail_loads_its_preset_like_the_preset_box():
    from rebel.ui.state import STATE_KEY

    at = AppTest.from_file(APP, default_timeout=120)
    at.run(timeout=120)
    assert not at.exception
    assert at.session_state[STATE_KEY].preset != "xor"
    # closed, the expander draws nothing: a run sends no picture and no thumbnail button
    assert not [b for b in at.button if (b.key or "").startswith("w_thumb_")] and not at.get("image")
    at.session_state["w_thumbs_open"] = True  # the user opens "Presets as pictures"
    at.run(timeout=120)
    assert len([b for b in at.button if (b.key or "").startswith("w_thumb_")]) == len(PRESETS)
    assert len(at.get("image")) == len(PRESETS)
    at.button(key="w_thumb_xor").click()
    at.run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    state = at.session_state[STATE_KEY]
    assert state.preset == "xor" and at.selectbox(key="w_preset").value == "xor"
    assert list(state.classes) == list(PRESETS["xor"].classes)
