"""Preset thumbnails: a small PNG of each preset's points (its ``sample_data`` CSV, training split), drawn with
Pillow in a few milliseconds, so the Playground can offer the presets as pictures to click. No streamlit here.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from PIL import Image, ImageDraw

from rebel.data import PRESETS, SAMPLE_DIR
from rebel.ui.figures.palette import class_colors, hex_to_rgb

SIZE = 84  # px, square
DOT = 1  # px: a point's radius


def preset_thumbnail(name: str, size: int = SIZE) -> bytes | None:
    """PNG bytes of preset ``name``'s training points coloured by class (in the preset's class order, as the
    Playground colours them), or None when the preset has no sample file."""
    path = SAMPLE_DIR / f"{name}.csv"
    if not path.is_file():
        return None
    df = pd.read_csv(path)
    if "split" in df.columns:
        df = df[df["split"] == "train"]
    xy = df[["x", "y"]].to_numpy(dtype=np.float64)
    classes = [str(c) for c in PRESETS[name].classes]
    codes = pd.Categorical(df["label"].astype(str), categories=classes).codes
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    pad = 3 + DOT
    scaled = (xy - lo) / np.where(hi > lo, hi - lo, 1.0) * (size - 2 * pad) + pad
    colors = [hex_to_rgb(c) for c in class_colors(len(classes))]
    img = Image.new("RGB", (size, size), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    for (x, y), k in zip(scaled, codes, strict=True):
        if k < 0:
            continue  # a label the preset does not name
        y = size - y  # y up
        draw.ellipse((x - DOT, y - DOT, x + DOT, y + DOT), fill=tuple(int(c) for c in colors[k]))
    draw.rectangle((0, 0, size - 1, size - 1), outline=(200, 200, 200))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()
