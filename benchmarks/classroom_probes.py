"""The class bench's side measurements (``benchmarks.classroom_class``): real Chromium students among the ws ones
(``--chromium-students``), and what one first visit costs a replica, run by run (``--visit-cost``)."""

from __future__ import annotations

import random
import statistics
import time

import psutil

from benchmarks.classroom_class import REST, VIEWPORT, VIEWPORT_SIZE, cost_edit, new_student, widget_state


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
            acting.wait()
            time.sleep(rng.uniform(0, 10))
            while time.monotonic() < stop_at[0]:
                name = "scrub" if rng.random() < scrub_share else "cost_edit"
                seconds, errors = _chromium_action(page, name, rng)
                tally.note("edits" if name == "cost_edit" else "visit", seconds)
                for e in errors:
                    tally.error(f"chromium {name}: {e}")
                time.sleep(rng.uniform(5, 15))
        except Exception as e:  # noqa: BLE001 (a failed session is an error of the run, reported)
            tally.error(f"chromium: {type(e).__name__}: {str(e)[:200]}")
        finally:
            browser.close()


def visit_costs(url: str, pid: int, visits: int) -> None:
    """What one first visit costs a replica (``url``, its process ``pid``), one student at a time: CPU seconds
    (psutil) and bytes sent of each run (the first run, the rest of the page, the viewport size, a cost edit)."""
    proc = psutil.Process(pid)
    rows = []
    for i in range(visits):
        student = new_student(url)
        row = []
        for step in ("first run", REST, VIEWPORT, "cost edit"):
            c0, b0 = sum(proc.cpu_times()[:2]), student.received
            if step == "first run":
                student.run()
            elif step == "cost edit":
                cost_edit(student, random.Random(i), 1)
            else:
                _, _, frag, wid = student.widgets[step]
                state = widget_state(wid)
                if step == REST:
                    state.trigger_value = True
                else:
                    state.string_value = VIEWPORT_SIZE
                student.run(state, frag)
            row.append((sum(proc.cpu_times()[:2]) - c0, student.received - b0))
        student.close()
        rows.append(row)
        print(f"  visit {i + 1}: " + "; ".join(
            f"{name} {cpu:.2f} s CPU {size / 1e6:.2f} MB"
            for name, (cpu, size) in zip(("first run", "rest", "viewport", "cost edit"), row, strict=True)
        ))  # fmt: skip
    visit = [sum(r[k][0] for k in range(3)) for r in rows]
    print(f"  a first visit (three runs): median {statistics.median(visit):.2f} s CPU, "
          f"{statistics.median(sum(r[k][1] for k in range(3)) for r in rows) / 1e6:.1f} MB sent")  # fmt: skip
