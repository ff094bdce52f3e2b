"""Suite-wide test settings."""

import contextlib
import functools
import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

# Tests assert behaviour, never wall-clock time: no per-example deadline (numba compiles on first call, and
# CI machines are shared). Derandomized so a CI failure reproduces locally with the same examples.
settings.register_profile("default", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("thorough", deadline=None, max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Each new AppTest has Streamlit scan every installed distribution's metadata for custom components (0.1-0.5 s, and
# the suite creates hundreds); the installed packages do not change during a run, so each process scans once and
# every later AppTest gets that scan's result.
with contextlib.suppress(ImportError):
    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


def pytest_configure(config):
    """Ctrl-C stops a run started in the background by a shell (`make test`'s browser part): such a process starts
    with SIGINT ignored, and without Python's handler back it would go on alone after the rest has stopped."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# What makes a test a browser test: it lives in tests/e2e (a live server, Chromium) or asks for a browser. Such a
# test is marked ``browser`` here, whatever its module says, so `make test` always runs it in its browser part (one
# at a time, one app server) and never on the workers that run the rest beside it.
BROWSER_FIXTURES = frozenset({"browser", "chromium", "playwright", "app_url", "app_server"})
E2E = Path(__file__).resolve().parent / "e2e"


# What `make test` leaves to `make soak` (marked ``soak`` here; one list: module, test, variants): a behaviour
# checked again at another window size, sidebar state, server command or upload store, when `make test` keeps at
# least one variant of it (the lecture's 1280x720 first), and checks whose point is their length (the memory bound
# at the largest admitted settings, compiling every kernel in an empty cache, the soak's loads). A name here that
# matches no test of a collected module stops the run, so a renamed test cannot slip back into `make test` or out
# of both.
ALL = None  # a parametrized test whose every variant is left to `make soak`
_SOAK = {
    # the browser part: another size or state of a layout `make test` checks at 1280x720 or 1440x900
    "e2e/test_lesson_screen.py": {
        "test_every_scene_fits_one_720p_screen_in_large_type": ("open",),
        # (1080p: the 720p test checks every scene; a scene's next-scene button: test_all_pages)
        "test_a_scene_fits_1080p_and_presentation_mode_survives_next_scene": (),
    },
    "e2e/test_one_screen.py": {
        "test_plot_costs_round_control_and_numbers_fit_one_screen": (
            "1280x720-open", "1440x900-open", "1440x900-collapsed", "1920x1080-open", "1920x1080-collapsed",
        ),
        "test_presentation_mode_is_a_projector_layout": ("1280x720-open", "1920x1080-open", "1920x1080-collapsed"),
        "test_presentation_mode_with_twelve_classes_fits_one_screen": ("1920x1080",),
        "test_the_regions_are_drawn_once_at_their_box_size": ("1920x1080",),
    },
    "e2e/test_sidebar_open_layout.py": {
        "test_sidebar_open_has_no_clipped_overlapping_or_split_text": (
            "presentation--True", "plain--False", "scene1_plain-?scene=1-False",
        ),
        "test_the_toolbar_never_covers_a_text_of_the_plot": (
            "1280x720-presentation-collapsed", "1280x720-plain-open", "1280x720-plain-collapsed",
            "1440x900-presentation-open", "1440x900-presentation-collapsed", "1440x900-plain-open",
            "1440x900-plain-collapsed",
        ),
    },
    "e2e/test_cost_cells_browser.py": {
        "test_cost_cells_are_never_blank_on_a_first_visit": (
            "1280x720-plain", "1440x900-presentation", "1440x900-plain",
        ),
    },
    "e2e/test_strip_height.py": {"test_the_cost_strip_keeps_room_for_its_curves_with_twelve_classes": ("open",)},
    "e2e/test_browser_costs.py": {"test_the_calibration_scenes_number_follows_a_cost_edit_in_the_browser": ("plain",)},
    "e2e/test_first_visit_nav.py": {
        "test_first_visit_on_a_fresh_server_lists_only_the_registered_pages": ("plain-streamlit-run",),
    },
    "e2e/test_bench_end.py": {"test_a_latency_ends_at_the_paint_of_the_frame_that_shows_the_change": ("task",)},
    # (an upload surviving its replica: the class test checks it in the store it runs with, redis when installed)
    "e2e/test_classroom.py": {"test_an_upload_survives_its_replica": ALL},
    # the soak's loads, every one (the light one included: the heavy ones also need REBEL_SOAK=1)
    "e2e/test_soak.py": {"test_waves_of_sessions_at_the_limits_keep_the_server_healthy_and_bounded": ALL},
    # the rest: long by what they check
    "test_budget.py": {"test_one_session_at_the_largest_admitted_settings_stays_within_its_memory_bound": ()},
    "test_warmup.py": {"test_parallel_warmup_leaves_every_paper_kernel_cached": ()},
    "test_cli_truth.py": {"test_a_cold_engine_says_it_compiles": ()},
}  # fmt: skip
SOAK = frozenset(
    f"tests/{module}::{test}" + (f"[{variant}]" if variant else "")
    for module, tests in _SOAK.items()
    for test, variants in tests.items()
    if variants is not ALL
    for variant in variants or ("",)
)
SOAK_ALL = frozenset(  # (their node ids up to the variant)
    f"tests/{module}::{test}"
    for module, tests in _SOAK.items()
    for test, variants in tests.items()
    if variants is ALL
)


def is_soak(nodeid: str) -> bool:
    return nodeid in SOAK or nodeid.split("[")[0] in SOAK_ALL


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        in_e2e = E2E in Path(item.path).resolve().parents
        if in_e2e or BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
        if is_soak(item.nodeid):
            item.add_marker(pytest.mark.soak)
    if not any("::" in arg for arg in config.args):  # (tests named one by one: their modules are not whole)
        check_soak(items)
    items.sort(key=lambda item: Path(item.path).name not in LONG_FIRST)  # (a stable sort: modules stay whole)


# Modules holding the longest tests outside the browser part, collected first: pytest-xdist deals tests out in
# collection order, and when these came last one worker ran them alone at the end (40 s of 244 in one run, the
# other worker idle). A module missing here only runs in its usual place.
LONG_FIRST = frozenset({
    "test_readme_commands.py", "test_browser_engine.py", "test_app_schema_fuzz.py", "test_schema_fuzz.py",
    "test_budget.py", "test_cli_truth.py", "test_app_versus.py", "test_resources.py", "test_warmup.py",
})  # fmt: skip


def check_soak(items) -> None:
    """Stop the run when SOAK names a test of a collected module that does not exist, or leaves `make test` no
    variant of a parametrized test (every ``name[...]`` in SOAK needs a ``name[...]`` outside it, unless the test
    is listed as ``ALL``). ``items``: whole modules (before ``-k`` and ``-m`` select)."""
    collected = {item.nodeid.split("::")[0] for item in items}
    found = {item.nodeid for item in items}
    tests = {name.split("[")[0] for name in found}
    lost = sorted(name for name in SOAK if name.split("::")[0] in collected and name not in found)
    lost += sorted(name for name in SOAK_ALL if name.split("::")[0] in collected and name not in tests)
    if lost:
        raise pytest.UsageError(f"tests/conftest.py's SOAK names tests that do not exist: {lost}")
    kept = {name.split("[")[0] for name in found - SOAK}
    variants = {name.split("[")[0] for name in SOAK & found if "[" in name}
    if variants - kept:
        raise pytest.UsageError(
            f"tests/conftest.py's SOAK leaves `make test` no variant of {sorted(variants - kept)}"
        )
