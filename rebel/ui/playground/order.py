"""The Playground's class order (Streamlit): the sidebar's "Class order" control (a class, moved up or down) and
the trained pair as shown in that order (``InOrder``: its class indices renumbered, so the regions' colours, the
legend, the confusion matrix and the per-class table follow the order; the models keep the sorted order). The
order itself, and how it is kept in links and session files: ``rebel.ui.class_order``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from rebel.ui import components as ui
from rebel.ui.class_order import moved, positions, shown_names
from rebel.ui.once import once_property
from rebel.ui.playground.compute import CLASS_DTYPE, StagedByModel, TrainedPair
from rebel.ui.state import AppState, get_state

S = st.session_state
CLASS_KEY = "w_order_class"  # the class to move (its name)
_SHOWN = "pg_in_order"  # session: (pair key, order, InOrder) of the last pair shown in a set order


def order_of(A: AppState) -> np.ndarray | None:
    """The stored index of each class in the order shown, or None when it is the sorted order."""
    return None if A.class_order is None else positions(A.class_order, A.classes)


def _renumbered_view(staged: bool = False) -> once_property:
    """An ``InOrder`` property: the pair's attribute of the same name renumbered (``_renumbered`` for class
    indices; ``staged``: ``_staged`` for staged classes), computed on first use and kept."""

    def renumber(self):
        source = getattr(self._pair, view.attrname)
        return self._staged(source) if staged else self._renumbered(source)

    view = once_property(renumber)
    return view


class InOrder:
    """A ``TrainedPair`` as its views read it, with class k of the order shown as class index k: staged classes,
    labels, regions, the cost matrix, the class names; everything else is the pair's own. Renumbered on first use
    and kept (a lookup of K entries per array)."""

    def __init__(self, pair: TrainedPair, perm):
        self._pair, self._perm = pair, np.asarray(perm, dtype=np.intp)
        self._rank = np.empty(len(perm), dtype=CLASS_DTYPE)
        self._rank[self._perm] = np.arange(len(perm))
        self.key = f"{pair.key}:{','.join(map(str, self._perm))}"

    def __getattr__(self, name):  # rounds, grid, test costs, weights...: the pair's own
        return getattr(self._pair, name)

    @property
    def unordered(self) -> TrainedPair:
        """The pair in the models' (sorted) order."""
        return self._pair

    @property
    def trained_key(self) -> str:  # the key of the models shown (``renamed``)
        return getattr(self._pair, "trained_key", self._pair.key)

    def _renumbered(self, indices):
        return None if indices is None else self._rank[indices]

    def _staged(self, staged) -> StagedByModel:
        return StagedByModel({m: (lambda m=m: self._renumbered(staged[m])) for m in staged})

    @once_property
    def classes(self) -> tuple:
        return tuple(self._pair.classes[p] for p in self._perm)

    @once_property
    def dataset(self):  # for its points and names (its labels are read through the renumbered indices)
        return replace(self._pair.dataset, classes=self.classes)

    @once_property
    def cost_matrix(self) -> np.ndarray:
        return np.asarray(self._pair.cost_matrix)[np.ix_(self._perm, self._perm)]

    # the pair's class-index arrays, renumbered on first use
    regions = _renumbered_view()
    two_step_regions = _renumbered_view()
    bayes_regions = _renumbered_view()
    y_train_idx = _renumbered_view()
    y_test_idx = _renumbered_view()
    blind_test = _renumbered_view()
    staged_train = _renumbered_view(staged=True)
    staged_test = _renumbered_view(staged=True)

    def blind_region(self, t: int) -> np.ndarray:
        return self._renumbered(self._pair.blind_region(t))

    # the pair's own round views, read from this object's renumbered arrays
    metrics = TrainedPair.metrics
    train_predictions = TrainedPair.train_predictions
    test_predictions = TrainedPair.test_predictions


def shown(pair: TrainedPair | None, A: AppState):
    """``pair`` as the views show it: itself in the sorted order, else its ``InOrder`` (the last one kept in the
    session, so a rerun renumbers nothing)."""
    perm = order_of(A)
    if pair is None or perm is None:
        return pair
    kept = S.get(_SHOWN)
    if kept is None or kept[0] != pair.key or kept[1] != A.class_order:
        kept = S[_SHOWN] = (pair.key, A.class_order, InOrder(pair, perm))
    return kept[2]


def _on_move(step: int, costs_key: str) -> None:
    A = get_state()
    try:
        A.class_order = moved(A.class_order, A.classes, S.get(CLASS_KEY), step)
    except ValueError as exc:  # a class box drawn before the classes changed
        ui.flash("error", f"Class order not changed: {exc}")
        return
    ui.reset_cost_editor(costs_key, A.cost_matrix)


def controls(A: AppState, where, costs_key: str) -> None:
    """The sidebar's "Class order": pick a class and move it up or down; the costs' rows and columns, the legend
    and the colours follow (kept in the link and the session file)."""
    names = shown_names(A.class_order, A.classes)
    if S.get(CLASS_KEY) not in names:
        S[CLASS_KEY] = names[0]
    box = where.expander("Class order", icon=":material/swap_vert:")
    box.caption(ui.md("Costs, legend and colours in this order: {}.", " · ".join(names)))
    a, b, c = box.columns([3, 1, 1], vertical_alignment="bottom")
    a.selectbox("Class to move", names, key=CLASS_KEY)
    for col, step, icon, key, text in (
        (
            b,
            -1,
            ":material/arrow_upward:",
            "w_order_up",
            "Move it up: one place earlier in the costs, legend and colours.",
        ),
        (c, 1, ":material/arrow_downward:", "w_order_down", "Move it down: one place later."),
    ):
        col.button(
            "",
            icon=icon,
            key=key,
            help=ui.plain(text),
            on_click=ui.guarded_callback(_on_move),
            args=(step, costs_key),
        )


def unordered(pair):
    """``pair`` in the models' (sorted) order: ``pair`` itself, or the pair an ``InOrder`` shows."""
    return pair.unordered if isinstance(pair, InOrder) else pair
