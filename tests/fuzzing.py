"""Hypothesis strategies shared by the schema fuzzers: any JSON value (with the awkward ones: huge and
non-finite numbers, long strings, markdown/HTML payloads) and random in-place mutations of a valid document."""

from __future__ import annotations

from hypothesis import strategies as st

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([0, 1, -1, 2, 3, 2**31, 2**63, -(2**63) - 1, 2**70, 10**400])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([1e308, -1e308, 1.7e308, 5e-324, float("nan"), float("inf"), -float("inf")])
    | st.text(max_size=20)
    | st.sampled_from(["x" * 100_000, "![t](http://x/t.png)", "<img src=x>", "uniform", "int", "str"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
OPS = ["replace", "delete", "extra", "wrap", "nest", "swap", "duplicate", "number"]


def nest(depth: int):
    """A list nested ``depth`` levels deep around 0."""
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def mutate(data, doc):
    """Walk to a random node of ``doc`` and change it (or its parent's entry) in place; returns ``doc``."""
    parent, key, node = None, None, doc
    while isinstance(node, (dict, list)) and node and data.draw(st.integers(0, 4), label="descend") > 0:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        parent, key = node, data.draw(st.sampled_from(keys), label="key")
        node = node[key]
    op = data.draw(st.sampled_from(OPS), label="op")
    if op == "replace" and parent is not None:
        parent[key] = data.draw(JSON, label="value")
    elif op == "delete" and parent is not None:
        del parent[key]
    elif op == "extra" and isinstance(node, dict):
        node[data.draw(st.text(max_size=8), label="new key")] = data.draw(JSON, label="new value")
    elif op == "wrap" and parent is not None:
        parent[key] = [node]
    elif op == "nest" and parent is not None:
        parent[key] = nest(data.draw(st.integers(50, 3000), label="depth"))
    elif op == "swap" and isinstance(node, list) and len(node) >= 2:
        node[0], node[-1] = node[-1], node[0]
    elif op == "duplicate" and isinstance(node, list) and node:
        node.append(node[0])
    elif op == "number" and parent is not None and isinstance(node, (int, float)):
        parent[key] = data.draw(
            st.sampled_from(
                [-node, node + 1, node * 1e300, 2**31, 2**15, 1e308, float("nan"), True, str(node)]
            ),
            label="number",
        )
    return doc
