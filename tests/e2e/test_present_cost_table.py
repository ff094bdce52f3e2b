"""Presentation mode's cost table with few enough classes for its costs at 20 px, in Chromium at 1280 x 720:
five classes with one-digit costs show every cost in its cell at 20 px (twelve classes hide them: the one-screen
tests), each row and column by its class's coloured square, every text of the costs' column at 20 px or more;
picking an entry under the table frames its cell, and a cost typed for it is written in that cell."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import bench_browser as bb
from rebel.ui.figures.palette import class_colors
from tests.e2e.conftest import settle
from tests.e2e.layout_checks import (
    SMALL_COSTS_TEXTS,
    cost_table_problems,
    present_table_problems,
    wait_projector_ticks,
)
from tests.e2e.test_one_screen import _assert_on_screen, _scroll_top, class_link

pytestmark = pytest.mark.browser

NAMES = ("covid", "flu", "healthy", "pneumonia", "sepsis")  # (the page lists classes in sorted order)
C = np.array(
    [[0, 1, 2, 3, 4], [5, 0, 6, 7, 8], [9, 1, 0, 2, 3], [4, 5, 6, 0, 7], [8, 9, 1, 2, 0]], dtype=float
)

# the framed cell's (row, column), from the frame's middle and the table's plotting area
_FRAMED = """K => { const gd = document.querySelector('[class*="st-key-w_costs_table_box"] .js-plotly-plot');
  const frame = gd && gd.querySelector('.shapelayer path'), area = gd && gd.querySelector('.draglayer .xy > .nsewdrag');
  if (!frame || !area) return null;
  const f = frame.getBoundingClientRect(), a = area.getBoundingClientRect();
  return [Math.floor((f.y + f.height / 2 - a.y) / (a.height / K)), Math.floor((f.x + f.width / 2 - a.x) / (a.width / K))]; }"""

# the costs written in the cell (row, column)
_CELL = """([K, i, j]) => { const gd = document.querySelector('[class*="st-key-w_costs_table_box"] .js-plotly-plot');
  const area = gd && gd.querySelector('.draglayer .xy > .nsewdrag');
  if (!area) return null;
  const a = area.getBoundingClientRect(), w = a.width / K, h = a.height / K;
  const ticks = new Set(gd.querySelectorAll('.xtick text, .ytick text'));
  return [...gd.querySelectorAll('.cartesianlayer text')].filter(e => !ticks.has(e)).filter(e => {
    const b = e.getBoundingClientRect(), x = b.x + b.width / 2, y = b.y + b.height / 2;
    return b.width > 0 && x > a.x + j * w && x < a.x + (j + 1) * w && y > a.y + i * h && y < a.y + (i + 1) * h;
  }).map(e => e.textContent); }"""


def _pick(page, label: str, name: str) -> None:
    page.get_by_label(label, exact=True).first.click()
    page.get_by_role("option", name=name, exact=True).first.click()


def test_five_classes_show_their_costs_at_20_px_and_the_picked_entry_is_framed(
    app_url, browser, screenshot_dir
):
    page, _ = bb.open_playground(browser, f"{app_url}/{class_link(NAMES, C)}", (1280, 720))
    try:
        wait_projector_ticks(page, 20, timeout=120_000)
        bb._settle(page, quiet_ms=1000, timeout_ms=120_000)
        _scroll_top(page)
        _assert_on_screen(page, 1280, 720, "presentation mode, 5 classes", square=False)
        problems = cost_table_problems(page, 20) + present_table_problems(page, C, NAMES, class_colors(5))
        assert not problems, "; ".join(problems)
        assert page.evaluate(_CELL, [5, 1, 2]) == ["6"]  # flu → healthy
        assert not page.evaluate(SMALL_COSTS_TEXTS, 20)
        assert page.evaluate(_FRAMED, 5) == [0, 0]  # the entry under the table: covid → covid
        _pick(page, "Truth", "healthy")
        bb._settle(page)
        _pick(page, "Prediction", "sepsis")
        page.wait_for_function(f"K => JSON.stringify(({_FRAMED})(K)) === '[2,4]'", arg=5, timeout=60_000)
        settle(page)  # (the run ended: the entry's Cost box replaced the one picked before)
        boxes = page.evaluate(
            """() => [...document.querySelectorAll('[class*="st-key-w_costs_"] input[aria-label="Cost"]')]
                 .map(e => e.closest('[class*="st-key-"]').className.match(/_(\\d+)_(\\d+)(\\s|$)/).slice(1, 3).join(','))"""
        )
        assert boxes == ["2,4"], f"the Cost box is not the framed entry's: {boxes}"
        cost = page.get_by_label("Cost", exact=True).first
        cost.fill("7.5")
        cost.press("Enter")
        # the page computes the edit (its Web Worker retrains and repaints the regions), then the server's run
        # redraws the table with the cost typed
        page.wait_for_function("() => document.body.dataset.rebelCostsPainted === '1'", timeout=60_000)
        try:
            page.wait_for_function(
                f"a => JSON.stringify(({_CELL})(a)) === '[\"7.5\"]'", arg=[5, 2, 4], timeout=60_000
            )
        except Exception as e:
            # what the page and the server said of the edit (sent, acknowledged, a message in the tray)
            said = page.evaluate(
                "() => JSON.stringify({unacked: window.__rebelPg.unacked, ack: window.__rebelPgAck, "
                "edits: window.__rebelPg.edits, table: (" + _CELL + ")([5, 2, 4]), alerts: [...document"
                ".querySelectorAll('[data-testid=\"stAlert\"]')].map(e => e.innerText.slice(0, 200))})"
            )
            raise AssertionError(f"the table never showed 7.5: {said}; the page's link: {page.url}") from e
        bb._settle(page)
        page.screenshot(path=str(screenshot_dir / "presentation_1280x720_5_classes.png"))
        assert page.evaluate(_FRAMED, 5) == [2, 4]
        assert not cost_table_problems(page, 20)
    finally:
        page.close()
