"""Cost-matrix presets of rebel.cost_presets: x m FN/FP (Fig. 7), random (Sec. 5), taxonomy, normalization, specs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebel.cost_presets import (
    COST_PRESETS,
    fn_costs,
    fp_costs,
    make_costs,
    normalize_costs,
    random_costs,
    taxonomy_costs,
)
from rebel.costs import random_guess_cost, uniform_costs

BIRDS = {"bird": {"waterfowl": ["duck", "goose"], "raptor": ["vulture", "eagle"]}}
BIRD_PARENTS = {
    "duck": "waterfowl",
    "goose": "waterfowl",
    "vulture": "raptor",
    "eagle": "raptor",
    "waterfowl": "bird",
    "raptor": "bird",
    "bird": None,
}


@given(K=st.integers(2, 8), data=st.data(), m=st.floats(0.1, 100))
def test_fn_multiplies_row_c_off_diagonal(K, data, m):
    c = data.draw(st.integers(0, K - 1))
    C, U = fn_costs(K, c, m), uniform_costs(K)
    expected = U.copy()
    expected[c, np.arange(K) != c] *= m
    np.testing.assert_array_equal(C, expected)
    assert C[c, c] == 0


@given(K=st.integers(2, 8), data=st.data(), m=st.floats(0.1, 100))
def test_fp_multiplies_column_c_off_diagonal(K, data, m):
    c = data.draw(st.integers(0, K - 1))
    C, U = fp_costs(K, c, m), uniform_costs(K)
    expected = U.copy()
    expected[np.arange(K) != c, c] *= m
    np.testing.assert_array_equal(C, expected)


def test_fn_and_fp_scale_a_given_base():
    base = np.array([[0, 1, 2], [3, 0, 4], [5, 6, 0]], dtype=float)
    np.testing.assert_array_equal(fn_costs(3, 1, 10, base), [[0, 1, 2], [30, 0, 40], [5, 6, 0]])
    np.testing.assert_array_equal(fp_costs(3, 1, 10, base), [[0, 10, 2], [3, 0, 4], [5, 60, 0]])
    assert base[1, 0] == 3  # the base is not modified


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: fn_costs(3, 3, 10), "c is 3"),
        (lambda: fn_costs(3, -1, 10), "c is -1"),
        (lambda: fp_costs(3, 1.5, 10), "c is 1.5"),
        (lambda: fn_costs(3, 0, 0), "m is 0"),
        (lambda: fp_costs(3, 0, -2), "m is -2"),
        (lambda: fn_costs(3, 0, float("nan")), "m is nan"),
        (lambda: fn_costs(2, 0, 10, base=[[0, -1], [1, 0]]), "base[0, 1]"),
        (lambda: fn_costs(3, 0, 10, base=[[0, 1], [1, 0]]), "base is 2 x 2"),
        (lambda: random_costs(1, 0), "n_classes must be >= 2"),
        (lambda: normalize_costs(uniform_costs(3), priors=[1, 2]), "priors has shape (2,)"),
        (lambda: normalize_costs(uniform_costs(3), priors=[1, -1, 1]), "priors is [1.0, -1.0, 1.0]"),
        (lambda: normalize_costs([[0, 0], [1, 0]], priors=[1, 0]), "random guessing costs 0"),
    ],
)
def test_preset_errors_name_the_entry(call, fragment):
    with pytest.raises(ValueError) as err:
        call()
    assert fragment in str(err.value)


@settings(max_examples=50)
@given(K=st.integers(2, 12), seed=st.integers(0, 2**32 - 1))
def test_random_costs_follow_the_protocol(K, seed):
    C = random_costs(K, seed)
    assert C.shape == (K, K)
    assert np.all(np.diag(C) == 0)
    assert np.all(C[~np.eye(K, dtype=bool)] > 0)
    assert abs(random_guess_cost(C) - 1.0) <= 1e-12


def test_random_costs_are_reproducible_and_vary():
    np.testing.assert_array_equal(random_costs(4, 7), random_costs(4, 7))
    np.testing.assert_array_equal(random_costs(4, np.random.default_rng(7)), random_costs(4, 7))
    assert not np.array_equal(random_costs(4, 7), random_costs(4, 8))


def test_random_costs_are_half_normal_before_scaling():
    # Ratios of off-diagonal entries are scale-free: compare to |z| ratios, z ~ N(0, 1).
    entries = np.concatenate([random_costs(5, s)[~np.eye(5, dtype=bool)] for s in range(400)])
    entries /= entries.mean()
    expected_cv = np.sqrt(np.pi / 2 - 1)  # std/mean of a half-normal
    assert abs(entries.std() / entries.mean() - expected_cv) < 0.03


def test_normalize_uniform_and_empirical_priors():
    C = np.array([[0, 2, 4], [1, 0, 1], [8, 8, 0]], dtype=float)
    assert random_guess_cost(normalize_costs(C)) == pytest.approx(1.0, abs=1e-12)
    counts = np.array([70, 20, 10])
    Cn = normalize_costs(C, priors=counts)
    assert random_guess_cost(Cn, counts / counts.sum()) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(Cn / C[C > 0].max(), C / C[C > 0].max() / random_guess_cost(C, counts / 100))


def test_normalized_uniform_costs():
    # random guessing with K classes under 0-1 costs costs (K-1)/K
    np.testing.assert_allclose(normalize_costs(uniform_costs(4)), uniform_costs(4) * 4 / 3)


def test_taxonomy_costs_count_tree_edges():
    classes = ["duck", "eagle", "goose", "vulture"]
    C = taxonomy_costs(BIRDS, classes)
    np.testing.assert_array_equal(C, [[0, 4, 2, 4], [4, 0, 4, 2], [2, 4, 0, 4], [4, 2, 4, 0]])
    np.testing.assert_array_equal(taxonomy_costs(BIRD_PARENTS, classes), C)


def test_taxonomy_costs_are_a_metric_with_uneven_depths():
    tree = {"duck": "waterfowl", "waterfowl": "bird", "vulture": "bird", "bird": "animal", "dog": "animal"}
    classes = ["dog", "duck", "vulture"]
    C = taxonomy_costs(tree, classes)
    np.testing.assert_array_equal(C, [[0, 4, 3], [4, 0, 3], [3, 3, 0]])
    assert np.array_equal(C, C.T)
    for i in range(3):
        for j in range(3):
            assert all(C[i, j] <= C[i, k] + C[k, j] for k in range(3))


def test_taxonomy_classes_under_separate_roots():
    C = taxonomy_costs({"a": "x", "b": "y"}, ["a", "b"])
    np.testing.assert_array_equal(C, [[0, 4], [4, 0]])


def test_taxonomy_internal_nodes_can_be_classes():
    C = taxonomy_costs(BIRDS, ["duck", "waterfowl"])
    np.testing.assert_array_equal(C, [[0, 1], [1, 0]])


@pytest.mark.parametrize(
    "tree, classes, fragment",
    [
        (BIRDS, ["duck", "owl"], "no node named 'owl'"),
        ({"a": "b", "b": "a", "c": None}, ["a", "c"], "cycle"),
        ({"root": {"x": ["a"], "y": ["a"]}}, ["a", "x"], "node 'a' appears twice"),
        ([], ["a", "b"], "tree is []"),
        (BIRDS, ["duck", "duck"], "duplicate"),
    ],
)
def test_taxonomy_errors(tree, classes, fragment):
    with pytest.raises(ValueError) as err:
        taxonomy_costs(tree, classes)
    assert fragment in str(err.value)


def test_registry_builds_valid_matrices():
    assert set(COST_PRESETS) >= {"uniform", "fn", "fp", "random"}
    params = {"uniform": {}, "fn": {"c": 1, "m": 10}, "fp": {"c": 0, "m": 3}, "random": {"rng": 0}}
    for name, preset in COST_PRESETS.items():
        assert preset.label and preset.description
        assert set(preset.params) == set(params[name])
        C = preset.build(4, **params[name])
        assert C.shape == (4, 4) and np.all(np.diag(C) == 0) and np.all(C >= 0)


def test_make_costs_from_json_specs():
    classes = ["harmless", "liquid", "weapon"]
    np.testing.assert_array_equal(
        make_costs({"preset": "fn", "c": "weapon", "m": 20}, classes), fn_costs(3, 2, 20)
    )
    np.testing.assert_array_equal(make_costs({"preset": "fp", "c": 0, "m": 2}, classes), fp_costs(3, 0, 2))
    np.testing.assert_array_equal(make_costs({"preset": "uniform"}, classes), uniform_costs(3))
    np.testing.assert_array_equal(make_costs({"preset": "random", "rng": 5}, classes), random_costs(3, 5))
    tax = make_costs({"preset": "taxonomy", "tree": BIRDS}, ["duck", "goose", "vulture"])
    np.testing.assert_array_equal(tax, taxonomy_costs(BIRDS, ["duck", "goose", "vulture"]))
    M = [[0, 1, 1], [2, 0, 1], [9, 9, 0]]
    C = make_costs({"preset": "matrix", "matrix": M, "normalize": True}, classes, priors=[5, 3, 2])
    assert random_guess_cost(C, [0.5, 0.3, 0.2]) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ({"preset": "nope"}, "preset is 'nope'"),
        ({"preset": "fn", "c": "gun", "m": 2}, "c is 'gun'"),
        ({"preset": "fn", "c": 0, "m": 2, "q": 1}, "unknown parameter 'q'"),
        ({"preset": "matrix", "matrix": [[0, 1], [1, 0]]}, "the data has 3 classes"),
    ],
)
def test_make_costs_errors(spec, fragment):
    with pytest.raises(ValueError) as err:
        make_costs(spec, ["a", "b", "c"])
    assert fragment in str(err.value)
