"""Stage 3, split search: the root stump criterion (S.6) and the leaf criterion of a deeper layer (Sec. 4).

``root_scan`` reads a root histogram (d, n_bins, K) and the column totals of dw and of wp + wm (K,); returns the
best (feature, threshold index, objective). ``leaf_costs`` reads wp, wm (N, K), ``leaf`` (N,) and a (K,); writes
e = u - v (N,) and per-leaf totals of u and v. ``leaf_scan`` reads leaf histograms (n_leaves, d, n_bins) and those
totals; writes each leaf's best feature, threshold index and polarity.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .common import LEAF_TOL


@njit(cache=True, nogil=True)
def stump_criterion(sp, sm):
    """The root stump criterion sum_k sqrt(sp_k sm_k) (S.6): the loss after the round with a = a* is
    proportional to twice it, so the best stump minimises it. ``root_scan`` evaluates it on every candidate."""
    total = 0.0
    for k in range(sp.shape[0]):
        total += np.sqrt(sp[k] * sm[k])
    return total


@njit(cache=True, nogil=True)
def root_scan(hist, dw_total, w_total, usable):
    """Best root stump (rho = +1) minimising sum_k sqrt(sp_k sm_k) (S.6).

    Candidates run over usable features j ascending, thresholds i = 1..n_bins-1 ascending; a new best must be
    strictly lower (first wins ties). Returns (feature, threshold index, objective); feature -1 if none.
    With delta = (sum over right - sum over left) of dw, sp = (T + delta) / 2 and sm = (T - delta) / 2, so
    sqrt(sp sm) = sqrt(max((T + delta)(T - delta), 0)) / 2 exactly (powers of two scale without rounding); a
    whole feature's thresholds are scored class by class in branch-free loops.
    """
    n_features, n_bins, n_classes = hist.shape
    best_j = -1
    best_i = 0
    best = np.inf
    obj = np.empty(n_bins - 1)
    prod = np.empty(n_bins - 1)
    for j in range(n_features):
        if not usable[j]:
            continue
        obj[:] = 0.0
        for k in range(n_classes):
            left = 0.0
            T = w_total[k]
            D = dw_total[k]
            for i in range(n_bins - 1):
                left += hist[j, i, k]
                delta = D - 2.0 * left
                prod[i] = (T + delta) * (T - delta)
            for i in range(n_bins - 1):
                # max(p, 0.0) as numba computes it, as a select (the builtin would compile an overload)
                p = prod[i]
                obj[i] += 0.5 * np.sqrt(0.0 if 0.0 >= p else p)  # noqa: FURB136
        for i in range(n_bins - 1):
            if obj[i] < best:
                best = obj[i]
                best_j = j
                best_i = i + 1
    return best_j, best_i, best


@njit(cache=True, nogil=True)
def leaf_costs(wp, wm, leaf, a, e_out, u_tot, v_tot):
    """Per-sample u - v for the deeper-layer search (Sec. 4, step 2), and per-leaf totals of u and v.

    u_n = <wp_n, e^a> + <wm_n, e^-a> is the sample's loss if it gets +1, v_n the same with a negated.
    Two samples at a time: their sums over k are independent chains that the CPU overlaps (every sum keeps
    its order, so the bits are those of one sample at a time).
    """
    n_samples, n_classes = wp.shape
    ea = np.exp(a)
    ema = np.exp(-a)
    u_tot[:] = 0.0
    v_tot[:] = 0.0
    n = 0
    while n + 2 <= n_samples:
        u0, v0, u1, v1 = 0.0, 0.0, 0.0, 0.0
        for k in range(n_classes):
            p0, m0, p1, m1 = wp[n, k], wm[n, k], wp[n + 1, k], wm[n + 1, k]
            u0 += p0 * ea[k] + m0 * ema[k]
            v0 += p0 * ema[k] + m0 * ea[k]
            u1 += p1 * ea[k] + m1 * ema[k]
            v1 += p1 * ema[k] + m1 * ea[k]
        e_out[n] = u0 - v0
        e_out[n + 1] = u1 - v1
        u_tot[leaf[n]] += u0
        v_tot[leaf[n]] += v0
        u_tot[leaf[n + 1]] += u1
        v_tot[leaf[n + 1]] += v1
        n += 2
    if n < n_samples:
        u, v = 0.0, 0.0
        for k in range(n_classes):
            u += wp[n, k] * ea[k] + wm[n, k] * ema[k]
            v += wp[n, k] * ema[k] + wm[n, k] * ea[k]
        e_out[n] = u - v
        u_tot[leaf[n]] += u
        v_tot[leaf[n]] += v


@njit(cache=True, nogil=True, inline="always")
def _keep_parent_copy(lf, u_tot, v_tot, base_signs, best_feature, best_thr, best_polarity):
    """A leaf scan's start for leaf ``lf``: its best so far is to keep the parent copy (feature -1, sign
    ``base_signs[lf]``). Returns its totals U, V, the tolerance LEAF_TOL * (U + V) and that copy's loss."""
    U = u_tot[lf]
    V = v_tot[lf]
    best_feature[lf] = -1
    best_thr[lf] = 0
    best_polarity[lf] = base_signs[lf]
    return U, V, LEAF_TOL * (U + V), U if base_signs[lf] > 0 else V


@njit(cache=True, nogil=True)
def leaf_scan(hist, u_tot, v_tot, base_signs, usable, best_feature, best_thr, best_polarity):
    """For each leaf choose the stump (feature, threshold, polarity) minimising its samples' loss (Sec. 4).

    Keeping the leaf's parent copy (every sample keeps sign ``base_signs[l]``) costs U or V; a split with
    polarity +1 costs V + R and with -1 costs U - R, R being the sum of u - v over the samples sent right.
    Candidates: usable features ascending, thresholds ascending, polarity +1 before -1; a split replaces the
    copy (and a later candidate an earlier one) only when lower by more than LEAF_TOL * (U + V).
    Leaves that keep the copy get best_feature = -1.
    """
    n_leaves, n_features, n_bins = hist.shape
    for lf in range(n_leaves):
        U, V, tol, best = _keep_parent_copy(
            lf, u_tot, v_tot, base_signs, best_feature, best_thr, best_polarity
        )
        E = U - V
        for j in range(n_features):
            if not usable[j]:
                continue
            left = 0.0
            for i in range(1, n_bins):
                left += hist[lf, j, i - 1]
                right = E - left
                loss_plus = V + right
                if loss_plus < best - tol:
                    best = loss_plus
                    best_feature[lf] = j
                    best_thr[lf] = i
                    best_polarity[lf] = 1
                loss_minus = U - right
                if loss_minus < best - tol:
                    best = loss_minus
                    best_feature[lf] = j
                    best_thr[lf] = i
                    best_polarity[lf] = -1
