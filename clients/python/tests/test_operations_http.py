"""The HTTP port of ``docserver serve --http-port`` (health, readiness, Prometheus metrics) and
the ``stats`` and ``slowlog`` methods through the Python client, against the real binary over
real sockets (docs/OPERATIONS.md)."""

from __future__ import annotations

import http.client
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

import docstore
from store_file import Model, build_store, write_store_file
from support import server_environment

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLE_MODEL_PATH = REPO_ROOT / "Sources" / "docserver" / "Resources" / "sample.model.json"
SAVE_OK = 'method="save",outcome="ok"'


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port: int, path: str, timeout: float = 5.0) -> Tuple[int, Dict[str, str], str]:
    """GET ``path`` on 127.0.0.1:``port``: status, headers (lower-case names), body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read().decode("utf-8")
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        connection.close()


def metric(text: str, name: str, labels: str = "") -> Optional[float]:
    """The sample ``name{labels}`` of a Prometheus text exposition, or None."""
    prefix = name + ("{" + labels + "} " if labels else " ")
    for line in text.splitlines():
        if line.startswith(prefix):
            return float(line[len(prefix):])
    return None


def test_metrics_move_by_exactly_the_saves_made(start_server: Any) -> None:
    http_port = free_port()
    server = start_server(extra_args=("--http-port", str(http_port)))
    status, headers, before = get(http_port, "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    saves_before = metric(before, "docserver_requests_total", SAVE_OK) or 0
    with docstore.connect(server.host, server.port) as client:
        for index in range(5):
            session = client.session()
            session.insert("Tag", label=f"tag {index}")
            session.save()
        _, _, after = get(http_port, "/metrics")
        assert metric(after, "docserver_requests_total", SAVE_OK) == saves_before + 5
        assert metric(after, "docserver_commits_total") == 5
        assert metric(after, "docserver_commit_seq") == 5
        assert metric(after, "docserver_objects") == 5
        assert metric(after, "docserver_journal_fdatasync_seconds_count") == 5
        assert metric(after, "docserver_ready") == 1
        stats = client.stats()
        assert stats["store"]["seq"] == 5 and stats["store"]["commits"] == 5
        assert stats["requests"]["save"] == {"ok": 5, "error": 0}
        assert stats["clients"]["connections"] == 1
    assert get(http_port, "/healthz")[:3:2] == (200, "ok\n")
    assert get(http_port, "/readyz")[0] == 200


def test_slowlog_through_the_python_client(start_server: Any) -> None:
    server = start_server(extra_args=("--slow-request-ms", "0"))
    with docstore.connect(server.host, server.port) as client:
        session = client.session()
        session.insert("Song", title="Blue in Green")
        session.save()
        client.fetch("Song", "title BEGINSWITH %@", "Blue")
        log = client.slowlog()
        assert log["thresholdMilliseconds"] == 0
        methods = [entry["method"] for entry in log["entries"]]
        assert "save" in methods and "fetch" in methods
        fetch = [entry for entry in log["entries"] if entry["method"] == "fetch"][-1]
        assert fetch["entity"] == "Song" and fetch["predicate"] == "title BEGINSWITH %@"
        assert fetch["milliseconds"] >= 0
        cleared = client.slowlog(reset=True)
        assert len(cleared["entries"]) == len(log["entries"]) + 1  # the first slowlog call too
        assert [entry["method"] for entry in client.slowlog()["entries"]] == ["slowlog"]


def write_large_store(path: Path, artists: int) -> None:
    model = Model.load(SAMPLE_MODEL_PATH)
    objects = {"Artist": [{"ref": ref, "version": 1, "values": {"name": "Artist %d" % ref, "country": "NZ"}}
                          for ref in range(1, artists + 1)]}
    document = build_store(model, objects, store_uuid="0b8f0c9e-2b7a-4c41-8e0f-7a6b5c4d3e2f")
    write_store_file(path, document)


@pytest.mark.deadline(180)
def test_readyz_is_503_while_the_store_loads_then_200(docserver_binary: Path, tmp_path: Path) -> None:
    store = tmp_path / "large.json"
    write_large_store(store, 300_000)
    http_port = free_port()
    stdout_path = tmp_path / "stdout"
    with open(stdout_path, "wb") as stdout, open(tmp_path / "stderr", "wb") as stderr:
        process = subprocess.Popen(
            [str(docserver_binary), "serve", "--port", "0", "--store", str(store), "--http-port", str(http_port)],
            stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=server_environment({}))
    try:
        seen: List[Tuple[int, str, bool]] = []  # status, body, whether the line port listened then
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            listening = b"listening on" in stdout_path.read_bytes()
            try:
                status, _, body = get(http_port, "/readyz", timeout=2)
            except OSError:
                time.sleep(0.005)  # the HTTP port is not bound yet
                continue
            seen.append((status, body, listening))
            if status == 200:
                break
            time.sleep(0.005)
        assert seen and seen[-1][0] == 200, seen[-3:]
        unready = [entry for entry in seen if entry[0] == 503]
        assert unready, "the store loaded before /readyz was asked: make the store larger (%r)" % seen[:3]
        assert all(body == "not ready: the store is opening\n" and not listening for _, body, listening in unready)
        assert get(http_port, "/healthz")[0] == 200
        # /readyz is 200 once the store is open; the line port listens right after.
        deadline = time.monotonic() + 30
        while b"\nhttp listening" not in stdout_path.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.01)
        lines = stdout_path.read_bytes().decode().splitlines()
        assert lines[0].startswith("listening on 127.0.0.1:")
        assert lines[1] == "http listening on 127.0.0.1:%d" % http_port
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert process.returncode == 0
