"""A class renamed in the clusters table relabels the models shown, in Chromium: the new name reaches the regions'
legend and the cost matrix, and the regions chart still draws the same trained models (its regions trace names
them, ``layout.meta.models``), with the same numbers: nothing was trained again. Renames that keep the classes' sorted
order and one that moves the class to the end (the class indices renumbered) are both checked, and a rename back.

Each rename is one run of the whole page (the clusters table's callback applies it and asks for the page's run in
place of the main area's), which sends the regions chart once: the server's messages tell the runs apart
(``bench_rename.watch_runs``). The time from the Enter that commits each rename to the first animation frame whose
legend shows it is printed with the load average (``bench_rename.ARM_JS``); the tests assert what the page shows
and which runs the server made, never a time."""

from __future__ import annotations

import pytest

from benchmarks import bench_rename as br
from tests.e2e.conftest import settle
from tests.e2e.test_rename_browser import _TIMER_JS, _cost_names, _open_clusters, _report, _type_class

pytestmark = pytest.mark.browser

MODELS = """() => { const gd = document.querySelector('.st-key-pg_plot .js-plotly-plot');
  return (gd && gd.layout && gd.layout.meta && gd.layout.meta.models) || null; }"""
NUMBERS = """() => [...document.querySelectorAll('.st-key-pg_plot .textpoint text')]
  .map(e => e.textContent).find(t => t.includes('test cost per point')) || null"""


REGIONS_KEY = "regions_0"  # the regions chart's key (``regions_<chart version>``)


def _legend(page) -> list:
    return page.locator(".st-key-pg_plot .legendtext").evaluate_all(
        "els => els.map(e => e.textContent.trim())"
    )


def test_a_rename_relabels_the_shown_models_without_training_them_again(page, app_url):
    runs = br.watch_runs(page)
    _open_clusters(page, app_url)
    models, numbers = page.evaluate(MODELS), page.evaluate(NUMBERS)
    assert models and numbers, "the regions chart names no models or shows no numbers"
    assert "C" in _legend(page)
    # C's only cluster is row 4: renamed three times (kept in place, moved to the end of the sorted order), then back
    for old, new in (("C", "Cat"), ("Cat", "Cow"), ("Cow", "Zebra"), ("Zebra", "C")):
        page.evaluate(_TIMER_JS, new)
        # the runs the page asked for before the rename (its size, the plot's stages) end first
        settle(page)
        runs.clear()
        _type_class(page, 4, new)
        page.wait_for_function(
            "name => [...document.querySelectorAll('.st-key-pg_plot .legendtext')]"
            ".some(e => e.textContent.trim() === name)",
            arg=new,
            timeout=120_000,
        )
        page.wait_for_function("window.__rename.seen !== null", timeout=120_000)
        settle(page)
        _report(page, f"rename {old} -> {new}")
        legend, names = _legend(page), _cost_names(page)
        assert new in legend and old not in legend, f"the legend names {legend}"
        assert new in names and old not in names, f"the cost matrix names {names}"
        assert page.evaluate(MODELS) == models, f"{old} -> {new}: the chart shows other models (a retraining)"
        assert page.evaluate(NUMBERS) == numbers, f"{old} -> {new}: the numbers changed"
        done = br.done(runs)
        assert [r["run"] for r in done] == ["page"], f"{old} -> {new}: not one run of the whole page: {runs}"
        regions = [c for c in done[0]["charts"] if c.endswith("-" + REGIONS_KEY)]
        assert len(regions) == 1, f"{old} -> {new}: the regions chart was sent {len(regions)} times: {runs}"
