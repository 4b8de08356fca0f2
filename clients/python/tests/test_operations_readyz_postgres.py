"""``/readyz`` of a server on a shared PostgreSQL database goes unready while the server is
behind the database's commits, and ready again once it has caught up (docs/OPERATIONS.md, The
HTTP port), against the real binary and a real PostgreSQL cluster.

To make a server fall behind for seconds, deterministically: server A is stopped (SIGSTOP)
while server B commits, then a ``psql`` session locks the table A must read those commits'
objects from, and A is continued. A's writer waits on the lock in its catch-up; its watcher
still reads the newest commit from the history table, and after the grace (2 s) ``/readyz``
answers 503. The lock ends, A catches up, ``/readyz`` answers 200.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import pytest

from postgres_cluster import PostgresCluster, postgres_binaries
from support import RawConnection, ServerProcess
from test_operations_http import free_port, get, metric


class SharedDatabaseServer(ServerProcess):
    """``docserver serve`` on a ``postgresql://`` URL (ServerProcess takes a file path)."""

    def __init__(self, binary: Path, url: str, log_path: Path, extra_args: Tuple[str, ...]) -> None:
        self.url = url
        super().__init__(binary, log_path.with_suffix(".unused"), log_path=log_path, extra_args=extra_args)

    def command(self) -> List[str]:
        command = super().command()
        command[command.index("--store") + 1] = self.url
        return command


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresCluster]:
    binaries = postgres_binaries()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    running = PostgresCluster(binaries)
    try:
        yield running
    finally:
        running.stop()


def wait_for(port: int, status: int, seconds: float) -> Tuple[List[Tuple[float, int, str]], str]:
    """Polls ``/readyz`` until it answers ``status``: what it answered meanwhile (time, status,
    body), and the body of that answer; AssertionError after ``seconds``."""
    seen: List[Tuple[float, int, str]] = []
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        answer, _, body = get(port, "/readyz")
        seen.append((time.monotonic() - started, answer, body))
        if answer == status:
            return seen, body
        time.sleep(0.05)
    raise AssertionError("/readyz did not answer %d within %.0f s: %s" % (status, seconds, seen[-3:]))


@pytest.mark.deadline(240)
def test_readyz_is_503_while_a_server_catches_up_with_the_shared_database_then_200(
        cluster: PostgresCluster, docserver_binary: Path, tmp_path: Path) -> None:
    url = cluster.new_database()
    http_port = free_port()
    behind = SharedDatabaseServer(docserver_binary, url, tmp_path / "a.log", ("--http-port", str(http_port)))
    writer = SharedDatabaseServer(docserver_binary, url, tmp_path / "b.log", ())
    lock = None
    try:
        wait_for(http_port, 200, 30)
        with RawConnection(writer.host, writer.port) as connection:
            connection.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": "before"}}]})
            wait_for(http_port, 200, 30)
            assert behind.pid is not None
            os.kill(behind.pid, signal.SIGSTOP)
            try:
                for index in range(20):
                    last = connection.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": "t%d" % index}}]})["seq"]
                database = url.rsplit("/", 1)[1]
                lock = cluster.hold_lock(database, "Tag")
            finally:
                os.kill(behind.pid, signal.SIGCONT)

        seen, body = wait_for(http_port, 503, 20)
        assert body.startswith("not ready: catching up with the shared database: ") and " commits behind " in body, body
        assert "the database holds %d)" % last in body, body
        assert all(status == 200 for _, status, _ in seen[:-1]), seen
        # Not before the grace: the server has 2 seconds to apply a commit it saw.
        assert seen[-1][0] >= 1.0, seen
        _, _, metrics = get(http_port, "/metrics")
        assert metric(metrics, "docserver_ready") == 0, metrics
        assert (metric(metrics, "docserver_catch_up_lag_commits") or 0) >= 1, metrics

        assert lock.stdin is not None
        lock.stdin.write("ROLLBACK;\n")
        lock.stdin.close()
        lock.wait(timeout=30)
        lock = None
        seen, body = wait_for(http_port, 200, 30)
        assert body == "ready\n", body
        _, _, metrics = get(http_port, "/metrics")
        assert metric(metrics, "docserver_ready") == 1 and metric(metrics, "docserver_catch_up_lag_commits") == 0, metrics
        with RawConnection(behind.host, behind.port) as reader:
            assert reader.result("hello", {"client": "test"})["seq"] == last
            assert reader.result("fetch", {"entity": "Tag", "resultType": "count"})["count"] == 21
    finally:
        if lock is not None:
            lock.kill()
        writer.stop()
        behind.stop()
