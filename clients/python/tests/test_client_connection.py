"""The client's framing and matching against a scripted fake server (``fake_server.py``):
answers reach the request with their ``id`` whatever their order, notifications (messages
without ``id``) reach the notification stream, and anything the client cannot place makes
the connection unusable until the next call reconnects."""

from __future__ import annotations

import threading
from typing import Any, Dict, List

import pytest

import docstore
from fake_server import FakeServer, Peer


def hold_until(count: int, then: Any) -> Any:
    """A script that keeps requests until ``count`` are held, then calls ``then(peer, held)``."""

    def script(peer: Peer, message: Dict[str, Any]) -> None:
        peer.held.append(message)
        if len(peer.held) == count:
            held, peer.held = peer.held, []
            then(peer, held)

    return script


def connect(server: FakeServer, **options: Any) -> docstore.Client:
    return docstore.Client(server.host, server.port, timeout=10.0, **options)


def test_answers_out_of_order_reach_the_threads_that_asked_and_a_notification_reaches_its_stream() -> None:
    def answer_backwards(peer: Peer, held: List[Dict[str, Any]]) -> None:
        peer.notify("changes", {"seq": 1})
        for request in reversed(held):
            peer.answer(request, {"echo": request["params"]["n"]})

    with FakeServer(hold_until(4, answer_backwards)) as server:
        client = connect(server)
        seen: List[docstore.Notification] = []
        client.on_notification(seen.append)
        results: Dict[int, Any] = {}
        errors: List[BaseException] = []

        def ask(n: int) -> None:
            try:
                results[n] = client.call("echo", {"n": n})
            except BaseException as error:  # noqa: BLE001  (reported below)
                errors.append(error)

        threads = [threading.Thread(target=ask, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=20)
        assert errors == []
        assert results == {n: {"echo": n} for n in range(4)}
        assert client.next_notification() == docstore.Notification("changes", {"seq": 1})
        assert client.next_notification() is None
        assert seen == [docstore.Notification("changes", {"seq": 1})]
        assert len(server.peers) == 1, "one connection served every thread"
        assert server.errors == []


def test_pipelined_requests_from_one_thread_are_answered_in_any_order() -> None:
    def answer(peer: Peer, held: List[Dict[str, Any]]) -> None:
        first, second, third = held
        peer.answer(second)
        peer.notify("tick")
        peer.answer(third)
        peer.answer(first)

    with FakeServer(hold_until(3, answer)) as server:
        client = connect(server)
        first, second, third = client.submit("first"), client.submit("second"), client.submit("third")
        assert [first.method, second.method, third.method] == ["first", "second", "third"]
        assert len({first.id, second.id, third.id}) == 3, "each request has a fresh id"
        assert third.result() == "third"
        assert second.done and not first.done, "an answer read while waiting for another is kept"
        assert first.result() == "first" and second.result() == "second"
        assert client.next_notification() == docstore.Notification("tick")


def test_an_answer_with_an_unknown_id_is_a_protocol_error_and_the_next_call_reconnects() -> None:
    def script(peer: Peer, message: Dict[str, Any]) -> None:
        if peer.number == 1:
            peer.send({"jsonrpc": "2.0", "id": 9999, "result": "not yours"})
        else:
            peer.answer(message)

    with FakeServer(script) as server:
        client = connect(server)
        with pytest.raises(docstore.ProtocolError, match="9999 matches no request"):
            client.call("first")
        assert client.call("second") == "second"
        assert len(server.peers) == 2, "the connection was closed and opened again"


def test_an_unknown_id_fails_every_request_waiting_on_the_connection() -> None:
    def wrong(peer: Peer, held: List[Dict[str, Any]]) -> None:
        peer.answer(held[0])
        peer.send({"jsonrpc": "2.0", "id": "who", "result": 1})

    with FakeServer(hold_until(3, wrong)) as server:
        client = connect(server)
        calls = [client.submit("a"), client.submit("b"), client.submit("c")]
        assert calls[0].result() == "a"
        for call in calls[1:]:
            with pytest.raises(docstore.ProtocolError, match=f"while {call.method} waited"):
                call.result()


def test_a_parse_error_with_a_null_id_answers_the_one_request_in_flight_and_the_connection_stays() -> None:
    def script(peer: Peer, message: Dict[str, Any]) -> None:
        if message["method"] == "broken":
            peer.send(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid JSON at byte 3",'
                      b'"data":{"offset":3,"line":1,"column":4,"reason":"premature EOF"}}}')
        else:
            peer.answer(message)

    with FakeServer(script) as server:
        client = connect(server)
        with pytest.raises(docstore.ProtocolError) as failure:
            client.call("broken")
        assert failure.value.code == -32700 and failure.value.data["offset"] == 3
        assert client.call("after") == "after"
        assert len(server.peers) == 1


def test_an_error_with_a_null_id_while_several_requests_wait_fails_them_all() -> None:
    def ambiguous(peer: Peer, held: List[Dict[str, Any]]) -> None:
        peer.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "invalid JSON"}})

    with FakeServer(hold_until(2, ambiguous)) as server:
        client = connect(server)
        calls = [client.submit("a"), client.submit("b")]
        for call in calls:
            with pytest.raises(docstore.ProtocolError, match="matches no request"):
                call.result()


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","result":1}',
    b'[{"jsonrpc":"2.0","id":2,"result":1}]',
    b'not json',
    b'{"jsonrpc":"2.0","id":true,"result":1}',
], ids=["no id, no method", "a batch", "not JSON", "a boolean id"])
def test_a_message_the_client_cannot_place_is_a_protocol_error(line: bytes) -> None:
    def script(peer: Peer, message: Dict[str, Any]) -> None:
        if peer.number == 1:
            peer.send(line)
        else:
            peer.answer(message)

    with FakeServer(script) as server:
        client = connect(server)
        with pytest.raises(docstore.ProtocolError):
            client.call("first")
        assert client.call("second") == "second"


def test_the_notification_buffer_keeps_the_newest_up_to_its_size() -> None:
    def script(peer: Peer, message: Dict[str, Any]) -> None:
        for n in range(5):
            peer.notify("n", [n])
        peer.answer(message)

    with FakeServer(script) as server:
        client = connect(server, notification_buffer=2)
        assert client.call("go") == "go"
        assert client.next_notification() == docstore.Notification("n", [3])
        assert client.next_notification() == docstore.Notification("n", [4])
        assert client.next_notification() is None
        assert client._connection.notifications.dropped == 3


def test_next_notification_reads_the_idle_connection_and_a_timeout_keeps_it_open() -> None:
    def script(peer: Peer, message: Dict[str, Any]) -> None:
        peer.answer(message)
        if message["method"] == "subscribe":
            threading.Timer(0.3, peer.notify, args=("pushed", {"later": True})).start()

    with FakeServer(script) as server:
        client = connect(server)
        with pytest.raises(docstore.ConnectionError, match="not connected"):
            client.next_notification()   # notifications come on an open connection
        assert client.call("subscribe") == "subscribe"
        assert client.next_notification(timeout=0.05) is None, "nothing yet: a timeout, not an error"
        assert client.next_notification(timeout=10) == docstore.Notification("pushed", {"later": True})
        assert client.call("after") == "after"
        assert len(server.peers) == 1, "timeouts of next_notification keep the connection"


def test_a_callback_that_fails_or_calls_the_server_does_not_break_the_call_that_read_it() -> None:
    def script(peer: Peer, message: Dict[str, Any]) -> None:
        if message["method"] == "first":
            peer.notify("boom")
        peer.answer(message)

    with FakeServer(script) as server:
        client = connect(server)
        answers: List[Any] = []

        def failing(_: docstore.Notification) -> None:
            raise RuntimeError("a subscriber's bug")

        client.on_notification(failing)
        unsubscribe = client.on_notification(lambda _: answers.append(client.call("from-callback")))
        assert client.call("first") == "first"
        assert answers == ["from-callback"]
        unsubscribe()
        assert client.call("first") == "first"
        assert answers == ["from-callback"]


def test_a_request_without_answer_times_out_and_fails_the_others_waiting_with_it() -> None:
    with FakeServer(lambda peer, message: None) as server:
        client = docstore.Client(server.host, server.port, timeout=0.3)
        calls = [client.submit("save"), client.submit("fetch")]
        with pytest.raises(docstore.ConnectionError, match="no answer to save .* may or may not have been applied"):
            calls[0].result()
        with pytest.raises(docstore.ConnectionError, match="fetch"):
            calls[1].result()


def test_many_threads_get_their_answers_and_every_notification_reaches_the_callbacks_in_order() -> None:
    sequence = iter(range(1_000_000))
    order = threading.Lock()

    def script(peer: Peer, message: Dict[str, Any]) -> None:
        with order:
            peer.notify("seq", next(sequence))
        peer.answer(message, message["params"])

    with FakeServer(script) as server:
        client = connect(server, notification_buffer=10_000)
        seen: List[int] = []
        client.on_notification(lambda notification: seen.append(notification.params))
        failures: List[str] = []

        def work(n: int) -> None:
            for i in range(50):
                params = {"thread": n, "i": i}
                if client.call("echo", params) != params:
                    failures.append(f"thread {n} call {i}")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert failures == []
        assert seen == list(range(300))
        assert len(server.peers) == 1
