/* What every page that retrains REBEL in the browser shares (the scene file's page, scene_page.js, and the
 * Playground's cost edits, playground_costs.js): reading the server's float arrays, the grid's points, a trainer
 * that runs the engine in a Web Worker (and in the page when no worker can start or one fails), and the decisions
 * of the three methods under a cost matrix. Defines RebelScene (a classic script; RebelEngine is loaded before).
 */
(function (root) {
  "use strict";

  /* base64 of little-endian bytes (the server's ``_b64``) as a Uint8Array / Float64Array, bit for bit. */
  // (a plain loop: Uint8Array.from(text, map) took 25-50x as long in Node on 3 MB, and 0.14 s of a Playground load)
  function bytesOf(b64) {
    const text = atob(b64), n = text.length, bytes = new Uint8Array(n);
    for (let i = 0; i < n; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  const float64s = (b64) => new Float64Array(bytesOf(b64).buffer);

  /* The grid's cell centres, row-major over (y, x) as the server's Grid.points: (nx * ny) x 2. */
  function gridPoints(xs, ys) {
    const nx = xs.length, ny = ys.length, pts = new Float64Array(2 * nx * ny);
    for (let iy = 0; iy < ny; iy++) {
      for (let ix = 0; ix < nx; ix++) {
        pts[2 * (iy * nx + ix)] = xs[ix];
        pts[2 * (iy * nx + ix) + 1] = ys[iy];
      }
    }
    return pts;
  }

  /* A trainer of the engine whose text is ``source``: ``fit(problem)`` resolves with the model. In a Web Worker
   * when one can start; when it cannot, or fails, in the page (what was asked of the failed worker included), and
   * ``onFallback(reason)`` is told once. ``inWorker()`` says where the next fit runs. */
  function trainer(source, onFallback) {
    const E = root.RebelEngine;
    let worker = null, told = false;
    const fallback = (reason) => {
      worker = null;
      if (!told && onFallback) onFallback(reason);
      told = true;
    };
    try {
      worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
    } catch (err) {
      fallback("no Web Worker here (" + (err && err.message ? err.message : err) + ")");
    }
    const pending = new Map(); // request id -> [resolve, reject, problem]
    let requests = 0;
    const here = (problem, resolve, reject) => {
      try {
        resolve(E.fit(problem));
      } catch (err) {
        reject(err);
      }
    };
    if (worker) {
      worker.onmessage = (event) => {
        const found = pending.get(event.data.id);
        if (!found) return;
        pending.delete(event.data.id);
        if (event.data.error) found[1](new Error(event.data.error));
        else found[0](event.data.model);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        fallback("the Web Worker failed (" + (event.message || "no message") + ")");
        for (const [resolve, reject, problem] of pending.values()) here(problem, resolve, reject);
        pending.clear();
      };
    }
    return {
      inWorker: () => worker !== null,
      fit: (problem) => new Promise((resolve, reject) => {
        if (!worker) return here(problem, resolve, reject);
        const id = ++requests;
        pending.set(id, [resolve, reject, problem]);
        worker.postMessage({ id, problem });
      }),
    };
  }

  /* The model's blocks: along each feature, the intervals between the distinct thresholds the model uses on it
   * (the last one above them all). A tree only compares a coordinate with the model's thresholds, so every point
   * of a block takes the same branch at every node of every round: its classes after every round are those of one
   * representative, the interval's upper threshold (the last interval's: +Infinity), scored once
   * (RebelEngine.stagedClasses over the blocks, (T + 1) * blocks; ``only``: round ``only``'s alone, blocks). */
  function blocksOf(model, only) {
    const g = blockGeometry(model);
    return { ...g, staged: root.RebelEngine.stagedClasses(model, g.rep, g.M, only), T: model.nRounds };
  }
  /* The blocks' thresholds along x and y (cx, cy), their numbers (mx, my, M = mx * my) and representatives. */
  function blockGeometry(model) {
    const cutsOf = (feature) => {
      const used = model.thresholds.filter((v, n) => model.features[n] === feature && !Number.isNaN(v));
      return Float64Array.from(new Set(used)).sort();
    };
    const cx = cutsOf(0), cy = cutsOf(1), mx = cx.length + 1, my = cy.length + 1, M = mx * my;
    const rep = new Float64Array(2 * M);
    for (let iy = 0; iy < my; iy++) {
      for (let ix = 0; ix < mx; ix++) {
        rep[2 * (iy * mx + ix)] = ix < cx.length ? cx[ix] : Infinity;
        rep[2 * (iy * mx + ix) + 1] = iy < cy.length ? cy[iy] : Infinity;
      }
    }
    return { cx, cy, mx, my, M, rep };
  }
  /* How many of the sorted ``cuts`` lie strictly below v: the interval v is in. */
  function below(cuts, v) {
    let lo = 0, hi = cuts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cuts[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /* REBEL's classes on the grid (xs by ys, row-major over (y, x)) after round t, nx * ny, as
   * RebelEngine.stagedClasses(model, gridPoints(xs, ys), cells) gives them for that round, from the model's blocks
   * (blocksOf): each row of the grid is the row of its y block read at the x blocks of the grid's columns, copied
   * from the row above when both lie in the same y block. ``at`` (optional): the grid's blocks (``gridBlocks``). */
  function gridAt(blocks, xs, ys, t, at) {
    const b = blocks, nx = xs.length, ny = ys.length, { gx, gy } = at || gridBlocks(b, xs, ys);
    const out = new Uint8Array(nx * ny), staged = b.staged, r = t * b.M;
    for (let iy = 0; iy < ny; iy++) {
      const c = iy * nx;
      if (iy > 0 && gy[iy] === gy[iy - 1]) {
        out.copyWithin(c, c - nx, c);
        continue;
      }
      const row = r + gy[iy] * b.mx;
      for (let ix = 0; ix < nx; ix++) out[c + ix] = staged[row + gx[ix]];
    }
    return out;
  }
  /* The blocks of the grid's columns and rows. */
  function gridBlocks(b, xs, ys) {
    return { gx: Int32Array.from(xs, (v) => below(b.cx, v)), gy: Int32Array.from(ys, (v) => below(b.cy, v)) };
  }
  /* REBEL's classes on the grid after every round, (T + 1) * cells (``gridAt`` of each round, one after another). */
  function stagedOnGrid(model, xs, ys, blocks) {
    const b = blocks || blocksOf(model), cells = xs.length * ys.length, at = gridBlocks(b, xs, ys);
    const out = new Uint8Array((b.T + 1) * cells);
    for (let t = 0; t <= b.T; t++) out.set(gridAt(b, xs, ys, t, at), t * cells);
    return out;
  }

  /* REBEL's classes at ``points`` (M x 2) after every round, (T + 1) * M, as RebelEngine.stagedClasses gives them,
   * read from the model's blocks (blocksOf). */
  function stagedAt(model, points, M, blocks) {
    const b = blocks || blocksOf(model), T = b.T, staged = b.staged, at = pointBlocks(b, points, M);
    const out = new Uint8Array((T + 1) * M);
    for (let t = 0; t <= T; t++) {
      const o = t * M, r = t * b.M;
      for (let m = 0; m < M; m++) out[o + m] = staged[r + at[m]];
    }
    return out;
  }
  /* The block of each of the M points. */
  function pointBlocks(b, points, M) {
    const at = new Int32Array(M);
    for (let m = 0; m < M; m++) at[m] = below(b.cy, points[2 * m + 1]) * b.mx + below(b.cx, points[2 * m]);
    return at;
  }

  /* The two-step method's classes on the test points under the cost matrix C (K*K, rows = truth), from the 0-1
   * model's posteriors of each round kept (``staged``: Float64Arrays nTest*K), and the Bayes rule's from the known
   * posteriors (or null): what the costs decide without REBEL's model (a page computes them while REBEL trains). */
  function decideByCosts(C, K, staged, bayesP, nTest) {
    const E = root.RebelEngine;
    return {
      twoStep: staged.map((P) => E.minRiskClasses(P, nTest, K, C)),
      bayes: bayesP ? E.minRiskClasses(bayesP, nTest, K, C) : null,
    };
  }
  /* REBEL's classes for a model, each part made when first asked for: on the grid (xs by ys) after round t
   * (``regionsAt(t)``: gridAt) and at ``points`` (M x 2) after round t (``pointsAt(t)``: M classes) or after every
   * round (``stagedAll()``: stagedAt). Until ``stagedAll`` (or ``every``) is called, a round is scored alone
   * (blocksOf's ``only``: the rounds after it not added), so a page draws the round it shows first and every other
   * round after that. */
  function decideModel(model, xs, ys, points, M) {
    const g = blockGeometry(model), grid = gridBlocks(g, xs, ys), atPoints = pointBlocks(g, points, M);
    const E = root.RebelEngine, T = model.nRounds, alone = new Map(), regions = new Map();
    let all = null, staged = null;
    const every = () => all || (all = { ...g, staged: E.stagedClasses(model, g.rep, g.M), T });
    const round = (t) => { // [blocks holding round t, the round's index in them]
      if (all) return [all, t];
      if (!alone.has(t)) alone.set(t, { ...g, staged: E.stagedClasses(model, g.rep, g.M, t), T: 0 });
      return [alone.get(t), 0];
    };
    const regionsAt = (t) => {
      if (!regions.has(t)) {
        const [b, r] = round(t);
        regions.set(t, gridAt(b, xs, ys, r, grid));
      }
      return regions.get(t);
    };
    const pointsAt = (t) => {
      if (staged) return staged.subarray(t * M, (t + 1) * M);
      const [b, r] = round(t), out = new Uint8Array(M), o = r * b.M;
      for (let m = 0; m < M; m++) out[m] = b.staged[o + atPoints[m]];
      return out;
    };
    const stagedAll = () => staged || (staged = stagedAt(model, points, M, every()));
    return { regionsAt, pointsAt, stagedAll, every };
  }
  /* The three methods' classes under the cost matrix C for a model fitted with C: REBEL's on the grid (xs by ys,
   * T + 1 rounds: stagedOnGrid) and on ``points`` (M x 2, every round: stagedAt), and ``decideByCosts``'s. */
  function decide(model, C, K, xs, ys, points, M, staged, bayesP, nTest) {
    const blocks = blocksOf(model), costs = decideByCosts(C, K, staged, bayesP, nTest);
    return { regions: stagedOnGrid(model, xs, ys, blocks), staged: stagedAt(model, points, M, blocks), ...costs };
  }

  root.RebelScene = {
    bytesOf, float64s, gridPoints, trainer, blocksOf, gridBlocks, gridAt, stagedOnGrid, stagedAt, decideByCosts,
    decideModel, decide,
  };
})(typeof self !== "undefined" ? self : globalThis);
