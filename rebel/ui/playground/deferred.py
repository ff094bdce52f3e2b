"""A Playground pair whose costs the browser has computed and drawn: trained on the server only when asked.

After a cost edit the page computed itself (``browser_costs``), the server's run that follows (the message tray's
verdict alone, or the main area keeping the chart the browser drew) makes the costs' pair current; it needs the
pair's key, data, settings and grid (the same as the pair the chart was drawn from) and the test costs after the
last round for the verdict (the page's numbers, equal to the server engine's within 1e-12:
``tests/e2e/test_browser_costs.py``). ``DeferredPair`` has those; anything
else (a detail view, a lesson's checks, an overlay, a server-path edit's chart) trains the pair with
``train_pair`` on first use, once, and reads it from there.
"""

from __future__ import annotations

import threading

import numpy as np

from rebel.costs import validate_cost_matrix
from rebel.ui.config import validate_hyper
from rebel.ui.playground import compute as pg

# what only a renamed view of a pair has (``renamed``), never a pair ``train_pair`` makes: asked without training
VIEW_ONLY = ("relabels", "trained_key")
# the page's names of the test costs after the last round, and the pair's
KNOWN = {"REBEL": "REBEL", "twoStep": "two-step", "blind": "blind", "Bayes": "Bayes"}


class DeferredPair:
    """The ``TrainedPair`` ``make()`` returns, made on first use of anything but its key, data, settings, grid,
    rounds and the test costs ``known`` after the last round ({"REBEL", "two-step", "blind", "Bayes"}: floats,
    Bayes None without a known mixture), which are those of ``base`` (the pair the chart was drawn from: the same
    data, settings and grid) and the page's."""

    def __init__(self, base, cost_matrix, key: str, known: dict, make):
        self.dataset, self.hyper, self.grid = base.dataset, base.hyper, base.grid
        self.cost_matrix = np.asarray(cost_matrix, dtype=np.float64)
        self.key, self.known, self._base, self._make = key, dict(known), base, make
        self._pair = None
        self._lock = threading.Lock()

    @property
    def trained(self) -> bool:
        """Whether the pair has been made (something asked for more than this object knows)."""
        return self._pair is not None

    def pair(self):
        """The trained pair (made now if it is not yet)."""
        with self._lock:
            if self._pair is None:
                self._pair = self._make()
        return self._pair

    def __getattr__(self, name):  # everything else: the trained pair's own
        if name.startswith("__") or name in ("_pair", "_make", "_base", "_lock") or name in VIEW_ONLY:
            raise AttributeError(name)
        return getattr(self.pair(), name)

    @property
    def n_rounds(self) -> int:
        return self._base.n_rounds

    @property
    def classes(self) -> tuple:
        return self.dataset.classes

    @property
    def has_bayes(self) -> bool:
        return self._base.has_bayes

    @property
    def posterior_model(self):  # the 0-1 model (costs ignored): the same for every cost matrix of this data
        return self._base.posterior_model

    @property
    def y_test_idx(self):
        return self._base.y_test_idx

    def clamp(self, t: int) -> int:
        return int(min(max(int(t), 0), self.n_rounds))

    def _last(self, t: int) -> bool:
        return self._pair is None and self.clamp(t) == self.n_rounds

    def test_cost(self, t: int, model: str = "REBEL") -> float:
        if self._last(t) and model in self.known:
            return self.known[model]
        return self.pair().test_cost(t, model)

    def blind_cost(self, t: int) -> float:
        return self.known["blind"] if self._last(t) else self.pair().blind_cost(t)

    @property
    def bayes_test_cost(self) -> float | None:
        return self.known["Bayes"] if self._pair is None else self.pair().bayes_test_cost


def known_costs(message: dict | None, has_bayes: bool, max_cost: float) -> dict | None:
    """The test costs after the last round from the page's message (``message["costs"]``), as ``DeferredPair``
    takes them, or None when they are missing or not costs (finite, 0 to ``max_cost``; Bayes None without a known
    mixture)."""
    raw = (message or {}).get("costs")
    if not isinstance(raw, dict):
        return None
    out = {}
    for name, ours in KNOWN.items():
        value = raw.get(name)
        if ours == "Bayes" and not has_bayes:
            out[ours] = None
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        value = float(value)
        if not (np.isfinite(value) and 0 <= value <= max_cost):
            return None
        out[ours] = value
    return out


def deferred_or_trained(dataset, cost_matrix, hyper: dict, cache, engine: dict, base, known: dict | None):
    """The Playground's pair for these costs: when the browser drew them on ``base`` (``known``: the page's test
    costs after the last round; None: it did not), a ``DeferredPair`` (the one already in ``cache`` if any), else
    trained (``pg.train_pair``). ``base`` is the pair the chart was drawn from, of the same data (the caller
    checks)."""
    make = lambda: pg.train_pair(dataset, cost_matrix, hyper, cache=cache, engine=engine)
    if base is None or known is None or engine or base.hyper != validate_hyper(hyper):
        return make()
    C = validate_cost_matrix(cost_matrix, n_classes=dataset.n_classes)
    key = pg.pair_key(dataset, C, dict(base.hyper), base.grid.shape)
    found = cache.get(key)
    if found is not None:
        return found
    return DeferredPair(base, C, key, known, make)
