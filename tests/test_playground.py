"""rebel.ui.config and rebel.ui.playground.compute: configuration round trips, parsers, helpers and the trained pair's staged results."""

from __future__ import annotations

import base64
import dataclasses
import json
import zlib

import numpy as np
import pandas as pd
import pytest

from rebel import RebelClassifier
from rebel.baselines import staged_min_risk_indices
from rebel.cost_presets import fn_costs
from rebel.costs import decompose, min_risk_class, uniform_costs
from rebel.data import PRESETS, DatasetSpec, bayes_min_risk
from rebel.ui import config as cf
from rebel.ui.playground import compute as pg
from rebel.ui.state import ModelCache, SharedLRU, model_key
from tests.processes import run_python


@pytest.fixture(scope="module")
def small_pair():
    spec = DatasetSpec(PRESETS["fig7"].spec.mixture, n_points=300, seed=3)
    ds = cf.dataset_from_spec(spec)
    return pg.train_pair(
        ds, fn_costs(4, 2, 10), {"n_estimators": 12, "max_depth": 2, "n_thresholds": 32}, grid_size=40
    )


@pytest.mark.parametrize("engine", ["paper", "vector"])
def test_config_session_and_query_round_trip(engine):
    cfg = cf.preset_config("airport", {"n_estimators": 7, "max_depth": 3, "n_thresholds": 20}, engine)
    for back in (
        cf.parse_session_json(cf.session_json(cfg)),
        cf.parse_session_json(cf.session_json(cfg).encode()),
        cf.decode_query(cf.encode_query(cfg)),
    ):
        assert back.to_dict() == cfg.to_dict()
        assert back.key() == cfg.key() and back.engine == engine
    assert len(cf.encode_query(cfg)) < 1500  # fits comfortably in a URL


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b"{oops", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"spec": {}}', "cost_matrix is missing"),
        (b'{"format": "something-else", "spec": {}, "cost_matrix": []}', "format"),
        (b"\xff\xfe", "UTF-8"),
    ],
)
def test_bad_session_files_name_the_problem(data, fragment):
    with pytest.raises(ValueError, match=fragment):
        cf.parse_session_json(data)


def test_session_with_wrong_cost_shape_or_hyper():
    d = cf.preset_config("xor").to_dict()
    with pytest.raises(ValueError, match="2 classes"):
        cf.Config.from_dict({**d, "cost_matrix": np.ones((3, 3)).tolist()})
    with pytest.raises(ValueError, match="max_depth"):
        cf.Config.from_dict({**d, "hyper": {"max_depth": 9}})
    with pytest.raises(ValueError, match="unknown entry"):
        cf.validate_hyper({"learning_rate": 0.1})
    with pytest.raises(ValueError, match="engine is 'turbo'; choose one of"):
        cf.Config.from_dict({**d, "engine": "turbo"})
    assert cf.Config.from_dict({k: v for k, v in d.items() if k != "engine"}).engine == "paper"  # older files


def test_damaged_query_string():
    with pytest.raises(ValueError, match="damaged"):
        cf.decode_query("abc")


def test_cost_cell_accepts_refuses_and_keeps_a_positive_cost():
    C = np.array([[0, 1, 2], [3, 0, 4], [5, 6, 0.0]])
    classes = ("a", "b", "c")
    new, message = cf.apply_cost_cell(C, 1, 2, "9", classes)
    assert message is None and new[1, 2] == 9 and C[1, 2] == 4  # a copy: the input matrix is untouched
    kept, message = cf.apply_cost_cell(C, 1, 2, float("nan"), classes)
    np.testing.assert_array_equal(kept, C)
    assert "predicting 'c' when the truth is 'b'" in message and "It stays 4" in message
    one = np.zeros((3, 3))
    one[0, 1] = 2.0
    kept, message = cf.apply_cost_cell(one, 0, 1, "0", classes)
    np.testing.assert_array_equal(kept, one)
    assert "every cost is 0" in message and "It stays 2" in message


def _type_cost(C, entry, typed):
    """The cost editor of classes ("ok", "bad") showing C, with ``typed`` entered at ``entry``: (costs, messages)."""
    new, message = cf.apply_cost_cell(C, *entry, typed, ("ok", "bad"))
    return new, [] if message is None else [message]


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("-5", "is negative"),
        ("abc", "is not a number"),
        ("1e12", "at most 1,000,000"),
        ("", "is empty"),
        (None, "is empty"),
        ("  ", "is empty"),
        ("nan", "not a finite number"),
        (float("nan"), "not a finite number"),
        ("inf", "not a finite number"),
        ("1,5", "has a comma"),
        ("1_000", "is not a number"),
    ],
)
def test_typed_costs_are_refused_with_a_reason_and_the_old_value_stays(typed, reason):
    C = np.array([[0, 1.0], [20, 0]])
    kept, messages = _type_cost(C, (1, 0), typed)
    np.testing.assert_array_equal(kept, C)
    assert len(messages) == 1 and reason in messages[0] and "It stays 20" in messages[0]


@pytest.mark.parametrize(
    ("typed", "value"), [("1e3", 1000.0), ("2.5", 2.5), (" 7 ", 7.0), ("0", 0.0), ("1E-2", 0.01)]
)
def test_typed_costs_are_stored_as_typed(typed, value):
    C = np.array([[0, 1.0], [20, 0]])
    new, messages = _type_cost(C, (0, 1), typed)
    assert messages == [] and new[0, 1] == value and new[1, 0] == 20


def test_resize_cost_matrix_keeps_costs_by_name():
    C = np.array([[0, 2, 3], [4, 0, 5], [6, 7, 0.0]])
    out = cf.resize_cost_matrix(C, ("a", "b", "c"), ("a", "c", "d"))
    np.testing.assert_array_equal(out, [[0, 3, 1], [6, 0, 1], [1, 1, 0]])


def test_add_box_cluster():
    mixture = PRESETS["xor"].spec.mixture
    out = cf.add_box_cluster(mixture, "ok", (1.0, 3.0), (4.0, 2.0))
    assert len(out) == len(mixture) + 1
    row = out.iloc[-1]
    assert (row["class"], row["mean_x"], row["mean_y"], row["std_x"], row["std_y"]) == (
        "ok",
        2.0,
        3.0,
        1.0,
        1.0,
    )
    assert (
        cf.add_box_cluster(mixture, "new", (0, 0), (0, 1)).iloc[-1]["std_x"] > 0
    )  # degenerate box still valid
    with pytest.raises(ValueError, match="class"):
        cf.add_box_cluster(mixture, " ", (0, 1), (0, 1))


def test_box_from_selection():
    sel = {"points": [], "box": [{"xref": "x", "yref": "y", "x": [2.0, -1.0], "y": [0.5, 3.0]}], "lasso": []}
    assert pg.box_from_selection(sel) == ((-1.0, 2.0), (0.5, 3.0))
    assert pg.box_from_selection({"box": []}) is None
    assert pg.box_from_selection({"box": [{"x": [None, 1], "y": [0, 1]}]}) is None
    assert pg.box_from_selection(None) is None


def test_dataset_csv_round_trip():
    ds = cf.dataset_from_spec(DatasetSpec(PRESETS["xor"].spec.mixture, n_points=90, seed=1))
    back = cf.parse_dataset_csv(cf.dataset_to_csv(ds).encode())
    np.testing.assert_array_equal(back.X_train, ds.X_train)
    np.testing.assert_array_equal(back.y_test, ds.y_test)
    assert back.classes == ds.classes


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("a,label\n" + "".join(f"{i},{'ab'[i % 2]}\n" for i in range(30)), "1 feature column"),
        ("x,y,label\n1,2,a\n1,oops,b\n3,4,a\n5,6,b\n", "oops"),
        ("x,y,label\n1,2,a\n1,2,a\n3,4,a\n5,6,a\n", "single class"),
        ("x,y,label,split\n1,2,a,train\n1,2,b,train\n3,4,a,valid\n5,6,b,test\n", "valid"),
        ("x,y,label,split\n1,2,a,train\n1,2,b,train\n3,4,c,test\n5,6,b,test\n", "'c' has no training points"),
        ("", "CSV"),
    ],
)
def test_bad_csv_names_the_problem(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        cf.parse_dataset_csv(text.encode())


def test_csv_without_split_is_split_at_random():
    rows = "\n".join(f"{i},{i % 3},{'ab'[i % 2]}" for i in range(30))
    ds = cf.parse_dataset_csv(f"x,y,label\n{rows}\n", test_fraction=0.2, seed=0)
    assert len(ds.y_test) == 6 and len(ds.y_train) == 24


def test_taxonomy_tree_helpers():
    tree = cf.parse_tree_json(cf.default_tree_json(["a", "b", "c"]))
    assert tree == {"a": "group 1", "b": "group 1", "c": "group 2"}
    with pytest.raises(ValueError, match="not valid JSON"):
        cf.parse_tree_json("{")


def test_grid_covers_points_and_budget():
    X = np.array([[0.0, -1.0], [2.0, 3.0]])
    g = pg.make_grid(X, 10)
    assert g.points.shape == (100, 2) and g.shape == (10, 10)
    assert g.xs[0] < 0 and g.xs[-1] > 2 and g.ys[0] < -1 and g.ys[-1] > 3
    assert pg.grid_size_for(100) == pg.GRID_SIZE
    assert (pg.grid_size_for(1000) + 0) ** 2 * 1001 <= pg.GRID_BUDGET


def test_content_key_changes_with_content():
    a = np.arange(6.0)
    assert cf.content_key(a, {"x": 1}) == cf.content_key(a.copy(), {"x": 1})
    assert cf.content_key(a, {"x": 1}) != cf.content_key(a + 1e-12, {"x": 1})
    assert cf.content_key(np.array(["a", "b"], dtype=object)) != cf.content_key(
        np.array(["b", "a"], dtype=object)
    )


def test_staged_regions_match_the_model(small_pair):
    p = small_pair
    T = p.n_rounds
    assert p.regions.shape == (T + 1, 40, 40) and p.regions.dtype == np.uint8
    final = np.argmax(p.rebel.decision_function(p.grid.points), axis=1).reshape(p.grid.shape)
    np.testing.assert_array_equal(p.regions[T], final)
    np.testing.assert_array_equal(p.regions[0], np.argmax(p.rebel.a0_))


def test_staged_class_indices_kept_as_uint8_equal_to_the_engines_int16(small_pair):
    p = small_pair
    X_tr, X_te, cells = p.dataset.X_train, p.dataset.X_test, p.grid.points
    engine = {  # what the engine returns (int16), against what the pair keeps
        "regions": (p.regions, p.rebel.staged_class_indices(cells).reshape(p.regions.shape)),
        "two_step_regions": (
            p.two_step_regions,
            staged_min_risk_indices(p.posterior_model, cells, p.cost_matrix).reshape(p.regions.shape),
        ),
        "train REBEL": (p.staged_train["REBEL"], p.rebel.staged_class_indices(X_tr)),
        "test two-step": (
            p.staged_test["two-step"],
            staged_min_risk_indices(p.posterior_model, X_te, p.cost_matrix),
        ),
        "blind_test": (p.blind_test, p.posterior_model.staged_class_indices(X_te)),
    }
    for name, (kept, full) in engine.items():
        assert kept.dtype == np.uint8 and full.dtype == np.int16, name
        assert kept.nbytes * 2 == full.nbytes, name
        np.testing.assert_array_equal(kept.astype(np.int64), full.astype(np.int64), err_msg=name)
    blind = p.posterior_model.staged_class_indices(cells).reshape(p.regions.shape)
    for t in (0, 3, p.n_rounds, 3):
        region = p.blind_region(t)
        assert region.dtype == np.uint8 and region.shape == p.grid.shape
        np.testing.assert_array_equal(region.astype(np.int64), blind[t].astype(np.int64))
    assert sorted(p.blind_rounds) == [3, p.n_rounds]  # the last round and the last one asked, not T + 1


def test_zero_one_costs_train_one_model_for_both_methods(small_pair, monkeypatch):
    """With 0-1 costs REBEL's fit is the cost-blind fit (``RebelClassifier`` fits None as the 0-1 matrix): the
    pair trains once, and its two-step method decides on that model's posteriors; other costs still train two."""
    p = small_pair
    fits = []
    real = pg.fit_rebel
    monkeypatch.setattr(pg, "fit_rebel", lambda ds, C, hyper: fits.append(C) or real(ds, C, hyper))
    K = p.dataset.n_classes
    q = pg.train_pair(
        p.dataset, uniform_costs(K), p.hyper, grid_size=8, cache=ModelCache(), shared=SharedLRU(4)
    )
    assert len(fits) == 1 and q.posterior_model is q.rebel
    assert model_key(p.dataset, uniform_costs(K), p.hyper) == model_key(p.dataset, None, p.hyper)
    alone = RebelClassifier(**p.hyper).fit(p.dataset.X_train, p.dataset.y_train)
    np.testing.assert_array_equal(
        q.rebel.predict_proba(p.dataset.X_test), alone.predict_proba(p.dataset.X_test)
    )
    C = uniform_costs(K)
    C[0, 1] = 2.0
    pg.train_pair(p.dataset, C, p.hyper, grid_size=8, cache=ModelCache(), shared=SharedLRU(4))
    assert len(fits) == 3
    assert model_key(p.dataset, C, p.hyper) != model_key(p.dataset, None, p.hyper)


def test_a_cost_edit_reuses_what_the_zero_one_model_shows(small_pair):
    """The 0-1 model (costs ignored) is the same after a cost edit: its staged classes on the test points and its
    grid rounds are computed once per model, and the new pair's numbers under the new costs are exact."""
    p = small_pair
    cache = ModelCache()
    cache.put(model_key(p.dataset, None, p.hyper), p.posterior_model)
    p.blind_region(2)
    C = p.cost_matrix.copy()
    C[0, 1] += 3.0
    q = pg.train_pair(p.dataset, C, p.hyper, grid_size=p.grid.shape[0], cache=cache, shared=SharedLRU(4))
    assert q.posterior_model is p.posterior_model and q.rebel is not p.rebel
    assert q.blind_test is p.blind_test and q.blind_rounds is p.blind_rounds
    # the two-step method on the test points: the 0-1 model's posteriors are kept, the decision is the new costs'
    X_te = q.dataset.X_test
    p.staged_test["two-step"]
    key = ("posteriors", X_te.tobytes())
    kept = pg.zero_one_kept(p.posterior_model, key, list)
    assert len(kept) == q.n_rounds + 1
    np.testing.assert_array_equal(
        q.staged_test["two-step"].astype(np.int64),
        staged_min_risk_indices(q.posterior_model, X_te, C).astype(np.int64),
    )
    assert pg.zero_one_kept(p.posterior_model, key, list) is kept  # not computed again
    assert not np.array_equal(q.staged_test["two-step"], p.staged_test["two-step"])  # the costs decide
    # the Bayes rule on the test points: the mixture's posteriors are kept too, its decision is the new costs'
    assert p.bayes_test_predictions is not None  # computed: its posteriors are kept
    posterior = pg.zero_one_kept(p.posterior_model, ("bayes", X_te.tobytes()), list)
    np.testing.assert_array_equal(q.bayes_test_predictions, bayes_min_risk(q.dataset.mixture, X_te, C))
    assert pg.zero_one_kept(p.posterior_model, ("bayes", X_te.tobytes()), list) is posterior
    y, blind = q.y_test_idx, p.posterior_model.staged_class_indices(q.dataset.X_test)
    for t in (0, 2, q.n_rounds):  # the cost of ignoring the costs, under the new costs
        assert q.blind_cost(t) == pytest.approx(float(C[y, blind[t]].mean()), abs=1e-12)
        np.testing.assert_array_equal(q.blind_region(t), p.blind_region(t))
    with pytest.raises(ValueError, match="n_classes = 300 does not fit uint8"):
        pg.compact_classes(np.zeros(3, np.int16), 300)


def test_two_step_is_posterior_then_min_expected_cost(small_pair):
    p = small_pair
    post = p.two_step.predict_proba(p.grid.points)
    expected = min_risk_class(post, p.cost_matrix).reshape(p.grid.shape)
    np.testing.assert_array_equal(p.two_step_regions[-1], expected)
    assert p.posterior_model.cost_matrix_.tolist() == uniform_costs(4).tolist()
    assert p.two_step.cost_matrix_.tolist() == p.cost_matrix.tolist()
    # An intermediate stage equals a model trained with fewer rounds (the staged contract).
    short = RebelClassifier(n_estimators=5, max_depth=2, n_thresholds=32).fit(
        p.dataset.X_train, p.dataset.y_train
    )
    np.testing.assert_array_equal(
        p.staged_test["two-step"][5], min_risk_class(short.predict_proba(p.dataset.X_test), p.cost_matrix)
    )


def test_weights_follow_the_definition(small_pair):
    p = small_pair
    t = 4
    H = list(p.rebel.staged_decision_function(p.dataset.X_train))[t - 1]
    d = decompose(p.cost_matrix[p.y_train_idx])
    w = (d.cp * np.exp(H) + d.cm * np.exp(-H)).sum(axis=1)
    np.testing.assert_allclose(p.weights[t], w / w.mean(), rtol=1e-5)
    np.testing.assert_allclose(p.weights.mean(axis=1), 1.0, rtol=1e-5)


def test_curves_and_metrics(small_pair):
    p = small_pair
    T = p.n_rounds
    curves = p.curves
    assert set(curves["model"]) == {"REBEL", "two-step"} and set(curves["split"]) == {"train", "test"}
    rebel_train = curves.query("model == 'REBEL' and split == 'train'")["cost"].to_numpy()
    np.testing.assert_allclose(rebel_train, p.rebel.train_risk_)
    m = p.metrics(T)
    assert m.confusion.sum() == len(p.dataset.y_test)
    assert m.cost == pytest.approx(p.rebel.expected_cost(p.dataset.X_test, p.dataset.y_test))
    assert m.regret == pytest.approx(m.cost - p.bayes_test_cost)
    assert np.nanmax(m.recall) <= 1 and p.bayes_regions.shape == p.grid.shape
    assert p.metrics(10 * T).cost == m.cost  # t is clamped


def test_stage_metrics_by_hand():
    C = np.array([[0, 1], [5, 0.0]])
    m = pg.stage_metrics([0, 0, 1, 1], [0, 1, 0, 1], C, bayes_cost=0.5)
    np.testing.assert_array_equal(m.confusion, [[1, 1], [1, 1]])
    np.testing.assert_allclose(m.cost_share, [[0, 0.25], [1.25, 0]])
    assert (m.cost, m.error, m.regret) == (1.5, 0.5, 1.0)
    np.testing.assert_allclose(m.precision, [0.5, 0.5])
    np.testing.assert_allclose(m.recall, [0.5, 0.5])


def test_train_pair_rejects_empty_class():
    ds = cf.dataset_from_spec(DatasetSpec(PRESETS["xor"].spec.mixture, n_points=60, seed=0))
    ds.classes = (*ds.classes, "zzz")
    with pytest.raises(ValueError, match="zzz"):
        pg.train_pair(ds, uniform_costs(3), cf.DEFAULT_HYPER)


def test_config_json_is_plain(small_pair):
    cfg = cf.preset_config("rings")
    json.dumps(cfg.to_dict())
    assert isinstance(pd.DataFrame(cfg.to_dict()["spec"]["mixture"]), pd.DataFrame)


def test_links_and_sessions_are_bounded():
    d = cf.preset_config("xor").to_dict()
    d["spec"]["n_points"] = cf.MAX_POINTS + 1
    with pytest.raises(ValueError, match="between 20 and 20000"):
        cf.Config.from_dict(d)
    with pytest.raises(ValueError, match="characters"):
        cf.decode_query("A" * (cf.MAX_QUERY_CHARS + 1))
    bomb = base64.urlsafe_b64encode(zlib.compress(b" " * (4 * cf.MAX_CONFIG_BYTES), 9)).decode()
    with pytest.raises(ValueError, match="damaged"):
        cf.decode_query(bomb)


@pytest.mark.parametrize(
    ("preset", "winner"),
    [("fig7", "REBEL"), ("airport", "two-step"), ("paths", "two-step"), ("imbalanced", "two-step")],
)
def test_preset_lessons_tell_the_truth_under_the_default_settings(preset, winner):
    """Each preset's lesson names the cheaper method with the app's defaults; the verdict line agrees."""
    cfg = cf.preset_config(preset)
    pair = pg.train_pair(cf.dataset_from_config(cfg), cfg.cost_matrix, cfg.hyper, grid_size=40)
    T = pair.n_rounds
    rebel, two = pair.metrics(T).cost, pair.metrics(T, "two-step").cost
    assert (rebel < two) == (winner == "REBEL"), (rebel, two)
    cheaper = "REBEL is cheaper here" if winner == "REBEL" else "The two-step method is cheaper here"
    assert cheaper in pg.verdict(pair, T)
    lesson = pg.preset_lesson(preset)
    assert ("training with the costs pays" in lesson) == (winner == "REBEL")
    assert pair.blind_cost(T) > min(rebel, two)  # ignoring the costs is dearer than either


def test_xor_lesson_two_classes_make_the_same_decisions_on_all_but_a_few_points():
    """The xor preset's lesson: with two classes REBEL (paper engine) and the two-step method agree on all but a
    few test points under the app's defaults (their test costs tie)."""
    cfg = cf.preset_config("xor")
    pair = pg.train_pair(cf.dataset_from_config(cfg), cfg.cost_matrix, cfg.hyper, grid_size=40)
    T = pair.n_rounds
    agree = np.mean(pair.staged_test["REBEL"][T] == pair.staged_test["two-step"][T])
    assert agree >= 0.98, agree
    assert "same decisions on all but a few points" in pg.preset_lesson("xor")


def test_preset_order_teaches_first():
    names = pg.preset_order(["random_0", "xor", "airport", "fig7", "paths", "rings", "imbalanced"])
    assert names[:2] == ["airport", "fig7"] and names[-1] == "random_0"
    assert "random mixture" in pg.preset_lesson("random_3")


def test_shared_lru_is_bounded_and_keeps_the_first_copy():
    lru = SharedLRU(2)
    first = object()
    assert lru.put("a", first) is first and lru.put("a", object()) is first  # one copy per key
    lru.put("b", 1)
    assert lru.get("a") is first  # "a" is now the most recently used
    lru.put("c", 2)
    assert "b" not in lru and "a" in lru and "c" in lru and len(lru) == 2
    with pytest.raises(ValueError, match="limit is -1"):
        SharedLRU(-1)


def test_shared_lru_finds_a_dropped_value_while_something_holds_it():
    import gc

    class Pair:  # (weakly referable, as a trained pair is)
        pass

    lru = SharedLRU(1)
    held = lru.put("a", Pair())
    lru.put("b", Pair())  # drops "a" from the store
    assert "a" not in lru and len(lru) == 1
    assert lru.get("a") is held  # a session still holds it: one copy, found by its key
    assert lru.put("a", Pair()) is held  # a second build of it is not kept beside it
    lru.put("c", Pair())
    del held
    gc.collect()
    assert lru.get("a") is None  # nobody holds it any more: gone
    assert lru.put("d", b"png") == b"png" and lru.get("d") == b"png"  # bytes: kept by the store alone


def test_sessions_on_one_configuration_share_one_pair():
    cfg = cf.preset_config("airport", {"n_estimators": 6, "max_depth": 2, "n_thresholds": 16})
    shared = SharedLRU(4)
    sessions = [ModelCache() for _ in range(3)]
    pairs = [
        pg.train_pair(cf.dataset_from_config(cfg), cfg.cost_matrix, cfg.hyper, 30, cache=c, shared=shared)
        for c in sessions
    ]
    assert pairs[1] is pairs[0] and pairs[2] is pairs[0] and len(shared) == 1
    assert not pairs[0].regions.flags.writeable
    for c in sessions:  # every session's cache finds both models for the other pages
        assert c.get(model_key(pairs[0].dataset, pairs[0].cost_matrix, pairs[0].hyper)) is pairs[0].rebel
        assert c.get(model_key(pairs[0].dataset, None, pairs[0].hyper)) is pairs[0].posterior_model
    other = cfg.cost_matrix.copy()
    other[-1, 0] += 1.0
    ds = cf.dataset_from_config(cfg)
    assert pg.train_pair(ds, other, cfg.hyper, 30, cache=sessions[0], shared=shared) is not pairs[0]
    assert len(shared) == 2
    renamed = dataclasses.replace(ds, name="my upload")  # same points, another dataset shown: not shared
    assert (
        pg.train_pair(renamed, cfg.cost_matrix, cfg.hyper, 30, cache=ModelCache(), shared=shared)
        is not pairs[0]
    )
    assert pg.train_pair(ds, cfg.cost_matrix, cfg.hyper, 30) is not pairs[0]  # no session cache: not shared


def test_a_session_keeps_its_pair_when_the_shared_store_drops_it(monkeypatch):
    """Sessions on many configurations overflow the process-wide store; each session's own pair (kept in its
    cache, as the Playground does) is still found there as the same object (the store's index of the pairs live
    sessions hold): no training and no new figure for it."""
    cfg = cf.preset_config("airport", {"n_estimators": 6, "max_depth": 2, "n_thresholds": 16})
    ds, shared = cf.dataset_from_config(cfg), SharedLRU(1)
    mine, theirs = ModelCache(), ModelCache()
    pair = pg.train_pair(ds, cfg.cost_matrix, cfg.hyper, 30, cache=mine, shared=shared)
    mine.put(pair.key, pair, "pair")
    other = cfg.cost_matrix.copy()
    other[-1, 0] += 1.0
    pg.train_pair(ds, other, cfg.hyper, 30, cache=theirs, shared=shared)  # drops the first pair
    assert len(shared) == 1 and pair.key not in [p.key for p in shared._items.values()]
    fits = []
    monkeypatch.setattr(pg, "fit_rebel", lambda *a: fits.append(a))
    monkeypatch.setattr(pg, "compact_classes", lambda *a: fits.append(a))
    assert pg.train_pair(ds, cfg.cost_matrix, cfg.hyper, 30, cache=mine, shared=shared) is pair
    assert fits == []
    # the same points shown as another dataset are not this pair, and a pair standing for one is not taken
    renamed = dataclasses.replace(ds, name="my upload")
    monkeypatch.undo()
    assert pg.train_pair(renamed, cfg.cost_matrix, cfg.hyper, 30, cache=mine, shared=shared) is not pair
    stand_in = ModelCache()
    stand_in.put(pair.key, object(), "pair")
    assert isinstance(
        pg.train_pair(ds, cfg.cost_matrix, cfg.hyper, 30, cache=stand_in, shared=SharedLRU(1)), pg.TrainedPair
    )


def test_shared_pairs_are_bounded_by_bytes_too():
    from types import SimpleNamespace

    from rebel.ui.state import SharedLRU, array_bytes

    store = SharedLRU(8, max_bytes=3000)
    for i in range(5):
        store.put(f"k{i}", SimpleNamespace(regions=np.zeros(1000, dtype=np.uint8)))
    assert len(store) == 3 and "k4" in store and "k1" not in store  # the oldest went first
    assert array_bytes(SimpleNamespace(a=np.zeros(10), b="x")) == 80


def test_training_message_says_when_this_class_count_compiles(tmp_path):
    """A fit whose kernels the numba cache lacks (a new process's empty cache) gets the compile notice with its
    class count; a warm cache gets the plain training text."""
    code = (
        "from rebel.data import PRESETS\n"
        "from rebel.ui.playground import compute as pg\n"
        "ds = PRESETS['airport'].dataset()\n"
        "print(pg.training_message(ds, {'max_depth': 1}))\n"
    )
    out = run_python(code, NUMBA_CACHE_DIR=str(tmp_path / "empty"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Compiling the engine for this machine (first use only, about")
    assert "for 3 classes, then training" in out.stdout
    from rebel.warmup import cache_is_cold

    if not cache_is_cold("exp", "binary", False, 3):  # this process's cache holds the K = 3 kernels
        ds = PRESETS["airport"].dataset()
        assert pg.training_message(ds, {"max_depth": 1}) == pg.TRAINING


def test_replay_of_is_the_pairs_replay_with_the_overlays_asked_for(small_pair):
    """``replay_of`` (the figure the page draws and ``bench_plot_draw`` times) wires the pair into
    ``replay_figure``: with the overlays off, the same figure as the direct call on the pair's grid, regions and
    ``rebel_points`` (each split's points, labels and REBEL's class per round, as the slide exports take them
    too); each overlay adds its images or its per-round sizes or trace."""
    from rebel.ui.figures import replay

    p = small_pair
    ds = p.dataset
    T = p.n_rounds
    points = pg.rebel_points(p)
    for split, X, y in (("train", ds.X_train, ds.y_train), ("test", ds.X_test, ds.y_test)):
        assert points[split][0] is X
        np.testing.assert_array_equal(points[split][1], ds.class_index(y))
        np.testing.assert_array_equal(points[split][2], p.rebel.staged_class_indices(X))
    direct = replay.replay_figure(
        p.grid.xs,
        p.grid.ys,
        p.regions,
        ds.classes,
        **points,
        title="REBEL's minimum-risk class",
        start=T,
        height=600,
        numbers=pg.round_numbers(p),
    )
    direct.layout.meta = {"models": p.key}  # the page's figure names the models it draws
    plain = pg.replay_of(p, T, height=600)
    assert plain.to_dict() == direct.to_dict()
    assert pg.replay_of(p, T, {"box": True}, height=600).to_dict() == direct.to_dict()  # not an overlay

    def images(fig):
        return len(fig.to_dict()["layout"].get("images", []))

    assert images(pg.replay_of(p, T, {"two": True})) > images(plain)
    assert images(pg.replay_of(p, T, {"dis": True})) > images(plain)
    resized = [
        d for d in pg.replay_of(p, T, {"weights": True}).to_dict()["frames"][0]["data"] if "marker" in d
    ]
    assert resized and not [d for d in plain.to_dict()["frames"][0]["data"] if "marker" in d]
    if p.bayes_regions is not None:  # the Bayes boundaries are a line trace
        assert len(pg.replay_of(p, T, {"bayes": True}).data) > len(plain.data)


def test_a_taller_plot_gives_its_height_to_the_regions(small_pair):
    """What lies under the regions (cost strip, legend, tick labels) keeps its 1280 x 720 size in px on a taller
    screen, so the regions take the extra height; at 1280 x 720 and when the height is not known the split is
    the fixed fractions."""
    from rebel.ui.figures import replay as rp

    p, T = small_pair, small_pair.n_rounds

    def split(height):
        lay = pg.replay_of(p, T, height=height).to_dict()["layout"]
        area = None if height is None else height - lay["margin"]["t"] - lay["margin"]["b"]
        return area, lay["yaxis"]["domain"][0], lay["yaxis3"]["domain"][1], lay["legend"]["y"]

    assert split(None)[1:] == (rp.PLANE_DOMAIN[0], rp.CURVE_DOMAIN[1], rp.CURVE_DOMAIN[1] + 0.03)
    area, *small = split(668)  # the plot's height at 1280 x 720
    assert area * rp.PLANE_DOMAIN[0] <= rp.BELOW_PLANE_PX + 1
    assert small == [rp.PLANE_DOMAIN[0], rp.CURVE_DOMAIN[1], rp.CURVE_DOMAIN[1] + 0.03]
    area, plane, curve, legend = split(1028)  # at 1920 x 1080
    assert plane * area == pytest.approx(rp.BELOW_PLANE_PX) and curve * area == pytest.approx(rp.CURVE_PX)
    assert (legend - curve) * area == pytest.approx(rp.LEGEND_GAP_PX)
    assert (1 - plane) * area > (1 - rp.PLANE_DOMAIN[0]) * area + 100  # the regions are over 100 px taller
