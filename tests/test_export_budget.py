"""Slide exports with a budget: long and multi-line class names, the export budget, the kept file and the
Lecture view's messages (rebel.ui.slide_text, rebel.ui.export, rebel.ui.state.KeptFile)."""

from __future__ import annotations

import io
import math
import re
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw
from streamlit.testing.v1 import AppTest

from rebel import budget
from rebel.ui import export, slide_text
from rebel.ui.state import STATE_KEY, KeptFile

LONG = "".join(chr(ord("a") + i % 26) for i in range(8000))  # an 8,000-character class name
MULTI = (
    "first line\nsecond line\r\nthird\rfourth\u2028fifth"  # every kind of line break a CSV or link lets in
)
APP = str(Path(__file__).resolve().parent.parent / "app.py")
TEXTLENGTH = ImageDraw.ImageDraw.textlength


class Measured:
    """``ImageDraw.textlength`` counted: calls and characters measured (it still measures)."""

    def __init__(self, monkeypatch):
        self.calls = self.chars = 0

        def textlength(draw, text, *args, **kwargs):
            self.calls += 1
            self.chars += len(text)
            return TEXTLENGTH(draw, text, *args, **kwargs)

        monkeypatch.setattr(ImageDraw.ImageDraw, "textlength", textlength)


def _cut_one_at_a_time(measure, text: str, width: float) -> str:
    """The former cut (one character at a time): the reference the binary search must agree with."""
    if measure(text) <= width:
        return text
    while text and measure(text + "…") > width:
        text = text[:-1]
    return text + "…"


def _measure(size=26):
    draw, font = ImageDraw.Draw(Image.new("P", (8, 8))), slide_text.font(size)
    return lambda s: draw.textlength(s, font=font)


@pytest.mark.parametrize("n", [5, 60, 300, 8000, 1_000_000])
def test_a_long_name_is_cut_in_log_measurements(n):
    measure, count = _measure(), [0]

    def counted(s):
        count[0] += 1
        assert len(s) <= 302  # never more than the box's width + 1 characters (and the ellipsis) at once
        return measure(s)

    name, width = LONG[: min(n, 8000)] * max(1, n // 8000), 300
    cut = slide_text.fit(counted, name, width)
    assert count[0] <= 2 + math.ceil(math.log2(width + 2))
    assert measure(cut) <= width
    if n <= 300:  # short enough to check against the one-at-a-time cut
        assert cut == _cut_one_at_a_time(measure, name, width)
    else:
        assert cut.endswith("…") and name.startswith(cut[:-1])
        assert measure(name[: len(cut)] + "…") > width  # one character more would not fit: the longest cut


def test_line_breaks_become_one_space_and_tiny_boxes_get_the_ellipsis():
    assert slide_text.one_line(MULTI) == "first line second line third fourth fifth"
    measure = _measure()
    assert slide_text.fit(measure, MULTI, 10_000) == "first line second line third fourth fifth"
    assert slide_text.fit(measure, "a\nb", 0) == "…"


def _staged(T=3, n=20, K=3, n_points=4):
    rng = np.random.default_rng(0)
    xs = ys = np.linspace(0, 1, n)
    S = rng.integers(0, K, (T + 1, n, n)).astype(np.int16)
    X, y = rng.random((n_points, 2)), np.arange(n_points) % K
    pred = np.tile(y, (T + 1, 1))
    return xs, ys, S, {"train": (X, y, pred), "size": export.WIDE}


@pytest.mark.parametrize("name", [LONG, MULTI], ids=["8000-characters", "multi-line"])
def test_png_with_a_hostile_class_name(monkeypatch, name):
    """The attack's reproducers: an 8,000-character name took 227 s (8,000 measurements of up to 8,000 characters
    for each place the name is drawn), a newline made Pillow refuse the export."""
    xs, ys, S, kw = _staged()
    classes, C = [name, "short", "other"], np.ones((3, 3)) - np.eye(3)
    short = Measured(monkeypatch)
    export.regions_png(xs, ys, S, ["a", "short", "other"], C, 3, **kw)
    measured = Measured(monkeypatch)
    start = time.perf_counter()
    png = export.regions_png(xs, ys, S, classes, C, 3, **kw)
    seconds = time.perf_counter() - start
    print(f"{len(name):,}-character name: {measured.calls} measurements, {measured.chars:,} characters, "
          f"{seconds:.2f} s (short names: {short.calls}, {short.chars:,})")  # fmt: skip
    assert Image.open(io.BytesIO(png)).size == export.WIDE
    # three places draw the name (legend, the inset's row and column): each costs a binary search at most
    assert measured.calls <= short.calls + 3 * (2 + math.ceil(math.log2(export.WIDE[0] + 2)))
    assert measured.chars <= short.chars + 3 * 14 * (export.WIDE[0] + 2)


def test_replay_at_the_maxima_is_within_the_budget_and_more_points_are_refused_before_drawing(monkeypatch):
    """The maxima of the attack (1,000 rounds, 2,000 points, 16:9) fit the budget in both formats; 20,000 points
    (the Playground's most) are refused with the reason and the fix before a frame is drawn."""
    for kind in ("gif", "mp4"):
        export.check_replay(1000, export.WIDE, kind, 2000)
    with pytest.raises(budget.BudgetError, match=r"point markers drawn.*draws each point.*fewer points"):
        export.check_replay(1000, export.WIDE, "mp4", 20_000)
    drawn = []
    real = export.slide_frames
    monkeypatch.setattr(export, "slide_frames", lambda *a, **k: drawn.append(1) or real(*a, **k))
    xs, ys, S, kw = _staged(T=200, n_points=4000)
    for make in (export.replay_gif, export.replay_mp4):
        with pytest.raises(budget.BudgetError, match=r"1[01][13] frames x 4,000 points.*at most 400,000"):
            make(xs, ys, S, ["a", "b", "c"], np.ones((3, 3)), **kw)
    assert not drawn


def test_kept_file_holds_one_bounded_file_and_reports_failures():
    kept, made = KeptFile(max_bytes=10), []

    def make(data):
        return lambda: made.append(data) or data

    assert kept.get_or_make(("m1", "gif"), make(b"12345")) == b"12345"
    assert kept.get_or_make(("m1", "gif"), make(b"other")) == b"12345" and made == [b"12345"]
    kept.get_or_make(("m1", "mp4"), make(b"678"))  # replaces the GIF: one file at most
    assert kept.nbytes == 3 and kept.get_or_make(("m1", "gif"), make(b"12345")) == b"12345"
    kept.get_or_make(("m1", "big"), make(b"x" * 11))  # too large to keep: handed out only
    assert kept.nbytes == 0
    kept.get_or_make(("m1", "gif"), make(b"12345"))
    kept.forget_unless("m1")
    assert kept.nbytes == 5
    kept.forget_unless("m2")  # another model: the file goes
    assert kept.nbytes == 0
    xs, ys, S, kw = _staged()
    failing = kept.deferred("png", lambda: export.regions_png(xs, ys, S, ["a"], np.ones((3, 3)), 0, **kw))
    with pytest.raises(ValueError):
        failing()
    assert "cost_matrix must be 1x1" in kept.failures["png"]
    kept.deferred("png", lambda: b"ok")()
    assert "png" not in kept.failures


def _lecture_app(csv: bytes) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.file_uploader(key="w_csv_upload").set_value(("p.csv", csv, "text/csv"))
    at.run()
    at.session_state["w_details"] = "Lecture"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _text(elements) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in elements))


def test_lecture_view_refuses_a_replay_over_the_budget_and_shows_a_failed_export():
    rows = "\n".join(f"{(i % 3) + (i % 17) / 20},{(i * 7) % 13 / 3},{'abc'[i % 3]}" for i in range(4000))
    at = _lecture_app(f"x,y,label\n{rows}\n".encode())
    buttons = {b.label: b for b in at.get("download_button")}
    assert buttons["Replay (GIF)"].proto.disabled and buttons["Replay (MP4)"].proto.disabled
    assert not buttons["Regions at t (PNG)"].proto.disabled
    shown = _text(at.warning)
    assert "Replay (GIF) not offered" in shown and "fewer points" in shown and "4,000 points" in shown
    # an export that fails (here a real one with a wrong cost matrix) says so on the page's next run
    kept = at.session_state[STATE_KEY].exports
    with pytest.raises(ValueError):
        kept.deferred(
            "png", lambda: export.regions_png([0, 1], [0, 1], np.zeros((1, 2, 2)), ["a"], [[0, 1]], 0)
        )()
    at.run()
    assert "Regions at t (PNG) could not be made: cost_matrix must be 1x1" in _text(at.error)
