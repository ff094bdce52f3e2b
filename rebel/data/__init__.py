"""Data for REBEL Explorer: Gaussian-mixture problems, their exact Bayes rule, presets and files.

- ``rebel.data.mixture``: the mixture table, its checks, sampling, ``Dataset``/``DatasetSpec``, the one
  label -> index helper ``label_indices`` and the paper's random protocol;
- ``rebel.data.bayes``: the exact posterior, the minimum-risk rule, Bayes cost and risk;
- ``rebel.data.presets``: the named problems (``PRESETS``);
- ``rebel.data.files``: CSV read/write, scikit-learn's bundled datasets, the ``sample_data/`` files.

The names below are re-exported so ``from rebel.data import PRESETS, read_csv`` works.
"""

from rebel.data.bayes import (
    bayes_cost,
    bayes_min_risk,
    bayes_posterior,
    bayes_risk,
    confusion_rates,
    costliest_mistakes,
    sample_path,
)
from rebel.data.files import (
    LABEL_COLUMN,
    MAX_FEATURES,
    MAX_ROWS,
    SAMPLE_DIR,
    SPLIT_COLUMN,
    read_csv,
    sample_dir,
    split_dataset,
    to_csv,
)
from rebel.data.mixture import (
    DECIMALS,
    FEATURE_NAMES,
    MAX_COMPONENTS,
    MIXTURE_COLUMNS,
    MIXTURE_DEFAULTS,
    PAPER_SEED,
    RANDOM_PROTOCOL,
    Dataset,
    DatasetSpec,
    class_priors,
    label_indices,
    make_dataset,
    mixture_classes,
    paper_protocol,
    paper_random_spec,
    paper_random_specs,
    random_mixture,
    sample_mixture,
    validate_mixture,
)
from rebel.data.presets import PRESETS, Preset
from rebel.data.samples import BUNDLED, load_bundled, load_preset, load_sample, write_samples

__all__ = [
    "BUNDLED",
    "DECIMALS",
    "FEATURE_NAMES",
    "LABEL_COLUMN",
    "MAX_COMPONENTS",
    "MAX_FEATURES",
    "MAX_ROWS",
    "MIXTURE_COLUMNS",
    "MIXTURE_DEFAULTS",
    "PAPER_SEED",
    "PRESETS",
    "RANDOM_PROTOCOL",
    "SAMPLE_DIR",
    "SPLIT_COLUMN",
    "Dataset",
    "DatasetSpec",
    "Preset",
    "bayes_cost",
    "bayes_min_risk",
    "bayes_posterior",
    "bayes_risk",
    "class_priors",
    "confusion_rates",
    "costliest_mistakes",
    "label_indices",
    "load_bundled",
    "load_preset",
    "load_sample",
    "make_dataset",
    "mixture_classes",
    "paper_protocol",
    "paper_random_spec",
    "paper_random_specs",
    "random_mixture",
    "read_csv",
    "sample_dir",
    "sample_mixture",
    "sample_path",
    "split_dataset",
    "to_csv",
    "validate_mixture",
    "write_samples",
]
