"""The paper's experiments and the sweeps built on them.

- ``rebel.experiments.runner``: the one progress/stop protocol (``Progress``, ``report``, ``drive``) and
  ``run_tasks``, the joblib map every sweep runs through;
- ``rebel.experiments.splits``: train/validation/test splits, named datasets, random cost matrices;
- ``rebel.experiments.paper``: Fig. 3, Table 1 and Fig. 4 as functions returning tidy DataFrames.

The names below are re-exported so ``from rebel.experiments import fig3, run_tasks`` works.
"""

from rebel.experiments.paper import (
    FIG3_COLUMNS,
    FIG4_DATASETS,
    FIG4_METHODS,
    TABLE1_DATASETS,
    compare_cost_sensitive,
    fig3,
    fig3_intervals,
    fig3_summary,
    fig4,
    fig4_summary,
    method_label,
    select_rounds,
    table1,
    table1_summary,
)
from rebel.experiments.runner import DEFAULT_BACKEND, Progress, drive, report, run_tasks
from rebel.experiments.splits import (
    COST_DISTRIBUTIONS,
    Split,
    dataset_splits,
    experiment_costs,
    load_named,
    sample_cost_matrix,
    three_way_splits,
)

__all__ = [
    "COST_DISTRIBUTIONS",
    "DEFAULT_BACKEND",
    "FIG3_COLUMNS",
    "FIG4_DATASETS",
    "FIG4_METHODS",
    "TABLE1_DATASETS",
    "Progress",
    "Split",
    "compare_cost_sensitive",
    "dataset_splits",
    "drive",
    "experiment_costs",
    "fig3",
    "fig3_intervals",
    "fig3_summary",
    "fig4",
    "fig4_summary",
    "load_named",
    "method_label",
    "report",
    "run_tasks",
    "sample_cost_matrix",
    "select_rounds",
    "table1",
    "table1_summary",
    "three_way_splits",
]
