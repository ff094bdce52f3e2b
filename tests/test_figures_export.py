"""Lecture downloads: the replay as an animated GIF, the regions as PNG (rebel.ui.export), presentation mode."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from rebel.ui import export
from rebel.ui.figures import costs, regions, style
from rebel.ui.figures.palette import class_colors, hex_to_rgb, region_colors


def _staged(T=3, n=20, K=3):
    xs = ys = np.linspace(0, 1, n)
    S = np.zeros((T + 1, n, n), dtype=np.int16)
    for t in range(T + 1):
        S[t, :, n // 2 :] = 1  # right half class 1
        S[t, : 2 + 3 * t, : n // 2] = 2  # bottom-left block of class 2 grows with t
    X = np.array([[0.1, 0.9], [0.9, 0.1], [0.9, 0.9]])
    y = np.array([0, 1, 1])
    pred = np.tile(y, (T + 1, 1))
    pred[0, 0] = 2
    return xs, ys, S, X, y, pred


def _rgb(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGB"))


def test_replay_gif_has_one_frame_per_round_at_the_asked_size():
    xs, ys, S, X, y, pred = _staged()
    data = export.replay_gif(
        xs, ys, S, ["a", "b", "c"], train=(X, y, pred), test=(X[:1], y[:1], pred[:, :1]), size=(200, 160)
    )
    img = Image.open(io.BytesIO(data))
    assert img.format == "GIF" and img.n_frames == len(S) and img.size == (200, 160)
    light = [hex_to_rgb(c) for c in region_colors(3)]
    for t in (0, len(S) - 1):
        img.seek(t)
        rgb = _rgb(img)
        assert tuple(rgb[-2, 2]) == light[2]  # bottom-left corner: the class-2 block (y axis points up)
        assert tuple(rgb[80, -2]) == light[1]  # right half: class 1
    img.seek(0)
    first = _rgb(img)
    img.seek(len(S) - 1)
    last = _rgb(img)
    # the class-2 block grew upwards between t = 0 and T
    assert (first[:, 10] == light[2]).all(axis=1).sum() < (last[:, 10] == light[2]).all(axis=1).sum()
    # the round counter changes the top-left corner from frame to frame
    assert not np.array_equal(first[:20, :120], last[:20, :120])


def test_regions_png_draws_the_points_and_their_mistakes():
    xs, ys, S, X, y, pred = _staged()
    data = export.regions_png(xs, ys, S[0], ["a", "b", "c"], train=(X, y, pred[0]), size=(300, 300))
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG" and img.size == (300, 300)
    rgb = _rgb(img)
    point = class_colors(3)[1]
    px, py = round(0.9 / (1 + 1 / 19) * 300 + 300 / 40), round((1 - 0.1 / (1 + 1 / 19)) * 300 - 300 / 40)
    near = rgb[py - 4 : py + 5, px - 4 : px + 5].reshape(-1, 3)
    assert any(tuple(c) == hex_to_rgb(point) for c in near)  # the class-1 training point at (0.9, 0.1)
    # the mistaken point (0.1, 0.9) gets a black cross
    qx, qy = round(0.1 / (1 + 1 / 19) * 300 + 300 / 40), round((1 - 0.9 / (1 + 1 / 19)) * 300 - 300 / 40)
    assert (rgb[qy - 5 : qy + 6, qx - 5 : qx + 6] == 0).all(axis=2).any()


def test_export_checks_its_inputs():
    xs, ys, S, X, y, pred = _staged()
    with pytest.raises(ValueError, match="size"):
        export.regions_png(xs, ys, S[0], ["a", "b", "c"], size=(5, 5000))
    with pytest.raises(ValueError, match="staged predictions"):
        export.replay_gif(xs, ys, S, ["a", "b", "c"], train=(X, y, pred[0]))


def test_presentation_mode_fixes_the_size_and_enlarges_the_fonts():
    xs, ys = np.linspace(0, 1, 10), np.linspace(0, 1, 10)
    fig = regions.regions_figure(xs, ys, np.zeros((10, 10), int), ["a"], title="t = 3")
    curves = pd.DataFrame({"t": [0, 1], "model": "REBEL", "split": "test", "cost": [0.5, 0.4]})
    for f in (
        fig,
        costs.cost_curves_figure(curves, t=1, bayes_cost=0.2),
        costs.cost_heatmap(np.eye(2), ["a", "b"]),
    ):
        before = f.layout.font.size
        style.presentation(f)
        assert (f.layout.width, f.layout.height) == style.PRESENTATION_SIZE and f.layout.autosize is False
        assert f.layout.font.size == style.PRESENTATION_FONT > before
        assert f.layout.title.font.size >= style.PRESENTATION_FONT
        f.to_json()
    big = style.presentation(costs.cost_heatmap(np.eye(2), ["a", "b"]), size=(1920, 1080), font_size=28)
    assert big.layout.width == 1920 and big.layout.font.size == 28
