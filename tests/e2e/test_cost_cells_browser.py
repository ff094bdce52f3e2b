"""A first visit in a fresh Chromium (no cache, no storage): the cost matrix's cells show their numbers from the
first frame the table is on the page, at 1280x720 and 1440x900, with presentation mode on and off.

An init script looks at the cost editor's cells on every animation frame and after every change to the page
(a mutation observer: a state the page passes through between two frames is seen too), from the first time the
cells are on the page until the page has been idle for a while, and notes every look that finds a cell blank: an
empty value, or a value whose font is not loaded yet (``document.fonts.check``: Chromium paints no text in a font
still loading, for up to 3 s); a cell whose value is still empty shows its number if its placeholder holds it
drawn as a value is (the editor's own style). The test fails if any look found a blank cell, and names when and how
many, or if the numbers first painted are not the costs the cells then hold."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import settle

pytestmark = pytest.mark.browser

_WATCH_JS = r"""
(() => {
  const R = window.__cells = {looks: 0, frames: 0, blank: [], first: null};
  // The text a cell paints: its value, else its placeholder when that is drawn as a value is (same colour, opaque);
  // null when it paints none, or its font is still loading (nothing is painted in it then).
  const shown = (c) => {
    const font = getComputedStyle(c).font, text = c.value.trim();
    if (text) return document.fonts.check(font, text) ? text : null;
    const ph = getComputedStyle(c, '::placeholder'), hint = c.placeholder.trim();
    const asValue = ph.color === getComputedStyle(c).color && Number(ph.opacity) === 1;
    return hint && asValue && document.fonts.check(font, hint) ? hint : null;
  };
  const look = (why) => {
    const cells = [...document.querySelectorAll('.st-key-cost_editor input')];
    if (!cells.length) return;
    if (R.first === null) R.first = performance.now();
    R.looks++;
    if (why === 'frame') R.frames++;
    const blank = cells.filter(c => shown(c) === null);
    // each cell's first painted number, by the cell's label (which entry it edits): the cells stream in, and a
    // first look may find only some of them, not always the first ones in order
    R.firstShown = R.firstShown || {};
    for (const c of cells) { const name = c.getAttribute('aria-label'); if (!(name in R.firstShown)) R.firstShown[name] = shown(c); }
    if (blank.length && R.blank.length < 30) R.blank.push({
      ms: Math.round(performance.now() - R.first), why, blank: blank.length, of: cells.length,
      values: blank.slice(0, 3).map(c => c.value), font: getComputedStyle(blank[0]).font});
  };
  new MutationObserver(() => look('mutation')).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true});
  const tick = () => { look('frame'); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})();
"""


@pytest.mark.parametrize("present", [False, True], ids=["plain", "presentation"])
@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)], ids=["1280x720", "1440x900"])
def test_cost_cells_are_never_blank_on_a_first_visit(chromium, app_url, size, present):
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]})  # a fresh browser
    try:
        page = context.new_page()
        page.add_init_script(_WATCH_JS)
        page.goto(f"{app_url}/?p=airport" + ("&present=1" if present else ""))
        page.wait_for_function("window.__cells && window.__cells.first !== null", timeout=240_000)
        settle(page)
        page.wait_for_function("window.__cells.frames >= 30", timeout=60_000)  # and some frames after it
        seen = page.evaluate("window.__cells")
        assert page.locator(".st-key-cost_editor input").count() == 9  # airport: 3 x 3
        print(f"\n{size} presentation={present}: {seen['looks']} looks, {seen['frames']} frames")
        assert not seen["blank"], f"cost cells blank at (ms after the table appeared): {seen['blank']}"
        values = page.locator(".st-key-cost_editor input").evaluate_all(
            "cells => Object.fromEntries(cells.map(c => [c.getAttribute('aria-label'), c.value.trim()]))"
        )
        assert len(values) == 9 and seen["firstShown"] == values  # the numbers first painted are the costs
    finally:
        context.close()
