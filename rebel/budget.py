"""The one table of what a request may cost, checked before any work starts.

Every limit on the size of a request lives in ``LIMITS``: file bytes, CSV header characters, columns and rows,
the work of one training run (points x features x rounds x classes x depth), the memory of a fit and of the
model it returns, the staged arrays the app keeps (rounds x points, rounds x grid cells) and the pixels and point markers of a
slide export (frames x width x height, frames x points). Each entry has an engine limit (the estimator and the command line;
``None`` = no limit) and an app limit (a shared server that retrains on every change, so it is smaller), the
reason for it and the fix to offer. ``check`` compares
one amount with its entry and raises ``BudgetError`` (a ``ValueError``) whose message names the amount, the
limit, the reason and the fix; ``fit_cost`` and ``check_fit`` estimate and check a training run.

Staged computations never stack all rounds: they keep one round at a time (``rebel.ui.state``), so the only
arrays that grow with the number of rounds are the small int16 / float32 ones that ``staged`` bounds here.

Plain Python: no streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rebel.params import CHOICE_PARAMS, INT_PARAMS

MIB = 1024 * 1024
GIB = 1024 * MIB


@dataclass(frozen=True)
class Limit:
    """One line of the table: what is counted, its engine and app limits (None: no limit), why, and the fix."""

    name: str
    what: str
    engine: int | None
    app: int | None
    reason: str
    fix: str

    def limit(self, app: bool) -> int | None:
        return self.app if app else self.engine


LIMITS: dict[str, Limit] = {
    lim.name: lim
    for lim in (
        Limit(
            "file_bytes",
            "bytes of an uploaded file",
            None,
            5 * MIB,
            "an upload is read into memory whole on a shared server",
            "Upload a sample of the data.",
        ),
        Limit(
            "header_chars",
            "characters in the CSV header line",
            200_000,
            200_000,
            "the header is read before any data, and 1,000 columns never need a longer one",
            "Shorten the column names or drop columns (and check the quoting of the first line).",
        ),
        Limit(
            "columns",
            "feature columns",
            1_000,
            1_000,
            "every feature is binned and searched in every round",
            "Drop feature columns (keep at most 1,000).",
        ),
        Limit(
            "rows",
            "data lines",
            200_000,
            20_000,
            "every line becomes a point the model trains on (the app retrains on every change)",
            "Use a sample of the data.",
        ),
        Limit(
            "fit_work",
            "units of work for one training run (points x features x rounds x classes x depth)",
            None,
            600_000_000,
            "the app retrains on every change on a shared server; the limit is about 10 s of one core",
            "Lower the number of rounds, points, tree depth or classes.",
        ),
        Limit(
            "run_work",
            "units of work for one page's run of several trainings (fits x points x features x rounds x classes "
            "x depth)",
            None,
            6_000_000_000,
            "a page that trains several models holds the shared server for all of them (about 100 s at the "
            "limit)",
            "Lower the number of values or models, rounds, points, tree depth or classes.",
        ),
        Limit(
            "fit_bytes",
            "bytes of memory for one training run",
            4 * GIB,
            512 * MIB,
            "the data, its bins, the scores, weights and histograms of every class are held during training",
            "Lower the number of points, features or classes.",
        ),
        Limit(
            "model_bytes",
            "bytes for the trained model (rounds x leaves x classes)",
            GIB,
            64 * MIB,
            "the model is kept in memory and written to its file",
            "Lower the number of rounds, the tree depth or the number of classes.",
        ),
        Limit(
            "staged_values",
            "staged values kept per model (rounds + 1) x values per round",
            None,
            25_000_000,
            "the app keeps every round's prediction of every point to replay training",
            "Lower the number of rounds or points.",
        ),
        Limit(
            "grid_cells",
            "staged grid cells (rounds + 1) x cells",
            None,
            12_000_000,
            "the app keeps every round's regions to replay them",
            "Lower the number of rounds or the grid size.",
        ),
        Limit(
            "slide_pixels",
            "pixels drawn for one slide export (frames x width x height)",
            400_000_000,
            400_000_000,
            "each frame of a GIF or MP4 replay is drawn and encoded on the server (the 16:9 replay of 101 "
            "rounds is about 230 million)",
            "Choose a smaller slide size.",
        ),
        Limit(
            "slide_marks",
            "point markers drawn for one slide export (frames x points)",
            None,
            400_000,
            "every frame of a GIF or MP4 replay draws each point as a marker on the server, about 15-20 s of one "
            "core at the limit (the replay of 101 rounds of 2,000 points draws about 230,000)",
            "Export the PNG of one round, or use fewer points (about 3,500 at most for a replay).",
        ),
        Limit(
            "points_image_pixels",
            "pixels of the Playground's points drawn as one image (plot area x its scale squared)",
            16_000_000,
            16_000_000,
            "the image is drawn and kept on the server for every plot size (a 2,000 px square plot at twice the "
            "screen's resolution)",
            "Nothing to do: a larger plot draws its points as markers instead.",
        ),
    )
}


class BudgetError(ValueError):
    """A request over the budget; the message names the amount, the limit, the reason and the fix."""


def limit_of(name: str, app: bool = False) -> int | None:
    """The engine (or app) limit of ``LIMITS[name]`` (None: no limit)."""
    return LIMITS[name].limit(app)


def check(name: str, amount: int, *, app: bool = False, detail: str = "") -> int:
    """``amount`` if within ``LIMITS[name]`` (app or engine limit), else a ``BudgetError``. ``detail`` says
    how the amount was counted (e.g. "20,000 points x 2 features x ...")."""
    lim = LIMITS[name]
    high = lim.limit(app)
    if high is not None and amount > high:
        where = "the app" if app else "REBEL Explorer"
        how = f" ({detail})" if detail else ""
        raise BudgetError(
            f"this request needs {amount:,} {lim.what}{how}; {where} allows at most {high:,} because "
            f"{lim.reason}. {lim.fix}"
        )
    return int(amount)


@dataclass(frozen=True)
class FitCost:
    """Estimated cost of one training run (see ``fit_cost``)."""

    work: int
    fit_bytes: int
    model_bytes: int
    detail: str


def fit_cost(
    n_points: int,
    n_features: int,
    n_classes: int,
    n_rounds: int,
    max_depth: int,
    leaves: str = "binary",
    n_thresholds: int = 255,
) -> FitCost:
    """Work and memory of training on ``n_points`` x ``n_features`` with ``n_classes`` classes for ``n_rounds``
    rounds of depth-``max_depth`` trees. Work counts one unit per point, feature, round, class and tree level
    (histograms are built for every level and class; about 15-50 ns a unit on one core). Memory: the float64
    data and its uint8 bins, six (N, K) float64 arrays (costs, scores, weights), the histograms of a level, and
    the model: per round the tree's nodes and K values per leaf (vector leaves) or per round (binary)."""
    N, d, K, T, D = (int(v) for v in (n_points, n_features, n_classes, n_rounds, max_depth))
    leaves_per_tree = 2**D
    per_round = leaves_per_tree * K * 8 if leaves == "vector" else K * 8 + leaves_per_tree
    model = T * (per_round + leaves_per_tree * 16)
    histograms = 2 * d * (int(n_thresholds) + 1) * K * leaves_per_tree * 8
    fit_bytes = N * d * 9 + 6 * N * K * 8 + histograms + model
    detail = f"{N:,} points x {d:,} features x {T:,} rounds x {K:,} classes x depth {D}" + (
        ", vector leaves" if leaves == "vector" else ""
    )
    return FitCost(N * max(d, 1) * T * K * D, fit_bytes, model, detail)


def params_cost(n_points: int, n_features: int, n_classes: int, params: dict) -> FitCost:
    """``fit_cost`` of a ``RebelClassifier`` with ``params`` (missing ones take the estimator's defaults)."""
    int_default = {name: p.default for name, p in INT_PARAMS.items()}
    p = {**int_default, "leaves": CHOICE_PARAMS["leaves"][0], **params}
    return fit_cost(
        n_points, n_features, n_classes, p["n_estimators"], p["max_depth"], p["leaves"], p["n_thresholds"]
    )


def _check_one(cost: FitCost, app: bool) -> None:
    check("model_bytes", cost.model_bytes, app=app, detail=cost.detail)
    check("fit_bytes", cost.fit_bytes, app=app, detail=cost.detail)
    check("fit_work", cost.work, app=app, detail=cost.detail)


def check_fit(cost: FitCost, *, app: bool = False, n_fits: int = 1) -> FitCost:
    """Refuse a training run over the budget (each of ``n_fits`` runs, and all of them together); returns
    ``cost``."""
    detail = cost.detail if n_fits == 1 else f"{n_fits} runs of {cost.detail}"
    _check_one(cost, app)
    if n_fits > 1:
        check("run_work", cost.work * int(n_fits), app=app, detail=detail)
    return cost


@dataclass(frozen=True)
class RunCost:
    """Estimated cost of a page's run of several training runs (see ``run_cost``): the total work, the number
    of fits, the distinct fit costs (each checked on its own) and how the total was counted."""

    work: int
    n_fits: int
    fits: tuple
    detail: str


def run_cost(fits, how: str) -> RunCost:
    """The cost of a run made of ``fits``, pairs ``(count, FitCost)``: the sum of count x work. ``how`` says
    how the fits were counted (e.g. "20 datasets x (40 cost matrices + 1 two-step model)"); the detail adds
    the largest fit."""
    fits = [(int(n), c) for n, c in fits if int(n) > 0]
    n_fits = sum(n for n, _ in fits)
    work = sum(n * c.work for n, c in fits)
    distinct = tuple(dict.fromkeys(c for _, c in fits))
    largest = max(distinct, key=lambda c: c.work, default=None)
    detail = f"{n_fits:,} fits: {how}" + (f"; the largest {largest.detail}" if largest else "")
    return RunCost(work, n_fits, distinct, detail)


def check_run(run: RunCost, *, app: bool = True) -> RunCost:
    """Refuse a run of several fits over the budget before any work: each distinct fit (memory, model, work of
    one fit), then the whole run's work (``run_work``, with how it was counted); returns ``run``."""
    for cost in run.fits:
        _check_one(cost, app)
    check("run_work", run.work, app=app, detail=run.detail)
    return run


def check_staged(n_rounds: int, n_values: int, *, n_cells: int = 0, app: bool = True) -> None:
    """Refuse staged arrays over the budget: (T + 1) x ``n_values`` per round (points, or points x classes)
    per model, and (T + 1) x ``n_cells`` grid cells."""
    stages = int(n_rounds) + 1
    check("staged_values", stages * int(n_values), app=app, detail=f"{stages:,} stages x {n_values:,} values")
    if n_cells:
        check("grid_cells", stages * int(n_cells), app=app, detail=f"{stages:,} stages x {n_cells:,} cells")
