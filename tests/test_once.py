"""``rebel.ui.once.once_property``: computed once per instance, different instances side by side, and the only
cached property of the app's code (Python 3.11's ``functools.cached_property`` holds one lock for every instance
of a class while it computes: ten sessions' shared pairs computed their test costs one after another)."""

from __future__ import annotations

import ast
import copy
import pickle
import threading
from pathlib import Path

import pytest

from rebel.ui.once import LOCKS, once_property

ROOT = Path(__file__).resolve().parents[1]


class _Slow:
    """A value whose computation waits at a barrier (two parties) or an event, and counts its calls."""

    calls = 0

    def __init__(self, barrier=None, release=None):
        self.barrier, self.release = barrier, release

    @once_property
    def value(self):
        """The doc of the value."""
        type(self).calls += 1
        if self.barrier is not None:
            self.barrier.wait(timeout=30)  # BrokenBarrierError when the other instance could not start
        if self.release is not None:
            assert self.release.wait(timeout=30)
        return object()


def _read_all(objects) -> list:
    out, errors = [None] * len(objects), []

    def read(i, obj):
        try:
            out[i] = obj.value
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(i, o)) for i, o in enumerate(objects)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    return out


def test_two_instances_compute_side_by_side():
    """Each computation waits for the other to have started: under one lock for the class they never meet."""
    barrier = threading.Barrier(2)
    a, b = _Slow(barrier=barrier), _Slow(barrier=barrier)
    va, vb = _read_all([a, b])
    assert va is not None and vb is not None and va is not vb
    assert a.value is va and b.value is vb  # kept


def test_one_instance_read_by_threads_together_computes_once():
    release = threading.Event()
    _Slow.calls = 0
    obj = _Slow(release=release)
    readers = [threading.Thread(target=lambda: obj.value) for _ in range(4)]
    for t in readers:
        t.start()
    release.set()
    for t in readers:
        t.join(timeout=60)
    assert _Slow.calls == 1
    assert obj.value is obj.value


def test_a_deep_copy_or_pickle_starts_without_locks_and_keeps_values():
    """(A shallow copy shares the instance's locks, as it shares its values: harmless re-entrant locks.)"""
    obj = _Slow()
    value = obj.value
    assert LOCKS in vars(obj)
    for other in (copy.deepcopy(obj), pickle.loads(pickle.dumps(obj))):
        assert not vars(other).get(LOCKS)
        assert other.value is not None
    assert copy.copy(obj).value is value


def test_the_descriptor_reads_as_itself_on_the_class():
    assert isinstance(_Slow.value, once_property)
    assert _Slow.value.__doc__ == "The doc of the value."


def _cached_property_uses(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(), filename=str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "functools":
            lines += [node.lineno for alias in node.names if alias.name == "cached_property"]
        elif isinstance(node, ast.Attribute) and node.attr == "cached_property":
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("folder", ["rebel", "pages"])
def test_no_functools_cached_property_in_the_app(folder):
    """Every cached property goes through ``once_property``: a ``functools.cached_property`` fails the build."""
    found = {
        str(p.relative_to(ROOT)): lines
        for p in sorted((ROOT / folder).rglob("*.py"))
        if (lines := _cached_property_uses(p))
    }
    assert not found, f"functools.cached_property (use rebel.ui.once.once_property): {found}"
