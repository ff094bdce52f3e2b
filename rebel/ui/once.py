"""``once_property``: a property computed once per instance and kept, safe when threads read it together.

The Playground's trained pairs are shared by the server's sessions (``rebel.ui.state.SHARED_PAIRS``), and their
staged predictions, test costs and regions are computed on first read. ``functools.cached_property`` does that,
but under Python 3.11 it holds one lock per *attribute of the class*, shared by every instance, while it computes:
when ten sessions opened ten different configurations at the app's limits, each session's ``test_costs`` (seconds
of work) waited for every other session's, and the server ran one session at a time on one core. Python 3.12
dropped that lock (and with it the once-only guarantee).

``once_property`` keeps the guarantee per instance: one lock per instance and attribute, so sessions sharing one
pair compute each value once (the others wait for it), while different pairs compute side by side. A value that
reads another ``once_property`` of the same instance in the same thread does not wait for itself (a re-entrant
lock); no property here reads one that reads it back, so two threads cannot wait for each other.
"""

from __future__ import annotations

import threading

LOCKS = "_once_property_locks"  # instance.__dict__ key: {attribute name: RLock} (not a computed value)


class _Locks(dict):
    """An instance's locks: a deep copy or a pickle of the instance starts with none of them (a shallow copy
    shares them, as it shares the values)."""

    def __reduce__(self):
        return (_Locks, ())

    def __copy__(self):
        return _Locks()

    def __deepcopy__(self, memo):
        return _Locks()


class once_property:
    """A read-only property whose value ``func(instance)`` is computed on first read (by one thread per
    instance; the others wait for it) and kept in the instance's ``__dict__``, as ``functools.cached_property``
    without its lock shared by every instance of the class under Python 3.11."""

    def __init__(self, func):
        self.func = func
        self.attrname: str | None = None
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__

    def __set_name__(self, owner, name: str) -> None:
        if self.attrname is not None and name != self.attrname:
            raise TypeError(f"one once_property cannot be two attributes ({self.attrname!r} and {name!r}).")
        self.attrname = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        name, kept = self.attrname, instance.__dict__
        if name in kept:
            return kept[name]
        # dict.setdefault is atomic under the GIL: every thread gets the same lock of this instance's attribute
        lock = kept.setdefault(LOCKS, _Locks()).setdefault(name, threading.RLock())
        with lock:
            if name not in kept:
                kept[name] = self.func(instance)
            return kept[name]
