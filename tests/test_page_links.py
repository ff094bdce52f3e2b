"""Links restore each analysis page's own settings (``rebel.ui.page_link``): a link that changes every setting
of a page reopens it with those settings in its widgets and keeps them in the address bar; a value the widget
would not accept is ignored with a note; a link without them (an older link) opens the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rebel.ui import page_link

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 120

# page -> (query parameters changing every setting, the widget values they must give)
LINKS = {
    "pages/2_REBEL_vs_two_step.py": (
        {
            "source": "playground",
            "n_datasets": "3",
            "n_costs": "5",
            "n_rounds": "17",
            "max_depth": "2",
            "seed": "4242",
            "posterior": "softmax",
            "loss": "logistic",
            "leaves": "vector",
            "learning_rate": "0.35",
            "sweep": "1",
        },
        {
            "w2_source": "playground",
            "w2_n_datasets": 3,
            "w2_n_costs": 5,
            "w2_n_rounds": 17,
            "w2_max_depth": 2,
            "w2_seed": 4242,
            "w2_posterior": "softmax",
            "w2_loss": "logistic",
            "w2_leaves": "vector",
            "w2_learning_rate": 0.35,
            "w2_sweep": True,
        },
    ),
    "pages/3_Risk_paths.py": ({"t": "12", "regions": "stumps"}, {"rp_t": 12, "rp_regions": "stumps"}),
    "pages/4_Cost_gallery.py": (
        {"c": "D", "other": "A", "m": "4.5", "test": "1"},
        {"gal_c": "D", "gal_other": "A", "gal_m": 4.5, "gal_test": True},
    ),
    "pages/5_Trees_and_depth.py": (
        {"depth": "3", "rounds": "37", "study_rounds": "40", "study_splits": "2"},
        {"w5_depth": 3, "w5_rounds": 37, "w5_study_rounds": 40, "w5_study_splits": 2},
    ),
    "pages/6_Real_data.py": (
        {
            "dataset": "wine",
            "cost": "random",
            "seed": "12",
            "rounds": "60",
            "depth": "2",
            "methods": "rebel,one_vs_all",
        },
        {
            "w6_dataset": "wine",
            "w6_cost": "random",
            "w6_seed": 12,
            "w6_rounds": 60,
            "w6_depth": 2,
            "w6_methods": ["rebel", "one_vs_all"],
        },
    ),
    "pages/7_Example_costs.py": (
        {
            "n_datasets": "2",
            "n_costs": "6",
            "n_rounds": "33",
            "max_depth": "3",
            "lambdas": "0.5,8.0",
            "engine": "vector",
            "seed": "99",
        },
        {
            "w7_n_datasets": 2,
            "w7_n_costs": 6,
            "w7_n_rounds": 33,
            "w7_max_depth": 3,
            "w7_lambdas": [0.5, 8.0],
            "w7_engine": "vector",
            "w7_seed": 99,
        },
    ),
    "pages/8_Cost_sweep.py": (
        {"truth": "liquid", "pred": "harmless", "lo": "0.5", "hi": "50", "n": "7"},
        {"sw_truth": "liquid", "sw_pred": "harmless", "sw_lo": 0.5, "sw_hi": 50.0, "sw_n": 7},
    ),
    "pages/9_Theory.py": ({"depth": "3", "rounds": "25"}, {"th_depth": 3, "th_rounds": 25}),
}


def _open(page: str, params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(params)
    at.switch_page(page)
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.mark.parametrize("page", list(LINKS))
def test_a_link_restores_every_setting_of_the_page(page):
    params, want = LINKS[page]
    at = _open(page, params)
    for key, value in want.items():
        assert at.session_state[key] == value, (key, at.session_state[key])
    at.run(timeout=TIMEOUT)  # a rerun keeps them, and the address bar still holds them
    for key, value in want.items():
        assert at.session_state[key] == value, key
    for name, text in params.items():
        assert at.query_params[name] in (text, [text]), (name, at.query_params[name])


@pytest.mark.parametrize("page", list(LINKS))
def test_an_old_link_opens_the_defaults_and_a_bad_value_is_ignored_with_a_note(page):
    params, want = LINKS[page]
    defaults = _open(page, {})
    first, *_, last = params
    at = _open(page, {first: "lots", last: "-3"})
    key = dict(zip(params, want, strict=True))  # the query name -> the widget key (same order)
    for name in (first, last):
        assert at.session_state[key[name]] == defaults.session_state[key[name]], name
    notes = " ".join(w.value for w in at.warning)
    assert "The link's settings" in notes and "lots" in notes and "-3" in notes, notes


def test_setting_values_are_checked_against_the_widgets_limits():
    seed = page_link.Setting("seed", "k", "int", 0, 10)
    assert seed.decode("7") == 7
    for bad in ("11", "-1", "x", "nan", "1.5"):
        with pytest.raises(ValueError, match="seed must be a whole number from 0 to 10"):
            seed.decode(bad)
    lams = page_link.Setting("lambdas", "k", "choices", choices=(0.5, 8.0))
    assert lams.decode(lams.encode([0.5, 8.0])) == [0.5, 8.0]
    rounds = page_link.Setting("rounds", "k", "int", 10, 300, step=10)
    assert rounds.decode("40") == 40
    with pytest.raises(ValueError, match="in steps of 10"):
        rounds.decode("45")
    with pytest.raises(ValueError, match="lambdas must be some of 0.5, 8.0"):
        lams.decode("0.5,9")
    flag = page_link.Setting("sweep", "k", "bool")
    assert flag.decode(flag.encode(True)) is True
    with pytest.raises(ValueError, match="sweep must be 0 or 1"):
        flag.decode("yes")
