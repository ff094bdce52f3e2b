"""rebel.data: mixture tables, sampling, exact Bayes posterior/risk, random protocol, presets, CSV, samples."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rebel.data as d
from rebel import RebelClassifier
from rebel.budget import BudgetError
from rebel.costs import min_risk_class, random_guess_cost, uniform_costs
from rebel.textout import neutralised
from tests.processes import run_python

TWO = pd.DataFrame(
    [
        {"class": "a", "mean_x": 0.0, "mean_y": 0.0, "std_x": 1.0, "std_y": 1.0},
        {
            "class": "b",
            "mean_x": 2.0,
            "mean_y": 1.0,
            "std_x": 0.5,
            "std_y": 1.5,
            "corr": 0.4,
            "angle": 30,
            "weight": 3,
        },
        {"class": "b", "mean_x": -2.0, "mean_y": 2.0, "std_x": 0.7, "std_y": 0.7, "weight": 1},
        {"class": "c", "mean_x": 0.0, "mean_y": 3.0, "std_x": 1.2, "std_y": 0.6, "corr": -0.5, "weight": 2},
    ]
)


def _rows(**changes):
    df = TWO.copy()
    for key, value in changes.items():
        row, col = key.rsplit("__", 1)
        df.loc[int(row[1:]), col] = value
    return df


# --- mixture tables -----------------------------------------------------------------------------------------


def test_validate_fills_defaults_and_orders_columns():
    df = d.validate_mixture(TWO.to_dict(orient="records"))
    assert tuple(df.columns) == d.MIXTURE_COLUMNS
    assert df.loc[0, "corr"] == 0 and df.loc[0, "angle"] == 0 and df.loc[0, "weight"] == 1
    assert d.mixture_classes(TWO) == ("a", "b", "c")
    np.testing.assert_allclose(d.class_priors(TWO), [1 / 7, 4 / 7, 2 / 7])


def test_count_is_a_weight_alias():
    df = TWO.rename(columns={"weight": "count"})
    assert d.validate_mixture(df)["weight"].tolist() == d.validate_mixture(TWO)["weight"].tolist()


@pytest.mark.parametrize(
    "mixture, fragment",
    [
        (_rows(r1__std_x=-1.0), "mixture row 1: std_x is -1.0; standard deviations must be > 0"),
        (_rows(r2__std_y=0.0), "mixture row 2: std_y is 0.0"),
        (
            _rows(r3__corr=1.0),
            "mixture row 3: corr is 1.0; the correlation must be strictly between -1 and 1",
        ),
        (_rows(r0__weight=0.0), "mixture row 0: weight is 0.0"),
        (_rows(r2__mean_x=np.inf), "mixture row 2: mean_x is inf"),
        (TWO.astype({"mean_y": object}).assign(mean_y=["1", "x", "2", "3"]), "mixture row 1: mean_y is 'x'"),
        (TWO.assign(**{"class": ["a", " ", "b", "c"]}), "mixture row 1: class is empty"),
        (TWO.drop(columns="std_y"), "missing the column 'std_y'"),
        (TWO.assign(colour=1), "unknown column 'colour'"),
        (TWO.assign(count=1), "both 'weight' and 'count'"),
        (TWO.assign(**{"class": "a"}), "single class 'a'"),
        (TWO.iloc[:0], "mixture has no rows"),
        (pd.concat([TWO] * 60), "MAX_COMPONENTS"),
        (
            pd.DataFrame(
                {
                    "class": [f"k{i}" for i in range(51)],
                    "mean_x": 0.0,
                    "mean_y": 0.0,
                    "std_x": 1.0,
                    "std_y": 1.0,
                }
            ),
            "51 classes",
        ),
    ],
)
def test_validate_mixture_errors(mixture, fragment):
    with pytest.raises(ValueError) as err:
        d.validate_mixture(mixture)
    assert fragment in str(err.value)


def test_empty_optional_cells_take_defaults():
    df = TWO.copy()
    df.loc[1, "corr"] = np.nan
    df.loc[2, "weight"] = np.nan
    v = d.validate_mixture(df)
    assert v.loc[1, "corr"] == 0 and v.loc[2, "weight"] == 1


# --- sampling -------------------------------------------------------------------------------------------------


def test_sampling_is_reproducible_by_seed():
    X1, y1 = d.sample_mixture(TWO, 500, seed=3, label_noise=0.1)
    X2, y2 = d.sample_mixture(TWO, 500, seed=3, label_noise=0.1)
    X3, _ = d.sample_mixture(TWO, 500, seed=4)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(X1, X3)
    assert X1.shape == (500, 2) and X1.dtype == np.float64
    np.testing.assert_array_equal(X1, np.round(X1, d.DECIMALS))


@pytest.mark.parametrize("n", [7, 100, 1001])
def test_component_counts_follow_weights_exactly(n):
    # one component per class, so class counts are component counts
    mixture = TWO.drop(index=2)
    _, y = d.sample_mixture(mixture, n, seed=0)
    counts = pd.Series(y).value_counts().reindex(["a", "b", "c"]).to_numpy()
    share = n * np.array([1, 3, 2]) / 6
    assert counts.sum() == n
    assert np.all(np.abs(counts - share) < 1)


def test_component_shape_matches_covariance():
    comp = {"mean_x": 1.0, "mean_y": -2.0, "std_x": 2.0, "std_y": 0.5, "corr": 0.6, "angle": 40.0}
    mixture = pd.DataFrame([{"class": "a", **comp}, {"class": "b", **comp, "weight": 1e-6}])
    X, _ = d.sample_mixture(mixture, 40_000, seed=1)
    S = np.array([[4.0, 0.6 * 2 * 0.5], [0.6, 0.25]])
    S[1, 0] = S[0, 1]
    t = np.deg2rad(40)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    np.testing.assert_allclose(X.mean(axis=0), [1, -2], atol=0.03)
    np.testing.assert_allclose(np.cov(X.T), R @ S @ R.T, atol=0.06)


def test_label_noise_flips_the_fraction_to_other_classes():
    X0, y0 = d.sample_mixture(TWO, 1000, seed=5)
    X1, y1 = d.sample_mixture(TWO, 1000, seed=5, label_noise=0.2)
    np.testing.assert_array_equal(X0, X1)
    assert (y0 != y1).sum() == 200  # flipped labels never land on the true class


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"n": 0}, "n is 0"),
        ({"n": 2.5}, "n is 2.5"),
        ({"n": 10**7}, "200000"),
        ({"n": 10, "label_noise": 1.0}, "label_noise is 1.0"),
        ({"n": 10, "label_noise": -0.1}, "label_noise"),
    ],
)
def test_sampling_argument_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment.replace(".", r"\.")):
        d.sample_mixture(TWO, **kwargs)


# --- Bayes posterior, min-risk rule and risk ------------------------------------------------------------------


def test_posterior_sums_to_one():
    X, _ = d.sample_mixture(TWO, 2000, seed=0)
    X = np.vstack([X, [[100.0, -100.0], [1e3, 1e3]]])  # far from every component: still a distribution
    P = d.bayes_posterior(TWO, X)
    assert P.shape == (len(X), 3) and np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)


def test_posterior_matches_closed_form_for_equal_covariances():
    mixture = pd.DataFrame(
        [
            {"class": "p", "mean_x": 0, "mean_y": 0, "std_x": 1, "std_y": 1, "weight": 1},
            {"class": "q", "mean_x": 2, "mean_y": 0, "std_x": 1, "std_y": 1, "weight": 3},
        ]
    )
    X = np.random.default_rng(0).normal(size=(50, 2)) * 3
    logit = np.log(3) + (2 * X[:, 0] - 2)  # log p(q|x)/p(p|x) for unit variances
    np.testing.assert_allclose(d.bayes_posterior(mixture, X)[:, 1], 1 / (1 + np.exp(-logit)), rtol=1e-10)


def test_posterior_matches_monte_carlo():
    X, y = d.sample_mixture(TWO, 200_000, seed=11)
    P = d.bayes_posterior(TWO, X)
    # Calibration: among points whose posterior of class k is in a bin, the class-k frequency is the bin's mean.
    for k, name in enumerate(("a", "b", "c")):
        bins = np.digitize(P[:, k], np.linspace(0, 1, 11))
        for b in np.unique(bins):
            sel = bins == b
            n, p = sel.sum(), P[sel, k].mean()
            if n > 1000:
                assert abs((y[sel] == name).mean() - p) <= 4 * np.sqrt(p * (1 - p) / n) + 1e-3
    # Near fixed points: class frequencies within a small ball agree with the mean posterior there.
    for x0 in ([0.0, 0.0], [1.0, 1.5], [-1.0, 1.5], [0.5, 2.5]):
        sel = np.linalg.norm(X - x0, axis=1) < 0.25
        n = sel.sum()
        assert n > 300
        freq = np.array([(y[sel] == c).mean() for c in ("a", "b", "c")])
        expected = P[sel].mean(axis=0)
        assert np.all(np.abs(freq - expected) <= 4 * np.sqrt(expected * (1 - expected) / n) + 1e-3)


def test_noisy_posterior_matches_noisy_labels():
    X, y = d.sample_mixture(TWO, 100_000, seed=2, label_noise=0.3)
    P = d.bayes_posterior(TWO, X, label_noise=0.3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    freq = np.array([(y == c).mean() for c in ("a", "b", "c")])
    np.testing.assert_allclose(freq, P.mean(axis=0), atol=0.01)


def test_min_risk_rule_and_risk():
    X, y = d.sample_mixture(TWO, 50_000, seed=4)
    P = d.bayes_posterior(TWO, X)
    U = uniform_costs(3)
    np.testing.assert_array_equal(d.bayes_min_risk(TWO, X, U), P.argmax(axis=1))
    C = np.array([[0, 1, 1], [10, 0, 10], [1, 1, 0]], dtype=float)
    pred = d.bayes_min_risk(TWO, X, C)
    np.testing.assert_array_equal(pred, min_risk_class(P, C))
    cost = d.bayes_cost(TWO, X, y, C)
    assert cost == pytest.approx(d.bayes_risk(TWO, C, n=50_000, seed=9), abs=0.02)
    # Any other rule does worse on average, e.g. the 0-1 Bayes rule under these costs.
    idx = pd.Series(y).map({"a": 0, "b": 1, "c": 2}).to_numpy()
    assert cost < C[idx, P.argmax(axis=1)].mean()
    rates = d.confusion_rates(TWO, C, n=20_000)
    assert rates.sum() == pytest.approx(1.0) and rates.shape == (3, 3)


def test_bayes_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"shape \(3, 3\)"):
        d.bayes_posterior(TWO, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="the data has 3 classes"):
        d.bayes_min_risk(TWO, np.zeros((3, 2)), uniform_costs(2))
    with pytest.raises(ValueError, match="label 'z' is not one of the classes"):
        d.bayes_cost(TWO, np.zeros((2, 2)), ["a", "z"], uniform_costs(3))


def test_sample_path():
    P, t = d.sample_path([[0, 0], [3, 0], [3, 4]], n=8)
    np.testing.assert_allclose(P[[0, -1]], [[0, 0], [3, 4]])
    np.testing.assert_allclose(t, np.linspace(0, 1, 8))
    np.testing.assert_allclose(P[np.searchsorted(t, 3 / 7)], [3, 0])
    with pytest.raises(ValueError, match="at least 2"):
        d.sample_path([[0, 0]])


# --- specs and datasets ---------------------------------------------------------------------------------------


def test_a_specs_mixture_is_written_as_pandas_writes_its_records():
    """``mixture_records`` (what every link and session file writes) is pandas' ``to_dict(orient="records")`` of
    the mixture with class names as text: the same values, keys and Python types, for every preset and for odd
    class names and whole-number columns."""
    from rebel.data.mixture import mixture_records
    from rebel.data.presets import PRESETS
    from rebel.ui.config import preset_config

    odd = TWO.assign(**{"class": ["ä b", "=1+1", "=1+1", "<b>x</b>"], "weight": [1, 3, 1, 2]})
    mixtures = [preset_config(name).spec.mixture for name in PRESETS]
    for m in [*mixtures, d.validate_mixture(TWO), d.validate_mixture(odd), d.DatasetSpec(odd).mixture]:
        ours, theirs = mixture_records(m), m.astype({"class": str}).to_dict(orient="records")
        assert ours == theirs
        assert [[type(v) for v in r.values()] for r in ours] == [
            [type(v) for v in r.values()] for r in theirs
        ]
        assert [list(r) for r in ours] == [list(r) for r in theirs]


def test_spec_round_trips_through_json():
    spec = d.DatasetSpec(TWO, n_points=300, test_fraction=0.2, seed=9, label_noise=0.05)
    again = d.DatasetSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
    assert again.to_dict() == spec.to_dict()
    a, b = d.make_dataset(spec), d.make_dataset(json.loads(json.dumps(spec.to_dict())))
    for field in ("X_train", "y_train", "X_test", "y_test"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert (len(a.y_train), len(a.y_test)) == (240, 60)
    assert a.classes == ("a", "b", "c")


def test_noise_only_on_training_labels():
    clean = d.make_dataset(d.DatasetSpec(TWO, 600, 0.5, seed=1))
    noisy = d.make_dataset(d.DatasetSpec(TWO, 600, 0.5, seed=1, label_noise=0.1))
    np.testing.assert_array_equal(clean.X_train, noisy.X_train)
    np.testing.assert_array_equal(clean.y_test, noisy.y_test)
    assert (clean.y_train != noisy.y_train).sum() == 30


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"n_points": 1}, "n_points is 1"),
        ({"test_fraction": 1.0}, "test_fraction is 1.0"),
        ({"seed": -1}, "seed is -1"),
        ({"seed": "x"}, "seed is 'x'"),
        ({"label_noise": 2}, "label_noise is 2"),
    ],
)
def test_spec_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        d.DatasetSpec(TWO, **kwargs)


def test_spec_from_dict_errors():
    with pytest.raises(ValueError, match="'mixture' entry"):
        d.DatasetSpec.from_dict({"n_points": 3})
    with pytest.raises(ValueError, match="unknown entry 'n'"):
        d.DatasetSpec.from_dict({"mixture": TWO.to_dict(orient="records"), "n": 3})


# --- the paper's random protocol ------------------------------------------------------------------------------


def test_random_protocol_is_reproducible_and_documented():
    specs = d.paper_random_specs()
    assert len(specs) == 10
    assert [s.to_dict() for s in specs] == [s.to_dict() for s in d.paper_random_specs()]
    assert len({json.dumps(s.to_dict()) for s in specs}) == 10
    lo, hi = d.RANDOM_PROTOCOL["n_classes"]
    for spec in specs:
        df = spec.mixture
        classes = d.mixture_classes(df)
        assert lo <= len(classes) <= hi
        per_class = df.groupby("class").size()
        assert per_class.between(*d.RANDOM_PROTOCOL["clusters_per_class"]).all()
        assert df[["mean_x", "mean_y"]].abs().to_numpy().max() <= d.RANDOM_PROTOCOL["box"]
        assert df[["std_x", "std_y"]].to_numpy().min() >= d.RANDOM_PROTOCOL["std"][0] - 1e-3
        np.testing.assert_allclose(d.class_priors(df), 1 / len(classes), atol=0.01)
        assert (spec.n_train, spec.n_test) == (1000, 500)


def test_paper_protocol_cost_matrices():
    trials = d.paper_protocol(n_datasets=3, n_costs=5)
    for spec, costs in trials:
        K = len(d.mixture_classes(spec.mixture))
        assert len(costs) == 5
        for C in costs:
            assert C.shape == (K, K) and np.all(np.diag(C) == 0) and np.all(C[~np.eye(K, dtype=bool)] > 0)
            assert abs(random_guess_cost(C) - 1) <= 1e-12


def test_random_mixture_accepts_a_seed():
    pd.testing.assert_frame_equal(d.random_mixture(3, n_classes=4), d.random_mixture(3, n_classes=4))
    with pytest.raises(ValueError, match="n_classes is 1"):
        d.random_mixture(0, n_classes=1)


# --- presets and sample_data ----------------------------------------------------------------------------------


def test_preset_list():
    names = set(d.PRESETS)
    assert {"airport", "fig7", "paths", "xor", "rings", "imbalanced"} <= names
    assert {f"random_{i}" for i in range(10)} <= names
    with pytest.raises(KeyError):
        d.PRESETS["nope"]


@pytest.mark.parametrize("name", list(d.PRESETS))
def test_each_preset_loads_from_sample_data(name):
    preset = d.PRESETS[name]
    assert preset.story and preset.source and preset.costly_mistakes
    ds = d.load_sample(name)
    assert ds.name == name and ds.story == preset.story and ds.classes == preset.classes
    assert ds.cost_matrix.shape == (len(ds.classes),) * 2
    assert (len(ds.y_train), len(ds.y_test)) == (1000, 500)
    # the stored files are exactly what the code generates
    fresh = preset.dataset()
    for field in ("X_train", "y_train", "X_test", "y_test"):
        np.testing.assert_array_equal(getattr(ds, field), getattr(fresh, field))
    stored = json.loads((d.SAMPLE_DIR / f"{name}.json").read_text())
    assert stored == json.loads(json.dumps(preset.to_dict()))
    assert set(np.unique(ds.y_train)) == set(ds.classes)


def test_preset_json_round_trip_and_fallback(tmp_path):
    preset = d.PRESETS["fig7"]
    again = d.Preset.from_dict(json.loads(json.dumps(preset.to_dict())))
    assert again.to_dict() == preset.to_dict()
    assert set(again.cost_variants) == {
        "(a) uniform",
        "(b) x10 false-negative B",
        "(c) x10 false-positive C",
        "(d) x10 false-negative C",
    }
    ds = d.load_sample("airport", directory=tmp_path)  # no files: built from the code
    np.testing.assert_array_equal(ds.X_test, d.PRESETS["airport"].dataset().X_test)
    with pytest.raises(ValueError, match="sample 'nope' does not exist"):
        d.load_sample("nope", directory=tmp_path)
    written = d.write_samples(tmp_path)
    assert len(written) == 2 * len(d.PRESETS)


def test_story_costs():
    airport = d.PRESETS["airport"]
    assert airport.classes == ("harmless", "liquid", "weapon")
    C = airport.cost_matrix
    assert C[2, 0] == C[2, 1] == C[2].max() > 10 * C[0].max()
    assert np.all(np.diag(C) == 0)
    assert set(d.PRESETS["paths"].paths) == {"A", "B"}


# --- CSV ------------------------------------------------------------------------------------------------------


def _same(a, b):
    for field in ("X_train", "y_train", "X_test", "y_test"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.shape == y.shape and np.array_equal(x, y), field
    assert a.classes == b.classes and a.feature_names == b.feature_names


@pytest.mark.parametrize("name", list(d.PRESETS))
def test_csv_round_trip_of_presets(name, tmp_path):
    ds = d.PRESETS[name].dataset()
    _same(ds, d.read_csv(d.to_csv(ds).encode()))
    d.to_csv(ds, tmp_path / "x.csv")
    _same(ds, d.read_csv(tmp_path / "x.csv"))
    buf = io.StringIO()
    d.to_csv(ds, buf)
    _same(ds, d.read_csv(io.BytesIO(buf.getvalue().encode())))


@pytest.mark.parametrize("name", list(d.BUNDLED))
def test_bundled_datasets(name):
    ds = d.load_bundled(name)
    assert ds.story and len(ds.classes) >= 2 and ds.X_train.shape[1] == len(ds.feature_names)
    assert set(np.unique(ds.y_test)) == set(ds.classes)  # stratified split
    _same(ds, d.read_csv(d.to_csv(ds).encode()))
    if name == "digits":
        assert ds.classes == tuple(range(10))


_finite = st.floats(allow_nan=False, allow_infinity=False)
_label = (
    st.text(alphabet="abcXYZ é,\"'-_0123456789", min_size=1, max_size=6)
    .map(str.strip)
    .filter(lambda s: s and not s.lstrip("-").isdigit())
)


@settings(max_examples=100, deadline=None)
@given(
    X=st.lists(st.tuples(_finite, _finite), min_size=4, max_size=20),
    labels=st.lists(_label, min_size=2, max_size=2, unique=True),
)
def test_csv_round_trip_of_any_floats_and_string_labels(X, labels):
    """Exact, but for a label starting like a spreadsheet formula ("-a"), which comes back with the quote the
    writer put before it (rebel.textout.csv_text)."""
    X = np.array(X)
    y = np.array([labels[i % 2] for i in range(len(X))], dtype=object)
    ds = d.Dataset(X[:2], y[:2], X[2:], y[2:], tuple(sorted(labels)))
    quoted = [neutralised(v) for v in labels]
    y = np.array([quoted[i % 2] for i in range(len(X))], dtype=object)
    _same(d.Dataset(X[:2], y[:2], X[2:], y[2:], tuple(sorted(quoted))), d.read_csv(d.to_csv(ds).encode()))


def test_read_csv_without_split_column_and_label_choice():
    text = "f1,f2,kind\n" + "\n".join(f"{i},{i % 3},{'ab'[i % 2]}" for i in range(40))
    with pytest.raises(ValueError, match=r"no 'label' column; its columns are \['f1', 'f2', 'kind'\]"):
        d.read_csv(text.encode())  # never guessed (formerly the last column)
    ds = d.read_csv(text.encode(), label_column="kind", test_fraction=0.25, seed=0)
    assert (len(ds.y_train), len(ds.y_test)) == (30, 10)
    assert ds.classes == ("a", "b") and ds.feature_names == ("f1", "f2")
    numeric = "f1,f2,kind\n" + "\n".join(f"{i},{i % 3},{i % 2}" for i in range(40))
    ds2 = d.read_csv(numeric.encode(), label_column="f2")
    assert ds2.classes == (0, 1, 2) and ds2.feature_names == ("f1", "kind")
    with pytest.raises(ValueError, match="column 'kind': the value is 'a'"):
        d.read_csv(text.encode(), label_column="f2")


def test_integer_labels_sort_numerically():
    text = "x,label\n" + "\n".join(f"{i},{[2, 10][i % 2]}" for i in range(20))
    ds = d.read_csv(text.encode())
    assert ds.classes == (2, 10)


MALFORMED = [
    (b"", "the CSV file is empty"),
    (b"x,y,label\n", "no data lines"),
    (b"label\na\nb\n", "no feature column"),
    (b"x,y,label,split\n1,2,a,test\n3,4,b,test\n", "the training split has no rows"),
    (b"x,y,label\n1,2,a\n3,oops,b\n", "line 3, column 'y': the value is 'oops'"),
    (b"x,y,label\n1,2,a\n3,,b\n", "line 3, column 'y': the value is empty"),
    (b"x,y,label\n1,nan,a\n3,4,b\n", "line 2, column 'y': the value is empty"),
    (b"x,y,label\n1,inf,a\n3,4,b\n", "line 2, column 'y': the value is 'inf'"),
    (b"x,y,label\n1,2,a\n3,4,\n", "line 3: the label ('label') is empty"),
    (b"x,y,label\n1,2,a\n3,4,a\n", "single class 'a'"),
    (b"x,y,label\n1,2,a\n3,4,b,5\n", "same number of"),
    (b"x,x,label\n1,2,a\n3,4,b\n", "column name 'x' appears twice"),
    (b"x,,label\n1,2,a\n3,4,b\n", "CSV column 2 has no name"),
    (b"1,2,3\n4,5,6\n", "looks like data"),
    (b"x,y,label\n\xff\xfe,2,a\n", "not UTF-8"),
    (b"x,y,label,split\n1,2,a,train\n3,4,b,valid\n", "line 3, column 'split': the value is 'valid'"),
    (b"x,y,label,split\n1,2,a,train\n3,4,b,test\n", "the training split has a single class 'a'"),
    ("x,label\n" + "\n".join(f"{i},k{i}" for i in range(60)), "60 classes"),
    ("x,label\n" + "\n".join(f"{i},{i % 2}" for i in range(101)), "more than 100 data lines"),
    ("".join(f"f{j}," for j in range(1001)) + "label\n" + "1," * 1001 + "a\n", "1001 feature columns"),
]


@pytest.mark.parametrize("content, fragment", MALFORMED)
def test_malformed_csv_gives_a_clear_error(content, fragment):
    data = content.encode() if isinstance(content, str) else content
    with pytest.raises(ValueError) as err:
        d.read_csv(data, max_rows=100)
    assert fragment in str(err.value)


def test_read_csv_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="label_column 'kind' is not a column"):
        d.read_csv(b"x,label\n1,a\n2,b\n", label_column="kind")
    with pytest.raises(ValueError, match="could not be read"):
        d.read_csv(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="give a file path, bytes or an open file"):
        d.read_csv(12)
    ds = d.PRESETS["xor"].dataset()
    ds.feature_names = ("label", "y")
    with pytest.raises(ValueError, match="reserved"):
        d.to_csv(ds)


# --- training: the Bayes rule is the floor; cost-sensitive training avoids the costly mistake -------------------


def _costly_rate(preset, y_true, y_pred):
    pairs = set(preset.costly_mistakes)
    return np.mean([(t, p) in pairs for t, p in zip(y_true, y_pred)])


@pytest.mark.parametrize("name", list(d.PRESETS))
def test_costly_mistake_is_rarer_with_cost_sensitive_training(name):
    preset = d.PRESETS[name]
    ds = d.load_sample(name)
    rates = {}
    for label, C in (("cost", ds.cost_matrix), ("0-1", None)):
        model = RebelClassifier(cost_matrix=C, n_estimators=100, max_depth=1, random_state=0)
        rates[label] = _costly_rate(preset, ds.y_test, model.fit(ds.X_train, ds.y_train).predict(ds.X_test))
    assert rates["cost"] < rates["0-1"], rates


@pytest.mark.parametrize("name", ["airport", "fig7", "imbalanced", "random_1"])
def test_bayes_rule_beats_rebel_and_two_step(name):
    preset = d.PRESETS[name]
    ds, C = preset.dataset(), preset.cost_matrix
    # A large fresh test set, so that sampling luck cannot let a model beat the Bayes rule.
    X_test, y_test = d.sample_mixture(preset.spec.mixture, 20_000, seed=123)
    truth = ds.class_index(y_test)
    bayes = d.bayes_cost(preset.spec.mixture, X_test, y_test, C)
    rebel = RebelClassifier(cost_matrix=C, n_estimators=100, max_depth=2, random_state=0).fit(
        ds.X_train, ds.y_train
    )
    plain = RebelClassifier(n_estimators=100, max_depth=2, random_state=0).fit(ds.X_train, ds.y_train)
    two_step = min_risk_class(plain.predict_proba(X_test), C)
    assert bayes <= rebel.expected_cost(X_test, y_test)
    assert bayes <= C[truth, two_step].mean()
    assert rebel.expected_cost(X_test, y_test) == pytest.approx(
        C[truth, ds.class_index(rebel.predict(X_test))].mean()
    )


# ---- one label -> index helper; the class cap of rebel.params


def test_label_indices_maps_labels_and_names_the_unknown_one():
    np.testing.assert_array_equal(d.label_indices(["b", "a", "c", "b"], ("a", "b", "c")), [1, 0, 2, 1])
    np.testing.assert_array_equal(d.label_indices(np.array([10, 2]), np.array([2, 10])), [1, 0])
    assert d.label_indices([], ("a", "b")).shape == (0,)
    with pytest.raises(ValueError, match=r"label 'z' is not one of the classes \['a', 'b'\]; add it"):
        d.label_indices(["a", "z"], ("a", "b"), fix="add it")
    with pytest.raises(ValueError, match="label 'a' is not one of the classes"):
        d.label_indices(["a"], np.array([0, 1]))  # another type than the classes


def test_csv_and_mixture_refuse_more_classes_than_params_allow():
    from rebel.params import MAX_CLASSES

    K = MAX_CLASSES + 1
    text = "x,label\n" + "".join(f"{i},{i % K}\n" for i in range(2 * K))
    with pytest.raises(ValueError, match=f"{K} classes; REBEL Explorer takes at most {MAX_CLASSES}"):
        d.read_csv(text.encode(), test_fraction=0)
    rows = [{"class": f"c{k}", "mean_x": k, "mean_y": 0, "std_x": 1, "std_y": 1} for k in range(K)]
    with pytest.raises(ValueError, match=f"at most {MAX_CLASSES}"):
        d.validate_mixture(rows)


# ---- sample_data/ inside an installed (non-editable) package


def test_pyproject_lists_every_package_of_the_tree():
    import tomllib
    from pathlib import Path

    from setuptools import find_packages

    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    assert config["package-dir"]["rebel._sample_data"] == "sample_data"
    assert listed == set(find_packages(str(root), include=["rebel*"])) | {"rebel._sample_data"}


def test_wheel_carries_sample_data_and_the_installed_package_finds_it(tmp_path):
    import shutil
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    src = tmp_path / "src"  # build from a copy: setuptools writes build/ and *.egg-info next to the sources
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".numba_cache")
    for part in ("rebel", "sample_data"):
        shutil.copytree(root / part, src / part, ignore=skip)
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(root / part, src / part)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(src)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "site")  # a pure-Python wheel unpacked = its installed layout
    shipped = sorted(p.name for p in (root / "sample_data").iterdir() if p.suffix in (".csv", ".json", ".md"))
    assert shipped and {f"rebel/_sample_data/{n}" for n in shipped} <= names
    code = (
        "import rebel.data as d; ds = d.load_sample('xor'); "
        "print(d.sample_dir()); print(len(ds.y_train), d.load_preset('airport').name)"
    )
    run = run_python(
        code, cwd=tmp_path, PYTHONPATH=str(tmp_path / "site"), NUMBA_CACHE_DIR=str(tmp_path / "numba")
    )
    assert run.returncode == 0, run.stderr[-2000:]
    found, counts = run.stdout.splitlines()
    assert Path(found) == tmp_path / "site" / "rebel" / "_sample_data"
    assert counts == "1000 airport"


# ------------------------------------------------------------------ parsers linear in their input (issue 20)


def _header(n_columns: int, width: int = 0) -> bytes:
    """A header of ``n_columns`` distinct names c0, c1, ... (zero-padded to ``width`` digits) and one line."""
    names = ",".join(f"c{j:0{width}d}" for j in range(n_columns))
    return (names + "\n" + "1," * (n_columns - 1) + "a\n").encode()


def _no_parsing(monkeypatch):
    """Make the table parser fail the test if it is reached: a refusal must come before it."""

    def parsed(*_args, **_kwargs):
        raise AssertionError("the table was parsed before the header's limits were checked")

    monkeypatch.setattr("rebel.data.files._parse_table", parsed)


def test_a_million_column_header_is_refused_before_any_parsing(monkeypatch):
    """1e6 columns (7.9 MB of header): refused on the header's length, before it is split into names. The old
    parser counted every name against every other (quadratic) and parsed each as a number: hours here."""
    data = _header(1_000_000)
    _no_parsing(monkeypatch)
    with pytest.raises(BudgetError, match=r"characters in the CSV header line.*at most 200,000"):
        d.read_csv(data)


@pytest.mark.parametrize("n_columns", [1_002, 25_000])
def test_too_many_columns_are_refused_on_the_header_before_the_file_is_parsed(n_columns, monkeypatch):
    """Within the header's length, the column count is checked right after the one header line is split
    (a data line of the wrong width would only be found by parsing the table)."""
    data = _header(n_columns, width=5).replace(b"\n1,", b"\n1,2,3,", 1)  # a bad data line: never read
    _no_parsing(monkeypatch)
    with pytest.raises(BudgetError, match=f"{n_columns - 1} feature columns; at most MAX_FEATURES = 1000"):
        d.read_csv(data)


class _CountingName(str):
    """A column name that counts the comparisons and hashes made with it (``strip`` keeps the type)."""

    operations = 0

    def __eq__(self, other):
        _CountingName.operations += 1
        return str.__eq__(self, other)

    def __hash__(self):
        _CountingName.operations += 1
        return str.__hash__(self)

    def strip(self, *args):
        return _CountingName(str.strip(self, *args))


def _header_operations(monkeypatch, n_columns: int) -> int:
    """Comparisons and hashes of column names made while checking a header of ``n_columns`` distinct names
    and a duplicate of the last one at the end (refused)."""
    import csv as real_csv
    import types

    def reader(stream):
        return iter([[_CountingName(name) for name in row] for row in real_csv.reader(stream)])

    monkeypatch.setattr("rebel.data.files.csv", types.SimpleNamespace(reader=reader, Error=real_csv.Error))
    names = [f"n{j}" for j in range(n_columns - 1)] + [f"n{n_columns - 2}"]
    _CountingName.operations = 0
    with pytest.raises(ValueError, match=f"'n{n_columns - 2}' appears twice"):
        d.read_csv((",".join(names) + ",label\n" + "1," * n_columns + "a\n").encode())
    return _CountingName.operations


def test_header_checks_scale_linearly(monkeypatch):
    """Duplicates are found with a set: the name comparisons and hashes grow linearly with the column count
    (a pairwise search would make n^2 / 2 of them: half a million at 1,000 columns, the most allowed)."""
    small, large = _header_operations(monkeypatch, 100), _header_operations(monkeypatch, 1_000)
    assert 0 < large <= 12 * small  # linear: ~10x; quadratic: ~100x
    assert large <= 20 * 1_000
