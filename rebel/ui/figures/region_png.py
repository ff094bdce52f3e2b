"""The replay's pictures of class grids: palette PNGs written directly (one per round), and plotly layout images
of the regions, the disagreement mask and the two-step's boundaries placed on the grid's cells. Pure functions.
"""

from __future__ import annotations

import base64
import functools
import struct
import zlib

import numpy as np

from rebel.ui.figures.palette import region_rgb

# zlib level of the region PNGs: a replay encodes one per round (101 for 100 rounds) on every retrain. Level 1
# takes less than half the time of the default 6 for about a third more bytes (~60 kB of base64 for 101 rounds of
# a 200 x 200 grid); the pixels are the same.
PNG_LEVEL = 1


@functools.lru_cache(maxsize=32)
def _region_palette(n_classes: int) -> tuple:
    """The region colours of ``n_classes`` classes as a flat RGB palette (computed once per class count)."""
    return tuple(region_rgb(n_classes).ravel().tolist())


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def palette_pngs(codes, palette, transparent_zero: bool = False) -> list:
    """Palette PNGs of code grids ``codes`` (n, ny, nx) of uint8 indices into ``palette`` (flat RGB): one PNG
    per grid, row 0 its top row; code 0 fully transparent with ``transparent_zero``.

    Written directly (IHDR, PLTE, tRNS, one IDAT at zlib level ``PNG_LEVEL``, IEND), all grids at once: a
    replay encodes one grid per round (101 for 100 rounds) on every retrain, and doing it with PIL took three
    times as long. Rows are packed at the smallest bit depth that holds the palette (1, 2, 4 or 8 bits, as PIL
    writes them): the bytes sent for four classes are less than half of one byte a cell.
    """
    codes = np.asarray(codes, dtype=np.uint8)
    n_colors = len(palette) // 3
    if codes.ndim != 3 or codes.shape[1] == 0 or codes.shape[2] == 0:
        raise ValueError(
            f"codes must be a stack of non-empty 2-D grids (n, ny, nx), got shape {codes.shape}."
        )
    if codes.size and int(codes.max()) >= n_colors:
        raise ValueError(f"codes hold indices outside the palette's 0..{n_colors - 1}.")
    n, h, w = codes.shape
    bits = next(b for b in (1, 2, 4, 8) if n_colors <= 1 << b)
    per_byte = 8 // bits
    row_bytes = -(-w // per_byte)
    rows = np.zeros((n, h, row_bytes + 1), dtype=np.uint8)  # a leading 0 per row: PNG filter "none"
    packed = rows[:, :, 1:]
    for j in range(per_byte):  # pixel j of each byte in its bits, the first in the high bits
        part = codes[:, :, j::per_byte]
        packed[:, :, : part.shape[2]] |= part << np.uint8(bits * (per_byte - 1 - j))
    head = (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bits, 3, 0, 0, 0))
        + _png_chunk(b"PLTE", bytes(int(v) for v in palette))
        + (_png_chunk(b"tRNS", b"\x00") if transparent_zero else b"")
    )
    end = _png_chunk(b"IEND", b"")
    return [head + _png_chunk(b"IDAT", zlib.compress(r.tobytes(), PNG_LEVEL)) + end for r in rows]


def class_grid_pngs(regions, n_classes: int) -> list:
    """Class-index grids (n, ny, nx) as palette PNGs in the region colours (``palette_pngs``); row 0 of each
    grid is its image's top row."""
    grids = np.asarray(regions)
    if grids.ndim != 3 or grids.size == 0:
        raise ValueError(
            f"regions must be a non-empty stack of 2-D class-index grids, got shape {grids.shape}."
        )
    if grids.min() < 0 or grids.max() >= n_classes:
        raise ValueError(f"regions hold class indices outside 0..{n_classes - 1}: pass the right n_classes.")
    return palette_pngs(grids, _region_palette(n_classes))


def class_grid_png(regions, n_classes: int) -> bytes:
    """A class-index grid (ny, nx) as a palette PNG in the region colours (``class_grid_pngs``).

    Row 0 of the grid is the image's top row.
    """
    grid = np.asarray(regions)
    if grid.ndim != 2 or grid.size == 0:
        raise ValueError(f"regions must be a non-empty 2-D class-index grid, got shape {grid.shape}.")
    return class_grid_pngs(grid[None], n_classes)[0]


def png_data_uri(png: bytes) -> str:
    """PNG bytes as a ``data:`` URI (what a plotly layout image's ``source`` takes)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def grid_placement(xs, ys) -> dict:
    """Layout-image placement (data coordinates, drawn below the traces) whose pixels sit on the grid's cells."""
    xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    dx, dy = xs[1] - xs[0], ys[1] - ys[0]
    return {
        "xref": "x",
        "yref": "y",
        "x": float(xs[0] - dx / 2),
        "y": float(ys[-1] + dy / 2),
        "sizex": float(xs[-1] - xs[0] + dx),
        "sizey": float(ys[-1] - ys[0] + dy),
        "sizing": "stretch",
        "layer": "below",
    }


def region_layout_images(xs, ys, staged_regions, n_classes: int) -> list:
    """Class-index grids (n, ny, nx) as plotly layout images (drawn below the traces) whose pixels sit on the
    grid's cells: one per grid, all encoded at once (``class_grid_pngs``)."""
    grids = np.asarray(staged_regions)[:, ::-1]  # image rows run top-down
    place = grid_placement(xs, ys)
    return [
        {"source": png_data_uri(png), **place, "name": "regions"} for png in class_grid_pngs(grids, n_classes)
    ]


def region_layout_image(xs, ys, regions, n_classes: int) -> dict:
    """A class-index grid as a plotly layout image (drawn below the traces) whose pixels sit on the grid's cells."""
    return region_layout_images(xs, ys, np.asarray(regions)[None], n_classes)[0]


def _grid_layout_images(xs, ys, codes, palette: list, name: str, layer: int, **extra) -> list:
    """Small-code grids (n, ny, nx; code 0 transparent) as layout images over the regions, one per grid.

    plotly keys its layout images by their placement and draws only one image per placement, so overlay
    ``layer`` (1, 2, ...) is shifted by ``layer`` billionths of the width: invisible, but a distinct key.
    """
    image = grid_placement(xs, ys)  # the placement of the regions
    image["x"] += layer * 1e-9 * image["sizex"]
    pngs = palette_pngs(np.asarray(codes, dtype=np.uint8)[:, ::-1], palette, transparent_zero=True)
    return [{**image, "source": png_data_uri(png), "name": name, **extra} for png in pngs]


def mask_layout_images(xs, ys, masks, opacity: float = 0.38) -> list:
    """Boolean grids (n, ny, nx) as layout images: dark grey where True, transparent elsewhere."""
    return _grid_layout_images(xs, ys, masks, [0, 0, 0, 40, 40, 40], "disagreement", 1, opacity=opacity)


def boundary_codes(labels) -> np.ndarray:
    """Boundary cells of class grids (..., ny, nx) as codes: 0 inside a region, 1/2 alternating every 3 cells
    along the boundary (a white/near-black dash)."""
    L = np.asarray(labels)
    edge = np.zeros(L.shape, dtype=bool)
    edge[..., :, :-1] |= L[..., :, 1:] != L[..., :, :-1]
    edge[..., :-1, :] |= L[..., 1:, :] != L[..., :-1, :]
    i, j = np.indices(L.shape[-2:])
    dash = np.where((i + j) // 3 % 2 == 0, 2, 1).astype(np.uint8)
    return np.where(edge, dash, np.uint8(0)).astype(np.uint8)


def boundary_layout_images(xs, ys, codes) -> list:
    """The boundaries of class grids drawn in their own cells (``codes = boundary_codes(grids)``, (n, ny, nx)):
    a dashed line of near-black and white cells (readable on every region colour), transparent elsewhere. A
    few hundred bytes of PNG per round, where line traces would take tens of kB."""
    return _grid_layout_images(xs, ys, codes, [0, 0, 0, 255, 255, 255, 17, 17, 17], "two-step boundaries", 2)
