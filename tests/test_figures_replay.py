"""rebel.ui.figures.replay: every round in one plotly figure (frames + slider + Play), played in the browser."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from PIL import Image

from rebel.ui.figures import replay
from rebel.ui.figures.palette import hex_to_rgb, region_colors


def _staged(T=4, ny=12, nx=16, K=3):
    """Regions whose class-0 block grows with t; points on a line with staged predictions."""
    xs, ys = np.linspace(0, 1, nx), np.linspace(0, 2, ny)
    S = np.ones((T + 1, ny, nx), dtype=np.int16)
    for t in range(T + 1):
        S[t, : 2 + t, :3] = 0  # bottom-left block (low y) grows upwards
    S[:, -1, -1] = K - 1
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(0, 1, 10), rng.uniform(0, 2, 10)])
    y = np.arange(10) % K
    pred = np.tile(y, (T + 1, 1))
    pred[0, :6] = (y[:6] + 1) % K  # 6 mistakes at t = 0, fewer later
    pred[1, :2] = (y[:2] + 1) % K
    return xs, ys, S, X, y, pred


def _projector_inputs(T: int, K: int):
    """A projector figure's inputs: the staged grid (xs, ys, S) of ``_staged``, 4K points in a line with every
    class right in every round (X, y, pred) and the three costs falling over T rounds."""
    xs, ys, S, _, _, _ = _staged(T=T, K=K)
    X = np.column_stack([np.linspace(0, 1, 4 * K), np.linspace(0, 2, 4 * K)])
    y = np.arange(4 * K) % K
    pred = np.tile(y, (T + 1, 1))
    numbers = {
        "REBEL": np.linspace(1, 0.5, T + 1),
        "two-step": np.linspace(1, 0.6, T + 1),
        "blind": np.ones(T + 1),
    }
    return xs, ys, S, X, y, pred, numbers


def _frames(fig) -> list:
    """The frames as sent to the browser (``fig.to_dict()``, what ``st.plotly_chart`` serialises), validated
    back into ``go.Frame`` objects for attribute access."""
    return [go.Frame(_decoded(f)) for f in fig.to_dict().get("frames", [])]


def _decoded(obj):
    """plotly's base64 typed arrays ({"dtype", "bdata"}) back to numpy arrays, anywhere in a figure dict."""
    if isinstance(obj, dict):
        if set(obj) >= {"dtype", "bdata"}:
            flat = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=obj["dtype"])
            shape = obj.get("shape")
            return flat if shape is None else flat.reshape([int(n) for n in str(shape).split(",")])
        return {k: _decoded(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_decoded(v) for v in obj]
    return obj


def _updates(frame) -> dict:
    """A frame's trace updates by trace index."""
    return dict(zip(frame.traces, frame.data))


def _png_rgb(uri: str) -> np.ndarray:
    data = base64.b64decode(uri.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def test_class_grid_png_is_the_grid_in_region_colours():
    _, _, S, *_ = _staged()
    rgb = _png_rgb(replay.png_data_uri(replay.class_grid_png(S[2], 3)))
    assert rgb.shape == (12, 16, 3)
    colors = np.array([hex_to_rgb(c) for c in region_colors(3)])
    assert np.array_equal(rgb, colors[S[2]])  # row 0 of the grid is the image's top row
    with pytest.raises(ValueError, match="n_classes"):
        replay.class_grid_png(S[2], 2)


def test_replay_figure_frames_slider_and_buttons():
    xs, ys, S, X, y, pred = _staged()
    sizes = np.tile(np.linspace(3, 20, 10), (5, 1)) * np.arange(1, 6)[:, None] / 5
    fig = replay.replay_figure(
        xs,
        ys,
        S,
        ["a", "b", "c"],
        train=(X, y, pred),
        test=(X[:4], y[:4], pred[:, :4]),
        train_sizes=sizes,
        start=1,
        title="REBEL's regions",
    )
    assert len(_frames(fig)) == 5 and [f.name for f in _frames(fig)] == [f"t{t}" for t in range(5)]
    slider = fig.layout.sliders[0]
    assert len(slider.steps) == 5 and slider.active == 1
    assert [list(s.args[0]) for s in slider.steps] == [[f"t{t}"] for t in range(5)]
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert any("Play" in lab for lab in labels) and any("Pause" in lab for lab in labels)
    play = fig.layout.updatemenus[0].buttons[0]
    assert play.method == "animate"
    names = [tr.name for tr in fig.data]
    i_wrong = names.index("mistake")
    assert fig.layout.title.text == "REBEL's regions"
    assert slider.currentvalue.prefix == "round t = " and slider.currentvalue.suffix == " of 4"
    assert [s.label for s in slider.steps] == [str(t) for t in range(5)]  # the counter names the round shown
    colors = np.array([hex_to_rgb(c) for c in region_colors(3)])
    image = fig.layout.images[0]
    assert image.xref == "x" and image.layer == "below" and image.sizing == "stretch"
    assert np.isclose(image.x, xs[0] - (xs[1] - xs[0]) / 2) and np.isclose(
        image.y, ys[-1] + (ys[1] - ys[0]) / 2
    )
    assert np.array_equal(_png_rgb(image.source), colors[S[1][::-1]])  # the first view shows round `start`
    # frame t: the regions picture of round t (top row = highest y), the crosses of round t's mistakes
    for t in (0, 3):
        fr = _frames(fig)[t]
        assert np.array_equal(_png_rgb(fr.layout.images[0].source), colors[S[t][::-1]])
        up = _updates(fr)
        X_all, y_all, p_all = np.vstack([X, X[:4]]), np.r_[y, y[:4]], np.r_[pred[t], pred[t, :4]]
        expect = X_all[p_all != y_all].astype(np.float32)
        assert np.array_equal(np.c_[up[i_wrong].x, up[i_wrong].y], expect)
    # no frame needs a full redraw: plotly animates it in place
    assert play.args[1]["frame"]["redraw"] is False and slider.steps[2].args[1]["frame"]["redraw"] is False
    X_all, y_all, p_all = np.vstack([X, X[:4]]), np.r_[y, y[:4]], np.r_[pred[1], pred[1, :4]]
    assert len(fig.data[i_wrong].x) == np.sum(p_all != y_all) == 4  # the first view shows round `start`
    # training-point sizes follow t, per class trace
    train_traces = [i for i, n in enumerate(names) if n and n.endswith("(train)")]
    up = _updates(_frames(fig)[4])
    assert set(up) == set(train_traces) | {i_wrong}
    for i in train_traces:
        rows = np.asarray(fig.data[i].customdata)
        np.testing.assert_array_equal(np.asarray(up[i].marker.size), np.rint(sizes[4][rows]))
        np.testing.assert_array_equal(np.asarray(fig.data[i].marker.size), np.rint(sizes[1][rows]))
    fig.to_json()


def test_play_shows_a_new_round_every_second_frame_of_a_60_hz_screen():
    """Plotly's animation loop runs on display frames and moves to the next round on the first one more than the
    frame duration after the last round began: the duration Play asks for gives 30 rounds a second at 60 Hz
    (the page's promise: Play at 30 frames a second or more)."""
    tick = 1000 / 60

    def frames_between_rounds(duration_ms: float) -> int:
        return next(k for k in range(1, 100) if k * tick > duration_ms)

    assert frames_between_rounds(replay.FRAME_MS) == 2
    assert frames_between_rounds(40) == 3  # (the former duration: 20 rounds a second)
    xs, ys, S, X, y, pred = _staged()
    fig = replay.replay_figure(xs, ys, S, ["a", "b", "c"], train=(X, y, pred))
    for button in fig.layout.updatemenus[0].buttons[:2]:  # Play and "from t = 0"
        assert button.args[1]["frame"]["duration"] == replay.FRAME_MS


def test_replay_frames_stay_small():
    """100 rounds on a 200 x 200 grid: the regions of all frames take well under a uint8 heatmap's 53 kB each."""
    T, n = 100, 200
    xs = ys = np.linspace(-1, 1, n)
    r = np.hypot(*np.meshgrid(xs, ys))
    S = np.stack([(r < 0.2 + 0.006 * t).astype(np.int16) + (xs[None, :] > 0.5) for t in range(T + 1)])
    fig = replay.replay_figure(xs, ys, S, ["a", "b", "c"])
    frames = json.loads(pio.to_json(fig))["frames"]
    assert len(frames) == T + 1
    size = len(json.dumps(frames))
    assert size < 5_000 * (T + 1)  # a base64 uint8 heatmap frame would be 53_000 bytes


def test_the_replay_carries_none_of_streamlits_colour_placeholders():
    """With streamlit imported, plotly's default template is Streamlit's, full of "#0000NN" placeholders that its
    chart rewrites in the browser, each one found by a copy of the whole spec: the replay takes a lean template."""
    import re

    import streamlit  # noqa: F401 (registers Streamlit's template as plotly's default)

    assert pio.templates.default == "streamlit"
    with_default = go.Figure().to_json()
    assert re.search(r"#0000(0[1-9]|[1-3][0-9]|40)", with_default)  # the check can fail
    T, n = 3, 12
    xs = ys = np.linspace(-1, 1, n)
    rng = np.random.default_rng(0)
    S, y, X = rng.integers(0, 3, size=(T + 1, n, n)), rng.integers(0, 3, 30), rng.normal(size=(30, 2))
    pred = rng.integers(0, 3, size=(T + 1, 30))
    fig = replay.replay_figure(xs, ys, S, ["a", "b", "c"], train=(X, y, pred), test=(X, y, pred))
    spec = pio.to_json(fig, validate=False)
    assert not re.search(r"#0000(0[1-9]|[1-3][0-9]|40)", spec)
    assert fig.layout.template.data.scatter[0].marker.line.width == 0  # the one default kept


def test_replay_without_points_and_bad_shapes():
    xs, ys, S, X, y, pred = _staged()
    fig = replay.replay_figure(xs, ys, S, ["a", "b", "c"])
    assert len(fig.data) == 0 and len(fig.layout.images) == 1 and len(_frames(fig)) == 5
    assert all(len(f.traces) == 0 and len(f.layout.images) == 1 for f in _frames(fig))
    with pytest.raises(ValueError, match="staged predictions"):
        replay.replay_figure(xs, ys, S, ["a", "b", "c"], train=(X, y, pred[:3]))
    with pytest.raises(ValueError, match=r"\(T \+ 1, ny, nx\)"):
        replay.replay_figure(xs, ys, S[0], ["a", "b", "c"])


def test_replay_two_step_boundaries_and_disagreement_follow_t():
    xs, ys, S, *_ = _staged()
    other = S.copy()
    other[:, :, 8:] = 2  # the other model differs on the right
    other[3, :, 4:] = 2  # and more at t = 3
    fig = replay.replay_figure(
        xs, ys, S, ["a", "b", "c"], other_regions=other, show_other=True, show_disagreement=True, start=0
    )
    names = [tr.name for tr in fig.data]
    assert "REBEL ≠ two-step" in names and "two-step boundaries" in names  # legend entries
    assert len(fig.layout.images) == 3
    # plotly draws one layout image per placement: the overlays must not share the regions' placement
    assert len({(im.x, im.y, im.sizex, im.sizey) for im in fig.layout.images}) == 3
    for t in (0, 3):
        mask, lines = _frames(fig)[t].layout.images[1:]
        rgba = np.asarray(
            Image.open(io.BytesIO(base64.b64decode(lines.source.split(",", 1)[1]))).convert("RGBA")
        )
        on_line = rgba[..., 3][::-1] > 0
        edge = np.zeros(S[t].shape, bool)
        edge[:, :-1] |= other[t][:, 1:] != other[t][:, :-1]
        edge[:-1, :] |= other[t][1:, :] != other[t][:-1, :]
        assert np.array_equal(on_line, edge)  # the boundary cells of round t, and only those
        colours = {tuple(c) for c in rgba[..., :3][rgba[..., 3] > 0]}
        assert colours == {(255, 255, 255), (17, 17, 17)}  # dashes of white and near-black
        assert mask.name == "disagreement" and 0 < mask.opacity < 1
        data = base64.b64decode(mask.source.split(",", 1)[1])
        alpha = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))[..., 3]
        assert np.array_equal(alpha > 0, (other[t] != S[t])[::-1])  # dark exactly where the models differ
    with pytest.raises(ValueError, match="other_regions"):
        replay.replay_figure(xs, ys, S, ["a", "b", "c"], other_regions=other[:2], show_other=True)


def test_before_after_is_one_figure_with_each_panels_regions_and_mistakes():
    xs, ys, S, X, y, pred = _staged()
    before, after = S[0], S[4]
    fig = replay.before_after_figure(
        xs, ys, [(before, pred[0], "0-1 <b>costs</b>"), (after, pred[4], "yours")], ["a", "b", "c"], (X, y)
    )
    colors = np.array([hex_to_rgb(c) for c in region_colors(3)])
    images = fig.layout.images
    assert [(im.xref, im.yref) for im in images] == [("x", "y"), ("x2", "y2")]
    assert np.array_equal(_png_rgb(images[0].source), colors[before[::-1]])
    assert np.array_equal(_png_rgb(images[1].source), colors[after[::-1]])
    crosses = [tr for tr in fig.data if tr.name == "mistake"]
    assert [tr.xaxis for tr in crosses] == ["x", "x2"]
    for tr, p in zip(crosses, (pred[0], pred[4])):
        np.testing.assert_array_equal(np.c_[tr.x, tr.y], X[p != y])
    assert sum(bool(tr.showlegend) for tr in fig.data) == len(fig.data) // 2  # one legend entry per layer
    assert "&lt;b&gt;" in fig.layout.annotations[0].text  # titles are escaped


@pytest.mark.parametrize("K", [3, 5, 12])
def test_projector_legend_has_one_entry_per_class_in_two_columns_from_four_classes(K):
    """Presentation mode's legend: each class once (its name, the training marker; the test points share the
    entry), the mistake crosses and what hollow means; up to 3 classes in one column, more in two (legend, legend2) of at most one row
    apart, long names cut to a half column; the layout's presentation fonts reach both columns."""
    from rebel.ui.figures import style

    T = 3
    xs, ys, S, _, _, _ = _staged(T=T, K=K)
    X = np.column_stack([np.linspace(0, 1, 4 * K), np.linspace(0, 2, 4 * K)])
    y = np.arange(4 * K) % K
    pred = np.tile(y, (T + 1, 1))
    names = [f"class number {k}" if k == 1 else f"c{k}" for k in range(K)]
    numbers = {
        "REBEL": np.linspace(1, 0.5, T + 1),
        "two-step": np.linspace(1, 0.6, T + 1),
        "blind": np.ones(T + 1),
    }
    fig = replay.replay_figure(
        xs, ys, S, names, train=(X, y, pred), test=(X, y, pred), numbers=numbers, projector=True
    )
    shown = [tr for tr in fig.data if tr.showlegend is not False and tr.name]
    entries = [tr.name for tr in shown]
    assert len(entries) == K + 2 and entries[-2:] == ["mistake", replay.TEST_HINT], entries
    assert not [n for n in entries if "(train)" in n or "(test)" in n]
    two = K > replay.PROJECTOR_LEGEND_ROWS
    columns = {getattr(tr, "legend", None) or "legend" for tr in shown}
    assert columns == ({"legend", "legend2"} if two else {"legend"})
    if two:
        first = sum(1 for tr in shown if (getattr(tr, "legend", None) or "legend") == "legend")
        assert abs(first - (K + 2 - first)) <= 1
        assert fig.layout.legend2.x > fig.layout.legend.x and "class num…" in entries
        style.presentation(fig, size=None, font_size=style.PRESENTATION_FONT_SCREEN)
        assert fig.layout.legend2.font.size == fig.layout.legend.font.size > 11
    else:
        assert "class number 1" in entries


@pytest.mark.parametrize("K", [3, 12])
def test_narrow_projector_layout_puts_the_verdict_above_and_the_strip_under_the_legend(K):
    """The narrow projector layout (a box narrower than it is high: the sidebar open at 1280x720): the verdict's
    figures join the numbers above the regions (no text beside them but the legend), the legend starts at the
    plot area's top beside the regions, and, once fonts are set, the cost strip lies under the legend and its key,
    clear of the regions; a two-column legend only from ``NARROW_LEGEND_ROWS`` classes on."""
    from rebel.ui.figures import style

    assert (
        replay.narrow_box(560, 612) and not replay.narrow_box(800, 612) and not replay.narrow_box(None, 612)
    )
    T = 3
    xs, ys, S, X, y, pred, numbers = _projector_inputs(T, K)
    names = [f"elderberry{k}" for k in range(K)]
    fig = replay.replay_figure(
        xs, ys, S, names, train=(X, y, pred), test=(X, y, pred), numbers=numbers, projector=True, narrow=True,
        height=612, title="REBEL's minimum-risk class",
    )  # fmt: skip
    style.presentation(fig, size=None, font_size=style.PRESENTATION_FONT_SCREEN)
    replay.fit_projector_legend(fig)
    L = fig.layout
    texts = {tr.name: tr for tr in fig.data if tr.mode == "text"}
    assert "verdict" not in texts and "costs ignored" in texts["numbers"].text[0]
    assert "minimum-risk" not in texts["numbers"].text[0]
    plane, side = L.xaxis.domain, L.legend.x
    assert plane[1] < side < L.xaxis3.domain[0] and L.legend.yanchor == "top"
    low, high = L.yaxis3.domain
    assert high < 1 - 0.05 and low > 0  # under its key, above its tick labels
    if (
        K > replay.NARROW_LEGEND_ROWS
    ):  # two legend columns would squeeze it: the strip first, the legend under it
        assert L.legend.y < low and (high - low) * _area(L) >= replay.STRIP_MIN_PX - 0.5
    else:  # the legend from the plot area's top, the strip under it
        assert L.legend.y == 1
    keys = [a for a in L.annotations if a.name == replay.STRIP_KEY]  # the strip's key above it, lifted clear
    assert (
        L.xaxis3.title.text == "" and replay.STRIP_KEY not in texts and len(keys) == 1 and keys[0].yshift > 0
    )
    two = "legend2" in L.to_plotly_json()
    assert two == (K > replay.NARROW_LEGEND_ROWS)
    if two:
        entries = [tr.name for tr in fig.data if tr.showlegend is not False and tr.name]
        assert all(len(n) <= replay.NARROW_NAME_CHARS for n in entries if n.startswith("elder"))
    wide = replay.replay_figure(
        xs, ys, S, names, train=(X, y, pred), test=(X, y, pred), numbers=numbers, projector=True, height=612
    )
    assert (
        "verdict" in {tr.name for tr in wide.data}
        and tuple(wide.layout.xaxis.domain) == replay.PROJECTOR_PLANE_X
    )


def _area(L) -> float:
    """The plot area's height in px of a figure laid out with a fixed height."""
    return L.height - L.margin.t - L.margin.b


@pytest.mark.parametrize("K", [4, 12])
def test_the_projector_strip_keeps_its_height_under_a_two_column_legend(K):
    """Presentation mode at a 1280 x 720 screen's plot box, a two-column legend: the cost strip keeps
    ``STRIP_MIN_PX`` for its curves. With twelve classes (seven rows) it sits right under the verdict with its key
    above it, and the legend (both columns) goes under the strip's round labels; with four classes (three rows)
    the legend stays above the strip, its key under it as before."""
    from rebel.ui.figures import style

    T = 3
    xs, ys, S, X, y, pred, numbers = _projector_inputs(T, K)
    fig = replay.replay_figure(
        xs, ys, S, [f"c{k}" for k in range(K)], train=(X, y, pred), test=(X, y, pred), numbers=numbers,
        projector=True, height=replay.PROJECTOR_GUESS_HEIGHT,
    )  # fmt: skip
    style.presentation(fig, size=None, font_size=style.PRESENTATION_FONT_SCREEN)
    replay.fit_projector_legend(fig)
    L = fig.layout
    low, high = L.yaxis3.domain
    keys = [a for a in L.annotations if a.name == replay.STRIP_KEY]
    assert (high - low) * _area(L) >= replay.STRIP_MIN_PX - 0.5
    if K == 12:
        assert L.legend.y == L.legend2.y < low and L.legend.yanchor == "top"
        assert len(keys) == 1 and keys[0].font.size >= 20 and L.xaxis3.title.text == ""
    else:
        assert L.legend.y > high and not keys and L.xaxis3.title.text.startswith("test cost by round t")


def test_one_screen_legend_has_one_entry_per_class_and_says_what_hollow_means():
    """The Playground's one-screen replay (numbers, no projector): one entry per class, the mistakes and the
    hollow test points (a row at 1280x720 instead of three that covered the x tick labels)."""
    xs, ys, S, X, y, pred = _staged(T=3)
    numbers = {"REBEL": np.linspace(1, 0.5, 4), "two-step": np.linspace(1, 0.6, 4), "blind": np.ones(4)}
    fig = replay.replay_figure(
        xs, ys, S, ["a", "b", "c"], train=(X, y, pred), test=(X, y, pred), numbers=numbers
    )
    entries = [tr.name for tr in fig.data if tr.showlegend is not False and tr.name]
    assert entries == ["a", "b", "c", "mistake", replay.TEST_HINT]
    no_test = replay.replay_figure(xs, ys, S, ["a", "b", "c"], train=(X, y, pred), numbers=numbers)
    assert replay.TEST_HINT not in [tr.name for tr in no_test.data]


@pytest.mark.parametrize("n_colors", [2, 3, 4, 5, 16, 17, 256])
@pytest.mark.parametrize("width", [1, 7, 13, 16])
def test_palette_pngs_decode_to_their_codes_at_every_bit_depth(n_colors, width):
    """The hand-written PNGs (rows packed at 1, 2, 4 or 8 bits, odd widths padded) decode, with PIL, to the
    codes and palette they were made from; code 0 is fully transparent when asked."""
    rng = np.random.default_rng(n_colors * 100 + width)
    codes = rng.integers(0, n_colors, size=(3, 5, width), dtype=np.uint8)
    codes[0, 0, 0] = n_colors - 1  # the largest code appears
    palette = rng.integers(0, 256, size=3 * n_colors).tolist()
    for transparent in (False, True):
        pngs = replay.palette_pngs(codes, palette, transparent_zero=transparent)
        assert len(pngs) == 3
        for png, grid in zip(pngs, codes):
            img = Image.open(io.BytesIO(png))
            assert img.mode == "P" and img.size == (width, 5)
            assert np.array_equal(np.asarray(img), grid)
            rgba = np.asarray(img.convert("RGBA"))
            assert np.array_equal(rgba[..., :3], np.asarray(palette, np.uint8).reshape(-1, 3)[grid])
            alpha = np.where(grid == 0, 0, 255) if transparent else np.full(grid.shape, 255)
            assert np.array_equal(rgba[..., 3], alpha)
    if n_colors < 256:
        with pytest.raises(ValueError, match="palette"):
            replay.palette_pngs(np.full((1, 2, 2), n_colors, np.uint8), palette)
    with pytest.raises(ValueError, match="non-empty"):
        replay.palette_pngs(codes[:, :, :0], palette)


def test_replay_layouts_pass_plotly_validation():
    """The replay's layout is set without plotly's per-property validation (``style.set_layout``): every
    variant of it must still be a layout plotly's validation accepts, key for key."""
    T = 3
    xs, ys, S, X, y, pred = _staged(T=T, K=5)
    numbers = {
        "REBEL": np.linspace(1, 0.5, T + 1),
        "two-step": np.linspace(1, 0.6, T + 1),
        "blind": np.ones(T + 1),
        "Bayes": 0.4,
    }
    other = S.copy()
    other[:, :, 8:] = 2
    names = [f"c{k}" for k in range(5)]
    variants = [
        {},
        {"numbers": numbers},
        {"numbers": numbers, "projector": True},
        {"numbers": numbers, "other_regions": other, "show_other": True, "show_disagreement": True},
        {"numbers": numbers, "height": None},  # the chart's box decides: no height in the layout
    ]
    for kw in variants:
        fig = replay.replay_figure(xs, ys, S, names, train=(X, y, pred), test=(X, y, pred), **kw)
        sent = json.loads(pio.to_json(fig, validate=False))["layout"]
        checked = json.loads(go.Layout(sent).to_json())  # raises on any key or value plotly rejects
        assert checked == sent, kw
        assert ("height" in sent) == (kw.get("height", 600) is not None)
        assert fig.layout.xaxis.range == (xs[0], xs[-1]) and fig.layout.yaxis.scaleanchor == "x"
        fig.update_layout(width=500)  # later updates validate as usual
        with pytest.raises(ValueError):
            fig.update_layout(xaxis={"no_such_key": 1})


def test_merge_layout_merges_dicts_and_replaces_the_rest():
    from rebel.ui.figures.style import merge_layout

    base = {"margin": {"l": 1, "r": 2}, "images": [1], "title": "a"}
    out = merge_layout(base, {"margin": {"r": 5, "t": 3}, "images": [2, 3]}, {"title": {"text": "b"}})
    assert out is base
    assert base == {"margin": {"l": 1, "r": 5, "t": 3}, "images": [2, 3], "title": {"text": "b"}}


@pytest.mark.parametrize("projector", [False, True])
def test_the_cost_strip_names_its_lines_in_their_colours(projector):
    from rebel.ui.figures.palette import MODEL_COLORS

    T = 3
    xs, ys, S, _, _, _ = _staged(T=T, K=3)
    X, y = np.array([[0.0, 0.0], [1.0, 1.0], [0.5, 2.0]]), np.arange(3)
    numbers = {
        "REBEL": np.linspace(1, 0.5, T + 1),
        "two-step": np.linspace(1, 0.6, T + 1),
        "blind": np.ones(T + 1),
    }
    pred = np.tile(y, (T + 1, 1))
    fig = replay.replay_figure(
        xs, ys, S, ["a", "b", "c"], train=(X, y, pred), numbers=numbers, projector=projector
    )
    keys = [tr for tr in fig.data if tr.name == replay.STRIP_KEY]
    notes = [a for a in fig.layout.annotations if a.name == replay.STRIP_KEY]
    if projector:  # under the strip's round labels, with its title: never over its curves
        assert not keys and not notes
        text = fig.layout.xaxis3.title.text
        assert text.startswith("test cost by round t<br>")
    else:  # inside its top right, where the curves end low
        assert not notes and len(keys) == 1 and (keys[0].xaxis, keys[0].yaxis) == ("x3", "y3")
        text = keys[0].text[0]
    for name, colour in MODEL_COLORS.items():
        assert f"color:{colour}'>━ {name}<" in text
    strip = [tr for tr in fig.data if getattr(tr, "xaxis", None) == "x3" and tr.mode == "lines"]
    assert {tr.line.color for tr in strip} >= set(MODEL_COLORS.values())


def test_the_numbers_show_the_calibrated_two_step_after_all_rounds_when_given():
    from rebel.ui.figures.replay_numbers import numbers_lines, numbers_text, projector_texts

    T = 4
    numbers = {
        "REBEL": np.linspace(1.0, 0.5, T + 1),
        "two-step": np.linspace(1.0, 0.6, T + 1),
        "blind": np.full(T + 1, 0.7),
        "Bayes": 0.4,
        "tie": 0.0,
    }
    with_cal = {**numbers, "calibrated": 0.4567}
    assert numbers_lines(with_cal) == numbers_lines(numbers) + 1
    for t in range(T + 1):
        assert "calibrated" not in numbers_text(numbers, t, T) + "".join(projector_texts(numbers, t, T))
        text, (head, side) = numbers_text(with_cal, t, T), projector_texts(with_cal, t, T)
        assert (
            text.split("<br>")[-1] == "calibrated two-step: <b>0.457</b> at t = 4"
        )  # the same at every round
        assert text.count("<br>") + 1 == numbers_lines(with_cal)
        assert side.endswith("calibrated two-step:<br><b>0.457</b> at t = 4") and "calibrated" not in head
