"""A throwaway PostgreSQL cluster for the tests that run servers on a shared database, as
``Tests/PostgresTestSupport`` makes one for the Swift tests: ``initdb`` in a temporary
directory, ``pg_ctl start`` on a free port (loopback only, trust authentication, no fsync),
stopped by :meth:`PostgresCluster.stop`. As root, the cluster runs as ``nobody``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import List, Optional


def postgres_binaries() -> Optional[Path]:
    """The folder of ``initdb``, ``pg_ctl`` and ``postgres`` (Debian's newest first), or None."""
    candidates: List[Path] = []
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = sorted(debian.iterdir(), key=lambda path: int(path.name) if path.name.isdigit() else 0, reverse=True)
        candidates += [version / "bin" for version in versions]
    for folder in os.environ.get("PATH", "").split(":"):
        if folder:
            candidates += [Path(folder), Path(os.path.realpath(Path(folder) / "pg_ctl")).parent]
    for folder in candidates:
        if all(os.access(str(folder / name), os.X_OK) for name in ("initdb", "pg_ctl", "postgres", "psql", "createdb")):
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresCluster:
    """A running cluster; :meth:`new_database` gives a ``postgresql://`` URL of a new database."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.directory = Path(tempfile.mkdtemp(prefix="docserver-postgres-"))
        self.user = "nobody" if os.getuid() == 0 else None
        if self.user:
            shutil.chown(str(self.directory), user=self.user)
        self.port = _free_port()
        self._databases = 0
        data = str(self.directory / "data")
        self._as_user("initdb", "-D", data, "-U", "graph", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
        self._as_user("pg_ctl", "-D", data, "-l", str(self.directory / "server.log"), "-w", "-t", "120", "-o",
                      "-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100" % (self.port, self.directory),
                      "start")

    def _as_user(self, program: str, *arguments: str) -> None:
        command = [str(self.binaries / program), *arguments]
        if self.user:
            command = ["runuser", "-u", self.user, "--"] + command
        process = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=180, text=True)
        if process.returncode != 0:
            raise RuntimeError("%s failed (%d): %s %s" % (" ".join(command), process.returncode, process.stdout, process.stderr))

    def client_arguments(self, database: str) -> List[str]:
        """``-h``, ``-p``, ``-U`` and ``-d`` for ``psql`` on ``database``."""
        return ["-h", "127.0.0.1", "-p", str(self.port), "-U", "graph", "-d", database]

    def new_database(self) -> str:
        self._databases += 1
        name = "docserver_ops_%d_%d" % (os.getpid(), self._databases)
        subprocess.run([str(self.binaries / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "graph", name],
                       check=True, capture_output=True, timeout=60)
        return "postgresql://graph@127.0.0.1:%d/%s" % (self.port, name)

    def psql(self, database: str, statement: str) -> str:
        """The unaligned output of one statement."""
        process = subprocess.run([str(self.binaries / "psql"), *self.client_arguments(database), "-At", "-c", statement],
                                 capture_output=True, timeout=60, text=True)
        if process.returncode != 0:
            raise RuntimeError("psql %r failed: %s" % (statement, process.stderr))
        return process.stdout.strip()

    def hold_lock(self, database: str, table: str) -> "subprocess.Popen[str]":
        """A ``psql`` session holding ``table`` locked ACCESS EXCLUSIVE (every read of it waits)
        until its transaction ends: write ``ROLLBACK;`` to it and close its input."""
        session = subprocess.Popen([str(self.binaries / "psql"), *self.client_arguments(database), "-At", "-v", "ON_ERROR_STOP=1"],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
        assert session.stdin is not None
        session.stdin.write('BEGIN;\nLOCK TABLE "%s" IN ACCESS EXCLUSIVE MODE;\n' % table)
        session.stdin.flush()
        deadline = time.monotonic() + 30
        check = ("SELECT count(*) FROM pg_locks WHERE relation = '\"%s\"'::regclass AND mode = 'AccessExclusiveLock' AND granted"
                 % table)
        while self.psql(database, check) != "1":
            if time.monotonic() > deadline or session.poll() is not None:
                session.kill()
                raise RuntimeError("the lock on %s was not taken" % table)
            time.sleep(0.02)
        return session

    def stop(self) -> None:
        try:
            self._as_user("pg_ctl", "-D", str(self.directory / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(str(self.directory), ignore_errors=True)
