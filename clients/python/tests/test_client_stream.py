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
    client.fetch_stream("Tag")
    assert len(list(client.fetch_stream("Tag", sort="-label"))) == 300
    assert client.fetch_ids("Tag", limit=1) == client.fetch_ids("Tag", limit=1)
    assert hellos(client) == before
    assert client.stats()["requests"]["fetch"]["error"] == 1  # the whole fetch that did not fit? no: none
