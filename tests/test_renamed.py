"""A renamed class relabels the Playground's trained pair instead of training again (``rebel.ui.playground.renamed``):
the same points split the same way under new names give a view of the same models, its class indices in the new
sorted order, its numbers the pair's own; anything else (moved points, a class split in two, other costs or
settings) still trains."""

from __future__ import annotations

import numpy as np
import pytest

from rebel.data import PRESETS, DatasetSpec
from rebel.ui.config import dataset_from_spec
from rebel.ui.playground import compute as pg
from rebel.ui.playground import renamed as rn
from rebel.ui.playground.order import InOrder
from rebel.ui.state import AppState, ModelCache

HYPER = {"n_estimators": 12, "max_depth": 2, "n_thresholds": 32}
SPEC = PRESETS["fig7"].spec


def _data(rename: dict | None = None, moved: bool = False):
    m = SPEC.mixture.copy()
    for old, new in (rename or {}).items():
        m.loc[m["class"] == old, "class"] = new
    if moved:
        m.loc[0, "mean_x"] += 0.5
    return dataset_from_spec(DatasetSpec(m, 300, SPEC.test_fraction, SPEC.seed, SPEC.label_noise))


@pytest.fixture(scope="module")
def base():
    ds = _data()
    C = np.ones((4, 4)) - np.eye(4)
    C[0, 2] = 5.0  # A taken for C
    return pg.train_pair(ds, C, HYPER, grid_size=40)


def _costs(pair, perm):
    return np.asarray(pair.cost_matrix)[np.ix_(perm, perm)]


def test_a_rename_in_the_same_order_is_the_same_pair_under_new_names(base):
    new = _data({"C": "Cat"})
    perm = rn.relabelling(base.dataset, new)
    assert perm.tolist() == [0, 1, 2, 3]
    view = rn.relabelled(base, new, base.cost_matrix, HYPER)
    assert not isinstance(view, InOrder)  # a TrainedPair: the browser's cost edits stay on
    assert view.classes == ("A", "B", "Cat", "D") and view.dataset is new
    assert view.rebel is base.rebel and view.regions is base.regions and view.trained_key == base.key
    assert view.key != base.key  # a new figure (new legend), the same models
    assert (
        view.metrics(base.n_rounds).cost == base.metrics(base.n_rounds).cost
    )  # the same arrays, summed alike
    np.testing.assert_array_equal(view.y_test_idx, new.class_index(new.y_test))


def test_a_rename_that_moves_a_class_in_the_sorted_order_renumbers_the_pair(base):
    new = _data({"A": "Zebra"})
    perm = rn.relabelling(base.dataset, new)
    assert perm.tolist() == [1, 2, 3, 0]  # B C D Zebra: Zebra is the old A
    view = rn.relabelled(base, new, _costs(base, perm), HYPER)
    assert isinstance(view, rn.Relabelled) and view.classes == ("B", "C", "D", "Zebra")
    assert view.trained_key == base.key
    np.testing.assert_array_equal(view.y_train_idx, new.class_index(new.y_train))
    np.testing.assert_array_equal(view.regions, np.argsort(perm)[base.regions])
    T = base.n_rounds
    np.testing.assert_array_equal(view.metrics(T).confusion, base.metrics(T).confusion[np.ix_(perm, perm)])
    # what a training on the renamed points would show: the same regions under the new names
    fresh = pg.train_pair(new, _costs(base, perm), HYPER, grid_size=40)
    assert np.mean(fresh.regions[T] == view.regions[T]) > 0.99
    # a rename back (of the view) is the base pair's names again: a view of the same models
    again = rn.relabelled(view, _data({"A": "Ant"}), base.cost_matrix, HYPER)
    assert again is not None and again.trained_key == base.key and again.classes == ("Ant", "B", "C", "D")


@pytest.mark.parametrize(
    "new, costs, hyper",
    [
        (lambda: _data({"C": "Cat"}, moved=True), None, None),  # other points
        (lambda: _data({"A": "B"}), None, None),  # two classes merged
        (lambda: _data({"C": "Cat"}), "other", None),  # other costs
        (lambda: _data({"C": "Cat"}), None, {**HYPER, "max_depth": 1}),  # other settings
    ],
    ids=["points moved", "merged", "costs", "settings"],
)
def test_anything_but_a_rename_trains_again(base, new, costs, hyper):
    ds = new()
    C = base.cost_matrix if costs is None else np.where(np.eye(ds.n_classes) > 0, 0.0, 2.0)
    if ds.n_classes != base.dataset.n_classes:
        C = np.ones((ds.n_classes, ds.n_classes)) - np.eye(ds.n_classes)
    assert rn.relabelled(base, ds, C, hyper or HYPER) is None


def test_a_class_split_in_two_is_not_a_rename(base):
    m = SPEC.mixture.copy()
    m.loc[6, "class"] = "Eel"  # D's second cluster only
    ds = dataset_from_spec(DatasetSpec(m, 300, SPEC.test_fraction, SPEC.seed, SPEC.label_noise))
    assert rn.relabelling(base.dataset, ds) is None


def test_the_state_keeps_the_relabelled_pair_without_a_fit(base):
    A = AppState(
        dataset=_data({"C": "Cat"}), cost_matrix=base.cost_matrix, hyper=dict(HYPER), models=ModelCache()
    )
    A.models.put(base.key, base, "pair")
    A.pair_key = base.key
    view = rn.trained(A, {})
    assert view.trained_key == base.key and A.pair_key == view.key and A.trained is view
    assert len(A.models) == 2  # the base pair and its view: no model fitted
    A.dataset = _data({"C": "Cat"}, moved=True)
    assert not rn.trained(A, {}).key.startswith(base.key)  # other points: trained


def test_a_later_run_keeps_the_view_and_a_rename_of_a_view_relabels_the_first_pair(base):
    new = _data({"C": "Cat"})
    view = rn.relabelled(base, new, base.cost_matrix, HYPER)
    assert rn.relabelled(view, new, base.cost_matrix, HYPER) is view  # the page's next run: nothing new
    again = rn.relabelled(view, _data({"C": "Cow"}), base.cost_matrix, HYPER)
    assert again.relabels is base and again.classes == ("A", "B", "Cow", "D")
    assert rn.relabelled(again, _data(), base.cost_matrix, HYPER) is base  # renamed back: the pair itself
