"""The blocked histogram and binning kernels add in the same order as the plain loops: bit-identical sums,
for every block remainder, class count, both drivers and non-contiguous inputs; the weight update gives the
same bits on its serial and parallel drivers."""

import numpy as np
import pytest
from numba import njit

from rebel import kernels as kern
from rebel.binning import binned_scores


def _sequential_root(bins, dw, n_bins):
    """The plain loop's order: per feature, samples n = 0..N-1 (np.add.at adds in index order)."""
    hist = np.zeros((bins.shape[0], n_bins, dw.shape[1]))
    for j in range(bins.shape[0]):
        np.add.at(hist[j], bins[j], dw)
    return hist


def _plain(bins, dw, hist, lanes=None):
    kern.root_histograms_plain(bins, dw, hist)  # the plain loops take no lane plan


@pytest.mark.parametrize("kernel", [kern.root_histograms, kern.root_histograms_serial, _plain])
@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 7, 9])
@pytest.mark.parametrize("K", [1, 2, 3, 5, 7, 10, 13, 16, 17])
def test_root_histograms_match_the_sequential_sum_bit_for_bit(kernel, d, K):
    """Without a lane plan (every pair of widths compiled, picked at run time), with this K's plan (a fit's),
    and with another K's plan (its passes do not fit: whole rows; one of the Ks above, so no plan compiles only
    for this check)."""
    rng = np.random.default_rng(d * 100 + K)
    N, n_bins = 700, 17
    bins = rng.integers(0, n_bins, size=(d, N)).astype(np.uint8)
    dw = rng.normal(size=(N, K)) * rng.exponential(size=(N, 1)) ** 3
    expected = _sequential_root(bins, dw, n_bins)
    for lanes in (None, kern.LanePlan(K), kern.LanePlan(3 if K == 2 else 2)):
        hist = np.full((d, n_bins, K), np.nan)
        kernel(bins, dw, hist, lanes)
        np.testing.assert_array_equal(hist, expected)
        wide = np.asfortranarray(dw)  # not row-contiguous: the plain path
        hist[:] = np.nan
        kernel(bins, wide, hist, lanes)
        np.testing.assert_array_equal(hist, expected)
    hist[:] = np.nan
    kernel(bins, dw, hist)  # the plan is optional
    np.testing.assert_array_equal(hist, expected)


@pytest.mark.parametrize("K", range(1, 20))
def test_lane_plan_widths_tile_the_classes(K):
    """The passes of K's plan cover lanes 0..K-1 once, widest first, two at most; none above the limit."""
    pairs = kern.plan_widths(K)
    if K > kern.LANE_PASS_MAX_CLASSES:
        assert pairs == ()
        return
    assert 1 <= len(pairs) <= 2
    assert sum(wa + wb for wa, wb in pairs) == K
    assert all(wa in (1, 2, 4, 8) and wb in (0, 1, 2, 4, 8) and wb <= wa for wa, wb in pairs)


@pytest.mark.parametrize("kernel", [kern.leaf_histograms, kern.leaf_histograms_serial])
@pytest.mark.parametrize("d", [1, 3, 4, 6, 9])
def test_leaf_histograms_match_the_sequential_sum_bit_for_bit(kernel, d):
    rng = np.random.default_rng(d)
    N, n_bins, n_leaves = 900, 11, 4
    bins = rng.integers(0, n_bins, size=(d, N)).astype(np.uint8)
    leaf = rng.integers(0, n_leaves, size=N).astype(np.int32)
    e = rng.normal(size=N) * rng.exponential(size=N) ** 3
    hist = np.full((n_leaves, d, n_bins), np.nan)
    kernel(bins, leaf, e, hist)
    expected = np.zeros_like(hist)
    for j in range(d):
        np.add.at(expected[:, j, :], (leaf, bins[j]), e)
    np.testing.assert_array_equal(hist, expected)


@pytest.mark.parametrize("kernel", [kern.bin_features, kern.bin_features_serial])
@pytest.mark.parametrize("n_thr", [1, 2, 3, 8, 200, 255])
def test_binning_blocks_equal_searchsorted(kernel, n_thr):
    rng = np.random.default_rng(n_thr)
    N = kern.BIN_BLOCK * 2 + 37  # a partial last block
    thresholds = np.sort(np.round(rng.normal(size=(3, n_thr)), 1), axis=1)  # repeated thresholds too
    X = np.round(rng.normal(size=(N, 3)), 1)
    X[:5] = thresholds[:, :1].T  # exactly on a threshold: stays left
    bins = np.empty((3, N), np.uint8)
    kernel(X, thresholds, bins)
    for j in range(3):
        np.testing.assert_array_equal(bins[j], np.searchsorted(thresholds[j], X[:, j], side="left"))


@pytest.mark.parametrize("K", [2, 4])  # K = 2 has a loop of its own (update._apply_round_pair)
@pytest.mark.parametrize("n_chunks", [1, 3, 8])
def test_weight_update_drivers_give_the_same_bits(n_chunks, K):
    rng = np.random.default_rng(n_chunks)
    N = 5000
    wp, wm = rng.exponential(size=(N, K)), rng.exponential(size=(N, K))
    H, cost_rows = rng.normal(size=(N, K)), rng.exponential(size=(N, K))
    f = rng.choice(np.array([-1, 1], np.int8), size=N)
    a = rng.normal(size=K)
    out = []
    # the one-pass update serves one chunk only (a fit of fewer than 2048 samples)
    kernels = (kern.apply_round, kern.apply_round_serial) + (
        (kern.apply_round_single,) if n_chunks == 1 else ()
    )
    for kernel in kernels:
        arrays = [wp.copy(), wm.copy(), H.copy()]
        dw, w_total, dw_total = np.empty((N, K)), np.empty(K), np.empty(K)
        risk = kernel(*arrays, f, a, 0.5, cost_rows, dw, w_total, dw_total, n_chunks)
        out.append((risk, *arrays, dw, w_total, dw_total))
    for other in out[1:]:
        for x, y in zip(out[0], other):
            np.testing.assert_array_equal(x, y)


def test_parallel_choice_follows_the_work_per_thread(monkeypatch):
    monkeypatch.setattr(kern.numba, "get_num_threads", lambda: 2)
    assert kern.train_in_parallel(20_000, 20, 2, 2)  # 6e5 adds a thread: parallel
    assert not kern.train_in_parallel(5_000, 20, 2, 2)  # 1.5e5: serial
    assert kern.train_in_parallel(100_000, 50, 10, 2)
    monkeypatch.setattr(kern.numba, "get_num_threads", lambda: 1)
    monkeypatch.setattr(kern.common, "_ONE_THREAD", {})
    assert not kern.train_in_parallel(100_000, 50, 10, 2)  # both drivers ready here: the serial one
    assert kern.pick(kern.apply_round, kern.apply_round_serial, 10**9) is kern.apply_round_serial
    assert kern.update_chunks(300) == 1 and kern.update_chunks(12_000) == 8 and kern.update_chunks(10**6) == 8


@njit(cache=True)
def _exps(a):
    """e^a and e^-a as the weight update computes them, element by element (numpy's own exp, or a vectorised
    one, can differ in the last bit)."""
    ea = np.empty(a.shape[0])
    ema = np.empty(a.shape[0])
    for k in range(a.shape[0]):
        ea[k] = np.exp(a[k])
        ema[k] = np.exp(-a[k])
    return ea, ema


@pytest.mark.parametrize("K", [2, 3, 5])
def test_the_weight_update_matches_the_plain_loop_bit_for_bit(K):
    """One chunk of the update against its definition written out sample by sample in Python (K = 2 runs a
    loop of its own: the same operations in the same order)."""
    rng = np.random.default_rng(K)
    N = 777
    wp, wm = rng.exponential(size=(N, K)), rng.exponential(size=(N, K))
    H, cost_rows = rng.normal(size=(N, K)), rng.exponential(size=(N, K))
    f = rng.choice(np.array([-1, 1], np.int8), size=N)
    a, scale = np.round(rng.normal(size=K) * 8) / 8, 0.75  # eighths: the sums below are exact
    H[::7, 0], H[::7, 1] = 0.5, 0.5 + a[0] - a[1]  # tied classes 0 and 1 after the round where f = +1
    ea, ema = _exps(a)
    ewp, ewm, eH, edw = wp.copy(), wm.copy(), H.copy(), np.empty((N, K))
    w_tot, dw_tot, risk = np.zeros(K), np.zeros(K), 0.0
    for n in range(N):
        pos = f[n] > 0
        for k in range(K):
            eH[n, k] += a[k] if pos else -a[k]
            p = ewp[n, k] * (ea[k] if pos else ema[k]) * scale
            m = ewm[n, k] * (ema[k] if pos else ea[k]) * scale
            ewp[n, k], ewm[n, k], edw[n, k] = p, m, p - m
            w_tot[k] += p + m
            dw_tot[k] += p - m
        risk += cost_rows[n, int(np.argmax(eH[n]))]  # the first of equal maxima
    assert (eH[:, 0] == eH[:, 1]).sum() > 20
    dw, w_total, dw_total = np.empty((N, K)), np.empty(K), np.empty(K)
    got = kern.apply_round_serial(wp, wm, H, f, a, scale, cost_rows, dw, w_total, dw_total, 1)
    assert got == risk / N
    for x, y in ((wp, ewp), (wm, ewm), (H, eH), (dw, edw), (w_total, w_tot), (dw_total, dw_tot)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("K", [1, 2, 3, 10, 17])
def test_split_sums_match_the_sequential_sum_bit_for_bit(K):
    rng = np.random.default_rng(K)
    N = 999
    wp, wm = rng.exponential(size=(N, K)) ** 3, rng.exponential(size=(N, K)) ** 3
    f = rng.choice(np.array([-1, 1], np.int8), size=N)
    exp_p, exp_m = np.zeros(K), np.zeros(K)
    for n in range(N):  # the plain loop's order
        exp_p += wp[n] if f[n] > 0 else wm[n]
        exp_m += wm[n] if f[n] > 0 else wp[n]
    for a, b in ((wp, wm), (np.asfortranarray(wp), np.asfortranarray(wm))):
        sp, sm = np.full(K, np.nan), np.full(K, np.nan)
        kern.split_sums(a, b, f, sp, sm)
        np.testing.assert_array_equal(sp, exp_p)
        np.testing.assert_array_equal(sm, exp_m)


@njit(cache=True)
def _leaf_costs_one_at_a_time(wp, wm, leaf, a, e_out, u_tot, v_tot):
    """The plain loop (compiled too, so that exp(a) is numba's in both)."""
    ea = np.exp(a)
    ema = np.exp(-a)
    u_tot[:] = 0.0
    v_tot[:] = 0.0
    for n in range(wp.shape[0]):
        u = 0.0
        v = 0.0
        for k in range(wp.shape[1]):
            u += wp[n, k] * ea[k] + wm[n, k] * ema[k]
            v += wp[n, k] * ema[k] + wm[n, k] * ea[k]
        e_out[n] = u - v
        u_tot[leaf[n]] += u
        v_tot[leaf[n]] += v


@pytest.mark.parametrize("N", [1, 2, 7, 600])
def test_leaf_costs_match_one_sample_at_a_time_bit_for_bit(N):
    rng = np.random.default_rng(N)
    K, n_leaves = 5, 3
    wp, wm = rng.exponential(size=(N, K)) ** 3, rng.exponential(size=(N, K)) ** 3
    leaf = rng.integers(0, n_leaves, size=N).astype(np.int32)
    a = rng.normal(size=K)
    got = np.empty(N), np.empty(n_leaves), np.empty(n_leaves)
    kern.leaf_costs(wp, wm, leaf, a, *got)
    expected = np.empty(N), np.empty(n_leaves), np.empty(n_leaves)
    _leaf_costs_one_at_a_time(wp, wm, leaf, a, *expected)
    for x, y in zip(got, expected):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("T", [0, 1, 40])
def test_binned_scores_have_the_prediction_kernel_s_bits(depth, K, T):
    """A small predict runs on bin codes of the model's own thresholds (repeated ones, rows exactly on one,
    +-inf) through the fit's kernels: the scores of ``predict_blocks`` bit for bit."""
    rng = np.random.default_rng(100 * depth + 10 * K + T)
    N, d, nodes = 300, 4, (1 << depth) - 1
    features = rng.integers(0, d, size=(T, nodes)).astype(np.int32)
    thresholds = np.round(rng.normal(size=(T, nodes)), 1)
    X = np.round(rng.normal(size=(N, d)), 1) * rng.exponential(size=(N, 1)) ** 2
    if T:
        X[:nodes, features[0]] = thresholds[0]  # exactly on a tested threshold: stays left
    X[-1, 0], X[-2, 1] = np.inf, -np.inf
    leaf_signs = rng.choice(np.array([-1, 1], np.int8), size=(T, 1 << depth))
    A, a0 = rng.normal(size=(T, K)) * 3.0, rng.normal(size=K)
    expected = np.empty((N, K))
    kern.predict_blocks_serial(
        X, a0, features, thresholds, leaf_signs, A, depth, expected, np.empty((0, 0), np.int16)
    )
    np.testing.assert_array_equal(binned_scores(X, a0, features, thresholds, leaf_signs, A, depth), expected)


def test_binned_scores_decline_more_thresholds_than_bin_codes():
    features = np.zeros((300, 1), np.int32)  # one feature, 300 distinct thresholds: no uint8 codes
    thresholds = np.arange(300.0).reshape(300, 1)
    signs = np.tile(np.array([-1, 1], np.int8), (300, 1))
    X = np.zeros((5, 2))
    assert binned_scores(X, np.zeros(2), features, thresholds, signs, np.ones((300, 2)), 1) is None


def test_one_thread_runs_the_parallel_driver_only_when_the_serial_one_would_compile(monkeypatch):
    """A joblib worker (one numba thread) whose parent cached the parallel drivers loads those instead of
    compiling the serial ones; otherwise one thread runs the serial driver."""
    monkeypatch.setattr(kern.numba, "get_num_threads", lambda: 1)
    for serial_ready, parallel_ready, runs_parallel in (
        (True, True, False),
        (True, False, False),
        (False, False, False),
        (False, True, True),
    ):
        monkeypatch.setattr(kern.common, "_ONE_THREAD", {})
        ready = {"serial": serial_ready, "parallel": parallel_ready}
        monkeypatch.setattr(
            kern.compiled,
            "kernel_is_ready",
            lambda kernel, n_classes=None, r=ready: r[
                "serial" if "serial" in kernel.py_func.__name__ else "parallel"
            ],
        )
        expected = kern.apply_round if runs_parallel else kern.apply_round_serial
        assert kern.pick(kern.apply_round, kern.apply_round_serial, 10) is expected
        assert kern.train_in_parallel(100, 2, 3, 1) is runs_parallel


def test_kernel_is_ready_sees_this_process_and_the_cache():

    X = np.random.default_rng(0).normal(size=(50, 3))
    thresholds = np.sort(np.random.default_rng(1).normal(size=(3, 7)), axis=1)
    kern.bin_features_serial(X, thresholds, np.empty((3, 50), dtype=np.uint8))
    assert kern.compiled.kernel_is_ready(kern.bin_features_serial)
