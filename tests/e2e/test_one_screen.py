"""The Playground on one screen, in a real browser: at 1280x720, 1440x900 and 1920x1080, with the sidebar open
and collapsed, the regions plot, the cost matrix, the round control (the figure's Play buttons and slider) and
the three test costs are all fully inside the viewport without scrolling, also after a cost edit that raises a
warning (messages go to the fixed-height tray beside the plot, so they never move it). The regions are square.

Screenshots ``one_screen_<w>x<h>_<sidebar>.png`` are saved under tests/e2e/screenshots/ for a person to look at.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from benchmarks import bench_browser as bb
from rebel.ui import viewport
from rebel.ui.figures.palette import class_colors
from tests.e2e.layout_checks import (
    SMALL_COSTS_TEXTS,
    cost_table_problems,
    present_table_problems,
    wait_plot_fits_box,
    wait_projector_ticks,
)

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1440, 900), (1920, 1080)]
PLOT = ".st-key-pg_plot .js-plotly-plot"


def _boxes(page) -> dict:
    """Bounding boxes (viewport coordinates) of the parts that must be on screen together (asked again while
    a chart being replaced after a rerun has no box yet)."""
    for _ in range(20):
        boxes = _boxes_once(page)
        if all(boxes.values()):
            return boxes
        page.wait_for_timeout(250)
    return boxes


def _boxes_once(page) -> dict:
    plot = page.locator(PLOT).first
    plot.locator(".slider-container").first.wait_for(state="visible")  # a replaced chart is drawn again
    numbers = plot.locator(".textpoint text").filter(has_text="test cost per point").first
    return {
        "regions plot": plot.bounding_box(),
        "regions": plot.locator(".draglayer .xy > .nsewdrag").first.bounding_box(),
        "cost matrix": page.locator(".st-key-cost_editor").first.bounding_box(),
        "play buttons": plot.locator(".updatemenu-container").first.bounding_box(),
        "round slider": plot.locator(".slider-container").first.bounding_box(),
        "three numbers": numbers.bounding_box(),
    }


def _assert_on_screen(page, w: int, h: int, when: str, square: bool = True) -> None:
    """Every part inside the viewport; ``square``: the regions are square (the presets' planes are; a designed
    mixture's plane keeps its data's aspect)."""
    assert page.evaluate("window.scrollY") == 0
    boxes = _boxes(page)
    for name, box in boxes.items():
        assert box is not None, f"{name} not drawn ({when}, {w}x{h})"
        inside = (
            box["x"] >= -0.5
            and box["y"] >= -0.5
            and box["x"] + box["width"] <= w + 0.5
            and box["y"] + box["height"] <= h + 0.5
        )
        assert inside, f"{name} {box} is not fully inside the {w}x{h} viewport ({when})"
    regions = boxes["regions"]
    assert not square or regions["width"] == pytest.approx(regions["height"], rel=0.03), (
        f"regions not square: {regions}"
    )


def _numbers(page) -> str:
    return (
        page.locator(PLOT)
        .first.locator(".textpoint text")
        .filter(has_text="test cost per point")
        .first.text_content()
    )


def _sidebar_open(page) -> bool:
    return page.evaluate(
        "() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
        " return !!s && s.getAttribute('aria-expanded') !== 'false' && s.getBoundingClientRect().right > 1; }"
    )


def _set_sidebar(page, want_open: bool) -> None:
    """Open or collapse the sidebar (the browser remembers the last choice across pages of a session)."""
    if _sidebar_open(page) == want_open:
        return
    testid = "stSidebarCollapseButton" if not want_open else "stExpandSidebarButton"
    button = page.locator(f'[data-testid="{testid}"] button, button[data-testid="{testid}"]').first
    button.wait_for(state="attached", timeout=60_000)
    button.dispatch_event("click")  # the collapse button shows on hover only
    page.wait_for_function(
        "want => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
        " return (!!s && s.getAttribute('aria-expanded') !== 'false' && s.getBoundingClientRect().right > 1)"
        " === want; }",
        arg=want_open,
        timeout=60_000,  # as for presentation mode's fold, which once took over 10 s on a loaded machine
    )
    page.wait_for_timeout(600)  # the main area's transition


@pytest.mark.parametrize("sidebar", ["open", "collapsed"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_plot_costs_round_control_and_numbers_fit_one_screen(app_url, browser, screenshot_dir, size, sidebar):
    w, h = size
    page, _ = bb.open_playground(browser, app_url, size)
    try:
        _set_sidebar(page, sidebar == "open")
        page.screenshot(path=str(screenshot_dir / f"one_screen_{w}x{h}_{sidebar}.png"))
        _assert_on_screen(page, w, h, "first load")
        before = _boxes(page)["regions plot"]
        numbers_before = _numbers(page)
        commit = bb.edit_cost(page, "7")
        commit()
        tray = page.locator(".st-key-pg_tray")
        tray.get_by_text("Your costs differ").first.wait_for(timeout=60_000)
        page.wait_for_function(  # the retrained model's numbers replace the old ones
            "old => [...document.querySelectorAll('.st-key-pg_plot .textpoint text')].some("
            "e => e.textContent.includes('test cost per point') && e.textContent !== old)",
            arg=numbers_before,
            timeout=60_000,
        )
        bb._settle(page)
        page.screenshot(path=str(screenshot_dir / f"one_screen_{w}x{h}_{sidebar}_warning.png"))
        _assert_on_screen(page, w, h, "after a cost edit with a warning")
        after = _boxes(page)["regions plot"]
        assert (after["x"], after["y"], after["height"]) == pytest.approx(
            (before["x"], before["y"], before["height"]), abs=1
        ), "the warning moved the plot"
    finally:
        page.close()


def _scroll_top(page) -> None:
    page.evaluate(
        "() => { window.scrollTo(0, 0); for (const e of document.querySelectorAll("
        "\"[data-testid='stMain'], [data-testid='stAppViewContainer'], section.main\")) e.scrollTo(0, 0); }"
    )


MIN_REGIONS = {1280: 380, 1920: 600}  # px: the regions' side in presentation mode (about 210 px before)


@pytest.mark.parametrize("sidebar", ["open", "collapsed"])
@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_presentation_mode_is_a_projector_layout(app_url, browser, screenshot_dir, size, sidebar):
    """Presentation mode, switched on with the sidebar open or collapsed (switching it on folds the sidebar
    away): the regions fill the plot's height (at least ``MIN_REGIONS`` px square), large fonts on the ticks,
    the numbers, the round control and the cost editor, and still everything on one screen, nothing clipped
    (the numbers lines inside the plot)."""
    w, h = size
    page, _ = bb.open_playground(browser, app_url, size)
    try:
        _set_sidebar(page, sidebar == "open")
        toggle = page.locator(".st-key-w_present")
        toggle.locator("label").first.click()
        wait_projector_ticks(page, 17)
        page.wait_for_function(
            "() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
            " return !s || s.getAttribute('aria-expanded') === 'false' || s.getBoundingClientRect().right <= 1; }",
            timeout=60_000,
        )  # the sidebar folds away by itself (it took over 10 s once on a loaded machine)
        page.wait_for_timeout(600)  # the main area's transition
        bb._settle(page)
        # the chart drawn for the box the folded sidebar leaves (the page sends the new size once the switch's run
        # is over: on a loaded machine that can come after the page first looks settled)
        wait_plot_fits_box(page)
        _scroll_top(page)
        page.wait_for_timeout(300)
        page.screenshot(path=str(screenshot_dir / f"presentation_{w}x{h}_{sidebar}.png"))
        _assert_on_screen(page, w, h, "presentation mode")
        plot = page.locator(PLOT).first
        sizes = page.evaluate(
            """() => { const q = s => document.querySelector('.st-key-pg_plot ' + s);
                const px = e => e ? parseFloat(getComputedStyle(e).fontSize) : 0;
                return {tick: px(q('.xtick text')), numbers: px(q('.textpoint text')),
                        slider: px(q('.slider-group > text.slider-label')),
                        editor: px(document.querySelector('.st-key-cost_editor input'))}; }"""
        )
        assert min(sizes.values()) >= 17, sizes  # 12-14 px without presentation mode
        boxes = _boxes(page)
        box, numbers, regions = plot.bounding_box(), boxes["three numbers"], boxes["regions"]
        assert numbers["x"] >= box["x"] and numbers["x"] + numbers["width"] <= box["x"] + box["width"] + 0.5
        side = min(regions["width"], regions["height"])
        print(
            f"presentation {w}x{h} sidebar {sidebar}: regions {regions['width']:.0f}x{regions['height']:.0f} px"
        )
        assert side >= MIN_REGIONS[w], f"the regions are only {side:.0f} px square at {w}x{h}"
        verdict = plot.locator(".textpoint text").filter(has_text="costs ignored").first.bounding_box()
        assert verdict["x"] + verdict["width"] <= box["x"] + box["width"] + 0.5, "verdict clipped"
        page.locator(".st-key-w_present label").first.click()  # back to normal for the next test
        bb._settle(page)
    finally:
        page.close()


FRUITS = bb.CLASS_NAMES


def _twelve_class_costs():
    """The twelve classes' cost matrix (a random one, costs 1-10 with one decimal) and their names."""
    return bb.random_costs(12), FRUITS


def _twelve_class_link(last_round: bool = False) -> str:
    """The address (query) of a designed mixture of 12 classes on a circle, with a random 12 x 12 cost matrix
    and presentation mode on; ``last_round``: with the last round in the link (``&t=T``), where the replay
    presentation mode plays by itself ends, so the page opens there without playing it (for layout checks)."""
    from rebel.ui.config import DEFAULT_HYPER

    link = class_link(*reversed(_twelve_class_costs()))
    return f"{link}&t={DEFAULT_HYPER['n_estimators']}" if last_round else link


def class_link(names, C) -> str:
    """The address (query) of a designed mixture of ``names`` on a circle, with the cost matrix ``C`` and
    presentation mode on (``bench_browser.circle_link``: the browser benchmark's ``--classes`` opens the same)."""
    return f"{bb.circle_link(names, C)}&present=1"


def _inside_box(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"] - 1
        and b["x"] < a["x"] + a["width"] - 1
        and a["y"] < b["y"] + b["height"] - 1
        and b["y"] < a["y"] + a["height"] - 1
    )


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_presentation_mode_with_twelve_classes_fits_one_screen(app_url, chromium, screenshot_dir, size):
    """Twelve classes, presentation mode, 1280x720 and 1920x1080: the regions, the 12 x 12 cost matrix, the round
    control and the numbers on one screen; the legend lists every class once, inside the plot and clear of the
    verdict's lines; the cost table shows every row and column inside the costs' box (nothing scrolls or is cut),
    its rows by their class's coloured square and name, its columns by the square, and every text of the costs'
    column at 20 px or more: the costs written where they fit their cells at 20 px and hidden where they would
    not (at 1280x720, where they were 12 px). A first visit (a new browser, as a class opens the lecturer's link):
    its figure is made for a projector with the sidebar open, in that box's narrow layout, then again for the box
    the folded sidebar leaves (it stayed in the wide layout at the narrow box's size: regions 226 px high)."""
    w, h = size
    context = chromium.new_context(viewport={"width": w, "height": h})  # no size known: a first visit
    page = context.new_page()
    try:
        page.goto(app_url + "/" + _twelve_class_link(), wait_until="commit")
        wait_projector_ticks(page, 17, timeout=240_000)
        bb._install(page)
        page.wait_for_function(  # the browser has told the server its size (the table's room follows it)
            "h => { const el = document.querySelector('.st-key-pg_viewport input');"
            " return el && el.value.startsWith(h + 'x'); }",
            arg=h,
            timeout=60_000,
        )
        wait_plot_fits_box(page, timeout=120_000)  # the figure in the layout of the box the page shows
        bb._settle(page, quiet_ms=1000, timeout_ms=120_000)
        _scroll_top(page)
        page.wait_for_timeout(500)
        page.screenshot(path=str(screenshot_dir / f"presentation_{w}x{h}_12_classes.png"))
        _assert_on_screen(page, w, h, "presentation mode, 12 classes", square=False)
        plot = page.locator(PLOT).first
        box = plot.bounding_box()
        regions = _boxes(page)["regions"]
        assert min(regions["width"], regions["height"]) >= 340, f"the regions are squeezed: {regions}"
        names = [t.strip() for t in plot.locator(".legendtext, .legend2text").all_text_contents()]
        assert sorted(names) == sorted([*FRUITS, "mistake", "hollow: test"]), (
            names
        )  # one entry per class ("elderberry" fits)
        verdict = plot.locator(".textpoint text").filter(has_text="costs ignored").first.bounding_box()
        entries = plot.locator("g.legend .traces, g.legend2 .traces").all()
        assert len(entries) == 14, len(entries)
        for item in entries:
            b = item.bounding_box()
            assert _inside_box(b, box), f"a legend entry {b} leaves the plot {box}"
            assert not _overlap(b, verdict), f"a legend entry {b} covers the verdict's lines {verdict}"
        costs = page.locator(".st-key-cost_editor").first.bounding_box()
        table = page.locator(".st-key-cost_editor .js-plotly-plot").first
        for el in [*table.locator(".ytick text").all(), *table.locator(".xtick text").all()]:
            b = el.bounding_box()
            assert _inside_box(b, costs), f"a cost table label {b} leaves the costs' box {costs}"
        assert _inside_box(table.bounding_box(), costs)
        # rows by their class's square and name, columns by its square, every text at 20 px or more, the costs
        # written where they fit their cells at that size and hidden where they would not
        C, _ = _twelve_class_costs()
        problems = present_table_problems(page, C, FRUITS, class_colors(12)) + cost_table_problems(
            page, 20, numbers=False
        )
        assert not problems, f"{w}x{h}: " + "; ".join(problems)
        small = page.evaluate(SMALL_COSTS_TEXTS, 20)
        assert not small, f"texts of the costs' column under 20 px at {w}x{h}: {small}"
    finally:
        context.close()


START = 2  # the replay's first round as a poller under load may see it (it opens at 0)


def test_presentation_mode_replays_a_retrained_model_by_itself(app_url, browser):
    """Presentation mode switches "Replay after retraining" on: after a cost edit, the retrained model's replay
    opens at t = 0 and plays to the last round with no user action (the slider's active step moves 0 → T)."""
    page, _ = bb.open_playground(browser, app_url, (1280, 720))
    try:
        page.locator(".st-key-w_present label").first.click()
        wait_projector_ticks(page, 17)
        bb._settle(page)
        assert page.locator(".st-key-w_autoplay input").first.is_checked()
        # record the slider's active step as painted from now on (looked at in a task after each animation frame,
        # so after everything that frame applied), whichever chart element shows it, and every frame plotly's
        # animation applies (its events: a loaded browser paints only some of the rounds played; listened to
        # again whenever the chart is plotted anew, which drops its listeners). A figure the server draws again
        # mid-replay (for its box, on a busy machine) opens at t = 0 and is put back at the round reached by the
        # page's script within 50 ms (``links.ROUND_IN_LINK``): not looked at before that.
        page.evaluate(
            """() => { window.__steps = []; window.__frames = []; const look = () => {
                 const gd = document.querySelector('.st-key-pg_plot .js-plotly-plot');
                 if (gd && gd.on && gd._ev !== gd.__framesEv) { gd.__framesEv = gd._ev;
                   gd.on('plotly_animatingframe', e => window.__frames.push(Number(String(e.name).slice(1)))); }
                 const s = gd && gd.layout && gd.layout.sliders && gd.layout.sliders[0];
                 const placed = !(gd && gd.layout.meta && gd.layout.meta.autoplay) || gd.__rebelFigure === gd.layout;
                 if (s && placed) window.__steps.push([s.active, s.steps.length - 1]);
                 requestAnimationFrame(() => setTimeout(look, 0)); };
               look(); }"""
        )
        bb.edit_cost(page, "7")()
        # the retrained replay opens at t = 0 (the recorder, polling a loaded browser, may first see t = 1 or 2
        # once Play has started) and, later, reaches the last round
        started = "(s => s.findIndex(([a, T]) => a <= START))"
        try:
            page.wait_for_function(
                f"""() => {{ const s = window.__steps; const START = {START};
                     const i = {started}(s); return i >= 0 && s.slice(i).some(([a, T]) => a === T); }}""",
                timeout=90_000,
            )
        except PlaywrightTimeout:
            seen = sorted({a for a, _ in page.evaluate("window.__steps")})
            raise AssertionError(f"the replay did not play from 0 to the end; steps seen: {seen}") from None
        steps = page.evaluate("window.__steps")
        first = next(i for i, (a, _) in enumerate(steps) if a <= START)
        played = [a for a, _ in steps[first:]]
        T = steps[-1][1]
        frames = page.evaluate("window.__frames")
        assert played[-1] == T and played == sorted(played), played  # to the last round, forwards only
        # it passed through the rounds in between: the frames its animation applied (after the edit's t = 0)
        after = frames[max((i for i, t in enumerate(frames) if t <= START), default=0) :]
        assert after and after[-1] == T and len(set(after)) > T // 2, frames
        page.locator(".st-key-w_present label").first.click()  # back to normal for the next test
        bb._settle(page)
    finally:
        page.close()


# Every size (plotly's full layout, width x height) each regions chart is drawn at, in order, seen on every
# animation frame from the page's first script on; and, per chart, whether the page's one-screen style (the rule
# that makes the plot's box whole pixels, ``side.ONE_SCREEN_CSS``) was in the page on an animation frame before
# the one on which the chart's element first appeared (the box is measured for the chart after a frame's layout).
_SIZES_SEEN = r"""
(() => {
  const seen = window.__sizesSeen = [], styled = window.__styledFirst = [];
  const hasStyle = () => [...document.querySelectorAll('style')].some(
    e => e.textContent.includes('div.st-key-pg_plot {height'));
  let frame = 0, styledAt = null;
  const tick = () => {
    frame += 1;
    if (styledAt === null && hasStyle()) styledAt = frame;
    for (const gd of document.querySelectorAll('.st-key-pg_plot .js-plotly-plot')) {
      if (gd.__firstFrame === undefined) gd.__firstFrame = frame;
      const fl = gd._fullLayout;
      if (!fl || !fl.width || !fl.height) continue;
      if (gd.__sizesIndex === undefined) {
        gd.__sizesIndex = seen.length; seen.push([]); styled.push(styledAt !== null && styledAt < gd.__firstFrame);
      }
      const sizes = seen[gd.__sizesIndex], size = fl.width + 'x' + fl.height;
      if (sizes[sizes.length - 1] !== size) sizes.push(size);
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();
"""


def _edit_and_sizes(page, value: str) -> list:
    """Commit a cost edit, wait for its retrained numbers, return every size each regions chart was drawn at."""
    numbers_before = _numbers(page)
    bb.edit_cost(page, value)()
    page.wait_for_function(
        "old => [...document.querySelectorAll('.st-key-pg_plot .textpoint text')].some("
        "e => e.textContent.includes('test cost per point') && e.textContent !== old)",
        arg=numbers_before,
        timeout=60_000,
    )
    bb._settle(page)
    return page.evaluate("window.__sizesSeen")


def _open(context, url: str):
    page = context.new_page()
    page.add_init_script(_SIZES_SEEN)
    page.goto(url, wait_until="commit")
    page.locator(PLOT + " .slider-label").first.wait_for(timeout=240_000)
    bb._install(page)
    bb._settle(page, quiet_ms=1000, timeout_ms=120_000)
    return page


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_the_regions_are_drawn_once_at_their_box_size(app_url, chromium, size):
    """Once the browser has told the server its size (``rebel.ui.viewport``: a script writes it into a hidden text
    box, and a cookie), the server makes the regions figure exactly the size of its box, so Streamlit never draws
    a new regions chart at a first size and again at its box's: after a cost edit (the size the script sent) and
    on a later visit of the same browser (from its cookie), each chart is drawn at one size only, its box's (whole
    pixels, ``side.plot_height``). A browser's very first visit draws as before, and the rerun the script's size
    causes does not draw the regions again."""
    from rebel.ui.playground import widgets as side

    w, h = size
    context = chromium.new_context(viewport={"width": w, "height": h})  # no cookie: a browser's first visit
    try:
        page = _open(context, app_url)
        # the script writes the cookie and the text box in one go, once both the plot and the box are on the page
        page.wait_for_function(
            "document.cookie.includes('rebel_vp=') && document.querySelector('.st-key-pg_viewport input')?.value",
            timeout=60_000,
        )
        bb._settle(page)
        box = page.locator(".st-key-pg_plot").first.bounding_box()
        assert box["height"] == side.plot_height(viewport.Viewport(h, 500)) and box["width"] == int(
            box["width"]
        )
        want = f"{int(box['width'])}x{int(box['height'])}"
        assert f"rebel_vp={h}x{int(box['width'])}" in page.evaluate("document.cookie")
        assert len(page.evaluate("window.__sizesSeen")) == 1, "the size's rerun drew the regions again"
        assert page.locator(".st-key-pg_viewport input").input_value() == f"{h}x{int(box['width'])}"
        first = page.evaluate("window.__sizesSeen")
        after = _edit_and_sizes(page, "6.5")
        if page.evaluate("document.body.dataset.rebelCostsPainted === '1'"):  # computed in the page: kept
            assert after == first, f"a cost edit the page painted drew the regions again: {after}"
        else:
            assert len(after) == len(first) + 1 and after[-1] == [want], (
                f"after a cost edit the regions were drawn at {after[len(first) :]}, want only {want}"
            )
        page.close()

        # The same browser again: its cookie tells the size on the first run. Streamlit sends the page's style to
        # its own container (style-only HTML), drawn by code its browser side loads lazily; now and then, on a
        # loaded machine, the style reaches the page only as the chart mounts or after, the chart takes the
        # unrounded box's width, and is drawn again when the style rounds it (seen in 1 of 53 later visits with
        # two busy loops beside the browser; the style came after the chart on 2 of 24 visits at 1920x1080, both
        # still drawn once). The server's part, the figure's size, is checked on the first of at most five visits
        # that can show it: one where the style came a frame before the chart, or one drawn once at the box's size
        # anyway (a wrong figure size is drawn at that size first whenever the style came first). When all five
        # had the style late (seen beside the class-of-students test on 2 cores, and once in a quiet fresh clone),
        # the last one must show just that: draws at the box's width (rounded or not) and the server's height only.
        for visit in range(5):
            page = _open(context, app_url)
            first, styled = page.evaluate("[window.__sizesSeen, window.__styledFirst]")
            if styled[0] or first == [[want]] or visit == 4:  # the last visit's page stays open for the edit
                break
            page.close()
        told = f"a later visit drew the regions at {first}, want only {want} (style first: {styled})"
        # the style late on every visit: the chart drawn only at the box's size or at the unrounded box's width
        # and the server's height (seen as [unrounded, box] and as [box, unrounded, box]), ending at the box's size
        if not styled[0] and len(first) == 1 and len(first[0]) >= 2:
            assert first[0][-1] == want, told
            for drawn in first[0]:
                width, height = drawn.split("x")
                assert height == want.split("x")[1] and int(float(width)) == int(box["width"]), told
        else:
            assert first == [[want]], told
        after = _edit_and_sizes(page, "7.5")
        if page.evaluate("document.body.dataset.rebelCostsPainted === '1'"):  # computed in the page: kept
            assert after == first, f"a cost edit the page painted drew the regions again: {after}"
        else:
            assert len(after) == 2 and after[1] == [want], (
                f"after a cost edit the regions were drawn at {after[1:]}"
            )
    finally:
        context.close()
