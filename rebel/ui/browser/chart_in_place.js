/* A plotly chart's traces and images changed in place, without plotly: what the Playground's page paints itself
 * (playground_costs.js), because plotly's own way (Plotly.animate, even without a redraw) recomputes the whole
 * figure's defaults and data for every change and, for a new axis range, draws every trace again. Each function
 * leaves the chart's data, full data and calcdata as plotly's own draw of the same change would (the browser tests
 * compare with Plotly.redraw), or changes nothing and returns false: the caller then lets plotly do it.
 * Also the replay's scrub: a step of the replay's slider moved by hand paints its frame in place (``scrubbable``).
 * Defines RebelInPlace (a classic script; no tags or dollar signs anywhere: it goes through st.html).
 */
(function (root) {
  "use strict";
  const BR = "\x3cbr>";

  /* The layout image k's source set to ``source`` where plotly keeps it (the figure's layout and its full layout)
   * and on the image drawn for it (the element plotly bound to that image): no relayout, which redraws every image
   * and makes the animation after it far slower. False when the drawn image is not found (plotly then draws it). */
  function swapImage(gd, k, source) {
    const full = gd._fullLayout && gd._fullLayout.images && gd._fullLayout.images[k];
    const drawn = [...gd.querySelectorAll(".imagelayer image")].find((el) => el.__data__ && el.__data__._index === k);
    if (!full || !drawn) return false;
    gd.layout.images[k].source = source;
    full.source = source;
    drawn.setAttribute("href", source);
    return true;
  }
  /* The markers of trace i (one path per point, all drawn alike: the mistakes' crosses) moved to ``to`` ({x, y})
   * in place: each marker's translation as plotly sets it (the axes' c2p), markers added (copies of one drawn
   * before) or removed, and the trace's data, full data and calcdata set as plotly's own draw leaves them, so a
   * later draw by plotly shows the same. False (plotly then draws them) on axes that are not fixed or when no marker
   * was drawn yet to copy. */
  function swapMarkers(gd, i, to) {
    const cd = gd.calcdata && gd.calcdata[i], full = gd._fullData && gd._fullData[i], fl = gd._fullLayout;
    const group = cd && cd[0] && cd[0].node3 && cd[0].node3.node && cd[0].node3.node();
    const layer = group && group.querySelector("g.points");
    const xa = full && fl[axisName(full.xaxis)], ya = full && fl[axisName(full.yaxis)];
    if (!layer || full.visible !== true || full.mode !== "markers" || !xa || !ya || xa.autorange || ya.autorange) {
      return false; // (a line through the markers, or axes that follow the data: plotly draws them)
    }
    const drawn = layer.querySelectorAll("path.point"), kept = gd.__rebelMarkers || (gd.__rebelMarkers = {});
    // a marker to copy and what plotly keeps of each point besides x, y and i (from a second point: the first
    // also holds the trace's own entries), from this draw or an earlier one
    if (drawn.length) kept[i] = { marker: drawn[0].cloneNode(false), each: kept[i] ? kept[i].each : {} };
    if (cd.length > 1 && kept[i]) kept[i].each = (({ x, y, i: _, ...rest }) => rest)(cd[1]);
    const n = to.x.length;
    if (!kept[i]) return false;
    const { marker, each } = kept[i], { x: x0, y: y0, i: i0, ...first } = cd[0];
    const next = new Array(Math.max(1, n));
    for (let k = 0; k < n; k++) next[k] = { ...each, x: to.x[k], y: to.y[k], i: k };
    next[0] = n ? { ...first, ...next[0] } : { ...first, x: undefined, y: undefined };
    for (let k = 0; k < n; k++) {
      const el = k < drawn.length ? drawn[k] : layer.appendChild(marker.cloneNode(false));
      el.setAttribute("transform", "translate(" + xa.c2p(next[k].x) + "," + ya.c2p(next[k].y) + ")");
      el.__data__ = next[k];
    }
    for (let k = n; k < drawn.length; k++) drawn[k].remove();
    gd.data[i].x = full.x = to.x;
    gd.data[i].y = full.y = to.y;
    full._length = n;
    gd.calcdata[i] = next;
    return true;
  }
  const axisName = (id) => (id === "x" || id === "y" ? id + "axis" : id[0] + "axis" + id.slice(1));
  /* The text of trace i (one text point) set to ``text`` in place, drawn as plotly draws its pseudo-HTML (a line
   * per line break, a bold piece per bold tag): the lines' elements as plotly made them, their contents new.
   * False (plotly then draws it) when the text has another number of lines than the one drawn (it would sit
   * elsewhere), or a single line (plotly draws that without line elements). */
  function swapText(gd, i, text) {
    const cd = gd.calcdata && gd.calcdata[i], full = gd._fullData && gd._fullData[i];
    const group = cd && cd[0] && cd[0].node3 && cd[0].node3.node && cd[0].node3.node();
    const el = group && group.querySelector("g.textpoint > text");
    const lines = String(text).split(BR), drawn = el ? el.querySelectorAll(":scope > tspan.line") : [];
    if (!el || full.visible !== true || full.mode !== "text" || drawn.length !== lines.length || cd.length !== 1) {
      return false;
    }
    lines.forEach((line, k) => {
      const pieces = [];
      let bold = false;
      line.split(/\x3c(\/?)b>/).forEach((piece, j) => {
        if (j % 2 === 1) { bold = piece === ""; return; } // (a tag: bold opens, its closing tag closes)
        if (!piece) return;
        const words = document.createTextNode(entities(piece));
        if (!bold) return pieces.push(words);
        const b = document.createElementNS(el.namespaceURI, "tspan");
        b.setAttribute("style", "font-weight:bold");
        b.append(words);
        pieces.push(b);
      });
      drawn[k].replaceChildren(...pieces);
    });
    el.setAttribute("data-unformatted", text);
    gd.data[i].text = full.text = [text];
    cd[0].tx = text;
    return true;
  }
  const decoder = document.createElement("textarea");
  const entities = (text) => { decoder.innerHTML = text; return decoder.value; }; // (a textarea runs nothing)


  // ------------------------------------------------------------------------------------------------ the scrub
  // an animation that applies a frame at once, without a redraw (also a Pause: [null] with it drops the queue)
  const STILL = { frame: { duration: 0, redraw: false }, mode: "immediate", transition: { duration: 0 } };
  const TYPED = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array,
    u2: Uint16Array, i4: Int32Array, u4: Uint32Array };
  /* A frame's array as values: plotly's typed-array form ({dtype, bdata}: base64 little-endian) decoded, an array
   * as it is; null for anything else. */
  function values(a) {
    if (Array.isArray(a) || ArrayBuffer.isView(a)) return a;
    const Typed = a && typeof a.bdata === "string" && !a.shape && TYPED[a.dtype];
    return Typed ? new Typed(root.RebelScene.bytesOf(a.bdata).buffer) : null;
  }
  /* The frame painted in place: its traces' markers (x and y alone) and texts (text alone), and its first layout
   * image's source when that is the chart's first image (the regions). False as soon as a part cannot be (what was
   * painted stays: plotly's animation of the frame then paints the rest over it). */
  function paintFrame(gd, frame) {
    const layout = frame.layout || {}, keys = Object.keys(layout);
    if (keys.some((k) => k !== "images")) return false;
    for (let j = 0; j < (frame.traces || []).length; j++) {
      const i = frame.traces[j], { type, ...u } = frame.data[j] || {}, names = Object.keys(u).sort().join(",");
      const tr = gd.data[i];
      if (!tr || (type && type !== (tr.type || "scatter"))) return false;
      if (names === "x,y") {
        const x = values(u.x), y = values(u.y);
        if (!x || !y || x.length !== y.length || !swapMarkers(gd, i, { x, y })) return false;
      } else if (names === "text") {
        if (!Array.isArray(u.text) || u.text.length !== 1 || !swapText(gd, i, String(u.text[0]))) return false;
      } else return false;
    }
    const images = layout.images || [];
    if (images.length > 1) return false;
    if (images.length) { // (only its source may differ from the chart's first image)
      const im = images[0], shown = (gd.layout.images || [])[0] || {};
      const same = (k) => k === "source" || JSON.stringify(im[k]) === JSON.stringify(shown[k]);
      if (!Object.keys(im).every(same) || !swapImage(gd, 0, im.source)) return false;
    }
    return true;
  }
  /* The replay's slider of chart gd made to paint a step moved by hand in place: its steps' commands are not run
   * (``execute`` off: the slider still moves, follows Play and says so), a step moved by hand (plotly_sliderchange
   * with ``interaction``) stops a replay that plays and paints its frame (``paintFrame``; what it cannot paint, by
   * plotly's animation of the frame as before), and the chart's listeners hear it as a one-frame animation
   * (plotly_animatingframe, plotly_animated; the round Play goes on from is this frame). Once per figure. */
  function scrubbable(gd) {
    const slider = gd && gd.layout && gd.layout.sliders && gd.layout.sliders[0];
    if (!slider || !gd.on || (gd.__rebelScrub === slider && gd.__rebelScrubEv === gd._ev)) return;
    gd.__rebelScrub = slider;
    const off = (steps) => (steps || []).forEach((st) => { if (st && st.method === "animate") st.execute = false; });
    off(slider.steps);
    const full = gd._fullLayout && gd._fullLayout.sliders && gd._fullLayout.sliders[0];
    if (full) { off(full.steps); off(full._visibleSteps); }
    if (gd.__rebelScrubEv === gd._ev) return;
    gd.__rebelScrubEv = gd._ev; // (plotted anew, a chart drops its listeners: gd._ev is new)
    gd.on("plotly_sliderchange", (e) => {
      const step = e && e.step, args = step && step.method === "animate" && step.args;
      if (!e.interaction || !args || step.execute !== false) return;
      const name = args[0] && args[0][0], trans = gd._transitionData || {};
      const frame = trans._frameHash && trans._frameHash[name];
      const playing = trans._animationRaf || (trans._frameQueue && trans._frameQueue.length);
      if (playing) window.Plotly.animate(gd, [null], STILL);
      let painted = false;
      try {
        painted = !!frame && paintFrame(gd, frame);
      } catch (err) { // (plotly draws the frame: the scrub is never lost)
        painted = false;
      }
      if (!painted) {
        window.Plotly.animate(gd, [name], args[1]);
        return;
      }
      gd._fullLayout._currentFrame = String(name);
      const animation = { frame: args[1].frame, transition: args[1].transition };
      gd.emit("plotly_animatingframe", { name: String(name), frame, animation });
      gd.emit("plotly_animated");
    });
  }

  root.RebelInPlace = { swapImage, swapMarkers, swapText, paintFrame, scrubbable, values, STILL };
})(typeof self !== "undefined" ? self : globalThis);
