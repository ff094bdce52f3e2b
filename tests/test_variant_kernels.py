"""Every variant kernel (rebel/kernels/ section 8, and set_layer) against its naive twin in tests/naive.py."""

import numpy as np
import pytest

from rebel import kernels as kern
from rebel.binning import bin_data, fit_thresholds
from rebel.grower import round_work, variant_work

from . import naive
from .test_engine_kernels import SHAPES, _problem

LOSSES = [kern.LOSS_EXP, kern.LOSS_LOGISTIC]


def _logistic_problem(shape, seed):
    X, thr, usable, bins, wp, wm, rng = _problem(*shape, seed=seed)
    N, K = wp.shape
    cp = rng.exponential(size=(N, K)) * (rng.random((N, K)) < 0.7)
    cm = rng.exponential(size=(N, K)) * (rng.random((N, K)) < 0.4)
    H = rng.normal(scale=1.5, size=(N, K))
    return X, thr, usable, bins, wp, wm, cp, cm, H, rng


def _stats(loss_id, wp, wm, cp, cm, H):
    """(P, Q, eps, lam) of a round, as rebel.variants builds them."""
    K = wp.shape[1]
    if loss_id == kern.LOSS_EXP:
        return wp, wm, kern.SMOOTHING / K, np.zeros(K)
    g, h = naive.logistic_stats(H, cp, cm)
    lam = kern.NEWTON_RIDGE * (h.sum(0) + np.abs(g).sum(0)) / H.shape[0] + 1e-300
    return g, h, 0.0, lam


def test_softplus_and_sigmoid():
    for x in np.concatenate([np.linspace(-50, 50, 201), [-800.0, -40.0, 0.0, 40.0, 800.0]]):
        np.testing.assert_allclose(kern.softplus(x), naive.softplus(x), rtol=1e-14, atol=1e-300)
        np.testing.assert_allclose(kern.sigmoid(x), naive.sigmoid(x), rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("shape", SHAPES)
def test_logistic_stats_loss_and_line_search(shape):
    _X, _thr, _usable, _bins, _wp, _wm, cp, cm, H, rng = _logistic_problem(shape, seed=1)
    N, K = H.shape
    g, h = np.empty((N, K)), np.empty((N, K))
    kern.logistic_stats(H, cp, cm, g, h)
    ng, nh = naive.logistic_stats(H, cp, cm)
    np.testing.assert_allclose(g, ng, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h, nh, rtol=1e-12, atol=1e-15)
    node = rng.integers(0, 4, size=N)
    values = rng.normal(scale=3.0, size=(4, K))
    for scale in (0.0, 0.5, 1.0):
        np.testing.assert_allclose(
            kern.logistic_loss_sum(H, cp, cm, node, values, scale),
            naive.logistic_loss_sum(H, cp, cm, node, values, scale),
            rtol=1e-12,
        )
    base = naive.logistic_loss_sum(H, cp, cm, node, values, 0.0)
    quarter = naive.logistic_loss_sum(H, cp, cm, node, values, 0.25) * (1 + 1e-9)
    for target in (quarter, 0.5 * base, 2 * base):
        s, loss = kern.line_search(H, cp, cm, node, values, target)
        ns, nloss = naive.line_search(H, cp, cm, node, values, target)
        assert s == ns
        np.testing.assert_allclose(loss, nloss, rtol=1e-12)


@pytest.mark.parametrize("loss_id", LOSSES)
def test_leaf_value_objective_and_criterion(loss_id):
    rng = np.random.default_rng(2)
    p, q = rng.exponential(size=5), rng.exponential(size=5)
    p[0], q[1] = 0.0, 0.0
    if loss_id == kern.LOSS_LOGISTIC:
        p = p - 0.5
    lam = np.full(5, 1e-6)
    for l2 in (0.0, 0.05, 3.0):
        rtol = 1e-13 if l2 == 0.0 else 1e-10  # l2 > 0 with the exp loss: an iteration against a bisection
        for k in range(5):
            for lr in (1.0, 0.3):
                args = (p[k], q[k], loss_id, lr, 1e-10, lam[k], l2)
                np.testing.assert_allclose(
                    kern.leaf_value(*args), naive.leaf_value(*args), rtol=rtol, atol=1e-15
                )
                np.testing.assert_allclose(kern.leaf_objective(*args), naive.leaf_objective(*args), rtol=rtol)
        np.testing.assert_allclose(
            kern.vector_criterion(p, q, loss_id, 0.7, 1e-10, lam, l2),
            naive.vector_criterion(p, q, loss_id, 0.7, 1e-10, lam, l2),
            rtol=rtol,
        )


def test_exp_l2_step_is_the_regularised_minimum():
    rng = np.random.default_rng(12)
    for p, q in [*rng.exponential(size=(40, 2)), (1e-12, 1.0), (1.0, 1e-12), (0.3, 0.3), (1e-9, 1e-9)]:
        for l2 in (1e-6, 0.01, 1.0, 1e3):
            v = kern.exp_l2_step(p, q, l2)
            np.testing.assert_allclose(v, naive.exp_l2_step(p, q, l2), rtol=1e-10, atol=1e-13)
            assert abs(v) <= abs(0.5 * np.log(q / p)) + 1e-15  # shrinks the unregularised step
            assert kern.exp_l2_step(p, q, 2 * l2) * v >= 0 and abs(kern.exp_l2_step(p, q, 2 * l2)) <= abs(v)


@pytest.mark.parametrize("loss_id", LOSSES)
@pytest.mark.parametrize("shape", SHAPES)
def test_node_histograms_sort_and_vector_scan(shape, loss_id):
    _X, thr, usable, bins, wp, wm, cp, cm, H, rng = _logistic_problem(shape, seed=3)
    N, K = wp.shape
    P, Q, eps, lam = _stats(loss_id, wp, wm, cp, cm, H)
    node = rng.integers(3, 7, size=N).astype(np.int64)
    order, starts = np.empty(N, np.int64), np.empty(5, np.int64)
    kern.sort_by_node(node, 3, 4, order, starts)
    norder, nstarts = naive.sort_by_node(node, 3, 4)
    np.testing.assert_array_equal(order, norder)
    np.testing.assert_array_equal(starts, nstarts)
    n_bins = thr.shape[1] + 1
    hp, hq = np.empty((bins.shape[0], n_bins, K)), np.empty((bins.shape[0], n_bins, K))
    rows = order[starts[1] : starts[2]]
    kern.node_histograms(bins, P, Q, order, starts[1], starts[2], hp, hq)
    nhp, nhq = naive.node_histograms(bins, P, Q, rows)
    np.testing.assert_allclose(hp, nhp[:, :n_bins], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hq, nhq[:, :n_bins], rtol=1e-12, atol=1e-15)
    members = node == 4
    counts = np.empty((bins.shape[0], n_bins), np.int64)
    kern.node_counts(bins, order, starts[1], starts[2], counts)
    np.testing.assert_array_equal(counts, naive.node_counts(bins, rows)[:, :n_bins])
    for lr, l2, msl in ((1.0, 0.0, 1), (0.5, 0.0, 1), (1.0, 0.4, 1), (0.5, 0.0, 9), (1.0, 2.0, 9)):
        l2 = (
            l2 / N if loss_id == kern.LOSS_EXP else l2
        )  # the exp weights total 1: l2 on the scale of one row's
        _assert_scan_as_naive(
            bins, thr, usable, P, Q, members, (hp, hq, counts), loss_id, (lr, eps, lam, l2, msl)
        )


def _assert_scan_as_naive(bins, thr, usable, P, Q, members, hists, loss_id, options) -> None:
    """``vector_scan`` over the node ``members`` (its histograms ``hists``: hp, hq, counts) finds the naive scan's
    split over every threshold, with its criterion to a relative 1e-9."""
    hp, hq, counts = hists
    lr, eps, lam, l2, msl = options
    got = kern.vector_scan(
        hp, hq, P[members].sum(0), Q[members].sum(0), usable, loss_id, lr, eps, lam, l2, counts,
        members.sum(), msl, np.inf,
    )  # fmt: skip
    want = naive.vector_scan(
        bins, P, Q, members, usable, thr.shape[1], loss_id, lr, eps, lam, np.inf, l2, msl
    )
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-9)


@pytest.mark.parametrize("msl", [1, 4])
@pytest.mark.parametrize("loss_id", LOSSES)
def test_vector_scan_skips_only_bins_that_add_nothing(loss_id, msl):
    """50 classes, a node whose rows fill few of 255 bins, and rows whose statistics are all 0 (they count for
    min_samples_leaf but add nothing to the sums): the scan, which skips the thresholds whose bin below adds
    nothing, finds the naive scan's split over every threshold."""
    rng = np.random.default_rng(21)
    N, K = 160, 50
    X = np.column_stack([rng.integers(0, 12, N) * 0.5, rng.normal(size=N)])  # feature 0 takes 12 values
    thr, usable = fit_thresholds(X, 255, "uniform")
    bins = bin_data(X, thr)
    wp, wm = rng.exponential(size=(N, K)), rng.exponential(size=(N, K)) * (rng.random((N, K)) < 0.1)
    cp, cm = rng.exponential(size=(N, K)), rng.exponential(size=(N, K)) * (rng.random((N, K)) < 0.1)
    H = rng.normal(size=(N, K))
    zero = rng.random(N) < 0.15
    for a in (wp, wm, cp, cm):
        a[zero] = 0.0
    P, Q, eps, lam = _stats(loss_id, wp / (wp.sum() + wm.sum()), wm / (wp.sum() + wm.sum()), cp, cm, H)
    assert np.all(P[zero] == 0.0) and np.all(Q[zero] == 0.0)
    members = rng.random(N) < 0.7
    order = np.concatenate([np.flatnonzero(members), np.flatnonzero(~members)])
    n_bins = thr.shape[1] + 1
    hp, hq = np.empty((2, n_bins, K)), np.empty((2, n_bins, K))
    counts = np.empty((2, n_bins), np.int64)
    kern.node_histograms(bins, P, Q, order, 0, members.sum(), hp, hq)
    kern.node_counts(bins, order, 0, members.sum(), counts)
    assert (counts > 0).sum() < n_bins  # most bins hold no row of the node
    for lr, l2 in ((1.0, 0.0), (0.3, 0.0), (0.5, 0.2)):
        l2 = l2 / N if loss_id == kern.LOSS_EXP else l2
        _assert_scan_as_naive(
            bins, thr, usable, P, Q, members, (hp, hq, counts), loss_id, (lr, eps, lam, l2, msl)
        )


@pytest.mark.parametrize("loss_id", LOSSES)
def test_vector_scan_tries_a_split_that_rows_without_weight_make_a_candidate(loss_id):
    """min_samples_leaf 4: three rows of class 0, then a row whose statistics are all 0, then six rows of other
    classes. Splitting off the three rows is the best split but leaves 3 rows; the threshold past the row
    without weight has the same sums and is a candidate, so it is the answer (a bin that adds nothing to the
    sums may still add rows)."""
    x = np.arange(10.0)[:, None]
    thr, usable = fit_thresholds(x, 255, "uniform")
    bins = bin_data(x, thr)
    y = np.array([0, 0, 0, -1, 1, 2, 1, 2, 1, 2])
    cp = np.where(y[:, None] == np.arange(3), 0.0, 1.0) * (y[:, None] >= 0)
    cm = np.where(y[:, None] == np.arange(3), 1.0, 0.0)
    P, Q, eps, lam = _stats(loss_id, cp / 20, cm / 20, cp, cm, np.zeros((10, 3)))
    hp, hq = np.empty((1, 256, 3)), np.empty((1, 256, 3))
    counts = np.empty((1, 256), np.int64)
    order = np.arange(10)
    kern.node_histograms(bins, P, Q, order, 0, 10, hp, hq)
    kern.node_counts(bins, order, 0, 10, counts)
    got = kern.vector_scan(
        hp, hq, P.sum(0), Q.sum(0), usable, loss_id, 1.0, eps, lam, 0.0, counts, 10, 4, np.inf
    )
    want = naive.vector_scan(
        bins, P, Q, np.ones(10, bool), usable, 255, loss_id, 1.0, eps, lam, np.inf, 0.0, 4
    )
    assert got[:2] == want[:2] == (0, bins[0, 3] + 1)


REGULARISATION = [(0.0, 1), (0.3, 1), (0.0, 8), (2.0, 8)]  # (l2 in the statistics' units, min_samples_leaf)


@pytest.mark.parametrize("reg", REGULARISATION, ids=lambda r: f"l2={r[0]:g},msl={r[1]}")
@pytest.mark.parametrize("loss_id", LOSSES)
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("shape", SHAPES[:4])
def test_grow_vector_tree_equals_the_naive_tree(shape, depth, loss_id, reg):
    _X, thr, usable, bins, wp, wm, cp, cm, H, _rng = _logistic_problem(shape, seed=10 + depth)
    N, K = wp.shape
    P, Q, eps, lam = _stats(loss_id, wp, wm, cp, cm, H)
    l2, msl = reg
    l2 = l2 / N if loss_id == kern.LOSS_EXP else l2  # the exp weights total 1: l2 on the scale of one row's
    vw = variant_work(N, bins.shape[0], K, thr.shape[1] + 1, depth, msl)
    feats, thr_idx = np.empty(2**depth - 1, np.int32), np.empty(2**depth - 1, np.int32)
    lr = 0.8
    kern.grow_vector_tree(
        bins, usable, depth, P, Q, H, cp, cm, loss_id, lr, eps, lam, l2, msl, vw, feats, thr_idx
    )
    nf, nt, nvalues, nleaf, nlayers = naive.grow_vector_tree(
        bins, usable, depth, P, Q, H, cp, cm, loss_id, lr, eps, lam, thr.shape[1], l2, msl
    )
    np.testing.assert_array_equal(feats, nf)
    np.testing.assert_array_equal(thr_idx, nt)
    np.testing.assert_array_equal(vw.node, nleaf)
    np.testing.assert_allclose(vw.values, nvalues, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(vw.layer_loss, nlayers, rtol=1e-9)
    assert np.all(np.diff(vw.layer_loss) <= 1e-12 * np.abs(vw.layer_loss[:-1]))


@pytest.mark.parametrize("reweight", [True, False])
def test_apply_leaf_values(reweight):
    _X, _thr, _usable, _bins, wp, wm, cp, _cm, H, rng = _logistic_problem(SHAPES[2], seed=4)
    node = rng.integers(0, 4, size=H.shape[0])
    values = rng.normal(size=(4, H.shape[1]))
    H2, wp2, wm2 = H.copy(), wp.copy(), wm.copy()
    risk = kern.apply_leaf_values(H2, wp2, wm2, node, values, 0.7, reweight, cp)
    nH, nwp, nwm, nrisk = naive.apply_leaf_values(H, wp, wm, node, values, 0.7, reweight, cp)
    np.testing.assert_allclose(H2, nH, rtol=1e-14)
    np.testing.assert_allclose(wp2, nwp, rtol=1e-12)
    np.testing.assert_allclose(wm2, nwm, rtol=1e-12)
    np.testing.assert_allclose(risk, nrisk, rtol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
def test_newton_root_scan_a_and_leaf_costs(shape):
    _X, thr, usable, bins, wp, wm, cp, cm, H, rng = _logistic_problem(shape, seed=5)
    N, K = H.shape
    g, h, _eps, lam = _stats(kern.LOSS_LOGISTIC, wp, wm, cp, cm, H)
    hist = np.empty((bins.shape[0], thr.shape[1] + 1, K))
    kern.root_histograms_serial(bins, g, hist)
    counts = np.stack([np.bincount(b, minlength=thr.shape[1] + 1) for b in bins]).astype(float)
    for extra, msl in ((0.0, 1), (1.5, 1), (0.0, N // 3), (1.5, N // 3)):
        j, i, gain = kern.newton_root_scan(hist, g.sum(0), h.sum(0), lam + extra, usable, counts, msl)
        nj, ni, ngain = naive.newton_root_scan(bins, g, h, lam + extra, usable, thr.shape[1], msl)
        assert (j, i) == (nj, ni)
        np.testing.assert_allclose(gain, ngain, rtol=1e-9)
    f = rng.choice(np.array([-1, 1], np.int8), size=N)
    a = np.empty(K)
    kern.newton_a(g, h, f, lam, a)
    np.testing.assert_allclose(a, naive.newton_a(g, h, f, lam), rtol=1e-10, atol=1e-14)
    leaf = rng.integers(0, 4, size=N).astype(np.int32)
    e, U, V = np.empty(N), np.empty(4), np.empty(4)
    kern.newton_leaf_costs(g, h, leaf, a, e, U, V)
    ne, nU, nV, _u, _v = naive.newton_leaf_costs(g, h, leaf, a, 4)
    np.testing.assert_allclose(e, ne, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(U, nU, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(V, nV, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("reg", REGULARISATION, ids=lambda r: f"l2={r[0]:g},msl={r[1]}")
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("shape", SHAPES[:4])
def test_grow_newton_tree_equals_the_naive_tree(shape, depth, reg):
    _X, thr, usable, bins, wp, wm, cp, cm, H, _rng = _logistic_problem(shape, seed=20 + depth)
    N, K = H.shape
    g, h, _eps, lam = _stats(kern.LOSS_LOGISTIC, wp, wm, cp, cm, H)
    lam = lam + reg[0]  # l2 joins the ridge (rebel.variants)
    msl = reg[1]
    n_bins = thr.shape[1] + 1
    work = round_work(N, bins.shape[0], K, n_bins, depth)
    vw = variant_work(N, bins.shape[0], K, n_bins, depth, msl)
    vw.g[:], vw.h[:] = g, h
    counts = np.stack([np.bincount(b, minlength=n_bins) for b in bins]).astype(float)
    feats, thr_idx = np.empty(2**depth - 1, np.int32), np.empty(2**depth - 1, np.int32)
    signs, a = np.empty(2**depth, np.int8), np.empty(K)
    kern.grow_newton_tree(
        bins, usable, depth, H, cp, cm, 0.9, lam, msl, counts, work, vw, feats, thr_idx, signs, a
    )
    nf, nt, ns, na, nfx, nlayers = naive.grow_newton_tree(
        bins, usable, depth, H, cp, cm, 0.9, lam, thr.shape[1], msl
    )
    np.testing.assert_array_equal(feats, nf)
    np.testing.assert_array_equal(thr_idx, nt)
    np.testing.assert_array_equal(signs, ns)
    np.testing.assert_array_equal(work.f, nfx)
    np.testing.assert_allclose(a, na, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(vw.layer_loss, nlayers, rtol=1e-10)
    assert np.all(np.diff(vw.layer_loss) <= 0)


@pytest.mark.parametrize("msl", [1, 2, 15])
@pytest.mark.parametrize("shape", SHAPES[1:4])
def test_leaf_scan_min_rows(shape, msl):
    _X, thr, usable, bins, wp, wm, cp, cm, H, rng = _logistic_problem(shape, seed=7)
    N, K = H.shape
    g, h, _eps, _lam = _stats(kern.LOSS_LOGISTIC, wp, wm, cp, cm, H)
    leaf = rng.integers(0, 4, size=N).astype(np.int32)
    a = rng.normal(scale=0.3, size=K)
    e, U, V = np.empty(N), np.empty(4), np.empty(4)
    kern.newton_leaf_costs(g, h, leaf, a, e, U, V)
    _e, _U, _V, u, v = naive.newton_leaf_costs(g, h, leaf, a, 4)
    n_bins = thr.shape[1] + 1
    hist, counts = np.empty((4, bins.shape[0], n_bins)), np.empty((4, bins.shape[0], n_bins))
    kern.leaf_histograms_serial(bins, leaf, e, hist)
    kern.leaf_histograms_serial(bins, leaf, np.ones(N), counts)
    base = np.array([1, -1, 1, -1], np.int8)
    out = np.full(4, -1, np.int32), np.zeros(4, np.int32), np.zeros(4, np.int8)
    kern.leaf_scan_min_rows(hist, counts, U, V, base, usable, msl, *out)
    want = naive.leaf_scan_min_rows(bins, leaf, u, v, base, usable, thr.shape[1], msl)
    assert [(int(out[0][lf]), int(out[1][lf]), int(out[2][lf])) for lf in range(4)] == [c[:3] for c in want]


@pytest.mark.parametrize("depth", [1, 3])
def test_predict_leaf_values(depth):
    X, thr, _usable, _bins, wp, _wm, rng = _problem(*SHAPES[2], seed=6)
    d, T = thr.shape
    n_rounds, K, N = 5, wp.shape[1], X.shape[0]
    features = rng.integers(0, d, size=(n_rounds, 2**depth - 1)).astype(np.int32)
    thresholds = thr[features, rng.integers(0, T, size=features.shape)]
    leaf_values = rng.normal(size=(n_rounds, 2**depth, K))
    a0 = rng.normal(size=K)
    n_scores, n_staged = naive.predict_leaf_values(X, a0, features, thresholds, leaf_values, depth)
    for kernel in (kern.predict_leaf_values, kern.predict_leaf_values_serial):
        scores, staged = np.empty((N, K)), np.empty((n_rounds + 1, N), np.int16)
        kernel(X, a0, features, thresholds, leaf_values, depth, scores, staged)
        np.testing.assert_allclose(scores, n_scores, rtol=1e-12)
        np.testing.assert_array_equal(staged, n_staged)


def test_set_layer():
    rng = np.random.default_rng(7)
    for n in (1, 2, 4):
        depth = int(np.log2(n)) + 1
        feats = rng.integers(0, 5, size=2 ** (depth + 1) - 1).astype(np.int32)
        thr = rng.integers(1, 9, size=feats.shape).astype(np.int32)
        signs = rng.choice(np.array([-1, 1], np.int8), size=2 ** (depth + 1))
        old = signs[:n].copy()
        bf = rng.choice([-1, 0, 3], size=n).astype(np.int32)
        bt = rng.integers(1, 9, size=n).astype(np.int32)
        bp = rng.choice(np.array([-1, 1], np.int8), size=n)
        want = naive.set_layer(feats, thr, signs, old, bf, bt, bp)
        kern.set_layer(feats, thr, signs, old, bf, bt, bp)
        for got, exp in zip((feats, thr, signs), want, strict=True):
            np.testing.assert_array_equal(got, exp)
