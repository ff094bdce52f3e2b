"""Slow, obviously-correct twins of every kernel in ``rebel/kernels/`` (same names) and of a whole REBEL fit.

Nothing here is compiled or clever: sums are taken straight from the definitions (S.6, Sec. 4), candidates are
enumerated in the contract's order, and H and the weights are recomputed from scratch.
"""

from __future__ import annotations

import numpy as np

from rebel.costs import decompose
from rebel.kernels import LEAF_TOL, SMOOTHING


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


def eval_stump_binned(bins, features, thr_idx, leaf_signs):
    """A depth-1 tree's outputs and leaf ids: its root stump sends bins >= thr_idx[0] right."""
    right = bins[features[0]] >= thr_idx[0]
    return np.where(right, leaf_signs[1], leaf_signs[0]).astype(np.int8), right.astype(np.int32)


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
    return leaf_scan_min_rows(bins, leaf, u, v, base_signs, usable, n_thresholds, 1)


def leaf_scan_min_rows(bins, leaf, u, v, base_signs, usable, n_thresholds, msl):
    """``leaf_scan`` over the splits leaving each side of the leaf 0 or >= msl rows (msl = 1: every split):
    per leaf, (feature, threshold, polarity, loss), or (-1, 0, the leaf's sign, U or V) for the copy."""
    n_leaves = base_signs.shape[0]
    out = []
    for lf in range(n_leaves):
        inside = leaf == lf
        U, V = u[inside].sum(), v[inside].sum()
        tol = LEAF_TOL * (U + V)
        best = (-1, 0, int(base_signs[lf]), U if base_signs[lf] > 0 else V)
        for j in np.flatnonzero(usable):
            for i in range(1, n_thresholds + 1):
                right = inside & (bins[j] >= i)
                left = inside & ~(bins[j] >= i)
                if msl > 1 and (0 < right.sum() < msl or 0 < left.sum() < msl):
                    continue
                for rho in (1, -1):
                    loss = (u[right].sum() + v[left].sum()) if rho > 0 else (v[right].sum() + u[left].sum())
                    if loss < best[3] - tol:
                        best = (int(j), i, rho, loss)
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


def set_layer(features, thr_idx, leaf_signs, old_signs, best_feature, best_thr, best_polarity):
    """New copies of the tree arrays with a layer below the current leaves: a split where best_feature >= 0,
    else a copy of the parent's split whose side keeps the leaf's sign."""
    features, thr_idx, leaf_signs = features.copy(), thr_idx.copy(), leaf_signs.copy()
    n = len(old_signs)
    for lf in range(n):
        pos = n - 1 + lf
        if best_feature[lf] >= 0:
            features[pos], thr_idx[pos] = best_feature[lf], best_thr[lf]
            leaf_signs[2 * lf : 2 * lf + 2] = [-best_polarity[lf], best_polarity[lf]]
        else:
            parent = (pos - 1) // 2
            features[pos], thr_idx[pos] = features[parent], thr_idx[parent]
            s = int(old_signs[lf])
            # pos is a left child (odd): its samples go left again and keep s there.
            leaf_signs[2 * lf : 2 * lf + 2] = [s, -s] if pos % 2 == 1 else [-s, s]
    return features, thr_idx, leaf_signs


# ---------------------------------------------------------------------------------- variants beyond the paper

LOSS_EXP, LOSS_LOGISTIC = 0, 1


def softplus(x):
    return np.logaddexp(0.0, x)


def sigmoid(x):
    from scipy.special import expit

    return expit(x)


def logistic_stats(H, cp, cm):
    """Gradient and hessian of cp F(H) + cm F(-H), F(x) = ln(1 + e^x), by the chain rule."""
    s = sigmoid(H)
    return cp * s - cm * (1 - s), (cp + cm) * s * (1 - s)


def logistic_loss_sum(H, cp, cm, node, values, scale):
    X = H + scale * values[node]
    return (cp * softplus(X) + cm * softplus(-X)).sum()


def line_search(H, cp, cm, node, values, target, steps=60):
    for m in range(steps):
        scale = 0.5**m
        loss = logistic_loss_sum(H, cp, cm, node, values, scale)
        if loss <= target:
            return scale, loss
    return 0.0, logistic_loss_sum(H, cp, cm, node, values, 0.0)


def exp_l2_step(p, q, l2):
    """argmin_v p e^v + q e^-v + l2 v^2 / 2 by bisection on its increasing derivative, between 0 and 1/2 ln(q/p)."""
    v0 = 0.5 * np.log(q / p)
    lo, hi = min(v0, 0.0), max(v0, 0.0)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):  # no float left between them: the halvings to come would change nothing
            return mid
        if p * np.exp(mid) - q * np.exp(-mid) + l2 * mid > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def leaf_value(p, q, loss_id, learning_rate, eps, lam, l2=0.0):
    if loss_id == LOSS_EXP:
        if l2 > 0:
            return learning_rate * exp_l2_step(p + eps, q + eps, l2)
        return learning_rate * 0.5 * np.log((q + eps) / (p + eps))
    return -learning_rate * p / (q + lam + l2)


def leaf_objective(p, q, loss_id, learning_rate, eps, lam, l2=0.0):
    v = leaf_value(p, q, loss_id, learning_rate, eps, lam, l2)
    if loss_id == LOSS_EXP:
        return p * np.exp(v) + q * np.exp(-v) + l2 * v * v / 2
    return p * v + (q + l2) * v * v / 2


def vector_criterion(p, q, loss_id, learning_rate, eps, lam, l2=0.0):
    return sum(leaf_objective(p[k], q[k], loss_id, learning_rate, eps, lam[k], l2) for k in range(len(p)))


def node_counts(bins, rows):
    """Rows per (feature, bin) among ``rows``."""
    return np.stack([np.bincount(bins[j, rows], minlength=256) for j in range(bins.shape[0])])


def node_histograms(bins, P, Q, rows):
    d, K = bins.shape[0], P.shape[1]
    hist_p, hist_q = np.zeros((d, 256, K)), np.zeros((d, 256, K))
    for j in range(d):
        for n in rows:
            hist_p[j, bins[j, n]] += P[n]
            hist_q[j, bins[j, n]] += Q[n]
    return hist_p, hist_q


def vector_scan(
    bins, P, Q, members, usable, n_thresholds, loss_id, learning_rate, eps, lam, best, l2=0.0, msl=1
):
    """Every (feature, threshold) leaving each side 0 or >= msl rows (msl = 1: every one) by the children's
    criterion summed from their samples; strictly below best."""
    best_j, best_i = -1, 0
    for j in range(bins.shape[0]):
        if not usable[j]:
            continue
        for i in range(1, n_thresholds + 1):
            crit = 0.0
            sides = (members & (bins[j] < i), members & (bins[j] >= i))
            if msl > 1 and any(0 < side.sum() < msl for side in sides):
                continue
            for side in sides:
                crit += vector_criterion(P[side].sum(0), Q[side].sum(0), loss_id, learning_rate, eps, lam, l2)
            if crit < best:
                best_j, best_i, best = j, i, crit
    return best_j, best_i, best


def sort_by_node(node, first, count):
    order = np.argsort(node, kind="stable")
    starts = np.concatenate(([0], np.cumsum(np.bincount(node - first, minlength=count))))
    return order, starts


def grow_vector_tree(
    bins, usable, depth, P, Q, H, cp, cm, loss_id, learning_rate, eps, lam, n_thresholds, l2=0.0, msl=1
):
    """Vector-leaf tree from the definitions (masks instead of histograms). Returns features, thr_idx, the leaf
    values (2^depth, K), every sample's leaf and the loss after each layer. A node with fewer than msl rows
    takes its parent's values; the exp loss of a layer is then (and with l2 > 0) the weight its steps leave."""
    N, K = P.shape
    node = np.zeros(N, dtype=int)
    features, thr = np.zeros(2**depth - 1, int), np.ones(2**depth - 1, int)
    node_values = np.zeros((2 ** (depth + 1) - 1, K))

    def set_values(first, count):
        for i in range(first, first + count):
            m = node == i
            if m.sum() < msl and i > 0:
                node_values[i] = node_values[(i - 1) // 2]
            else:
                p, q = P[m].sum(0), Q[m].sum(0)
                node_values[i] = [
                    leaf_value(p[k], q[k], loss_id, learning_rate, eps, lam[k], l2) for k in range(K)
                ]

    set_values(0, 1)
    best_loss = logistic_loss_sum(H, cp, cm, node, node_values, 0.0) if loss_id == LOSS_LOGISTIC else 0.0
    scale, stopped, layer_loss = 1.0, False, []
    for d in range(depth):
        first, count = 2**d - 1, 2**d
        total = 0.0
        before = node.copy()
        for i in range(first, first + count):
            m = before == i
            p, q = P[m].sum(0), Q[m].sum(0)
            crit = vector_criterion(p, q, loss_id, learning_rate, eps, lam, l2)
            j, ti = -1, 1
            if not stopped and m.any():
                bound = np.inf if i == 0 else crit - LEAF_TOL * (np.abs(p).sum() + q.sum())
                j, ti, found = vector_scan(
                    bins, P, Q, m, usable, n_thresholds, loss_id, learning_rate, eps, lam, bound, l2, msl
                )
                crit = found if j >= 0 else crit
            if j < 0:
                j, ti = (features[(i - 1) // 2], thr[(i - 1) // 2]) if i > 0 else (0, 1)
            features[i], thr[i] = j, ti
            node[m] = np.where(bins[j][m] >= ti, 2 * i + 2, 2 * i + 1)
            total += crit
        set_values(first + count, 2 * count)
        if loss_id == LOSS_EXP:
            if l2 > 0 or msl > 1:
                v = node_values[node]
                total = (P * np.exp(v) + Q * np.exp(-v)).sum()
            layer_loss.append(total)
            continue
        if not stopped:
            s, loss = line_search(H, cp, cm, node, node_values, best_loss)
            if s > 0:
                best_loss, scale = loss, s
            elif d == 0:
                stopped, scale = True, 0.0
            else:
                stopped = True
                for i in range(first, first + count):
                    features[i], thr[i] = features[(i - 1) // 2], thr[(i - 1) // 2]
                    m = before == i
                    node[m] = np.where(bins[features[i]][m] >= thr[i], 2 * i + 2, 2 * i + 1)
                set_values(first + count, 2 * count)
        layer_loss.append(best_loss)
    leaves = 2**depth
    return features, thr, scale * node_values[leaves - 1 :], node - (leaves - 1), np.array(layer_loss)


def apply_leaf_values(H, wp, wm, node, values, scale, reweight, cost_rows):
    V = values[node]
    H = H + V
    if reweight:
        wp, wm = wp * np.exp(V) * scale, wm * np.exp(-V) * scale
    risk = cost_rows[np.arange(H.shape[0]), np.argmax(H, axis=1)].mean()
    return H, wp, wm, risk


def newton_root_scan(bins, g, h, lam, usable, n_thresholds, msl=1):
    """Every stump f leaving each side 0 or >= msl rows: gain sum_k (sum_n f g)^2 / (sum_n h + lam); strictly
    larger wins."""
    best = (-1, 0, -np.inf)
    for j in range(bins.shape[0]):
        if not usable[j]:
            continue
        for i in range(1, n_thresholds + 1):
            f = np.where(bins[j] >= i, 1.0, -1.0)
            if msl > 1 and (0 < (f > 0).sum() < msl or 0 < (f < 0).sum() < msl):
                continue
            gain = ((f @ g) ** 2 / (h.sum(0) + lam)).sum()
            if gain > best[2]:
                best = (j, i, gain)
    return best


def newton_a(g, h, f, lam):
    return -(f.astype(float) @ g) / (h.sum(0) + lam)


def newton_leaf_costs(g, h, leaf, a, n_leaves):
    u = g @ a + 0.5 * h @ (a * a)
    v = -(g @ a) + 0.5 * h @ (a * a)
    U = np.array([u[leaf == lf].sum() for lf in range(n_leaves)])
    V = np.array([v[leaf == lf].sum() for lf in range(n_leaves)])
    return u - v, U, V, u, v


def grow_newton_tree(bins, usable, depth, H, cp, cm, learning_rate, lam, n_thresholds, msl=1):
    """Binary-leaf Newton tree from the definitions (lam: the ridge plus l2). Returns features, thr_idx,
    leaf_signs, the step a, the outputs f and the loss sum after each layer."""
    g, h = logistic_stats(H, cp, cm)
    N = H.shape[0]
    j, i, _ = newton_root_scan(bins, g, h, lam, usable, n_thresholds, msl)
    feats, thr, signs = np.zeros(2**depth - 1, int), np.ones(2**depth - 1, int), np.ones(2**depth, int)
    if j >= 0:
        feats[0], thr[0], signs[0] = j, i, -1
    f, leaf = eval_tree_binned(bins, feats, thr, signs, 1)
    a = newton_a(g, h, f, lam)
    best_loss = logistic_loss_sum(H, cp, cm, np.zeros(N, int), np.zeros((1, len(a))), 0.0)
    scale, loss = line_search(H, cp, cm, leaf, signs[:2, None] * a * learning_rate, best_loss)
    stopped, best_loss = scale == 0.0, min(loss, best_loss)
    layer_loss = [best_loss]
    for d in range(1, depth):
        n = 2**d
        old = signs[:n].copy()
        choice = [(-1, 1, 1, 0.0)] * n
        if not stopped:
            _, _, _, u, v = newton_leaf_costs(g, h, leaf, a * learning_rate * scale, n)
            choice = leaf_scan_min_rows(bins, leaf, u, v, old, usable, n_thresholds, msl)
        bf, bt, bp = (np.array([c[m] for c in choice]) for m in range(3))
        feats, thr, signs = set_layer(feats, thr, signs, old, bf, bt, bp)
        f, leaf = eval_tree_binned(bins, feats, thr, signs, d + 1)
        if not stopped:
            a_new = newton_a(g, h, f, lam)
            s, loss = line_search(H, cp, cm, leaf, signs[: 2 * n, None] * a_new * learning_rate, best_loss)
            if s > 0:
                a, scale, best_loss = a_new, s, loss
            else:
                stopped = True
                feats, thr, signs = set_layer(feats, thr, signs, old, -np.ones(n, int), bt, bp)
                f, leaf = eval_tree_binned(bins, feats, thr, signs, d + 1)
        layer_loss.append(best_loss)
    return feats, thr, signs, a * learning_rate * scale, f, np.array(layer_loss)


def predict_leaf_values(X, a0, features, thresholds, leaf_values, depth):
    """Scores a0 + sum_t leaf_values[t, leaf_t(x)] and the staged argmax (T + 1, N)."""
    T = features.shape[0]
    leaves = tree_leaves(X, features, thresholds, depth)
    H = np.tile(a0, (X.shape[0], 1)).astype(float)
    staged = [np.argmax(H, axis=1)]
    for t in range(T):
        H = H + leaf_values[t][leaves[:, t]]
        staged.append(np.argmax(H, axis=1))
    return H, np.array(staged)
