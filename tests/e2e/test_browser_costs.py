"""A cost edit on the Playground computed in the browser (``rebel.ui.playground.browser_costs``): in Chromium at
1280 x 720 on the airport preset, Enter in a cost cell retrains REBEL in the page's Web Worker and repaints the
regions plot with the server engine's result for the same costs (its three test costs, the numbers line and the
regions image of the round shown, pixel for pixel), and the server's run that follows (which stores the costs) does
not draw the chart again: the chart keeps the browser's picture and no new figure reaches it."""

from __future__ import annotations

import base64
import dataclasses
import io

import numpy as np
import pytest
from PIL import Image

from benchmarks import bench_browser as bb
from tests.e2e.conftest import IDLE, settle
from tests.e2e.layout_checks import wait_plot_fits_box

pytestmark = pytest.mark.browser

PLOT = ".st-key-pg_plot .js-plotly-plot"
# The chart's content as the page shows it: the regions image of the round shown, the numbers line, the slider.
_SHOWN = """sel => { const gd = document.querySelector(sel);
  const im = gd.layout.images.find(i => i.name === 'regions');
  const numbers = gd.data.find(t => t.name === 'numbers');
  const frames = gd._transitionData._frames;
  const last = frames[frames.length - 1].layout.images[0].source;
  return {source: im.source, numbers: numbers.text[0], t: gd.layout.sliders[0].active, last,
          painted: window.__rebelPg && window.__rebelPg.painted, same: gd.__probe === true}; }"""
# Counts the figures Streamlit hands plotly (Plotly.react / newPlot calls not made by the page's cost edits).
_COUNT = """sel => { const gd = document.querySelector(sel); gd.__probe = true; window.__served = 0;
  if (!window.__wrapped) { window.__wrapped = true;
    for (const name of ['react', 'newPlot']) { const f = window.Plotly[name];
      window.Plotly[name] = function (g, ...rest) { if (!g.__rebelPainting) window.__served += 1;
        return f.call(this, g, ...rest); }; } } }"""
# The mistakes' markers as drawn (their translations, sorted), the trace's number of points and the numbers' text
# as drawn: ``window.__drawn(gd)``. ``_FIRST_PART`` keeps them as the page's first part of a cost edit leaves them (changed
# in place, when the page calls plotly for the cost strip, before plotly draws anything); ``_REDRAWN`` after plotly
# drew the whole chart again from its data.
_DRAWN = """() => { window.__drawn = (gd) => {
  const i = gd.data.findIndex(t => t.name === 'mistake'), g = gd.calcdata[i][0].node3.node();
  const n = gd.data.findIndex(t => t.name === 'numbers'), text = gd.calcdata[n][0].node3.node();
  return {drawn: [...g.querySelectorAll('path.point')].map(e => e.getAttribute('transform')).sort(),
          points: gd.data[i].x.length, calc: gd.calcdata[i].filter(d => d.x !== undefined).length,
          numbers: text.querySelector('g.textpoint').outerHTML}; };
  const animate = window.Plotly.animate;
  window.__firstPart = null;
  window.Plotly.animate = function (gd, ...rest) {
    if (gd.__rebelPainting && window.__firstPart === null) window.__firstPart = window.__drawn(gd);
    return animate.call(this, gd, ...rest); }; }"""
_REDRAWN = "async sel => { const gd = document.querySelector(sel); await window.Plotly.redraw(gd); return window.__drawn(gd); }"
_IDLE = IDLE  # the page drawn and idle (tests/e2e/conftest.py)
# the chart shown is the one of the scene the page holds (its cost edits are computed in the page)
_OF_SCENE = """sel => { const gd = document.querySelector(sel), sc = window.__rebelPg && window.__rebelPg.scene;
  return !!(gd && sc && gd.layout && gd.layout.meta && gd.layout.meta.browser_scene === sc.key); }"""


def _link(preset: str) -> str:
    from rebel.ui.config import QUERY_KEY, encode_query, preset_config

    return f"/?{QUERY_KEY}={encode_query(preset_config(preset))}"


def _open_airport(where, app_url: str):
    """The airport preset's Playground at 1280 x 720 in ``where`` (a browser or a context): its page."""
    bb.VIEWPORT.update(width=1280, height=720)
    try:
        page, _ = bb.open_playground(where, app_url + _link("airport"))
    finally:
        bb.VIEWPORT.update(width=1440, height=900)
    return page


def _airport_with(cost: float):
    """The airport preset's cost matrix with C[2, 0] = ``cost`` (the cell the tests type into) and the server
    engine's pair for it."""
    from rebel.ui.config import preset_config
    from rebel.ui.lessons import fit_scene

    cfg = preset_config("airport")
    C = np.array(cfg.cost_matrix, dtype=np.float64)
    C[2, 0] = cost
    return C, fit_scene(dataclasses.replace(cfg, cost_matrix=C))


def _png_classes(uri: str) -> np.ndarray:
    """The palette indices (class indices) of a regions image, bottom row first as the grid is stored."""
    image = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))
    assert image.mode == "P"
    return np.asarray(image)[::-1]


def test_a_cost_edit_is_computed_and_painted_in_the_browser(app_url, browser):
    from rebel.ui.figures.replay_numbers import numbers_text
    from rebel.ui.playground import compute as pg

    page = _open_airport(browser, app_url)
    try:
        commit = bb.edit_cost(page, "7.5")  # truth 2 (weapon) decided 0 (harmless): 7.5
        page.wait_for_function("() => !!(window.__rebelPg && window.__rebelPg.scene)", timeout=120_000)
        page.wait_for_function(_IDLE, timeout=120_000)
        before = page.evaluate(_SHOWN, PLOT)
        page.evaluate(_COUNT, PLOT)
        page.evaluate(_DRAWN)
        commit()
        page.wait_for_function("() => document.body.dataset.rebelCostsPainted === '1'", timeout=60_000)
        painted = page.evaluate(_SHOWN, PLOT)
        # the server stores the costs (the cell is drawn again from them) and its run ends
        page.wait_for_function(
            '() => [...document.querySelectorAll(\'[class*="st-key-w_costs_"][class*="_2_0"] input\')]'
            ".some(e => e.value === '7.5')",
            timeout=60_000,
        )
        page.wait_for_function(_IDLE, timeout=60_000)
        page.wait_for_timeout(
            600
        )  # a chart Streamlit drew again would be in by now (checked below, not timed)
        page.wait_for_function(_IDLE, timeout=60_000)
        after = page.evaluate(_SHOWN, PLOT)
        served = page.evaluate("window.__served")
        moved, redrawn = page.evaluate("window.__firstPart"), page.evaluate(_REDRAWN, PLOT)
    finally:
        page.close()

    _, pair = _airport_with(7.5)
    T, t = pair.n_rounds, painted["t"]
    numbers = pg.round_numbers(pair)
    got = painted["painted"]
    assert got["REBEL"] == pytest.approx(float(numbers["REBEL"][T]), rel=1e-12, abs=1e-15)
    assert got["twoStep"] == pytest.approx(float(numbers["two-step"][T]), rel=1e-12, abs=1e-15)
    assert got["Bayes"] == pytest.approx(numbers["Bayes"], rel=1e-12, abs=1e-15)
    assert got["blind"] == pytest.approx(float(numbers["blind"][T]), rel=1e-12, abs=1e-15)
    assert painted["numbers"] == numbers_text(numbers, t, T, pg.REPLAY_TITLE)
    assert painted["source"] != before["source"]  # the regions moved
    np.testing.assert_array_equal(_png_classes(painted["source"]), pair.regions[t])
    np.testing.assert_array_equal(_png_classes(after["last"]), pair.regions[T])  # the replay's last frame
    # the server's run kept the chart: the same element, the browser's picture, no figure handed to plotly
    assert after["same"] and after["source"] == painted["source"] and after["numbers"] == painted["numbers"]
    assert served == 0
    # the mistakes' markers and the numbers the page changed in place are what plotly draws from the chart's data
    assert moved["drawn"] == redrawn["drawn"] and moved["points"] == moved["calc"] == len(moved["drawn"]) > 0
    assert moved["numbers"] == redrawn["numbers"] and "7.5" not in moved["numbers"]


# Whether the one-entry editor's table shows ``cost`` for truth i, prediction j (its hover text "a → b: cost").
_TABLE_ENTRY = """([i, j, cost]) => {
  const gd = document.querySelector('[class*="st-key-w_costs_table_box"] .js-plotly-plot');
  const d = gd && gd.data && gd.data[1];
  return !!(d && d.customdata) && d.customdata[i][j].endsWith(': ' + cost); }"""


def test_twelve_classes_one_entry_editor_edit_is_computed_in_the_browser(app_url, chromium):
    """Twelve classes: the costs are a read-only table with one entry edited under it (the one-entry editor). Enter
    in its Cost box retrains in the page too: the numbers and the regions are the server engine's for the same
    costs, and the server's run that follows redraws the table with the cost typed: the table and the verdict
    alone (their fragments), not the main area (no other widget, no reference to the regions chart)."""
    from rebel.ui.lessons import fit_scene
    from rebel.ui.playground import compute as pg

    names, C = bb.CLASS_NAMES, bb.random_costs(12)
    cfg, query = bb.circle_config(names, C), bb.circle_link(names, C)
    context = chromium.new_context()
    frames = _Frames(context)
    bb.VIEWPORT.update(width=1280, height=720)
    try:
        page, _ = bb.open_playground(context, app_url + "/" + query)
    finally:
        bb.VIEWPORT.update(width=1440, height=900)
    try:
        commit = bb.edit_cost(page, "7.5")  # truth 2 (cherry) decided 0 (apple), picked under the table
        page.wait_for_function("() => !!(window.__rebelPg && window.__rebelPg.scene)", timeout=120_000)
        page.wait_for_function(_IDLE, timeout=120_000)
        commit()
        page.wait_for_function("() => document.body.dataset.rebelCostsPainted === '1'", timeout=60_000)
        painted = page.evaluate(_SHOWN, PLOT)
        page.wait_for_function(_TABLE_ENTRY, arg=[2, 0, "7.5"], timeout=60_000)  # the server's run: the table
        settle(page)
        commit = bb.edit_cost(
            page, "8.5"
        )  # (the first edit away from the link's costs may rerun the main area)
        frames.mark()
        commit()
        page.wait_for_function("() => document.body.dataset.rebelCostsPainted === '2'", timeout=60_000)
        page.wait_for_function(_TABLE_ENTRY, arg=[2, 0, "8.5"], timeout=60_000)
        settle(page)
        after_edit = frames.kinds()
    finally:
        context.close()
    C = np.array(cfg.cost_matrix, dtype=np.float64)
    C[2, 0] = 7.5
    pair = fit_scene(dataclasses.replace(cfg, cost_matrix=C))  # (the costs the page computed)
    T, t, numbers = pair.n_rounds, painted["t"], pg.round_numbers(pair)
    assert painted["painted"]["REBEL"] == pytest.approx(float(numbers["REBEL"][T]), rel=1e-12, abs=1e-15)
    assert painted["painted"]["twoStep"] == pytest.approx(float(numbers["two-step"][T]), rel=1e-12, abs=1e-15)
    np.testing.assert_array_equal(_png_classes(painted["source"]), pair.regions[t])
    # the second edit's run: the table's chart and the verdict's line, nothing of the rest of the main area
    assert after_edit.get("plotly_chart") == 1 and after_edit.get("markdown") == 1, after_edit
    for kind in ("ref_hash", "text_input", "selectbox"):
        assert kind not in after_edit, after_edit


_NO_WORKER = "window.Worker = function () { throw new Error('Web Workers are blocked in this test'); };"


def test_without_a_worker_the_server_computes_the_edit_and_says_so(app_url, chromium):
    """A browser that cannot start the Web Worker: the edit goes to the server, the page says why in its message
    tray, and the chart is drawn again from the server engine's result."""
    from rebel.ui.figures.replay_numbers import numbers_text
    from rebel.ui.playground import compute as pg

    context = chromium.new_context()
    context.add_init_script(_NO_WORKER)
    page = _open_airport(context, app_url)
    try:
        commit = bb.edit_cost(page, "6.5")
        page.wait_for_function("() => !!(window.__rebelPg && window.__rebelPg.scene)", timeout=120_000)
        page.wait_for_function(_IDLE, timeout=120_000)
        numbers = "sel => { const gd = document.querySelector(sel); const n = gd && gd.data.find(t => t.name === 'numbers'); return n ? n.text[0] : null; }"
        before = page.evaluate(numbers, PLOT)
        commit()
        tray = page.locator(".st-key-pg_tray")
        tray.get_by_text("could not retrain REBEL").wait_for(timeout=60_000)
        page.wait_for_function(  # the server's chart of the new costs (not the one drawn before the edit)
            "([sel, old]) => { const gd = document.querySelector(sel); const n = gd && gd.data.find(t => t.name === 'numbers');"
            " return !!(n && n.text[0] !== old && gd.layout.meta && !gd.layout.meta.browser_scene); }",
            arg=[PLOT, before],
            timeout=60_000,
        )
        page.wait_for_function(_IDLE, timeout=60_000)
        shown = page.evaluate(
            "sel => { const gd = document.querySelector(sel);"
            " return [gd.data.find(t => t.name === 'numbers').text[0], gd.layout.sliders[0].active]; }",
            PLOT,
        )
        assert page.evaluate("document.body.dataset.rebelCostsPainted") is None  # nothing painted in the page
    finally:
        context.close()
    _, pair = _airport_with(6.5)
    assert shown[0] == numbers_text(pg.round_numbers(pair), shown[1], pair.n_rounds, pg.REPLAY_TITLE)


def test_with_replay_after_retraining_the_page_plays_its_edit_from_t_0(app_url, chromium):
    """Presentation mode switched on ("Replay after retraining" on by default; the sidebar folds away): the page
    paints a cost edit itself at round 0 and then plays the replay (the slider's round goes up from 0), as the
    server's new figure would."""
    context = chromium.new_context()
    bb.VIEWPORT.update(width=1280, height=720)  # (at 1440 x 900 this chart stays on the server's path)
    try:
        page, _ = bb.open_playground(context, app_url + _link("airport"))
    finally:
        bb.VIEWPORT.update(width=1440, height=900)
    try:
        page.locator(".st-key-pg_present").get_by_text("Presentation mode").click()
        commit = bb.edit_cost(page, "7.5")
        page.wait_for_function("() => !!(window.__rebelPg && window.__rebelPg.scene)", timeout=120_000)
        page.wait_for_function("() => window.__rebelPgReplay === true", timeout=60_000)
        settle(page)  # the sidebar folded away (presentation mode) and the chart drawn at its width
        page.wait_for_function(_OF_SCENE, arg=PLOT, timeout=60_000)
        page.evaluate(_COUNT, PLOT)
        commit()
        page.wait_for_function("() => document.body.dataset.rebelCostsPainted === '1'", timeout=60_000)
        assert page.evaluate("window.__rebelPg.painted.t") == 0  # painted at t = 0
        page.wait_for_function("() => document.body.dataset.rebelCostsPlayed === '1'", timeout=60_000)
        page.wait_for_function(  # the replay plays: its round moves up from 0
            "sel => { const gd = document.querySelector(sel); return gd.layout.sliders[0].active > 0; }",
            arg=PLOT,
            timeout=60_000,
        )
        page.wait_for_function(_IDLE, timeout=60_000)
        served = page.evaluate("window.__served")
        shown = page.evaluate(_SHOWN, PLOT)
    finally:
        context.close()
    assert served == 0  # the server drew no new figure: the page's picture played
    assert shown["same"] and shown["painted"]["t"] == 0


class _Frames:
    """What the server sends a page over its websocket (Streamlit's ForwardMsg, decoded): ``kinds()`` counts each
    kind since ``mark()`` (an element by its type, ``ref_hash`` for an element the browser has cached, a run's end
    as ``script_finished``)."""

    def __init__(self, context):
        self.got: list = []
        context.on("page", lambda page: page.on("websocket", self._socket))

    def _socket(self, ws) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if isinstance(payload, str):
            return
        msg = ForwardMsg()
        msg.ParseFromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            kind = msg.delta.new_element.WhichOneof("type")
        self.got.append((kind, len(payload)))

    def mark(self) -> None:
        self.got.clear()

    def kinds(self) -> dict:
        out: dict = {}
        for kind, _ in self.got:
            out[kind] = out.get(kind, 0) + 1
        return out


def test_a_computed_edit_reruns_only_the_verdict_and_keeps_the_costs(app_url, chromium):
    """After a cost edit the page computed, the server runs the message tray's verdict alone: it sends that line
    and the link, no chart (neither its figure nor a reference to a cached one) and no cost cell. Leaving the edited
    cell sends nothing either. The costs are stored: the address bar's link names them, the verdict is the server
    engine's for them, and a later run of the whole main area (an overlay switched on: the server's path) draws the
    model of the new costs with the cell showing them. (The first edit away from the preset's costs reruns the main
    area: the tray then says that the preset's story no longer holds; the second is measured.)"""
    from rebel.ui.figures.replay_numbers import numbers_text
    from rebel.ui.playground import compute as pg
    from rebel.ui.short_link import config_from_params

    context = chromium.new_context()
    frames = _Frames(context)
    page = _open_airport(context, app_url)
    cell = '[class*="st-key-w_costs_"][class*="_2_0"] input'
    try:
        commit = bb.edit_cost(page, "7.5")
        page.wait_for_function("() => !!(window.__rebelPg && window.__rebelPg.scene)", timeout=120_000)
        settle(page)
        page.wait_for_function(_OF_SCENE, arg=PLOT, timeout=60_000)
        commit()
        page.wait_for_function("() => document.body.dataset.rebelCostsPainted === '1'", timeout=60_000)
        page.locator(".st-key-pg_tray").get_by_text("Your costs differ").wait_for(timeout=60_000)
        settle(page)
        link = page.url
        commit = bb.edit_cost(page, "8.5")
        frames.mark()
        commit()
        page.wait_for_function("() => document.body.dataset.rebelCostsPainted === '2'", timeout=60_000)
        page.wait_for_function("old => location.href !== old", arg=link, timeout=60_000)
        settle(page)
        after_edit, sent = frames.kinds(), sum(size for _, size in frames.got)
        tray = page.locator(".st-key-pg_tray").inner_text()
        url = page.url
        frames.mark()
        page.locator(".st-key-pg_tray").click()  # leave the edited cell
        settle(page)
        after_leaving = frames.kinds()
        assert page.locator(cell).first.input_value() == "8.5"
        frames.mark()
        bb.flip_toggle(page)  # an overlay: the whole main area runs on the server's path
        page.wait_for_function(  # the server's chart of the new costs (its scene no longer the page's)
            "sel => { const gd = document.querySelector(sel); return !!(gd && gd.layout.meta && !gd.layout.meta.browser_scene); }",
            arg=PLOT,
            timeout=120_000,
        )
        settle(page)
        after_toggle = frames.kinds()
        shown = page.evaluate(
            "sel => { const gd = document.querySelector(sel);"
            " return [gd.data.find(t => t.name === 'numbers').text[0], gd.layout.sliders[0].active]; }",
            PLOT,
        )
        cell_text = page.locator(cell).first.input_value()
    finally:
        context.close()

    C, pair = _airport_with(8.5)
    T = pair.n_rounds
    # the verdict alone (its line, its fragment's box, and the hidden box of the edit's acknowledgement: its style
    # and its script): no chart, no cell, no payload; a few kB in all (a run of the main area sends the ~0.6 MB
    # figure, or a reference to it, and every widget again)
    assert after_edit.get("markdown") == 1 and after_edit.get("delta", 0) <= 2, after_edit
    assert after_edit.get("html", 0) <= 2, after_edit
    for kind in ("plotly_chart", "ref_hash", "text_input"):
        assert kind not in after_edit, after_edit
    assert sent < 10_000, (sent, after_edit)
    assert f"{pair.test_cost(T, 'REBEL'):.3f}" in tray and f"{pair.test_cost(T, 'two-step'):.3f}" in tray
    from urllib.parse import parse_qs, urlsplit

    linked, _ = config_from_params({k: v[0] for k, v in parse_qs(urlsplit(url).query).items()})
    np.testing.assert_array_equal(linked.cost_matrix, C)  # the link names the new costs
    assert "script_finished" not in after_leaving and "delta" not in after_leaving, after_leaving
    assert after_toggle.get("script_finished", 0) >= 1
    assert shown[0] == numbers_text(pg.round_numbers(pair), shown[1], T, pg.REPLAY_TITLE)
    assert cell_text == "8.5"


# The first Enter the page presses in its hidden text box never reaches Streamlit (as an edit lost on its way)
_LOSE_ONE = """box => { window.__rebelLost = 0; window.addEventListener('keydown', e => {
  if (!window.__rebelLost && e.key === 'Enter' && e.target.closest && e.target.closest('.st-key-' + box)) {
    window.__rebelLost = 1; e.stopImmediatePropagation(); } }, true); }"""


def test_the_session_file_downloaded_after_computed_edits_holds_their_costs(app_url, chromium):
    """The sidebar's "Download session (JSON)" after cost edits the page computed (the second one reruns the
    verdict alone, not the sidebar) holds the costs last edited: the file is written on the click. The second edit's
    message to the server is lost on its way: the page sends it again, as the server has not acknowledged it."""
    import json

    from rebel.ui.playground import browser_costs
    from tests.e2e.test_slides_browser import _download

    context = chromium.new_context()
    page = _open_airport(context, app_url)
    try:
        for n, cost in enumerate(("7.5", "8.5"), start=1):
            commit = bb.edit_cost(page, cost)
            page.wait_for_function("() => !!(window.__rebelPg && window.__rebelPg.scene)", timeout=120_000)
            settle(page)
            if n == 2:
                page.evaluate(_LOSE_ONE, browser_costs.INPUT)
            commit()
            page.wait_for_function(f"() => document.body.dataset.rebelCostsPainted === '{n}'", timeout=60_000)
            settle(page)
        page.wait_for_function(
            "() => window.__rebelLost === 1 && window.__rebelPg.unacked === null && window.__rebelPgAck.n === 2",
            timeout=60_000,
        )
        settle(page)
        sidebar = page.locator("[data-testid='stSidebar']")
        if not sidebar.is_visible() or sidebar.bounding_box()["width"] < 50:
            page.locator("[data-testid='stExpandSidebarButton']").click()
            settle(page)
        data = _download(page, "Download session (JSON)", "[data-testid='stSidebar']")
    finally:
        context.close()
    saved = json.loads(data)
    assert saved["cost_matrix"][2][0] == 8.5, saved["cost_matrix"]


# the text of the chart's traces named "numbers" and "verdict" (the projector layout's column beside the regions),
# the round shown and the page's last painted numbers, read at once (a replay may be playing)
_TEXTS = """sel => { const gd = document.querySelector(sel);
  return {text: gd.data.filter(t => t.name === 'numbers' || t.name === 'verdict').map(t => t.text[0]).join('<br>'),
          t: gd.layout.sliders[0].active, painted: window.__rebelPg && window.__rebelPg.painted}; }"""


@pytest.mark.parametrize("present", [False, True], ids=["plain", "present"])
def test_the_calibration_scenes_number_follows_a_cost_edit_in_the_browser(app_url, browser, present):
    """The calibration lesson scene shows the calibrated two-step's test cost among the numbers over the regions
    (beside them in presentation mode); a cost edit the page computes (the calibrated posteriors sent once by the
    server) paints the server engine's number for the new costs, within 1e-12, and the numbers the server would
    write."""
    from rebel.ui import lessons as ls
    from rebel.ui.figures.replay_numbers import numbers_text, projector_texts
    from rebel.ui.playground import calibrated
    from rebel.ui.playground import compute as pg

    n = next(i + 1 for i, s in enumerate(ls.SCENES) if s.shows_calibrated)
    scene = ls.SCENES[n - 1]
    # (presentation mode: the link's last round, where the replay it would play first ends)
    url = f"{app_url}/?scene={n}" + (f"&present=1&t={scene.config.hyper['n_estimators']}" if present else "")
    page, _ = bb.open_playground(browser, url, (1280, 720))
    try:
        settle(page)
        if present:  # a first visit's figure is drawn again for the box the folded sidebar leaves
            wait_plot_fits_box(page)
        before = page.evaluate(_TEXTS, PLOT)["text"]
        commit = bb.edit_cost(page, "7.5")
        page.wait_for_function("() => !!(window.__rebelPg && window.__rebelPg.scene)", timeout=120_000)
        commit()
        page.wait_for_function("() => document.body.dataset.rebelCostsPainted === '1'", timeout=60_000)
        painted = page.evaluate(_TEXTS, PLOT)
    finally:
        page.close()

    cfg = scene.config
    C = np.array(cfg.cost_matrix, dtype=np.float64)
    C[bb.COST_ENTRY] = 7.5
    old, pair = ls.fit_scene(cfg), ls.fit_scene(dataclasses.replace(cfg, cost_matrix=C))
    gap = "<br>" if present else " "
    assert f"calibrated two-step:{gap}<b>{calibrated.test_cost(old):.3f}</b> at t = {old.n_rounds}" in before
    cal = calibrated.test_cost(pair)
    assert painted["painted"]["calibrated"] == pytest.approx(cal, rel=1e-12, abs=1e-15)
    numbers, T, t = pg.round_numbers(pair, cal), pair.n_rounds, painted["t"]
    title = pg.REPLAY_TITLE
    expected = projector_texts(numbers, t, T, title) if present else [numbers_text(numbers, t, T, title)]
    assert painted["text"] == "<br>".join(expected)
    assert f"calibrated two-step:{gap}<b>{cal:.3f}</b>" in painted["text"]
