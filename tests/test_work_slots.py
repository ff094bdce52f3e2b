"""``rebel.ui.work_slots``: heavy page work at most one per core at once, re-entrant per thread, bounded waits;
the Playground's training and figure build take a slot."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from rebel.ui import work_slots
from rebel.ui.work_slots import WorkSlots


def _wait_for(condition, seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.01)


def test_no_more_than_n_at_once_and_every_one_gets_its_turn():
    slots, gate, arrived, done = WorkSlots(2, wait_seconds=60), threading.Event(), [], []

    def work(i):
        arrived.append(i)
        with slots.take():
            assert gate.wait(timeout=60)
        done.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    _wait_for(lambda: len(arrived) == 5 and slots.busy == 2)
    time.sleep(0.2)  # (the three others had time to enter, were the slots not held)
    assert slots.busy == 2 and slots.most == 2 and not done
    gate.set()
    for t in threads:
        t.join(timeout=60)
    assert sorted(done) == list(range(5)) and slots.busy == 0 and slots.most == 2


def test_nested_work_in_one_thread_takes_no_second_slot():
    slots = WorkSlots(1, wait_seconds=60)
    with slots.take(), slots.take(), slots.take():  # (one slot: a second take would wait the whole minute)
        assert slots.busy == 1
    assert slots.busy == 0


def test_a_thread_that_waited_too_long_goes_ahead_and_says_so(caplog):
    slots, release, went = WorkSlots(1, wait_seconds=0.2), threading.Event(), threading.Event()

    def holder():
        with slots.take():
            assert release.wait(timeout=60)

    t = threading.Thread(target=holder)
    t.start()
    _wait_for(lambda: slots.busy == 1)
    with caplog.at_level(logging.WARNING, logger="rebel.ui"), slots.take("a test's work"):
        went.set()
    release.set()
    t.join(timeout=60)
    assert went.is_set() and slots.busy == 0
    assert "a test's work went ahead without a work slot" in caplog.text


def test_slots_must_be_at_least_one():
    with pytest.raises(ValueError, match="n \\(slots\\) must be at least 1; got 0"):
        WorkSlots(0)


def test_the_playground_training_holds_a_slot_while_it_fits(monkeypatch):
    from rebel.ui import config as cf
    from rebel.ui.playground import compute as pg
    from rebel.ui.state import ModelCache, SharedLRU

    slots = WorkSlots(1, wait_seconds=60)
    monkeypatch.setattr(work_slots, "HEAVY", slots)
    busy_during_fits = []
    fit = pg.fit_rebel

    def watched(*args, **kwargs):
        busy_during_fits.append(slots.busy)
        return fit(*args, **kwargs)

    monkeypatch.setattr(pg, "fit_rebel", watched)
    cfg = cf.preset_config("airport")
    pg.train_pair(
        cf.dataset_from_config(cfg),
        cfg.cost_matrix,
        cfg.hyper,
        grid_size=20,
        cache=ModelCache(),
        shared=SharedLRU(2, 10**8),
    )
    assert busy_during_fits == [1, 1] and slots.busy == 0
