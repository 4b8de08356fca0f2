"""Streamed fetches (``docs/PROTOCOL.md``, Streamed answers) through the Python client.

Against the real server: an answer far past ``--max-answer-bytes`` comes whole and in the
order of the same fetch paged with ``limit``/``offset``, for objects and for IDs; an object
too large for a line ends the stream with ``TooLargeError`` and the connection goes on; an
iterator given up early leaves the client working; a notification sent between parts reaches
the notification stream. Against the scripted fake server (``fake_server.py``): the timeout
counts per line, a part for a call that asked for none breaks the connection, an error as
the last line is raised as ``result()`` raises it.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import Any, Dict, List

import pytest

import docstore
from fake_server import FakeServer, Peer

LIMIT = ["--max-answer-bytes", "4096"]


@pytest.fixture
def limited(start_server):
    """A server whose answers hold at most 4096 bytes."""
    return start_server(extra_args=LIMIT)


@pytest.fixture
def client(limited):
    with docstore.connect(limited.host, limited.port, client_name="streamer") as client:
        yield client


def insert_tags(client: docstore.Client, count: int, length: int = 100, per_save: int = 10) -> None:
    """Tags labelled ``0000xxx…``, ``0001xxx…`` (``length`` characters), ``per_save`` in each
    save, so that each save's answer stays within the server's answer limit."""
    for start in range(0, count, per_save):
        session = client.session()
        for index in range(start, min(start + per_save, count)):
            session.insert("Tag", label="%04d" % index + "x" * (length - 4))
        session.save()


def hellos(client: docstore.Client) -> int:
    """How many ``hello``s the server answered: one more means the client reconnected."""
    return int(client.stats()["requests"]["hello"]["ok"])


def paged(client: docstore.Client, page: int, total: int, **options: Any) -> List[docstore.DocObject]:
    objects: List[docstore.DocObject] = []
    for offset in range(0, total, page):
        objects += client.fetch("Tag", limit=page, offset=offset, **options)
    return objects


# -- against the real server ----------------------------------------------------------------


def test_a_stream_past_the_answer_limit_yields_every_object_in_the_order_of_the_pages(client):
    insert_tags(client, 300)
    with pytest.raises(docstore.TooLargeError) as refused:
        client.fetch("Tag", sort="-label")  # whole, it does not fit in one answer
    assert refused.value.data["what"] == "answer"
    session = client.session()
    streamed = list(session.fetch_stream("Tag", sort="-label"))
    assert len(streamed) == 300
    assert streamed[0].label.startswith("0299") and streamed[-1].label.startswith("0000")
    expected = paged(client, 10, 300, sort="-label")
    assert [(str(o.id), o.label, o.version) for o in streamed] == [(str(o.id), o.label, o.version) for o in expected]
    # Registered in the session as fetch registers them: loaded, one object per ID.
    assert all(not obj.is_fault and session.object(obj.id) is obj for obj in streamed)
    assert session.fetch("Tag", "label BEGINSWITH %@", "0299")[0] is streamed[0]


def test_the_answer_comes_in_parts_each_taken_in_turn_then_the_last_lines_result(client):
    insert_tags(client, 300)
    call = client.submit("fetch", {"entity": "Tag"}, stream=True)
    assert call.streamed and "streamed" in repr(call)
    parts = []
    while True:
        part = call.next_part()
        if part is None:
            break
        parts.append(part)
    result = call.result()
    assert len(parts) >= 5, f"{len(parts)} parts"
    objects = [item for part in parts for item in part["objects"]] + result["objects"]
    assert result["count"] == 300 and len(objects) == 300
    assert len({item["id"] for item in objects}) == 300, "no object twice"
    with pytest.raises(ValueError, match="stream=True"):
        client.submit("ping").next_part()


def test_ids_stream_in_the_order_of_the_pages_with_a_predicate_sort_and_page(client):
    insert_tags(client, 300)
    options: Dict[str, Any] = {"sort": "label", "offset": 5, "limit": 250}
    ids = list(client.fetch_ids_stream("Tag", "label BEGINSWITH %@", "0", **options))
    assert len(ids) == 250 and all(isinstance(object_id, docstore.ObjectID) for object_id in ids)
    expected: List[str] = []
    for offset in range(5, 255, 50):
        expected += client.fetch_ids("Tag", "label BEGINSWITH %@", "0", sort="label", offset=offset, limit=50)
    assert ids == expected
    assert list(client.fetch_ids_stream("Tag", "label == %@", "none")) == []
    assert client.count("Tag") == 300


def test_an_object_too_large_for_a_line_ends_the_stream_with_too_large_and_the_connection_goes_on(client):
    insert_tags(client, 100)
    big = client.session()
    big.insert("Tag", label="9" + "y" * 5000)  # sorted last, larger than a line may be
    big.save()
    before = hellos(client)
    received: List[docstore.DocObject] = []
    with pytest.raises(docstore.TooLargeError) as failure:
        for obj in client.fetch_stream("Tag", sort="label"):
            received.append(obj)
    assert failure.value.code == -32005 and failure.value.data["what"] == "answer"
    assert received, "the parts before the error were yielded"
    assert received[0].label.startswith("0000")
    # The server kept the connection open, and so did the client.
    assert client.ping() >= 0 and client.count("Tag") == 101
    assert len(list(client.fetch_ids_stream("Tag"))) == 101
    assert hellos(client) == before


def test_an_iterator_given_up_after_its_first_object_leaves_the_client_working(client):
    insert_tags(client, 300)
    before = hellos(client)
    for obj in client.fetch_stream("Tag", sort="label"):
        assert obj.label.startswith("0000")
        break  # the rest of the answer is dropped as it arrives
    assert client.ping() >= 0
    assert client.count("Tag") == 300
    assert [obj.label[:4] for obj in client.fetch("Tag", sort="label", limit=2)] == ["0000", "0001"]
    # Given up by closing it, and by dropping it.
    first = client.fetch_stream("Tag")
    next(first)
    first.close()
    second = client.fetch_ids_stream("Tag")
    next(second)
    del second
    gc.collect()
    # One never started sends nothing.
    fetches = client.stats()["requests"]["fetch"]["ok"]
    unstarted = client.fetch_stream("Tag")
    assert client.stats()["requests"]["fetch"]["ok"] == fetches
    del unstarted
    assert len(list(client.fetch_stream("Tag", sort="-label"))) == 300
    assert hellos(client) == before


@pytest.mark.deadline(180)
def test_a_notification_sent_between_parts_reaches_the_notification_stream(start_server):
    server = start_server()
    with docstore.connect(server.host, server.port, client_name="streamer") as client, \
            docstore.connect(server.host, server.port, client_name="other") as other:
        # About 12 MB of answer: more than the sockets' buffers hold, so that the server is
        # still sending parts when the notification is made.
        insert_tags(client, 6000, length=2000, per_save=50)
        client.call("subscribe", {"entity": "Song"})  # on the client's own connection
        seen: List[int] = []
        received = [0]
        client.on_notification(lambda notification: seen.append(received[0]))
        saved = None
        for obj in client.fetch_stream("Tag", sort="label"):
            received[0] += 1
            if received[0] == 1:
                session = other.session()
                session.insert("Song", title="between the parts")
                saved = session.save().seq
                time.sleep(0.3)  # the notification waits behind the parts in the server's socket
        assert received[0] == 6000
        assert len(seen) == 1 and 1 <= seen[0] < 6000, f"delivered after {seen} of 6000 objects"
        notification = client.next_notification()
        assert notification is not None and notification.method == "changes"
        assert notification.params["seq"] == saved
        assert [song["values"]["title"] for song in notification.params["inserted"]] == ["between the parts"]
        assert client.next_notification() is None


# -- against the fake server ----------------------------------------------------------------


def part(request: Dict[str, Any], *items: Any) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request["id"], "part": {"objects": list(items)}}


def last(request: Dict[str, Any], *items: Any, count: int) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request["id"], "result": {"objects": list(items), "count": count}}


def test_the_timeout_counts_per_line_of_a_stream_and_not_for_the_whole_stream() -> None:
    def script(peer: Peer, request: Dict[str, Any]) -> None:
        if request["method"] == "fetch":
            assert request["params"] == {"entity": "Tag", "stream": True}
            for n in range(6):
                time.sleep(0.3)
                peer.send(part(request, n))
            peer.send(last(request, 6, count=7))
        else:
            peer.answer(request)

    with FakeServer(script) as server:
        client = docstore.Client(server.host, server.port, timeout=1.0)
        started = time.monotonic()
        call = client.submit("fetch", {"entity": "Tag"}, stream=True)
        behind = client.submit("ping")  # answered after the stream's last line
        parts = []
        while True:
            piece = call.next_part()
            if piece is None:
                break
            parts.append(piece["objects"][0])
        assert parts == [0, 1, 2, 3, 4, 5] and call.result() == {"objects": [6], "count": 7}
        assert time.monotonic() - started > 1.5, "the stream took longer than the timeout"
        assert behind.result() == "ping"
        assert len(server.peers) == 1 and server.errors == []


def test_a_stream_that_stops_sending_times_out() -> None:
    def script(peer: Peer, request: Dict[str, Any]) -> None:
        peer.send(part(request, 1))  # and then nothing

    with FakeServer(script) as server:
        client = docstore.Client(server.host, server.port, timeout=0.3)
        call = client.submit("fetch", {"entity": "Tag"}, stream=True)
        assert call.next_part() == {"objects": [1]}
        with pytest.raises(docstore.ConnectionError, match="within 0.3 s"):
            call.next_part()


def test_a_part_for_a_call_that_asked_for_no_stream_is_a_protocol_error_and_the_next_call_reconnects() -> None:
    def script(peer: Peer, request: Dict[str, Any]) -> None:
        if peer.number == 1:
            peer.send(part(request, 1))
        else:
            peer.answer(request)

    with FakeServer(script) as server:
        client = docstore.Client(server.host, server.port, timeout=10.0)
        with pytest.raises(docstore.ProtocolError, match="did not ask for a stream"):
            client.call("fetch", {"entity": "Tag"})
        assert client.call("again") == "again"
        assert len(server.peers) == 2


@pytest.mark.parametrize("error, kind", [
    ({"code": -32005, "message": "too large", "data": {"what": "answer", "limit": 4096}}, docstore.TooLargeError),
    ({"code": -32006, "message": "the server is stopping"}, docstore.StoreUnavailableError),
    ({"code": -32007, "message": "time limit", "data": {"entity": "Tag", "limit": 10.0}}, docstore.TimeLimitError),
], ids=["too large", "store unavailable", "time limit"])
def test_an_error_as_the_last_line_is_raised_as_result_raises_it_and_the_connection_stays(error, kind) -> None:
    def script(peer: Peer, request: Dict[str, Any]) -> None:
        if request["method"] == "fetch":
            peer.send(part(request, 1))
            peer.send(part(request, 2))
            peer.send({"jsonrpc": "2.0", "id": request["id"], "error": error})
        else:
            peer.answer(request)

    with FakeServer(script) as server:
        client = docstore.Client(server.host, server.port, timeout=10.0)
        call = client.submit("fetch", {"entity": "Tag"}, stream=True)
        behind = client.submit("ping")
        taken: List[Any] = []
        with pytest.raises(kind) as raised:
            while True:
                taken.append(call.next_part())
        # A part still waiting when the error came is void: dropped with it.
        assert taken in ([{"objects": [1]}], [{"objects": [1]}, {"objects": [2]}])
        assert raised.value.code == error["code"]
        with pytest.raises(kind):
            call.result()
        assert behind.result() == "ping" and client.call("after") == "after"
        assert len(server.peers) == 1


def test_an_abandoned_stream_is_read_and_dropped_by_the_next_call_on_another_thread_too() -> None:
    go_on = threading.Event()

    def script(peer: Peer, request: Dict[str, Any]) -> None:
        if request["method"] == "fetch":
            peer.send(part(request, 1))
            go_on.wait(10)
            for n in range(2, 50):
                peer.send(part(request, n))
            peer.send(last(request, count=49))
        else:
            peer.answer(request)

    with FakeServer(script) as server:
        client = docstore.Client(server.host, server.port, timeout=10.0)
        call = client.submit("fetch", {"entity": "Tag"}, stream=True)
        assert call.next_part() == {"objects": [1]}
        call.abandon()
        answers: List[Any] = []
        thread = threading.Thread(target=lambda: answers.append(client.call("ping")))
        thread.start()
        go_on.set()
        thread.join(20)
        assert answers == ["ping"]
        assert call.done and call.next_part() is None, "what came after abandon() was dropped"
        assert len(server.peers) == 1 and server.errors == []
