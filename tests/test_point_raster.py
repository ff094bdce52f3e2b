"""The data points drawn as one image (``rebel.ui.figures.point_raster``) and the regions figure that uses it
(``replay.points_as_image``): marker shapes, sizes and outlines as plotly draws them, each point at its place,
plotly's drawing order, the cache and its budget, and a figure whose points, hover labels, legend and frames
stay what they were. Chromium compares the drawn pictures (``tests/e2e/test_points_image_browser.py``)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from rebel import budget
from rebel.ui.figures import point_raster as pr
from rebel.ui.figures import replay
from rebel.ui.figures.palette import CLASS_SYMBOLS, class_colors
from rebel.ui.playground import compute as pg
from rebel.ui.state import SharedLRU

RED, BLUE = "#d00000", "#0000d0"


def _alpha(image) -> np.ndarray:
    return np.asarray(image, dtype=np.float64)[..., 3] / 255.0


def _area(poly: np.ndarray) -> float:
    return 0.5 * abs(np.sum(poly[:, 0] * np.roll(poly[:, 1], -1) - np.roll(poly[:, 0], -1) * poly[:, 1]))


def _one(symbol: str, size: float = 7.0, line=(0.6, "white"), color=RED, xy=(0.0, 0.0), shape=(41, 41)):
    """One marker at data ``xy`` on a canvas of ``shape`` px spanning [-1, 1] x [-1, 1]."""
    layers = [(np.array([xy]), symbol, size, color, line)]
    return pr.points_image(layers, (-1, 1), (-1, 1), shape)


@pytest.mark.parametrize("symbol", [s for s in CLASS_SYMBOLS if s != "hourglass"])
def test_a_filled_marker_covers_its_shape_grown_by_half_its_outline(symbol):
    """The alpha of a filled marker sums to the area of its shape (radius size / 2) moved out by half the
    outline's width (a stroke centred on the edge), within 5% (the fine pixels along the edge: ~0.06 px)."""
    r, width = 7.0 / 2, 0.6
    expected = _area(pr._offset(pr.SHAPES[symbol] * r, width / 2))
    assert _alpha(_one(symbol)).sum() == pytest.approx(expected, rel=0.05)


@pytest.mark.parametrize("symbol", ["circle", "square", "triangle-up", "pentagon"])
def test_a_hollow_marker_is_a_ring_as_wide_as_its_outline(symbol):
    r, width = 7.0 / 2, 1.8
    shape = pr.SHAPES[symbol] * r
    ring = _area(pr._offset(shape, width / 2)) - _area(pr._offset(shape, -width / 2))
    image = _one(symbol + "-open", line=(width, RED))
    assert _alpha(image).sum() == pytest.approx(ring, rel=0.05)
    assert _alpha(image)[20, 20] == 0.0  # the centre shows what lies below


def test_outlines_are_mitred_offsets():
    square = pr.SHAPES["square"]
    np.testing.assert_allclose(pr._offset(square, 0.25), square * 1.25)
    np.testing.assert_allclose(pr._offset(square[::-1], 0.25), square[::-1] * 1.25)  # either winding
    circle = pr._offset(pr.SHAPES["circle"] * 3, 0.5)
    assert np.linalg.norm(circle, axis=1) == pytest.approx(3.5, rel=2e-3)


def test_shapes_point_the_way_plotly_draws_them():
    """Screen rows grow downwards: triangle-up's tip is above its centre, triangle-down's below, the star's
    single tip on top."""
    rows = np.arange(41)[:, None]

    def extent(symbol):
        a = _alpha(_one(symbol, size=14, line=(0, "white")))
        covered = rows[(a > 0.5).any(axis=1)].ravel()
        return 20 - covered.min(), covered.max() - 20  # px above and below the centre row

    up, down = extent("triangle-up"), extent("triangle-down")
    assert up[0] > up[1] + 2 and down[1] > down[0] + 2
    assert extent("star")[0] > extent("star")[1]


def test_a_marker_is_centred_on_its_point():
    """On a 41 x 41 canvas over [-1, 1]^2, the point (x, y) has its pixel centre at ((x + 1) / 2 * 41,
    (1 - y) / 2 * 41); the alpha-weighted centre of a circle lands within half a sub-pixel phase and half a
    fine pixel of it."""
    rng = np.random.default_rng(3)
    ii, jj = np.mgrid[0:41, 0:41] + 0.5
    for x, y in rng.uniform(-0.6, 0.6, size=(8, 2)):
        a = _alpha(_one("circle", xy=(x, y)))
        cx, cy = (a * jj).sum() / a.sum(), (a * ii).sum() / a.sum()
        tolerance = 0.5 / pr.PHASES + 0.5 / pr.SUPERSAMPLE + 0.01
        assert cx == pytest.approx((x + 1) / 2 * 41, abs=tolerance)
        assert cy == pytest.approx((1 - y) / 2 * 41, abs=tolerance)


def test_later_points_are_drawn_over_earlier_ones():
    layers = [
        (np.array([[0.0, 0.0]]), "square", 9, RED, (0.0, "white")),
        (np.array([[0.05, 0.0]]), "square", 9, BLUE, (0.0, "white")),
    ]
    centre = np.asarray(pr.points_image(layers, (-1, 1), (-1, 1), (41, 41)))[20, 21]
    assert tuple(centre) == (0, 0, 208, 255)
    swapped = np.asarray(pr.points_image(layers[::-1], (-1, 1), (-1, 1), (41, 41)))[20, 21]
    assert tuple(swapped) == (208, 0, 0, 255)


def test_the_white_outline_and_the_fill_keep_their_colours():
    a = np.asarray(_one("square", size=14, line=(2.0, "white")))
    assert tuple(a[20, 20]) == (208, 0, 0, 255)  # inside: the fill
    assert tuple(a[20, 20 + 7]) == (255, 255, 255, 255)  # on the edge (7 px out): the outline


def test_points_off_the_plot_are_left_out_and_png_rows_run_top_down():
    layers = [(np.array([[5.0, 5.0], [0.0, 0.9]]), "circle", 7, RED, (0.0, "white"))]
    image = pr.points_image(layers, (-1, 1), (-1, 1), (41, 41))
    a = _alpha(image)
    assert a[:8].sum() > 10 and a[8:].sum() == 0.0  # only the point near the top
    png = Image.open(io.BytesIO(pr.points_png(layers, (-1, 1), (-1, 1), (41, 41))))
    assert png.mode == "P"  # a palette: exact, as the image has fewer colours than a palette holds
    np.testing.assert_array_equal(np.asarray(png.convert("RGBA")), np.asarray(image))


def test_many_colours_get_a_palette_near_them_and_a_much_smaller_png():
    rng = np.random.default_rng(3)
    layers = [
        (rng.uniform(-1, 1, (400, 2)), symbol, 9, colour, (0.6, "white"))
        for symbol, colour in (("circle", RED), ("diamond", "#0072b2"), ("square", "#e69f00"))
    ]
    image = pr.points_image(layers, (-1, 1), (-1, 1), (300, 300), scale=2.0)
    assert image.getcolors(pr.PALETTE) is None  # antialiased edges: more colours than a palette holds
    png = pr.points_png(layers, (-1, 1), (-1, 1), (300, 300), scale=2.0)
    back = np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"), dtype=float)
    full = io.BytesIO()
    image.save(full, "PNG", compress_level=pr.PNG_LEVEL)
    assert len(png) < 0.6 * len(full.getvalue())

    def over_white(a):
        alpha = a[..., 3:] / 255
        return a[..., :3] * alpha + 255 * (1 - alpha)

    diff = np.abs(over_white(back) - over_white(np.asarray(image, dtype=float))).sum(axis=-1)
    # measured: 2.5 here (a dense image, mostly edges), 1.2 for airport at 1280x720; no pixel over 60
    assert diff.mean() < 5.0 and (diff > 60).mean() < 0.01, (diff.mean(), (diff > 60).mean())


def test_scale_draws_the_same_markers_at_more_pixels():
    one = _alpha(_one("circle")).sum()
    layers = [(np.array([[0.0, 0.0]]), "circle", 7.0, RED, (0.6, "white"))]
    two = _alpha(pr.points_image(layers, (-1, 1), (-1, 1), (82, 82), scale=2.0)).sum()
    assert two == pytest.approx(4 * one, rel=0.02)


def test_bad_colours_and_sizes_are_named():
    with pytest.raises(ValueError, match="'red'"):
        _one("circle", color="red")
    with pytest.raises(ValueError, match="shape_px"):
        pr.points_image([], (-1, 1), (-1, 1), (0, 10))


def test_a_shared_store_bounds_the_bytes_of_the_images_it_keeps():
    store = SharedLRU(8, max_bytes=250)
    for k in range(4):
        store.put(str(k), bytes(100))
    assert len(store) == 2 and "3" in store and "0" not in store


def test_the_cache_keeps_few_images_and_the_budget_refuses_huge_ones():
    pg.POINTS_IMAGES.clear()
    layers = [(np.array([[0.0, 0.0]]), "circle", 7.0, RED, (0.6, "white"))]
    first = pg.points_png_cached(layers, (-1, 1), (-1, 1), (20, 20))
    assert pg.points_png_cached(layers, (-1, 1), (-1, 1), (20, 20)) is first
    moved = [(np.array([[0.1, 0.0]]), "circle", 7.0, RED, (0.6, "white"))]
    assert pg.points_png_cached(moved, (-1, 1), (-1, 1), (20, 20)) != first
    for n in range(pg.POINTS_IMAGES.limit + 3):
        pg.points_png_cached(layers, (-1, 1), (-1, 1), (10 + n, 10))
    assert len(pg.POINTS_IMAGES) == pg.POINTS_IMAGES.limit
    side = int(np.sqrt(budget.limit_of("points_image_pixels", app=True))) + 1
    with pytest.raises(budget.BudgetError, match="points_image_pixels|pixels"):
        pg.points_png_cached(layers, (-1, 1), (-1, 1), (side, side))


# --- the regions figure ------------------------------------------------------------------------------------


def _figure(width=780, height=668, projector=False, sizes=False, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    T, n = 4, 60
    xs = ys = np.linspace(-3, 3, 40)
    regions = rng.integers(0, n_classes, size=(T + 1, 40, 40))
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, n_classes, size=n)
    pred = rng.integers(0, n_classes, size=(T + 1, n))
    numbers = {
        "REBEL": np.linspace(1, 0.5, T + 1),
        "two-step": np.linspace(1, 0.6, T + 1),
        "blind": np.linspace(1, 0.7, T + 1),
        "Bayes": 0.4,
        "tie": 0.0,
    }
    classes = [f"c{k}" for k in range(n_classes)]
    fig = replay.replay_figure(
        xs,
        ys,
        regions,
        classes,
        train=(X[:40], y[:40], pred[:, :40]),
        test=(X[40:], y[40:], pred[:, 40:]),
        train_sizes=rng.uniform(4, 12, size=(T + 1, 40)) if sizes else None,
        height=height,
        numbers=numbers,
        projector=projector,
    )
    if width:
        fig.update_layout(width=width)
    return fig


def _legend(fig) -> list:
    """The legend as plotly orders it: (legend, name, symbol) of each shown entry, by rank then trace order."""
    shown = [
        (tr.legendrank or 1000, i, tr)
        for i, tr in enumerate(fig.data)
        if tr.type == "scatter" and tr.showlegend is not False
    ]
    return [
        (tr.legend or "legend", tr.name, getattr(getattr(tr, "marker", None), "symbol", None))
        for _, _, tr in sorted(shown, key=lambda e: e[:2])
    ]


@pytest.mark.parametrize("projector", [False, True])
def test_the_figure_keeps_its_points_hover_legend_and_frames(projector):
    svg = _figure(projector=projector, n_classes=6 if projector else 3)
    img = _figure(projector=projector, n_classes=6 if projector else 3)
    n_before = len(img.data)
    assert replay.points_as_image(img, pg.points_png_cached)
    points = [i for i, tr in enumerate(svg.data) if getattr(tr, "meta", None) == replay.POINTS_META]
    assert len(points) == 6 * 2 if projector else 3 * 2
    for i in points:  # the same points and hover labels, no markers drawn
        a, b = svg.data[i], img.data[i]
        assert b.mode == "none" and a.mode == "markers"
        np.testing.assert_array_equal(np.asarray(a.x), np.asarray(b.x))
        np.testing.assert_array_equal(np.asarray(a.y), np.asarray(b.y))
        assert a.hovertemplate == b.hovertemplate and a.hoverinfo == b.hoverinfo
    assert not [tr for tr in img.data if tr.type == "image"]
    images = [im for im in img.layout.images if im.name == replay.POINTS_IMAGE]
    assert len(images) == 1 and images[0].source.startswith("data:image/png;base64,")
    # the points image comes after the regions' and overlays' images, which every frame sets by index
    assert img.layout.images[-1].name == replay.POINTS_IMAGE and images[0].layer == "below"
    frames = img.to_dict()["frames"]
    assert frames and all(len(fr["layout"]["images"]) == len(img.layout.images) - 1 for fr in frames)
    assert all(tr.type == "scatter" for tr in img.data[n_before:])  # legend-only entries
    assert _legend(img) == _legend(svg)  # the same entries, names, shapes and order
    assert img.layout.legend.itemclick is False
    if projector:
        assert img.layout.legend2.itemclick is False
    as_dict = lambda f: [fr.to_plotly_json() for fr in f.frames]
    assert as_dict(img) == as_dict(svg)  # the frames touch the same traces


def test_the_image_spans_the_plot_area_at_twice_its_pixels():
    fig = _figure()
    W, H = replay.plane_px(fig)
    assert replay.points_as_image(fig, pg.points_png_cached)
    image = fig.layout.images[-1]
    png = Image.open(io.BytesIO(__import__("base64").b64decode(image.source.split(",", 1)[1])))
    assert png.size == (W * replay.POINTS_SCALE, H * replay.POINTS_SCALE)
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    assert (image.xref, image.yref, image.sizing) == ("x", "y", "stretch")
    assert (image.xanchor, image.yanchor) == ("left", "top")
    assert image.x == pytest.approx(x0) and image.x + image.sizex == pytest.approx(x1)
    assert image.y == pytest.approx(y1) and image.y - image.sizey == pytest.approx(y0)


def test_plane_px_follows_the_margins_domains_and_equal_scale():
    fig = _figure(width=780, height=668)
    L = fig.layout
    W, H = replay.plane_px(fig)
    down = (668 - L.margin.t - L.margin.b) * (L.yaxis.domain[1] - L.yaxis.domain[0])
    assert H == round(down) and W == H  # a square grid: height-bound at this size
    narrow = _figure(width=300, height=668)
    W2, H2 = replay.plane_px(narrow)
    assert W2 == 300 - narrow.layout.margin.l - narrow.layout.margin.r and H2 == W2


def test_the_figure_stays_as_it_is_when_its_size_or_marker_sizes_are_not_fixed():
    for fig in (_figure(width=None), _figure(height=None), _figure(sizes=True)):
        before = fig.to_plotly_json()
        assert not replay.points_as_image(fig, pg.points_png_cached)
        assert fig.to_plotly_json() == before


def test_the_image_names_the_plot_area_it_was_drawn_for():
    """The browser compares the image's extent and plot area (its ``meta``) with the axes and area it lays out."""
    fig = _figure(width=469, height=668)
    assert replay.points_as_image(fig, pg.points_png_cached)
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    assert fig.layout.meta[replay.POINTS_IMAGE_META] == [x0, x1, y0, y1, *replay.plane_px(fig)]


def test_a_plot_too_large_for_one_image_keeps_its_markers():
    fig = _figure(width=9000, height=9000)
    before = fig.to_plotly_json()
    assert not replay.points_as_image(fig, pg.points_png_cached)
    assert fig.to_plotly_json() == before


def test_every_class_colour_and_shape_draws(tmp_path):
    """Twelve classes, train and test: each class's colour shows up in the image."""
    K = 12
    colors = class_colors(K)
    rng = np.random.default_rng(1)
    layers = [
        (rng.uniform(-0.9, 0.9, size=(3, 2)), sym, 7.0, colors[k], (0.6, "white"))
        for k, sym in enumerate(CLASS_SYMBOLS)
    ]
    a = np.asarray(pr.points_image(layers, (-1, 1), (-1, 1), (200, 200)))
    opaque = a[a[..., 3] == 255][:, :3]
    for c in colors:
        rgb = np.array(pr._hex_rgb(c))
        assert (np.abs(opaque - rgb).sum(axis=1) == 0).any(), f"class colour {c} is missing"


def test_warming_makes_every_class_stamp_and_a_second_call_changes_nothing():
    pr.marker_stamps.cache_clear()
    replay.warm_point_stamps(3)
    assert pr.marker_stamps.cache_info().currsize == 6  # 3 classes x (train, test)
    fig = _figure(n_classes=3)
    pg.POINTS_IMAGES.clear()  # the image drawn anew, from the stamps
    hits = pr.marker_stamps.cache_info().hits
    assert replay.points_as_image(fig, pg.points_png_cached)
    assert pr.marker_stamps.cache_info().currsize == 6 and pr.marker_stamps.cache_info().hits > hits
    before = fig.to_plotly_json()
    assert replay.points_as_image(fig, pg.points_png_cached)  # already an image: left as it is
    assert fig.to_plotly_json() == before


def test_the_browser_redraws_the_points_with_the_same_shapes_and_names():
    """The zoom script (``viewport.POINTS_ZOOM``, fixed text) holds ``SHAPES`` to 4 decimals and the figure's
    names of its point traces and image."""
    import json
    import re

    from rebel.ui import viewport

    js = viewport.POINTS_ZOOM
    body = re.search(r"const SHAPES = (\{.*?\n  \});", js, re.DOTALL).group(1)
    shapes = json.loads(re.sub(r"//[^\n]*", "", body))
    assert set(shapes) == set(pr.SHAPES)
    for name, poly in pr.SHAPES.items():
        np.testing.assert_allclose(shapes[name], poly, atol=6e-5)
    assert (
        f"META = '{replay.POINTS_META}', IMAGE = '{replay.POINTS_IMAGE}', "
        f"EXTENT = '{replay.POINTS_IMAGE_META}'" in js
    )
    assert viewport.SCRIPTS == viewport.WATCH + js
