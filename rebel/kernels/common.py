"""What every stage shares: the numerical constants, the work rules (serial or parallel drivers) and the three
records the round loop passes around.

- ``TrainState`` (wp, wm, H, cost_rows: (N, K) float64), ``RoundWork`` (one round's work arrays, allocated once per
  fit by ``rebel.grower.round_work``), ``Forest`` (per-round outputs, T rows each).
- ``pick``, ``train_in_parallel``, ``update_chunks``: plain Python, run before any kernel; they read sizes,
  numba's thread count and (with one thread) which drivers are compiled, and write nothing.
"""

from __future__ import annotations

from contextlib import contextmanager
from types import FunctionType
from typing import NamedTuple

import numba
import numpy as np

from .. import _threading  # noqa: F401  (selects numba's threading layer before any parallel kernel runs)

# Relative size of the term added to every component of sp and sm before a* = (ln sm - ln sp) / 2, so that a
# class separated perfectly by a weak learner gets a large but finite a* (|a*| <= ~ln(1e9 K) / 2 ~ 11-13).
SMOOTHING = 1e-9


# A deeper-layer split must beat keeping the parent copy by more than this fraction of the leaf's weight;
# otherwise rounding in (V + R) versus U would replace a copy by a split that sends every sample one way.
LEAF_TOL = 1e-12


# Below this many (sample, feature) pairs, binning and prediction run on one thread: launching threads costs
# more than it saves.
PARALLEL_MIN_WORK = 200_000


# Training runs its parallel drivers only when each thread gets at least this many histogram adds a round,
# N d (K + D - 1) / threads (``train_in_parallel``): a round launches D + 1 parallel regions between serial
# passes, and below this the threads' start-up, the data moving between cores and the waits at each region's
# end cost more than the split saves. Measured on 2 threads (50 rounds, depth 2): parallel is 7-11% slower at
# 2e4-7.5e4 adds a thread, even at 1.5e5-2.2e5 (N=5k d=20 K=2; N=2k d=20 K=10), 10-23% faster at 1.5e5-6e5 with
# N >= 10k (N=20k, d=20, K=2: 6e5 adds a thread, 0.77 of the serial time).
PARALLEL_MIN_ADDS_PER_THREAD = 200_000


# Row chunks of the weight update: a fixed number, so its column totals, and every bit of a fit, do not depend
# on the thread count or on the serial/parallel choice.
UPDATE_CHUNKS = 8


class TrainState(NamedTuple):
    """What the round loop moves forward: the weights, the training scores and the cost rows they are built on."""

    wp: np.ndarray  # (N, K) c+ e^H, total 1 after every round
    wm: np.ndarray  # (N, K) c- e^-H
    H: np.ndarray  # (N, K) training scores
    cost_rows: np.ndarray  # (N, K) per-sample costs (for the training risk)


class RoundWork(NamedTuple):
    """Work arrays of one round, allocated once per fit (``rebel.grower.round_work``)."""

    dw: np.ndarray  # (N, K) wp - wm
    w_total: np.ndarray  # (K,) column totals of wp + wm
    dw_total: np.ndarray  # (K,) column totals of dw
    hist: np.ndarray  # (d, n_bins, K) root histograms of dw
    leaf_hist: np.ndarray  # (2^(D-1), d, n_bins) leaf histograms of u - v (empty for stumps)
    f: np.ndarray  # (N,) int8 the tree's outputs on the training samples
    leaf: np.ndarray  # (N,) int32 their leaf ids
    e: np.ndarray  # (N,) u - v (leaf criterion)
    u_tot: np.ndarray  # (2^(D-1),) per-leaf totals of u
    v_tot: np.ndarray  # (2^(D-1),) per-leaf totals of v
    sp: np.ndarray  # (K,) split sums
    sm: np.ndarray  # (K,)
    parallel: bool  # parallel histogram and update drivers
    n_chunks: int  # row chunks of the parallel update
    lanes: object  # LanePlan(K): the root histogram compiles only this K's lane passes


class Forest(NamedTuple):
    """Per-round outputs of the round loop (T rows each)."""

    features: np.ndarray  # (T, 2^D - 1) int32
    thr_idx: np.ndarray  # (T, 2^D - 1) int32
    leaf_signs: np.ndarray  # (T, 2^D) int8
    A: np.ndarray  # (T, K) output vectors
    layer_totals: np.ndarray  # (T, D) weight total after each layer, relative to 1 before the round
    round_totals: np.ndarray  # (T,) weight total after the round, relative to 1 before it
    risks: np.ndarray  # (T,) training risk after the round


def pick(parallel_kernel, serial_kernel, work):
    """The parallel or the serial driver of a kernel, by the amount of work; with one numba thread the serial
    one, unless only the parallel one is compiled (``one_thread_runs_parallel``)."""
    if numba.get_num_threads() == 1:
        return parallel_kernel if one_thread_runs_parallel(parallel_kernel, serial_kernel) else serial_kernel
    return parallel_kernel if work >= PARALLEL_MIN_WORK else serial_kernel


def train_in_parallel(n_samples: int, n_features: int, n_classes: int, depth: int) -> bool:
    """Whether a fit's rounds use the parallel drivers: by the histogram adds each of numba's threads gets a
    round (PARALLEL_MIN_ADDS_PER_THREAD); with one thread, only when the serial root histogram of this class
    count is not compiled but the parallel one is (``one_thread_runs_parallel``). Both drivers give the same
    bits."""
    threads = numba.get_num_threads()
    if threads == 1:
        from .histogram import root_histograms, root_histograms_serial

        return one_thread_runs_parallel(root_histograms, root_histograms_serial, n_classes)
    adds = n_samples * n_features * (n_classes + depth - 1)
    return adds / threads >= PARALLEL_MIN_ADDS_PER_THREAD


_ONE_THREAD: dict = {}  # (serial driver's name, class count or None) -> one_thread_runs_parallel's answer
_SERIAL_ONLY = [0]  # open serial_on_one_thread() blocks


@contextmanager
def serial_on_one_thread():
    """Within the block, one numba thread runs the serial drivers whatever is compiled (``rebel_serial`` in the
    benchmarks: their one-thread figures time the serial path, not the parallel driver on one thread)."""
    _SERIAL_ONLY[0] += 1
    try:
        yield
    finally:
        _SERIAL_ONLY[0] -= 1


def one_thread_runs_parallel(parallel_kernel, serial_kernel, n_classes: int | None = None) -> bool:
    """With one numba thread, whether the parallel driver runs instead of the serial one: only when the serial
    one is neither compiled in this process nor in the numba cache and the parallel one is. That is a process
    of joblib's loky backend (``cross_val_score(..., n_jobs=2)``, ``GridSearchCV``): loky gives numba one
    thread in each worker, while the parent, on every core, ran and cached the parallel drivers; the worker
    then loads those instead of compiling the serial ones (seconds of compile per kernel, in every worker).
    Both drivers give the same bits. Decided once per driver and class count in a process; always False inside
    ``serial_on_one_thread()``."""
    if _SERIAL_ONLY[0]:
        return False
    key = (serial_kernel.py_func.__name__, n_classes)
    if key not in _ONE_THREAD:
        from .compiled import kernel_is_ready

        _ONE_THREAD[key] = not kernel_is_ready(serial_kernel, n_classes) and kernel_is_ready(
            parallel_kernel, n_classes
        )
    return _ONE_THREAD[key]


def update_chunks(n_samples: int) -> int:
    """Row chunks of the weight update (at least 1024 rows each, at most UPDATE_CHUNKS)."""
    return max(1, min(UPDATE_CHUNKS, n_samples // 1024))


def interpreted(kernel, **callees):
    """The plain-Python body of an inlined kernel (its ``py_func``: the same source, not a copy), with the named
    global callees replaced; every other kernel it calls runs compiled, dispatched one call at a time (the
    interpreted round loop and Newton grower, docs/DESIGN.md "The round driver")."""
    fn = kernel.py_func
    return FunctionType(
        fn.__code__, {**fn.__globals__, **callees}, fn.__name__, fn.__defaults__, fn.__closure__
    )
