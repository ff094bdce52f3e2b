"""The replay from the keyboard (Streamlit): ← and → step one round, Space plays and pauses, Home and End go to the
first and the last round, as a lecturer drives a slide deck. A fixed script (no user text): it listens on the page
for those keys, unless the focus is in a field, a slider or a button of the page (they keep their own keys), and
drives the regions replay's own controls (its slider by a click on the round's tick, its Play and Pause buttons),
so everything that follows the slider follows the keys (the numbers, the strip's marker, the address bar's t).
"""

from __future__ import annotations

import streamlit as st

REPLAY_KEYS = """<script>
(() => {
  if (window.__rebelReplayKeys) return;
  window.__rebelReplayKeys = true;
  const plot = () => document.querySelector('.st-key-pg_plot .js-plotly-plot');
  const playing = (gd) => !!(gd._transitionData && gd._transitionData._frameQueue &&
                            gd._transitionData._frameQueue.length) || !!gd.__rebelPlaying;
  const button = (gd, i) => gd.querySelectorAll('.updatemenu-button')[i];  // Play, from t = 0, Pause
  const press = (el) => el && el.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  const goTo = (gd, target) => {
    const slider = gd.layout && gd.layout.sliders && gd.layout.sliders[0];
    const ticks = gd.querySelectorAll('.slider-tick-rect');
    const rail = gd.querySelector('.slider-rail-touch-rect') || gd.querySelector('.slider-rail-rect');
    if (!slider || !ticks.length || !rail) return;
    const k = Math.max(0, Math.min(ticks.length - 1, target));
    const t = ticks[k].getBoundingClientRect(), r = rail.getBoundingClientRect();
    const at = {bubbles: true, view: window, button: 0, clientX: t.left + t.width / 2, clientY: r.top + r.height / 2};
    rail.dispatchEvent(new MouseEvent('mousedown', at));
    document.dispatchEvent(new MouseEvent('mouseup', at));
    rail.dispatchEvent(new MouseEvent('mouseup', at));
  };
  const afterTwoFrames = (f) => requestAnimationFrame(() => requestAnimationFrame(f));
  const ours = (el) => el && el.closest && el.closest(
    'input, textarea, select, button, [contenteditable="true"], [role="slider"], [role="listbox"], [role="combobox"]');
  document.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || ours(e.target)) return;
    const gd = plot();
    if (!gd || !gd.layout || !gd.layout.sliders || !gd.layout.sliders.length) return;
    const slider = gd.layout.sliders[0], now = slider.active || 0, last = slider.steps.length - 1;
    const moves = {ArrowLeft: now - 1, ArrowRight: now + 1, Home: 0, End: last};
    if (e.key in moves) {
      e.preventDefault();
      if (playing(gd)) press(button(gd, 2));
      goTo(gd, moves[e.key]);
    } else if (e.key === ' ' || e.code === 'Space') {
      e.preventDefault();
      // Two frames later: a round just chosen (a key, a click on the slider) moves the replay on the next frame,
      // and would stop a Play pressed before it; by then it has started, and "Play" continues from that round.
      afterTwoFrames(() => {
        if (!gd.isConnected) return;
        const active = gd.layout.sliders[0].active || 0;
        if (playing(gd)) press(button(gd, 2));
        else press(button(gd, active >= last ? 1 : 0));  // at the last round: from t = 0
      });
    }
  }, true);
})();
</script>"""


def replay_keys() -> None:
    """Drive the regions replay from the keyboard (``REPLAY_KEYS``: a fixed script, no user text)."""
    st.html(REPLAY_KEYS, unsafe_allow_javascript=True)
