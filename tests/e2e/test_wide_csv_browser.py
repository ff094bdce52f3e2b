"""Real-browser checks of CSV files with more than two feature columns (Debian chromium driven by Playwright):

- the Playground draws two columns of a four-column file, picked in the sidebar: its axes carry their names and
  the plot area stays square (their ranges differ threefold);
- the Real data page trains on the user's own file and draws the calibrated two-step beside REBEL.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from sklearn.datasets import load_wine

from tests.e2e.conftest import settle

pytestmark = pytest.mark.browser

LOAD = 240_000  # ms: a cold start compiles the numba kernels
PLOT = ".st-key-pg_plot .js-plotly-plot"


def _wine(columns, label: str = "label") -> bytes:
    w = load_wine(as_frame=True).frame
    df = w[list(columns)].copy()
    df[label] = w["target"].map({0: "barolo", 1: "grignolino", 2: "barbera"})
    return df.to_csv(index=False).encode()


def _upload(page, box_text: str, name: str, data: bytes) -> None:
    box = page.locator("[data-testid='stFileUploader']", has_text=box_text).first
    box.locator("input[type=file]").set_input_files({"name": name, "mimeType": "text/csv", "buffer": data})
    settle(page, LOAD)


def _pick(page, label: str, option: str) -> None:
    """Choose ``option`` in the select box ``label``: a rerun that lands during the click can close its list
    before it shows, so the list is opened again until the option is there (typing its name filters it)."""
    box = page.get_by_label(label, exact=True).first
    choice = page.get_by_role("option", name=option, exact=True).first
    for _ in range(4):
        box.click()
        page.keyboard.type(option)
        try:
            choice.wait_for(timeout=10_000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            settle(page, LOAD)
    choice.click()
    settle(page, LOAD)


def _titles(page) -> tuple:
    """The regions' x title (an annotation at the x axis's right end on the first screen) and y title."""
    y = page.locator(f"{PLOT} .ytitle").first.text_content()
    notes = page.locator(f"{PLOT} .annotation-text").all_text_contents()
    return notes, y


def _open(browser, url: str):
    tab = browser.new_page()
    tab.errors = []
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    tab.goto(url, wait_until="domcontentloaded")
    return tab


@pytest.fixture
def page(app_url, browser):
    """The Playground, drawn."""
    tab = _open(browser, app_url)
    tab.wait_for_selector(f"{PLOT} .slider-label", timeout=LOAD)
    settle(tab, LOAD)
    yield tab
    tab.close()


@pytest.fixture
def real_page(app_url, browser):
    """The Real data page opened on "your own CSV file" (a link), 20 rounds, REBEL's two-step as the baseline."""
    tab = _open(browser, f"{app_url}/Real_data?dataset=upload&rounds=20&methods=rebel")
    tab.get_by_role("heading", name="Real data").first.wait_for(timeout=LOAD)
    settle(tab, LOAD)
    yield tab
    tab.close()


def test_the_playground_draws_two_picked_columns_named_and_square(page):
    _upload(page, "Upload points", "wine4.csv", _wine(["alcohol", "proline", "hue", "flavanoids"]))
    notes, y = _titles(page)
    assert y == "proline" and "alcohol" in notes
    _pick(page, "Column on the y axis", "hue")
    page.wait_for_function(
        "sel => document.querySelector(sel)?.textContent === 'hue'", arg=f"{PLOT} .ytitle", timeout=LOAD
    )
    notes, y = _titles(page)
    assert y == "hue" and "alcohol" in notes
    area = page.locator(f"{PLOT} .nsewdrag[data-subplot='xy']").first.bounding_box()
    assert area["width"] > 100 and abs(area["width"] - area["height"]) <= 2, area  # a square plot area
    assert not page.errors, page.errors


def test_the_real_data_page_trains_on_the_users_csv(real_page):
    page = real_page
    rows = _wine(["alcohol", "malic_acid", "flavanoids", "color_intensity"], label="cultivar")
    _upload(page, "Your CSV file", "wine.csv", rows)
    page.locator("[data-testid='stPlotlyChart'] .legendtext").first.wait_for(timeout=LOAD)
    legend = page.locator("[data-testid='stPlotlyChart'] .legendtext").all_text_contents()
    assert any("calibrated two-step" in t for t in legend), legend
    assert any("REBEL (cost-sensitive)" in t for t in legend), legend
    assert page.locator("[data-testid='stException']").count() == 0
    assert not page.errors, page.errors
