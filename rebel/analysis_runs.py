"""Logic of the analysis pages (REBEL vs two-step, Trees and depth, Real data): small runs of the paper's
experiments on the user's settings, and the tables and texts the pages show. No streamlit here.

- Fig. 3 (``fig3_run``, ``fig3_counts``, ``fig3_text``): cost-sensitive REBEL against the two-step method on
  random mixtures (the paper's protocol) or on redraws of the Playground's mixture, one dataset at a time so a
  run reports progress and can stop between datasets; the text says what the run shows, win/tie/loss counts
  and a sign test included, next to the paper's ~90 % claim.
- Trees (``tree_nodes``, ``tree_leaf_index``, ``weak_learner_grid``, ``layer_losses``, ``depth_study``): one
  round's heap-ordered tree as a drawable node table (node i has children 2i+1 for x <= tau, 2i+2 for
  x > tau), the regions of that single weak learner f_t, the loss after each layer of growing it (Sec. 4,
  Fig. 2) and Table 1 (stumps vs deeper trees) on the current dataset.
- Real data (``REAL_DATASETS``, ``load_real``, ``real_costs``, ``train_real``, ``risk_examples``): a bundled or
  sample dataset, a cost matrix (uniform, random, taxonomy by visual similarity for digits, a preset's
  suggested costs), REBEL and the baselines' test cost after every round (Fig. 4, 6) and the lowest- and
  highest-risk test images (Fig. 10, 11).

Progress callbacks are ``progress(done, total)``; ``should_stop()`` returning True ends a run early with the
part that is done (``cancelled=True``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from . import experiments as ex
from .baselines import ESTIMATORS, available_estimators, make_estimator, staged_posteriors
from .cost_presets import normalize_costs, random_costs, taxonomy_costs
from .costs import min_risk_class, uniform_costs, validate_cost_matrix
from .data import (
    BUNDLED,
    PAPER_SEED,
    SAMPLE_DIR,
    Dataset,
    DatasetSpec,
    load_bundled,
    load_sample,
    make_dataset,
    paper_protocol,
)
from .estimator import RebelClassifier

Progress = Callable[[int, int], object]
ShouldStop = Callable[[], bool]

FIG3_COLUMNS = ex.FIG3_COLUMNS
PAPER_WIN_RATE = 0.9  # Sec. 5: "REBEL outperforms the standard method in ~90% of the trials"
FIG3_DEFAULTS = {"n_datasets": 10, "n_costs": 10, "n_rounds": 100, "max_depth": 1}
FIG3_LIMITS = {"n_datasets": (1, 20), "n_costs": (1, 40), "n_rounds": (1, 500), "max_depth": (1, 4)}


def _report(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


def _stopped(should_stop: ShouldStop | None) -> bool:
    return bool(should_stop is not None and should_stop())


def _check_setting(name: str, value, limits: dict) -> int:
    lo, hi = limits[name]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{name} is {value!r}; use a whole number from {lo} to {hi}.")
    return int(value)


# --------------------------------------------------------------------------------------------------------------
# Fig. 3: REBEL vs two-step, on random mixtures or on the Playground's mixture
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Fig3Run:
    """The trials of one Fig. 3 run: one row per (dataset, cost matrix), columns of
    ``rebel.experiments.compare_cost_sensitive``; ``datasets`` are the datasets in run order (thumbnails)."""

    trials: pd.DataFrame
    datasets: list
    settings: dict
    planned: int  # trials asked for
    cancelled: bool = False

    @property
    def done(self) -> int:
        return len(self.trials)


def _redraws(spec: DatasetSpec, n_datasets: int, seed: int) -> list:
    """The Playground's mixture sampled ``n_datasets`` times (seeds seed, seed + 1, ...)."""
    out = []
    for i in range(n_datasets):
        s = DatasetSpec(spec.mixture, spec.n_points, spec.test_fraction, int(seed) + i, spec.label_noise)
        out.append(make_dataset(s, f"draw {i + 1}"))
    return out


def fig3_trials(
    source: str = "random",
    n_datasets: int = 10,
    n_costs: int = 10,
    seed: int = PAPER_SEED,
    dataset: Dataset | None = None,
    cost_matrix=None,
) -> list:
    """The datasets and cost matrices of a run: ``[(Dataset, [C_1, ...]), ...]``.

    ``source="random"``: the paper's protocol (random mixtures of Fig. 9, half-normal cost matrices with random
    guessing costing 1). ``source="playground"``: ``dataset`` redrawn ``n_datasets`` times from its mixture (or
    used as it is when it has none, e.g. an uploaded CSV); the first cost matrix is ``cost_matrix`` (the user's),
    the others random as in the paper.
    """
    n_datasets = _check_setting("n_datasets", n_datasets, FIG3_LIMITS)
    n_costs = _check_setting("n_costs", n_costs, FIG3_LIMITS)
    if source == "random":
        return [
            (make_dataset(spec, f"random {i}"), costs)
            for i, (spec, costs) in enumerate(paper_protocol(n_datasets, n_costs, seed))
        ]
    if source != "playground":
        raise ValueError(f"source is {source!r}; use 'random' (paper protocol) or 'playground'.")
    if dataset is None:
        raise ValueError("source 'playground' needs the Playground's dataset; train a model there first.")
    K = dataset.n_classes
    datasets = _redraws(dataset.spec, n_datasets, int(dataset.spec.seed or 0)) if dataset.spec else [dataset]
    out = []
    for i, ds in enumerate(datasets):
        costs = [random_costs(K, np.random.default_rng([seed, i, 1 + j])) for j in range(n_costs)]
        if cost_matrix is not None:
            costs[0] = validate_cost_matrix(cost_matrix, n_classes=K)
        out.append((ds, costs))
    return out


def fig3_steps(
    source: str = "random",
    n_datasets: int = FIG3_DEFAULTS["n_datasets"],
    n_costs: int = FIG3_DEFAULTS["n_costs"],
    n_rounds: int = FIG3_DEFAULTS["n_rounds"],
    max_depth: int = FIG3_DEFAULTS["max_depth"],
    seed: int = PAPER_SEED,
    dataset: Dataset | None = None,
    cost_matrix=None,
    n_jobs: int = 2,
):
    """Fig. 3 dataset by dataset: yields a ``Fig3Run`` with every trial done so far (first an empty one, then
    one per dataset), so a caller can show progress and keep the partial result when it stops early.

    Each trial: REBEL trained with the cost matrix vs the two-step method (REBEL with 0-1 costs, same rounds and
    depth, posterior + minimum-risk rule); a dataset's fits run in parallel (``n_jobs``)."""
    n_rounds = _check_setting("n_rounds", n_rounds, FIG3_LIMITS)
    max_depth = _check_setting("max_depth", max_depth, FIG3_LIMITS)
    trials = fig3_trials(source, n_datasets, n_costs, seed, dataset, cost_matrix)
    settings = {
        "source": source,
        "n_datasets": len(trials),
        "n_costs": n_costs,
        "n_rounds": n_rounds,
        "max_depth": max_depth,
        "seed": seed,
    }
    planned = sum(len(c) for _, c in trials)
    frames, used = [], []
    yield Fig3Run(pd.DataFrame(columns=FIG3_COLUMNS), [], settings, planned, cancelled=True)
    for ds, costs in trials:
        frames.append(ex.compare_cost_sensitive([ds], [costs], n_rounds, max_depth, n_jobs=n_jobs))
        used.append(ds)
        table = pd.concat(frames, ignore_index=True)
        yield Fig3Run(table, list(used), settings, planned, cancelled=len(table) < planned)


def _drive(steps, progress: Progress | None, should_stop: ShouldStop | None, count):
    """Run a step generator to its end (or until ``should_stop()``), reporting ``count(result)`` as progress."""
    last = None
    for last in steps:
        done, total = count(last)
        _report(progress, done, total)
        if done < total and _stopped(should_stop):
            break
    return last


def fig3_run(
    source: str = "random",
    n_datasets: int = FIG3_DEFAULTS["n_datasets"],
    n_costs: int = FIG3_DEFAULTS["n_costs"],
    n_rounds: int = FIG3_DEFAULTS["n_rounds"],
    max_depth: int = FIG3_DEFAULTS["max_depth"],
    seed: int = PAPER_SEED,
    dataset: Dataset | None = None,
    cost_matrix=None,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
    n_jobs: int = 2,
) -> Fig3Run:
    """``fig3_steps`` run to the end: ``progress(trials done, trials planned)`` after each dataset and
    ``should_stop()`` checked between datasets (the result then holds the finished ones, ``cancelled=True``)."""
    steps = fig3_steps(source, n_datasets, n_costs, n_rounds, max_depth, seed, dataset, cost_matrix, n_jobs)
    return _drive(steps, progress, should_stop, lambda run: (run.done, run.planned))


def fig3_counts(trials: pd.DataFrame) -> dict:
    """Win/tie/loss counts (REBEL's test cost strictly lower / equal / higher), mean costs and a two-sided sign
    test of wins against losses (ties left out)."""
    n = len(trials)
    wins, ties = int(trials["win"].sum()), int(trials["tie"].sum())
    losses = n - wins - ties
    p = binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
    hard = trials["two_step_cost"] > trials["two_step_cost"].median() if n else trials["win"]
    return {
        "trials": n,
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "win_rate": wins / n if n else math.nan,
        "rebel_cost": float(trials["rebel_cost"].mean()) if n else math.nan,
        "two_step_cost": float(trials["two_step_cost"].mean()) if n else math.nan,
        "blind_cost": float(trials["blind_cost"].mean()) if n else math.nan,
        "bayes_cost": float(trials["bayes_cost"].mean())
        if n and trials["bayes_cost"].notna().all()
        else None,
        "hard_trials": int(hard.sum()),
        "hard_wins": int(trials.loc[hard, "win"].sum()) if n else 0,
        "sign_test_p": float(p),
    }


def _verdict(c: dict) -> str:
    significant = c["sign_test_p"] < 0.05
    if c["win_rate"] >= PAPER_WIN_RATE - 0.05:
        return "This run agrees with the paper's claim."
    if c["wins"] > c["losses"] and significant:
        return (
            "REBEL wins more trials than it loses, but well short of the paper's ~90 %: this run reproduces "
            "the direction of the claim, not its size."
        )
    if c["losses"] > c["wins"] and significant:
        return (
            "**The two-step method wins most trials: this run does not reproduce the paper's claim** that "
            "REBEL wins ~90 % of them."
        )
    return (
        "Wins and losses are close (a sign test cannot tell them apart): this run shows no clear winner, "
        "unlike the paper's ~90 % for REBEL."
    )


def fig3_text(run_or_trials, cancelled: bool = False, planned: int | None = None) -> str:
    """A short, honest Markdown summary of what a Fig. 3 run shows (counts, mean costs, sign test, harder half,
    and how it compares with the paper's ~90 % claim). Dataset names are not included (no user text)."""
    if isinstance(run_or_trials, Fig3Run):
        trials, cancelled, planned = run_or_trials.trials, run_or_trials.cancelled, run_or_trials.planned
    else:
        trials = run_or_trials
    c = fig3_counts(trials)
    if c["trials"] == 0:
        return "No trial finished, so there is nothing to compare yet. Run again and let it finish."
    n = c["trials"]
    lines = [
        (
            f"**REBEL had the lower test cost in {c['wins']} of {n} trials ({c['win_rate']:.0%}), tied in "
            f"{c['ties']} and lost {c['losses']}** (the two-step method was cheaper)."
        ),
        (
            f"Mean test cost: REBEL **{c['rebel_cost']:.4f}**, two-step **{c['two_step_cost']:.4f}** "
            f"({_relative(c['rebel_cost'], c['two_step_cost'])}); the cost-blind 0-1 argmax costs "
            f"{c['blind_cost']:.4f}."
        ),
    ]
    if c["bayes_cost"] is not None:
        lines.append(
            f"The Bayes-optimal rule (known mixtures) costs {c['bayes_cost']:.4f} on the same test points: "
            f"REBEL is {c['rebel_cost'] - c['bayes_cost']:+.4f} above it, two-step "
            f"{c['two_step_cost'] - c['bayes_cost']:+.4f}."
        )
    if c["wins"] + c["losses"]:
        lines.append(f"Sign test of wins vs losses (ties left out): p = {c['sign_test_p']:.2g}.")
    if c["hard_trials"]:
        lines.append(
            f"On the harder half (two-step cost above the median) REBEL won {c['hard_wins']} of "
            f"{c['hard_trials']}; the paper says REBEL wins especially there."
        )
    lines.append(
        f"The paper reports REBEL winning ~90 % of 200 trials (10 datasets x 20 cost matrices, 100 "
        f"stumps). {_verdict(c)}"
    )
    if cancelled:
        lines.append(
            f"*Stopped early: {n} of {planned} planned trials finished; the numbers cover those only.*"
        )
    return "\n\n".join(lines)


def _relative(a: float, b: float) -> str:
    if not b:
        return "two-step costs 0"
    d = (a - b) / b
    return f"REBEL {abs(d):.1%} {'lower' if d < 0 else 'higher'}" if d else "equal"


# --------------------------------------------------------------------------------------------------------------
# Trees: one round's tree, its regions, layer-by-layer loss; Table 1 depth study on the current dataset
# --------------------------------------------------------------------------------------------------------------


def _check_round(model: RebelClassifier, t: int) -> int:
    T = model.n_estimators_
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 1 <= t <= T:
        raise ValueError(f"round t is {t!r}; the model has rounds 1 to {T}.")
    return int(t) - 1


def tree_leaf_index(model: RebelClassifier, t: int, X) -> np.ndarray:
    """Leaf (0 .. 2^D - 1) of each row of X in round t's tree (1-based t), ``x > tau`` going right."""
    i = _check_round(model, t)
    X = np.asarray(X, dtype=np.float64)
    D = model.depth_
    feats, thr = model.tree_features_[i], model.tree_thresholds_[i]
    node = np.zeros(X.shape[0], dtype=np.intp)
    for _ in range(D):
        node = 2 * node + np.where(X[np.arange(X.shape[0]), feats[node]] > thr[node], 2, 1)
    return node - (2**D - 1)


def weak_learner_output(model: RebelClassifier, t: int, X) -> np.ndarray:
    """The single weak learner f_t(x) in {-1, +1} of round t (1-based) on the rows of X."""
    return model.tree_leaf_signs_[t - 1][tree_leaf_index(model, t, X)]


def weak_learner_grid(model: RebelClassifier, t: int, xs, ys) -> np.ndarray:
    """f_t on the grid of cell centres ``xs`` (nx,), ``ys`` (ny,): (ny, nx) int8 in {-1, +1} (2 features)."""
    if model.n_features_in_ != 2:
        raise ValueError(f"the model has {model.n_features_in_} features; regions need exactly 2 (x, y).")
    gx, gy = np.meshgrid(np.asarray(xs, float), np.asarray(ys, float))
    f = weak_learner_output(model, t, np.column_stack([gx.ravel(), gy.ravel()]))
    return f.reshape(gx.shape).astype(np.int8)


def tree_nodes(model: RebelClassifier, t: int, feature_names=None, X=None, y_idx=None) -> pd.DataFrame:
    """Round t's tree (1-based) as a table for drawing, one row per node in heap order, then the leaves.

    Columns: ``node`` (heap index; leaves continue after the 2^D - 1 splits), ``level`` (0 = root), ``x`` in
    (0, 1) (in-order position), ``parent`` (-1 for the root), ``branch`` ("<=" left / ">" right / ""), ``kind``
    ("split" or "leaf"), ``feature`` (name), ``threshold``, ``sign`` (leaf output f_t = +1 or -1), ``idle``
    (a split that copies its parent: every sample reaching it goes the same way, Sec. 4 step 1 kept),
    ``reachable`` (no contradicting tests on the path) and, with training data, ``n`` (samples reaching the node)
    and ``top_class`` (the most frequent class index there, -1 if none).
    """
    i = _check_round(model, t)
    D = model.depth_
    names = (
        list(feature_names) if feature_names is not None else [f"x{j}" for j in range(model.n_features_in_)]
    )
    feats, thr_idx, thr = model.tree_features_[i], model.tree_thr_idx_[i], model.tree_thresholds_[i]
    signs = model.tree_leaf_signs_[i]
    n_split = 2**D - 1
    counts = None
    if X is not None:
        leaf = tree_leaf_index(model, t, X)
        leaf_nodes = leaf + n_split
        counts = {}
        paths = [leaf_nodes]
        for _ in range(D):
            paths.append((paths[-1] - 1) // 2)
        on_path = np.stack(paths)  # (D + 1, N): node ids from the leaf up to the root
        y = None if y_idx is None else np.asarray(y_idx)
        for node in range(2 * n_split + 1):
            hit = np.any(on_path == node, axis=0)
            top = int(np.bincount(y[hit]).argmax()) if (y is not None and hit.any()) else -1
            counts[node] = (int(hit.sum()), top)
    rows = []
    bounds = {0: {}}  # node -> {feature: (lo_idx, hi_idx)}: x > tau_lo and x <= tau_hi along the path
    for node in range(2 * n_split + 1):
        level = int(np.floor(np.log2(node + 1)))
        pos = node - (2**level - 1)
        parent = (node - 1) // 2 if node else -1
        b = bounds.get(node, {})
        reachable = all(lo < hi for lo, hi in b.values())
        row = {
            "node": node,
            "level": level,
            "x": (pos + 0.5) / 2**level,
            "parent": parent,
            "branch": "" if node == 0 else ("<=" if node % 2 == 1 else ">"),
            "reachable": reachable,
        }
        if node < n_split:
            j, k = int(feats[node]), int(thr_idx[node])
            idle = node > 0 and j == feats[parent] and k == thr_idx[parent]
            row.update(kind="split", feature=names[j], threshold=float(thr[node]), sign=0, idle=bool(idle))
            lo, hi = b.get(j, (0, model.thresholds_.shape[1] + 1))
            bounds[2 * node + 1] = {**b, j: (lo, min(hi, k))}
            bounds[2 * node + 2] = {**b, j: (max(lo, k), hi)}
        else:
            row.update(
                kind="leaf", feature="", threshold=math.nan, sign=int(signs[node - n_split]), idle=False
            )
        if counts is not None:
            row["n"], row["top_class"] = counts[node]
        rows.append(row)
    return pd.DataFrame(rows)


def layer_losses(model: RebelClassifier, t: int) -> np.ndarray:
    """The training loss L when growing round t's tree (1-based), layer by layer: before the round, then after
    layers 1..D (Sec. 4: each added layer never increases it; the last equals ``train_loss_[t]``)."""
    i = _check_round(model, t)
    return np.r_[model.train_loss_[i], model.layer_loss_[i]]


def favoured_classes(a, classes) -> tuple:
    """Classes whose score f_t(x) a_t raises where f_t = +1 (a_k > 0) and where f_t = -1 (a_k < 0)."""
    a = np.asarray(a, dtype=np.float64)
    plus = [classes[k] for k in np.argsort(-a) if a[k] > 0]
    minus = [classes[k] for k in np.argsort(a) if a[k] < 0]
    return plus, minus


DEPTHS = (1, 2, 3, 4)


@dataclass
class DepthStudy:
    """Table 1 on one dataset (see ``depth_study_steps``): ``table`` rows "0-1 error" and "cost", one column per
    depth (mean over splits); ``trials`` one row per (split, depth, training)."""

    table: pd.DataFrame
    trials: pd.DataFrame
    depths_done: list
    depths: list
    settings: dict

    @property
    def cancelled(self) -> bool:
        return len(self.depths_done) < len(self.depths)


def _all_points(dataset: Dataset) -> tuple:
    X = np.vstack([dataset.X_train, dataset.X_test]) if len(dataset.y_test) else dataset.X_train
    y = np.concatenate([np.asarray(dataset.y_train, dtype=object), np.asarray(dataset.y_test, dtype=object)])
    return X, dataset.class_index(y)


def depth_study_steps(
    dataset: Dataset,
    cost_matrix,
    depths=DEPTHS,
    n_rounds: int = 100,
    n_splits: int = 3,
    seed: int = 0,
    n_jobs: int = 2,
):
    """Table 1 on one dataset, depth by depth: REBEL with trees of each depth trained with 0-1 costs (test
    error) and with ``cost_matrix`` (test cost) on ``n_splits`` random 50/25/25 splits of all its points, the
    number of rounds (up to ``n_rounds``) chosen on the validation part (``rebel.experiments.table1``).
    Yields a ``DepthStudy`` before the first depth and after each one."""
    C = validate_cost_matrix(cost_matrix, n_classes=dataset.n_classes)
    X, y = _all_points(dataset)
    counts = np.bincount(y, minlength=dataset.n_classes)
    if counts.min() < 4:
        raise ValueError(
            f"class {dataset.classes[int(counts.argmin())]!r} has {counts.min()} points; the depth "
            "study splits the data 50/25/25 and needs at least 4 points of every class."
        )
    depths = [int(d) for d in depths]
    settings = {"n_rounds": int(n_rounds), "n_splits": int(n_splits), "seed": int(seed)}
    frames, done = [], []
    yield DepthStudy(pd.DataFrame(), pd.DataFrame(), [], depths, settings)
    for depth in depths:
        frames.append(
            ex.table1(
                [("current", X, y)],
                depths=(depth,),
                n_splits=n_splits,
                n_rounds=n_rounds,
                seed=seed,
                cost_matrices={"current": C},
                n_jobs=n_jobs,
            )
        )
        done.append(depth)
        trials = pd.concat(frames, ignore_index=True)
        table = ex.table1_summary(trials).droplevel("dataset")
        table.index.name = None
        yield DepthStudy(table, trials, list(done), depths, settings)


def depth_study(
    dataset: Dataset,
    cost_matrix,
    depths=DEPTHS,
    n_rounds: int = 100,
    n_splits: int = 3,
    seed: int = 0,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
    n_jobs: int = 2,
) -> DepthStudy:
    """``depth_study_steps`` to the end; ``progress(depths done, depths)``, ``should_stop()`` between depths."""
    steps = depth_study_steps(dataset, cost_matrix, depths, n_rounds, n_splits, seed, n_jobs)
    return _drive(steps, progress, should_stop, lambda r: (len(r.depths_done), len(r.depths)))


# --------------------------------------------------------------------------------------------------------------
# Real data: bundled and sample datasets, cost matrices, REBEL and baselines per round, risk examples
# --------------------------------------------------------------------------------------------------------------


def _sample_names() -> list:
    return sorted(p.stem for p in SAMPLE_DIR.glob("*.csv") if (SAMPLE_DIR / f"{p.stem}.json").is_file())


REAL_DATASETS = {
    **{name: text for name, text in BUNDLED.items()},
    **{name: "sample_data/" + name + ".csv (2-D Gaussian mixture)" for name in _sample_names()},
}
# Digits grouped by visual similarity of their strokes (a hand-made taxonomy, as CUB/SUN use theirs in Sec. 5.2):
# confusing two digits of one group costs 2 tree edges, digits of different groups 4.
DIGIT_TAXONOMY = {
    "digit": {
        "loops": ["0", "6", "8", "9"],
        "straight strokes": ["1", "4", "7"],
        "curved strokes": ["2", "3", "5"],
    }
}
REAL_COSTS = {
    "uniform": "Uniform 0-1 (every mistake costs 1)",
    "random": "Random (paper protocol, random guessing costs 1)",
    "taxonomy": "Taxonomy by visual similarity (digits)",
    "suggested": "The sample's suggested costs",
}
REAL_METHODS = ("rebel", "adaboost_mh", "one_vs_all", "samme", "hgb", "lightgbm")
STUMP_ONLY = ("adaboost_mh", "one_vs_all")


def load_real(name: str, test_fraction: float = 0.25, seed: int = 0) -> Dataset:
    """A dataset of ``REAL_DATASETS``: scikit-learn's bundled data (stratified split) or a sample_data file."""
    if name in BUNDLED:
        return load_bundled(name, test_fraction, seed)
    if name in REAL_DATASETS:
        return load_sample(name)
    raise ValueError(f"dataset {name!r} is unknown; choose one of {list(REAL_DATASETS)}.")


def real_cost_kinds(dataset: Dataset) -> list:
    """The cost kinds that apply to ``dataset`` (taxonomy for digits, suggested for samples that carry costs)."""
    kinds = ["uniform", "random"]
    if dataset.name == "digits":
        kinds.append("taxonomy")
    if dataset.cost_matrix is not None:
        kinds.append("suggested")
    return kinds


def real_costs(kind: str, dataset: Dataset, seed: int = 0) -> np.ndarray:
    """The (K, K) cost matrix of ``kind`` for ``dataset``; random and taxonomy costs are normalised so that
    random guessing costs 1 under the training priors (as in the paper's SUN experiments)."""
    K = dataset.n_classes
    if kind not in real_cost_kinds(dataset):
        raise ValueError(
            f"cost kind {kind!r} does not apply to {dataset.name!r}; choose one of "
            f"{real_cost_kinds(dataset)}."
        )
    if kind == "uniform":
        return uniform_costs(K)
    if kind == "random":
        return normalize_costs(random_costs(K, np.random.default_rng([int(seed), K])), dataset.priors())
    if kind == "taxonomy":
        return normalize_costs(taxonomy_costs(DIGIT_TAXONOMY, dataset.classes), dataset.priors())
    return validate_cost_matrix(dataset.cost_matrix, n_classes=K)


@dataclass
class RealRun:
    """REBEL (trained with the costs) and two-step baselines on one dataset: test cost and error after every
    round (``curves``: method, t, test_cost, test_error) and REBEL's final test predictions and scores."""

    dataset: Dataset
    cost_matrix: np.ndarray
    curves: pd.DataFrame
    rebel: RebelClassifier | None
    rebel_scores: np.ndarray | None  # (N_test, K) H after the last round
    planned: int
    cancelled: bool = False
    notes: list = field(default_factory=list)

    @property
    def done(self) -> int:
        return self.curves["method"].nunique()

    @property
    def y_test_idx(self) -> np.ndarray:
        return self.dataset.class_index(self.dataset.y_test)

    def summary(self) -> pd.DataFrame:
        """Per method: test cost and error after the last round, and the lowest test cost over rounds (where)."""
        rows = []
        for method, g in self.curves.groupby("method", sort=False):
            best = g.loc[g["test_cost"].idxmin()]
            last = g.iloc[-1]
            rows.append(
                {
                    "method": method,
                    "test cost (last round)": last["test_cost"],
                    "error (last round)": last["test_error"],
                    "lowest test cost": best["test_cost"],
                    "at round": int(best["t"]),
                }
            )
        return pd.DataFrame(rows).set_index("method")


def method_name(name: str, training: str) -> str:
    """Display name: "REBEL (cost-sensitive)" or "<method> two-step"."""
    return f"{ESTIMATORS[name]} (cost-sensitive)" if training == "cost" else f"{ESTIMATORS[name]} two-step"


def _cost_curves(preds: np.ndarray, y: np.ndarray, C: np.ndarray) -> tuple:
    return C[y[None, :], preds].mean(axis=1), (preds != y[None, :]).mean(axis=1)


def train_real_steps(
    dataset: Dataset, cost_matrix, methods=REAL_METHODS, n_rounds: int = 100, max_depth: int = 1
):
    """REBEL trained with ``cost_matrix``, then every method of ``methods`` (names of
    ``rebel.baselines.ESTIMATORS``; "rebel" there is REBEL with 0-1 costs) trained cost-blind and read as
    two-step (posterior + minimum-risk rule), one model at a time: yields a ``RealRun`` with the test cost and
    error after every round of each model done so far (first after REBEL)."""
    C = validate_cost_matrix(cost_matrix, n_classes=dataset.n_classes)
    if len(dataset.y_test) == 0:
        raise ValueError("the dataset has no test points; give it a test split.")
    unknown = [m for m in methods if m not in ESTIMATORS]
    if unknown:
        raise ValueError(f"method {unknown[0]!r} is unknown; choose from {list(ESTIMATORS)}.")
    notes = []
    runnable = [m for m in methods if m in available_estimators()]
    if len(runnable) < len(methods):
        notes.append("LightGBM is not installed, so it is left out.")
    if max_depth > 1 and any(m in STUMP_ONLY for m in runnable):
        notes.append("AdaBoost.MH and 1-vs-all AdaBoost use stumps by definition (depth 1).")
    y_tr, y_te = dataset.class_index(dataset.y_train), dataset.class_index(dataset.y_test)
    X_tr, X_te = dataset.X_train, dataset.X_test
    total = 1 + len(runnable)
    rebel = RebelClassifier(cost_matrix=C, n_estimators=n_rounds, max_depth=max_depth).fit(X_tr, y_tr)
    cost, err = _cost_curves(rebel.staged_class_indices(X_te)[1:], y_te, C)
    frames = [
        pd.DataFrame(
            {
                "method": method_name("rebel", "cost"),
                "t": np.arange(1, len(cost) + 1),
                "test_cost": cost,
                "test_error": err,
            }
        )
    ]
    scores = rebel.decision_function(X_te)
    yield RealRun(dataset, C, frames[0], rebel, scores, total, cancelled=total > 1, notes=notes)
    for name in runnable:
        depth = 1 if name in STUMP_ONLY else max_depth
        model = make_estimator(name, n_rounds, depth, random_state=0).fit(X_tr, y_tr)
        preds = np.array([min_risk_class(P, C) for P in staged_posteriors(model, X_te)])
        cost, err = _cost_curves(preds, y_te, C)
        frames.append(
            pd.DataFrame(
                {
                    "method": method_name(name, "0-1"),
                    "t": np.arange(1, len(cost) + 1),
                    "test_cost": cost,
                    "test_error": err,
                }
            )
        )
        yield RealRun(
            dataset,
            C,
            pd.concat(frames, ignore_index=True),
            rebel,
            scores,
            total,
            cancelled=len(frames) < total,
            notes=notes,
        )


def train_real(
    dataset: Dataset,
    cost_matrix,
    methods=REAL_METHODS,
    n_rounds: int = 100,
    max_depth: int = 1,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> RealRun:
    """``train_real_steps`` to the end; ``progress(models done, models)``, ``should_stop()`` between models."""
    steps = train_real_steps(dataset, cost_matrix, methods, n_rounds, max_depth)
    return _drive(steps, progress, should_stop, lambda r: (r.done, r.planned))


def risk_examples(scores, y_idx, cost_matrix, n_low: int = 5, n_high: int = 4) -> tuple:
    """Indices of the lowest- and highest-risk test examples (Fig. 10, 11).

    Risk here is the cost actually paid, ``C[truth, prediction]`` with prediction ``argmax_k H_k``; ties are
    broken by REBEL's margin (top score minus runner-up): the lowest-risk examples are correct and the most
    confident, the highest-risk ones the costliest mistakes, the most confident first.
    """
    H = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y_idx)
    pred = np.argmax(H, axis=1)
    paid = np.asarray(cost_matrix)[y, pred]
    top2 = np.sort(H, axis=1)[:, -2:] if H.shape[1] > 1 else np.c_[H, H]
    margin = top2[:, 1] - top2[:, 0]
    low = np.lexsort((-margin, paid))[:n_low]
    high = np.lexsort((-margin, -paid))[:n_high]
    high = high[paid[high] > 0]  # only real mistakes
    return low, high, pred, paid


__all__ = [
    "DIGIT_TAXONOMY",
    "FIG3_DEFAULTS",
    "FIG3_LIMITS",
    "REAL_COSTS",
    "REAL_DATASETS",
    "REAL_METHODS",
    "DepthStudy",
    "Fig3Run",
    "RealRun",
    "depth_study",
    "depth_study_steps",
    "favoured_classes",
    "fig3_counts",
    "fig3_run",
    "fig3_steps",
    "fig3_text",
    "fig3_trials",
    "layer_losses",
    "load_real",
    "method_name",
    "real_cost_kinds",
    "real_costs",
    "risk_examples",
    "train_real",
    "train_real_steps",
    "tree_leaf_index",
    "tree_nodes",
    "weak_learner_grid",
    "weak_learner_output",
]
