"""pytest fixtures for the tests that run the real ``docserver`` binary.

The suite builds nothing: it runs ``$DOCSERVER_BINARY``, else ``<repo>/.build/debug/docserver``
as ``./scripts/test.sh`` builds it.

Fixtures:

- ``docserver_binary`` (session): the path of the binary.
- ``start_server`` (function): a factory
  ``start_server(store_path=None, *, model=None, token=None, host="127.0.0.1", extra_args=(),
  env=None) -> ServerProcess`` that starts ``docserver serve --port 0`` on ``store_path``
  (default: ``store.json`` in a fresh temporary directory) and waits for it to listen.
  Every server it started is stopped when the test ends.
- ``server`` (function): ``start_server()``: the sample model on a new store.

No test can hang: sockets and process waits have timeouts, and each test (its setup and
body) has a deadline, after which it fails with ``TestDeadlineExceeded`` and its servers are
stopped: 60 s, or ``$DOCSTORE_TEST_DEADLINE`` seconds; ``@pytest.mark.deadline(seconds)``
sets it for one test (0: none).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Union

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import ServerProcess  # noqa: E402

TESTS_DIRECTORY = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIRECTORY.parents[2]
DEFAULT_DEADLINE = float(os.environ.get("DOCSTORE_TEST_DEADLINE", "60"))


# -- the deadline ---------------------------------------------------------------------------


class TestDeadlineExceeded(Exception):
    """A test ran past its deadline (``@pytest.mark.deadline``)."""

    __test__ = False  # not a test class, whatever its name says


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        "deadline(seconds): fail the test (setup and body) when it runs longer than this "
        "(default %g s)" % DEFAULT_DEADLINE,
    )


def _deadline(item: Any) -> float:
    marker = item.get_closest_marker("deadline")
    if marker is not None and marker.args:
        return float(marker.args[0])
    return DEFAULT_DEADLINE


def _on_alarm(signum: int, frame: Any) -> None:
    raise TestDeadlineExceeded("the test ran past its deadline; see the traceback for where it waited")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: Any) -> Iterator[None]:
    # Armed from the start of setup to the end of the test body; teardown has its own
    # bounded waits (stop: SIGTERM, 10 s, SIGKILL).
    seconds = _deadline(item)
    if seconds > 0 and hasattr(signal, "setitimer"):
        item._docstore_previous_alarm = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: Any) -> Iterator[None]:
    if hasattr(item, "_docstore_previous_alarm"):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, item._docstore_previous_alarm)
        del item._docstore_previous_alarm
    yield


# -- the server -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def docserver_binary() -> Path:
    """The ``docserver`` executable: ``$DOCSERVER_BINARY``, else ``<repo>/.build/debug/docserver``."""
    configured = os.environ.get("DOCSERVER_BINARY")
    path = Path(configured) if configured else REPO_ROOT / ".build" / "debug" / "docserver"
    if not path.is_file() or not os.access(str(path), os.X_OK):
        pytest.fail(
            "the docserver binary is missing: %s is not an executable file. Run ./scripts/test.sh "
            "(it builds the server, then runs these tests), or set DOCSERVER_BINARY to a built "
            "docserver. This suite builds nothing itself." % path,
            pytrace=False,
        )
    return path


@pytest.fixture
def start_server(docserver_binary: Path, tmp_path: Path) -> Iterator[Any]:
    """A factory that starts ``docserver serve --port 0`` and returns its :class:`ServerProcess`.

    ``start_server(store_path=None, *, model=None, token=None, host="127.0.0.1",
    extra_args=(), env=None)``: ``store_path`` defaults to a new ``store.json`` in a fresh
    temporary directory; ``model`` is a model file (default: the sample model built into the
    binary); ``token`` is passed as ``--auth-token``; ``extra_args`` are appended to the
    command line (``["--max-line-bytes", "1024"]``); ``env`` adds environment variables
    (the ``DOCSERVER_*`` ones of the test process are never passed on). The server logs at
    ``warning`` level to a file (``.log`` of the returned object). Raises
    ``support.ServerStartError`` with the server's standard error when it does not start.
    All servers started are stopped (SIGTERM, then SIGKILL after 10 s) when the test ends.
    """
    servers: List[ServerProcess] = []
    count = [0]

    def start(
        store_path: Optional[Union[str, Path]] = None,
        *,
        model: Optional[Union[str, Path]] = None,
        token: Optional[str] = None,
        host: str = "127.0.0.1",
        extra_args: Sequence[str] = (),
        env: Optional[Mapping[str, str]] = None,
    ) -> ServerProcess:
        count[0] += 1
        if store_path is None:
            directory = tmp_path / ("server-%d" % count[0])
            directory.mkdir()
            store_path = directory / "store.json"
        store_path = Path(store_path)
        server = ServerProcess(
            docserver_binary,
            store_path,
            model=model,
            token=token,
            host=host,
            extra_args=extra_args,
            env=env,
            log_path=tmp_path / ("server-%d.log" % count[0]),
        )
        servers.append(server)
        return server

    yield start
    for server in reversed(servers):
        server.stop()


@pytest.fixture
def server(start_server: Any) -> ServerProcess:
    """A server on the sample model (Artist, Album, Song, Tag) and a new, empty store."""
    return start_server()
