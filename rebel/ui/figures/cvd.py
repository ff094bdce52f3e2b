"""Colour-vision-deficiency check of the class colours: the Machado et al. (2009) simulation (severity 1.0, on
linear sRGB) of protanopia, deuteranopia and tritanopia, and the CIEDE2000 colour difference (Sharma, Wu and
Dalal 2005) in CIELAB (D65). Pure numpy; used by the palette's tests (``tests/test_palette_cvd.py``).
"""

from __future__ import annotations

import numpy as np

MACHADO = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
"""Machado, Oliveira and Fernandes (2009), severity 1.0, applied to linear sRGB."""
PROJECTOR_FLARE = 0.2
"""A projector in a lit room: the room's light adds this share of white to every colour (linear sRGB), which
washes colours out and brings them closer (a lecture hall's screen, as "projector" vision)."""
VISIONS = ("normal", *MACHADO, "projector")

_SRGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
_WHITE = np.array([0.95047, 1.0, 1.08883])  # D65


def to_linear(rgb) -> np.ndarray:
    """sRGB in 0..255 (..., 3) -> linear sRGB in 0..1."""
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def simulate(rgb, vision: str) -> np.ndarray:
    """Linear sRGB (..., 3) as seen with ``vision`` ("normal", a ``MACHADO`` key or "projector": washed out by
    the room's light, ``PROJECTOR_FLARE``), clipped to 0..1."""
    lin = to_linear(rgb)
    if vision == "normal":
        return lin
    if vision == "projector":
        return (1.0 - PROJECTOR_FLARE) * lin + PROJECTOR_FLARE
    return np.clip(lin @ np.asarray(MACHADO[vision]).T, 0.0, 1.0)


def lab(linear_rgb) -> np.ndarray:
    """Linear sRGB (..., 3) -> CIELAB (D65)."""
    xyz = np.asarray(linear_rgb, dtype=np.float64) @ _SRGB_TO_XYZ.T / _WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1
    )


def ciede2000(lab1, lab2) -> np.ndarray:
    """CIEDE2000 colour difference of CIELAB colours (broadcast over the leading axes), kL = kC = kH = 1."""
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, dtype=np.float64), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, dtype=np.float64), -1, 0)
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    Cm = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cm**7 / (Cm**7 + 25.0**7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(C1p * C2p == 0, 0.0, dh)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lpm, Cpm = (L1 + L2) / 2, (C1p + C2p) / 2
    hsum = h1p + h2p
    hpm = np.where(
        C1p * C2p == 0,
        hsum,
        np.where(
            np.abs(h1p - h2p) <= 180, hsum / 2, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2)
        ),
    )
    T = (
        1
        - 0.17 * np.cos(np.radians(hpm - 30))
        + 0.24 * np.cos(np.radians(2 * hpm))
        + 0.32 * np.cos(np.radians(3 * hpm + 6))
        - 0.20 * np.cos(np.radians(4 * hpm - 63))
    )
    d_theta = 30 * np.exp(-(((hpm - 275) / 25) ** 2))
    Rc = 2 * np.sqrt(Cpm**7 / (Cpm**7 + 25.0**7))
    Sl = 1 + 0.015 * (Lpm - 50) ** 2 / np.sqrt(20 + (Lpm - 50) ** 2)
    Sc = 1 + 0.045 * Cpm
    Sh = 1 + 0.015 * Cpm * T
    Rt = -np.sin(np.radians(2 * d_theta)) * Rc
    return np.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh))


def min_pairwise_delta_e(rgb, vision: str = "normal") -> tuple:
    """``(ΔE, i, j)``: the smallest CIEDE2000 difference between two of the colours ``rgb`` (K, 3) in 0..255 as
    seen with ``vision``, and the pair."""
    L = lab(simulate(rgb, vision))
    d = ciede2000(L[:, None, :], L[None, :, :])
    i, j = np.triu_indices(len(L), 1)
    k = int(np.argmin(d[i, j]))
    return float(d[i[k], j[k]]), int(i[k]), int(j[k])
