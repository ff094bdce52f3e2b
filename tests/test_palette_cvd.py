"""Readable classes for everyone: the region colours actually rendered (the palette of the regions PNG that the
replay draws) stay apart under normal vision and simulated protanopia, deuteranopia and tritanopia (Machado et
al. 2009), for every preset and for K = 4..12: the minimum pairwise CIEDE2000 difference is at least ``FLOOR``.
The CIEDE2000 implementation is checked against Sharma, Wu and Dalal's published test pairs."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from rebel.data import PRESETS
from rebel.ui.figures import cvd
from rebel.ui.figures.palette import class_symbols
from rebel.ui.figures.replay import class_grid_png

FLOOR = 5.5  # was 0.7 (deuteranopia, K >= 8) and 4.2 for fig7's four classes before the palette change
FLOOR_UP_TO_4 = 16.0  # the presets' class counts


def _rendered_region_rgb(K: int) -> np.ndarray:
    """The colours of classes 0..K-1 as the regions PNG holds them (decoded back from the PNG)."""
    grid = np.arange(K, dtype=np.int16)[None, :]
    img = Image.open(io.BytesIO(class_grid_png(grid, K))).convert("RGB")
    return np.asarray(img)[0, :K].astype(np.float64)


@pytest.mark.parametrize(
    ("lab1", "lab2", "expected"),
    [
        ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
        ((50, 0, 0), (50, -1, 2), 2.3669),
        ((50, 2.5, 0), (73, 25, -18), 27.1492),
        ((90.8027, -2.0831, 1.441), (91.1528, -1.6435, 0.0447), 1.4441),
        ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
    ],
)
def test_ciede2000_matches_the_published_pairs(lab1, lab2, expected):
    assert float(cvd.ciede2000(np.array(lab1), np.array(lab2))) == pytest.approx(expected, abs=1e-4)


def test_simulation_keeps_grey_and_merges_red_green_for_protanopes():
    grey = np.array([[128.0, 128.0, 128.0]])
    for vision in cvd.MACHADO:
        np.testing.assert_allclose(cvd.simulate(grey, vision), cvd.to_linear(grey), atol=2e-3)
    red, green = np.array([[200.0, 60, 40]]), np.array([[110.0, 110, 40]])
    normal = cvd.min_pairwise_delta_e(np.vstack([red, green]))[0]
    assert cvd.min_pairwise_delta_e(np.vstack([red, green]), "protanopia")[0] < normal / 2


Ks = sorted({len(p.classes) for p in PRESETS.values()} | set(range(4, 13)))


@pytest.mark.parametrize("vision", cvd.VISIONS)
@pytest.mark.parametrize("K", Ks)
def test_rendered_region_colours_stay_apart(K, vision):
    delta, i, j = cvd.min_pairwise_delta_e(_rendered_region_rgb(K), vision)
    assert delta >= (FLOOR_UP_TO_4 if K <= 4 else FLOOR), (
        f"K = {K}, {vision}: classes {i} and {j} are only ΔE {delta:.1f} apart"
    )


FLOOR_PROJECTOR_UP_TO_6 = (
    10.0  # a lecture's regions (up to six classes) on a washed-out projector: 10.7 measured
)
FLOOR_PROJECTOR_POINTS = 8.0  # points (9.7 measured, teal against cyan at six classes) also differ by shape


@pytest.mark.parametrize("K", range(2, 7))
def test_a_lectures_classes_stay_apart_on_a_washed_out_projector(K):
    """Regions and points of up to six classes under the projector's flare (``cvd.PROJECTOR_FLARE``): the regions'
    closest pair (olive against orange from five classes) keeps a CIEDE2000 difference of at least 10; points,
    which also differ by their marker's shape, at least 8."""
    from rebel.ui.figures.palette import class_colors

    points = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in class_colors(K)], dtype=np.float64)
    for name, rgb, floor in (
        ("regions", _rendered_region_rgb(K), FLOOR_PROJECTOR_UP_TO_6),
        ("points", points, FLOOR_PROJECTOR_POINTS),
    ):
        delta, i, j = cvd.min_pairwise_delta_e(rgb, "projector")
        assert delta >= floor, f"{name}, K = {K}: classes {i} and {j} only ΔE {delta:.1f} apart"


def test_the_projector_washes_colours_out():
    red, blue = np.array([[230.0, 30, 30]]), np.array([[30.0, 30, 230]])
    pair = np.vstack([red, blue])
    assert cvd.min_pairwise_delta_e(pair, "projector")[0] < cvd.min_pairwise_delta_e(pair)[0]


def test_every_class_has_its_own_marker_shape():
    for K in range(2, 13):
        assert len(set(class_symbols(K))) == K
        assert all(s.endswith("-open") for s in class_symbols(K, hollow=True))
