"""One round control in a real browser: scrubbing the regions figure's own slider moves the picture AND every
number that depends on the round (the three test costs and the verdict's figures above the regions, the cost
strip's marker), all in the browser, and those numbers are the engine's for the model truncated at that round.

The expected numbers are recomputed here from the engine alone (``RebelClassifier.staged_predict`` and
``TwoStepClassifier.staged_predict`` on the default preset's test points), not from the app's view layer.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from benchmarks.bench_browser import HOOKS, open_playground, scrub
from tests.e2e.conftest import settle

pytestmark = pytest.mark.browser

ROUND = 24  # scrubbed to; the page opens at the last round


def _engine_costs(t: int) -> dict:
    """Test cost per point after t >= 1 rounds of REBEL and of the two-step method, from the engine only."""
    from rebel.baselines import TwoStepClassifier
    from rebel.estimator import RebelClassifier
    from rebel.ui import config as cf

    cfg = cf.preset_config(cf.DEFAULT_PRESET)
    ds = cf.dataset_from_config(cfg)
    C = np.asarray(cfg.cost_matrix, dtype=np.float64)
    rebel = RebelClassifier(cost_matrix=C, **cfg.hyper).fit(ds.X_train, ds.y_train)
    two = TwoStepClassifier(RebelClassifier(**cfg.hyper), C).fit(ds.X_train, ds.y_train)
    classes = list(rebel.classes_)
    y = np.array([classes.index(c) for c in ds.y_test])
    out = {}
    for name, model in (("REBEL", rebel), ("two-step", two)):
        pred = list(model.staged_predict(ds.X_test))[t - 1]  # staged_predict yields rounds 1..T
        out[name] = float(C[y, [classes.index(c) for c in pred]].mean())
    return out


def _numbers_line(page) -> str:
    plot = page.locator(HOOKS["regions"][0]).first
    texts = plot.locator(".textpoint text").all_text_contents()
    return next(t for t in texts if "test cost per point" in t)


def _marker_x(page) -> list:
    return page.evaluate(
        "(() => { const gd = window.__bench.plot(); "
        "return gd.data.find(t => t.name === 'round marker').x.map(Number); })()"
    )


def test_scrubbing_moves_the_costs_with_the_picture_and_they_are_the_engines(app_url, browser):
    page, _ = open_playground(browser, app_url)
    try:
        # the whole first page (its scripts, among them the one that writes the round into the address, come with
        # the run after the plot; under load a scrub before it was not written)
        settle(page)
        final = _numbers_line(page)
        T = int(re.search(r"t = (\d+) of (\d+)", final).group(2))
        assert f"t = {T} of {T}" in final
        scrub(page, ROUND)
        page.wait_for_function(
            "r => [...document.querySelectorAll('.textpoint text')].some(e => e.textContent.includes("
            "`t = ${r} of`))",
            arg=ROUND,
            timeout=30_000,  # in the browser, but the whole suite loads the 2 cores
        )
        line = _numbers_line(page)
        slider = page.locator(HOOKS["regions"][0]).first.locator(".slider-group > text.slider-label")
        assert f"round t = {ROUND} of {T}" in slider.first.text_content()  # the picture's round
        shown = {
            "REBEL": float(re.search(r"REBEL (\d+\.\d+)", line).group(1)),
            "two-step": float(re.search(r"two-step (\d+\.\d+)", line).group(1)),
        }
        expected = _engine_costs(ROUND)
        for name, value in shown.items():  # shown with 3 decimals
            assert value == pytest.approx(expected[name], abs=5e-4), (name, line, expected)
        assert _marker_x(page) == [ROUND, ROUND]  # the cost strip's marker is at the same round
        diff = float(re.search(r"\(([+-]\d+\.\d+)\)", line).group(1))  # the verdict's difference
        assert diff == pytest.approx(shown["REBEL"] - shown["two-step"], abs=1.5e-3)
        assert not page.locator('[data-testid="stStatusWidget"]').count()  # no server rerun for the scrub
        # the address bar follows the round, so a copied link reopens it; opening that link shows round 24
        page.wait_for_function("r => new URL(location.href).searchParams.get('t') === String(r)", arg=ROUND)
        again = browser.new_page()
        try:
            again.goto(page.url)
            again.wait_for_function(
                "r => [...document.querySelectorAll('.textpoint text')].some(e => e.textContent.includes("
                "`t = ${r} of`))",
                arg=ROUND,
                timeout=120_000,
            )
        finally:
            again.close()
    finally:
        page.close()
