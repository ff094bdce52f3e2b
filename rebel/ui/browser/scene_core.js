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
      fallback(`no Web Worker here (${err && err.message ? err.message : err})`);
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
        fallback(`the Web Worker failed (${event.message || "no message"})`);
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

  /* The three methods' classes under the cost matrix C (K*K, rows = truth) for a model fitted with C: REBEL's on
   * the grid's points (T + 1 rounds of ``cells``) and on ``points`` (the points the page scores: M x 2, every
   * round), the two-step method's on the test points from the 0-1 model's posteriors of each round kept
   * (``staged``: Float64Arrays nTest*K) and the Bayes rule's from the known posteriors (or null). */
  function decide(model, C, K, grid, cells, points, M, staged, bayesP, nTest) {
    const E = root.RebelEngine;
    return {
      regions: E.stagedClasses(model, grid, cells),
      staged: E.stagedClasses(model, points, M),
      twoStep: staged.map((P) => E.minRiskClasses(P, nTest, K, C)),
      bayes: bayesP ? E.minRiskClasses(bayesP, nTest, K, C) : null,
    };
  }

  root.RebelScene = { bytesOf, float64s, gridPoints, trainer, decide };
})(typeof self !== "undefined" ? self : globalThis);
