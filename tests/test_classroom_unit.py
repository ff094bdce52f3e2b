"""``make classroom``'s pieces without a browser: the HAProxy configuration, the Makefile recipe, argument errors
and stopping a replica's whole process group (tests/e2e/test_classroom.py runs the whole thing)."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from rebel.ui import classroom
from tests.test_packaging import MAKEFILE

ROOT = Path(__file__).resolve().parents[1]


def _replicas(n: int) -> list:
    return [classroom.Replica(f"r{i + 1}", 9600 + i) for i in range(n)]


def test_the_configuration_has_affinity_websockets_health_checks_and_one_server_per_replica(tmp_path):
    text = classroom.render_config(_replicas(3), "127.0.0.1", 8501)
    assert "bind 127.0.0.1:8501" in text
    assert 'cookie SERVERID insert indirect nocache httponly attr "SameSite=Lax"' in text
    assert re.search(r"timeout tunnel \d+h", text)
    assert "option httpchk GET /_stcore/health" in text and "option redispatch" in text
    servers = re.findall(r"server (r\d) 127\.0\.0\.1:(\d+) check cookie (r\d)", text)
    assert servers == [("r1", "9600", "r1"), ("r2", "9601", "r2"), ("r3", "9602", "r3")]
    try:
        haproxy = classroom.find_haproxy()
    except SystemExit:
        pytest.skip("haproxy is not installed (.ci/run installs it): its own check of the file is skipped")
    path = tmp_path / "haproxy.cfg"
    path.write_text(text)
    check = subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_make_classroom_starts_the_supervisor_with_make_runs_flags():
    recipe = re.search(r"^classroom:.*\n((?:\t.*\n)+)", MAKEFILE, flags=re.MULTILINE).group(1)
    assert "-m rebel.ui.classroom" in recipe and "-- $(SAFETY)" in recipe  # one source of truth for the flags
    assert "apt-get install -y haproxy" in recipe
    cmd = classroom.replica_command(
        ROOT / "app.py", 9601, ["--server.port", "1", "--server.maxUploadSize", "5"]
    )
    assert cmd[1:4] == ["-m", "rebel.ui.launch", str(ROOT / "app.py")]
    assert cmd[-2:] == ["--server.port", "9601"]  # the replica's port comes last, so it wins


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--replicas", "0"], "--replicas is 0"),
        (["--port", "70000"], "--port is 70000"),
        (["--port", "8501", "--base-port", "8500", "--replicas", "3"], "--port 8501 falls among"),
        (["--app", "nowhere.py"], "--app nowhere.py is not a file"),
    ],
)
def test_bad_arguments_are_refused_with_the_argument_and_the_fix(argv, named, capsys):
    with pytest.raises(SystemExit) as exc:
        classroom.parse_args(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert named in err and ("give" in err or "choose" in err)


def test_help_names_the_command():
    out = subprocess.run(
        [classroom.sys.executable, "-m", "rebel.ui.classroom", "--help"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert "python -m rebel.ui.classroom" in out and "--replicas" in out and "SAFETY" in out


def test_stopping_a_replica_stops_its_whole_process_group():
    proc = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60"], start_new_session=True)
    deadline = time.monotonic() + 10
    while len(psutil.Process(proc.pid).children()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    children = psutil.Process(proc.pid).children()
    assert len(children) == 2
    classroom.stop_group(proc, grace=5)
    assert proc.poll() is not None
    _gone, alive = psutil.wait_procs(children, timeout=5)
    assert not alive, f"left in the group: {alive}"
