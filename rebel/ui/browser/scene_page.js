/* A scene file's page: the cost table, REBEL's regions on a canvas, the three test costs and the replay, all
 * recomputed in the page by the browser engine on every cost edit (RebelEngine, and RebelScene from scene_core.js,
 * loaded before this script).
 * Reads the JSON in #scene-data (rebel.ui.browser.scene.scene_data). Text is set with textContent only.
 * State for tests and embedding pages: body[data-fits] counts finished trainings, body[data-asked] and
 * body[data-trained] number the last cost table asked for and the last one shown (equal when the page has caught
 * up with the edits), body[data-playing] is "1" while the replay runs, body[data-round] is the round shown. */
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("scene-data").textContent);
  const E = window.RebelEngine;
  const K = data.classes.length;
  const T = data.problem.nRounds;
  const S = window.RebelScene;
  const xs = data.grid.xs, ys = data.grid.ys, nx = xs.length, ny = ys.length, cells = nx * ny;
  const testX = Float64Array.from(data.test.X), testY = data.test.y, nTest = testY.length;
  const stagesKept = data.twoStep.P.map(S.float64s); // the 0-1 model's posteriors on the test points, per round
  const bayesP = data.bayes ? S.float64s(data.bayes) : null;
  const state = { C: Float64Array.from(data.costMatrix.flat()), regions: null, testStaged: null, twoStep: [],
    bayes: null, t: T, playing: false, fits: 0, generation: 0 };

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ------------------------------------------------------------------------------------------------ the page
  document.body.append(el("h1", {}, data.title));
  if (data.notice) document.body.append(el("p", {}, data.notice));
  if (data.question) document.body.append(el("p", { class: "question" }, data.question));
  const layout = el("div", { class: "layout" });
  const canvas = el("canvas", { id: "plot", width: "640", height: "640", "aria-label": "decision regions" });
  const side = el("div", { class: "side" });
  layout.append(canvas, side);
  document.body.append(layout);

  side.append(el("strong", {}, "Costs"), el("div", { class: "status" }, "rows: true class, columns: decision"));
  const table = el("table", { class: "costs", id: "costs" });
  const head = el("tr");
  head.append(el("th", {}, "true \\ decided"));
  data.classes.forEach((c) => head.append(el("th", {}, c)));
  table.append(head);
  const inputs = [];
  for (let i = 0; i < K; i++) {
    const row = el("tr");
    row.append(el("th", {}, data.classes[i]));
    for (let j = 0; j < K; j++) {
      const input = el("input", { type: "text", inputmode: "decimal", id: `cost-${i}-${j}`,
        "aria-label": `cost of deciding ${data.classes[j]} when the truth is ${data.classes[i]}` });
      input.value = String(data.costMatrix[i][j]);
      input.addEventListener("change", retrain);
      const cell = el("td");
      cell.append(input);
      row.append(cell);
      inputs.push(input);
    }
    table.append(row);
  }
  side.append(table);

  const numbers = el("div", { class: "numbers" });
  const outRebel = el("output", { id: "cost-rebel" }), outTwo = el("output", { id: "cost-two-step" });
  const outBayes = el("output", { id: "cost-bayes" });
  numbers.append(el("span", {}, "Test cost, REBEL"), outRebel);
  const twoLabel = data.twoStep.firstRound === 0 ? "Test cost, two-step" : `Test cost, two-step (round ${T})`;
  numbers.append(el("span", {}, twoLabel), outTwo);
  if (bayesP) numbers.append(el("span", {}, "Test cost, Bayes rule"), outBayes);
  side.append(numbers);

  const controls = el("div", { class: "controls" });
  const play = el("button", { id: "play", type: "button" }, "Play");
  const slider = el("input", { id: "round", type: "range", min: "0", max: String(T), step: "1", value: String(T),
    "aria-label": "boosting round" });
  const roundLabel = el("output", { id: "round-label" });
  controls.append(play, slider, roundLabel);
  side.append(controls);
  const status = el("div", { class: "status", id: "status", role: "status" });
  side.append(status);
  const legend = el("div", { class: "legend" });
  data.classes.forEach((c, k) => {
    const item = el("span");
    const dot = el("i");
    dot.style.background = data.pointColors[k];
    item.append(dot, document.createTextNode(c));
    legend.append(item);
  });
  side.append(legend);

  // ---------------------------------------------------------------------------------------------- training
  const trainer = S.trainer(document.getElementById("rebel-engine").textContent); // (in the page without one)
  const fitModel = trainer.fit;

  function readCosts() {
    const C = new Float64Array(K * K);
    let ok = true, any = false;
    inputs.forEach((input, n) => {
      const text = input.value.trim();
      const value = text === "" ? NaN : Number(text);
      const good = Number.isFinite(value) && value >= 0 && value <= 1e150;
      input.classList.toggle("bad", !good);
      ok = ok && good;
      any = any || value > 0;
      C[n] = value;
    });
    if (!ok) return "every cost must be a number between 0 and 1e150 (the cells in red are not)";
    if (!any) return "the costs are all zero, so every decision is free: give some mistake a positive cost";
    return C;
  }

  function retrain() {
    const C = readCosts();
    if (typeof C === "string") {
      status.textContent = C;
      status.classList.add("error");
      return;
    }
    const generation = ++state.generation;
    document.body.dataset.asked = String(generation);
    status.classList.remove("error");
    status.textContent = "training REBEL with these costs…";
    const start = performance.now();
    fitModel({ ...data.problem, costMatrix: C }).then((model) => {
      if (generation !== state.generation) return; // a newer edit is training
      const decided = S.decide(model, C, K, xs, ys, testX, nTest, stagesKept, bayesP, nTest);
      state.C = C;
      state.regions = decided.regions;
      state.testStaged = decided.staged;
      state.twoStep = decided.twoStep;
      state.bayes = decided.bayes;
      state.fits += 1;
      const ms = performance.now() - start;
      const where = trainer.inWorker() ? ", in a worker" : "";
      status.textContent = `REBEL retrained in this page in ${ms.toFixed(0)} ms (${T} rounds${where})`;
      show(state.t);
      document.body.dataset.fits = String(state.fits);
      document.body.dataset.trained = String(generation);
    }, (err) => {
      status.textContent = `training failed: ${err.message}`;
      status.classList.add("error");
    });
  }

  // ------------------------------------------------------------------------------------------------ drawing
  const off = document.createElement("canvas");
  off.width = nx;
  off.height = ny;
  const offCtx = off.getContext("2d");
  const image = offCtx.createImageData(nx, ny);
  const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const regionRgb = data.regionColors.map(rgb);
  const ctx = canvas.getContext("2d");
  const dx = (xs[nx - 1] - xs[0]) / Math.max(nx - 1, 1), dy = (ys[ny - 1] - ys[0]) / Math.max(ny - 1, 1);
  const x0 = xs[0] - dx / 2, x1 = xs[nx - 1] + dx / 2, y0 = ys[0] - dy / 2, y1 = ys[ny - 1] + dy / 2;

  function setNumber(output, value) {
    output.textContent = value.toFixed(4);
    output.dataset.value = String(value);
  }

  function show(t) {
    state.t = t;
    const base = t * cells;
    for (let iy = 0; iy < ny; iy++) {
      const row = (ny - 1 - iy) * nx; // the plot's y grows upward
      for (let ix = 0; ix < nx; ix++) {
        const c = regionRgb[state.regions[base + iy * nx + ix]], p = 4 * (row + ix);
        image.data[p] = c[0];
        image.data[p + 1] = c[1];
        image.data[p + 2] = c[2];
        image.data[p + 3] = 255;
      }
    }
    offCtx.putImageData(image, 0, 0);
    const W = canvas.width, H = canvas.height;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(off, 0, 0, W, H);
    const P = data.problem.X, y = data.problem.y; // the training points, drawn in every frame
    ctx.lineWidth = 1;
    ctx.strokeStyle = "#ffffff";
    for (let n = 0; n < y.length; n++) {
      const px = ((P[2 * n] - x0) / (x1 - x0)) * W, py = H - ((P[2 * n + 1] - y0) / (y1 - y0)) * H;
      ctx.beginPath();
      ctx.arc(px, py, 3, 0, 2 * Math.PI);
      ctx.fillStyle = data.pointColors[y[n]];
      ctx.fill();
      ctx.stroke();
    }
    setNumber(outRebel, E.meanCost(state.C, K, testY, state.testStaged, t * nTest));
    const s = data.twoStep.firstRound === 0 ? t : 0;
    if (state.twoStep.length) setNumber(outTwo, E.meanCost(state.C, K, testY, state.twoStep[s], 0));
    if (state.bayes) setNumber(outBayes, E.meanCost(state.C, K, testY, state.bayes, 0));
    slider.value = String(t);
    roundLabel.textContent = `round ${t} of ${T}`;
    document.body.dataset.round = String(t);
  }

  slider.addEventListener("input", () => {
    stop();
    if (state.regions) show(Number(slider.value));
  });

  function stop() {
    state.playing = false;
    play.textContent = "Play";
    document.body.dataset.playing = "0";
  }

  const STEP = Math.max(1, Math.ceil((T + 1) / 150)); // the whole replay in about 150 frames
  play.addEventListener("click", () => {
    if (state.playing) return stop();
    if (!state.regions) return;
    state.playing = true;
    play.textContent = "Pause";
    document.body.dataset.playing = "1";
    let t = state.t >= T ? 0 : state.t;
    const frame = () => {
      if (!state.playing) return;
      show(t);
      if (t >= T) return stop();
      t = Math.min(T, t + STEP);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });

  document.body.dataset.fits = "0";
  document.body.dataset.playing = "0";
  retrain();
})();
