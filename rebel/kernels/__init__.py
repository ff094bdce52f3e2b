"""Compiled kernels of the REBEL engine (numba), one module per stage, in the order data flows through them.
Each kernel has a slow, obvious twin of the same name in ``tests/naive.py``, and a test comparing the two.

=================  ================================================================================================
``common``         constants, the work rules (serial or parallel drivers), the records TrainState, RoundWork, Forest
``simd``           SIMD row adds (lanes of 8, 4, 2, 1) shared by the histograms and the split sums
``binning``        1. raw X -> uint8 bin codes
``lanes``          2. the root histogram's lane passes (fixed SIMD widths per sample loop; one K's: LanePlan)
``histogram``      2. per-feature (root) and per-leaf (deeper layers) sums over bins
``split``          3. the root stump criterion and the deeper-layer leaf criterion
``astar``          4. split sums, the closed form a* and the weight total it leaves
``update``         5. the weight update: H and the weights move past a round
``tree``           6. one depth-D tree (``grow_tree``) and the round loop (``boost_rounds``, compiled or interpreted)
``predict``        7. tree outputs, leaf ids, scores and staged class indices on raw features
``variants``       8. logistic loss, line search, leaf values and objectives, the step with leaf values
``vector_tree``    8. the vector-leaf grower
``newton_tree``    8. the binary-leaf Newton grower (logistic loss)
``compiled``       which kernels are compiled, in this process or in the numba cache (the round driver's rule)
=================  ================================================================================================

Paper equation -> function (the decomposition and the loss live in Python, the rest here):

=====================================================  ===========================================
decomposition c = beta 1 + c+, c- (S.3-S.5)            ``rebel.costs.decompose``
loss L (Eq. 2, F = exp)                                ``rebel.booster.training_loss``
stump criterion sum_k sqrt(sp_k sm_k) (S.6)            ``split.stump_criterion``; all candidates: ``split.root_scan``
leaf criterion of a deeper layer u_n, v_n (Sec. 4)     ``split.leaf_costs``; all candidates: ``split.leaf_scan``
a* = 1/2 (ln sm - ln sp) (S.6)                         ``astar.a_star`` (sums: ``astar.split_sums``)
loss after a round sum_k sp e^a + sm e^-a (Eq. 7)      ``astar.round_total``
weight update wp e^{f a}, wm e^{-f a} (S.6)            ``update.apply_round``
model H(x) = a0 + sum_t f_t(x) a_t (Eq. 3)             ``predict.predict_blocks``
=====================================================  ===========================================

Variants beyond the paper (DESIGN.md "Variants"; paper mode never calls them):

=====================================================  ===========================================
F(x) = ln(1 + e^x) (Eq. 1, logistic member)            ``variants.softplus``; loss sum ``variants.logistic_loss_sum``
logistic gradient g and hessian h per (n, k)           ``variants.logistic_stats``
vector leaf a_lk: exp 1/2 ln(Wm/Wp), logistic -G/H     ``variants.leaf_value``
l2: logistic -G/(H + l2), exp argmin + l2 v^2 / 2      ``variants.leaf_value``, ``variants.exp_l2_step``
vector-leaf criterion sum_l sum_k (2 sqrt(Wp Wm))      ``variants.leaf_objective``, ``variants.vector_criterion``
binary-leaf Newton gain sum_k G^2 / (H + l2), step a   ``newton_tree.newton_root_scan``, ``newton_tree.newton_a``
binary-leaf Newton leaf criterion u_n, v_n             ``newton_tree.newton_leaf_costs`` (then ``split.leaf_scan``)
min_samples_leaf: each child 0 or >= msl rows         ``vector_tree.vector_scan``, ``newton_tree.leaf_scan_min_rows``
step with leaf values (and the exp weight update)      ``variants.apply_leaf_values``
model with leaf values a0 + sum_t v_t(leaf_t(x))       ``predict.predict_leaf_values``
=====================================================  ===========================================

Arrays they read and write:
- ``bins``      (d, N) uint8, feature-major bin codes: ``bins[j, n]`` = number of thresholds of feature j that are
                strictly below ``X[n, j]``. Threshold index ``i`` (1-based) sends ``bins[j, n] >= i`` right,
                which is exactly ``X[n, j] > tau_i``.
- ``wp, wm``    (N, K) float64 multi-class weights ``w+ = c+ * e^H`` and ``w- = c- * e^-H`` (S.6), renormalised
                by the booster so that their grand total is 1.
- ``dw``        (N, K) float64 ``wp - wm``. The root scan needs only its histogram: for a stump f,
                ``sp + sm = T`` (the column totals of wp + wm, the same for every f) and
                ``sp - sm = sum_n f_n dw_n``, so ``sp = (T + delta) / 2`` and ``sm = (T - delta) / 2``.
- trees         heap-ordered: internal node ``i`` has children ``2i+1`` (left, ``x <= tau``) and ``2i+2``
                (right, ``x > tau``); ``features``/``thr_idx``/``thresholds`` have ``2^D - 1`` entries and
                ``leaf_signs`` (+1/-1) has ``2^D``.
- ``TrainState``, ``RoundWork``, ``Forest``: the training loop's arrays, passed as three named tuples.

Every kernel writes into preallocated outputs and allocates nothing proportional to N.

Compiled only when used: every kernel that runs on several threads has a serial twin (``X_serial``), and the
round loop and the tree growers come in both forms (``boost_rounds`` / ``boost_rounds_serial``, ...) whose
drivers are fixed where their shared body is inlined, so a fit compiles the drivers it runs and no other; the
root histogram compiles the lane passes of the fit's class count only (``RoundWork.lanes``, a ``LanePlan``
whose numba type carries K); the round loop and the Newton grower also run interpreted (``X_interpreted``: the
same source, calling the compiled kernels; the same bits), which a first fit does so as not to compile them
(``rebel.booster.round_driver``); the variants' kernels compile on a variant's first fit, prediction's on the first
predict of more than ``rebel.binning.BINNED_PREDICT_MAX`` rows x rounds (smaller ones run on the fit's kernels).

The numba cache: numba keys a compiled function to its own file only, so a caller would not notice a changed
callee in another stage module. The cache directory is therefore keyed to a hash of every kernel source
(``CACHE_DIR``, ``source_hash``): a change anywhere in this package compiles everything afresh into a new
directory, and a stale compiled caller can never run.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

_HERE = Path(__file__).resolve().parent


def source_hash(package_dir: Path = _HERE) -> str:
    """16 hex digits of a SHA-256 over the name and bytes of every module of the kernel package (this one by
    default) and of ``rebel/_threading.py`` beside it, which they import."""
    digest = hashlib.sha256()
    for path in [*sorted(Path(package_dir).glob("*.py")), Path(package_dir).parent / "_threading.py"]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _cache_base() -> str:
    """Where numba would put this package's cache: NUMBA_CACHE_DIR if set, else the package's ``__pycache__``
    when writable, else the user's cache directory (as numba's own locators do)."""
    if numba.config.CACHE_DIR:
        return numba.config.CACHE_DIR
    pycache = _HERE / "__pycache__"
    try:
        pycache.mkdir(exist_ok=True)
        if os.access(pycache, os.W_OK):
            return str(pycache)
    except OSError:
        pass
    from numba.misc.appdirs import AppDirs

    return AppDirs(appname="rebel", appauthor=False).user_cache_dir


# The directory of this package's compiled kernels: numba's choice of place, one subdirectory per source hash.
CACHE_DIR = os.path.join(_cache_base(), f"rebel-kernels-{source_hash()}")

# numba reads its cache directory when a kernel is decorated: point it at CACHE_DIR while the stage modules
# load, then give it back (other packages' numba caches keep their place; helper processes inherit the base).
_numba_cache_dir = numba.config.CACHE_DIR
numba.config.CACHE_DIR = CACHE_DIR
try:
    from . import compiled
    from .astar import _layer_choose_a, a_star, round_total, split_sums
    from .binning import BIN_BLOCK, bin_features, bin_features_serial
    from .common import (
        LEAF_TOL,
        PARALLEL_MIN_ADDS_PER_THREAD,
        PARALLEL_MIN_WORK,
        SMOOTHING,
        UPDATE_CHUNKS,
        Forest,
        RoundWork,
        TrainState,
        pick,
        train_in_parallel,
        update_chunks,
    )
    from .histogram import (
        leaf_histograms,
        leaf_histograms_serial,
        root_histograms,
        root_histograms_plain,
        root_histograms_serial,
    )
    from .lanes import LANE_PASS_MAX_CLASSES, LanePlan, plan_key, plan_widths
    from .newton_tree import (
        grow_newton_tree,
        grow_newton_tree_interpreted,
        grow_newton_tree_serial,
        leaf_scan_min_rows,
        newton_a,
        newton_leaf_costs,
        newton_root_scan,
    )
    from .predict import (
        PREDICT_BLOCK,
        predict_blocks,
        predict_blocks_serial,
        predict_leaf_values,
        predict_leaf_values_serial,
        tree_leaves,
        tree_leaves_serial,
        tree_outputs,
        tree_outputs_serial,
    )
    from .split import leaf_costs, leaf_scan, root_scan, stump_criterion
    from .tree import (
        boost_rounds,
        boost_rounds_interpreted,
        boost_rounds_serial,
        eval_stump_binned,
        eval_tree_binned,
        grow_tree,
        grow_tree_serial,
        interpreted_drivers,
        set_layer,
    )
    from .update import PART_PAD, apply_round, apply_round_serial, apply_round_single
    from .variants import (
        EXP_L2_STEPS,
        LINE_SEARCH_STEPS,
        LOSS_EXP,
        LOSS_LOGISTIC,
        NEWTON_RIDGE,
        VariantWork,
        apply_leaf_values,
        exp_l2_step,
        leaf_objective,
        leaf_value,
        line_search,
        logistic_loss_sum,
        logistic_stats,
        sigmoid,
        softplus,
        vector_criterion,
    )
    from .vector_tree import grow_vector_tree, node_counts, node_histograms, sort_by_node, vector_scan
finally:
    numba.config.CACHE_DIR = _numba_cache_dir

__all__ = [
    "BIN_BLOCK", "CACHE_DIR", "EXP_L2_STEPS", "LANE_PASS_MAX_CLASSES", "LEAF_TOL", "LINE_SEARCH_STEPS",
    "LOSS_EXP", "LOSS_LOGISTIC", "NEWTON_RIDGE", "PARALLEL_MIN_ADDS_PER_THREAD", "PARALLEL_MIN_WORK",
    "PART_PAD", "PREDICT_BLOCK", "SMOOTHING", "UPDATE_CHUNKS", "Forest", "LanePlan", "RoundWork",
    "TrainState", "VariantWork", "_layer_choose_a", "a_star", "apply_leaf_values", "apply_round",
    "apply_round_serial", "apply_round_single", "bin_features", "bin_features_serial", "boost_rounds",
    "boost_rounds_interpreted", "boost_rounds_serial", "compiled", "eval_stump_binned", "eval_tree_binned",
    "exp_l2_step",
    "grow_newton_tree", "grow_newton_tree_interpreted", "grow_newton_tree_serial", "grow_tree",
    "grow_tree_serial", "grow_vector_tree", "interpreted_drivers", "leaf_costs", "leaf_histograms",
    "leaf_histograms_serial", "leaf_objective", "leaf_scan", "leaf_scan_min_rows", "leaf_value",
    "line_search", "logistic_loss_sum", "logistic_stats", "newton_a", "newton_leaf_costs", "newton_root_scan",
    "node_counts", "node_histograms", "pick", "plan_key", "plan_widths", "predict_blocks",
    "predict_blocks_serial", "predict_leaf_values", "predict_leaf_values_serial", "root_histograms",
    "root_histograms_plain", "root_histograms_serial", "root_scan", "round_total", "set_layer", "sigmoid",
    "softplus", "sort_by_node", "source_hash", "split_sums", "stump_criterion", "train_in_parallel",
    "tree_leaves", "tree_leaves_serial", "tree_outputs", "tree_outputs_serial", "update_chunks",
    "vector_criterion", "vector_scan",
]  # fmt: skip
