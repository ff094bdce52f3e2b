"""Figure defects found in the app, each pinned on the figure object (screenshots checked by hand as well)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rebel.ui.figures import compare, costs, regions, sweep, trees
from rebel.ui.figures.palette import class_colors, hex_to_rgb, region_colors


def _curves():
    t = np.arange(6)
    return pd.concat(
        [
            pd.DataFrame({"t": t, "model": m, "split": s, "cost": 0.5 / (t + 1) + 0.1})
            for m in ("REBEL", "two-step")
            for s in ("train", "test")
        ]
    )


def test_bayes_cost_is_named_in_the_legend_not_written_over_the_curves():
    fig = costs.cost_curves_figure(_curves(), t=5, bayes_cost=0.1)
    assert not fig.layout.annotations  # no text inside the plot for curves or the t cursor to cross
    entry = [tr for tr in fig.data if tr.name and tr.name.startswith("Bayes rule (test) 0.100")]
    assert len(entry) == 1 and entry[0].line.dash == "dash" and entry[0].showlegend is not False
    assert len(fig.layout.shapes) == 2  # the Bayes line itself and the cursor at t


def test_matrix_titles_sit_above_the_predicted_axis_title():
    for fig in (
        costs.confusion_figure(np.eye(3, dtype=int), np.zeros((3, 3)), list("abc"), title="REBEL at t = 100"),
        costs.cost_heatmap(np.ones((3, 3)), list("abc")),
    ):
        title = fig.layout.title
        assert title.yref == "container" and title.y == 1 and title.yanchor == "top"
        assert fig.layout.margin.t >= 60  # room for the title line, then "predicted", then the class labels
        assert fig.layout.xaxis.side == "top" and fig.layout.xaxis.title.text == "predicted"


def test_large_cost_matrices_hide_unreadable_numbers_behind_hover_and_a_colour_bar():
    small = costs.cost_heatmap(np.ones((3, 3)), list("abc"))
    assert small.data[0].texttemplate == "%{text}" and not small.data[0].showscale
    big = costs.cost_heatmap(np.arange(100.0).reshape(10, 10), [str(k) for k in range(10)], height=320)
    heat = big.data[0]
    assert heat.texttemplate == "" and heat.showscale  # no 6 px numbers; a colour bar gives the scale
    assert "cost %{z" in heat.hovertemplate


def test_two_step_boundary_is_a_neutral_dotted_line_on_a_white_halo():
    xs = ys = np.linspace(0, 1, 30)
    labels = (xs[None, :] > 0.5).astype(int) + np.zeros((30, 1), int)
    fig = regions.regions_figure(xs, ys, labels, list("ab"), other_regions=1 - labels, show_other=True)
    halo, line = (tr for tr in fig.data if tr.name and tr.name.startswith("two-step boundaries"))
    r, g, b = hex_to_rgb(line.line.color)
    assert r == g == b and line.line.color not in class_colors(2) + region_colors(2)  # neutral, not orange
    assert (
        line.line.dash == "dot" and halo.line.color.upper() == "#FFFFFF" and halo.line.width > line.line.width
    )
    assert halo.showlegend is False and fig.data.index(halo) < fig.data.index(line)


def test_boundary_polylines_join_the_cell_edges_so_dashes_show():
    xs, ys = np.arange(6.0), np.arange(5.0)
    labels = np.zeros((5, 6), int)
    labels[:, 3:] = 1  # one straight vertical boundary at x = 2.5
    bx, by = regions.boundary_polylines(xs, ys, labels)
    assert np.isnan(bx).sum() == 1 and np.all(bx[:-1] == 2.5)  # one polyline of 6 corners
    assert sorted(by[:-1]) == [-0.5, 0.5, 1.5, 2.5, 3.5, 4.5]
    # a closed region and a crossing: every unit edge of boundary_segments is walked exactly once
    gx, gy = np.meshgrid(np.linspace(-1, 1, 25), np.linspace(-1, 1, 25))
    grid = np.where(gx**2 + gy**2 < 0.4, 0, np.where(gx > 0, 1, 2))
    sx, sy = regions.boundary_segments(np.linspace(-1, 1, 25), np.linspace(-1, 1, 25), grid)
    px, py = regions.boundary_polylines(np.linspace(-1, 1, 25), np.linspace(-1, 1, 25), grid)
    seg = {tuple(sorted([(sx[i], sy[i]), (sx[i + 1], sy[i + 1])])) for i in range(0, len(sx), 3)}
    walked = [
        tuple(sorted([(px[i], py[i]), (px[i + 1], py[i + 1])]))
        for i in range(len(px) - 1)
        if not (np.isnan(px[i]) or np.isnan(px[i + 1]))
    ]
    assert len(walked) == len(set(walked)) == len(seg) and set(walked) == seg
    assert np.isnan(px).sum() < len(seg) / 10  # long chains, not one piece per edge


def test_tree_leaves_show_their_sample_counts():
    nodes = pd.DataFrame(
        {
            "node": [0, 1, 2],
            "level": [0, 1, 1],
            "x": [0.5, 0.25, 0.75],
            "parent": [-1, 0, 0],
            "branch": ["", "<=", ">"],
            "kind": ["split", "leaf", "leaf"],
            "feature": ["x0", "", ""],
            "threshold": [0.3, np.nan, np.nan],
            "sign": [0, 1, -1],
            "idle": [False, False, False],
            "reachable": [True, True, True],
            "n": [10, 7, 3],
            "top_class": [0, 0, 1],
        }
    )
    fig = trees.tree_diagram_figure(nodes, ["a", "b"])
    leaves = next(tr for tr in fig.data if tr.name == "leaf")
    assert list(leaves.text) == ["f = +1<br>n = 7", "f = -1<br>n = 3"]
    assert fig.layout.yaxis.range[0] <= -1.8  # room below the leaves for two lines of text
    bare = trees.tree_diagram_figure(nodes.drop(columns=["n", "top_class"]))
    assert list(next(tr for tr in bare.data if tr.name == "leaf").text) == ["f = +1", "f = -1"]


def test_coinciding_method_curves_stay_visible_and_say_so():
    t = np.arange(30)
    same = 0.3 * np.exp(-t / 10) + 0.05
    table = pd.concat(
        [
            pd.DataFrame({"t": t, "method": "REBEL (0-1 costs)", "test_cost": same}),
            pd.DataFrame({"t": t, "method": "two-step REBEL", "test_cost": same}),
            pd.DataFrame({"t": t, "method": "HGB", "test_cost": same + 0.01}),
        ]
    )
    fig = compare.method_curves_figure(table)
    first, second, third = fig.data
    assert first.line.dash == "solid" and first.name == "REBEL (0-1 costs)"
    assert second.line.dash == "dash" and "markers" in second.mode
    assert "same curve as REBEL (0-1 costs)" in second.name
    assert (np.asarray(second.marker.size) > 0).sum() >= 10  # markers along the whole curve
    assert third.name == "HGB" and "same curve" not in third.name


def test_sweep_log_axis_labels_whole_decades():
    values = np.geomspace(0.1, 100, 13)
    costs_table = pd.concat(
        [
            pd.DataFrame({"value": values, "method": m, "test_cost": np.linspace(0.1, 0.5, 13)})
            for m in ("REBEL", "two-step")
        ]
    )
    fig = sweep.sweep_cost_figure(costs_table, "C[a → b]", current=1.0)
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.dtick == 1  # ticks 0.1, 1, 10, 100 only
    metrics = pd.DataFrame({"value": values, "method": "REBEL", "class": 0, "recall": 0.5, "precision": 0.5})
    fig = sweep.sweep_metrics_figure(metrics, ["a"], entry_label="C[a → b]")
    assert fig.layout.xaxis.dtick == 1 and fig.layout.xaxis2.dtick == 1
    narrow = sweep.log_ticks([1.0, 2.0, 5.0])
    assert "dtick" not in narrow  # less than a decade: plotly's 1 2 5 labels are the only ones there are


def test_gallery_titles_wrap_to_a_quarter_of_1280_px_and_the_classes_have_a_legend():
    from rebel.ui.figures import gallery
    from rebel.ui.gallery import gallery_titles

    xs = ys = np.linspace(-1, 1, 5)
    names = ["harmless", "liquid", "weapon<b>"]
    tops = set()
    for title in gallery_titles(names, 2, 10.0, 0).values():
        fig = gallery.gallery_panel_figure(xs, ys, np.zeros((5, 5), int), names, title=title)
        tops.add(fig.layout.margin.t)
        lines = fig.layout.title.text.split("<br>")
        assert all(len(line) <= gallery.TITLE_CHARS + 6 for line in lines), lines  # + "&lt;b&gt;" slack
        assert " ".join(lines).replace("&lt;b&gt;", "<b>") == title
        assert fig.layout.margin.t >= 12 + 16 * len(lines)
    assert len(tops) == 1, tops  # one- and two-line titles alike: the four panels' plots line up
    legend = gallery.class_legend_figure(names)
    assert [tr.name for tr in legend.data] == ["harmless", "liquid", "weapon&lt;b&gt;"]
    assert len({tr.marker.symbol for tr in legend.data}) == 3 and legend.layout.showlegend


def test_every_plane_plot_names_its_axes_with_the_feature_names():
    """Trees say "x ≤ 3.06": the regions, gallery, paths and weak-learner plots title their axes the same way."""
    from rebel.ui.figures import gallery, paths, replay

    xs = ys = np.linspace(-1, 1, 5)
    Z, names = np.zeros((5, 5), int), ["a", "b"]
    X, y = np.zeros((2, 2)), np.array([0, 1])
    figs = [
        regions.regions_figure(xs, ys, Z, names),
        gallery.gallery_panel_figure(xs, ys, Z, names),
        paths.paths_regions_figure(xs, ys, Z, names, {"A": [[0, 0], [1, 1]]}),
        trees.weak_learner_figure(xs, ys, np.ones((5, 5)), X, y, names),
    ]
    for fig in figs:
        assert (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == ("x", "y")
    named = regions.regions_figure(xs, ys, Z, names, axis_names=("age", "income <$>"))
    assert (named.layout.xaxis.title.text, named.layout.yaxis.title.text) == ("age", "income &lt;$&gt;")
    fig = trees.weak_learner_figure(xs, ys, np.ones((5, 5)), X, y, names, axis_names=("sepal", "petal"))
    assert fig.layout.xaxis.title.text == "sepal"
    # The Playground's replay: the plane is titled, its cost strip (x3) is not given the plane's names
    staged = np.zeros((4, 5, 5), int)
    numbers = {"REBEL": np.linspace(1, 0.5, 4), "two-step": np.linspace(1, 0.6, 4), "blind": np.ones(4)}
    fig = replay.replay_figure(xs, ys, staged, names)
    assert (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == ("x", "y")
    fig = replay.replay_figure(xs, ys, staged, names, numbers=numbers)  # one screen: legend under the ticks,
    named = [
        a for a in fig.layout.annotations if a.xref == "x domain"
    ]  # so x is named at the axis' right end
    assert [a.text for a in named] == ["x"] and named[0].x == 1 and fig.layout.yaxis.title.text == "y"
    assert fig.layout.xaxis3.title.text != "x" and fig.layout.yaxis3.title.text == "test cost"


def test_hover_toolbar_stands_in_its_own_margin_clear_of_the_title():
    """Plotly's modebar (top right, on hover) lay flat over the title's end: upright in a right margin now."""
    from rebel.ui.figures import gallery, paths, replay, style

    xs = ys = np.linspace(-1, 1, 5)
    Z, names = np.zeros((5, 5), int), ["a", "b"]
    numbers = {"REBEL": np.linspace(1, 0.5, 4), "two-step": np.linspace(1, 0.6, 4), "blind": np.ones(4)}
    s = np.linspace(0, 1, 5)
    figs = [
        regions.regions_figure(xs, ys, Z, names, title="a long title " * 8),
        gallery.gallery_panel_figure(xs, ys, Z, names, title="(a) uniform costs"),
        paths.paths_regions_figure(xs, ys, Z, names, {"A": [[0, 0], [1, 1]]}, title="t"),
        paths.path_scores_figure({"A": {"stumps": (s, np.zeros((5, 2)))}}, names, 0),
        replay.replay_figure(xs, ys, np.zeros((4, 5, 5), int), names, title="t"),
        replay.replay_figure(xs, ys, np.zeros((4, 5, 5), int), names, numbers=numbers),
        costs.cost_heatmap(np.ones((2, 2)), names),
        costs.cost_curves_figure(_curves(), t=5),
        trees.weak_learner_figure(
            xs, ys, np.ones((5, 5)), np.zeros((2, 2)), np.array([0, 1]), names, title="t"
        ),
        sweep.sweep_cost_figure(
            pd.DataFrame({"value": [0.1, 1.0], "method": "REBEL", "test_cost": [0.2, 0.1]}), "C[a → b]"
        ),
    ]
    for fig in figs:
        assert fig.layout.modebar.orientation == "v", fig.layout.title.text
        assert fig.layout.margin.r >= style.MODEBAR_MARGIN, fig.layout.title.text


def test_presentation_toolbar_keeps_two_buttons_short_of_the_projector_top_margin():
    """In presentation mode the regions chart's upright toolbar stood 8 buttons tall over the verdict's heading
    beside the regions ("REBEL's minimum-risk class"): it keeps the PNG camera (and Streamlit's full screen) only,
    two 22 px buttons and a gap, shorter than the projector layout's top margin, so it ends above the heading."""
    from rebel.ui.figures import replay, style

    config = style.PRESENTATION_CONFIG
    assert config["toImageButtonOptions"] == style.PNG_CONFIG["toImageButtonOptions"]
    removed = set(config["modeBarButtonsToRemove"])
    assert {"zoom2d", "pan2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "resetScale2d"} <= removed
    assert "toImage" not in removed
    xs = ys = np.linspace(-1, 1, 5)
    numbers = {"REBEL": np.linspace(1, 0.5, 4), "two-step": np.linspace(1, 0.6, 4), "blind": np.ones(4)}
    fig = replay.replay_figure(xs, ys, np.zeros((4, 5, 5), int), ["a", "b"], numbers=numbers, projector=True)
    style.presentation(fig, size=None, font_size=style.PRESENTATION_FONT_SCREEN)
    assert 2 + 22 + 8 + 22 < fig.layout.margin.t  # the toolbar's two buttons from the figure's top, in px


def test_cost_table_writes_every_cost_short_and_names_rows_safely():
    """Above the grid's class count the costs are a table that fills its column: K rows (number and escaped,
    shortened name), K numbered columns, every cost written (3 significant digits, 2 above 8 classes), the
    diagonal on its own grey layer; a wrong shape is refused."""
    from rebel.ui.figures.cost_table import MAX_NAME, cost_table_figure, cost_table_height, short_cost

    for K in (5, 12):
        names = [f"<b>name {k}</b>" if k == 0 else f"class with a long name {k}" for k in range(K)]
        C = np.arange(K * K, dtype=float).reshape(K, K) / 7
        np.fill_diagonal(C, 0)
        fig = cost_table_figure(C, names, row_px=30)
        grey, costs = fig.data
        assert list(costs.x) == [str(j + 1) for j in range(K)] and len(costs.y) == K
        assert costs.y[0].startswith("1 &lt;b&gt;") and all(len(r) <= MAX_NAME + 12 for r in costs.y)
        assert [[t for t in row] for row in costs.text] == [[short_cost(v, K) for v in row] for row in C]
        assert short_cost(C[1, 2], K) == f"{C[1, 2]:.{3 if K <= 8 else 2}g}"
        assert np.isnan(np.asarray(costs.z, dtype=float).diagonal()).all()
        assert (np.asarray(grey.z, dtype=float).diagonal() == 1).all()
        assert fig.layout.height == cost_table_height(K, 30) and costs.textfont.size == 15
    with pytest.raises(ValueError, match="cost_matrix must be 3x3"):
        cost_table_figure(np.zeros((2, 2)), ["a", "b", "c"])
