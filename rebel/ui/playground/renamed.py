"""Renamed classes without training again: a class name is a label, not part of what the models learn.

A rename in the clusters table (every cluster of a class given a new name) draws the same points with the same
partition into classes; only the names differ, and so, perhaps, their sorted order. The Playground's trained pair
for the old names is then shown under the new ones (``relabelled``): its class indices renumbered into the new
sorted order (an ``InOrder`` view when the order changes, a copy sharing every array when it does not), its
dataset the new one. Nothing is fitted and nothing is lost: the numbers, the regions and the rounds are the pair's
own. The view's ``trained_key`` is the key of the models it shows (the regions figure names it, so a browser test
can tell a relabelling from a training).

- ``relabelling(old, new)``: the permutation taking ``old``'s classes to ``new``'s when the two datasets differ
  only by class names, else None.
- ``relabelled(last, dataset, cost_matrix, hyper, engine)``: ``last`` under ``dataset``'s names, or None when a
  training is needed (other points, costs or settings).
- ``trained(A, engine)``: the Playground's pair for the current state: relabelled when it can be, else trained
  (``compute.train_pair``).

No widgets here.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rebel.data import Dataset
from rebel.ui.config import content_key, validate_hyper
from rebel.ui.once import LOCKS, once_property
from rebel.ui.playground import compute as pg
from rebel.ui.playground.order import InOrder
from rebel.ui.state import AppState


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b)


def relabelling(old: Dataset, new: Dataset) -> np.ndarray | None:
    """(K,) int ``perm`` with class j of ``new`` (sorted order) the class ``perm[j]`` of ``old``, when ``new``
    has the same points as ``old``, split the same way into the same number of classes (a class renamed, any
    number of them), and the same known mixture apart from its class names; else None."""
    K = len(new.classes)
    if len(old.classes) != K or not (_same(old.X_train, new.X_train) and _same(old.X_test, new.X_test)):
        return None
    y_old = np.concatenate([old.class_index(old.y_train), old.class_index(old.y_test)])
    y_new = np.concatenate([new.class_index(new.y_train), new.class_index(new.y_test)])
    perm = np.full(K, -1, dtype=np.intp)
    perm[y_new] = y_old
    if (perm < 0).any() or len(set(perm.tolist())) != K or not np.array_equal(perm[y_new], y_old):
        return None
    if (old.mixture is None) != (new.mixture is None):
        return None
    if old.mixture is not None:
        name = {str(old.classes[p]): str(new.classes[j]) for j, p in enumerate(perm)}
        before = old.mixture.assign(**{"class": old.mixture["class"].astype(str).map(name)})
        if not before.reset_index(drop=True).equals(new.mixture.reset_index(drop=True)):
            return None
    return perm


class Relabelled(InOrder):
    """A trained pair under new class names whose sorted order differs from the old one: ``InOrder``'s
    renumbering, with the new dataset (names, labels, mixture) in place of the old one."""

    def __init__(self, pair: pg.TrainedPair, perm, dataset: Dataset, key: str):
        super().__init__(pair, perm)
        self._dataset, self.key = dataset, key

    @once_property
    def classes(self) -> tuple:
        return tuple(self._dataset.classes)

    @once_property
    def dataset(self):
        return self._dataset

    @property
    def trained_key(self) -> str:
        return self._pair.key


def _base(pair):
    """The trained pair a view made here shows (a pair itself otherwise)."""
    return pair._pair if isinstance(pair, Relabelled) else getattr(pair, "relabels", pair)


def relabelled(last, dataset: Dataset, cost_matrix, hyper: dict, engine: dict | None = None):
    """``last`` (a trained pair, or a view of one made here) shown under ``dataset``'s class names: a new view,
    ``last`` itself when it is that view already, the trained pair when its own names are back; or None when
    ``dataset`` is not the trained pair's points under other names, or the costs (read in the new names), the
    hyper-parameters or the engine's options are not the ones it was trained with (a training is needed)."""
    if last is None:
        return None
    base = _base(last)
    if not isinstance(base, pg.TrainedPair) or (last is base and base.dataset is dataset):
        return None
    try:
        if base.hyper != validate_hyper(hyper):
            return None
    except ValueError:
        return None
    params = base.rebel.get_params()
    if any(params.get(k) != v for k, v in {**base.hyper, **(engine or {})}.items()):
        return None
    perm = relabelling(base.dataset, dataset)
    C = np.asarray(cost_matrix, dtype=np.float64)
    if perm is None or not _same(np.asarray(base.cost_matrix)[np.ix_(perm, perm)], C):
        return None
    names = tuple(map(str, dataset.classes))
    if names == tuple(map(str, base.classes)):
        return None if last is base else base  # a rename back: the trained pair itself
    if last is not base and names == tuple(map(str, last.classes)):
        return last  # the view made for these names (a later run of the page)
    key = f"{base.key}~{content_key(list(map(str, dataset.classes)))[:10]}"
    if np.array_equal(perm, np.arange(len(perm))):  # the same order: the pair itself, with its new names
        view = dataclasses.replace(base, dataset=dataset, cost_matrix=C, key=key)
        own = {f.name for f in dataclasses.fields(base)}
        own.add(LOCKS)  # (the view computes with locks of its own)
        view.__dict__.update({k: v for k, v in base.__dict__.items() if k not in own})  # computed rounds
        view.trained_key, view.relabels = base.key, base
        return view
    return Relabelled(base, perm, dataset, key)


def trained(A: AppState, engine: dict, train=None):
    """The Playground's pair for ``A``: the pair shown last under the new names after a rename (no training; the
    state keeps it as the current pair, so the replay stays at its round), else ``train``'s (default
    ``compute.train_pair``; called as it is)."""
    view = relabelled(A.trained, A.dataset, A.cost_matrix, A.hyper, engine)
    if view is None:
        return (train or pg.train_pair)(A.dataset, A.cost_matrix, A.hyper, cache=A.models, engine=engine)
    A.models.put(view.key, view, "pair")
    A.pair_key = view.key  # the same models, renamed: not a new training (no replay from t = 0)
    return view
