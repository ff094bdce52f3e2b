"""The Playground's address (Streamlit): the configuration's short link, the view and the round kept in it as they
change (``ROUND_IN_LINK``, a fixed script).
"""

from __future__ import annotations

import streamlit as st

from rebel.ui import config as cfgmod
from rebel.ui import short_link
from rebel.ui.lessons import SCENE_KEY, scene_shown
from rebel.ui.playground import link, present, upload_link
from rebel.ui.state import AppState

S = st.session_state


def current_config(A: AppState) -> cfgmod.Config:
    return cfgmod.Config(A.spec, A.cost_matrix, A.hyper, A.preset, A.engine, A.class_order)


def sync_url(A: AppState) -> None:
    if upload_link.sync(A) or A.data_source != "mixture":
        for key in short_link.LINK_KEYS:  # (uploaded points: their own link, ``?upload=``)
            if key in st.query_params:
                del st.query_params[key]
        return
    try:
        lesson = scene_shown(A, S.get(SCENE_KEY))
        params = short_link.link_params(current_config(A), lesson=lesson)
    except ValueError:
        return
    for key in short_link.LINK_KEYS:  # the shortest link that names the configuration, nothing else
        if key not in params and key in st.query_params:
            del st.query_params[key]
        elif key in params and st.query_params.get(key) != params[key]:
            st.query_params[key] = params[key]
    view = link.encode_view(
        S.get("t"),
        [name for name, key in link.OVERLAYS.items() if S.get(key)],
        S.get("w_details"),
        present.on(),
    )
    for key in link.VIEW_KEYS:
        if key == "t" and key in st.query_params:
            continue  # the replay keeps t up to date in the address bar as you scrub (``ROUND_IN_LINK``)
        if view.get(key) is None:
            if key in st.query_params:
                del st.query_params[key]
        elif st.query_params.get(key) != view[key]:
            st.query_params[key] = view[key]


ROUND_IN_LINK = """<script>
(() => {
  // The round shown by the regions replay (its slider, Play) goes into the address bar as ?t=..., so a copied
  // link reopens the same round. Hooks every (re)drawn replay figure once. Also plays a retrained replay.
  const hook = () => {
    const gd = document.querySelector('.st-key-pg_plot .js-plotly-plot');
    if (!gd || gd.__rebelRound || !gd.on) return;
    gd.__rebelRound = true;
    // Play moves the slider 20 times a second: the address is written once the round has stayed put for
    // 250 ms (each history.replaceState costs a few ms, and Chromium throttles many in a row). Only while this
    // plot is drawn and the address is still its page's: a page link clicked in those 250 ms changes the
    // address, and the round must not go into the other page's.
    const path = window.location.pathname;
    let pending = null;
    const write = () => { clearTimeout(pending); pending = setTimeout(writeNow, 250); };
    const writeNow = () => {
      if (!gd.isConnected || window.location.pathname !== path) return;
      const slider = gd.layout && gd.layout.sliders && gd.layout.sliders[0];
      if (!slider) return;
      const step = slider.steps[slider.active];
      if (!step) return;
      const url = new URL(window.location.href);
      if (url.searchParams.get('t') === step.label) return;
      url.searchParams.set('t', step.label);
      window.history.replaceState(window.history.state, '', url);
    };
    gd.on('plotly_sliderchange', write);
    gd.on('plotly_animated', write);
  };
  // "Replay after retraining": a figure whose layout.meta carries an autoplay token (a new one per retrain,
  // the figure opening at t = 0) gets its Play button pressed once, when its frames are in and its box has
  // kept its size for 400 ms: a chart resized while it plays (the sidebar folding away as presentation mode
  // opens from a link) can be left drawn at the old size. A figure drawn again with the same token (the chart
  // redrawn only for its box, rebel.ui.playground.screen.replay_token) also opens at t = 0: the replay goes on
  // from the round it had reached, stays at a round it was paused or scrubbed to, or shows the last round once
  // it has ended. window.__rebelReplay: the token played last, the frame reached and whether it still plays.
  const STILL = {frame: {duration: 0, redraw: false}, transition: {duration: 0}, mode: 'immediate'};
  // A figure drawn again put back at round ``reached`` of its ``frames``: playing on from there with its Play
  // button's settings (at ``frameMs`` a frame when given), or (ended, paused or scrubbed) at that round with the
  // slider on it (plotly's slider follows a frame only when it differs from the last one it saw, which was this
  // one before the figure was drawn again).
  const putBack = (gd, frames, reached, playing, frameMs) => {
    const names = frames.map(f => f.name), at = Math.max(0, Math.min(reached, names.length - 1));
    const button = gd.layout.updatemenus && gd.layout.updatemenus[0].buttons[0];
    if (playing && at < names.length - 1 && button) {
      const args = Object.assign({}, button.args[1], {mode: 'immediate'});
      if (Number.isFinite(frameMs)) args.frame = Object.assign({}, args.frame, {duration: frameMs});
      window.Plotly.animate(gd, names.slice(at), args);
      return;
    }
    Promise.resolve(window.Plotly.animate(gd, [names[at]], STILL)).then(() => {
      const s = gd.layout.sliders && gd.layout.sliders[0];
      if (s && s.active !== at && gd.isConnected) window.Plotly.relayout(gd, {'sliders[0].active': at});
    });
  };
  const follow = (gd, r) => {  // (plotted anew, a chart drops its listeners: gd._ev is new)
    if (gd.__rebelFigure === gd.layout) r.trans = gd._transitionData;  // the animation state of the replay's figure
    if (gd.__rebelFollowed === r && gd.__rebelEv === gd._ev) return;
    gd.__rebelFollowed = r; gd.__rebelEv = gd._ev;
    const names = () => ((gd._transitionData && gd._transitionData._frames) || []).map(f => f.name);
    const mine = () => gd.__rebelFollowed === r;
    const queued = () => !!(gd._transitionData && gd._transitionData._frameQueue && gd._transitionData._frameQueue.length);
    gd.on('plotly_animatingframe', e => {  // playing while more frames are queued (not a scrub's one frame)
      const k = names().indexOf(e.name);  // (-1 while plotly swaps a new figure's frames in)
      if (mine() && k >= 0) { r.reached = k; r.playing = queued(); }
    });
    const stopped = () => { if (mine()) r.playing = false; };  // its end; Pause (its queue dropped at once)
    gd.on('plotly_animated', stopped);
    gd.on('plotly_animationinterrupted', stopped);
  };
  // A chart plotted anew (any new figure the server draws) gets a new animation state, but plotly's loop that was
  // playing the figure before runs on by itself, unheard: it goes on applying the old figure's frames to the new
  // one and moving its slider (beside a replay put back, the rounds played twice and the slider stepped back a
  // round). That loop is stopped at the next tick; when it played the replay, the round it had started is the one
  // reached (or, if it ended unheard, the last).
  const orphan = (gd, r) => {
    const old = window.__rebelTrans, now = gd ? gd._transitionData : null;
    window.__rebelTrans = now;
    if (!old || old === now) return;
    const mine = !!r && r.trans === old;
    if (mine) r.trans = null;
    if (old._animationRaf) {
      window.cancelAnimationFrame(old._animationRaf);
      old._animationRaf = null;
      if (mine) {
        const cur = old._currentFrame;
        const k = cur ? (old._frames || []).findIndex(f => String(f.name) === String(cur.name)) : -1;
        if (k >= 0) r.reached = k;
        r.playing = !!(old._frameQueue && old._frameQueue.length);
      }
      old._frameQueue = [];
    } else if (mine && r.playing) {
      r.reached = Math.max(0, (old._frames || []).length - 1);
      r.playing = false;
    }
  };
  const autoplay = () => {
    const gd = document.querySelector('.st-key-pg_plot .js-plotly-plot');
    const token = gd && gd.layout && gd.layout.meta && gd.layout.meta.autoplay;
    if (!token || gd.__rebelFigure === gd.layout) return;
    const frames = gd._transitionData && gd._transitionData._frames;
    const play = gd.querySelector('.updatemenu-button');
    if (!frames || !frames.length || !play || !window.Plotly || !gd._fullLayout) return;
    let r = window.__rebelReplay;
    if (r && r.token === token) {  // drawn again: the replay where it was, at the next tick (<= 50 ms)
      gd.__rebelFigure = gd.layout;
      follow(gd, r);
      putBack(gd, frames, r.reached, r.playing);
      return;
    }
    const box = gd.getBoundingClientRect();
    const size = Math.round(box.width) + 'x' + Math.round(box.height) + '/' + Math.round(gd._fullLayout.width || 0);
    if (gd.__rebelSize !== size) { gd.__rebelSize = size; gd.__rebelSame = 0; return; }
    if (++gd.__rebelSame < 8 || Math.abs(box.width - gd._fullLayout.width) > 2) return;
    gd.__rebelFigure = gd.layout;
    r = window.__rebelReplay = {token: token, reached: 0, playing: true};
    follow(gd, r);
    play.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  };
  // A figure drawn again with the same picture and no token (layout.meta.picture: all it shows but its size,
  // rebel.ui.playground.screen.mark_picture; a box reported after the page's run, a resized window) opens at the
  // server's round: the round the figure before it showed, and a replay started with Play (at its pace), are put
  // back (once its frames are in). Read before ``orphan`` stops the animation of the figure before.
  const carry = gd => {
    if (!gd || !gd.layout) return;
    const prev = window.__rebelShown;
    if (!prev || prev.layout !== gd.layout) {  // a figure first seen
      const m = gd.layout.meta || {}, pm = (prev && prev.layout.meta) || {};
      if (m.picture && m.picture === pm.picture && !m.autoplay) {
        const s = prev.layout.sliders && prev.layout.sliders[0], tr = prev.trans;
        const shown = tr && tr._currentFrame;  // (its pace: the frame duration it was played at)
        gd.__rebelCarry = {
          at: s && typeof s.active === 'number' ? s.active : null,
          playing: !!(tr && (tr._animationRaf || (tr._frameQueue && tr._frameQueue.length))),
          frameMs: shown && shown.frameOpts ? shown.frameOpts.duration : undefined,
        };
      }
      window.__rebelShown = {layout: gd.layout, trans: gd._transitionData};
    } else if (gd._transitionData) prev.trans = gd._transitionData;
    const c = gd.__rebelCarry, frames = gd._transitionData && gd._transitionData._frames;
    if (!c || !frames || !frames.length || !window.Plotly || !gd._fullLayout) return;
    gd.__rebelCarry = null;
    const s = gd.layout.sliders && gd.layout.sliders[0];
    if (c.at === null || (!c.playing && s && s.active === c.at)) return;  // (already there: nothing to do)
    putBack(gd, frames, c.at, c.playing, c.frameMs);
  };
  const tick = () => {
    const gd = document.querySelector('.st-key-pg_plot .js-plotly-plot'), r = window.__rebelReplay;
    carry(gd);
    orphan(gd, r);
    hook(); autoplay();
    if (gd && r && gd.__rebelFollowed === r) follow(gd, r);
  };
  // (every 50 ms: a figure drawn again shows its t = 0 until then; each tick is a few lookups)
  if (!window.__rebelRoundTimer) window.__rebelRoundTimer = setInterval(tick, 50);
})();
</script>"""


def round_in_link() -> None:
    """Keep the replay's round in the address bar (``ROUND_IN_LINK``: a fixed script, no user text)."""
    st.html(ROUND_IN_LINK, unsafe_allow_javascript=True)
