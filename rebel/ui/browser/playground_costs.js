/* The Playground's cost edits in the browser (paper engine, no overlays): Enter in a cell of the cost editor
 * retrains REBEL in a Web Worker with the edited matrix (RebelScene.trainer), decides the two-step method's and the
 * Bayes rule's classes from the posteriors the server sent once (window.__rebelPgData, set by the script before
 * this one: rebel.ui.playground.browser_costs.scene_payload), and repaints the regions plot (the regions image, the
 * mistakes, the numbers, the verdict's figures and the cost strip of the round shown; every round's frame for the
 * replay right after). Then it writes the new matrix into a hidden text box, so the server stores the costs (links,
 * session files, other pages) and keeps the chart as the browser drew it. A cell whose text the browser does not
 * take as a cost, or a page where the browser path is off, goes to the server as before. If the worker fails, the
 * edit goes to the server with the reason, and the server takes over.
 * Only the server's verdict line reruns then (rebel.ui.playground.browser_costs.verdict); the edited cell keeps its text
 * uncommitted (its commit on leaving it is not passed on while it holds the text the server stored). A cell's text
 * is trained as it is typed (the worker's training and the decisions are often done when Enter comes).
 * The server acknowledges each edit it stored (window.__rebelPgAck: this page's id and the edit's number, set by
 * rebel.ui.playground.browser_costs.ack); an edit not acknowledged once Streamlit is idle again is sent again
 * (``deliver``): an edit the server never got would otherwise leave it with the old costs (links, session files,
 * other pages) while the page shows the new ones.
 * State for tests: body[data-rebel-costs-asked] / [data-rebel-costs-painted] number the edits asked and painted;
 * window.__rebelPg.painted holds the last painted numbers; __rebelPg.computing counts the edits not yet told to the
 * server and __rebelPg.unacked is the edit told and not yet acknowledged (the page is idle when both are none).
 */
(function () {
  "use strict";
  const S = window.RebelScene, { swapImage, swapMarkers, swapText, scrubbable, STILL } = window.RebelInPlace;
  const P = window.__rebelPg || (window.__rebelPg = { scene: null, edits: 0, failed: null, unacked: null,
    computing: 0, page: Math.random().toString(36).slice(2, 12) });
  const D = window.__rebelPgData;
  const END = "\x24"; // (a regular expression's end, written so)
  // a cost cell's key: the editor's key, 8 hex digits of its two classes' names, its row and its column
  const COST_CELL = new RegExp("(?:^|\\s)st-key-([A-Za-z_]+?)_[0-9a-f]{8}_(\\d+)_(\\d+)(?:\\s|" + END + ")");
  const NUMBER = new RegExp("^(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?" + END);

  // ------------------------------------------------------------------------------------------ the scene sent
  function prepare(d) {
    const K = d.problem.K, T = d.problem.nRounds;
    const trainX = Float64Array.from(d.problem.X), testX = Float64Array.from(d.testX);
    const nTrain = d.problem.N, nTest = d.testY.length, M = nTrain + nTest;
    const points = new Float64Array(2 * M); // train then test, as the figure stacks them for the mistakes
    points.set(trainX, 0);
    points.set(testX, 2 * nTrain);
    const pointsY = Uint8Array.from([...d.problem.y, ...d.testY]);
    return {
      key: d.key, costsKey: d.costsKey, K, T, nTrain, nTest, M, points, pointsY, testY: d.testY,
      problem: d.problem, C: Float64Array.from(d.problem.costMatrix),
      xs: d.grid.xs, ys: d.grid.ys, nx: d.grid.xs.length, ny: d.grid.ys.length,
      staged: d.twoStep.map(S.float64s), bayes: d.bayes ? S.float64s(d.bayes) : null,
      calibrated: d.calibrated ? S.float64s(d.calibrated) : null,
      blind: S.bytesOf(d.blind), palette: d.palette, title: d.title, projector: d.projector, tie: d.tie,
      maxCost: d.maxCost, input: d.input, generation: 0, result: null, asked: null,
    };
  }
  if (D && D.key) {
    if (!P.scene || P.scene.key !== D.key || P.scene.projector !== D.projector ||
      !P.scene.calibrated !== !D.calibrated) P.scene = prepare(D);
  } else {
    P.scene = null; // the browser path does not apply to what the server shows now
  }
  if (!P.trainer && D && D.engine) {
    if (!window.RebelEngine) {
      const el = document.createElement("script");
      el.textContent = D.engine;
      document.head.append(el);
    }
    P.trainer = S.trainer(D.engine, (reason) => { P.failed = reason; });
  }
  if (P.installed) return;
  P.installed = true;

  // -------------------------------------------------------------------------------- palette PNGs of class grids
  const CRC = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    CRC[n] = c;
  }
  function crc32(bytes, start, end) {
    let c = -1;
    for (let i = start; i < end; i++) c = CRC[(c ^ bytes[i]) & 255] ^ (c >>> 8);
    return (c ^ -1) >>> 0;
  }
  /* A palette PNG (rows top-down, stored deflate blocks) of the class grid cls[offset ..] (ny rows of nx,
   * row 0 at the bottom), as a data URI: the server's region_png.class_grid_pngs draws the same pixels. */
  function gridPng(cls, offset, nx, ny, palette) {
    const nColors = palette.length / 3;
    const bits = [1, 2, 4, 8].find((b) => nColors <= 1 << b), per = 8 / bits, rowBytes = Math.ceil(nx / per);
    const raw = new Uint8Array(ny * (rowBytes + 1));
    for (let r = 0; r < ny; r++) {
      const src = offset + (ny - 1 - r) * nx, o = r * (rowBytes + 1) + 1; // filter byte 0 first
      for (let x = 0; x < nx; x++) raw[o + ((x / per) | 0)] |= cls[src + x] << (bits * (per - 1 - (x % per)));
    }
    const blocks = Math.max(1, Math.ceil(raw.length / 65535));
    const idat = new Uint8Array(2 + raw.length + 5 * blocks + 4);
    idat[0] = 0x78; idat[1] = 0x01;
    let p = 2, a = 1, b = 0;
    for (let k = 0; k < blocks; k++) {
      const start = k * 65535, len = Math.min(65535, raw.length - start);
      idat[p] = k === blocks - 1 ? 1 : 0;
      idat[p + 1] = len & 255; idat[p + 2] = len >> 8; idat[p + 3] = ~len & 255; idat[p + 4] = (~len >> 8) & 255;
      idat.set(raw.subarray(start, start + len), p + 5);
      p += 5 + len;
    }
    for (let i = 0; i < raw.length; i++) { a = (a + raw[i]) % 65521; b = (b + a) % 65521; }
    idat[p] = b >> 8; idat[p + 1] = b & 255; idat[p + 2] = a >> 8; idat[p + 3] = a & 255;
    const chunks = [
      ["IHDR", [...u32(nx), ...u32(ny), bits, 3, 0, 0, 0]], ["PLTE", palette], ["IDAT", idat], ["IEND", []],
    ];
    const size = 8 + chunks.reduce((s, [, c]) => s + 12 + c.length, 0), png = new Uint8Array(size);
    png.set([137, 80, 78, 71, 13, 10, 26, 10]);
    let q = 8;
    for (const [tag, body] of chunks) {
      png.set(u32(body.length), q);
      for (let i = 0; i < 4; i++) png[q + 4 + i] = tag.charCodeAt(i);
      png.set(body, q + 8);
      png.set(u32(crc32(png, q + 4, q + 8 + body.length)), q + 8 + body.length);
      q += 12 + body.length;
    }
    let text = "";
    for (let i = 0; i < png.length; i += 0x8000) text += String.fromCharCode.apply(null, png.subarray(i, i + 0x8000));
    return "data:image/png;base64," + btoa(text);
  }
  function u32(v) { return [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255]; }

  // ------------------------------------------------------------------------ the numbers (replay_numbers' twin)
  // (tags and non-ASCII text as escapes: Streamlit drops an st.html script holding them literally; and no dollar
  // sign anywhere in this file: the app's checks read the page's HTML for live LaTeX)
  const f3 = (v) => v.toFixed(3);
  const signed = (v) => (v < 0 ? "" : "+") + v.toFixed(3);
  const bold = (text) => "\x3cb>" + text + "\x3c/b>";
  const BR = "\x3cbr>", DOT = " \u00b7 ";
  /* rebel.ui.figures.replay_numbers._numbers_parts of round t: [head, costs, verdict phrases, calibrated]. */
  function parts(n, t, T) {
    const r = n.REBEL[t], s = n.twoStep[t], b = n.Bayes, diff = r - s;
    const costs = bold("REBEL " + f3(r)) + DOT + bold("two-step " + f3(s)) + DOT +
      (b === null ? "Bayes n/a" : bold("Bayes " + f3(b)));
    const who = Math.abs(diff) <= n.tie ? "tie" : diff < 0 ? "REBEL cheaper" : "two-step cheaper";
    const verdict = [who + " (" + signed(diff) + ")", "costs ignored: " + f3(n.blind[t])];
    if (b !== null) verdict.push("above Bayes: REBEL " + signed(r - b) + ",", "two-step " + signed(s - b));
    const calibrated = n.calibrated === null ? [] : ["calibrated two-step:", bold(f3(n.calibrated)) + " at t = " + T];
    return [bold("t = " + t) + " of " + T + DOT + "test cost per point:", costs, verdict, calibrated];
  }
  function numbersText(n, t, T, title) { // replay_numbers.numbers_text
    const [head, costs, verdict, calibrated] = parts(n, t, T);
    const lines = [head, costs, verdict.slice(0, 2).join(DOT)];
    if (verdict.length > 2) lines.push(verdict.slice(2).join(" "));
    if (calibrated.length) lines.push(calibrated.join(" "));
    return (title ? [title] : []).concat(lines).join(BR);
  }
  function projectorTexts(n, t, T, title) { // replay_numbers.projector_texts
    const [head, costs, verdict, calibrated] = parts(n, t, T);
    return [head + BR + costs, (title ? [title] : []).concat(verdict, calibrated).join(BR)];
  }

  // ----------------------------------------------------------------------------------------- the new picture
  /* The numbers of the result (``d``: the decisions, RebelScene.decideModel's and decideByCosts'): every round's
   * test costs of the two-step method and of the costs ignored, the Bayes rule's; REBEL's of a round when first
   * asked for (``rebelAt``: scored from that round alone) and of every round once ``complete`` (the cost strip). */
  function outcome(sc, C, d) {
    const E = window.RebelEngine, { K, T, M, nTrain, nTest, testY } = sc;
    const n = { REBEL: new Float64Array(T + 1).fill(NaN), twoStep: new Float64Array(T + 1),
      blind: new Float64Array(T + 1), Bayes: d.bayes ? E.meanCost(C, K, testY, d.bayes, 0) : null, tie: sc.tie,
      // the calibrated two-step after all rounds: the cheapest class of the calibrated posteriors the server sent
      calibrated: sc.calibrated && nTest
        ? E.meanCost(C, K, testY, E.minRiskClasses(sc.calibrated, nTest, K, C), 0) : null };
    for (let t = 0; t <= T; t++) {
      n.twoStep[t] = nTest ? E.meanCost(C, K, testY, d.twoStep[t], 0) : 0;
      n.blind[t] = nTest ? E.meanCost(C, K, testY, sc.blind, t * nTest) : 0;
    }
    const res = { n, d, png: new Array(T + 1), wrong: new Array(T + 1), done: false };
    res.rebelAt = (t) => {
      if (Number.isNaN(n.REBEL[t])) n.REBEL[t] = nTest ? E.meanCost(C, K, testY, d.pointsAt(t), nTrain) : 0;
      return n.REBEL[t];
    };
    res.complete = () => {
      if (res.done) return res;
      const staged = d.stagedAll();
      for (let t = 0; t <= T; t++) n.REBEL[t] = nTest ? E.meanCost(C, K, testY, staged, t * M + nTrain) : 0;
      res.done = true;
      return res;
    };
    return res;
  }
  function png(sc, res, t) {
    if (!res.png[t]) {
      const start = performance.now();
      res.png[t] = gridPng(res.d.regionsAt(t), 0, sc.nx, sc.ny, sc.palette);
      res.pngMs = (res.pngMs || 0) + performance.now() - start;
    }
    return res.png[t];
  }
  function mistakes(sc, res, t) {
    if (!res.wrong[t]) {
      const { M, points, pointsY } = sc, cls = res.d.pointsAt(t);
      let count = 0;
      for (let m = 0; m < M; m++) if (cls[m] !== pointsY[m]) count++;
      const x = new Float32Array(count), y = new Float32Array(count);
      for (let m = 0, k = 0; m < M; m++) {
        if (cls[m] !== pointsY[m]) { x[k] = points[2 * m]; y[k] = points[2 * m + 1]; k++; }
      }
      res.wrong[t] = { x, y };
    }
    return res.wrong[t];
  }
  /* What changes with the round t, per trace name (the frames' traces). */
  function roundUpdate(sc, res, name, t) {
    const n = res.n;
    res.rebelAt(t);
    if (name === "mistake") return mistakes(sc, res, t);
    if (name === "round marker") return { x: [t, t], y: [n.REBEL[t], n.twoStep[t]] };
    if (name === "numbers") {
      return { text: [sc.projector ? projectorTexts(n, t, sc.T, sc.title)[0] : numbersText(n, t, sc.T, sc.title)] };
    }
    if (name === "verdict") return { text: [projectorTexts(n, t, sc.T, sc.title)[1]] };
    return null;
  }
  /* What does not change with the round: the cost strip's curves, its legend's height, the Bayes line. */
  function fixedUpdate(sc, res, name) {
    const n = res.complete().n, top = Math.max(Math.max(...n.REBEL), Math.max(...n.twoStep));
    if (name === "REBEL test cost") return { y: Array.from(n.REBEL) };
    if (name === "two-step test cost") return { y: Array.from(n.twoStep) };
    if (name === "strip legend") return { y: [top] };
    if (name === "Bayes" && n.Bayes !== null) return { y: [n.Bayes, n.Bayes] };
    return null;
  }
  function stripRange(n) { // replay_numbers._numbers_axes' y range of the strip
    const lo = Math.min(Math.min(...n.REBEL), Math.min(...n.twoStep), n.Bayes || Infinity);
    const hi = Math.max(Math.max(...n.REBEL), Math.max(...n.twoStep));
    const pad = Math.max(hi - lo, 1e-6) * 0.1;
    return [lo - pad, hi + pad];
  }
  const regionsImage = (images) => (images || []).findIndex((im) => im && im.name === "regions");

  /* Round t of the result on the chart (Plotly.react: new objects for what changed, the rest as it is): the round
   * shown, or round 0 when ``start`` is 0 (a replay about to play from t = 0). */
  function paint(gd, sc, res, start) {
    res.complete();
    const slider = gd.layout.sliders && gd.layout.sliders[0];
    const t = start === 0 ? 0 : shownRound(gd, sc);
    const data = gd.data.map((tr) => {
      const u = roundUpdate(sc, res, tr.name, t) || fixedUpdate(sc, res, tr.name);
      return u ? { ...tr, ...u } : tr;
    });
    const k = regionsImage(gd.layout.images);
    const images = gd.layout.images.map((im, i) => (i === k ? { ...im, source: png(sc, res, t) } : im));
    // (a new result: neither the server's replay token nor its picture, rebel.ui.playground.screen.mark_picture)
    const { autoplay, picture, ...meta } = gd.layout.meta || {};
    const layout = { ...gd.layout, images, meta };
    if (slider && slider.active !== t) layout.sliders = [{ ...slider, active: t }, ...gd.layout.sliders.slice(1)];
    if (gd.layout.yaxis3) layout.yaxis3 = { ...gd.layout.yaxis3, range: stripRange(res.n) };
    gd.__rebelPainting = true;
    return Promise.resolve(window.Plotly.react(gd, data, layout)).finally(() => { gd.__rebelPainting = false; });
  }
  /* Round t of the result on the chart, the round shown staying, in two frames. First, in place (no plotly): the
   * regions image (``swapImage``), the mistakes' markers (``swapMarkers``) and the numbers' texts (``swapText``),
   * all painted by the next frame. Then, after that frame, the cost strip (its curves, legend, Bayes line and round
   * marker, and its y range) and whatever could not be changed in place, by plotly's animation without a redraw
   * (~4x cheaper than Plotly.react, but plotly recomputes the whole figure's defaults and data and, for the strip's
   * new range, draws every trace again: 20 ms for the airport preset, ~55 ms with twelve classes). Resolves with
   * the time the first part was done, when the second is painted. */
  function paintRound(gd, sc, res) {
    const t = shownRound(gd, sc);
    const inPlace = new Set();
    gd.data.forEach((tr, i) => {
      const u = IN_PLACE.has(tr.name) ? roundUpdate(sc, res, tr.name, t) : null;
      if (u && (tr.name === "mistake" ? swapMarkers(gd, i, u) : swapText(gd, i, u.text[0]))) inPlace.add(i);
    });
    const k = regionsImage(gd.layout.images), image = k >= 0 && swapImage(gd, k, png(sc, res, t));
    const first = performance.now();
    gd.__rebelPainting = true;
    return afterFrame().then(() => {
      res.complete(); // (every round's REBEL cost: the strip)
      const traces = [], data = [], layout = {};
      gd.data.forEach((tr, i) => {
        const u = inPlace.has(i) ? null : roundUpdate(sc, res, tr.name, t) || fixedUpdate(sc, res, tr.name);
        if (u) { traces.push(i); data.push({ type: tr.type || "scatter", ...u }); }
      });
      if (k >= 0 && !image) {
        const source = png(sc, res, t);
        layout.images = gd.layout.images.slice(0, k + 1).map((im, i) => (i === k ? { ...im, source } : im));
      }
      if (gd.layout.yaxis3) layout.yaxis3 = { range: stripRange(res.n) };
      return window.Plotly.animate(gd, { data, traces, layout }, STILL);
    }).then(() => first).finally(() => { gd.__rebelPainting = false; });
  }
  const IN_PLACE = new Set(["mistake", "numbers", "verdict"]); // the traces ``paintRound`` changes itself first
  /* The round the chart shows (its slider's), else the last. */
  function shownRound(gd, sc) {
    const slider = gd && gd.layout && gd.layout.sliders && gd.layout.sliders[0];
    return Math.max(0, Math.min(sc.T, slider && Number.isFinite(slider.active) ? slider.active : sc.T));
  }
  const idle = (work) => (window.requestIdleCallback ? window.requestIdleCallback(work) : setTimeout(work, 0));
  /* Resolves in a task after the next frame (its rendering included). */
  const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  /* Every round's frame of the replay for the result. */
  function reframe(gd, sc, res) {
    res.complete();
    const frames = (gd._transitionData && gd._transitionData._frames) || [];
    for (const fr of frames) {
      const t = Number(String(fr.name).slice(1));
      if (!(t >= 0 && t <= sc.T)) continue;
      fr.data = (fr.traces || []).map((i, j) => {
        const u = roundUpdate(sc, res, (gd.data[i] || {}).name, t);
        return { ...(fr.data[j] || {}), ...(u || {}) };
      });
      if (fr.layout && fr.layout.images && fr.layout.images[0]) {
        const first = { ...fr.layout.images[0], source: png(sc, res, t) };
        fr.layout = { ...fr.layout, images: [first, ...fr.layout.images.slice(1)] };
      }
    }
    gd.__rebelFramesOf = res;
    gd.__rebelFrames = frames;
  }

  // --------------------------------------------------------------------------------------- telling the server
  const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
  /* Hand the edit of ``cell`` (the cost matrix C, made in scene ``sc``) to the server through the hidden text box:
   * the matrix, and the cell itself (its row and column in the scene, and the text typed), which the server enters
   * into the costs it shows when the scene is no longer its own (rebel.ui.playground.browser_costs.late_cell_costs).
   * The edit waits in ``P.unacked`` until the server acknowledges it (``deliver``). */
  function tell(sc, C, cell, failed, painted, n) {
    const rows = [];
    for (let i = 0; i < sc.K; i++) rows.push(Array.from(C.subarray(i * sc.K, (i + 1) * sc.K)));
    P.edits += 1;
    // the test costs after the last round (the server's message tray says them without retraining)
    const last = n ? { REBEL: n.REBEL[sc.T], twoStep: n.twoStep[sc.T], Bayes: n.Bayes, blind: n.blind[sc.T] } : null;
    const named = cell ? { i: cell.i, j: cell.j, text: cell.text } : null;
    P.unacked = { input: sc.input, sent: 0, idle: 0, tries: 0, message: { key: sc.key, C: rows, page: P.page,
      n: P.edits, failed: failed || null, painted: !!painted, projector: sc.projector, calibrated: !!sc.calibrated,
      costs: last, cell: named } };
    deliver();
    return true;
  }
  /* Write the edit waiting for the server's acknowledgement into the hidden text box and press Enter there (a
   * sending again carries its count, so that the box's text changes and Streamlit passes it on). */
  function deliver() {
    const u = P.unacked, el = u && document.querySelector(".st-key-" + u.input + " input");
    if (!el) return;
    const message = u.tries ? { ...u.message, again: u.tries } : u.message;
    u.tries += 1;
    u.sent = performance.now();
    setValue.call(el, JSON.stringify(message));
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 13, bubbles: true }));
  }
  /* Whether the server acknowledged the waiting edit; if not, send it again once Streamlit has been idle for
   * ``IDLE_MS`` and ``AGAIN_MS`` (doubling with each sending, to 16 times) passed since it was last sent: never while
   * a run goes on (a run that acknowledges it may be under way), so a busy server gets no more runs from it; at most
   * ``SENDINGS`` times (over about 3 minutes). */
  const IDLE_MS = 1000, AGAIN_MS = 2000, SENDINGS = 10;
  function acknowledged() {
    const u = P.unacked, ack = window.__rebelPgAck, now = performance.now();
    if (!u) return;
    const wait = AGAIN_MS * 2 ** Math.min(4, Math.max(0, u.tries - 1)); // (after the last sending: for its answer)
    const given = u.tries >= SENDINGS && now - u.sent >= wait;
    if ((ack && ack.page === P.page && ack.n >= u.message.n) || given) { P.unacked = null; return; }
    const app = document.querySelector('[data-testid="stApp"]');
    if ((app && app.getAttribute("data-test-script-state") === "running") ||
      document.querySelector('[data-testid="stStatusWidget"]')) { u.idle = 0; return; }
    u.idle = u.idle || now;
    if (u.tries < SENDINGS && now - u.idle >= IDLE_MS && now - u.sent >= wait) deliver();
  }

  // ------------------------------------------------------------------------------------------- the replay
  /* Stop a replay that is playing (the chart is about to show round 0 of a new result). */
  function stop(gd) {
    if (gd._transitionData && gd._transitionData._animationRaf) window.Plotly.animate(gd, [null], STILL);
  }
  /* Press the figure's Play (its first button: from the round shown, here t = 0), as the server's figure is
   * played after a retrain (rebel.ui.playground.links' autoplay). */
  function play(gd, generation) {
    const button = gd.querySelector(".updatemenu-button");
    if (!button || !gd.isConnected) return;
    button.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    document.body.dataset.rebelCostsPlayed = String(generation);
  }

  // ------------------------------------------------------------------------------------------------ the edit
  const plot = () => document.querySelector(".st-key-pg_plot .js-plotly-plot");
  // the chart of this scene (its layout.meta names it: browser_costs.mark), not one drawn for another
  const ofScene = (gd, sc) => !!(gd && gd.layout && gd.layout.meta && gd.layout.meta.browser_scene === sc.key);
  /* The result of the cost matrix C: its model trained in the Web Worker, then the three methods' decisions and
   * numbers (``outcome``) with the times they were ready, as a promise kept for the latest matrix asked
   * (``sc.ahead``). A cell's text is trained as it is typed (``input``), so Enter often finds its result ready. */
  function resultOf(sc, C) {
    const key = Array.prototype.join.call(C, ",");
    if (sc.ahead && sc.ahead.key === key) return sc.ahead.promise;
    const fitted = P.trainer.fit({ ...sc.problem, costMatrix: C });
    // what the costs decide without REBEL (the two-step method, the Bayes rule), while the worker trains
    const byCosts = S.decideByCosts(C, sc.K, sc.staged, sc.bayes, sc.nTest);
    const promise = fitted.then((model) => {
      const trained = performance.now();
      if (P.failed) return { failed: P.failed };
      // REBEL's classes per round when drawn: the round shown first (here), every round's once the page is idle or
      // the cost strip is drawn (``complete``)
      const decided = { ...S.decideModel(model, sc.xs, sc.ys, sc.points, sc.M), ...byCosts };
      const res = outcome(sc, C, decided), t = shownRound(plot(), sc);
      png(sc, res, t);
      mistakes(sc, res, t);
      res.rebelAt(t);
      idle(() => res.complete());
      return { res, trained, numbered: performance.now() };
    });
    sc.ahead = { key, promise };
    return promise;
  }
  function edit(sc, C, cell) {
    const generation = ++sc.generation;
    sc.asked = C; // a cell typed before this one is painted builds on it
    document.body.dataset.rebelCostsAsked = String(generation);
    const started = performance.now();
    let told = null; // (the painted edit is told after its paint: ``P.computing`` counts it until then)
    P.computing += 1;
    resultOf(sc, C).then((got) => {
      if (generation !== sc.generation) return; // a later edit (built on this one) is painted instead
      if (P.scene !== sc) return tell(sc, C, cell, null); // a new scene came meanwhile: the server enters the cell
      if (P.failed) return tell(sc, C, cell, P.failed); // the worker failed: the server computes this edit
      const { res, trained, numbered } = got, ready = performance.now();
      const gd = plot();
      if (!ofScene(gd, sc)) return tell(sc, C, cell, null); // the chart was replaced meanwhile: the server draws it
      sc.C = C;
      sc.result = res;
      const replay = window.__rebelPgReplay === true; // "Replay after retraining": play it from t = 0
      if (replay) stop(gd);
      const pngBefore = res.pngMs || 0;
      return (replay ? paint(gd, sc, res, 0) : paintRound(gd, sc, res)).then((first) => {
        // where the time after Enter went (ms; the benchmark prints it): the worker's training and the decisions
        // not done yet at Enter, the regions image, the picture changed in place (``paintRound``'s first part; with
        // a replay, plotly's repaint), and until the cost strip was painted too
        const now = performance.now(), image = (res.pngMs || 0) - pngBefore;
        P.phases = { fit: Math.max(0, trained - started), decide: Math.max(0, numbered - Math.max(trained, started)),
          image, plot: (typeof first === "number" ? first : now) - ready - image, strip: now - ready };
        P.painted = { REBEL: res.n.REBEL[sc.T], twoStep: res.n.twoStep[sc.T], Bayes: res.n.Bayes,
          blind: res.n.blind[sc.T], calibrated: res.n.calibrated, ms: performance.now() - started,
          inWorker: P.trainer.inWorker(),
          t: gd.layout.sliders && gd.layout.sliders[0] ? gd.layout.sliders[0].active : null, ahead: trained < started };
        document.body.dataset.rebelCostsPainted = String(generation);
        gd.__rebelPainting = true; // (the chart's frames are the old result's until ``reframe``: not put back)
        told = new Promise((resolve) => setTimeout(() => {
          try {
            if (sc.result === res) {
              reframe(gd, sc, res);
              if (replay) play(gd, generation);
            }
            if (tell(sc, C, cell, null, true, res.n)) P.kept.set(cell.input, cell.text);
          } finally {
            gd.__rebelPainting = false;
            resolve();
          }
        }, 0));
      });
    }).catch((err) => tell(sc, C, cell, "it stopped: " + (err && err.message ? err.message : err), false))
      .finally(() => Promise.resolve(told).finally(() => { P.computing -= 1; }));
  }

  /* The cost matrix with the cost the cell ``input`` holds (a cell of this scene's editor holding a number the
   * browser takes), on the last matrix asked, and the cell ({i, j, text}); or null. */
  function cellMatrix(sc, input) {
    if (!(input instanceof HTMLInputElement)) return null;
    const box = input.closest('[class*="st-key-"]');
    const m = box && COST_CELL.exec(box.className);
    if (!m || m[1] !== sc.costsKey) return null;
    const i = Number(m[2]), j = Number(m[3]), text = input.value.trim();
    if (i >= sc.K || j >= sc.K || !NUMBER.test(text)) return null; // the server says why it refuses it
    const value = Number(text);
    if (!(value <= sc.maxCost)) return null;
    const C = Float64Array.from(sc.asked || sc.C);
    C[i * sc.K + j] = value;
    return C.some((c) => c > 0) ? { C, i, j, text } : null;
  }

  document.addEventListener("keydown", (e) => {
    const sc = P.scene;
    if (!sc || e.key !== "Enter" || e.isComposing || !P.trainer || !window.Plotly) return;
    const input = e.target, got = cellMatrix(sc, input);
    if (!got || !ofScene(plot(), sc)) return;
    e.stopImmediatePropagation(); // Streamlit never sees this Enter: the hidden text box carries the edit
    e.preventDefault();
    const cell = { input, text: input.value, i: got.i, j: got.j };
    if (P.failed) tell(sc, got.C, cell, P.failed, false); // no worker here: the server computes it, and says why
    else edit(sc, got.C, cell);
  }, true);
  // Typing into a cell trains its text ahead in the worker (the page stays free: nothing is drawn until Enter).
  document.addEventListener("input", (e) => {
    const sc = P.scene;
    if (!sc || !P.trainer || !P.trainer.inWorker() || P.failed) return;
    const got = cellMatrix(sc, e.target);
    if (got) resultOf(sc, got.C).catch(() => {});
  }, true);

  // A cell whose computed edit the server stored keeps its text uncommitted in Streamlit's text box: leaving it
  // would commit that text, a rerun of the main area for a value already stored. Its commit on leaving is not
  // passed on while it holds that text (another text, typed and left, goes to the server as before).
  P.kept = P.kept || new WeakMap();
  const hint = document.createElement("style"); // (its box then believes it still has the focus: no "press Enter")
  hint.textContent = '[class*="st-key-' + (D && D.costsKey) + '_"]:not(:focus-within) [data-testid="InputInstructions"]' +
    " { display: none; }";
  document.head.append(hint);
  document.addEventListener("focusout", (e) => {
    const input = e.target;
    if (input instanceof HTMLInputElement && P.kept.has(input) && P.kept.get(input) === input.value) {
      e.stopImmediatePropagation();
    }
  }, true);

  // A chart drawn again from the server's figure (Streamlit's own redraw of the same element) shows the costs
  // it was made with: the browser's result goes back on it. The scene's chart's replay slider paints a scrub in place.
  setInterval(() => {
    acknowledged();
    const sc = P.scene, gd = plot();
    if (sc && ofScene(gd, sc)) scrubbable(gd); // (the replay's scrub painted in place: chart_in_place.js)
    if (!sc || !sc.result || !ofScene(gd, sc) || gd.__rebelPainting) return;
    const frames = gd._transitionData && gd._transitionData._frames;
    if (gd.__rebelFramesOf !== sc.result || gd.__rebelFrames !== frames) {
      const res = sc.result;
      paint(gd, sc, res).then(() => reframe(gd, sc, res));
    }
  }, 250);
})();
