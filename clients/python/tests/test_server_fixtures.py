"""The test harness itself (conftest.py, support.py): the fixtures start, stop, kill and restart
real servers as they promise, with a token or another model, and report a server that does
not start with what it logged.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from support import RawConnection, ServerProcess, ServerStartError


def test_the_server_fixture_serves_the_sample_model_on_a_new_store(server: ServerProcess) -> None:
    assert server.host == "127.0.0.1" and server.port > 0 and server.is_running
    assert server.store_path.name == "store.json" and server.store_path.exists()
    with RawConnection(server.host, server.port) as c:
        assert c.call("ping") == {"jsonrpc": "2.0", "id": 1, "result": "pong"}
        entities = [e["name"] for e in c.result("model")["entities"]]
        assert entities == ["Artist", "Album", "Song", "Tag"]
        assert c.result("fetch", {"entity": "Song", "resultType": "count"}) == {"count": 0}


def test_stop_restart_and_kill(start_server: Any) -> None:
    server = start_server()
    with server.connect() as c:
        saved = c.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": "kept"}}]})
    assert server.restart() is server and server.is_running
    with server.connect() as c:
        assert c.result("get", {"ids": [saved["ids"]["t"]]})["missing"] == []
    assert server.kill() == -signal.SIGKILL and not server.is_running
    server.start()
    with server.connect() as c:
        assert c.result("get", {"ids": [saved["ids"]["t"]]})["missing"] == []
    assert server.stop() == 0
    assert server.stop() == 0, "stopping a stopped server says how it ended"


def test_a_token_and_another_model(start_server: Any, tmp_path: Path) -> None:
    model = tmp_path / "notes.model.json"
    model.write_text(json.dumps({"entities": [{"name": "Note", "attributes": [{"name": "text", "type": "string"}]}]}))
    server = start_server(model=model, token="s3cret")
    with RawConnection(server.host, server.port) as c:
        assert c.call("ping")["error"]["code"] == -32004
    with server.connect() as c:   # sends hello with the token
        assert [e["name"] for e in c.result("model")["entities"]] == ["Note"]


def test_environment_variables_reach_the_server_and_inherited_ones_do_not(
        start_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCSERVER_AUTH_TOKEN", "inherited")
    server = start_server()
    with RawConnection(server.host, server.port) as c:
        assert c.result("ping") == "pong", "DOCSERVER_* of the test process are not passed on"
    server = start_server(env={"DOCSERVER_AUTH_TOKEN": "given"})
    with RawConnection(server.host, server.port) as c:
        assert c.call("ping")["error"]["code"] == -32004


def test_a_server_that_does_not_start_is_reported_with_its_log(start_server: Any, tmp_path: Path) -> None:
    with pytest.raises(ServerStartError) as failure:
        start_server(model=tmp_path / "missing.model.json")
    assert failure.value.returncode not in (None, 0)
    assert "missing.model.json" in failure.value.stderr and "missing.model.json" in str(failure.value)
    with pytest.raises(ServerStartError) as refused:
        start_server(host="0.0.0.0")   # not loopback, and no token
    assert refused.value.returncode not in (None, 0) and refused.value.stderr
