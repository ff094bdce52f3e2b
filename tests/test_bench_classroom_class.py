"""benchmarks.classroom_class: a cost edit is told to the server in the words the page's script uses, and the
payload the server puts on the page is found again."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchmarks import classroom_class as cc
from rebel.ui.playground import browser_costs
from rebel.ui.text import script_element

JS = Path(browser_costs.__file__).resolve().parents[1] / "browser" / "playground_costs.js"


def test_the_payload_on_the_page_is_found_again():
    data = {"key": "abc", "problem": {"K": 2, "costMatrix": [0, 1, 5, 0]}, "title": "</script><b>x</b>"}
    body = script_element("__rebelPgData", data, ["console.log(1);"])
    assert cc.scene_of(body) == data
    assert cc.scene_of(script_element("__rebelOther", data)) is None
    assert cc.scene_of(script_element("__rebelPgData", {"key": ""})) is None  # no scene: the browser path off


def test_an_edit_is_told_as_the_page_tells_it():
    """The message has the fields the page's ``tell`` writes (read from the script), in its order, numbers as
    JSON.stringify writes them, into the hidden text box the server reads."""
    text = JS.read_text(encoding="utf-8")
    call = re.search(r"message: \{(.*?)\} \};", text, flags=re.DOTALL)
    assert call, "playground_costs.js no longer tells the server a message: {...}"
    fields = re.findall(r"(\w+):", call.group(1))
    costs = {"REBEL": 0.5, "twoStep": 0.75, "Bayes": None, "blind": 1.0}
    msg = cc.edit_message({"key": "k1", "projector": False}, [[0.0, 2.5], [10.0, 0.0]], 3, costs)
    assert list(json.loads(msg)) == fields
    assert json.loads(msg) == {"key": "k1", "C": [[0, 2.5], [10, 0]], "page": "student", "n": 3, "failed": None,
                               "painted": True, "projector": False, "calibrated": False, "costs": costs,
                               "cell": None}  # fmt: skip
    scene = {"key": "k1", "problem": {"K": 2, "costMatrix": [0, 1, 10, 0]}}
    assert cc.typed_cell(scene, [[0.0, 2.5], [10.0, 0.0]]) == {"i": 0, "j": 1, "text": "2.5"}
    assert '"C":[[0,2.5],[10,0]]' in msg
    assert cc.BROWSER_INPUT == browser_costs.INPUT


def test_the_edits_carry_the_engines_costs_and_the_server_takes_them():
    """Each edit of the pool is one cell of the default's matrix changed, with the test costs the engine gives for
    it; the server's reader of the page's message (``deferred.known_costs``) takes them as they are."""
    from rebel.ui.config import APP_MAX_COST
    from rebel.ui.playground.deferred import known_costs

    pool = cc.edit_pool(size=2)
    assert len(pool) == 2
    for C, costs in pool:
        msg = json.loads(cc.edit_message({"key": "k"}, C, 1, costs))
        taken = known_costs(msg, costs["Bayes"] is not None, APP_MAX_COST)
        assert (
            taken is not None and taken["REBEL"] == costs["REBEL"] and taken["two-step"] == costs["twoStep"]
        )
        assert sum(a != b for row_a, row_b in zip(C, pool[0][0]) for a, b in zip(row_a, row_b)) <= 2
