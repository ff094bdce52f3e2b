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
    call = re.search(r"JSON\.stringify\(\{(.*?)\}\)\);", text, flags=re.DOTALL)
    assert call, "playground_costs.js no longer tells the server with JSON.stringify({...})"
    fields = re.findall(r"(\w+):", call.group(1))
    msg = cc.edit_message({"key": "k1", "projector": False}, [[0.0, 2.5], [10.0, 0.0]], 3)
    assert list(json.loads(msg)) == fields
    assert json.loads(msg) == {"key": "k1", "C": [[0, 2.5], [10, 0]], "n": 3, "failed": None, "painted": True,
                               "projector": False}  # fmt: skip
    assert '"C":[[0,2.5],[10,0]]' in msg
    assert cc.BROWSER_INPUT == browser_costs.INPUT
