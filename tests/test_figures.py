"""rebel.ui.figures: pure figure builders (data in, go.Figure out) and the palette."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from rebel.ui.figures import costs, regions
from rebel.ui.figures.palette import OKABE_ITO, class_colors, darken, lighten, region_colors


def _grid(n=20):
    xs, ys = np.linspace(-1, 1, n), np.linspace(-2, 2, n)
    labels = (xs[None, :] > 0).astype(np.int16) + (ys[:, None] > 0)
    return xs, ys, labels


def test_palette_starts_with_okabe_ito_orange_and_regions_are_lighter():
    assert class_colors(1) == [OKABE_ITO[0]]
    assert len(set(class_colors(40))) == 40  # twelve chosen colours, then golden-angle hues
    for point, region in zip(class_colors(5), region_colors(5)):
        assert sum(int(region[i : i + 2], 16) for i in (1, 3, 5)) > sum(
            int(point[i : i + 2], 16) for i in (1, 3, 5)
        )
    assert lighten("#000000", 1.0) == "#FFFFFF" and lighten("#123456", 0.0) == "#123456"


def test_boundary_segments_follow_label_changes():
    xs, ys = np.arange(4.0), np.arange(3.0)
    labels = np.array([[0, 0, 1, 1]] * 3)
    bx, _ = regions.boundary_segments(xs, ys, labels)
    seg_x = bx.reshape(-1, 3)[:, :2]
    assert seg_x.shape[0] == 3 and np.all(seg_x == 1.5)  # one vertical edge per row, between x = 1 and 2
    bx, _ = regions.boundary_segments(xs, ys, np.zeros((3, 4)))
    assert bx.size == 0


def test_regions_figure_layers():
    xs, ys, labels = _grid()
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (30, 2))
    y = rng.integers(0, 3, 30)
    pred = y.copy()
    pred[:4] = (pred[:4] + 1) % 3
    fig = regions.regions_figure(
        xs,
        ys,
        labels,
        ["a", "b", "c"],
        train=(X, y, pred),
        test=(X[:10], y[:10], y[:10]),
        train_sizes=regions.weight_sizes(np.ones(30)),
        bayes_regions=labels,
        other_regions=1 - labels.clip(0, 1),
        show_other=True,
        show_disagreement=True,
        title="t = 3",
        box_select=True,
    )
    assert isinstance(fig, go.Figure)
    names = [tr.name for tr in fig.data]
    assert names[0] == "regions" and "disagreement" in names and "Bayes-optimal boundaries" in names
    assert "two-step boundaries" in names and "mistake" in names
    assert len(fig.data[names.index("mistake")].x) == 4
    heat = fig.data[0]
    assert heat.z.dtype == np.uint8 and heat.zmin == -0.5 and heat.zmax == 2.5
    assert heat.colorscale[0][1].upper() == region_colors(3)[0].upper()
    assert fig.layout.dragmode == "select" and fig.layout.yaxis.scaleanchor == "x"
    test_traces = [tr for tr in fig.data if tr.name and "(test)" in tr.name]
    assert test_traces and all(tr.marker.symbol.endswith("-open") for tr in test_traces)
    shapes = {tr.marker.symbol for tr in fig.data if tr.name and "(train)" in tr.name}
    assert len(shapes) == len(
        {tr.name for tr in fig.data if tr.name and "(train)" in tr.name}
    )  # one per class


def test_regions_figure_minimal_and_escapes_names():
    xs, ys, labels = _grid()
    fig = regions.regions_figure(
        xs, ys, labels, ["<b>x</b>", "y", "z"], train=(np.zeros((1, 2)), np.array([0]), np.array([0]))
    )
    assert [tr.name for tr in fig.data] == ["regions", "&lt;b&gt;x&lt;/b&gt; (train)"]
    assert fig.layout.dragmode == "zoom"


def test_weight_sizes_are_clipped_and_monotone():
    s = regions.weight_sizes([0.0, 1.0, 4.0, 1e6])
    assert s[0] == 3.0 and s[1] < s[2] and s[3] == 30.0


def test_cost_heatmap_and_confusion():
    C = np.array([[0, 1], [10, 0.0]])
    fig = costs.cost_heatmap(C, ["cat", "dog"])
    assert np.array_equal(np.asarray(fig.data[0].z), C) and fig.layout.yaxis.autorange == "reversed"
    assert "cat" in fig.data[0].x[0] and "■" in fig.data[0].x[0]
    fig = costs.confusion_figure(np.array([[5, 1], [2, 7]]), np.array([[0, 0.1], [1.2, 0]]), ["cat", "dog"])
    assert fig.data[0].text[1][0] == "2<br>1.200" and fig.data[0].text[0][0] == "5"


def test_cost_curves_figure():
    t = np.arange(5)
    curves = pd.concat(
        [
            pd.DataFrame({"t": t, "model": m, "split": s, "cost": 1.0 / (t + 1)})
            for m in ("REBEL", "two-step")
            for s in ("train", "test")
        ]
    )
    fig = costs.cost_curves_figure(curves, t=2, bayes_cost=0.1)
    names = [tr.name for tr in fig.data]
    assert {"REBEL train", "REBEL test", "two-step train", "two-step test"} <= set(names)
    marker = fig.data[-1]
    assert list(marker.x) == [2, 2]
    assert len(fig.layout.shapes) == 2  # the Bayes line and the marker line at t


def _is_hex(color: str) -> bool:
    return len(color) == 7 and color[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in color[1:])


def test_palette_gives_valid_distinct_colours_for_every_allowed_class_count():
    from rebel.params import MAX_CLASSES

    for K in range(1, MAX_CLASSES + 1):
        points, light = class_colors(K), region_colors(K)
        assert len(points) == len(light) == K
        assert all(_is_hex(c) for c in points + light), K
        assert len({c.upper() for c in points}) == K and len({c.upper() for c in light}) == K, K
    assert class_colors(14)[:14] == class_colors(50)[:14]  # adding classes never recolours the first ones


def test_palette_mix_is_checked():
    with pytest.raises(ValueError, match="mix"):
        lighten("#123456", 1.5)
    with pytest.raises(ValueError, match="mix"):
        darken("#123456", -0.1)


def test_regions_for_29_classes_render():
    K = 29
    xs, ys = np.linspace(0, 1, 40), np.linspace(0, 1, 30)
    labels = (np.arange(40)[None, :] * K // 40 + np.zeros((30, 1), int)).astype(np.int16)
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, (200, 2))
    y = rng.integers(0, K, 200)
    fig = regions.regions_figure(xs, ys, labels, [f"c{k}" for k in range(K)], train=(X, y, y), test=(X, y, y))
    fig.to_json()  # plotly validates every colour on the way
    scale = fig.data[0].colorscale
    assert len(scale) == 2 * K and all(_is_hex(c) for _, c in scale)
    assert sum(1 for tr in fig.data if tr.name and tr.name.endswith("(train)")) == len(set(y))


# ---------------------------------------------------------------------------------------------------- regime map
def _regime_points(fig) -> dict:
    """{regime label: (win rate, lower error, upper error, colour)} of a regime map figure."""
    out = {}
    for trace in fig.data:
        for i, (x, y) in enumerate(zip(trace.x, trace.y)):
            out[y] = (x, trace.error_x.arrayminus[i], trace.error_x.array[i], trace.marker.color)
    return out


def test_regime_map_figure_is_built_from_the_stored_table():
    from rebel.ui import vs_two_step as vs
    from rebel.ui.figures.palette import OUTCOME_COLORS
    from rebel.ui.figures.winrates import regime_map_figure

    record = vs.load_regime_map()
    assert record is not None, "docs/regime_map.json is missing"
    fig = regime_map_figure(record["rows"], "calibrated two-step method")
    points = _regime_points(fig)
    assert len(points) == len(record["rows"])
    for r in record["rows"]:
        x, minus, plus, color = points[f"{r['factor']}: {r['setting']}"]
        assert x == r["win_rate"]
        assert x - minus == pytest.approx(r["win_lo"]) and x + plus == pytest.approx(r["win_hi"])
        cheaper = "REBEL cheaper" if r["diff_hi"] < 0 else "two-step cheaper" if r["diff_lo"] > 0 else "tie"
        assert color == OUTCOME_COLORS[cheaper]
    (half,) = [s for s in fig.layout.shapes if s.x0 == s.x1]
    assert half.x0 == 0.5
    assert list(fig.layout.yaxis.categoryarray)[::-1] == [
        f"{r['factor']}: {r['setting']}" for r in record["rows"]
    ]


def test_regime_map_caption_says_plainly_whether_a_regime_favours_rebel():
    from rebel.ui import vs_two_step as vs
    from rebel.ui.text import visible

    record = vs.load_regime_map()
    text = visible(vs.regime_caption(record))
    favours = any(r["diff_hi"] < 0 for r in record["rows"])
    assert ("No regime favours REBEL" in text) is not favours
    assert record["command"] in text and f"seed {record['seed']}" in text
    flipped = {**record, "rows": [{**record["rows"][0], "diff": -0.01, "diff_lo": -0.02, "diff_hi": -0.001}]}
    assert "No regime favours REBEL" not in vs.regime_caption(flipped)
    assert "REBEL is cheaper in 1 of 1 regimes" in vs.regime_caption(flipped)


def test_stored_regime_map_matches_the_documented_table():
    """Every regime's win rate and interval, as ``stats.rate_text`` writes them, is in REPRODUCTION.md's
    regime-map table, on the row of that regime."""
    from pathlib import Path

    from rebel.experiments import stats
    from rebel.ui import vs_two_step as vs

    record = vs.load_regime_map()
    doc = (Path(__file__).resolve().parent.parent / "docs" / "REPRODUCTION.md").read_text(encoding="utf-8")
    table = doc[doc.index("**Regime map**") :].split("\n\n")[1]
    for r in record["rows"]:
        rate = stats.rate_text({**r, "level": record["level"]}).replace("95 % CI ", "")
        rows = [line for line in table.splitlines() if line.startswith(f"| {r['factor']} |")]
        costs = f"{r['a_cost']:.4f} / {r['b_cost']:.4f}"
        assert any(rate in line and costs in line for line in rows), r


def test_regime_table_recomputes_a_row_from_a_grid(tmp_path):
    from rebel.experiments import calibrated as cal
    from rebel.ui import vs_two_step as vs

    rows = []
    for d, (reb, base) in enumerate(((0.2, 0.3), (0.4, 0.3), (0.5, 0.1))):
        for method, cost in (("rebel", reb), ("cal_temperature", base)):
            rows.append((f"s{d}", 0, "paper", 1, 25, method, cost, 0.0, "dimension", "d=2"))
    grid = pd.DataFrame(rows, columns=[*cal.COLUMNS, "factor", "setting"])
    chosen = pd.DataFrame(
        [
            {"family": "rebel", "method": "rebel", "variant": "paper", "depth": 1, "rounds": 25},
            {
                "family": "calibrated",
                "method": "cal_temperature",
                "variant": "paper",
                "depth": 1,
                "rounds": 25,
            },
        ]
    )
    table = cal.regime_table(grid, chosen)
    assert table["win_rate"].tolist() == pytest.approx([1 / 3])
    assert table["diff"].tolist() == pytest.approx([(-0.1 + 0.1 + 0.4) / 3])
    record = cal.regime_record(table, chosen, "python -m rebel reproduce calibrated", 7, 3)
    path = tmp_path / "regimes.json"
    path.write_text(__import__("json").dumps(record))
    loaded = vs.load_regime_map(path)
    assert loaded["rows"][0]["win_rate"] == pytest.approx(1 / 3) and loaded["seed"] == 7
    path.write_text('{"rows": [{"factor": "x"}]}')
    with pytest.raises(ValueError, match="regime map"):
        vs.load_regime_map(path)
    assert vs.load_regime_map(tmp_path / "absent.json") is None


# ------------------------------------------------------------------------------------ shapes, linear in their count
SHAPE_ADDERS = {"add_vrect", "add_hrect", "add_vline", "add_hline", "add_shape", "add_annotation"}
LOOPS = ("For", "While", "ListComp", "SetComp", "DictComp", "GeneratorExp")


def test_no_figure_adds_shapes_one_by_one_in_a_loop():
    """``fig.add_vrect`` and its kin re-validate every shape or annotation added before: in a loop the build is
    quadratic (Risk-score paths' panels took minutes at 50 classes). Shapes in numbers are built as plain dicts
    and set at once; this fails on any such call inside a loop of the view layer."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    loops = tuple(getattr(ast, name) for name in LOOPS)
    found = []
    for path in sorted((root / "rebel").rglob("*.py")) + sorted((root / "pages").glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for loop in ast.walk(tree):
            if not isinstance(loop, loops):
                continue
            for node in ast.walk(loop):
                func = getattr(node, "func", None)
                if isinstance(func, ast.Attribute) and func.attr in SHAPE_ADDERS:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {func.attr}")
    assert not found, f"shapes added one by one in a loop: {sorted(set(found))}"


def test_risk_path_panels_build_each_shape_once(monkeypatch):
    """50 classes whose min-risk class changes at almost every step: hundreds of stretches and change lines, each
    shape constructed about once (not once per shape added before it)."""
    from plotly.graph_objs import layout as go_layout

    from rebel.ui.figures import paths

    built = [0]
    init = go_layout.Shape.__init__

    def counting(self, *args, **kwargs):
        built[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(go_layout.Shape, "__init__", counting)
    rng = np.random.default_rng(0)
    K = 50
    profiles = {
        f"P{p}": {m: (np.linspace(0, 1, 80), rng.normal(size=(80, K))) for m in ("stumps", "depth 2")}
        for p in range(3)
    }
    fig = paths.path_scores_figure(profiles, [f"c{k}" for k in range(K)], t=10)
    n = len(fig.layout.shapes)
    assert n > 400  # a stretch and a line per change, 6 panels
    assert built[0] <= 2 * n + 10, (built[0], n)


def test_presentation_modes_cost_table_writes_every_text_at_20_px_and_names_classes_by_colour():
    """Presentation mode's table: the columns headed by a square in their class's colour, the rows by the same
    square and the name, every text at 20 px, costs with 2 significant digits, the picked entry framed; the width
    from which its costs fit their cells grows with the classes and the costs' digits."""
    from rebel.ui.figures import cost_table as ct
    from rebel.ui.figures.palette import class_colors

    names = ["apple", "banana", "a <b>bold</b> name", "elderberry", "fig"]
    C = np.arange(25, dtype=float).reshape(5, 5) / 3
    np.fill_diagonal(C, 0)
    colors = class_colors(5)
    fig = ct.cost_table_figure(C, names, 26, colors=colors, picked=(2, 4))
    costs = fig.data[1]
    assert costs.textfont.size == ct.PRESENT_FONT == 20
    assert fig.layout.xaxis.tickfont.size == fig.layout.yaxis.tickfont.size == 20
    assert fig.layout.hoverlabel.font.size == 20
    assert [list(r) for r in costs.text] == [[f"{v:.2g}" for v in row] for row in C]
    assert list(fig.layout.xaxis.ticktext) == [f'<span style="color:{c}">■</span>' for c in colors]
    rows = list(fig.layout.yaxis.ticktext)
    assert rows[0] == f'<span style="color:{colors[0]}">■</span> apple'
    assert "<b>" not in rows[2] and "&lt;b&gt;" in rows[2]  # a class name is inert text
    assert rows[3].endswith("elderberry")  # 10 characters up to 8 classes
    (frame,) = fig.layout.shapes
    assert (frame.x0, frame.x1, frame.y0, frame.y1) == (3.5, 4.5, 1.5, 2.5)
    assert frame.line.color == ct.PICKED_LINE
    assert ct.present_name_chars(12) == 7 and ct.present_name_chars(8) == 10
    # the widths: a cost and a name at 20 px as measured in Chromium (``_EM``)
    assert ct.text_px("8.7") == 25.0 and ct.text_px("0.78") == 35.0
    small = ct.numbers_fit_px(np.ones((5, 5)) - np.eye(5), names)  # costs "1", "0"
    assert small < ct.numbers_fit_px(C, names)  # wider costs ("7.7"), wider cells
    assert small < 340  # five classes of one-digit costs fit a 340 px column at 20 px; twelve of "8.7" not
    twelve = [f"c{k}" for k in range(12)]
    assert ct.numbers_fit_px(np.full((12, 12), 8.7), twelve) > 340
    # the page hides the costs below the least step of its style sheets that holds them
    from rebel.ui.playground import screen

    for fit, step in [(1, 200), (200, 200), (201, 240), (523, 560), (900, 900), (901, None)]:
        assert screen.costs_fit_step(fit) == step
    for step in screen.FIT_STEPS:  # one style sheet per step, hiding the costs below it
        css = getattr(screen, f"_FIT_{step}")
        assert css.startswith("<style>.st-key-w_costs_table_box {container-type: inline-size;}")
        assert f"@container (max-width: {step - 1}px) {{.st-key-w_costs_table_box .heatmaplayer text" in css
    # without colours: the table as before (no squares, no frame)
    plain = ct.cost_table_figure(C, names, 26)
    assert plain.layout.xaxis.ticktext is None and not plain.layout.shapes


def test_the_cost_table_names_its_columns_across_up_to_six_classes_and_upright_beyond():
    from rebel.ui.figures import cost_table as ct

    five = ["healthy", "flu", "pneumonia", "sepsis", "covid"]
    fig = ct.cost_table_figure(np.ones((5, 5)) - np.eye(5), five)
    cols = list(fig.data[1].x)
    assert cols == ct.column_labels(five) and cols[0] == "healthy" and cols[2].startswith("pneu")
    assert all(len(c) <= ct.column_name_chars(5) for c in cols)
    assert not ct.upright_columns(five)
    twelve = [f"class {k}" for k in range(12)]  # named upright, the rows by name alone
    fig = ct.cost_table_figure(np.ones((12, 12)) - np.eye(12), twelve, row_px=26)
    assert (
        ct.column_labels(twelve) == twelve
        and ct.upright_columns(twelve)
        and fig.layout.xaxis.tickangle == -90
    )
    assert list(fig.data[1].y) == twelve and fig.layout.height == ct.cost_table_height(12, 26)
    assert fig.layout.margin.t >= len("class 10") * ct.UPRIGHT_CHAR * fig.layout.xaxis.tickfont.size
    clash = ["alpha one", "alpha two", "b", "c", "d", "e"]  # cut to the same text: numbered instead
    assert ct.column_labels(clash) == [str(j + 1) for j in range(6)]
    long = [f"a long class name {k}" for k in range(12)]
    assert ct.column_labels(long) == [str(j + 1) for j in range(12)] and not ct.upright_columns(long)
