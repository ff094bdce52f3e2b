"""The pair of a cost edit the browser computed (``rebel.ui.playground.deferred``): the server's run after it trains
nothing for what the page shows (its key is the key ``train_pair`` gives those costs, its verdict the trained
pair's for the same test costs), trains once when something asks for more, and takes only costs from the page's
message."""

from __future__ import annotations

import numpy as np
import pytest

from rebel.ui.config import APP_MAX_COST, dataset_from_config, preset_config
from rebel.ui.playground import compute as pg
from rebel.ui.playground.deferred import DeferredPair, deferred_or_trained, known_costs
from rebel.ui.state import ModelCache


@pytest.fixture(scope="module")
def scene():
    cfg = preset_config("airport")
    ds = dataset_from_config(cfg)
    hyper = {**cfg.hyper, "n_estimators": 20}
    cache = ModelCache()
    base = pg.train_pair(ds, cfg.cost_matrix, hyper, cache=cache)
    C = np.array(cfg.cost_matrix, dtype=np.float64)
    C[2, 0] = 7.5
    trained = pg.train_pair(ds, C, hyper, cache=ModelCache())
    return ds, hyper, base, C, trained


def _known(pair) -> dict:
    T = pair.n_rounds
    return {
        "REBEL": pair.test_cost(T, "REBEL"),
        "two-step": pair.test_cost(T, "two-step"),
        "blind": pair.blind_cost(T),
        "Bayes": pair.bayes_test_cost,
    }


def test_the_run_after_a_browser_edit_trains_nothing_for_what_it_shows(scene):
    ds, hyper, base, C, trained = scene
    calls = []

    def make():
        calls.append(1)
        return trained

    pair = deferred_or_trained(ds, C, hyper, ModelCache(), {}, base, _known(trained))
    assert isinstance(pair, DeferredPair)
    pair._make = make  # count the trainings of this pair
    assert pair.key == trained.key  # links, the model cache and the next run find it under train_pair's key
    assert pair.n_rounds == trained.n_rounds and pair.classes == trained.classes
    assert pair.grid.shape == trained.grid.shape and pair.has_bayes == trained.has_bayes
    assert pg.verdict(pair, pair.n_rounds) == pg.verdict(trained, trained.n_rounds)
    assert not calls and not pair.trained
    # a view that needs the model (the regions at another round, the details) trains it once
    np.testing.assert_array_equal(pair.regions, trained.regions)
    assert pair.test_cost(0) == trained.test_cost(0)
    assert calls == [1] and pair.trained


def test_a_pair_already_in_the_cache_is_used_and_other_cases_train(scene):
    ds, hyper, base, C, trained = scene
    cache = ModelCache()
    cache.put(trained.key, trained, "pair")
    assert deferred_or_trained(ds, C, hyper, cache, {}, base, _known(trained)) is trained
    # no page numbers, a variant engine or other settings: trained on the server
    assert not isinstance(deferred_or_trained(ds, C, hyper, ModelCache(), {}, base, None), DeferredPair)
    other = {**hyper, "n_estimators": 5}
    got = deferred_or_trained(ds, C, other, ModelCache(), {}, base, _known(trained))
    assert not isinstance(got, DeferredPair) and got.n_rounds == 5


def test_only_costs_are_taken_from_the_page():
    good = {"REBEL": 0.5, "twoStep": 0.25, "blind": 1, "Bayes": 0.125}
    assert known_costs({"costs": good}, True, APP_MAX_COST) == {
        "REBEL": 0.5,
        "two-step": 0.25,
        "blind": 1.0,
        "Bayes": 0.125,
    }
    assert known_costs({"costs": {**good, "Bayes": None}}, False, APP_MAX_COST)["Bayes"] is None
    for bad in (
        None,
        [],
        {**good, "REBEL": "0.5"},
        {**good, "blind": -1},
        {**good, "REBEL": float("nan")},
        {**good, "twoStep": APP_MAX_COST * 2},
        {**good, "Bayes": None},
        {**good, "REBEL": True},
    ):
        assert known_costs({"costs": bad}, True, APP_MAX_COST) is None
    assert known_costs({}, True, APP_MAX_COST) is None and known_costs(None, True, APP_MAX_COST) is None


def test_the_next_run_asks_whether_it_is_a_renamed_view_without_training_it(scene):
    """The main area's next run asks the current pair (the page's, untrained) whether a rename made it
    (``renamed.relabelled``): the answer is no, and nothing is trained to give it."""
    from rebel.ui.playground import renamed

    ds, hyper, base, C, trained = scene
    calls = []
    pair = deferred_or_trained(ds, C, hyper, ModelCache(), {}, base, _known(trained))
    pair._make = lambda: calls.append(1) or trained
    assert renamed.relabelled(pair, ds, C, hyper) is None
    assert getattr(pair, "relabels", pair) is pair and getattr(pair, "trained_key", pair.key) == pair.key
    assert not calls and not pair.trained


def test_a_late_cell_is_entered_by_its_classes_names_or_said_not_applied():
    from rebel.ui.playground.browser_costs import late_cell_costs

    C0 = 1.0 - np.eye(4)
    then = ("A", "B", "C", "D")
    classes = ["A", "B", "Cat", "D"]  # C was renamed Cat while the page computed the edit
    C, message = late_cell_costs(C0, classes, {"i": 0, "j": 1, "text": "7"}, then)
    assert message is None and C[0, 1] == 7.0
    np.testing.assert_array_equal(np.delete(C.ravel(), 1), np.delete(C0.ravel(), 1))
    moved = ["B", "A", "Cat", "D"]  # entered at the same two classes' places now
    C, message = late_cell_costs(C0, moved, {"i": 0, "j": 1, "text": "7"}, then)
    assert message is None and C[1, 0] == 7.0 and C[0, 1] == 1.0
    C, message = late_cell_costs(C0, classes, {"i": 2, "j": 0, "text": "7"}, then)
    assert C is None and "'C'" in message and "Type it again" in message
    C, message = late_cell_costs([[0, 1], [0, 0]], ["A", "B"], {"i": 0, "j": 1, "text": "0"}, ("A", "B"))
    assert C is None and "every cost is 0" in message
    assert late_cell_costs(C0, classes, None, then) == (
        None,
        None,
    )  # a message with no cell: nothing to enter
    outside = ({"i": 9, "j": 0, "text": "7"}, {"i": -1, "j": 0, "text": "7"}, {"i": "x", "j": 0, "text": "7"})
    for cell, known in [(c, then) for c in outside] + [({"i": 0, "j": 1, "text": "7"}, None)]:
        C, message = late_cell_costs(C0, classes, cell, known)  # a cell out of the scene, a scene not known
        assert C is None and "Type it again" in message
    C, message = late_cell_costs(C0, classes, {"i": 0, "j": 1, "text": "x" * 500}, then)
    assert C is None and len(message) < 400  # the text quoted back is cut


def test_each_edit_the_page_tells_is_stored_once_and_acknowledged():
    """The page's message of a computed edit (its page id and the edit's number) is stored and acknowledged in the
    page's script (``__rebelPgAck``); the same edit sent again (the page saw no acknowledgement) is not stored again,
    and a message without a valid number is not taken."""
    import json
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from rebel.ui.playground import browser_costs as bc
    from rebel.ui.state import STATE_KEY

    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=120).run()
    assert not at.exception
    C = np.array(at.session_state[STATE_KEY].cost_matrix, dtype=np.float64)

    def tell(value: float, **fields):
        M = C.copy()
        M[2, 0] = value
        key = at.session_state[bc.BASE].key  # the chart's scene (a new one after each edit the server drew)
        msg = {"key": key, "C": M.tolist(), "page": "p1", "n": 1, "failed": None, "painted": False, **fields}
        at.text_input(key=bc.INPUT).input(json.dumps(msg)).run()
        assert not at.exception
        return at.session_state[STATE_KEY].cost_matrix[2][0]

    def acks() -> list:
        return [
            h.proto.body
            for h in at.get("html")
            if h.proto.body.startswith(f"<script>\nwindow.{bc.ACK_NAME} =")
        ]

    assert acks() and all("= null;" in body for body in acks())  # nothing acknowledged yet
    assert tell(7.5) == 7.5
    assert acks() and all('{"page":"p1","n":1}' in body for body in acks())
    assert tell(9.5, again=1) == 7.5  # the same edit again: stored once
    assert tell(9.5, n=2) == 9.5
    assert tell(3.5, n=True) == 9.5  # not a number
    assert tell(3.5, n=3, page="<b>") == 9.5  # not a page's id
    assert tell(3.5, n=3, page="p2") == 3.5  # another page (opened again): its own numbers
    legacy = {k: v for k, v in json.loads(at.text_input(key=bc.INPUT).value).items() if k != "page"}
    legacy["key"], legacy["C"][2][0] = at.session_state[bc.BASE].key, 4.5
    at.text_input(key=bc.INPUT).input(json.dumps(legacy)).run()  # a page script from before the page ids
    assert at.session_state[STATE_KEY].cost_matrix[2][0] == 4.5


def test_the_page_scripts_sent_through_st_html_hold_no_tag_and_no_dollar_sign():
    """Streamlit drops an ``st.html`` script that holds a tag literally (the page then never gets its payload and every
    cost edit goes to the server), and the app's checks read the page's HTML for live LaTeX: the Playground's page
    scripts write tags as escapes and hold no dollar sign, in their comments too."""
    import re

    from rebel.ui.playground.browser_costs import SCRIPTS

    for path in SCRIPTS:
        text = path.read_text(encoding="utf-8")
        tags = [m.group(0) for m in re.finditer(r"<[A-Za-z/!?][^\n]{0,20}", text)]
        assert not tags, f"{path.name} holds tags written literally: {tags[:5]}; write < as \\x3c"
        assert "$" not in text, f"{path.name} holds a dollar sign; write it as \\x24"
