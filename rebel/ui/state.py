"""The app's one typed cross-page state and its one model cache.

- ``AppState``: what the pages share, kept in ``st.session_state[STATE_KEY]`` (widget keys are dropped when a
  page is left, this object is not): the designed mixture ``spec`` and preset name, the ``dataset`` in use
  (drawn from the spec or uploaded as CSV: ``data_source``), the ``cost_matrix`` (K, K) in sorted class order,
  the hyper-parameters ``hyper``, the costs remembered per set of class names ``costs_by_classes`` and the
  model cache ``models`` and the last slide export ``exports`` (``KeptFile``). ``get_state()`` returns it
  (created empty on first use).
- ``ModelCache``: a bounded least-recently-used store of fitted models and trained pairs keyed by content
  (``model_key``: dataset, cost matrix, hyper-parameters), so a model trained on one page is found by every
  other page that asks for the same problem, and memory stays bounded per session.
- ``SharedLRU`` / ``SHARED_PAIRS``: a process-wide bounded least-recently-used store (with a lock) of the
  Playground's trained pairs by content key, shared by all sessions of the server: a class of students on one
  configuration holds one copy of its pair (read-only once stored), not one per student; a pair the store has
  dropped is still found while a live session holds it (a weak index), and gone once none does.
- ``Problem``: the dataset, costs and hyper-parameters a page works on: the shared state's when the Playground
  has set them, else a preset's defaults (``problem_or_default``).
- ``ClassIndices``: ``y_train_idx`` / ``y_test_idx`` (the dataset's labels as class indices) for ``Problem``
  and the Playground's ``TrainedPair``.

Only ``get_state`` touches streamlit; everything else is plain Python so tests can build states directly.
"""

from __future__ import annotations

import itertools
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rebel import budget
from rebel.costs import uniform_costs, validate_cost_matrix
from rebel.data import PRESETS, Dataset, DatasetSpec
from rebel.estimator import RebelClassifier
from rebel.params import APP_DEFAULTS
from rebel.ui.config import (
    DEFAULT_PRESET,
    content_key,
    dataset_from_config,
    dataset_key,
    preset_config,
    validate_hyper,
)
from rebel.ui.once import once_property
from rebel.ui.text import Markdown, md

LOG = logging.getLogger("rebel.ui")
STATE_KEY = "rebel_state"
CACHE_LIMITS = {"model": 12, "pair": 3}  # entries kept per session: fitted models, Playground pairs (larger)
# Playground pairs the process-wide store keeps for sessions still to come (~8 MiB each at default settings), and
# at most this many bytes of their arrays; the pairs live sessions hold are found besides (``SharedLRU``)
SHARED_PAIR_LIMIT = 8
SHARED_PAIR_BYTES = 32 * 2**20
KEPT_FILE_BYTES = (
    32 * 2**20
)  # the largest slide export a session keeps (a 16:9 replay of 2,000 points: ~20 MB)


class ModelCache:
    """Fitted models (group "model") and Playground pairs (group "pair") by content key; in each group the
    least recently used entries beyond its limit (``limits``) are dropped."""

    def __init__(self, limits: dict | None = None):
        self.limits = dict(CACHE_LIMITS if limits is None else limits)
        self._items: OrderedDict[str, tuple] = OrderedDict()  # key -> (group, value)

    def __contains__(self, key: str) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str):
        """The stored value (marked as recently used), or None."""
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key][1]

    def put(self, key: str, value, group: str = "model") -> None:
        if group not in self.limits:
            raise ValueError(f"cache group is {group!r}; use one of {list(self.limits)}.")
        self._items[key] = (group, value)
        self._items.move_to_end(key)
        keys = [k for k, (g, _) in self._items.items() if g == group]
        for k in keys[: max(0, len(keys) - self.limits[group])]:
            del self._items[k]

    def get_or_fit(self, key: str, fit: Callable[[], Any], group: str = "model"):
        """The value under ``key``, computed by ``fit()`` and stored on a miss (errors are not stored)."""
        value = self.get(key)
        if value is None:
            value = fit()
            self.put(key, value, group)
        return value


class SharedLRU:
    """A bounded least-recently-used store shared by the threads (sessions) of one process: ``get`` and
    ``put`` hold a lock (the work that builds a value does not), at most ``limit`` entries (and ``max_bytes`` of
    their arrays) are kept. A value still held elsewhere (a live session's pair, in its own cache) is found by
    its key after the store dropped it: sessions share a value as long as one of them holds it, and the store
    itself keeps only the most recent ones for sessions still to come (closed sessions' values go back)."""

    def __init__(self, limit: int, max_bytes: int | None = None):
        if int(limit) < 0:
            raise ValueError(f"limit is {limit!r}; give a count of entries >= 0.")
        self.limit, self.max_bytes = int(limit), max_bytes
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._alive: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # key -> value held anywhere
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._items

    def get(self, key: str):
        """The stored value (marked as recently used), the value under ``key`` some session still holds, or
        None."""
        with self._lock:
            if key not in self._items:
                return self._alive.get(key)
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: str, value):
        """Store ``value`` under ``key`` unless a value is there (or still held elsewhere) already; returns the
        stored one, so two sessions that built the same value at once end up holding one copy."""
        with self._lock:
            held = self._alive.get(key)
            value = self._items.setdefault(key, value if held is None else held)
            self._items.move_to_end(key)
            try:
                self._alive[key] = value
            except TypeError:  # (bytes: not weakly referable; kept by the store alone)
                pass
            while len(self._items) > self.limit or (
                self.max_bytes is not None
                and len(self._items) > 1
                and sum(map(array_bytes, self._items.values())) > self.max_bytes
            ):
                self._items.popitem(last=False)
            return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._alive.clear()


class KeptFile:
    """One session's last drawn file (a slide export) by key, so a second click does not draw it again: one file
    at most, of at most ``max_bytes`` (a larger one is handed out and not kept), and the last failure of each
    kind of file (``failures``: kind -> message) for the page to show. Thread-safe: a download's file is drawn
    outside the page's run."""

    def __init__(self, max_bytes: int = KEPT_FILE_BYTES):
        self.max_bytes = int(max_bytes)
        self.failures: dict[str, str] = {}
        self._key, self._data = None, None
        self._lock = threading.Lock()

    @property
    def nbytes(self) -> int:
        return 0 if self._data is None else len(self._data)

    def get_or_make(self, key: tuple, make: Callable[[], bytes]) -> bytes:
        """The file kept under ``key``, else ``make()`` (kept in place of the previous one if small enough)."""
        with self._lock:
            if self._key == key:
                return self._data
        data = make()
        with self._lock:
            self._key, self._data = (key, data) if len(data) <= self.max_bytes else (None, None)
        return data

    def deferred(self, kind: str, make: Callable[[], bytes], key: tuple | None = None) -> Callable[[], bytes]:
        """What a download button calls on its click: ``make()`` (through ``get_or_make`` when a ``key`` is
        given); a failure is logged and its message kept in ``failures[kind]`` (a success clears it) before it
        propagates, so the page's next run can say what went wrong."""

        def run() -> bytes:
            try:
                data = make() if key is None else self.get_or_make(key, make)
            except Exception as exc:
                LOG.exception("the %s export failed", kind)
                self.failures[kind] = (
                    str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
                )
                raise
            self.failures.pop(kind, None)
            return data

        return run

    def forget_unless(self, first) -> None:
        """Drop the kept file unless its key starts with ``first`` (the model it was drawn from changed)."""
        with self._lock:
            if self._key is not None and self._key[0] != first:
                self._key, self._data = None, None


def array_bytes(value) -> int:
    """Bytes a stored value holds: its own length if it is bytes (an encoded image), else the numpy arrays it
    holds in its attributes (one level deep)."""
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    return (
        sum(v.nbytes for v in vars(value).values() if isinstance(v, np.ndarray))
        if hasattr(value, "__dict__")
        else 0
    )


SHARED_PAIRS = SharedLRU(SHARED_PAIR_LIMIT, SHARED_PAIR_BYTES)


def model_key(dataset: Dataset, cost_matrix, hyper: dict) -> str:
    """Content key of a REBEL fit: the dataset's points, the cost matrix (None = 0-1) and hyper-parameters. A
    given 0-1 matrix has None's key: ``RebelClassifier`` fits None as that matrix, so the Playground's cost-blind
    model is the REBEL fit itself when the costs are 0-1 (trained once, not twice)."""
    C = None if cost_matrix is None else np.asarray(cost_matrix, dtype=np.float64)
    if C is not None and C.ndim == 2 and C.shape[0] == C.shape[1] >= 2:
        C = None if np.array_equal(C, uniform_costs(C.shape[0])) else C
    return content_key(
        "rebel", dataset_key(dataset), C if C is not None else "0-1", dict(sorted(hyper.items()))
    )


@dataclass
class AppState:
    """Cross-page state (see the module docstring). ``dataset is None`` until the Playground has run."""

    spec: DatasetSpec | None = None
    dataset: Dataset | None = None
    cost_matrix: np.ndarray | None = None
    hyper: dict = field(default_factory=lambda: dict(APP_DEFAULTS))
    preset: str = ""
    data_source: str = "mixture"  # "mixture" (drawn from spec) or "csv" (uploaded points)
    upload: tuple = ()  # uploaded points in use: (key in ``rebel.ui.uploads``' store, test share, seed of the split,
    # the two columns drawn)
    upload_table: Dataset | None = None  # the uploaded points with every feature column (``dataset`` has two)
    costs_by_classes: dict = field(default_factory=dict)  # tuple of class names -> (K, K) costs last used
    models: ModelCache = field(default_factory=ModelCache)
    exports: KeptFile = field(default_factory=KeptFile)  # the last slide export drawn (one file, bounded)
    pair_key: str = ""  # cache key of the Playground's current trained pair
    engine: str = "paper"  # a key of rebel.ui.variants.ENGINES: the Playground's engine for both models
    # the classes in the order shown (``rebel.ui.class_order``); None: sorted
    class_order: tuple | None = None

    @property
    def classes(self) -> tuple:
        return () if self.dataset is None else tuple(self.dataset.classes)

    @property
    def trained(self):
        """The Playground's current ``TrainedPair`` (None before its first training or once evicted)."""
        return self.models.get(self.pair_key) if self.pair_key else None

    def set_costs(self, cost_matrix) -> None:
        """Make ``cost_matrix`` current and remember it for this set of class names."""
        self.cost_matrix = np.array(cost_matrix, dtype=np.float64)
        self.costs_by_classes[tuple(map(str, self.classes))] = self.cost_matrix.copy()

    def remembered_costs(self, classes) -> np.ndarray | None:
        """The costs last used with exactly these class names, or None."""
        C = self.costs_by_classes.get(tuple(map(str, classes)))
        return None if C is None else C.copy()

    def fit(self, dataset: Dataset, cost_matrix, hyper: dict, **override) -> RebelClassifier:
        """REBEL fitted on ``dataset`` (``override`` entries win over ``hyper``), from the cache when possible."""
        params = {**validate_hyper(hyper), **override}
        return self.models.get_or_fit(
            model_key(dataset, cost_matrix, params), lambda: fit_rebel(dataset, cost_matrix, params)
        )


def get_state(session=None) -> AppState:
    """The session's ``AppState`` (``session`` defaults to ``st.session_state``), created on first use."""
    if session is None:
        import streamlit as st

        session = st.session_state
    state = session.get(STATE_KEY)
    if not isinstance(state, AppState):
        state = AppState()
        session[STATE_KEY] = state
    return state


def fit_cost_of(dataset: Dataset, hyper: dict) -> budget.FitCost:
    """The budget cost (``rebel.budget``) of fitting REBEL with ``hyper`` on the dataset's training points."""
    X = dataset.X_train
    return budget.params_cost(X.shape[0], X.shape[1], dataset.n_classes, hyper)


def check_fits(dataset: Dataset, hyper: dict, n_fits: int = 1) -> budget.FitCost:
    """Refuse ``n_fits`` REBEL fits with ``hyper`` on the dataset over the app's budget, before any work."""
    return budget.check_fit(fit_cost_of(dataset, hyper), app=True, n_fits=n_fits)


def fit_rebel(dataset: Dataset, cost_matrix, hyper: dict) -> RebelClassifier:
    """REBEL with ``hyper`` fitted on the dataset's training points (no cache; see ``AppState.fit``), after
    checking the fit against the app's budget (``rebel.budget``; a ``BudgetError`` says what to lower)."""
    check_fits(dataset, hyper)
    return RebelClassifier(cost_matrix=cost_matrix, **hyper).fit(dataset.X_train, dataset.y_train)


def iter_staged_scores(model: RebelClassifier, X):
    """Yield H after a0 (t = 0) and after every round, one (N, K) array at a time (the risk scores of Eq. 3):
    nothing here holds more than one round, whatever the number of rounds."""
    yield from model.staged_risk_scores(X, include_bias=True)


def staged_scores(model: RebelClassifier, X) -> np.ndarray:
    """H at t = 0..T in one array (T + 1, N, K), filled round by round (never a list of all rounds), after
    checking its size against the app's budget (``rebel.budget``: staged values)."""
    X = np.asarray(X)
    T, K = model.n_estimators_, model.classes_.shape[0]
    budget.check_staged(T, X.shape[0] * K)
    out = np.empty((T + 1, X.shape[0], K))
    for t, H in enumerate(iter_staged_scores(model, X)):
        out[t] = H
    return out


def scores_at(model: RebelClassifier, X, t: int) -> np.ndarray:
    """H_t(x) after the first t rounds (t clamped to 0..T), shape (N, K): streamed, one round held at a time."""
    t = int(min(max(int(t), 0), model.n_estimators_))
    return next(itertools.islice(iter_staged_scores(model, X), t, None))


# ---------------------------------------------------------------------------------------------------------------
# The problem a page works on
# ---------------------------------------------------------------------------------------------------------------


class ClassIndices:
    """Mixin for a holder of ``dataset``: its training and test labels as class indices 0..K-1 (computed on
    first use and kept; works on frozen dataclasses too)."""

    dataset: Dataset

    @once_property
    def y_train_idx(self) -> np.ndarray:
        return self.dataset.class_index(self.dataset.y_train)

    @once_property
    def y_test_idx(self) -> np.ndarray:
        return self.dataset.class_index(self.dataset.y_test)


@dataclass(frozen=True)
class Problem(ClassIndices):
    """Dataset, cost matrix (sorted class order) and hyper-parameters; ``source`` says where they came from."""

    dataset: Dataset
    cost_matrix: np.ndarray
    hyper: dict
    preset: str = ""  # name of the preset the data was drawn from (unchanged), else ""
    source: str = "default"  # "playground" or "default"

    @property
    def classes(self) -> tuple:
        return tuple(self.dataset.classes)

    @property
    def key(self) -> str:
        return model_key(self.dataset, self.cost_matrix, self.hyper)


def default_problem(preset: str = DEFAULT_PRESET, hyper: dict | None = None) -> Problem:
    """A preset's dataset and suggested costs with the Playground's default hyper-parameters."""
    cfg = preset_config(preset, hyper)
    return Problem(dataset_from_config(cfg), cfg.cost_matrix, dict(cfg.hyper), preset, "default")


def problem_from_state(state: AppState, default_preset: str = DEFAULT_PRESET) -> Problem:
    """The Playground's shared problem, or the default preset's when the Playground has not been opened.
    Raises ``ValueError`` if the shared state is inconsistent (the page then says so and uses the defaults)."""
    ds, C = state.dataset, state.cost_matrix
    if ds is None or C is None:
        return default_problem(default_preset)
    C = validate_cost_matrix(C, n_classes=ds.n_classes)
    hyper = validate_hyper(dict(state.hyper or APP_DEFAULTS))
    preset = str(state.preset or "")
    if (
        state.data_source != "mixture"
        or preset not in PRESETS
        or tuple(PRESETS[preset].classes) != tuple(ds.classes)
    ):
        preset = ""
    return Problem(ds, C, hyper, preset, "playground")


def problem_or_default(state: AppState, default_preset: str = DEFAULT_PRESET) -> tuple[Problem, str | None]:
    """``problem_from_state``, falling back to the default preset when the shared state cannot be used; the
    second value is then the warning a page shows (else None)."""
    try:
        return problem_from_state(state, default_preset), None
    except ValueError as exc:
        note = f"The Playground's data could not be used ({exc}); showing the {default_preset!r} preset."
        return default_problem(default_preset), note


def problem_caption(problem: Problem) -> Markdown:
    """One line of markdown (``md``: values escaped) on the data in use."""
    ds, h = problem.dataset, problem.hyper
    what = md(
        "{} training / {} test points, {} classes; {} rounds, {} thresholds",
        len(ds.y_train),
        len(ds.y_test),
        ds.n_classes,
        h["n_estimators"],
        h["n_thresholds"],
    )
    if problem.source == "playground":
        return md(
            "Using the Playground's dataset and cost matrix ({}). Change them on the Playground page.", what
        )
    return md(
        "The Playground has not been opened yet: using the **{}** preset with its suggested costs ({}). Open "
        "the Playground to work on your own problem.",
        problem.preset,
        what,
    )
