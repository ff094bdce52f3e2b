/* REBEL in paper mode (exp loss, binary leaves, learning rate 1, uniform thresholds) in plain JavaScript,
 * float64, for the Playground's sizes (2 features, <= 5,000 points, <= 12 classes, <= 1,000 rounds, depth <= 4,
 * <= 255 thresholds). The numba engine (rebel/) is the reference: every function below names the kernel or
 * Python function it mirrors, and accumulates its sums in the same order, so that the same inputs choose the
 * same features and thresholds (tests/test_browser_engine.py runs both on random problems).
 *
 * exp and log come from libm.js (RebelLibm), which gives the C library's bits: JavaScript's own differ in the
 * last bit on a few per cent of arguments, enough to break a tie the other way; the cost rows, thresholds and bin
 * codes from rebel_inputs.js (RebelInputs).
 *
 * Loads as a classic script after libm.js and rebel_inputs.js (defines RebelEngine), in a Web Worker (the three
 * in one script; then it answers {id, problem} messages with {id, model}) or under Node (module.exports).
 */
(function (root) {
  "use strict";

  const libm = root.RebelLibm || require("./libm.js");
  const { exp, log } = libm;
  const inputs = root.RebelInputs || require("./rebel_inputs.js");
  const { costRows, decompose, fitThresholds, binData } = inputs;

  const SMOOTHING = 1e-9; // rebel.kernels.common.SMOOTHING
  const LEAF_TOL = 1e-12; // rebel.kernels.common.LEAF_TOL
  const UPDATE_CHUNKS = 8; // rebel.kernels.common.UPDATE_CHUNKS

  /* rebel.kernels.astar.split_sums: sums in sample order. */
  function splitSums(wp, wm, f, N, K, sp, sm) {
    sp.fill(0.0);
    sm.fill(0.0);
    for (let n = 0; n < N; n++) {
      const o = n * K;
      const a = f[n] > 0 ? wp : wm, b = f[n] > 0 ? wm : wp;
      for (let k = 0; k < K; k++) {
        sp[k] += a[o + k];
        sm[k] += b[o + k];
      }
    }
  }

  /* rebel.kernels.astar.a_star: a* = (ln(sm + eps) - ln(sp + eps)) / 2, eps = SMOOTHING total / K. */
  function aStar(sp, sm, out) {
    const K = sp.length;
    let total = 0.0;
    for (let k = 0; k < K; k++) total += sp[k] + sm[k];
    const eps = Math.max(SMOOTHING * total / K, 1e-300);
    for (let k = 0; k < K; k++) out[k] = 0.5 * (log(sm[k] + eps) - log(sp[k] + eps));
  }

  /* rebel.kernels.astar.round_total: sum_k sp_k e^{a_k} + sm_k e^{-a_k}. */
  function roundTotal(sp, sm, a) {
    let total = 0.0;
    for (let k = 0; k < sp.length; k++) total += sp[k] * exp(a[k]) + sm[k] * exp(-a[k]);
    return total;
  }

  /* rebel.kernels.astar._layer_choose_a: per class the new a_k unless the old one gives a lower loss. */
  function layerChooseA(sp, sm, a, aNew) {
    let total = 0.0;
    for (let k = 0; k < sp.length; k++) {
      const newLoss = sp[k] * exp(aNew[k]) + sm[k] * exp(-aNew[k]);
      const oldLoss = sp[k] * exp(a[k]) + sm[k] * exp(-a[k]);
      if (newLoss <= oldLoss) {
        a[k] = aNew[k];
        total += newLoss;
      } else {
        total += oldLoss;
      }
    }
    return total;
  }

  /* rebel.kernels.common.update_chunks */
  function updateChunks(N) {
    return Math.max(1, Math.min(UPDATE_CHUNKS, Math.floor(N / 1024)));
  }

  /* rebel.kernels.update._half_sums over parts[c * stride + k], c = 0..nChunks-1. */
  function halfSums(parts, nChunks, stride, k) {
    const h = (nChunks + 1) >> 1;
    let first = 0.0;
    for (let c = 0; c < h; c++) first += parts[c * stride + k];
    let second = 0.0;
    for (let c = h; c < nChunks; c++) second += parts[c * stride + k];
    return first + second;
  }

  /* rebel.kernels.update.apply_round: H += f a, wp *= e^{f a} scale, wm *= e^{-f a} scale, dw = wp - wm and
   * the column totals, in the same row chunks; returns the training risk. */
  function applyRound(s, f, a, scale) {
    const { N, K, wp, wm, H, rows, dw, wTotal, dwTotal, nChunks } = s;
    const ea = new Float64Array(K), ema = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      ea[k] = exp(a[k]);
      ema[k] = exp(-a[k]);
    }
    const wParts = new Float64Array(nChunks * K), dwParts = new Float64Array(nChunks * K);
    const risks = new Float64Array(nChunks);
    const size = Math.floor((N + nChunks - 1) / nChunks);
    for (let c = 0; c < nChunks; c++) {
      const start = Math.min(c * size, N), stop = Math.min(start + size, N);
      let risk = 0.0;
      const wo = c * K;
      for (let n = start; n < stop; n++) {
        const pos = f[n] > 0;
        const o = n * K;
        for (let k = 0; k < K; k++) {
          const up = pos ? ea[k] : ema[k];
          const down = pos ? ema[k] : ea[k];
          H[o + k] += pos ? a[k] : -a[k];
          const p = wp[o + k] * up * scale;
          const m = wm[o + k] * down * scale;
          wp[o + k] = p;
          wm[o + k] = m;
          dw[o + k] = p - m;
          wParts[wo + k] += p + m;
          dwParts[wo + k] += p - m;
        }
        let best = 0, top = H[o];
        for (let k = 1; k < K; k++) {
          if (H[o + k] > top) {
            top = H[o + k];
            best = k;
          }
        }
        risk += rows[o + best];
      }
      risks[c] = risk;
    }
    for (let k = 0; k < K; k++) {
      wTotal[k] = halfSums(wParts, nChunks, K, k);
      dwTotal[k] = halfSums(dwParts, nChunks, K, k);
    }
    return halfSums(risks, nChunks, 1, 0) / Math.max(N, 1);
  }

  /* rebel.kernels.histogram.root_histograms: hist[(j*nBins + b)*K + k] = sum of dw[n, k] over bins[j, n] == b,
   * samples in order. */
  function rootHistograms(s) {
    const { N, K, d, nBins, bins, dw, hist } = s;
    hist.fill(0.0);
    for (let j = 0; j < d; j++) {
      const ho = j * nBins;
      for (let n = 0; n < N; n++) {
        const h = (ho + bins[j * N + n]) * K, o = n * K;
        for (let k = 0; k < K; k++) hist[h + k] += dw[o + k];
      }
    }
  }

  /* rebel.kernels.split.root_scan: the best root stump (first of equal ones); [feature, threshold index]. */
  function rootScan(s) {
    const { K, d, nBins, hist, dwTotal, wTotal, usable } = s;
    let bestJ = -1, bestI = 0, best = Infinity;
    const obj = new Float64Array(nBins - 1), prod = new Float64Array(nBins - 1);
    for (let j = 0; j < d; j++) {
      if (!usable[j]) continue;
      obj.fill(0.0);
      for (let k = 0; k < K; k++) {
        let left = 0.0;
        const T = wTotal[k], D = dwTotal[k];
        for (let i = 0; i < nBins - 1; i++) {
          left += hist[(j * nBins + i) * K + k];
          const delta = D - 2.0 * left;
          prod[i] = (T + delta) * (T - delta);
        }
        for (let i = 0; i < nBins - 1; i++) obj[i] += 0.5 * Math.sqrt(Math.max(prod[i], 0.0));
      }
      for (let i = 0; i < nBins - 1; i++) {
        if (obj[i] < best) {
          best = obj[i];
          bestJ = j;
          bestI = i + 1;
        }
      }
    }
    return [bestJ, bestI];
  }

  /* rebel.kernels.tree.eval_tree_binned: f (+-1) and leaf ids of the training samples. */
  function evalTreeBinned(s, features, thrIdx, leafSigns, depth, fo, ro) {
    const { N, bins, f, leaf } = s;
    const first = (1 << depth) - 1;
    for (let n = 0; n < N; n++) {
      let node = 0;
      for (let l = 0; l < depth; l++) {
        node = 2 * node + 1 + (bins[features[fo + node] * N + n] >= thrIdx[fo + node] ? 1 : 0);
      }
      leaf[n] = node - first;
      f[n] = leafSigns[ro + node - first];
    }
  }

  /* rebel.kernels.split.leaf_costs: e = u - v per sample and the per-leaf totals of u and v. */
  function leafCosts(s, a, nLeaves) {
    const { N, K, wp, wm, leaf, e, uTot, vTot } = s;
    const ea = new Float64Array(K), ema = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      ea[k] = exp(a[k]);
      ema[k] = exp(-a[k]);
    }
    uTot.fill(0.0, 0, nLeaves);
    vTot.fill(0.0, 0, nLeaves);
    for (let n = 0; n < N; n++) {
      let u = 0.0, v = 0.0;
      const o = n * K;
      for (let k = 0; k < K; k++) {
        u += wp[o + k] * ea[k] + wm[o + k] * ema[k];
        v += wp[o + k] * ema[k] + wm[o + k] * ea[k];
      }
      e[n] = u - v;
      uTot[leaf[n]] += u;
      vTot[leaf[n]] += v;
    }
  }

  /* rebel.kernels.histogram.leaf_histograms: lhist[(l*d + j)*nBins + b] = sum of e over leaf l, bin b. */
  function leafHistograms(s, nLeaves) {
    const { N, d, nBins, bins, leaf, e, lhist } = s;
    lhist.fill(0.0, 0, nLeaves * d * nBins);
    for (let j = 0; j < d; j++) {
      for (let n = 0; n < N; n++) lhist[(leaf[n] * d + j) * nBins + bins[j * N + n]] += e[n];
    }
  }

  /* rebel.kernels.split.leaf_scan: per leaf the split (feature, threshold, polarity) or -1 (keep the copy). */
  function leafScan(s, nLeaves, baseSigns, bestF, bestT, bestP) {
    const { d, nBins, lhist, uTot, vTot, usable } = s;
    for (let lf = 0; lf < nLeaves; lf++) {
      const U = uTot[lf], V = vTot[lf];
      const tol = LEAF_TOL * (U + V);
      let best = baseSigns[lf] > 0 ? U : V;
      bestF[lf] = -1;
      bestT[lf] = 0;
      bestP[lf] = baseSigns[lf];
      const E = U - V;
      for (let j = 0; j < d; j++) {
        if (!usable[j]) continue;
        let left = 0.0;
        const ho = (lf * d + j) * nBins;
        for (let i = 1; i < nBins; i++) {
          left += lhist[ho + i - 1];
          const right = E - left;
          const lossPlus = V + right;
          if (lossPlus < best - tol) {
            best = lossPlus;
            bestF[lf] = j;
            bestT[lf] = i;
            bestP[lf] = 1;
          }
          const lossMinus = U - right;
          if (lossMinus < best - tol) {
            best = lossMinus;
            bestF[lf] = j;
            bestT[lf] = i;
            bestP[lf] = -1;
          }
        }
      }
    }
  }

  /* rebel.kernels.tree.set_layer */
  function setLayer(features, thrIdx, leafSigns, fo, ro, oldSigns, bestF, bestT, bestP) {
    const nLeaves = oldSigns.length, firstLeaf = nLeaves - 1;
    for (let lf = 0; lf < nLeaves; lf++) {
      const pos = firstLeaf + lf;
      let rho;
      if (bestF[lf] >= 0) {
        features[fo + pos] = bestF[lf];
        thrIdx[fo + pos] = bestT[lf];
        rho = bestP[lf];
      } else {
        const parent = (pos - 1) >> 1;
        features[fo + pos] = features[fo + parent];
        thrIdx[fo + pos] = thrIdx[fo + parent];
        rho = pos % 2 === 1 ? -oldSigns[lf] : oldSigns[lf];
      }
      leafSigns[ro + 2 * lf] = -rho;
      leafSigns[ro + 2 * lf + 1] = rho;
    }
  }

  /* rebel.kernels.tree._grow_tree_with: round t's tree into the forest, its a into a. */
  function growTree(s, forest, t, a) {
    const { K, depth, sp, sm, wp, wm, N, f, leaf } = s;
    const nNodes = (1 << depth) - 1, fo = t * nNodes, ro = t * (nNodes + 1);
    const { features, thrIdx, leafSigns } = forest;
    rootHistograms(s);
    const [j, i] = rootScan(s);
    if (j < 0) {
      features.fill(0, fo, fo + nNodes);
      thrIdx.fill(1, fo, fo + nNodes);
      leafSigns.fill(1, ro, ro + nNodes + 1);
      f.fill(1);
      leaf.fill(0);
      splitSums(wp, wm, f, N, K, sp, sm);
      aStar(sp, sm, a);
      return;
    }
    features[fo] = j;
    thrIdx[fo] = i;
    leafSigns[ro] = -1;
    leafSigns[ro + 1] = 1;
    evalTreeBinned(s, features, thrIdx, leafSigns, 1, fo, ro);
    splitSums(wp, wm, f, N, K, sp, sm);
    aStar(sp, sm, a);
    const aNew = new Float64Array(K);
    for (let dl = 1; dl < depth; dl++) {
      const nLeaves = 1 << dl;
      leafCosts(s, a, nLeaves);
      leafHistograms(s, nLeaves);
      const bestF = new Int32Array(nLeaves), bestT = new Int32Array(nLeaves), bestP = new Int8Array(nLeaves);
      const oldSigns = leafSigns.slice(ro, ro + nLeaves);
      leafScan(s, nLeaves, oldSigns, bestF, bestT, bestP);
      setLayer(features, thrIdx, leafSigns, fo, ro, oldSigns, bestF, bestT, bestP);
      evalTreeBinned(s, features, thrIdx, leafSigns, dl + 1, fo, ro);
      splitSums(wp, wm, f, N, K, sp, sm);
      aStar(sp, sm, aNew);
      layerChooseA(sp, sm, a, aNew);
    }
  }

  /* rebel.booster.boost (paper mode) on a prepared problem: the bias a0, then nRounds trees.
   * p: {X (N*d, row-major), N, d, K, y (N), costMatrix (K*K, rows = truth), weights (N) or null,
   *     nRounds, depth, nThresholds}. Returns the model {a0, A, features, thrIdx, thresholds (per node),
   *     leafSigns, risk, usable, binThresholds}. */
  function fit(p) {
    const { X, N, d, K, y, depth, nRounds, nThresholds } = p;
    const weights = p.weights || null;
    const { rows, scale } = costRows(p.costMatrix, K, y, weights);
    const { cp, cm } = decompose(rows, K);
    const kept = [];
    for (let n = 0; n < N; n++) if (!weights || weights[n] > 0) kept.push(n);
    const { thresholds, usable } = fitThresholds(X, N, d, nThresholds, kept.length ? kept : [...Array(N).keys()]);
    const nBins = nThresholds + 1;
    const nLeavesMax = 1 << Math.max(depth - 1, 0);
    const s = {
      N, K, d, depth, nBins, usable, rows,
      bins: binData(X, N, d, thresholds, nThresholds),
      wp: cp, wm: cm, H: new Float64Array(N * K), dw: new Float64Array(N * K),
      wTotal: new Float64Array(K), dwTotal: new Float64Array(K),
      hist: new Float64Array(d * nBins * K), lhist: new Float64Array(nLeavesMax * d * nBins),
      f: new Int8Array(N), leaf: new Int32Array(N), e: new Float64Array(N),
      uTot: new Float64Array(nLeavesMax), vTot: new Float64Array(nLeavesMax),
      sp: new Float64Array(K), sm: new Float64Array(K), nChunks: updateChunks(N),
    };
    // rebel.booster._bias_step: a0 with f == +1 on the initial weights.
    s.f.fill(1);
    splitSums(s.wp, s.wm, s.f, N, K, s.sp, s.sm);
    const a0 = new Float64Array(K);
    aStar(s.sp, s.sm, a0);
    let total = roundTotal(s.sp, s.sm, a0);
    const risk = new Float64Array(nRounds + 1);
    risk[0] = applyRound(s, s.f, a0, total > 0 ? 1.0 / total : 1.0);
    const nNodes = (1 << depth) - 1;
    const forest = {
      features: new Int32Array(nRounds * nNodes), thrIdx: new Int32Array(nRounds * nNodes),
      leafSigns: new Int8Array(nRounds * (nNodes + 1)),
    };
    const A = new Float64Array(nRounds * K);
    for (let t = 0; t < nRounds; t++) {
      const a = A.subarray(t * K, (t + 1) * K);
      growTree(s, forest, t, a);
      total = roundTotal(s.sp, s.sm, a);
      risk[t + 1] = applyRound(s, s.f, a, total > 0 ? 1.0 / total : 1.0);
    }
    for (let t = 0; t <= nRounds; t++) risk[t] /= scale; // in the caller's cost units (a power of two: exact)
    const nodeThresholds = new Float64Array(nRounds * nNodes);
    for (let i = 0; i < nodeThresholds.length; i++) {
      nodeThresholds[i] = thresholds[forest.features[i] * nThresholds + forest.thrIdx[i] - 1];
    }
    return {
      K, d, depth, nRounds, a0, A, risk, usable, binThresholds: thresholds,
      features: forest.features, thrIdx: forest.thrIdx, leafSigns: forest.leafSigns, thresholds: nodeThresholds,
    };
  }

  /* rebel.kernels.predict.predict_blocks' staged classes: out[t*M + m] = argmax_k H_t(P[m]) (first of equal
   * maxima), t = 0..T, for M points P (M*d row-major); scores added round after round as the kernel does.
   * ``only`` (optional): the one round t wanted, out[m] = argmax_k H_t(P[m]) (the same scores; the rounds after t
   * not added). */
  function stagedClasses(model, P, M, only) {
    const { K, d, depth, a0, A, features, thresholds, leafSigns } = model;
    const one = only !== undefined, nRounds = one ? only : model.nRounds;
    const nNodes = (1 << depth) - 1;
    const out = new Uint8Array((one ? 1 : nRounds + 1) * M);
    const acc = new Float64Array(M * K);
    for (let m = 0; m < M; m++) for (let k = 0; k < K; k++) acc[m * K + k] = a0[k];
    const argmaxInto = (t) => {
      if (one && t !== only) return;
      const to = one ? 0 : t * M;
      for (let m = 0; m < M; m++) {
        const o = m * K;
        let best = 0, top = acc[o];
        for (let k = 1; k < K; k++) {
          if (acc[o + k] > top) {
            top = acc[o + k];
            best = k;
          }
        }
        out[to + m] = best;
      }
    };
    argmaxInto(0);
    for (let t = 0; t < nRounds; t++) {
      const fo = t * nNodes, ro = t * (nNodes + 1);
      for (let m = 0; m < M; m++) {
        let node = 0;
        for (let l = 0; l < depth; l++) {
          node = 2 * node + 1 + (P[m * d + features[fo + node]] > thresholds[fo + node] ? 1 : 0);
        }
        const o = m * K, aO = t * K;
        if (leafSigns[ro + node - nNodes] > 0) {
          for (let k = 0; k < K; k++) acc[o + k] += A[aO + k];
        } else {
          for (let k = 0; k < K; k++) acc[o + k] += -A[aO + k];
        }
      }
      argmaxInto(t + 1);
    }
    return out;
  }

  /* The minimum-expected-cost class argmin_k sum_y P[m, y] C[y, k] (first of equal ones) of each row of
   * posteriors P (M*K): the two-step method's and the Bayes rule's decision (rebel.costs.min_risk_class). The
   * sums run over y in order; numpy's P @ C (BLAS) may round them otherwise, so two classes whose expected costs
   * tie to the last bit may be decided differently (not seen in the tests). */
  function minRiskClasses(P, M, K, C) {
    const out = new Uint8Array(M);
    for (let m = 0; m < M; m++) {
      let best = 0, low = Infinity;
      for (let k = 0; k < K; k++) {
        let r = 0.0;
        for (let yy = 0; yy < K; yy++) r += P[m * K + yy] * C[yy * K + k];
        if (r < low) {
          low = r;
          best = k;
        }
      }
      out[m] = best;
    }
    return out;
  }

  /* Mean cost C[y_m, cls_m] over points. */
  function meanCost(C, K, y, cls, offset) {
    let total = 0.0;
    for (let m = 0; m < y.length; m++) total += C[y[m] * K + cls[offset + m]];
    return y.length ? total / y.length : 0.0;
  }

  const api = {
    fit, stagedClasses, minRiskClasses, meanCost, inputs, libm,
  };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  root.RebelEngine = api;
  if (typeof WorkerGlobalScope !== "undefined" && root instanceof WorkerGlobalScope) {
    root.onmessage = (event) => { // {id, problem} -> {id, model} or {id, error}
      const id = event.data.id;
      try {
        root.postMessage({ id, model: fit(event.data.problem) });
      } catch (err) {
        root.postMessage({ id, error: String(err && err.message ? err.message : err) });
      }
    };
  }
})(typeof self !== "undefined" ? self : globalThis);
