"""The class bench's side measurements (``benchmarks.classroom_class``): the replicas' CPU seconds and peak RSS
while the class runs (``Replicas``), and what one first visit costs a replica, run by run (``--visit-cost``). The
Chromium students (``--chromium-students``) are in ``classroom_students``."""

from __future__ import annotations

import random
import statistics
import threading
import time

import psutil

from benchmarks.classroom_class import REST, VIEWPORT, VIEWPORT_SIZE, cost_edit, new_student, widget_state


class Replicas(threading.Thread):
    """CPU seconds and peak RSS of the replicas' processes (each with its children)."""

    def __init__(self, pids: list):
        super().__init__(daemon=True)
        self.procs = [psutil.Process(p) for p in pids]
        self.peak = [0] * len(pids)
        self._halt = threading.Event()

    @staticmethod
    def _tree(p: psutil.Process) -> list:
        try:
            return [p, *p.children(recursive=True)]
        except psutil.Error:
            return [p]

    def cpu(self) -> float:
        total = 0.0
        for p in self.procs:
            for q in self._tree(p):
                try:
                    t = q.cpu_times()
                    total += t.user + t.system + (t.children_user + t.children_system if q is p else 0)
                except psutil.Error:
                    pass
        return total

    def rss(self) -> list:
        return [p.memory_info().rss for p in self.procs]

    def run(self):
        while not self._halt.is_set():
            try:
                self.peak = [max(a, b) for a, b in zip(self.peak, self.rss(), strict=True)]
            except psutil.Error:
                pass
            time.sleep(0.5)

    def stop(self):
        self._halt.set()
        self.join(timeout=5)


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
