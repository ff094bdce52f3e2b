/* The browser engine's inputs, as the numba engine's Python side prepares them: cost rows (sample weights, the
 * power-of-two scale), their decomposition c+, c-, uniform thresholds and bin codes (rebel.fitting, rebel.costs,
 * rebel.binning), with numpy's order of summation where it sums. Defines RebelInputs (classic script, Web Worker)
 * or module.exports (Node); rebel_engine.js trains on them.
 */
(function (root) {
  "use strict";

  const SAFE_COST_RANGE = [1e-3, 1e3]; // rebel.costs.SAFE_COST_RANGE

  /* numpy's pairwise sum of a[start .. start + n) (stride 1): what np.add.reduce does over a contiguous run. */
  function pairwiseSum(a, start, n) {
    if (n < 8) {
      let res = 0.0;
      for (let i = 0; i < n; i++) res += a[start + i];
      return res;
    }
    if (n <= 128) {
      const r = [a[start], a[start + 1], a[start + 2], a[start + 3],
        a[start + 4], a[start + 5], a[start + 6], a[start + 7]];
      let i = 8;
      for (; i < n - (n % 8); i += 8) {
        for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
      }
      let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
      for (; i < n; i++) res += a[start + i];
      return res;
    }
    let n2 = Math.floor(n / 2);
    n2 -= n2 % 8;
    return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
  }

  /* The exponent e of x = m 2^e with m in [0.5, 1) (math.frexp), x positive and finite. */
  function frexpExponent(x) {
    let e = Math.floor(Math.log2(x)) + 1;
    while (x * Math.pow(2, -e) >= 1) e += 1; // Math.pow(2, n) is exact for integer n in range
    while (x * Math.pow(2, -e) < 0.5) e -= 1;
    return e;
  }

  /* rebel.fitting.weighted_cost_rows' factor w / mean(w) (the weights scaled by a power of two first). */
  function normalisedWeights(weights) {
    const n = weights.length;
    let top = 0;
    for (let i = 0; i < n; i++) top = Math.max(top, weights[i]);
    const scale = Math.pow(2, -frexpExponent(top));
    const w = new Float64Array(n);
    for (let i = 0; i < n; i++) w[i] = weights[i] * scale;
    const mean = (0.0 + pairwiseSum(w, 0, n)) / n;
    for (let i = 0; i < n; i++) w[i] = w[i] / mean;
    return w;
  }

  /* Cost rows C[y_n] (times the normalised sample weight), scaled as rebel.costs.scaled_cost_rows does for
   * the exp loss; returns {rows (N*K), scale}. */
  function costRows(C, K, y, weights) {
    const n = y.length;
    const rows = new Float64Array(n * K);
    const w = weights ? normalisedWeights(weights) : null;
    let top = -Infinity;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < K; k++) {
        const c = C[y[i] * K + k];
        rows[i * K + k] = w ? c * w[i] : c;
        top = Math.max(top, rows[i * K + k]);
      }
    }
    let scale = 1.0;
    if (!(SAFE_COST_RANGE[0] <= top && top <= SAFE_COST_RANGE[1])) {
      scale = Math.pow(2, -frexpExponent(top));
      for (let i = 0; i < rows.length; i++) rows[i] *= scale;
    }
    return { rows, scale };
  }

  /* rebel.costs.decompose: c+ = max(c - beta, 0), c- = max(phi - c, 0) with phi = max_k c, beta = sum_k c -
   * (K - 1) phi (numpy's row sum: 0 + the pairwise sum of the row). */
  function decompose(rows, K) {
    const n = rows.length / K;
    const cp = new Float64Array(n * K);
    const cm = new Float64Array(n * K);
    for (let i = 0; i < n; i++) {
      const o = i * K;
      let phi = rows[o];
      for (let k = 1; k < K; k++) phi = Math.max(phi, rows[o + k]);
      const beta = (0.0 + pairwiseSum(rows, o, K)) - (K - 1) * phi;
      for (let k = 0; k < K; k++) {
        cp[o + k] = Math.max(rows[o + k] - beta, 0.0);
        cm[o + k] = Math.max(phi - rows[o + k], 0.0);
      }
    }
    return { cp, cm };
  }

  /* rebel.binning.fit_thresholds (uniform): tau_i = lo + i ((hi - lo) / (n + 1)) over the rows in `rows`
   * (those of positive weight); returns {thresholds (d*n), usable (d)}. */
  function fitThresholds(X, N, d, nThresholds, rows) {
    const thresholds = new Float64Array(d * nThresholds);
    const usable = new Uint8Array(d);
    for (let j = 0; j < d; j++) {
      let lo = Infinity, hi = -Infinity;
      for (const n of rows) {
        lo = Math.min(lo, X[n * d + j]);
        hi = Math.max(hi, X[n * d + j]);
      }
      usable[j] = hi > lo ? 1 : 0;
      const q = (hi - lo) / (nThresholds + 1);
      for (let i = 1; i <= nThresholds; i++) thresholds[j * nThresholds + i - 1] = lo + i * q;
    }
    return { thresholds, usable };
  }

  /* rebel.kernels.binning.bin_features: bins[j*N + n] = #{i : tau_ji < X[n, j]} (thresholds ascending). */
  function binData(X, N, d, thresholds, nThresholds) {
    const bins = new Uint8Array(d * N);
    for (let j = 0; j < d; j++) {
      const o = j * nThresholds;
      for (let n = 0; n < N; n++) {
        const x = X[n * d + j];
        let lo = 0, hi = nThresholds; // first index with tau >= x
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (thresholds[o + mid] < x) lo = mid + 1; else hi = mid;
        }
        bins[j * N + n] = lo;
      }
    }
    return bins;
  }

  const api = { pairwiseSum, frexpExponent, normalisedWeights, costRows, decompose, fitThresholds, binData };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  root.RebelInputs = api;
})(typeof self !== "undefined" ? self : globalThis);
