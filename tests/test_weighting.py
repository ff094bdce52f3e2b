"""When training with the costs pays (rebel.experiments.weighting, the Theory page's section 5): the page quotes
the stored regime map for the rare-costly-class cell and what ten fresh draws of that regime measure (weighting
against the logistic two-step method, the boosted two-step method against both); each figure is checked here
against the map and against the draws, recomputed; the page shows one draw with its verdict."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from rebel.experiments import stats
from rebel.experiments import weighting as wt
from rebel.ui import theory as th
from rebel.ui.text import visible

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
MAP = json.loads((ROOT / "docs" / "regime_map.json").read_text(encoding="utf-8"))["methods"]
# the page's texts: its string literals (adjacent literals are one), joined
PAGE = "\n".join(
    n.value
    for n in ast.walk(ast.parse((ROOT / "pages" / "9_Theory.py").read_text(encoding="utf-8")))
    if isinstance(n, ast.Constant) and isinstance(n.value, str)
)


def _minus(text: str) -> str:
    return text.replace("-", "−")


@pytest.fixture(scope="module")
def redrawn() -> pd.DataFrame:
    return wt.trials(wt.REDRAWS)


def test_the_boosted_two_step_is_the_cheapest_on_at_least_8_of_10_fresh_draws(redrawn):
    means = wt.per_dataset(redrawn)
    print("\n" + wt.report(redrawn))
    assert len(means) == wt.REDRAWS == 10 and len(redrawn) == 10 * wt.N_COSTS
    assert sum(wt.boosting_cheapest(r) for _, r in means.iterrows()) >= 8


def test_the_page_quotes_what_the_fresh_draws_measure(redrawn):
    means = wt.per_dataset(redrawn)
    k = sum(wt.weighting_cheaper(r) for _, r in means.iterrows())
    b = sum(wt.boosting_cheapest(r) for _, r in means.iterrows())
    assert f"weighting was cheaper on {k} of the 10 draws" in PAGE
    assert ("cheaper than both on all 10" if b == 10 else f"cheaper than both on {b} of the 10") in PAGE
    s = stats.compare_costs(redrawn, "weighted_linear", "two_step_linear")
    assert _minus(f"(difference {s['diff']:.4f}, 95 % CI {s['diff_lo']:.4f} to {s['diff_hi']:+.4f})") in PAGE
    held = s["diff_lo"] < 0 < s["diff_hi"]  # the interval contains 0: the map's cell is not confirmed
    assert held == ("it did not hold up" in PAGE)
    boost = stats.compare_costs(redrawn, "two_step_boost", "weighted_linear")
    assert f"({boost['a_cost']:.4f} against {boost['b_cost']:.4f})" in PAGE


def test_the_pages_map_figures_are_the_stored_maps():
    rare = next(r for r in MAP["rows"] if r["factor"] == "rare costly class")
    v = rare["same_model"]["weighted_linear vs two_step_linear"]
    pairs = [v for r in MAP["rows"] for v in r["same_model"].values()]
    wins = [k for r in MAP["rows"] for k, v in r["same_model"].items() if v["diff_hi"] < 0]
    assert f"{len(wins)} of {len(pairs)} comparisons" in PAGE
    assert all(not k.startswith("rebel ") for k in wins) and "never REBEL" in PAGE
    assert _minus(f"difference {v['diff']:.4f}, 95 % CI {v['diff_lo']:.4f} to {v['diff_hi']:.4f}") in PAGE
    assert f"{len(MAP['rows'])} regimes, {rare['cs_vs_two_step']['trials']} held-out trials" in PAGE


def test_the_claims_can_fail():
    both = pd.Series({"weighted_linear": 0.5, "two_step_linear": 0.6, "two_step_boost": 0.4})
    assert wt.weighting_cheaper(both) and wt.boosting_cheapest(both)
    assert not wt.weighting_cheaper(both.replace({0.6: 0.45}))
    assert not wt.boosting_cheapest(both.replace({0.4: 0.55}))


def test_one_draw_is_reproducible_and_gives_every_method_a_cost_per_matrix():
    costs = wt.dataset_costs(0, n_costs=2)
    assert list(costs.columns) == ["dataset", "cost_id", *wt.METHODS] and len(costs) == 2
    assert (costs[list(wt.METHODS)] > 0).all().all()
    assert np.array_equal(costs.to_numpy(), wt.dataset_costs(0, n_costs=2).to_numpy())


def test_the_theory_page_shows_a_draw_with_its_verdict():
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("pages/9_Theory.py")
    at.run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    at.number_input(key="th_pays_draw").set_value(1)
    at.run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    means = at.session_state["th_pays"]
    expected, table = th.weighting_check(1)
    assert np.array_equal(means.to_numpy(), expected.to_numpy()) and len(table) == wt.N_COSTS
    verdict = visible(th.weighting_verdict(means))
    assert any(visible(c.value) == verdict for c in at.caption)
    assert re.search(r"costs \d\.\d{4} against \d\.\d{4}", verdict)
