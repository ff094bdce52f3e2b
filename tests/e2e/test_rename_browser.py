"""Renaming a class in the Playground's clusters table, in Chromium: the new name reaches the cost matrix (and the
regions' legend), and an edit made while the page is still rerunning for the rename is never lost.

The clusters table is Streamlit's data editor (a canvas grid): a cell is opened by a click on its place, Enter, the
name typed into the grid's cell editor and Enter (``bench_rename.type_class``). The times from that Enter key (the
browser's keydown, capture phase) to the first animation frame whose cost editor shows the new name, and whose
regions legend does, are printed with the load average (``bench_rename.ARM_JS``); the tests assert what the page
shows once it is idle, never a time."""

from __future__ import annotations

import os
from urllib.parse import parse_qs, urlparse

import pytest

from benchmarks import bench_rename as br
from rebel.ui.config import QUERY_KEY, decode_query
from tests.e2e.conftest import settle

pytestmark = pytest.mark.browser

COST_CELL = ".st-key-cost_editor [class*='st-key-w_costs_'][class*='_{i}_{j}'] input"
_TIMER_JS = br.ARM_JS  # the Enter that commits a rename, to the first frames naming it (cost editor, legend)
_type_class = br.type_class  # open a class cell of the clusters table, type a name (and Enter)


# what the page knows of its cost edits (computed in the browser: painted, told, acknowledged by the server)
_SAID = """() => JSON.stringify({pg: window.__rebelPg && {edits: window.__rebelPg.edits,
  computing: window.__rebelPg.computing, unacked: window.__rebelPg.unacked},
  ack: window.__rebelPgAck || null, asked: document.body.dataset.rebelCostsAsked || null,
  painted: document.body.dataset.rebelCostsPainted || null,
  alerts: [...document.querySelectorAll('[data-testid="stAlert"]')].map(e => e.innerText.slice(0, 200))})"""


def _open_clusters(page, url: str) -> None:
    page.goto(f"{url}/{br.OPEN}")
    settle(page)
    page.locator("[data-testid='stDataFrame']").last.scroll_into_view_if_needed()


def _cost_names(page) -> list:
    return page.locator(".st-key-cost_editor [data-testid='stCaptionContainer']").all_inner_texts()


def _mixture_classes(page) -> list:
    """The class column of the clusters table as the page shows it (its cells' accessible text)."""
    return page.evaluate(
        """() => [...document.querySelectorAll("[data-testid='stDataFrame'] table[role=grid] tbody tr")]
            .map(r => (r.querySelector('td') || {}).textContent)"""
    )


def _linked_costs(page) -> dict:
    """The costs the server holds, as the page's link carries them: {(truth, prediction): cost}."""
    cfg = decode_query(parse_qs(urlparse(page.url).query)[QUERY_KEY][0])
    names = [str(c) for c in cfg.classes]
    return {(a, b): float(cfg.cost_matrix[i, j]) for i, a in enumerate(names) for j, b in enumerate(names)}


def _report(page, what: str) -> None:
    T = page.evaluate("window.__rename")
    costs, legend = (
        (None if T[k] is None else f"{T[k]:.0f} ms") for k in ("seen", "legend")
    )  # from the Enter
    print(
        f"\n{what}: Enter to {T['name']!r} in the cost matrix {costs}, in the legend {legend}; "
        f"load average {os.getloadavg()}"
    )


def test_a_rename_reaches_the_cost_matrix_and_a_second_rename_during_the_rerun_is_kept(page, app_url):
    _open_clusters(page, app_url)
    assert "C" in _cost_names(page)
    page.evaluate(_TIMER_JS, "Cat")
    _type_class(page, 4, "Cat")  # class C's only cluster
    _type_class(page, 6, "Eel")  # at once, while the page reruns for the first: D's second cluster
    page.wait_for_function(
        "window.__rename.seen !== null && window.__rename.legend !== null", timeout=120_000
    )
    settle(page)
    _report(page, "rename")
    names = _cost_names(page)
    assert "Cat" in names and "Eel" in names, f"an edit was lost: the cost matrix names {names}"
    assert "C" not in names and "D" in names
    legend = page.locator(".st-key-pg_plot .legendtext").evaluate_all("els => els.map(e => e.textContent)")
    assert "Cat" in legend and "Eel" in legend, f"the legend names {legend}"


def test_a_cost_typed_during_a_renames_rerun_is_kept(page, app_url):
    _open_clusters(page, app_url)
    page.evaluate(_TIMER_JS, "Cat")
    _type_class(page, 4, "Cat")
    cell = page.locator(COST_CELL.format(i=0, j=1)).first  # A taken for B: 1 in fig7
    cell.fill("7")
    cell.press("Enter")
    page.wait_for_function(
        "window.__rename.seen !== null && window.__rename.legend !== null", timeout=120_000
    )
    settle(page)
    _report(page, "rename, then a cost")
    assert "Cat" in _cost_names(page)
    shown, costs = page.locator(COST_CELL.format(i=0, j=1)).first.input_value(), _linked_costs(page)
    said = page.evaluate(_SAID)
    assert shown == "7", f"the cost typed was lost: the cell shows {shown!r}, the link holds {costs}; {said}"
    assert costs[("A", "B")] == 7.0, f"the server did not store the cost typed: the link holds {costs}"
