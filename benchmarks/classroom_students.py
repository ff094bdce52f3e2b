"""The class bench's students (``benchmarks.classroom_class``): the ``ws`` students (Streamlit's websocket
protocol, nothing rendered) and the real Chromium pages among them (``--chromium-students``), both acting in the
one rhythm of ``take_turns``."""

from __future__ import annotations

import random
import threading
import time

from benchmarks.classroom_class import cost_edit, first_visit


def take_turns(rng: random.Random, acting: threading.Event, stop_at: list, scrub_share: float, act) -> None:
    """A student's rhythm once the class acts (``acting`` set): a first action 0-10 s in, then one every 5-15 s
    (uniform) until ``stop_at[0]`` (``time.monotonic``); each ``act("scrub")`` with probability ``scrub_share``,
    else ``act("cost_edit")``."""
    acting.wait()
    time.sleep(rng.uniform(0, 10))
    while time.monotonic() < stop_at[0]:
        act("scrub" if rng.random() < scrub_share else "cost_edit")
        time.sleep(rng.uniform(5, 15))


def ws_student(url, tally, seed, arrive_at, acting, stop_at, scrub_share) -> None:
    """A ws student: its first visit at ``arrive_at``, then cost edits sent as the page sends the ones it
    computed (``classroom_class.cost_edit``); a scrub replays in the browser, so it is only counted."""
    rng = random.Random(seed)
    student = None
    edits = 0

    def act(name: str) -> None:
        nonlocal edits
        if name == "scrub":
            with tally.lock:
                tally.scrubs += 1  # the figure's own slider: replayed in the browser, nothing sent
            return
        edits += 1
        seconds, exc = cost_edit(student, rng, edits)
        tally.note("edits", seconds)
        for e in exc:
            tally.error(f"cost edit: {e}")

    try:
        time.sleep(max(0.0, arrive_at - time.monotonic()))
        student = first_visit(url, tally)
        take_turns(rng, acting, stop_at, scrub_share, act)
    except Exception as e:  # noqa: BLE001 (a failed session is an error of the run, reported)
        tally.error(f"{type(e).__name__}: {str(e)[:200]}")
    finally:
        if student is not None:
            student.close()


def chromium_student(url, tally, seed, arrive_at, acting, stop_at, scrub_share) -> None:
    """A real Chromium page among the ws students: first picture = navigation -> the regions plot painted with
    its round (``bench_browser.open_playground``); cost edits typed into the cost editor and committed with Enter
    (the page computes them), timed to the painted regions; scrubs on the figure's slider."""
    from playwright.sync_api import sync_playwright

    from benchmarks import bench_browser as bb
    from benchmarks._common import CHROMIUM, CHROMIUM_ARGS
    from benchmarks.bench_classroom import _chromium_action

    rng = random.Random(seed)
    time.sleep(max(0.0, arrive_at - time.monotonic()))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page, ms = bb.open_playground(browser.new_context(viewport=bb.VIEWPORT), url)
            tally.note("first", float(ms) / 1000)
            page.on("pageerror", lambda exc: tally.error(f"JavaScript: {exc}"))

            def act(name: str) -> None:
                seconds, errors = _chromium_action(page, name, rng)
                tally.note("edits" if name == "cost_edit" else "visit", seconds)
                for e in errors:
                    tally.error(f"chromium {name}: {e}")

            take_turns(rng, acting, stop_at, scrub_share, act)
        except Exception as e:  # noqa: BLE001 (a failed session is an error of the run, reported)
            tally.error(f"chromium: {type(e).__name__}: {str(e)[:200]}")
        finally:
            browser.close()
