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
   * (RebelEngine.stagedClasses over the blocks, (T + 1) * blocks). ``at(x, y)`` is the block of a point. */
  function blocksOf(model) {
    const E = root.RebelEngine;
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
    return { cx, cy, mx, my, M, staged: E.stagedClasses(model, rep, M), T: model.nRounds };
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
    const b = blocks || blocksOf(model), T = b.T, staged = b.staged;
    const at = new Int32Array(M);
    for (let m = 0; m < M; m++) at[m] = below(b.cy, points[2 * m + 1]) * b.mx + below(b.cx, points[2 * m]);
    const out = new Uint8Array((T + 1) * M);
    for (let t = 0; t <= T; t++) {
      const o = t * M, r = t * b.M;
      for (let m = 0; m < M; m++) out[o + m] = staged[r + at[m]];
    }
    return out;
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
  /* REBEL's classes for a model: on ``points`` (the points the page scores: M x 2, every round: stagedAt), and on
   * the grid (xs by ys) of round t on demand (``regionsAt(t)``: gridAt; its first call per round computes it). */
  function decideModel(model, xs, ys, points, M) {
    const blocks = blocksOf(model), at = gridBlocks(blocks, xs, ys), rounds = new Map();
    const regionsAt = (t) => rounds.get(t) || rounds.set(t, gridAt(blocks, xs, ys, t, at)).get(t);
    return { blocks, regionsAt, staged: stagedAt(model, points, M, blocks) };
  }
  /* The three methods' classes under the cost matrix C for a model fitted with C: REBEL's (``decideModel``) with
   * its classes on the grid after every round (``regions``, (T + 1) * cells: stagedOnGrid), and
   * ``decideByCosts``'s (``byCosts``: those already computed, else computed here). */
  function decide(model, C, K, xs, ys, points, M, staged, bayesP, nTest, byCosts) {
    const costs = byCosts || decideByCosts(C, K, staged, bayesP, nTest), rebel = decideModel(model, xs, ys, points, M);
    return { ...rebel, regions: stagedOnGrid(model, xs, ys, rebel.blocks), twoStep: costs.twoStep, bayes: costs.bayes };
  }

  root.RebelScene = {
    bytesOf, float64s, gridPoints, trainer, blocksOf, gridBlocks, gridAt, stagedOnGrid, stagedAt, decideByCosts, decideModel, decide,
  };
})(typeof self !== "undefined" ? self : globalThis);
