"""Slide exports (rebel.ui.export): PNG and replay GIF with axes, legend, cost inset and costs; presentation mode."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from PIL import Image, ImageDraw

from rebel.estimator import RebelClassifier
from rebel.ui import export
from rebel.ui.figures import costs, palette, regions, style
from rebel.ui.figures.palette import class_colors, hex_to_rgb, region_colors

CLASSES = ["apple", "banana", "cherry"]
COSTS = np.array([[0.0, 1.0, 5.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
SMALL = (640, 480)  # small slides keep the tests quick; WIDE and SQUARE are checked once each


def _staged(T=3, n=20, K=3):
    xs = ys = np.linspace(0, 1, n)
    S = np.zeros((T + 1, n, n), dtype=np.int16)
    for t in range(T + 1):
        S[t, :, n // 2 :] = 1  # right half class 1
        S[t, : 2 + 3 * t, : n // 2] = 2  # bottom-left block of class 2 grows with t
    X = np.array([[0.1, 0.9], [0.9, 0.1], [0.9, 0.9], [0.2, 0.1]])
    y = np.array([0, 1, 1, 2])
    pred = np.tile(y, (T + 1, 1))
    pred[0, 0] = 2  # a mistake at t = 0 only
    pred[: T // 2 + 1, 3] = 0
    return xs, ys, S, X, y, pred


def _kw(X, y, pred, **extra):
    return {"train": (X[:3], y[:3], pred[:, :3]), "test": (X[3:], y[3:], pred[:, 3:]), **extra}


def _rgb(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGB"))


def _box(rgb: np.ndarray, box: tuple) -> np.ndarray:
    x0, y0, x1, y1 = (round(v) for v in box)
    return rgb[y0:y1, x0:x1]


def _has(rgb: np.ndarray, color: str) -> bool:
    return bool((rgb.reshape(-1, 3) == hex_to_rgb(color)).all(axis=1).any())


def _frames(data: bytes) -> list:
    img = Image.open(io.BytesIO(data))
    out = []
    for t in range(img.n_frames):
        img.seek(t)
        out.append(_rgb(img))
    return out


@pytest.mark.parametrize("size", [export.WIDE, export.SQUARE])
def test_slide_sizes_and_the_png_is_the_gifs_frame(size):
    xs, ys, S, X, y, pred = _staged(T=1)
    png = Image.open(
        io.BytesIO(export.regions_png(xs, ys, S, CLASSES, COSTS, 1, size=size, **_kw(X, y, pred)))
    )
    gif = export.replay_gif(xs, ys, S, CLASSES, COSTS, size=size, **_kw(X, y, pred))
    assert png.format == "PNG" and png.size == size
    frames = _frames(gif)
    assert Image.open(io.BytesIO(gif)).size == size and len(frames) == 2
    np.testing.assert_array_equal(_rgb(png), frames[1])
    lay = export.slide_layout(size, 3)
    assert lay.plot[2] - lay.plot[0] == lay.plot[3] - lay.plot[1]  # the regions plot is square
    for box in (
        lay.plot,
        lay.numbers,
        lay.legend,
        lay.inset,
    ):  # every part inside the slide, none overlapping
        assert 0 <= box[0] < box[2] <= size[0] and 0 <= box[1] < box[3] <= size[1]
    assert lay.plot[2] < lay.numbers[0] and lay.numbers[3] < lay.legend[1] < lay.legend[3] < lay.inset[1]


def test_gif_frame_count_is_the_rounds_shown():
    xs, ys, S, X, y, pred = _staged(T=3)
    assert len(_frames(export.replay_gif(xs, ys, S, CLASSES, COSTS, size=SMALL, **_kw(X, y, pred)))) == 4
    assert export.gif_rounds(3) == [0, 1, 2, 3]
    rounds = export.gif_rounds(500, max_frames=11)
    assert len(rounds) == 11 and rounds[0] == 0 and rounds[-1] == 500 and rounds == sorted(set(rounds))
    xs, ys, S, X, y, pred = _staged(T=12)
    data = export.replay_gif(xs, ys, S, CLASSES, COSTS, size=SMALL, max_frames=5, **_kw(X, y, pred))
    assert len(_frames(data)) == len(export.gif_rounds(12, 5)) == 5


def _mp4_frames(data: bytes) -> tuple:
    """The decoded frames of an MP4 (RGB arrays) and its video stream's codec name and pixel format."""
    import av

    with av.open(io.BytesIO(data)) as box:
        ctx = box.streams.video[0].codec_context
        frames = [f.to_ndarray(format="rgb24") for f in box.decode(video=0)]
        return frames, ctx.name, ctx.pix_fmt


@pytest.mark.parametrize("size", [export.WIDE, export.SQUARE])
def test_mp4_is_h264_of_the_slides_one_frame_per_round_and_the_last_held(size):
    xs, ys, S, X, y, pred = _staged(T=4)
    kw = _kw(X, y, pred, size=size)
    data = export.replay_mp4(xs, ys, S, CLASSES, COSTS, **kw)
    assert data[4:8] == b"ftyp"  # an MP4 box
    frames, codec, pix_fmt = _mp4_frames(data)
    assert codec == "h264" and pix_fmt == "yuv420p"
    hold = export.hold_frames(export.GIF_FRAME_MS)
    assert hold >= 1 and len(frames) == len(export.gif_rounds(4)) + hold == 5 + hold
    assert all(f.shape == (size[1], size[0], 3) for f in frames)
    # each decoded frame is its round's slide (lossy: nearest of all the slides, and close to it)
    slides = [_rgb(f).astype(np.int16) for f in export.slide_frames(xs, ys, S, CLASSES, COSTS, **kw)]
    for i, frame in enumerate(frames):
        err = [np.abs(frame.astype(np.int16) - s).mean() for s in slides]
        assert int(np.argmin(err)) == min(i, 4) and err[min(i, 4)] < 3.0, err
    # frames differ across rounds: the regions grow, the numbers change
    lay = export.slide_layout(size, 3)
    diff = [np.abs(frames[t].astype(np.int16) - frames[t + 1]).max() for t in range(4)]
    assert (
        min(diff) > 60
        and np.abs(_box(frames[0], lay.plot).astype(int) - _box(frames[4], lay.plot)).mean() > 5
    )
    # the held frames repeat the last round
    assert all(np.abs(f.astype(np.int16) - frames[4]).mean() < 1.0 for f in frames[5:])


def test_mp4_odd_sizes_become_even_and_long_replays_are_sampled():
    xs, ys, S, X, y, pred = _staged(T=12)
    data = export.replay_mp4(xs, ys, S, CLASSES, COSTS, size=(641, 481), max_frames=5, **_kw(X, y, pred))
    frames, _, _ = _mp4_frames(data)
    assert frames[0].shape == (480, 640, 3) and len(frames) == 5 + export.hold_frames(export.GIF_FRAME_MS)
    with pytest.raises(ValueError, match="frame_ms must be at least 1"):
        export.replay_mp4(xs, ys, S, CLASSES, COSTS, size=SMALL, frame_ms=0, **_kw(X, y, pred))


def test_exports_stay_within_the_budget_table():
    from rebel import budget

    limit = budget.limit_of("slide_pixels", app=True)
    # the largest export the app offers (16:9, every frame of a long replay, the held last round) fits
    frames = export.MAX_GIF_FRAMES + export.hold_frames(export.GIF_FRAME_MS)
    assert frames * export.WIDE[0] * export.WIDE[1] <= limit
    big = (export.MAX_PIXELS, export.MAX_PIXELS)
    many = limit // (big[0] * big[1]) + 1  # one frame more than the limit allows at the largest size
    xs, ys, S, X, y, pred = _staged(T=many)
    for make in (export.replay_gif, export.replay_mp4):
        with pytest.raises(
            budget.BudgetError, match=r"pixels drawn for one slide export.*smaller slide size"
        ):
            make(xs, ys, S, CLASSES, COSTS, size=big, max_frames=many, **_kw(X, y, pred))


def test_every_frame_has_title_axes_legend_inset_and_its_numbers():
    xs, ys, S, X, y, pred = _staged(T=3)
    kw = _kw(X, y, pred, size=SMALL, two_step_test=pred[:, 3:], bayes=0.25)
    with_inset = [_rgb(f) for f in export.slide_frames(xs, ys, S, CLASSES, COSTS, **kw)]
    without = [_rgb(f) for f in export.slide_frames(xs, ys, S, CLASSES, COSTS, inset=False, **kw)]
    assert len(with_inset) == len(without) == 4
    lay = export.slide_layout(SMALL, 3)
    white = np.array([255, 255, 255])
    for a, b in zip(with_inset, without):
        # the inset: the cost table (black digits, a class colour bar per row and column) only when asked
        assert not np.array_equal(_box(a, lay.inset), _box(b, lay.inset))
        assert (_box(b, lay.inset) == white).all()
        assert all(_has(_box(a, lay.inset), c) for c in class_colors(3)) and _has(
            _box(a, lay.inset), "#000000"
        )
        np.testing.assert_array_equal(a[:, : lay.inset[0]], b[:, : lay.inset[0]])  # nothing else changes
        # the legend: each class's region tint and point colour; the title and the numbers have text
        legend = _box(a, lay.legend)
        assert all(_has(legend, c) for c in region_colors(3) + class_colors(3))
        assert _has(_box(a, lay.title), "#000000") and _has(_box(a, lay.numbers), "#000000")
        # the axes: tick labels and titles left of and under the plot
        x0, y0, x1, y1 = lay.plot
        assert _has(a[y1 + 2 :, x0:x1], "#000000") and _has(a[y0:y1, : x0 - 2], "#000000")
    # the numbers block follows the round (REBEL's test cost changes between t = 1 and t = 2)
    assert not np.array_equal(_box(with_inset[1], lay.numbers), _box(with_inset[2], lay.numbers))
    # the regions inside the plot follow the round too; the rest of the picture stays put
    assert not np.array_equal(_box(with_inset[0], lay.plot), _box(with_inset[3], lay.plot))


def test_the_plot_draws_regions_points_and_mistakes():
    xs, ys, S, X, y, pred = _staged(T=3)
    (img,) = export.slide_frames(xs, ys, S, CLASSES, COSTS, rounds=[0], size=SMALL, **_kw(X, y, pred))
    rgb = _rgb(img)
    lay = export.slide_layout(SMALL, 3)
    x0, y0, x1, y1 = lay.plot
    light = [hex_to_rgb(c) for c in region_colors(3)]
    assert tuple(rgb[y1 - 3, x0 + 3]) == light[2]  # bottom-left: the class-2 block (the y axis points up)
    assert tuple(rgb[(y0 + y1) // 2, x1 - 3]) == light[1]  # right half: class 1
    side = x1 - x0
    cell = side / 20

    def at(px, py, r=6):
        cx, cy = (
            round(x0 + cell / 2 + px / (1 + 1 / 19) * side),
            round(y1 - cell / 2 - py / (1 + 1 / 19) * side),
        )
        return rgb[cy - r : cy + r + 1, cx - r : cx + r + 1]

    assert _has(at(0.9, 0.1), class_colors(3)[1])  # the class-1 training point at (0.9, 0.1)
    assert (at(0.1, 0.9) == 0).all(axis=2).any()  # the mistaken point (0.1, 0.9) gets a black cross
    assert not (at(0.9, 0.9) == 0).all(axis=2).any()  # a right point does not


def test_marker_shapes_follow_the_palette(monkeypatch):
    names = ["circle", "square", "diamond", "triangle-up", "triangle-down", "pentagon", "hexagon", "star"]
    names += ["hourglass", "triangle-left", "triangle-right", "star-diamond"]
    masks = []
    for name in names:
        img = Image.new("L", (40, 40), 0)
        export._marker(ImageDraw.Draw(img), name, 20, 20, 10, 255, 255)
        masks.append(np.asarray(img) > 0)
    assert all(m.sum() > 100 for m in masks)  # each shape is drawn, and no two are alike
    assert len({m.tobytes() for m in masks}) == len(names)
    xs, ys, S = _staged(T=0)[:3]
    lay = export.slide_layout(SMALL, 3)

    def legend():
        (img,) = export.slide_frames(xs, ys, S, CLASSES, COSTS, size=SMALL)
        return _box(_rgb(img), lay.legend)

    monkeypatch.setattr(palette, "class_symbols", lambda K, hollow=False: ["circle"] * K, raising=False)
    circles = legend()
    monkeypatch.setattr(palette, "class_symbols", lambda K, hollow=False: names[1 : K + 1], raising=False)
    assert export.class_markers(3) == names[1:4]
    assert not np.array_equal(circles, legend())


def test_numbers_are_the_engines_staged_costs():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 2)) + np.repeat(np.array([[0, 0], [2, 0], [0, 2]]), 30, axis=0)
    y = np.repeat(np.array(["a", "b", "c"]), 30)
    Xtr, ytr, Xte, yte = X[::2], y[::2], X[1::2], y[1::2]
    fit = {"cost_matrix": COSTS, "max_depth": 1, "n_thresholds": 16}
    model = RebelClassifier(n_estimators=4, **fit).fit(Xtr, ytr)
    idx = {c: i for i, c in enumerate(model.classes_)}
    ytr_i, yte_i = np.array([idx[v] for v in ytr]), np.array([idx[v] for v in yte])
    two_step = model.staged_class_indices(Xte)[::-1]  # any staged predictions of the right shape
    numbers = export.round_numbers(
        COSTS,
        train=(Xtr, ytr_i, model.staged_class_indices(Xtr)),
        test=(Xte, yte_i, model.staged_class_indices(Xte)),
        two_step_test=two_step,
        bayes=0.125,
    )
    for t in (1, 2, 4):  # the model truncated at t is the model trained for t rounds (the staged contract)
        short = RebelClassifier(n_estimators=t, **fit).fit(Xtr, ytr)
        assert numbers["REBEL test"][t] == pytest.approx(short.expected_cost(Xte, yte), rel=1e-12)
        assert numbers["REBEL train"][t] == pytest.approx(short.expected_cost(Xtr, ytr), rel=1e-12)
        assert numbers["two-step test"][t] == pytest.approx(COSTS[yte_i, two_step[t]].mean(), rel=1e-12)
        rows = dict(export.frame_lines(numbers, t, 4))
        assert rows["round t"] == f"{t} of 4"
        assert rows["  REBEL"] == f"{short.expected_cost(Xte, yte):.3f}"
        assert rows["train cost (REBEL)"] == f"{short.expected_cost(Xtr, ytr):.3f}"
        assert rows["  Bayes rule"] == "0.125"
    empty = export.round_numbers(COSTS, train=(Xtr, ytr_i, model.staged_class_indices(Xtr)))
    assert dict(export.frame_lines(empty, 0, 4))["  REBEL"] == "n/a" and empty["two-step test"] is None


def test_nice_ticks():
    np.testing.assert_allclose(export.nice_ticks(-3.2, 4.1), [-2, 0, 2, 4])
    np.testing.assert_allclose(export.nice_ticks(0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert len(export.nice_ticks(5, 5)) == 1


def test_export_checks_its_inputs():
    xs, ys, S, X, y, pred = _staged()
    with pytest.raises(ValueError, match=r"size must be .*\(5, 5000\)"):
        export.regions_png(xs, ys, S, CLASSES, COSTS, 0, size=(5, 5000))
    with pytest.raises(ValueError, match="staged predictions"):
        export.replay_gif(xs, ys, S, CLASSES, COSTS, train=(X[:3], y[:3], pred[0, :3]))
    with pytest.raises(ValueError, match="cost_matrix must be 3x3"):
        export.regions_png(xs, ys, S, CLASSES, np.eye(2), 0, size=SMALL)
    with pytest.raises(ValueError, match="rounds must lie in 0..3"):
        export.regions_png(xs, ys, S, CLASSES, COSTS, 7, size=SMALL)
    with pytest.raises(ValueError, match="max_frames"):
        export.gif_rounds(3, max_frames=1)


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
