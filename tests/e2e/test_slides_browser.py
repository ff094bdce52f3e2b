"""Real-browser checks of the Playground's downloads (slides in the Lecture view, points and session in the sidebar):
one button each, the file drawn on the click."""

from __future__ import annotations

import io
from pathlib import Path

import av
import numpy as np
import pandas as pd
import pytest
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from rebel.data import PRESETS
from rebel.ui import config as cfgmod
from rebel.ui import export
from tests.e2e.conftest import open_preset_pictures, settle

pytestmark = pytest.mark.browser


def _download(page, label: str, where: str = "") -> bytes:
    button = page.locator(f"{where} [data-testid='stDownloadButton']".strip(), has_text=label).first
    try:
        with page.expect_download(timeout=60_000) as info:
            button.click()
        download = info.value
    except PlaywrightTimeout:
        # Now and then (1 in 20 tries of the sidebar's two files in a row, on this tree and never in 10 before
        # it) Streamlit's button for a file built on the click keeps its spinner and no file comes; a person
        # clicks again, and so does the test, once
        with page.expect_download(timeout=180_000) as info:
            button.click()
        download = info.value
    data = Path(download.path()).read_bytes()
    settle(page)  # the rerun the click asks for is over before the next click (a click during it can be lost)
    return data


# The slides' replay over 20 rounds (21 frames; the app's default 100 rounds make 101): the same exports, drawn and
# encoded in a fifth of the time
SLIDE_HYPER = {"n_estimators": 20, "max_depth": 2, "n_thresholds": 32}


def test_slide_downloads(app_url, browser, screenshot_dir):
    page = browser.new_page()
    link = cfgmod.encode_query(cfgmod.preset_config("airport", SLIDE_HYPER))
    page.goto(f"{app_url}/?{cfgmod.QUERY_KEY}={link}", wait_until="domcontentloaded")
    page.wait_for_selector(".js-plotly-plot", timeout=240_000)  # cold numba cache compiles
    # the first visit's runs (the rest of the page, the viewport's size) are over before the click: a click during
    # a rerun can be lost (once, the Lecture view never came)
    settle(page)
    page.locator("[data-testid='stButtonGroup'] button", has_text="Lecture").first.click()
    # the sidebar has download buttons of its own: wait for the Lecture view's
    page.locator("[data-testid='stDownloadButton']", has_text="Replay (GIF)").first.wait_for(timeout=60_000)
    labels = page.locator("[data-testid='stDownloadButton']").all_inner_texts()
    for label in ("Regions at t (PNG)", "Replay (GIF)", "Replay (MP4)"):
        assert sum(label in t for t in labels) == 1, (label, labels)
    png = Image.open(io.BytesIO(_download(page, "Regions at t (PNG)")))
    assert png.format == "PNG" and png.size == export.WIDE
    gif = Image.open(io.BytesIO(_download(page, "Replay (GIF)")))
    assert gif.format == "GIF" and gif.size == export.WIDE
    assert gif.n_frames == len(export.gif_rounds(SLIDE_HYPER["n_estimators"]))  # t = 0..T
    gif.seek(gif.n_frames - 1)
    gif.convert("RGB").save(screenshot_dir / "slide_gif_last_frame.png")
    with av.open(io.BytesIO(_download(page, "Replay (MP4)"))) as box:
        assert box.streams.video[0].codec_context.name == "h264"
        frames = [f.to_ndarray(format="rgb24") for f in box.decode(video=0)]
    assert len(frames) == gif.n_frames + export.hold_frames(export.GIF_FRAME_MS)
    assert frames[0].shape == (export.WIDE[1], export.WIDE[0], 3)
    assert np.abs(frames[0].astype(int) - frames[gif.n_frames - 1]).mean() > 1  # t = 0 is not the last round
    Image.fromarray(frames[-1]).save(screenshot_dir / "slide_mp4_last_frame.png")
    # still one button each after the downloads (no make-then-download pair)
    labels = page.locator("[data-testid='stDownloadButton']").all_inner_texts()
    assert sum("Replay (GIF)" in t for t in labels) == 1 and sum("Replay (MP4)" in t for t in labels) == 1
    page.get_by_text("square (1080x1080)").click()
    settle(page)  # the run the choice starts is over: the button's file is the square one
    square = Image.open(io.BytesIO(_download(page, "Regions at t (PNG)")))
    assert square.size == export.SQUARE
    page.close()


def test_sidebar_pictures_and_files_follow_the_preset(app_url, browser):
    """The sidebar's preset pictures are drawn when their expander opens, and a click on one loads its preset;
    the points (CSV) and the session (JSON) are built on the download's click, from what the page then shows."""
    page = browser.new_page()
    page.goto(app_url, wait_until="domcontentloaded")
    page.wait_for_selector(".js-plotly-plot", timeout=240_000)
    # the whole first page drawn (a click on the expander while the first page was still coming was once followed
    # by no pictures at all in a fresh-clone run: not explained yet, and not what this test is about)
    settle(page)
    side = "[data-testid='stSidebar']"
    assert page.locator(f"{side} .st-key-w_thumb_xor").count() == 0  # closed: nothing drawn
    open_preset_pictures(page)
    page.locator(f"{side} .st-key-w_thumb_xor button").first.wait_for(timeout=60_000)
    # the run the expander asks for (pictures in the sidebar, then the main area) is over before the click: a click
    # on a picture's button as it came, while that run still drew the page, was once followed by no preset load in
    # 60 s (one CI run, on a tree where this test had passed in every earlier run)
    settle(page)
    page.locator(f"{side} .st-key-w_thumb_xor button").first.click(timeout=60_000)
    # the chosen preset's picture button turns primary once the run that loaded it is drawn
    page.locator(f"{side} .st-key-w_thumb_xor [data-testid='stBaseButton-primary']").wait_for(timeout=60_000)
    settle(page)
    cfg = cfgmod.parse_session_json(_download(page, "Download session (JSON)", side))
    assert cfg.preset == "xor"
    points = pd.read_csv(io.BytesIO(_download(page, "Download points (CSV)", side)))
    assert list(points.columns) == ["x", "y", "label", "split"]
    assert len(points) == cfg.spec.n_points
    assert set(points["label"].astype(str)) == {str(c) for c in PRESETS["xor"].classes}
    page.close()
