"""Slide exports for lectures: the regions at one round as a PNG and the training replay as an animated GIF or an
H.264 MP4, of the slides ``rebel.ui.slides`` draws, encoded with Pillow and PyAV (``av``, whose wheels bundle
FFmpeg). Pure functions: no streamlit here. The PNG of round t is exactly the GIF's frame t.

The GIF and the MP4 show the same frames (``gif_rounds``); the MP4 holds the last round by repeating it. Both are
bounded by ``rebel.budget``'s ``slide_pixels`` (frames x width x height drawn for one file); frames are drawn and
encoded one at a time, so memory holds a frame or two (and the encoder's few reference frames), never the film.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction

import numpy as np
from PIL import Image

from rebel import budget
from rebel.ui.figures.replay import check_staged
from rebel.ui.slides import (  # noqa: F401 (the slide's parts, as they were in this module)
    GIF_FRAME_MS,
    LAST_FRAME_MS,
    MAX_GIF_FRAMES,
    MAX_PIXELS,
    MIN_PIXELS,
    SLIDE_SIZES,
    SQUARE,
    TITLE,
    WIDE,
    Layout,
    _check_size,
    _marker,
    _n_points,
    class_markers,
    frame_lines,
    nice_ticks,
    round_numbers,
    slide_frames,
    slide_layout,
    staged_costs,
)

MP4_CODEC = "libx264"  # H.264 in yuv420p: plays in every browser, slide software and video player
MP4_CRF = "20"  # constant quality (lower is better); flat slides compress well even at this quality


def gif_rounds(T: int, max_frames: int = MAX_GIF_FRAMES) -> list:
    """The rounds a replay GIF shows: every t = 0..T, or ``max_frames`` evenly spaced ones (with 0 and T)."""
    if max_frames < 2:
        raise ValueError(f"max_frames must be at least 2 (t = 0 and t = T), got {max_frames}.")
    if T + 1 <= max_frames:
        return list(range(T + 1))
    return sorted({round(v) for v in np.linspace(0, T, max_frames)})


def hold_frames(frame_ms: int) -> int:
    """How many extra frames hold the last round ``LAST_FRAME_MS`` on screen in a constant-rate video."""
    return max(0, math.ceil(LAST_FRAME_MS / int(frame_ms)) - 1)


def check_export(n_frames: int, size) -> None:
    """Refuse an export whose frames x width x height exceeds ``rebel.budget``'s ``slide_pixels``."""
    w, h = _check_size(size)
    budget.check(
        "slide_pixels", int(n_frames) * w * h, detail=f"{int(n_frames):,} frames x {w:,} x {h:,} pixels"
    )


def check_replay(
    T: int, size, kind: str, n_points: int = 0, *, frame_ms=GIF_FRAME_MS, max_frames=MAX_GIF_FRAMES
):
    """Refuse, before any drawing, a replay of rounds 0..T of ``n_points`` points as ``kind`` ("gif" or "mp4")
    over the budget: the frames it draws (``gif_rounds``; for an MP4 with the ``hold_frames`` and even sides)
    x their pixels (``slide_pixels``) and x the points (``slide_marks``, the app's limit)."""
    frames = len(gif_rounds(int(T), max_frames))
    if kind == "mp4":
        frames, size = frames + hold_frames(frame_ms), even_size(size)
    elif kind != "gif":
        raise ValueError(f"kind is {kind!r}; use 'gif' or 'mp4'.")
    check_export(frames, size)
    budget.check(
        "slide_marks",
        frames * int(n_points),
        app=True,
        detail=f"{frames:,} frames x {int(n_points):,} points",
    )


def regions_png(grid_xs, grid_ys, staged_regions, classes, cost_matrix, t: int, **slide) -> bytes:
    """The slide of round ``t`` as PNG bytes (``slide``: the keywords of ``slide_frames``)."""
    (img,) = slide_frames(grid_xs, grid_ys, staged_regions, classes, cost_matrix, rounds=[t], **slide)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def _replay_rounds(staged_regions, slide: dict, kind: str, frame_ms: int, max_frames: int) -> list:
    """The rounds a replay ``kind`` ("gif" or "mp4") shows, after its checks (``check_staged``, then the budget
    by ``check_replay``, before any drawing)."""
    T = check_staged(staged_regions, slide.get("train"), slide.get("test"))
    check_replay(T, slide.get("size", WIDE), kind, _n_points(slide), frame_ms=frame_ms, max_frames=max_frames)
    return gif_rounds(T, max_frames)


def replay_file(
    kind: str,
    grid_xs,
    grid_ys,
    staged_regions,
    classes,
    cost_matrix,
    *,
    frame_ms: int = GIF_FRAME_MS,
    max_frames: int = MAX_GIF_FRAMES,
    **slide,
) -> bytes:
    """The training replay as a file of slides, one frame per round shown (``gif_rounds``), drawn and encoded one
    at a time (``slide``: the keywords of ``slide_frames`` but ``rounds``). ``kind`` "gif": an animated GIF,
    looping, the last round held a little longer; "mp4": an H.264 MP4 (yuv420p) at ``1000 / frame_ms`` frames
    per second, the last round held ``LAST_FRAME_MS`` by ``hold_frames`` repeats, an odd ``size`` side rounded
    down to even."""
    if kind == "mp4" and int(frame_ms) < 1:
        raise ValueError(f"frame_ms must be at least 1 millisecond, got {frame_ms}.")
    rounds = _replay_rounds(staged_regions, slide, kind, frame_ms, max_frames)
    if kind == "mp4":
        slide["size"] = even_size(slide.get("size", WIDE))
    frames = slide_frames(grid_xs, grid_ys, staged_regions, classes, cost_matrix, rounds=rounds, **slide)
    if kind == "gif":
        return _gif_bytes(frames, len(rounds), frame_ms)
    return _mp4_bytes(frames, slide["size"], frame_ms)


def replay_gif(*grid, **options) -> bytes:
    """``replay_file("gif", ...)``: the training replay as an animated GIF."""
    return replay_file("gif", *grid, **options)


def replay_mp4(*grid, **options) -> bytes:
    """``replay_file("mp4", ...)``: the training replay as an H.264 MP4."""
    return replay_file("mp4", *grid, **options)


def _gif_bytes(frames, n_frames: int, frame_ms: int) -> bytes:
    """The slides ``frames`` (an iterator of ``n_frames`` images) as a looping GIF."""
    first = next(frames)
    buf = io.BytesIO()
    durations = [int(frame_ms)] * (n_frames - 1) + [max(int(frame_ms), LAST_FRAME_MS)]
    first.save(
        buf,
        format="GIF",
        save_all=True,
        append_images=frames,
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return buf.getvalue()


def even_size(size) -> tuple:
    """``size`` with each side rounded down to an even number (H.264 in yuv420p halves both for colour)."""
    w, h = _check_size(size)
    return w - w % 2, h - h % 2


def _mp4_bytes(frames, size: tuple, frame_ms: int) -> bytes:
    """The slides ``frames`` (an iterator of images of even ``size``) as an H.264 MP4, one frame at a time."""
    import av  # imported on use: only this export needs FFmpeg

    hold = hold_frames(frame_ms)
    buf = io.BytesIO()
    with av.open(buf, mode="w", format="mp4") as box:
        stream = box.add_stream(MP4_CODEC, rate=Fraction(1000, int(frame_ms)))
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        # one encoder thread and a short look-ahead: the server is shared, and memory stays a few frames
        stream.codec_context.thread_count = 1
        stream.options = {"crf": MP4_CRF, "preset": "superfast", "tune": "animation", "rc-lookahead": "8"}

        rate = Fraction(1000, int(frame_ms))
        count = 0

        def encode(img: Image.Image, repeat: int = 1) -> None:
            nonlocal count
            frame = av.VideoFrame.from_ndarray(np.asarray(img.convert("RGB")), format="rgb24")
            frame = frame.reformat(format="yuv420p")
            for _ in range(repeat):  # the encoder keeps its own reference of each frame sent
                frame.pts, frame.time_base = count, 1 / rate
                box.mux(stream.encode(frame))
                count += 1

        last = None
        for img in frames:
            if last is not None:
                encode(last)
            last = img
        encode(last, 1 + hold)
        box.mux(stream.encode(None))  # flush the encoder
    return buf.getvalue()
