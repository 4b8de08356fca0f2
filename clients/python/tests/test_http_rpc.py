"""``/rpc`` on the HTTP port (``docserver serve --http-port``): the line protocol over a WebSocket
(one JSON-RPC message per text frame, notifications included) and ``POST /rpc`` (one request or a
batch), with the TCP port's limits and ``hello``, and the ``Origin`` allow-list
(``--http-allow-origin``); against the real binary (docs/PROTOCOL.md, "WebSocket and POST")."""

from __future__ import annotations

import http.client
import json
import socket
import time
from typing import Any, Dict, Optional, Tuple

import pytest

import docstore
from websocket_client import Closed, HandshakeRefused, WebSocket


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(port: int, body: str, headers: Optional[Dict[str, str]] = None) -> Tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", "/rpc", body=body.encode(), headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


def start_http(start_server: Any, *args: str, token: Optional[str] = None) -> Tuple[Any, int]:
    port = free_port()
    server = start_server(token=token, extra_args=("--http-port", str(port), *args))
    return server, port


def test_a_websocket_on_rpc_carries_requests_and_the_change_feed_one_message_per_text_frame(start_server: Any) -> None:
    server, port = start_http(start_server)
    ws = WebSocket(port)
    try:
        hello = ws.call("hello", {"client": "ws-test"})
        assert hello["id"] == 1 and hello["result"]["server"] == "docserver"
        assert ws.call("ping", id=2) == {"jsonrpc": "2.0", "id": 2, "result": "pong"}
        subscribed = ws.call("subscribe", {"entity": "Song"}, id=3)
        assert subscribed["result"]["subscription"] == 1
        with docstore.connect(server.host, server.port, client_name="python") as client:
            session = client.session()
            session.insert("Song", title="So What")
            session.save()
        note = ws.receive()
        assert "id" not in note and note["method"] == "changes"
        assert note["params"]["author"] == "python"
        assert [o["values"]["title"] for o in note["params"]["inserted"]] == ["So What"]
        # A save over the WebSocket, seen over TCP.
        ws.send({"jsonrpc": "2.0", "id": 4, "method": "save",
                 "params": {"insert": [{"id": "n1", "entity": "Song", "values": {"title": "Freddie Freeloader"}}]}})
        answers = [ws.receive(), ws.receive()]  # the answer and the notification, in either order
        saved = [a for a in answers if a.get("id") == 4][0]
        assert saved["result"]["seq"] == 2
        assert any(a.get("method") == "changes" and a["params"]["author"] == "ws-test" for a in answers)
        with docstore.connect(server.host, server.port) as client:
            titles = sorted(song.title for song in client.fetch("Song"))
        assert titles == ["Freddie Freeloader", "So What"]
        # A batch in one frame answers in one frame.
        ws.send_text('[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]')
        assert [a["id"] for a in ws.receive()] == [5, 6]
        # A message split into fragments is one message.
        text = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'
        ws.send_frame(0x1, text[:10], fin=False)
        ws.send_frame(0x0, text[10:], fin=True)
        assert ws.receive()["id"] == 7
        # Not JSON: the parse error, and the connection stays usable.
        ws.send_text("{nope")
        assert ws.receive()["error"]["code"] == -32700
        assert ws.call("ping", id=8)["result"] == "pong"
    finally:
        ws.close()


def test_a_websocket_message_longer_than_the_line_limit_gets_too_large_then_a_close(start_server: Any) -> None:
    _, port = start_http(start_server, "--max-line-bytes", "1024")
    ws = WebSocket(port)
    try:
        assert ws.call("ping")["result"] == "pong"
        ws.send_text(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": "a" * 2000}}))
        answer = ws.receive()
        assert answer["id"] is None and answer["error"]["code"] == -32005
        with pytest.raises(Closed) as closed:
            ws.receive()
        assert closed.value.code == 1009
    finally:
        ws.close()


def test_a_binary_frame_closes_the_websocket_with_1003(start_server: Any) -> None:
    _, port = start_http(start_server)
    ws = WebSocket(port)
    try:
        ws.send_frame(0x2, b"\x00\x01")
        with pytest.raises(Closed) as closed:
            ws.receive()
        assert closed.value.code == 1003
    finally:
        ws.close()


def test_the_websocket_needs_the_token_in_hello_and_a_wrong_one_closes_it(start_server: Any) -> None:
    _, port = start_http(start_server, token="s3cret")
    ws = WebSocket(port)
    try:
        assert ws.call("ping")["error"]["code"] == -32004
    finally:
        ws.close()
    ws = WebSocket(port)
    try:
        assert ws.call("hello", {"token": "s3cret"})["result"]["server"] == "docserver"
        assert ws.call("ping", id=2)["result"] == "pong"
    finally:
        ws.close()
    ws = WebSocket(port)
    try:
        assert "wrong token" in ws.call("hello", {"token": "nope"})["error"]["message"]
        with pytest.raises(Closed):
            ws.receive()
    finally:
        ws.close()


def test_websockets_count_against_the_connection_limit_with_tcp_connections(start_server: Any) -> None:
    server, port = start_http(start_server, "--max-connections", "1")
    with docstore.connect(server.host, server.port) as client:
        client.ping()
        ws = WebSocket(port)
        try:
            busy = ws.receive()
            assert busy["id"] is None and busy["error"]["code"] == -32008
            with pytest.raises(Closed):
                ws.receive()
        finally:
            ws.close()
    # The TCP connection closed: room again once the server has seen it close (that is not
    # synchronous with the client's close, so a connection made at once may still be refused).
    deadline = time.monotonic() + 5
    while True:
        ws = WebSocket(port)
        try:
            answer = ws.call("ping")
        except (Closed, OSError) as error:  # refused and closed before the ping was read
            answer = {"error": {"code": -32008, "message": str(error)}}
        finally:
            ws.close()
        if "result" in answer or time.monotonic() > deadline:
            break
        assert answer["error"]["code"] == -32008, answer
        time.sleep(0.02)
    assert answer.get("result") == "pong", answer


def test_origins_not_allowed_are_refused_with_403_and_listed_ones_and_the_own_page_are_let_in(start_server: Any) -> None:
    _, port = start_http(start_server, "--http-allow-origin", "https://app.example.com")
    # No Origin: not a browser.
    WebSocket(port).close()
    WebSocket(port, origin="https://app.example.com").close()
    # The port's own page, reached by its address.
    WebSocket(port, origin="http://127.0.0.1:%d" % port).close()
    with pytest.raises(HandshakeRefused) as refused:
        WebSocket(port, origin="https://evil.example.net")
    assert refused.value.status == 403 and "--http-allow-origin" in refused.value.body
    ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert post(port, ping, {"Origin": "https://evil.example.net"})[0] == 403
    assert post(port, ping, {"Origin": "https://app.example.com"}) == (200, '{"jsonrpc":"2.0","id":1,"result":"pong"}')


def test_a_host_name_pointed_at_the_server_is_not_its_own_page(start_server: Any) -> None:
    # DNS rebinding: a page of attacker.test whose name now points here sends Origin and Host alike.
    _, port = start_http(start_server)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("POST", "/rpc", skip_host=True)
        connection.putheader("Host", "attacker.test:%d" % port)
        connection.putheader("Origin", "http://attacker.test:%d" % port)
        body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        assert connection.getresponse().status == 403
    finally:
        connection.close()


def test_post_rpc_answers_a_request_a_batch_and_notifications_with_204(start_server: Any) -> None:
    server, port = start_http(start_server)
    status, body = post(port, '{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"a","entity":"Tag","values":{"label":"modal"}}]}}')
    assert status == 200 and json.loads(body)["result"]["seq"] == 1
    status, body = post(port, '[{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Tag"}},{"jsonrpc":"2.0","id":2,"method":"ping"}]')
    answers = json.loads(body)
    assert status == 200 and [a["id"] for a in answers] == [1, 2]
    assert answers[0]["result"]["objects"][0]["values"]["label"] == "modal"
    assert post(port, '{"jsonrpc":"2.0","method":"ping"}') == (204, "")
    assert json.loads(post(port, "{nope")[1])["error"]["code"] == -32700
    subscribe = json.loads(post(port, '{"jsonrpc":"2.0","id":1,"method":"subscribe"}')[1])
    assert "notifications" in subscribe["error"]["message"]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/rpc")
    response = connection.getresponse()
    assert response.status == 426 and "WebSocket" in response.read().decode()
    connection.close()


def test_post_rpc_with_a_token_needs_hello_first_in_a_batch(start_server: Any) -> None:
    _, port = start_http(start_server, token="s3cret")
    assert "token" in json.loads(post(port, '{"jsonrpc":"2.0","id":1,"method":"ping"}')[1])["error"]["message"]
    status, body = post(port, '[{"jsonrpc":"2.0","id":0,"method":"hello","params":{"token":"s3cret"}},{"jsonrpc":"2.0","id":1,"method":"ping"}]')
    assert status == 200 and json.loads(body)[1]["result"] == "pong"


def test_post_rpc_bodies_are_limited_by_the_line_limit(start_server: Any) -> None:
    _, port = start_http(start_server, "--max-line-bytes", "100000")
    small = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "a" * 90000}})
    # Past the port's 64 KiB but within the line limit: the server's answer (ping takes no params).
    assert json.loads(post(port, small)[1])["error"]["code"] == -32602
    large = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "a" * 200000}})
    assert post(port, large)[0] == 413


def test_the_page_and_the_client_it_imports_are_served_from_the_binary(start_server: Any) -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    _, port = start_http(start_server)
    for path, source, kind in (("/", "web/index.html", "text/html"), ("/page.js", "web/page.js", "text/javascript"),
                               ("/docstore/index.js", "clients/js/src/index.js", "text/javascript")):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read().decode("utf-8")
        connection.close()
        assert response.status == 200, path
        assert response.getheader("Content-Type", "").startswith(kind)
        assert body == (root / source).read_text(encoding="utf-8"), path
