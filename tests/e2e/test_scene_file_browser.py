"""A lesson scene exported as one HTML file (``python -m rebel export-scene``) works in Chromium from disk with the
network blocked: it trains on open, a cost edit retrains REBEL in the page to the server engine's test costs for
the same costs, and Play runs the replay to the last round."""

from __future__ import annotations

import dataclasses

import pytest

from rebel.ui.browser.scene import export_scene
from rebel.ui.lessons import SCENES, fit_scene

pytestmark = pytest.mark.browser

NUMBERS = """() => Object.fromEntries(['cost-rebel', 'cost-two-step', 'cost-bayes'].map(
    id => [id, Number(document.getElementById(id).dataset.value)]))"""


@pytest.fixture(scope="module")
def scene_file(tmp_path_factory):
    scene = SCENES[0]
    path = tmp_path_factory.mktemp("scene") / "scene.html"
    export_scene(scene.config, path, scene.title, scene.notice, scene.question)
    return scene, path


def _server_numbers(cfg) -> dict:
    pair = fit_scene(cfg)
    T = pair.n_rounds
    return {
        "cost-rebel": pair.metrics(T, "REBEL").cost,
        "cost-two-step": pair.metrics(T, "two-step").cost,
        "cost-bayes": pair.bayes_test_cost,
    }


def _assert_same(page_numbers: dict, server: dict) -> None:
    for key, value in server.items():
        assert page_numbers[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


def test_scene_file_offline_cost_edit_and_play(chromium, scene_file):
    scene, path = scene_file
    cfg = scene.config
    T = cfg.hyper["n_estimators"]
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    blocked = []

    def only_files(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_files)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(path.as_uri())
        page.wait_for_function("() => document.body.dataset.fits === '1'", timeout=120_000)
        assert page.locator("#round-label").inner_text() == f"round {T} of {T}"
        _assert_same(page.evaluate(NUMBERS), _server_numbers(cfg))
        colours = page.evaluate(
            """() => { const c = document.getElementById('plot'); const d = c.getContext('2d')
                .getImageData(0, 0, c.width, c.height).data; const seen = new Set();
                for (let i = 0; i < d.length; i += 4 * 97) seen.add(d[i] * 65536 + d[i + 1] * 256 + d[i + 2]);
                return seen.size; }"""
        )
        assert colours >= 3  # regions of several classes and the points over them

        C = cfg.cost_matrix.copy()
        i, j = 2, 0  # a weapon called harmless: raised further
        C[i, j] = 60.0
        page.fill(f"#cost-{i}-{j}", "60")
        page.press(f"#cost-{i}-{j}", "Tab")  # commits the cell (its change event)
        page.wait_for_function("() => document.body.dataset.fits === '2'", timeout=120_000)
        _assert_same(page.evaluate(NUMBERS), _server_numbers(dataclasses.replace(cfg, cost_matrix=C)))

        page.fill(f"#cost-{i}-{j}", "-1")
        page.press(f"#cost-{i}-{j}", "Tab")
        page.wait_for_function("() => document.getElementById('status').classList.contains('error')")
        assert "between 0 and 1e150" in page.locator("#status").inner_text()
        page.fill(f"#cost-{i}-{j}", "60")
        page.press(f"#cost-{i}-{j}", "Tab")
        page.wait_for_function("() => document.body.dataset.fits === '3'", timeout=120_000)

        C[0, 2] = 5.0  # two edits in a row: the page shows the last table, not a training of the first one
        C[i, j] = 40.0
        page.fill(f"#cost-{i}-{j}", "40")
        page.press(f"#cost-{i}-{j}", "Tab")
        page.fill("#cost-0-2", "5")
        page.press("#cost-0-2", "Tab")
        page.wait_for_function(
            "() => document.body.dataset.asked === '5' && document.body.dataset.trained === '5'",
            timeout=120_000,
        )
        _assert_same(page.evaluate(NUMBERS), _server_numbers(dataclasses.replace(cfg, cost_matrix=C)))

        page.click("#play")  # from the last round: the replay starts again at round 0
        page.wait_for_function(f"() => Number(document.body.dataset.round) < {T}")
        page.wait_for_function(
            f"() => document.body.dataset.playing === '0' && document.body.dataset.round === '{T}'",
            timeout=60_000,
        )
        assert page.locator("#play").inner_text() == "Play"
    finally:
        context.close()
    assert not blocked, f"the scene file asked the network for {blocked}"
    assert not errors, errors
