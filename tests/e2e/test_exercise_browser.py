"""An exercise link in Chromium: ``?hide=data,training,view`` leaves the sidebar's dataset and training settings
and the view's switches off the page, while the cost matrix and the replay stay the student's."""

from __future__ import annotations

import pytest

from benchmarks import bench_browser as bb
from rebel.ui.playground import exercise

pytestmark = pytest.mark.browser


def test_an_exercise_link_hides_its_controls_and_keeps_the_costs(app_url, browser):
    page, _ = bb.open_playground(browser, app_url + "/?hide=data,training,view")
    try:
        page.locator(".st-key-cost_editor").first.wait_for(state="visible", timeout=120_000)  # the whole page
        bb._settle(page)
        for group in ("data", "training", "view"):
            assert not page.locator(f".st-key-{exercise.box(group)}").first.is_visible(), group
        assert page.locator(f".st-key-{exercise.box('files')}").first.is_visible()
        assert page.locator(".st-key-cost_editor").first.is_visible()
        assert page.get_by_text("This exercise hides").first.is_visible()
        assert "hide=data%2Ctraining%2Cview" in page.url or "hide=data,training,view" in page.url
    finally:
        page.close()
