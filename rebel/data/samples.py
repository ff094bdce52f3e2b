"""scikit-learn's bundled real datasets and the presets' files in ``sample_data/``: ``load_bundled`` (a stratified
train/test ``Dataset``), ``write_samples`` (every preset's points and recipe), ``load_preset`` and ``load_sample``
(read them back, or build them from ``PRESETS`` when the files are absent).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rebel.data.files import SAMPLE_DIR, read_csv, split_dataset, to_csv
from rebel.data.mixture import Dataset
from rebel.data.presets import PRESETS, Preset

BUNDLED = {
    "digits": "8x8 handwritten digits, 1797 images, 10 classes (the MNIST stand-in)",
    "iris": "Iris flowers, 150 points, 4 features, 3 species",
    "wine": "Wine cultivars, 178 points, 13 chemical features, 3 classes",
    "breast_cancer": "Breast cancer (Wisconsin), 569 points, 30 features, malignant vs benign",
}


def load_bundled(name: str, test_fraction: float = 0.25, seed=0) -> Dataset:
    """One of scikit-learn's bundled datasets (``BUNDLED``) as a stratified train/test Dataset.

    Labels are the class names (digits: the integers 0-9).
    """
    import sklearn.datasets as skd

    if name not in BUNDLED:
        raise ValueError(f"bundled dataset {name!r} does not exist; choose one of {list(BUNDLED)}.")
    bunch = getattr(skd, f"load_{name}")()
    names = np.asarray(bunch.target_names)
    y = bunch.target if name == "digits" else names[bunch.target].astype(object)
    features = [str(f) for f in getattr(bunch, "feature_names", [])] or None
    ds = split_dataset(bunch.data, y, test_fraction, seed, features, name)
    ds.story = BUNDLED[name]
    return ds


def write_samples(directory=SAMPLE_DIR) -> list:
    """Write every preset as ``<name>.csv`` (points) and ``<name>.json`` (story, spec, costs) into directory."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, preset in PRESETS.items():
        to_csv(preset.dataset(), directory / f"{name}.csv")
        (directory / f"{name}.json").write_text(
            json.dumps(preset.to_dict(), indent=1) + "\n", encoding="utf-8"
        )
        written += [directory / f"{name}.csv", directory / f"{name}.json"]
    return written


def load_preset(name: str, directory=SAMPLE_DIR) -> Preset:
    """A preset by name, from ``<name>.json`` in directory when present, else built from ``PRESETS``."""
    path = Path(directory) / f"{name}.json"
    if path.is_file():
        return Preset.from_dict(json.loads(path.read_text(encoding="utf-8")))
    if name not in PRESETS:
        raise ValueError(
            f"sample {name!r} does not exist; choose one of {list(PRESETS)} "
            f"(scikit-learn's {list(BUNDLED)} load with load_bundled)."
        )
    return PRESETS[name]


def load_sample(name: str, directory=SAMPLE_DIR) -> Dataset:
    """A preset's dataset by name: points from ``<name>.csv`` when present (else sampled from its spec), with
    the preset's mixture, spec, story, suggested cost matrix and costly mistakes attached."""
    preset = load_preset(name, directory)
    path = Path(directory) / f"{name}.csv"
    if not path.is_file():
        return preset.dataset()
    ds = read_csv(path, name=name)
    ds.classes = preset.classes
    ds.mixture, ds.spec, ds.story = preset.spec.mixture, preset.spec, preset.story
    ds.cost_matrix, ds.costly_mistakes = preset.cost_matrix.copy(), preset.costly_mistakes
    return ds
