"""The outside attack's reproducers (names, the command line's output, CSV formulas, the balancer's cookie and
the leftovers), one test each: what the attack did, and what the project does now.

Slide exports with long names and exports' budget, and uploads that survive their replica, are tested beside
their code (rebel.ui.export, the upload store).
"""

from __future__ import annotations

import base64
import http.client
import http.server
import io
import json
import re
import socket
import subprocess
import threading
import time
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rebel.__main__ import _one_line_warning, main
from rebel.estimator import RebelClassifier
from rebel.io import dumps_model
from rebel.ui import classroom
from rebel.ui import config as cf

ESCAPES = ["x\x1b[2J\x1b[H", "y\x1b]0;PWNED\x07"]
FORMULAS = ['=HYPERLINK("https://evil.example","x")', "+SUM(1)"]
RAW = ("\x1b", "\x07", "\u202e")  # never on a terminal from data


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _points(labels, column: str = "x", n: int = 40) -> str:
    """A CSV of ``n`` points in two well separated groups, one per label (negative coordinates included)."""
    rows = [f"{(i % 2) * 4 - 2 + 0.01 * i},{-1 - 0.02 * i},{_quoted(labels[i % 2])}" for i in range(n)]
    return f"{_quoted(column)},y,label\n" + "\n".join(rows) + "\n"


def _raw_free(text: str) -> bool:
    return not any(c in text for c in RAW)


# ------------------------------------------------------------------------------- 2: a newline in a class name
@pytest.mark.parametrize("where", ["CSV upload", "link"])
def test_2_a_newline_in_a_class_name_is_refused_at_the_door(where):
    """A newline in a CSV label or a link's class name broke every slide export silently; now the name is refused
    where it comes in, with a message naming it (escaped) and the fix, so no export ever sees it."""
    if where == "CSV upload":
        read = lambda: cf.parse_dataset_csv(_points(["a\nb", "c"]).encode())
    else:
        doc = cf.preset_config("airport").to_dict()
        doc["spec"]["mixture"][0]["class"] = "a\nb"
        doc.pop("classes", None)
        link = base64.urlsafe_b64encode(zlib.compress(json.dumps(doc).encode())).decode().rstrip("=")
        read = lambda: cf.decode_query(link)
    with pytest.raises(ValueError, match=r"'a\\x0ab' holds a line break") as exc:
        read()
    assert "\n" not in str(exc.value) and "Remove the character" in str(exc.value)


# ---------------------------------------------------------------------------- 4: the command line's escape codes
def _run(argv, capsys) -> tuple:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("payload", ESCAPES)
@pytest.mark.parametrize("where", ["header", "label"])
def test_4_fit_prints_no_escape_codes_from_the_data(payload, where, tmp_path, capsys):
    """A header ``x\\x1b[2J\\x1b[H`` cleared the screen during ``fit``; a label ``y\\x1b]0;PWNED\\x07`` retitled the
    terminal. Now the name is refused at the door and the error line shows it escaped."""
    data = tmp_path / "train.csv"
    text = _points(["a", payload], column=payload) if where == "header" else _points(["a", payload])
    data.write_text(text, encoding="utf-8")
    code, out, err = _run(["fit", data, "-o", tmp_path / "m.json", "--quiet"], capsys)
    assert code == 2 and _raw_free(out + err)
    assert "\\x1b" in err and "holds a control character" in err
    assert not (tmp_path / "m.json").exists()


@pytest.fixture(scope="module")
def hostile_model(tmp_path_factory) -> Path:
    """A model file whose classes hold escape codes: what a model fitted with the Python API on such labels, or
    an older file, holds (the command line's fit refuses such labels now)."""
    X = np.array([[0.0], [1.0], [0.1], [0.9]] * 5)
    y = np.array([ESCAPES[0], ESCAPES[1]] * 10, dtype=object)
    path = tmp_path_factory.mktemp("hostile") / "model.json"
    path.write_text(dumps_model(RebelClassifier(n_estimators=2).fit(X, y)), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["predict", "evaluate"])
def test_4_predict_and_evaluate_print_no_escape_codes(command, hostile_model, tmp_path, capsys):
    """``evaluate`` printed class names raw in the confusion matrix and ``predict`` wrote raw labels to stdout;
    now such a model file is refused with the name escaped, and nothing raw reaches the terminal."""
    data = tmp_path / "x.csv"
    data.write_text("x0,label\n0.0,a\n1.0,b\n", encoding="utf-8")
    code, out, err = _run([command, hostile_model, data], capsys)
    assert code == 2 and _raw_free(out + err)
    assert "\\x1b" in err and "Fit the model again" in err


def test_4_the_progress_bar_and_warnings_go_through_the_escaper(capsys):
    from rebel.cli_args import ProgressBar

    stream = io.StringIO()
    ProgressBar(ESCAPES[0], stream=stream)(1, 1)
    assert "\x1b" not in stream.getvalue() and "x\\x1b[2J" in stream.getvalue()
    _one_line_warning(ESCAPES[1], UserWarning, "f.py", 1)
    assert _raw_free(capsys.readouterr().err)


# --------------------------------------------------------------------------------- 5: formulas in CSV downloads
def test_5_the_points_download_neutralises_formulas(tmp_path):
    """'Download points (CSV)' wrote ``=HYPERLINK(...)`` and ``+SUM(1)`` labels unchanged (a link can carry them);
    now they start with a quote, and the coordinates (negative ones included) stay numbers."""
    ds = cf.parse_dataset_csv(_points(FORMULAS).encode())
    assert set(ds.classes) == set(
        FORMULAS
    )  # such a name passes the door: it is text, not a control character
    text = cf.dataset_to_csv(ds)
    back = pd.read_csv(io.StringIO(text), dtype=str)
    assert set(back["label"]) == {"'" + f for f in FORMULAS}
    assert pd.to_numeric(back["y"]).lt(0).all() and not back["y"].str.startswith("'").any()
    again = cf.parse_dataset_csv(text.encode())  # the file reads back, the labels with their quote
    np.testing.assert_array_equal(again.X_train[:, 1] < 0, True)


def test_5_the_cli_predictions_csv_neutralises_formulas(tmp_path, capsys):
    train = tmp_path / "train.csv"
    train.write_text(_points(FORMULAS), encoding="utf-8")
    model = tmp_path / "m.json"
    assert _run(["fit", train, "-o", model, "--quiet", "--rounds", "5"], capsys)[0] == 0
    pred = tmp_path / "pred.csv"
    assert _run(["predict", model, train, "-o", pred, "--scores"], capsys)[0] == 0
    table = pd.read_csv(pred, dtype=str)
    assert set(table["prediction"]) == {"'" + f for f in FORMULAS}
    assert not any(c.startswith(("=", "+")) for c in table.columns)  # the score columns H_<class> too
    code, out, _ = _run(["predict", model, train], capsys)  # to stdout: the same CSV
    assert code == 0 and out.count("'=HYPERLINK") == 20 and "\n=" not in out and "\n+" not in out


# ------------------------------------------------------------------------------------ 7: the balancer's cookie
class _Named(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = self.server.name.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, cookie: str | None = None) -> tuple:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/", headers={"Cookie": f"SERVERID={cookie}"} if cookie else {})
    resp = conn.getresponse()
    body = resp.read().decode()
    conn.close()
    return resp.status, resp.getheader("Set-Cookie"), resp.getheader("X-Replica"), body


def test_7_the_affinity_cookie_is_httponly_samesite_and_a_forged_value_is_rebalanced(tmp_path):
    """The SERVERID cookie had no HttpOnly/SameSite and was obeyed as sent. Now: HttpOnly; SameSite=Lax; a value
    naming no server is balanced as a new visitor's and given a real cookie; a server's name is obeyed (that is
    affinity: docs/CLASSROOM.md says what it allows). Runs the real HAProxy."""
    try:
        haproxy = classroom.find_haproxy()
    except SystemExit:
        pytest.skip("haproxy is not installed (.ci/run installs it)")
    replicas, servers = [], []
    for name in ("r1", "r2"):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Named)
        server.name = name
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        replicas.append(classroom.Replica(name, server.server_address[1]))
    port = _free_port()
    text = classroom.render_config(replicas, "127.0.0.1", port)
    cookies = dict(re.findall(r"server (r\d) 127\.0\.0\.1:\d+ check cookie (\w+)", text))
    path = tmp_path / "haproxy.cfg"
    path.write_text(text)
    proc = subprocess.Popen(
        [haproxy, "-db", "-f", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 30
        while True:  # wait for HAProxy to listen (a state, not a time)
            try:
                status, set_cookie, replica, body = _get(port)
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode()
                assert time.monotonic() < deadline, "haproxy never listened"
                time.sleep(0.1)
        assert status == 200 and replica == body
        assert set_cookie == f"SERVERID={cookies[body]}; path=/; HttpOnly; SameSite=Lax", set_cookie
        for forged in (
            "r9",
            "R1",
            "' OR 1=1",
            "r10",
            "0" * 300,
        ):  # names no server: balanced, a fresh cookie
            status, set_cookie, replica, body = _get(port, forged)
            assert status == 200 and set_cookie is not None
            assert set_cookie.startswith(f"SERVERID={cookies[body]};")
        for name, value in cookies.items():  # a real value is obeyed, without a new cookie
            for _ in range(3):
                status, set_cookie, replica, body = _get(port, value)
                assert (status, set_cookie, body) == (200, None, name)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        for server in servers:
            server.shutdown()
            server.server_close()


# ------------------------------------------------------------------------------------------- 8: the leftovers
@pytest.mark.parametrize("weights", [["1"] * 20, np.array(["1.5"] * 20), [1.0] * 19 + ["2"]])
def test_8_sample_weight_as_text_is_a_value_error_naming_it(weights):
    X = np.array([[0.0], [1.0]] * 10)
    y = np.array([0, 1] * 10)
    with pytest.raises(ValueError, match=r"sample_weight\[\d+\] is '[\d.]+', not a number"):
        RebelClassifier(n_estimators=2).fit(X, y, sample_weight=weights)


def test_8_a_csv_with_cr_only_line_ends_is_read(tmp_path, capsys):
    """Old Mac line ends (CR alone) ended in 'internal error ... this is a bug'; now the file reads as with LF."""
    lf = _points(["a", "b"], n=20)
    cr = tmp_path / "cr.csv"
    cr.write_bytes(lf.replace("\n", "\r").encode())
    code, out, err = _run(["fit", cr, "-o", tmp_path / "m.json", "--quiet", "--rounds", "3"], capsys)
    assert code == 0, err
    assert "on 20 points" in out and "internal error" not in err
    from rebel.data import read_csv

    a, b = read_csv(cr, test_fraction=0), read_csv(lf.encode(), test_fraction=0)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    assert a.y_train.tolist() == b.y_train.tolist()


def test_8_a_label_starting_with_a_right_to_left_override_is_refused_by_the_door():
    with pytest.raises(ValueError, match=r"'\\u202eevil' holds a text-direction control"):
        cf.parse_dataset_csv(_points(["\u202eevil", "b"]).encode())


def test_8_the_uploaded_csv_note_is_not_shown_beside_a_refused_upload():
    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parent.parent / "app.py")
    at = AppTest.from_file(app, default_timeout=120)
    at.run()
    at.file_uploader(key="w_csv_upload").set_value(("good.csv", _points(["a", "b"]).encode(), "text/csv"))
    at.run()
    note = "Using the uploaded CSV points"
    assert not at.exception and any(note in i.value for i in at.info)
    at.file_uploader(key="w_csv_upload").set_value(("bad.csv", b"x,y,label\n1,oops,a\n2,3,b\n", "text/csv"))
    at.run()
    assert not at.exception
    assert any("CSV file not loaded" in e.value for e in at.error)
    assert not any(note in i.value for i in at.info)
    at.run()  # the next run, without a new message: the note is back (the earlier upload is still in use)
    assert any(note in i.value for i in at.info)
