"""The benchmark harness's method (interleaving, statistics, one thread setting), not any timing."""

import numba
import pytest

from benchmarks import _common as bc


def test_interleaved_runs_systems_in_turn_after_their_warm_up():
    calls = []
    systems = {name: (lambda n=name: calls.append(n)) for name in "ABC"}
    warm = {name: (lambda n=name: calls.append(n.lower())) for name in "AB"}
    res = bc.interleaved(systems, repeat=3, warm=warm)
    assert calls == ["a", "b"] + ["A", "B", "C"] * 3
    assert all(len(s.wall) == len(s.cpu) == 3 for s in res.values())


def test_comparison_ratios_use_the_named_statistic():
    fast = bc.Samples(wall=[1.0, 2.0, 9.0], cpu=[1.0, 1.0, 1.0])
    slow = bc.Samples(wall=[4.0, 4.0, 4.0], cpu=[2.0, 3.0, 5.0])
    comp = bc.Comparison("t", "REBEL", 2, {bc.WALL: {"REBEL": fast, "peer": slow}}, {bc.WALL: "load 0"})
    assert comp.ratio("peer", bc.WALL, "min") == pytest.approx(0.25)
    assert comp.ratio("peer", bc.WALL, "median") == pytest.approx(0.5)
    assert comp.ratio("REBEL", bc.WALL) == 1.0
    assert [r[0] for r in comp.rows(bc.WALL)] == ["REBEL", "peer"]


def test_thread_limit_sets_and_restores_numba_threads(monkeypatch):
    before = numba.get_num_threads()
    with bc.thread_limit(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    monkeypatch.setenv("REBEL_BENCH_THREADS", "1")
    assert bc.n_threads() == 1


def test_peers_get_the_thread_setting():
    pytest.importorskip("lightgbm")
    made = bc.peers(3, 2, threads=1)
    assert made["LightGBM"]().get_params()["n_jobs"] == 1
    if "XGBoost hist" in made:
        assert made["XGBoost hist"]().get_params()["n_jobs"] == 1


def test_rebel_serial_runs_on_one_thread_and_restores_the_threads():
    from rebel import kernels as kern

    before = numba.get_num_threads()
    seen = []
    bc.rebel_serial(lambda: seen.append(kern.train_in_parallel(10**6, 50, 10, 2)))()
    assert seen == [False]
    assert numba.get_num_threads() == before


def test_summary_prints_each_acceptance_ratio_with_its_verdict(capsys):
    from benchmarks.__main__ import summary

    def comp(rebel_s, peer, peer_s):
        res = {
            clock: {
                "REBEL": bc.Samples([rebel_s] * 5, [rebel_s] * 5),
                peer: bc.Samples([peer_s] * 5, [peer_s] * 5),
            }
            for clock in (bc.CPU, bc.WALL)
        }
        return bc.Comparison("t", "REBEL", 2, res, {bc.CPU: "load 0.1", bc.WALL: "load 0.2"})

    summary({"k2": comp(1.0, "LightGBM", 2.0), "headline": comp(1.0, "LightGBM", 2.0), "cold": 20.0})
    out = capsys.readouterr().out
    assert "K=2 equal work: REBEL / LightGBM, 1-thread CPU  0.50" in out
    k10 = next(line for line in out.splitlines() if line.startswith("K=10 headline"))
    assert "0.50" in k10 and "missed" in k10
    assert "met" in next(line for line in out.splitlines() if line.startswith("K=2 equal"))
    assert "missed" in next(line for line in out.splitlines() if line.startswith("cold first page"))


def test_one_clock_setting_decides_the_tables(monkeypatch, capsys):
    monkeypatch.setenv("REBEL_BENCH_CLOCKS", "cpu")
    threads_seen = []

    def systems(threads):
        threads_seen.append(threads)
        return {"REBEL": lambda: None, "peer": lambda: None}

    comp = bc.compare("t", systems, repeat=5)
    assert list(comp.results) == [bc.CPU] and threads_seen == [1]
    assert all(len(s.cpu) == 5 for s in comp.results[bc.CPU].values())
    monkeypatch.setenv("REBEL_BENCH_CLOCKS", "cpu,wall")
    monkeypatch.setenv("REBEL_BENCH_THREADS", "2")
    threads_seen.clear()
    assert list(bc.compare("t", systems, repeat=5).results) == [bc.CPU, bc.WALL]
    assert threads_seen == [1, 2]
    monkeypatch.setenv("REBEL_BENCH_CLOCKS", "gpu")
    with pytest.raises(ValueError, match="REBEL_BENCH_CLOCKS"):
        bc.clocks()
