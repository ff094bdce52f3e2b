"""The order a user sets for the Playground's classes: the order of the cost matrix's rows and columns, of the
legend and of the class colours on screen. The models keep the sorted class order of ``rebel.data`` (scikit-learn's
``classes_``); the order shown is a permutation of it, kept in links and session files as the class names in the
order shown (``Config.order``; absent when it is the sorted order, so older links and files read as before).

- ``checked_order(order, classes)``: a stored order as a tuple of names, or None for the sorted order; a
  ``ValueError`` names what is wrong with it.
- ``positions(order, classes)``: the stored index of each class shown, in the order shown (a permutation).
- ``moved(order, classes, name, step)``: the order with class ``name`` moved ``step`` places (-1 up, +1 down).
- ``followed(order, old, new)``: the order after the classes changed (a rename keeps its class's place).

No streamlit here.
"""

from __future__ import annotations

import numpy as np


def _names(classes) -> tuple:
    return tuple(str(c) for c in classes)


def checked_order(order, classes) -> tuple | None:
    """``order`` (class names in the order shown, or None) as a tuple, or None when it is the sorted order of
    ``classes``. Raises ``ValueError`` unless it lists every class exactly once."""
    if order is None:
        return None
    names = _names(classes)
    try:
        shown = tuple(str(c) for c in order)
    except TypeError:
        raise ValueError(
            f"the class order is {order!r}; give the class names as a list in the order wanted."
        ) from None
    if sorted(shown) != sorted(names) or len(set(shown)) != len(shown):
        raise ValueError(
            f"the class order {list(shown)[:20]} does not list the classes {list(names)} once each; fix the "
            "'order' entry or remove it (the classes are then shown in sorted order)."
        )
    return None if shown == names else shown


def shown_names(order, classes) -> tuple:
    """The class names in the order shown."""
    return _names(classes) if order is None else tuple(order)


def positions(order, classes) -> np.ndarray:
    """(K,) int: the index in ``classes`` of each class in the order shown (the identity for None)."""
    names = _names(classes)
    if order is None:
        return np.arange(len(names))
    where = {name: i for i, name in enumerate(names)}
    return np.array([where[name] for name in order], dtype=np.intp)


def ranks(order, classes) -> np.ndarray:
    """(K,) int: the place shown of each class of ``classes`` (the inverse of ``positions``)."""
    perm = positions(order, classes)
    out = np.empty_like(perm)
    out[perm] = np.arange(len(perm))
    return out


def shown_matrix(cost_matrix, order, classes) -> np.ndarray:
    """The cost matrix (rows and columns in the order of ``classes``) in the order shown."""
    perm = positions(order, classes)
    return np.asarray(cost_matrix, dtype=np.float64)[np.ix_(perm, perm)]


def moved(order, classes, name, step: int) -> tuple | None:
    """The order with class ``name`` moved ``step`` places (negative: up, towards the first), stopping at the
    ends; None when that is the sorted order."""
    shown = list(shown_names(order, classes))
    if str(name) not in shown:
        raise ValueError(f"class {name!r} is not one of the classes {shown}; choose one of them.")
    i = shown.index(str(name))
    j = min(max(i + int(step), 0), len(shown) - 1)
    shown.insert(j, shown.pop(i))
    return checked_order(shown, classes)


def renamed(old_classes, new_classes) -> dict:
    """``{old name: new name}`` when exactly one class was replaced by one new class (a rename), else ``{}``."""
    old, new = set(_names(old_classes)), set(_names(new_classes))
    gone, came = old - new, new - old
    return {gone.pop(): came.pop()} if len(gone) == len(came) == 1 else {}


def followed(order, old_classes, new_classes) -> tuple | None:
    """The order once the classes changed from ``old_classes`` to ``new_classes``: the classes kept stay in their
    order; one class replaced by one new class (a rename) takes its place; other new classes go last, sorted.
    None when the result is the sorted order (as it is when no order was set and no class was renamed)."""
    order = _names(old_classes) if order is None else tuple(order)
    new = _names(new_classes)
    rename = renamed(order, new)
    shown = [rename.get(name, name) for name in order if name in new or name in rename]
    return checked_order(shown + sorted(set(new) - set(shown)), new)
