"""Slow, obviously-correct twins of every kernel in ``rebel/_kernels.py`` (same names) and of a whole REBEL fit.

Nothing here is compiled or clever: sums are taken straight from the definitions (S.6, Sec. 4), candidates are
enumerated in the contract's order, and H and the weights are recomputed from scratch.
"""

from __future__ import annotations

import numpy as np

from rebel._kernels import LEAF_TOL, SMOOTHING
from rebel.costs import decompose


def bin_features(X, thresholds):
    """bins[j, n] = number of thresholds of feature j strictly below X[n, j], counted one by one."""
    bins = np.zeros((X.shape[1], X.shape[0]), dtype=np.uint8)
    for j in range(X.shape[1]):
        for n in range(X.shape[0]):
            bins[j, n] = sum(1 for tau in thresholds[j] if tau < X[n, j])
    return bins


def root_histograms(bins, dw):
    d, N = bins.shape
    n_bins = 256
    hist = np.zeros((d, n_bins, dw.shape[1]))
    for j in range(d):
        for n in range(N):
            hist[j, bins[j, n]] += dw[n]
    return hist


def split_sums(wp, wm, f):
    """sp = sum_{f=+1} wp + sum_{f=-1} wm, sm = sum_{f=+1} wm + sum_{f=-1} wp (S.6)."""
    pos = f > 0
    sp = wp[pos].sum(axis=0) + wm[~pos].sum(axis=0)
    sm = wm[pos].sum(axis=0) + wp[~pos].sum(axis=0)
    return sp, sm


def a_star(sp, sm):
    eps = max(SMOOTHING * (sp.sum() + sm.sum()) / sp.shape[0], 1e-300)
    return 0.5 * (np.log(sm + eps) - np.log(sp + eps))


def stump_criterion(sp, sm):
    return np.sqrt(sp * sm).sum()


def round_total(sp, sm, a):
    return (sp * np.exp(a) + sm * np.exp(-a)).sum()


def root_scan(bins, wp, wm, usable, n_thresholds):
    """Enumerate (feature, threshold) ascending; objective sum_k sqrt(sp_k sm_k); strict improvement."""
    best = (-1, 0, np.inf)
    for j in range(bins.shape[0]):
        if not usable[j]:
            continue
        for i in range(1, n_thresholds + 1):
            f = np.where(bins[j] >= i, 1, -1)
            sp, sm = split_sums(wp, wm, f)
            obj = stump_criterion(sp, sm)
            if obj < best[2]:
                best = (j, i, obj)
    return best


def eval_tree_binned(bins, features, thr_idx, leaf_signs, depth):
    N = bins.shape[1]
    f = np.empty(N, dtype=np.int8)
    leaf = np.empty(N, dtype=np.int32)
    for n in range(N):
        node = 0
        for _ in range(depth):
            node = 2 * node + (2 if bins[features[node], n] >= thr_idx[node] else 1)
        leaf[n] = node - (2**depth - 1)
        f[n] = leaf_signs[leaf[n]]
    return f, leaf


def tree_output(x, features, thresholds, leaf_signs, depth):
    node = 0
    for _ in range(depth):
        node = 2 * node + (2 if x[features[node]] > thresholds[node] else 1)
    return leaf_signs[node - (2**depth - 1)]


def decision_scores(X, a0, features, thresholds, leaf_signs, A, depth):
    out = np.tile(a0, (X.shape[0], 1)).astype(float)
    for n in range(X.shape[0]):
        for t in range(A.shape[0]):
            out[n] += tree_output(X[n], features[t], thresholds[t], leaf_signs[t], depth) * A[t]
    return out


def tree_outputs(X, features, thresholds, leaf_signs, depth):
    return np.array(
        [
            [
                tree_output(x, features[t], thresholds[t], leaf_signs[t], depth)
                for t in range(features.shape[0])
            ]
            for x in X
        ],
        dtype=np.int8,
    ).reshape(X.shape[0], features.shape[0])


def tree_leaves(X, features, thresholds, depth):
    out = np.empty((X.shape[0], features.shape[0]), dtype=np.int64)
    for n, x in enumerate(X):
        for t in range(features.shape[0]):
            node = 0
            for _ in range(depth):
                node = 2 * node + (2 if x[features[t][node]] > thresholds[t][node] else 1)
            out[n, t] = node - (2**depth - 1)
    return out


def predict_blocks(X, a0, features, thresholds, leaf_signs, A, depth):
    """Scores a0 + sum_t f_t(x) a_t (N, K) and staged class indices (T + 1, N), from the definitions."""
    return (
        decision_scores(X, a0, features, thresholds, leaf_signs, A, depth),
        staged_argmax(X, a0, features, thresholds, leaf_signs, A, depth),
    )


def staged_argmax(X, a0, features, thresholds, leaf_signs, A, depth):
    T = A.shape[0]
    out = np.empty((T + 1, X.shape[0]), dtype=np.int64)
    for t in range(T + 1):
        out[t] = np.argmax(
            decision_scores(X, a0, features[:t], thresholds[:t], leaf_signs[:t], A[:t], depth), axis=1
        )
    return out


def leaf_costs(wp, wm, leaf, a, n_leaves):
    u = (wp * np.exp(a)).sum(axis=1) + (wm * np.exp(-a)).sum(axis=1)
    v = (wp * np.exp(-a)).sum(axis=1) + (wm * np.exp(a)).sum(axis=1)
    U = np.array([u[leaf == lf].sum() for lf in range(n_leaves)])
    V = np.array([v[leaf == lf].sum() for lf in range(n_leaves)])
    return u - v, U, V, u, v


def leaf_histograms(bins, leaf, e, n_leaves):
    d, N = bins.shape
    hist = np.zeros((n_leaves, d, 256))
    for n in range(N):
        for j in range(d):
            hist[leaf[n], j, bins[j, n]] += e[n]
    return hist


def leaf_scan(bins, leaf, u, v, base_signs, usable, n_thresholds):
    """Per leaf: keep the copy (loss U or V) unless (feature, threshold, polarity) is lower by the tolerance."""
    n_leaves = base_signs.shape[0]
    out = []
    for lf in range(n_leaves):
        inside = leaf == lf
        U, V = u[inside].sum(), v[inside].sum()
        tol = LEAF_TOL * (U + V)
        best = (-1, 0, int(base_signs[lf]), U if base_signs[lf] > 0 else V)
        for j in range(bins.shape[0]):
            if not usable[j]:
                continue
            for i in range(1, n_thresholds + 1):
                right = inside & (bins[j] >= i)
                left = inside & ~(bins[j] >= i)
                for rho in (1, -1):
                    loss = (u[right].sum() + v[left].sum()) if rho > 0 else (v[right].sum() + u[left].sum())
                    if loss < best[3] - tol:
                        best = (j, i, rho, loss)
        out.append(best)
    return out


def apply_round(wp, wm, H, f, a, cost_rows):
    """Returns the updated (wp, wm) rescaled to total 1, H, the total before the rescale, and the risk."""
    H = H + f[:, None] * a
    wp = wp * np.exp(f[:, None] * a)
    wm = wm * np.exp(-f[:, None] * a)
    total = wp.sum() + wm.sum()
    risk = cost_rows[np.arange(H.shape[0]), np.argmax(H, axis=1)].mean()
    return wp / total, wm / total, H, total, risk


def training_loss(H, cost_rows):
    """L = mean(beta) + (1/2N) sum_n (<c+, e^H> + <c-, e^-H>) (DESIGN.md section 1), straight from H."""
    dec = decompose(cost_rows)
    N = H.shape[0]
    return dec.beta.mean() + ((dec.cp * np.exp(H)).sum() + (dec.cm * np.exp(-H)).sum()) / (2 * N)


def grow_tree(bins, wp, wm, usable, depth, n_thresholds):
    """One depth-``depth`` tree and its a on weights (wp, wm) (Sec. 4): returns features, thr_idx, leaf_signs,
    a and the tree's outputs f on the samples."""
    N = bins.shape[1]
    j, i, _ = root_scan(bins, wp, wm, usable, n_thresholds)
    if j < 0:
        ones = np.ones(N, dtype=np.int8)
        feats, thr, signs = np.zeros(2**depth - 1, int), np.ones(2**depth - 1, int), np.ones(2**depth, int)
        return feats, thr, signs, a_star(*split_sums(wp, wm, ones)), ones
    feats, thr, signs = np.array([j]), np.array([i]), np.array([-1, 1])
    f, leafs = eval_tree_binned(bins, feats, thr, signs, 1)
    a = a_star(*split_sums(wp, wm, f))
    for D in range(1, depth):
        _, _, _, u, v = leaf_costs(wp, wm, leafs, a, 2**D)
        choice = leaf_scan(bins, leafs, u, v, signs, usable, n_thresholds)
        new_feats, new_thr, new_signs = list(feats), list(thr), []
        for lf, (jj, ii, rho, _) in enumerate(choice):
            pos = 2**D - 1 + lf
            if jj < 0:
                # Copy of the parent: the leaf's samples take the same branch again and keep sign s.
                parent = (pos - 1) // 2
                jj, ii = feats[parent], thr[parent]
                s = int(signs[lf])
                new_signs += [s, -s] if pos % 2 == 1 else [-s, s]
            else:
                new_signs += [-rho, rho]
            new_feats.append(jj)
            new_thr.append(ii)
        feats, thr, signs = np.array(new_feats), np.array(new_thr), np.array(new_signs)
        f, leafs = eval_tree_binned(bins, feats, thr, signs, D + 1)
        sp, sm = split_sums(wp, wm, f)
        a_new = a_star(sp, sm)
        keep_new = sp * np.exp(a_new) + sm * np.exp(-a_new) <= sp * np.exp(a) + sm * np.exp(-a)
        a = np.where(keep_new, a_new, a)
    return feats, thr, signs, a, f


def boost_rounds(bins, usable, cost_rows, H, n_rounds, depth, n_thresholds):
    """Rounds of the REBEL loop from scores H: weights c+- e^{+-H} recomputed from scratch each round.
    Returns per-round (features, thr_idx, leaf_signs, a), the loss after each round and the final H."""
    dec = decompose(cost_rows)
    rounds, losses = [], []
    for _ in range(n_rounds):
        wp, wm = dec.cp * np.exp(H), dec.cm * np.exp(-H)
        scale = wp.sum() + wm.sum()
        feats, thr, signs, a, f = grow_tree(bins, wp / scale, wm / scale, usable, depth, n_thresholds)
        H = H + f[:, None].astype(float) * a
        rounds.append((feats, thr, signs, a))
        losses.append(training_loss(H, cost_rows))
    return rounds, losses, H


def fit(bins, usable, cost_rows, n_rounds, depth, n_thresholds):
    """A whole REBEL fit from the definitions: a0, then ``boost_rounds``.

    Returns a0, per-round (features, thr_idx, leaf_signs, a) and the loss after a0 and each round.
    """
    dec = decompose(cost_rows)
    N = cost_rows.shape[0]
    a0 = a_star(*split_sums(dec.cp, dec.cm, np.ones(N, dtype=np.int8)))
    H = np.tile(a0, (N, 1))
    rounds, losses, _ = boost_rounds(bins, usable, cost_rows, H, n_rounds, depth, n_thresholds)
    return a0, rounds, np.array([training_loss(H, cost_rows), *losses])
