"""Compile (or load from the numba cache) the kernels on tiny inputs, so the first real call is fast.

Four groups of kernels, compiled independently of each other:

- ``fit``: the paper's training on a small problem (binning, the bias step, the kernels of a round with their
  serial drivers, which the interpreted round loop runs: ``rebel.booster.round_driver``);
- ``predict``: the serial drivers of prediction on raw features (scores, staged classes, tree outputs) and the
  parallel driver of the scores (a big predict's, e.g. an app's regions grid); with ``fit`` this is
  what an app's first page runs (``FIRST_PAGE``);
- ``parallel``: the compiled round loops, with the serial drivers and with the parallel ones (what a big
  problem's fit runs; a fit runs a compiled loop once it is cached), the parallel weight update, the other
  parallel drivers of prediction and binning, and the leaf ids' serial driver;
- ``variants``: the engine options beyond the paper (logistic loss, vector leaves, shrinkage, early stopping).

``warmup`` compiles the first group the numba cache lacks in this process and the others in one helper process
(``python -m rebel.warmup <group> ...``) at the same time, then loads their kernels from the cache: numba
compiles one function at a time in a process, so this is what puts a second core to work. Groups already
cached are not compiled again. ``variants`` comes last, when the paper's kernels it shares are cached.
``start_early(groups)`` starts a helper for groups before this process has imported numba (a server at launch):
a later ``warmup`` waits for it instead of compiling them again. Reads and writes nothing but the numba cache.

``cold_compile_notice(loss, leaves, parallel, n_classes)`` is the one line a CLI or an app shows before a fit
that will compile first ("Compiling the engine for this machine (first use only, about N s)..."), None when
the cache has the fit's kernels; ``cache_is_cold`` and ``fit_kernels`` are what it is built on. The round loop
compiles once per class count (``rebel.kernels.compiled.PER_CLASS_COUNT``), as does the root histogram it calls;
``compile_fit`` compiles a fit's kernels for a given one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np

GROUPS = ("fit", "predict", "parallel", "variants")
FIRST_PAGE = (
    "fit",
    "predict",
)  # what an app's first page runs (the Playground: a fit, its scores, the grid's)
HELPER_TIMEOUT = 900.0  # seconds a helper process may take before this process compiles its group itself
# One warm-up at a time in a process: a second caller (the app's page while the launcher's thread warms up)
# waits, then finds the cache warm instead of compiling the same kernels again.
_ONE_AT_A_TIME = threading.Lock()
_EARLY: dict[str, subprocess.Popen] = {}  # group -> the helper ``start_early`` started for it


def warmup(
    variants: bool = True, jobs: int = 2, load: bool = True, groups: tuple[str, ...] | None = None
) -> None:
    """Compile the kernels the paper's engine uses, and with ``variants`` the engine options' kernels too (or
    just the named ``groups``, e.g. ``FIRST_PAGE``).

    The first group the numba cache lacks compiles in this process, the other missing ones in one helper
    process at the same time (``jobs=1``: all in this process); a group whose ``start_early`` helper still runs
    is left to it. With ``load`` (the default) every kernel of the groups is then ready in this process;
    ``load=False`` leaves kernels that are cached to load on their first call (what an app wants: its first
    page loads only the kernels it uses). Calls from several threads run one after the other.
    """
    if groups is None:
        groups = tuple(g for g in GROUPS if variants or g != "variants")
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise ValueError(
            f"warmup: unknown group(s) {unknown} in groups={groups!r}; choose from {list(GROUPS)}"
        )
    with _ONE_AT_A_TIME:
        _warmup(groups, jobs, load)


def _warmup(groups: tuple[str, ...], jobs: int, load: bool) -> None:
    cold = [g for g in groups if _cache_is_cold(g)]
    early = [g for g in cold if g in _EARLY and _EARLY[g].poll() is None]
    rest = [g for g in cold if g not in early]
    here, helped = (rest[:1], rest[1:]) if jobs > 1 else (rest, [])
    helpers = list({id(_EARLY[g]): _EARLY[g] for g in early}.values())
    if helped:
        helpers.append(_start_helper(helped))
    for group in here:
        WARM[group]()
    for helper in helpers:  # its kernels are in the cache when it is done (if it failed: compiled on use)
        try:
            helper.wait(timeout=HELPER_TIMEOUT)
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait()
    for group in groups if load else []:  # loads what the helpers compiled (compiles what they could not)
        if group not in here:
            WARM[group]()


def start_early(groups: tuple[str, ...]) -> subprocess.Popen | None:
    """Start a helper process that compiles those of ``groups`` the numba cache lacks, and return at once (the
    process, or None when every group is cached). A ``warmup`` of this process waits for the helper instead of
    compiling those groups itself. For a server at launch, which has seconds of imports to do before its own
    warm-up could start. Imports numba and the kernels here (which compiles nothing)."""
    cold = [g for g in groups if _cache_is_cold(g)]
    if not cold:
        return None
    helper = _start_helper(cold)
    _EARLY.update(dict.fromkeys(cold, helper))
    return helper


# The kernel whose cache entry tells whether a group is compiled (the last one each group compiles).
_GROUP_KERNEL = {
    "fit": "_layer_choose_a",
    "predict": "predict_blocks",
    "parallel": "bin_features",
    "variants": "grow_vector_tree",
}
# CPU seconds of a first fit on an empty numba cache by (loss, leaves) (``python -m benchmarks.bench_coldstart
# --modes firstfit``, wine data, a 2-core machine under load; on an idle one the wall time is about the same).
COLD_SECONDS = {("exp", "binary"): 4.0, ("exp", "vector"): 6.0, ("logistic", "binary"): 5.0,
                ("logistic", "vector"): 6.0}  # fmt: skip


def _cache_is_cold(group: str) -> bool:
    """True when the numba cache holds no current entry for the group's main kernel (the cache is empty or
    the source changed); False when it does, or when this numba cannot tell (then it all runs here)."""
    return _kernel_is_cold(_GROUP_KERNEL[group])


def _kernel_is_cold(name: str, n_classes: int | None = None) -> bool:
    """True when the numba cache holds no entry for kernel ``name`` of ``rebel.kernels`` (for a kernel of
    ``kernels.compiled.PER_CLASS_COUNT`` with ``n_classes`` given: none for that K's plan); False when this
    numba cannot tell."""
    from . import kernels as kern

    return kern.compiled.kernel_is_cold(getattr(kern, name), n_classes)


def fit_kernels(loss: str = "exp", leaves: str = "binary", parallel: bool = False) -> tuple[str, ...]:
    """The entry kernels a fit with these options runs (``parallel``: the drivers ``rebel.kernels.
    train_in_parallel`` picks for big problems), by name in ``rebel.kernels``; for the paper's fit, those of the
    interpreted round loop (``cache_is_cold`` also takes a cached compiled loop), and for the logistic loss's
    binary leaves those of the interpreted Newton grower. On one thread these are the plain drivers, which do not
    depend on the class count (a fit of 2048 samples or more also runs ``apply_round_serial``)."""
    tail = "" if parallel else "_serial"
    # on one thread, the plain drivers the interpreter calls (``rebel.kernels.interpreted_drivers``)
    update, root = (
        ("apply_round", "root_histograms") if parallel else ("apply_round_single", "root_histograms_plain")
    )
    names = (f"bin_features{tail}", update)
    if (loss, leaves) == ("exp", "binary"):
        return (*names, root)
    if leaves == "vector":
        return (*names, "grow_vector_tree", "apply_leaf_values")
    return (*names, "apply_leaf_values", "newton_root_scan", root)


def cache_is_cold(
    loss: str = "exp",
    leaves: str = "binary",
    parallel: bool = False,
    n_classes: int | None = None,
    loop: bool = False,
) -> bool:
    """Whether a fit with these options (and ``n_classes`` classes, when given) would compile kernels first
    (the numba cache lacks one it runs; a paper or binary-leaf logistic fit whose compiled round loop or grower
    is cached runs that instead of the round's kernels, and ``loop``, a big fit, runs it anyway)."""
    names = fit_kernels(loss, leaves, parallel)
    tail = "" if parallel else "_serial"
    compiled = {"exp": f"boost_rounds{tail}", "logistic": f"grow_newton_tree{tail}"}.get(loss)
    if leaves == "binary" and n_classes is not None and compiled:
        shared = names[:3] if loss == "logistic" else names[:2]
        if loop:  # a big fit runs the compiled loop, cached or not (``rebel.booster.round_driver``)
            names = (*shared, compiled)
        elif not _kernel_is_cold(compiled, n_classes):
            names = shared
    return any(_kernel_is_cold(name, n_classes) for name in names)


def cold_compile_notice(
    loss: str = "exp", leaves: str = "binary", parallel: bool = False, n_classes: int | None = None
) -> str | None:
    """One line to show before a fit whose kernels are not in the numba cache yet (None when they are):
    "Compiling the engine for this machine (first use only, about N s)...". For the CLI and the app, which
    would otherwise sit on a frozen progress bar while numba compiles. Cheap: imports the kernels (numba), loads
    nothing."""
    if not cache_is_cold(loss, leaves, parallel, n_classes):
        return None
    seconds = COLD_SECONDS.get((loss, leaves), max(COLD_SECONDS.values()))
    return f"Compiling the engine for this machine (first use only, about {seconds:.0f} s)..."


def warmup_in_background(groups: tuple[str, ...] = ("parallel", "variants")) -> subprocess.Popen | None:
    """Start compiling the ones of ``groups`` the numba cache lacks in a helper process at a lower CPU priority,
    and return at once (the process, or None when every group is cached). For a server that has its first page
    ready and may want the other kernels later."""
    cold = [g for g in groups if _cache_is_cold(g)]
    return _start_helper(cold, nice=10) if cold else None


def _start_helper(groups: list[str], nice: int = 0) -> subprocess.Popen:
    """A helper process compiling ``groups``, one after the other, into this process's numba cache (``nice``: its added CPU niceness, where the system has one)."""
    env = dict(os.environ)
    import numba

    if numba.config.CACHE_DIR:
        env["NUMBA_CACHE_DIR"] = numba.config.CACHE_DIR
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rebel.warmup",
            *(["--nice", str(nice)] if nice else []),
            *groups,
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _tiny_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(24, 2)), np.arange(24) % 3


def _warm_fit() -> None:
    """A tiny paper fit on the estimator's path after its checks: thresholds, binning, the bias step and the
    kernels of a round with their serial drivers, run by the interpreted round loop (without the estimator,
    whose scikit-learn import a helper process would pay first)."""
    from .binning import bin_data, fit_thresholds
    from .booster import BoostInputs, boost

    X, y = _tiny_data()
    thresholds, usable = fit_thresholds(X, 4)
    cost_rows = np.ascontiguousarray((1.0 - np.eye(3))[y])
    boost(BoostInputs(bin_data(X, thresholds), usable, cost_rows, 2, 2, thresholds.shape[1] + 1))
    # the interpreted round loop's kernels even where the fit ran a cached compiled loop (a fit of a K whose
    # loop is not cached runs them; and the group's marker, ``_layer_choose_a``, is one of them)
    _warm_rounds(3, parallel=False, interpreted=True)


def compile_fit(n_classes: int, parallel: bool = False, loop: bool = False, **params) -> None:
    """Compile (or load) the kernels of a fit with ``n_classes`` classes and these ``RebelClassifier``
    parameters (loss, leaves, learning_rate, ...): a two-round fit on tiny data (the serial drivers), and with
    ``parallel`` (``rebel.kernels.train_in_parallel`` of the real fit) the parallel ones too (for the paper's
    fit, those the interpreted round loop calls: a cold fit runs that; with ``loop``, a big fit, the compiled
    round loop or Newton grower of its drivers, ``rebel.booster.runs_compiled_loop``); so that fit's progress
    bar does not wait on numba."""
    from . import kernels as kern
    from .estimator import RebelClassifier

    n = max(24, 2 * n_classes)
    X = np.random.default_rng(0).normal(size=(n, 2))
    keep = {k: v for k, v in params.items() if k in ("loss", "leaves", "learning_rate", "max_depth")}
    model = RebelClassifier(n_estimators=2, n_thresholds=4, **keep)
    model.fit(X, np.arange(n) % n_classes)
    if loop and model.leaves == "binary":
        (_warm_newton if model.loss == "logistic" else _warm_rounds)(n_classes, parallel=parallel)
    if (
        not parallel
    ):  # the chunked update of a fit of 2048 samples or more (the tiny fit ran the one-pass one)
        _warm_update(n_classes, kern.apply_round_serial)
        return
    kern.bin_features(X, np.zeros((2, 4)), np.empty((2, n), dtype=np.uint8))
    _warm_update(n_classes)
    if model.leaves == "vector":  # one grower for both drivers
        return
    if not loop:
        warm = _warm_newton if model.loss == "logistic" else _warm_rounds
        warm(n_classes, parallel=True, interpreted=True)


def _warm_update(n_classes: int = 3, update=None) -> None:
    """The weight update ``update`` (None: the parallel one), with the argument types the round loop passes."""
    from . import kernels as kern

    update = kern.apply_round if update is None else update
    n = 24
    wp, wm, H, dw, cost_rows = (np.ones((n, n_classes)) for _ in range(5))
    f = np.ones(n, dtype=np.int8)
    totals = (np.empty(n_classes), np.empty(n_classes))
    update(wp, wm, H, f, np.zeros(n_classes), 1.0, cost_rows, dw, *totals, 2)


def _warm_rounds(n_classes: int = 3, parallel: bool = True, interpreted: bool = False) -> None:
    """The compiled round loop with its parallel drivers (what a big fit runs) or its serial ones, with the
    argument types ``boost`` passes; ``interpreted``: the interpreted round loop instead (the kernels it calls,
    with those drivers)."""
    from . import kernels as kern
    from .grower import new_forest, round_work

    n, n_features, n_bins, depth = 24, 2, 5, 2
    bins = np.zeros((n_features, n), dtype=np.uint8)
    work = round_work(n, n_features, n_classes, n_bins, depth)._replace(parallel=parallel)
    work.dw[:], work.w_total[:], work.dw_total[:] = 0.0, 0.5, 0.0
    weights = np.full((n, n_classes), 0.5 / (n * n_classes))
    state = kern.TrainState(weights, weights.copy(), np.zeros((n, n_classes)), np.ones((n, n_classes)))
    forest = new_forest(1, depth, n_classes)
    loop = kern.boost_rounds if parallel else kern.boost_rounds_serial
    loop = kern.boost_rounds_interpreted if interpreted else loop
    loop(0, 1, bins, np.ones(n_features, dtype=bool), depth, state, work, forest, 1.0)


def _warm_predict() -> None:
    """The serial prediction drivers and the parallel driver of the scores (an app's regions grid)."""
    from . import kernels as kern

    _warm_predict_drivers(kern.predict_blocks_serial, kern.tree_outputs_serial)
    _warm_predict_drivers(kern.predict_blocks)


def _warm_parallel() -> None:
    """The compiled round loops, with the serial drivers and with the parallel ones (a first fit runs the
    interpreted loop, and its problem's drivers), the bias step's parallel weight update, then the other
    parallel drivers of prediction and binning, and the leaf ids' serial driver (no first page uses it)."""
    from . import kernels as kern

    _warm_rounds(parallel=False)
    _warm_update()
    _warm_rounds(parallel=True)
    _warm_predict_drivers(None, kern.tree_outputs, kern.tree_leaves)
    _warm_predict_drivers(None, None, kern.tree_leaves_serial)
    X, _ = _tiny_data()
    kern.bin_features(X, np.zeros((2, 4)), np.empty((2, X.shape[0]), dtype=np.uint8))


def _warm_predict_drivers(predict, outputs=None, leaves=None) -> None:
    """The given prediction drivers (scores, tree outputs, leaf ids; None: skipped), with the argument types
    the estimator passes."""
    X, _ = _tiny_data()
    n, depth, n_rounds, n_classes = X.shape[0], 2, 2, 3
    features = np.zeros((n_rounds, (1 << depth) - 1), dtype=np.int32)
    thresholds = np.zeros((n_rounds, (1 << depth) - 1))
    leaf_signs = np.ones((n_rounds, 1 << depth), dtype=np.int8)
    a0, A = np.zeros(n_classes), np.ones((n_rounds, n_classes))
    scores, staged = np.empty((n, n_classes)), np.empty((n_rounds + 1, n), dtype=np.int16)
    if predict is not None:
        predict(X, a0, features, thresholds, leaf_signs, A, depth, scores, staged)
    if outputs is not None:
        outputs(X, features[:1], thresholds[:1], leaf_signs[:1], depth, np.empty((n, 1), dtype=np.int8))
        outputs(X, features, thresholds, leaf_signs, depth, np.empty((n, n_rounds), dtype=np.int8))
    if leaves is not None:
        leaves(X, features[:1], thresholds[:1], depth, np.empty((n, 1), dtype=np.int32))
        leaves(X, features, thresholds, depth, np.empty((n, n_rounds), dtype=np.int32))


def _warm_variants() -> None:
    """Fit the engine options beyond the paper, and their prediction kernels (with the parallel Newton grower)."""
    from . import kernels as kern
    from .estimator import RebelClassifier

    X, y = _tiny_data()
    for loss, leaves in (("exp", "vector"), ("logistic", "binary"), ("logistic", "vector")):
        model = RebelClassifier(n_estimators=2, max_depth=2, n_thresholds=4, loss=loss, leaves=leaves)
        model.set_params(learning_rate=0.5).fit(X, y)
        model.risk_scores(X)
        model.staged_class_indices(X)
    trees = (model.a0_, model.tree_features_, model.tree_thresholds_, model.tree_leaf_values_, 2)
    kern.predict_leaf_values(X, *trees, np.empty((24, 3)), np.empty((3, 24), dtype=np.int16))
    RebelClassifier(n_estimators=2, n_thresholds=4, learning_rate=0.5, n_iter_no_change=1).fit(X, y)
    _warm_newton(parallel=False)
    _warm_newton(parallel=True)


def _warm_newton(n_classes: int = 3, parallel: bool = True, interpreted: bool = False) -> None:
    """The compiled binary-leaf Newton grower with its parallel histogram drivers (a big logistic fit's) or its
    serial ones, with the argument types ``rebel.variants`` passes (``interpreted``: the interpreted grower,
    i.e. the kernels it calls)."""
    from . import kernels as kern
    from .grower import new_forest, round_work, variant_work

    n, n_features, n_bins, depth = 24, 2, 5, 2
    bins = np.zeros((n_features, n), dtype=np.uint8)
    work = round_work(n, n_features, n_classes, n_bins, depth)._replace(parallel=parallel)
    vw = variant_work(n, n_features, n_classes, n_bins, depth)
    vw.g[:], vw.h[:] = 0.1, 0.25
    H, costs, forest = np.zeros((n, n_classes)), np.ones((n, n_classes)), new_forest(1, depth, n_classes)
    grow = kern.grow_newton_tree if parallel else kern.grow_newton_tree_serial
    grow = kern.grow_newton_tree_interpreted if interpreted else grow
    grow(
        bins, np.ones(n_features, dtype=bool), depth, H, costs, costs.copy(), 0.5, np.full(n_classes, 1e-9), 1,
        np.zeros((0, 0)), work, vw, forest.features[0], forest.thr_idx[0], forest.leaf_signs[0], forest.A[0],
    )  # fmt: skip


WARM = {"fit": _warm_fit, "predict": _warm_predict, "parallel": _warm_parallel, "variants": _warm_variants}


def _main(argv: list[str]) -> int:
    """``python -m rebel.warmup [--nice N] [group ...]``: compile the named groups (all four by default) in this
    process, its CPU niceness raised by N first (where the system has niceness)."""
    from .textout import say  # the one way out for text (a group name is the user's)

    if argv[:1] == ["--nice"]:
        if len(argv) < 2 or not argv[1].isdigit():
            say("rebel.warmup: --nice takes a whole number, e.g. --nice 10", file=sys.stderr)
            return 2
        if hasattr(os, "nice"):
            os.nice(int(argv[1]))
        argv = argv[2:]
    names = argv or list(GROUPS)
    unknown = [g for g in names if g not in GROUPS]
    if unknown:
        say(f"rebel.warmup: unknown group(s) {unknown}; choose from {list(GROUPS)}", file=sys.stderr)
        return 2
    for name in names:
        WARM[name]()
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
