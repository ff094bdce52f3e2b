/* What every page that retrains REBEL in the browser shares (the scene file's page, scene_page.js, and the
 * Playground's cost edits, playground_costs.js): reading the server's float arrays, the grid's points, a trainer
 * that runs the engine in a Web Worker (and in the page when no worker can start or one fails), and the decisions
 * of the three methods under a cost matrix. Defines RebelScene (a classic script; RebelEngine is loaded before).
 */
(function (root) {
  "use strict";

  /* base64 of little-endian bytes (the server's ``_b64``) as a Uint8Array / Float64Array, bit for bit. */
  const bytesOf = (b64) => Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
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

  /* REBEL's classes on the grid (xs by ys, row-major over (y, x)) after every round, (T + 1) * cells, as
   * RebelEngine.stagedClasses(model, gridPoints(xs, ys), cells) gives them, with far less work: a tree only
   * compares a coordinate with the model's thresholds, so cells whose x (and y) lie between the same two thresholds
   * of the model take the same branch everywhere. One cell per such block is scored, and its classes are copied to
   * the block's cells. */
  function stagedOnGrid(model, xs, ys) {
    const E = root.RebelEngine, nx = xs.length, ny = ys.length, T = model.nRounds;
    const groups = (values, feature) => {
      const used = model.thresholds.filter((v, n) => model.features[n] === feature && !Number.isNaN(v));
      const cuts = [...new Set(used)];
      cuts.sort((a, b) => a - b);
      const of = new Int32Array(values.length), first = [];
      for (let i = 0; i < values.length; i++) {
        let lo = 0, hi = cuts.length; // thresholds below the value
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (cuts[mid] < values[i]) lo = mid + 1; else hi = mid;
        }
        if (i === 0 || lo !== first[first.length - 1][1]) first.push([i, lo]);
        of[i] = first.length - 1;
      }
      return { of, rep: first.map(([i]) => values[i]) };
    };
    const gx = groups(xs, 0), gy = groups(ys, 1), mx = gx.rep.length, my = gy.rep.length, M = mx * my;
    const staged = E.stagedClasses(model, gridPoints(gx.rep, gy.rep), M);
    const cells = nx * ny, out = new Uint8Array((T + 1) * cells);
    for (let t = 0; t <= T; t++) {
      const o = t * cells, r = t * M;
      for (let iy = 0; iy < ny; iy++) {
        const row = r + gy.of[iy] * mx, c = o + iy * nx;
        for (let ix = 0; ix < nx; ix++) out[c + ix] = staged[row + gx.of[ix]];
      }
    }
    return out;
  }

  /* The three methods' classes under the cost matrix C (K*K, rows = truth) for a model fitted with C: REBEL's on
   * the grid (xs by ys, T + 1 rounds: stagedOnGrid) and on ``points`` (the points the page scores: M x 2, every
   * round), the two-step method's on the test points from the 0-1 model's posteriors of each round kept
   * (``staged``: Float64Arrays nTest*K) and the Bayes rule's from the known posteriors (or null). */
  function decide(model, C, K, xs, ys, points, M, staged, bayesP, nTest) {
    const E = root.RebelEngine;
    return {
      regions: stagedOnGrid(model, xs, ys),
      staged: E.stagedClasses(model, points, M),
      twoStep: staged.map((P) => E.minRiskClasses(P, nTest, K, C)),
      bayes: bayesP ? E.minRiskClasses(bayesP, nTest, K, C) : null,
    };
  }

  root.RebelScene = { bytesOf, float64s, gridPoints, trainer, stagedOnGrid, decide };
})(typeof self !== "undefined" ? self : globalThis);
