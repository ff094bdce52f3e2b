"""Per-round time of each fit kernel against its floor on this machine (the floor table of results/README.md).

Measures the machine first: memory bandwidth (numpy copy and a numba triad, on arrays of the kernels' own
size and on arrays far larger than any cache) and scatter-add rates (numba: ``h[b[n]] += v[n]`` and the K-row
form ``h[b[n], :] += W[n, :]`` with uniformly random bins, the access pattern of the histograms without the
real data's bin collisions), and the rate of a vectorised sqrt (the root scan's work).

Then times every kernel of one depth-2 round at the headline size (N=100k, d=50, K=10, 255 bins; weights as
at the start of training, the tree of a fitted first round) on 1 thread and on REBEL_BENCH_THREADS threads,
median of ``--repeat`` calls (process CPU time on 1 thread, wall time on more), next to its floor:
- bandwidth floor = bytes the kernel must move (inputs read once, outputs written once) / triad bandwidth;
- add floor = its scatter-adds / the random scatter-add rate; sqrt floor = its square roots / the sqrt rate.
Calls per round (depth 2): root histogram 1, root scan 1, eval_tree_binned 2, split_sums 2, leaf_costs 1,
leaf histograms 1, leaf scan 1, weight update 1; binning runs once per fit (shown per fit and per round).
Run: python -m benchmarks.bench_kernels [--quick] [--repeat 20] [--markdown] [--classes 10]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np
from numba import njit

from rebel import kernels as kern
from rebel import warmup
from rebel.binning import bin_data, fit_thresholds
from rebel.costs import decompose

from ._common import load_average, n_threads, print_table, rebel, thread_limit
from .bench_fit import make_data


def median_time(fn, repeat: int, clock=time.process_time) -> float:
    """Median seconds of ``repeat`` calls after one untimed call; process CPU time by default (robust on a
    shared machine when one thread runs), ``time.perf_counter`` for the multi-thread table."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


@njit(cache=True, nogil=True)
def _triad(a, b, c, s):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(cache=True, nogil=True)
def _scatter(idx, v, h):
    for n in range(idx.shape[0]):
        h[idx[n]] += v[n]


@njit(cache=True, nogil=True)
def _scatter_rows(idx, W, h):
    n_classes = W.shape[1]
    for n in range(idx.shape[0]):
        b = idx[n]
        for k in range(n_classes):
            h[b, k] += W[n, k]


@njit(cache=True, nogil=True)
def _sqrt_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.sqrt(max(x[i], 0.0))
    return s


def machine_floors(n_elems: int, repeat: int, k: int) -> dict:
    """Bandwidth (bytes/s) and rates (operations/s) of this machine, single thread."""
    rng = np.random.default_rng(0)
    out = {}
    for label, size in (("working set", n_elems), ("DRAM", 1 << 25)):
        a, b, c = (rng.random(size) for _ in range(3))
        copy = median_time(lambda a=a, b=b: np.copyto(a, b), repeat)
        triad = median_time(lambda a=a, b=b, c=c: _triad(a, b, c, 3.0), repeat)
        out[f"copy {label}"] = 16 * size / copy
        out[f"triad {label}"] = 24 * size / triad
    m = 1 << 22
    idx = rng.integers(0, 255, size=m).astype(np.uint8)
    v = rng.random(m)
    h = np.zeros(256)
    out["scatter"] = m / median_time(lambda: _scatter(idx, v, h), repeat)
    rows = m // k
    W = rng.random((rows, k))
    hk = np.zeros((256, k))
    out["scatter rows"] = rows * k / median_time(lambda: _scatter_rows(idx[:rows], W, hk), repeat)
    x = rng.random(1 << 17)
    out["sqrt"] = x.shape[0] / median_time(lambda: _sqrt_sum(x), repeat)
    return out


def _state(n: int, d: int, k: int, n_bins: int):
    """Binned headline data, initial weights (total 1) and the first fitted round's depth-2 tree."""
    X, y = make_data(n, d, k)
    model = rebel(1, 2, n_bins)().fit(X, y)
    thresholds, usable = fit_thresholds(X, n_bins - 1)
    bins = bin_data(X, thresholds)
    dec = decompose(model.cost_matrix_[np.searchsorted(model.classes_, y)])
    total = dec.cp.sum() + dec.cm.sum()
    wp = np.ascontiguousarray(dec.cp / total)
    wm = np.ascontiguousarray(dec.cm / total)
    tree = (model.tree_features_[0], model.tree_thr_idx_[0], model.tree_leaf_signs_[0])
    return X, thresholds, usable, bins, wp, wm, tree, model.a_[0]


def kernel_rows(n, d, k, n_bins, repeat, threads, clock):
    """(name, calls per round, seconds per call, bytes moved, scatter-adds, sqrts) of each kernel."""
    X, thresholds, usable, bins, wp, wm, (feat, thr, signs), a = _state(n, d, k, n_bins)
    dw = wp - wm
    w_total, dw_total = (wp + wm).sum(axis=0), dw.sum(axis=0)
    hist = np.empty((d, n_bins, k))
    f = np.empty(n, dtype=np.int8)
    leaf = np.empty(n, dtype=np.int32)
    e = np.empty(n)
    u_tot, v_tot, sp, sm = np.empty(2), np.empty(2), np.empty(k), np.empty(k)
    leaf_hist = np.empty((2, d, n_bins))
    H = np.zeros((n, k))
    cost_rows = np.ones((n, k))
    n_chunks = max(1, min(numba.get_num_threads() * 4, n // 1024))
    par = threads > 1
    root_h = kern.root_histograms if par else kern.root_histograms_serial
    leaf_h = kern.leaf_histograms if par else kern.leaf_histograms_serial
    apply = kern.apply_round if par else kern.apply_round_serial
    binner = kern.bin_features if par else kern.bin_features_serial
    bf, bt, bp = np.empty(2, np.int32), np.empty(2, np.int32), np.empty(2, np.int8)
    # The second layer's kernels see the first layer's leaves (0 or 1) and outputs.
    kern.eval_tree_binned(bins, feat[:1], thr[:1], np.array([-1, 1], np.int8), 1, f, leaf)
    f2, leaf2 = np.empty_like(f), np.empty_like(leaf)
    wp0, wm0 = wp.copy(), wm.copy()

    def apply_once():  # restore the weights so every call does the same work
        wp[:], wm[:] = wp0, wm0
        apply(wp, wm, H, f, a, 1.0, cost_rows, dw, w_total, dw_total, n_chunks)

    restore = median_time(
        lambda: (wp.__setitem__(slice(None), wp0), wm.__setitem__(slice(None), wm0)), repeat
    )
    nk8 = n * k * 8
    specs = [
        ("root histogram", 1, lambda: root_h(bins, dw, hist), d * n + nk8, d * n * k, 0),
        (
            "root scan",
            1,
            lambda: kern.root_scan(hist, dw_total, w_total, usable),
            d * n_bins * k * 8,
            0,
            d * (n_bins - 1) * k,
        ),
        (
            "eval_tree_binned",
            2,
            lambda: kern.eval_tree_binned(bins, feat, thr, signs, 2, f2, leaf2),
            2 * n + 5 * n,
            0,
            0,
        ),
        ("split_sums", 2, lambda: kern.split_sums(wp, wm, f, sp, sm), 2 * nk8 + n, 0, 0),
        ("leaf_costs", 1, lambda: kern.leaf_costs(wp, wm, leaf, a, e, u_tot, v_tot), 2 * nk8 + 12 * n, 0, 0),
        ("leaf histograms", 1, lambda: leaf_h(bins, leaf, e, leaf_hist), d * n + 12 * n, d * n, 0),
        (
            "leaf scan",
            1,
            lambda: kern.leaf_scan(leaf_hist, u_tot, v_tot, signs[:2], usable, bf, bt, bp),
            2 * d * n_bins * 8,
            0,
            0,
        ),
        ("weight update", 1, apply_once, 8 * nk8 + n, 0, 0),
        ("binning (per fit)", 0, lambda: binner(X, thresholds, bins), 8 * n * d + n * d, 0, 0),
    ]
    rows = []
    for name, calls, fn, nbytes, adds, sqrts in specs:
        t = median_time(fn, repeat, clock)
        if name == "weight update":
            t = max(t - restore, 0.0)
        rows.append((name, calls, t, nbytes, adds, sqrts))
    return rows


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="N=20k instead of 100k")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=100, help="rounds a fit amortises binning over")
    ap.add_argument("--markdown", action="store_true", help="print the tables as markdown")
    ap.add_argument(
        "--classes", type=int, default=10, help="K, the number of classes (2-50; the headline's 10)"
    )
    args = ap.parse_args(argv)
    if not 2 <= args.classes <= 50:
        ap.error(f"argument --classes: {args.classes} is outside 2-50; use e.g. --classes 2.")
    n, d, k, n_bins = (20_000 if args.quick else 100_000), 50, args.classes, 255
    warmup()
    X, y = make_data(n, d, k)
    with thread_limit(1):
        load = load_average()
        floors = machine_floors(n * k, args.repeat, k)
    bw = floors["triad working set"]
    print(f"machine (1 thread, {load}):")
    for key, val in floors.items():
        unit = "GB/s" if key.startswith(("copy", "triad")) else "G ops/s"
        print(f"  {key:22s} {val / 1e9:7.2f} {unit}")
    out = {"floors": floors}
    for threads in sorted({1, n_threads()}):
        with thread_limit(threads):
            load = load_average()
            clock = time.process_time if threads == 1 else time.perf_counter
            rows = kernel_rows(n, d, k, n_bins, args.repeat, threads, clock)
        table, total, floor_total = [], 0.0, 0.0
        for name, calls, t, nbytes, adds, sqrts in rows:
            per_round = t * calls if calls else t / args.rounds
            floor = (
                max(
                    nbytes / bw,
                    adds / floors["scatter rows" if name == "root histogram" else "scatter"] if adds else 0.0,
                    sqrts / floors["sqrt"],
                )
                / threads
            )
            floor_round = floor * calls if calls else floor / args.rounds
            total += per_round
            floor_total += floor_round
            table.append(
                (
                    name,
                    calls or f"1/{args.rounds}",
                    f"{t * 1e3:.3f}",
                    f"{per_round * 1e3:.3f}",
                    f"{floor_round * 1e3:.3f}",
                    f"{per_round / floor_round:.1f}" if floor_round else "-",
                )
            )
        table.append(
            ("sum", "", "", f"{total * 1e3:.3f}", f"{floor_total * 1e3:.3f}", f"{total / floor_total:.1f}")
        )
        with thread_limit(threads):
            fit_t = median_time(lambda: rebel(args.rounds, 2, n_bins)().fit(X, y), 3, clock)
        print(
            f"\nkernels per depth-2 round, N={n} d={d} K={k}, {n_bins} bins, {threads} thread(s), {load}; "
            f"whole fit / rounds = {fit_t / args.rounds * 1e3:.2f} ms; floors split ideally over the threads"
        )
        headers = ["kernel", "calls/round", "ms/call", "ms/round", "floor ms/round", "x floor"]
        if args.markdown:
            print("| " + " | ".join(headers) + " |\n|" + "---|" * len(headers))
            for r in table:
                print("| " + " | ".join(str(c) for c in r) + " |")
        else:
            print_table(table, headers)
        out[f"kernels_{threads}"] = table
    return out


if __name__ == "__main__":
    main()
