"""Stage 8, variants: the binary-leaf grower under the logistic loss (Newton steps and a line search).

Reads ``bins`` (d, N) uint8, H, cp, cm (N, K) and the gradient and hessian in ``VariantWork`` (g, h); writes the
tree (``features``, ``thr_idx``, ``leaf_signs``), its step a (K,), the ``RoundWork`` arrays (f, leaf, histograms)
and the loss per layer.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .common import interpreted
from .histogram import leaf_histograms, leaf_histograms_serial, root_histograms, root_histograms_serial
from .split import _keep_parent_copy, leaf_scan
from .tree import eval_stump_binned, eval_tree_binned, interpreted_drivers, set_layer
from .variants import line_search, logistic_loss_sum


@njit(cache=True, nogil=True)
def newton_root_scan(hist, g_total, h_total, lam, usable, counts, msl):
    """Best root stump for binary leaves under the logistic loss: the largest Newton gain
    sum_k G_k(f)^2 / (h_total_k + lam_k), G(f) = sum_n f_n g_n = g_total - 2 (sum over the left); lam holds the
    ridge plus l2_regularization. Usable features and thresholds ascending; a new best must be strictly larger.
    With ``msl`` (min_samples_leaf) > 1 a stump must leave each side none or at least msl rows (``counts``
    (d, n_bins): rows per bin); msl = 1 reads no counts. Returns (feature, threshold index, gain); feature -1 if none."""
    n_features, n_bins, n_classes = hist.shape
    best_j = -1
    best_i = 0
    best = -np.inf
    left = np.empty(n_classes)
    n_tot = counts[0].sum() if msl > 1 else 0.0
    for j in range(n_features):
        if not usable[j]:
            continue
        left[:] = 0.0
        left_n = 0.0
        for i in range(1, n_bins):
            gain = 0.0
            for k in range(n_classes):
                left[k] += hist[j, i - 1, k]
                G = g_total[k] - 2.0 * left[k]
                gain += G * G / (h_total[k] + lam[k])
            if msl > 1:
                left_n += counts[j, i - 1]
                if 0 < left_n < msl or 0 < n_tot - left_n < msl:
                    continue
            if gain > best:
                best, best_j, best_i = gain, j, i
    return best_j, best_i, best


@njit(cache=True, nogil=True)
def newton_a(g, h, f, lam, a):
    """Newton output vector of binary leaves: a_k = -sum_n f_n g_nk / (sum_n h_nk + lam_k) (f^2 = 1)."""
    n_samples, n_classes = g.shape
    a[:] = 0.0
    hs = np.zeros(n_classes)
    for n in range(n_samples):
        for k in range(n_classes):
            a[k] += f[n] * g[n, k]
            hs[k] += h[n, k]
    for k in range(n_classes):
        a[k] = -a[k] / (hs[k] + lam[k])


@njit(cache=True, nogil=True)
def newton_leaf_costs(g, h, leaf, a, e_out, u_tot, v_tot):
    """The deeper-layer leaf criterion of binary leaves under the logistic loss (Newton model of the step f a):
    u_n = sum_k g a + h a^2 / 2 if the sample gets +1, v_n = sum_k -g a + h a^2 / 2 if -1; e = u - v and
    per-leaf totals of u and v, as ``leaf_costs`` gives them for the exp loss (so ``leaf_scan`` serves both)."""
    n_samples, n_classes = g.shape
    u_tot[:] = 0.0
    v_tot[:] = 0.0
    for n in range(n_samples):
        lin = 0.0
        quad = 0.0
        for k in range(n_classes):
            lin += g[n, k] * a[k]
            quad += 0.5 * h[n, k] * a[k] * a[k]
        e_out[n] = 2.0 * lin
        u_tot[leaf[n]] += quad + lin
        v_tot[leaf[n]] += quad - lin


@njit(cache=True, nogil=True)
def leaf_scan_min_rows(
    hist, counts, u_tot, v_tot, base_signs, usable, msl, best_feature, best_thr, best_polarity
):
    """``split.leaf_scan`` (the same candidates, order, tolerance and costs) restricted to splits that leave each
    side of the leaf none or at least ``msl`` rows (none: the leaf's rows all change sign) (``counts`` (n_leaves, d, n_bins): rows per leaf and bin), for
    min_samples_leaf > 1; leaf_scan itself (paper mode's) stays as it is."""
    n_leaves, n_features, n_bins = hist.shape
    for lf in range(n_leaves):
        U, V, tol, best = _keep_parent_copy(
            lf, u_tot, v_tot, base_signs, best_feature, best_thr, best_polarity
        )
        E = U - V
        n_tot = counts[lf, 0].sum()
        for j in range(n_features):
            if not usable[j]:
                continue
            left = 0.0
            left_n = 0.0
            for i in range(1, n_bins):
                left += hist[lf, j, i - 1]
                left_n += counts[lf, j, i - 1]
                if 0 < left_n < msl or 0 < n_tot - left_n < msl:
                    continue
                right = E - left
                if V + right < best - tol:
                    best = V + right
                    best_feature[lf] = j
                    best_thr[lf] = i
                    best_polarity[lf] = 1
                if U - right < best - tol:
                    best = U - right
                    best_feature[lf] = j
                    best_thr[lf] = i
                    best_polarity[lf] = -1


@njit(cache=True, nogil=True)
def _column_totals(g, h, g_total, h_total):
    """g_total[k], h_total[k] = the column sums of g and h (N, K), each over n in order (the bits of numba's
    ``g[:, k].sum()``; a kernel, so that the interpreted grower sums as the compiled one does)."""
    for k in range(g.shape[1]):
        sg = 0.0
        sh = 0.0
        for n in range(g.shape[0]):
            sg += g[n, k]
            sh += h[n, k]
        g_total[k] = sg
        h_total[k] = sh


@njit(cache=True, nogil=True)
def _signed_values(leaf_signs, a, step, out):
    """out[l] = leaf_signs[l] a step for the tree's current leaves (binary leaves as leaf values)."""
    for lf in range(out.shape[0]):
        for k in range(a.shape[0]):
            out[lf, k] = leaf_signs[lf] * a[k] * step


@njit(cache=True, nogil=True, inline="always")
def _grow_newton_tree_with(
    root_hist, leaf_hist, bins, usable, depth, H, cp, cm, learning_rate, lam, msl, root_counts, work, vw,
    features, thr_idx, leaf_signs, a,
):  # fmt: skip
    """Grow one depth-``depth`` binary-leaf tree f and its a under the logistic loss (Newton steps).

    Root: ``newton_root_scan`` on the histograms of g. a: ``newton_a``, times the learning rate and the line
    search's scale (the true loss never increases). Deeper layers as in ``grow_tree``, with the Newton model's
    u, v (``newton_leaf_costs``) in ``leaf_scan``; a layer whose line search cannot lower the loss below the
    previous layer's is undone (its nodes become copies) and growth stops. ``lam``: the ridge plus
    l2_regularization (the hessian term of a and of the gain); ``msl`` (min_samples_leaf) > 1: every split
    leaves each side none or at least msl rows (``root_counts`` (d, n_bins) rows per bin at the root; deeper layers
    count rows per leaf into vw.leaf_counts and search with ``leaf_scan_min_rows``). Reads vw.g, vw.h; writes the
    tree, a (the step), work.f / work.leaf on the training samples and vw.layer_loss (loss sums per layer).
    ``root_hist``, ``leaf_hist``: the histogram drivers, fixed by the entry point that inlines this body.
    """
    w = work
    n_classes = H.shape[1]
    root_hist(bins, vw.g, w.hist, w.lanes)
    g_total = np.empty(n_classes)
    h_total = np.empty(n_classes)
    _column_totals(vw.g, vw.h, g_total, h_total)
    j, i, _ = newton_root_scan(w.hist, g_total, h_total, lam, usable, root_counts, msl)
    features[:] = 0
    thr_idx[:] = 1
    leaf_signs[:] = 1
    if j >= 0:
        features[0] = j
        thr_idx[0] = i
        leaf_signs[0] = -1
    eval_stump_binned(bins, features, thr_idx, leaf_signs, w.f, w.leaf)
    newton_a(vw.g, vw.h, w.f, lam, a)
    values = vw.node_values
    values[:] = 0.0
    best_loss = logistic_loss_sum(H, cp, cm, w.leaf, values, 0.0)
    _signed_values(leaf_signs[:2], a, learning_rate, values[:2])
    scale, loss = line_search(H, cp, cm, w.leaf, values, best_loss)
    stopped = scale == 0.0
    best_loss = min(loss, best_loss)
    vw.layer_loss[0] = best_loss
    a_new = np.empty(n_classes)
    step = np.empty(n_classes)
    for d in range(1, depth):
        n_leaves = 1 << d
        old_signs = leaf_signs[:n_leaves].copy()
        best_feature = np.full(n_leaves, -1, dtype=np.int32)
        best_thr = np.ones(n_leaves, dtype=np.int32)
        best_polarity = np.ones(n_leaves, dtype=np.int8)
        if not stopped:
            for k in range(n_classes):  # loops, not array copies: those compile their shape-error text
                step[k] = a[k] * (learning_rate * scale)
            newton_leaf_costs(vw.g, vw.h, w.leaf, step, w.e, w.u_tot[:n_leaves], w.v_tot[:n_leaves])
            leaf_hist(bins, w.leaf, w.e, w.leaf_hist[:n_leaves])
            if msl > 1:
                leaf_hist(bins, w.leaf, vw.ones, vw.leaf_counts[:n_leaves])
                leaf_scan_min_rows(
                    w.leaf_hist[:n_leaves], vw.leaf_counts[:n_leaves], w.u_tot[:n_leaves], w.v_tot[:n_leaves],
                    old_signs, usable, msl, best_feature, best_thr, best_polarity,
                )  # fmt: skip
            else:
                leaf_scan(
                    w.leaf_hist[:n_leaves],
                    w.u_tot[:n_leaves],
                    w.v_tot[:n_leaves],
                    old_signs,
                    usable,
                    best_feature,
                    best_thr,
                    best_polarity,
                )
        set_layer(features, thr_idx, leaf_signs, old_signs, best_feature, best_thr, best_polarity)
        eval_tree_binned(bins, features, thr_idx, leaf_signs, d + 1, w.f, w.leaf)
        if not stopped:
            newton_a(vw.g, vw.h, w.f, lam, a_new)
            _signed_values(leaf_signs[: 2 * n_leaves], a_new, learning_rate, values[: 2 * n_leaves])
            s, loss = line_search(H, cp, cm, w.leaf, values, best_loss)
            if s > 0.0:
                for k in range(n_classes):
                    a[k] = a_new[k]
                scale = s
                best_loss = loss
            else:  # undo the layer: copies keep every sample's sign, so f is the last layer's
                stopped = True
                best_feature[:] = -1
                set_layer(features, thr_idx, leaf_signs, old_signs, best_feature, best_thr, best_polarity)
                eval_tree_binned(bins, features, thr_idx, leaf_signs, d + 1, w.f, w.leaf)
        vw.layer_loss[d] = best_loss
    for k in range(n_classes):
        a[k] *= learning_rate * scale


@njit(cache=True, nogil=True)
def grow_newton_tree(
    bins, usable, depth, H, cp, cm, learning_rate, lam, msl, root_counts, work, vw, features, thr_idx, leaf_signs,
    a,
):  # fmt: skip
    """One binary-leaf Newton tree with the parallel histogram drivers (``_grow_newton_tree_with``)."""
    _grow_newton_tree_with(
        root_histograms, leaf_histograms, bins, usable, depth, H, cp, cm, learning_rate, lam, msl, root_counts,
        work, vw, features, thr_idx, leaf_signs, a,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def grow_newton_tree_serial(
    bins, usable, depth, H, cp, cm, learning_rate, lam, msl, root_counts, work, vw, features, thr_idx, leaf_signs,
    a,
):  # fmt: skip
    """``grow_newton_tree`` with the serial histogram drivers (the same bits)."""
    _grow_newton_tree_with(
        root_histograms_serial, leaf_histograms_serial, bins, usable, depth, H, cp, cm, learning_rate, lam,
        msl, root_counts, work, vw, features, thr_idx, leaf_signs, a,
    )  # fmt: skip


_grow_newton_tree_interpreted = interpreted(_grow_newton_tree_with)


def grow_newton_tree_interpreted(
    bins, usable, depth, H, cp, cm, learning_rate, lam, msl, root_counts, work, vw, features, thr_idx, leaf_signs,
    a,
):  # fmt: skip
    """``grow_newton_tree`` (``work.parallel``) or ``grow_newton_tree_serial`` run by the interpreter: the same
    body calling the same kernels (the same bits), so a first logistic fit does not compile the grower (once per
    class count; ``rebel.booster.round_driver``)."""
    drivers = interpreted_drivers(work)[:2]
    _grow_newton_tree_interpreted(
        *drivers, bins, usable, depth, H, cp, cm, float(learning_rate), lam, msl, root_counts, work, vw, features,
        thr_idx, leaf_signs, a,
    )  # fmt: skip
