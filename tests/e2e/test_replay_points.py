"""The class points stay on screen through the replay, as a lecture lives it: in Chromium at 1280 x 720, press
"from t = 0", look at the regions plot while it plays, press Pause, look again; scrub to a round and look once more
(two lesson scenes too, in presentation mode with their lesson banner: the screenshots are the lecture's screen).
In every look each class's point colour must be in the plot area's pixels (the points are drawn as one layout
image, ``replay.points_as_image``, or by the browser again at their own size, ``viewport.POINTS_ZOOM``).

The regions are light tints of the class colours and the mistakes are black crosses, so a class's own colour in
the plot area can only come from its points. With the points drawn as an image *trace*, plotly dropped that trace's
layer at the first frame that moved the mistake crosses, and only the crosses stayed over the regions until the
last round: this test failed there (every class's count was 0 mid-replay and after Pause).
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from benchmarks import bench_browser as bb

pytestmark = pytest.mark.browser

MIN_PIXELS = 25  # px of a class's own colour in the plot area (hundreds with the points drawn, 0 without)
NEAR = 45  # largest |r| + |g| + |b| difference from the class colour (the image's scaling softens edges)

_PLANE = """sel => { const gd = document.querySelector(sel + ' .js-plotly-plot');
  const r = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  return {x: r.left + xa._offset, y: r.top + ya._offset, width: xa._length, height: ya._length}; }"""

_ROUND = """sel => { const t = document.querySelector(sel + ' .slider-group > text.slider-label');
  const m = t && /t = (\\d+)/.exec(t.textContent); return m ? Number(m[1]) : null; }"""


def _link(preset: str, present: bool) -> str:
    """A preset's link, or a lesson scene's (``scene<N>``: its lesson banner on the page)."""
    from rebel.ui.config import QUERY_KEY, encode_query, preset_config

    if preset == "scene7" and present:  # at its last round: not the 300 rounds its link would play first
        from rebel.ui.lessons import SCENES

        return f"/?scene=7&present=1&t={SCENES[6].config.hyper['n_estimators']}"
    if preset.startswith("scene"):
        return f"/?scene={preset[5:]}" + ("&present=1" if present else "")
    return f"/?{QUERY_KEY}={encode_query(preset_config(preset))}" + ("&present=1" if present else "")


def _n_classes(preset: str) -> int:
    from rebel.data.presets import PRESETS
    from rebel.ui.lessons import SCENES

    if preset.startswith("scene"):
        return len(SCENES[int(preset[5:]) - 1].config.classes)
    return len(PRESETS[preset].classes)


def _class_counts(page, selector: str, colours: list) -> list:
    """Pixels of each class colour in the regions' plot area, from a screenshot."""
    box = page.evaluate(_PLANE, selector)
    shot = np.asarray(Image.open(io.BytesIO(page.screenshot(clip=box))).convert("RGB"), dtype=np.int32)
    counts = []
    for c in colours:
        rgb = np.array([int(c[i : i + 2], 16) for i in (1, 3, 5)])
        counts.append(int((np.abs(shot - rgb).sum(axis=-1) <= NEAR).sum()))
    return counts


def _at_rest(page, sel: str, colours) -> list:
    """The class colours' pixel counts of the plot at rest. A look with no class at all on screen is taken again
    once the page has settled again (up to three looks): beside busy loops, a run the page asked for after it
    first settled (its box reported late, say) can replace the chart just as it is looked at, and a chart being
    mounted shows nothing yet. Points missing for good still fail: every look then finds them missing."""
    for _ in range(3):
        counts = _class_counts(page, sel, colours)
        if any(n >= MIN_PIXELS for n in counts):
            return counts
        bb._settle(page)
    return counts


def _regions_selector(page) -> str:
    for s in bb.HOOKS["regions"]:
        if page.locator(s).count():
            return s
    raise AssertionError("no regions plot on the page")


@pytest.mark.parametrize(
    "preset, present",
    [("airport", False), ("airport", True), ("fig7", False), ("scene3", True), ("scene7", True)],
    ids=["airport", "airport-presentation", "fig7-four-classes", "scene3-banner", "scene7-banner"],
)
def test_the_points_stay_through_play_pause_and_scrub(app_url, browser, screenshot_dir, preset, present):
    from rebel.ui.figures.palette import class_colors

    colours = class_colors(_n_classes(preset))
    page, _ = bb.open_playground(browser, app_url + _link(preset, present), (1280, 720))
    try:
        if present:  # presentation mode folds the sidebar away and the chart is drawn again: wait for both
            page.wait_for_function(
                "() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
                " return !s || s.getAttribute('aria-expanded') === 'false' || s.getBoundingClientRect().right <= 1; }",
                timeout=60_000,
            )
            bb._settle(page)
        sel = _regions_selector(page)
        name = f"replay_points_{preset}{'_present' if present else ''}"
        T = int(
            re.search(
                r"of (\d+)", page.locator(f"{sel} .slider-group > text.slider-label").first.text_content()
            )[1]
        )
        looks = {"at rest": _at_rest(page, sel, colours)}
        menu = page.locator(f"{sel} .updatemenu-button")
        # playing: a round well inside the replay (not its first, not its last). A click on a chart that a rerun
        # is replacing (presentation mode folds the sidebar and draws the chart again) is lost: press again
        for attempt in range(3):
            menu.filter(has_text=bb.HOOKS["play_from_start"]).first.click()
            try:
                page.wait_for_function(
                    f"sel => {{ const t = ({_ROUND})(sel); return t !== null && t >= 3 && t < {T}; }}",
                    arg=sel,
                    timeout=30_000,
                )
                break
            except PlaywrightTimeout:
                if attempt == 2:
                    raise
                bb._settle(page)
        looks["playing"] = _class_counts(page, sel, colours)
        page.screenshot(path=str(screenshot_dir / f"{name}_playing.png"))
        menu.filter(has_text="Pause").first.click()
        paused = page.evaluate(_ROUND, sel)
        looks[f"paused at t = {paused}"] = _class_counts(page, sel, colours)
        page.screenshot(path=str(screenshot_dir / f"{name}_paused.png"))
        bb.scrub(page, 20)
        page.wait_for_function(f"sel => ({_ROUND})(sel) === 20", arg=sel, timeout=30_000)
        looks["scrubbed to t = 20"] = _class_counts(page, sel, colours)
        page.screenshot(path=str(screenshot_dir / f"{name}_t20.png"))
        print(f"\n{name}: class colour pixels per look: {looks}")
        for look, counts in looks.items():
            missing = [k for k, n in enumerate(counts) if n < MIN_PIXELS]
            assert not missing, f"{look}: classes {missing} have no points on screen ({counts} px)"
    finally:
        page.close()
