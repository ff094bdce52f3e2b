"""The Playground's regions figure (the replay of every round, with the numbers of each) and its data points
drawn as one image; split from ``compute`` (which re-exports these names)."""

from __future__ import annotations

from collections.abc import Mapping

from rebel import budget
from rebel.ui.playground.results import TIE
from rebel.ui.state import SharedLRU


def round_numbers(pair, calibrated: float | None = None) -> dict:
    """Every number of the first screen that depends on the round, for t = 0..T at once (the replay figure's
    frames carry them, so the round slider moves picture and numbers together): the test costs of REBEL, the
    two-step method and ignoring the costs, the Bayes rule's (or None) and the verdict's tie margin; with
    ``calibrated`` (the calibrated two-step's test cost after all rounds) that too."""
    numbers = {**pair.test_costs, "Bayes": pair.bayes_test_cost, "tie": TIE}
    if calibrated is not None:
        numbers["calibrated"] = float(calibrated)
    return numbers


def rebel_points(pair) -> dict:
    """``{"train": (X, y, S), "test": (X, y, S)}``: each split's points, their true class indices and REBEL's class
    on them after every round ((T + 1, N)), as ``pair`` (a trained pair or a view of one) numbers its classes.
    The ``train`` and ``test`` keywords of the regions replay and of the slide exports."""
    ds = pair.dataset
    return {
        "train": (ds.X_train, pair.y_train_idx, pair.staged_train["REBEL"]),
        "test": (ds.X_test, pair.y_test_idx, pair.staged_test["REBEL"]),
    }


REPLAY_TITLE = (
    "REBEL's minimum-risk class"  # heads the replay's numbers (the browser's cost edits write it too)
)
REPLAY_VIEWS = {"weights": False, "two": False, "dis": False, "bayes": False}  # the overlays off


def replay_of(
    pair, start: int, show: Mapping | None = None, height=None, projector=False, narrow=False, calibrated=None
):
    """The Playground's regions figure of ``pair`` (``replay.replay_figure``) at round ``start``: ``show`` the
    overlays on (``REPLAY_VIEWS``), ``height`` the plot's box in px (None: measured), ``projector`` (``narrow``:
    a box narrower than high) the presentation layout; ``calibrated``: the calibrated two-step's test cost in the
    numbers line (``round_numbers``). The page and ``bench_plot_draw`` draw it."""
    from rebel.ui.figures import regions, replay

    show = {**REPLAY_VIEWS, **(show or {})}
    ds = pair.dataset
    fig = replay.replay_figure(
        pair.grid.xs,
        pair.grid.ys,
        pair.regions,
        ds.classes,
        **rebel_points(pair),
        train_sizes=regions.weight_sizes(pair.weights) if show["weights"] else None,
        other_regions=pair.two_step_regions if (show["two"] or show["dis"]) else None,
        show_other=show["two"],
        show_disagreement=show["dis"],
        bayes_regions=pair.bayes_regions if show["bayes"] else None,
        title=REPLAY_TITLE,
        start=start,
        height=height,
        numbers=round_numbers(pair, calibrated),
        projector=projector,
        axis_names=ds.feature_names,
        narrow=narrow,
    )
    return named_models(fig, getattr(pair, "trained_key", pair.key))


def named_models(fig, key: str):
    """``fig`` with the key of the models it draws in its ``layout.meta`` (``"models"``; a rename keeps it, a new
    training changes it). Returns the figure."""
    meta = dict(fig.layout.meta) if isinstance(fig.layout.meta, dict) else {}
    fig.layout.meta = {**meta, "models": key}
    return fig


POINTS_IMAGES = SharedLRU(16, 32 * 1024 * 1024)
"""The points images of the last few datasets and plot sizes (~50-200 kB each), shared by the sessions."""


def points_png_cached(layers, x_range, y_range, shape_px: tuple, scale: float = 1.0) -> bytes:
    """``point_raster.points_png`` (top row first, for plotly's layout image) kept in ``POINTS_IMAGES``: the
    points do not change when the costs or the engine's settings do, so a cost edit draws none. Raises
    ``BudgetError`` over ``budget``'s ``points_image_pixels``, before any drawing."""
    from rebel.ui.figures import point_raster

    budget.check("points_image_pixels", int(shape_px[0]) * int(shape_px[1]), app=True)
    key = point_raster.points_key(layers, x_range, y_range, shape_px, scale)
    png = POINTS_IMAGES.get(key)
    if png is None:
        png = POINTS_IMAGES.put(key, point_raster.points_png(layers, x_range, y_range, shape_px, scale))
    return png


def points_as_image(fig) -> bool:
    """The data points of a regions figure (``replay_of``, sized) as one image under hover-only traces
    (``replay.points_as_image``): ~60 ms less for the browser to draw on every new figure. The image is drawn
    once per dataset and plot size (``points_png_cached``). Returns whether it was done (not when the figure's
    size is not fixed or the marker sizes follow the boosting weights)."""
    from rebel.ui.figures import replay

    return replay.points_as_image(fig, points_png_cached)
