"""Every compiled kernel against its naive twin in tests/naive.py, on random inputs of several shapes."""

import numpy as np
import pytest

from rebel import kernels as kern
from rebel.binning import bin_data, fit_thresholds
from rebel.booster import BoostInputs, boost, training_loss
from rebel.costs import decompose
from rebel.grower import round_work

from . import naive

SHAPES = [(37, 1, 2, 3), (300, 3, 3, 7), (200, 4, 5, 12), (90, 6, 10, 30), (64, 2, 7, 255)]  # N, d, K, T


def _problem(N, d, K, T, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, d))
    X[:, 0] = np.round(X[:, 0], 1)  # repeated values: several samples per bin
    if d > 2:
        X[:, 2] = 3.0  # a constant feature
    thresholds, usable = fit_thresholds(X, T, "uniform")
    bins = bin_data(X, thresholds)
    wp = rng.exponential(size=(N, K)) * (rng.random((N, K)) < 0.8)
    wm = rng.exponential(size=(N, K)) * (rng.random((N, K)) < 0.5)
    total = wp.sum() + wm.sum()
    return X, thresholds, usable, bins, wp / total, wm / total, rng


@pytest.mark.parametrize("kernel", [kern.bin_features, kern.bin_features_serial])
@pytest.mark.parametrize("binning", ["uniform", "quantile"])
def test_binning_kernel_equals_searchsorted(kernel, binning):
    rng = np.random.default_rng(8)
    X = np.column_stack(
        [rng.normal(size=500), np.round(rng.normal(size=500), 1), np.full(500, 2.0), rng.integers(0, 3, 500)]
    )
    thresholds, _ = fit_thresholds(X, 40, binning)
    X_new = np.vstack(
        [X, thresholds.T, thresholds.T + 1e-12, [[-np.inf] * 4], [[np.inf] * 4]]
    )  # edges included
    bins = np.empty((4, X_new.shape[0]), np.uint8)
    kernel(X_new, thresholds, bins)
    for j in range(4):
        np.testing.assert_array_equal(bins[j], np.searchsorted(thresholds[j], X_new[:, j], side="left"))
    np.testing.assert_array_equal(bins, naive.bin_features(X_new, thresholds))


@pytest.mark.parametrize(
    "kernel", [kern.root_histograms, kern.root_histograms_serial, kern.root_histograms_plain]
)
@pytest.mark.parametrize("shape", SHAPES)
def test_root_histograms(shape, kernel):
    _X, thr, _usable, bins, wp, wm, _ = _problem(*shape, seed=1)
    hist = np.empty((bins.shape[0], thr.shape[1] + 1, wp.shape[1]))
    kernel(bins, wp - wm, hist)
    np.testing.assert_allclose(
        hist, naive.root_histograms(bins, wp - wm)[:, : thr.shape[1] + 1], rtol=1e-12, atol=1e-15
    )


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_root_scan_finds_the_naive_best_stump(shape, seed):
    _X, thr, usable, bins, wp, wm, _ = _problem(*shape, seed=seed)
    T = thr.shape[1]
    dw, dw_total, w_total = wp - wm, (wp - wm).sum(0), (wp + wm).sum(0)
    hist = np.empty((bins.shape[0], T + 1, wp.shape[1]))
    kern.root_histograms(bins, dw, hist)
    j, i, obj = kern.root_scan(hist, dw_total, w_total, usable)
    nj, ni, nobj = naive.root_scan(bins, wp, wm, usable, T)
    assert (j, i) == (nj, ni)
    np.testing.assert_allclose(obj, nobj, rtol=1e-9)


def test_root_scan_skips_constant_features_and_reports_none():
    np.zeros((2, 10), dtype=np.uint8)
    hist = np.zeros((2, 5, 3))
    j, _i, _obj = kern.root_scan(hist, np.zeros(3), np.ones(3), np.array([False, False]))
    assert j == -1


@pytest.mark.parametrize("shape", SHAPES[:4])
def test_stump_evaluation_binned(shape):
    _X, thr, _usable, bins, _wp, _wm, rng = _problem(*shape, seed=5)
    d, T = thr.shape
    N = bins.shape[1]
    for _ in range(4):
        features = rng.integers(0, d, size=1).astype(np.int32)
        thr_idx = rng.integers(1, T + 1, size=1).astype(np.int32)
        leaf_signs = rng.choice(np.array([-1, 1], np.int8), size=2)
        f, leaf = np.zeros(N, np.int8), np.full(N, -1, np.int32)
        kern.eval_stump_binned(bins, features, thr_idx, leaf_signs, f, leaf)
        nf, nleaf = naive.eval_stump_binned(bins, features, thr_idx, leaf_signs)
        np.testing.assert_array_equal(f, nf)
        np.testing.assert_array_equal(leaf, nleaf)
        np.testing.assert_array_equal(f, naive.eval_tree_binned(bins, features, thr_idx, leaf_signs, 1)[0])


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("shape", SHAPES[:4])
def test_tree_evaluation_binned_and_raw(depth, shape):
    X, thr, _usable, bins, wp, _wm, rng = _problem(*shape, seed=3)
    d, T = thr.shape
    n_rounds = 4
    features = rng.integers(0, d, size=(n_rounds, 2**depth - 1)).astype(np.int32)
    thr_idx = rng.integers(1, T + 1, size=(n_rounds, 2**depth - 1)).astype(np.int32)
    leaf_signs = rng.choice(np.array([-1, 1], np.int8), size=(n_rounds, 2**depth))
    thresholds = thr[features, thr_idx - 1]
    A = rng.normal(size=(n_rounds, wp.shape[1]))
    a0 = rng.normal(size=wp.shape[1])
    N = X.shape[0]
    f, leaf = np.empty(N, np.int8), np.empty(N, np.int32)
    for t in range(n_rounds):
        kern.eval_tree_binned(bins, features[t], thr_idx[t], leaf_signs[t], depth, f, leaf)
        nf, nleaf = naive.eval_tree_binned(bins, features[t], thr_idx[t], leaf_signs[t], depth)
        np.testing.assert_array_equal(f, nf)
        np.testing.assert_array_equal(leaf, nleaf)
        # The binned and the raw evaluation agree: x > tau_i exactly when bins >= i.
        raw = [naive.tree_output(x, features[t], thresholds[t], leaf_signs[t], depth) for x in X]
        np.testing.assert_array_equal(f, raw)
    naive_out = naive.tree_outputs(X, features, thresholds, leaf_signs, depth)
    naive_scores, naive_staged = naive.predict_blocks(X, a0, features, thresholds, leaf_signs, A, depth)
    naive_leaves = naive.tree_leaves(X, features, thresholds, depth)
    no_scores, no_staged = np.empty((0, 0)), np.empty((0, 0), np.int16)
    for suffix in ("", "_serial"):
        predict_blocks = getattr(kern, "predict_blocks" + suffix)
        scores = np.empty((N, wp.shape[1]))
        predict_blocks(X, a0, features, thresholds, leaf_signs, A, depth, scores, no_staged)
        np.testing.assert_allclose(scores, naive_scores, rtol=1e-12)
        staged = np.empty((n_rounds + 1, N), np.int16)
        predict_blocks(X, a0, features, thresholds, leaf_signs, A, depth, no_scores, staged)
        np.testing.assert_array_equal(staged, naive_staged)
        both_scores, both_staged = np.empty_like(scores), np.empty_like(staged)
        predict_blocks(X, a0, features, thresholds, leaf_signs, A, depth, both_scores, both_staged)
        np.testing.assert_array_equal(both_scores, scores)
        np.testing.assert_array_equal(both_staged, staged)
        out = np.empty((N, n_rounds), np.int8)
        getattr(kern, "tree_outputs" + suffix)(X, features, thresholds, leaf_signs, depth, out)
        np.testing.assert_array_equal(out, naive_out)
        leaves = np.empty((N, n_rounds), np.int32)
        getattr(kern, "tree_leaves" + suffix)(X, features, thresholds, depth, leaves)
        np.testing.assert_array_equal(leaves, naive_leaves)


@pytest.mark.parametrize("shape", SHAPES)
def test_split_sums_and_a_star(shape):
    X, _thr, _usable, _bins, wp, wm, rng = _problem(*shape, seed=4)
    f = rng.choice(np.array([-1, 1], np.int8), size=X.shape[0])
    sp, sm = np.empty(wp.shape[1]), np.empty(wp.shape[1])
    kern.split_sums(wp, wm, f, sp, sm)
    nsp, nsm = naive.split_sums(wp, wm, f)
    np.testing.assert_allclose(sp, nsp, rtol=1e-12)
    np.testing.assert_allclose(sm, nsm, rtol=1e-12)
    a = np.empty_like(sp)
    kern.a_star(sp, sm, a)
    np.testing.assert_allclose(a, naive.a_star(nsp, nsm), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n_leaves", [2, 4, 8])
@pytest.mark.parametrize("shape", SHAPES[:4])
def test_leaf_costs_histograms_and_scan(n_leaves, shape):
    _X, thr, usable, bins, wp, wm, rng = _problem(*shape, seed=5)
    N, K = wp.shape
    T = thr.shape[1]
    leaf = rng.integers(0, n_leaves, size=N).astype(np.int32)
    a = rng.normal(size=K)
    e, U, V = np.empty(N), np.empty(n_leaves), np.empty(n_leaves)
    kern.leaf_costs(wp, wm, leaf, a, e, U, V)
    ne, nU, nV, u, v = naive.leaf_costs(wp, wm, leaf, a, n_leaves)
    np.testing.assert_allclose(e, ne, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(U, nU, rtol=1e-12)
    np.testing.assert_allclose(V, nV, rtol=1e-12)
    hist = np.empty((n_leaves, bins.shape[0], T + 1))
    naive_hist = naive.leaf_histograms(bins, leaf, e, n_leaves)[:, :, : T + 1]
    kern.leaf_histograms_serial(bins, leaf, e, hist)
    np.testing.assert_allclose(hist, naive_hist, rtol=1e-10, atol=1e-15)
    kern.leaf_histograms(bins, leaf, e, hist)
    np.testing.assert_allclose(hist, naive_hist, rtol=1e-10, atol=1e-15)
    base = rng.choice(np.array([-1, 1], np.int8), size=n_leaves)
    bf, bt, bp = np.empty(n_leaves, np.int32), np.empty(n_leaves, np.int32), np.empty(n_leaves, np.int8)
    kern.leaf_scan(hist, U, V, base, usable, bf, bt, bp)
    for lf, (j, i, rho, _) in enumerate(naive.leaf_scan(bins, leaf, u, v, base, usable, T)):
        assert (bf[lf], bt[lf], bp[lf]) == (j, i, rho), f"leaf {lf}"


@pytest.mark.parametrize("shape", SHAPES)
def test_apply_round(shape):
    _X, _thr, _usable, _bins, wp, wm, rng = _problem(*shape, seed=6)
    N, K = wp.shape
    H = rng.normal(size=(N, K))
    H[0, 1] = H[0, 0] = 5.0  # a tie: argmax takes the lower class
    f = rng.choice(np.array([-1, 1], np.int8), size=N)
    a = rng.normal(size=K)
    cost_rows = rng.exponential(size=(N, K))
    nwp, nwm, nH, ntotal, nrisk = naive.apply_round(wp, wm, H, f, a, cost_rows)
    sp, sm = naive.split_sums(wp, wm, f)
    total = kern.round_total(sp, sm, a)
    np.testing.assert_allclose(total, ntotal, rtol=1e-12)  # the closed form equals the summed total
    np.testing.assert_allclose(total, naive.round_total(sp, sm, a), rtol=1e-14)
    drivers = (
        (kern.apply_round, 3),
        (kern.apply_round, 1),
        (kern.apply_round_serial, 1),
        (kern.apply_round_single, 1),
    )
    for kernel, n_chunks in drivers:
        wp2, wm2, H2 = wp.copy(), wm.copy(), H.copy()
        dw, w_total, dw_total = np.empty((N, K)), np.empty(K), np.empty(K)
        risk = kernel(wp2, wm2, H2, f, a, 1.0 / total, cost_rows, dw, w_total, dw_total, n_chunks)
        np.testing.assert_allclose(risk, nrisk, rtol=1e-12)
        np.testing.assert_allclose(wp2, nwp, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(wm2, nwm, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(H2, nH, rtol=1e-14)
        np.testing.assert_allclose(dw, nwp - nwm, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(w_total, (nwp + nwm).sum(0), rtol=1e-12)
        np.testing.assert_allclose(dw_total, (nwp - nwm).sum(0), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize(
    "N,d,K,T,cost_kind", [(60, 2, 3, 9, "01"), (80, 3, 4, 15, "matrix"), (50, 4, 3, 6, "sample")]
)
def test_whole_fit_equals_naive_fit(depth, N, d, K, T, cost_kind):
    rng = np.random.default_rng(depth * 100 + N)
    X = rng.normal(size=(N, d))
    y = rng.integers(0, K, size=N)
    X[:, 0] += y  # some signal
    if cost_kind == "01":
        cost_rows = (1.0 - np.eye(K))[y]
    elif cost_kind == "matrix":
        C = rng.exponential(size=(K, K))
        np.fill_diagonal(C, 0)
        cost_rows = C[y]
    else:
        cost_rows = rng.exponential(size=(N, K))
    thresholds, usable = fit_thresholds(X, T, "uniform")
    bins = bin_data(X, thresholds)
    n_rounds = 6
    res = boost(BoostInputs(bins, usable, cost_rows, n_rounds, depth, n_bins=T + 1))
    a0, rounds, losses = naive.fit(bins, usable, cost_rows, n_rounds, depth, T)
    np.testing.assert_allclose(res.a0, a0, rtol=1e-10)
    for t, (feats, thr, signs, a) in enumerate(rounds):
        np.testing.assert_array_equal(res.features[t], feats, err_msg=f"round {t}")
        np.testing.assert_array_equal(res.thr_idx[t], thr, err_msg=f"round {t}")
        np.testing.assert_array_equal(res.leaf_signs[t], signs, err_msg=f"round {t}")
        np.testing.assert_allclose(res.A[t], a, rtol=1e-7, atol=1e-9, err_msg=f"round {t}")
    np.testing.assert_allclose(res.train_loss, losses, rtol=1e-9)
    dec = decompose(cost_rows)
    assert np.all(dec.cp >= 0) and np.all(dec.cm >= 0)


@pytest.mark.parametrize("shape", SHAPES)
def test_stump_criterion_and_the_root_scan_objective(shape):
    _X, thr, usable, bins, wp, wm, _ = _problem(*shape, seed=9)
    dw = wp - wm
    hist = np.empty((bins.shape[0], thr.shape[1] + 1, wp.shape[1]))
    kern.root_histograms_serial(bins, dw, hist)
    j, i, obj = kern.root_scan(hist, dw.sum(0), (wp + wm).sum(0), usable)
    f = np.where(bins[j] >= i, 1, -1).astype(np.int8)
    sp, sm = naive.split_sums(wp, wm, f)
    np.testing.assert_allclose(kern.stump_criterion(sp, sm), naive.stump_criterion(sp, sm), rtol=1e-14)
    np.testing.assert_allclose(obj, kern.stump_criterion(sp, sm), rtol=1e-10)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("shape", SHAPES[:4])
def test_grow_tree_equals_the_naive_tree(depth, shape):
    from rebel.kernels import TrainState

    _X, thr, usable, bins, wp, wm, rng = _problem(*shape, seed=10 + depth)
    N, K = wp.shape
    work = round_work(N, bins.shape[0], K, thr.shape[1] + 1, depth)
    work.dw[:] = wp - wm
    work.w_total[:] = (wp + wm).sum(0)
    work.dw_total[:] = (wp - wm).sum(0)
    state = TrainState(wp, wm, np.zeros((N, K)), rng.exponential(size=(N, K)))
    feats = np.empty(2**depth - 1, np.int32)
    thr_idx = np.empty(2**depth - 1, np.int32)
    signs = np.empty(2**depth, np.int8)
    a, layer_totals = np.empty(K), np.empty(depth)
    kern.grow_tree(bins, usable, depth, state, work, feats, thr_idx, signs, a, layer_totals)
    nfeats, nthr, nsigns, na, nf = naive.grow_tree(bins, wp, wm, usable, depth, thr.shape[1])
    np.testing.assert_array_equal(feats, nfeats)
    np.testing.assert_array_equal(thr_idx, nthr)
    np.testing.assert_array_equal(signs, nsigns)
    np.testing.assert_allclose(a, na, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(work.f, nf)
    np.testing.assert_allclose(
        layer_totals[-1], naive.round_total(*naive.split_sums(wp, wm, nf), na), rtol=1e-10
    )


def test_training_loss_is_the_naive_loss_and_the_fit_s_last_loss():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 2))
    cost_rows = rng.exponential(size=(120, 3))
    thresholds, usable = fit_thresholds(X, 20, "uniform")
    res = boost(BoostInputs(bin_data(X, thresholds), usable, cost_rows, 8, 2, n_bins=21))
    np.testing.assert_allclose(
        training_loss(res.H, cost_rows), naive.training_loss(res.H, cost_rows), rtol=1e-13
    )
    np.testing.assert_allclose(training_loss(res.H, cost_rows), res.train_loss[-1], rtol=1e-9)
