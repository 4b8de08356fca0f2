"""Live changes on raw sockets (docs/PROTOCOL.md, Live changes), without the docstore API.

A subscriber sees another connection's save with its author; a live query sees objects enter
and leave; a subscriber resumes with ``since`` after a server restart without gap or
duplicate; an old ``since`` is ``history expired``; a subscriber that never reads gets
``resync`` while another subscriber and the saves go on.
"""

from __future__ import annotations

from typing import Any, Dict, List

from support import RawConnection, ServerProcess

HISTORY_EXPIRED, INVALID_PARAMS, NOT_FOUND = -32009, -32602, -32003


def insert_tag(connection: RawConnection, label: str) -> Dict[str, Any]:
    return connection.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": label}}]})


def notifications(connection: RawConnection, count: int) -> List[Dict[str, Any]]:
    return [connection.read_message() for _ in range(count)]


def test_a_subscriber_sees_another_connections_save_with_its_author(server: ServerProcess) -> None:
    with server.connect() as subscriber, server.connect() as writer:
        assert writer.result("hello", {"client": "py-writer"})["seq"] == 0
        assert subscriber.result("subscribe", {"entity": "Tag"}) == {"subscription": 1, "seq": 0}
        saved = insert_tag(writer, "modal")
        note = subscriber.read_message()
        assert "id" not in note and note["method"] == "changes"
        params = note["params"]
        assert params["subscription"] == 1 and params["seq"] == saved["seq"]
        assert params["author"] == "py-writer"
        got = writer.result("get", {"ids": [saved["ids"]["t"]]})["objects"][0]
        assert params["inserted"] == [got]
        assert params["updated"] == [] and params["deleted"] == [] and "removed" not in params
        assert subscriber.result("unsubscribe", {"subscription": 1}) is True
        insert_tag(writer, "after")
        assert subscriber.is_silent(0.3)
        assert subscriber.call("unsubscribe", {"subscription": 1})["error"]["code"] == NOT_FOUND


def test_a_live_query_sees_objects_enter_and_leave(server: ServerProcess) -> None:
    with server.connect() as subscriber, server.connect() as writer:
        subscriber.result("subscribe", {"entity": "Song", "predicate": "plays > %d", "arguments": [10]})
        saved = writer.result("save", {"insert": [{"id": "s", "entity": "Song", "values": {"title": "A", "plays": 1}}]})
        song = saved["ids"]["s"]
        writer.result("save", {"update": [{"id": song, "version": 1, "values": {"plays": 11}}]})
        entered = subscriber.read_message()["params"]
        assert [o["id"] for o in entered["inserted"]] == [song], "the insert (1 play) sent nothing; the update entered"
        writer.result("save", {"update": [{"id": song, "version": 2, "values": {"plays": 3}}]})
        left = subscriber.read_message()["params"]
        assert left["removed"] == [song] and left["inserted"] == [] and left["updated"] == []


def test_since_resumes_across_a_restart_without_gap_or_duplicate(start_server: Any) -> None:
    server = start_server(extra_args=["--journal-checkpoint-bytes", "500"])
    with server.connect() as writer:
        seqs = [insert_tag(writer, "tag %d" % i)["seq"] for i in range(8)]
    server.restart()
    with server.connect() as subscriber, server.connect() as writer:
        assert subscriber.result("subscribe", {"since": seqs[2], "includeValues": False})["seq"] == seqs[2]
        seqs.append(insert_tag(writer, "after the restart")["seq"])
        got = [n["params"]["seq"] for n in notifications(subscriber, len(seqs) - 3)]
        assert got == seqs[3:]
        assert subscriber.is_silent(0.3)
        pulled = writer.result("changes", {"since": 0, "limit": 1000})
        assert [r["seq"] for r in pulled["changes"]] == seqs and pulled["more"] is False


def test_an_old_since_is_history_expired(start_server: Any) -> None:
    server = start_server(extra_args=["--history-commits", "2"])
    with server.connect() as client:
        seqs = [insert_tag(client, "t%d" % i)["seq"] for i in range(5)]
        for method in ("subscribe", "changes"):
            error = client.call(method, {"since": seqs[0]})["error"]
            assert error["code"] == HISTORY_EXPIRED and error["data"]["oldest"] == seqs[2]
        assert client.call("changes", {"since": seqs[-1] + 1})["error"]["code"] == INVALID_PARAMS


def test_a_subscriber_that_never_reads_gets_resync_and_nobody_waits(start_server: Any) -> None:
    server = start_server(extra_args=["--subscription-buffer-bytes", "65536"])
    label = "x" * 100_000
    with server.connect() as stalled, server.connect() as reading, server.connect() as writer:
        stalled.result("subscribe", {})
        reading.result("subscribe", {"entity": "Tag", "includeValues": False})
        for i in range(300):
            seq = insert_tag(writer, "%s %d" % (label, i))["seq"]
            assert reading.read_message()["params"]["seq"] == seq
        seen = []
        while True:
            message = stalled.read_message()
            if message["method"] == "resync":
                break
            seen.append(message["params"]["seq"])
        assert message["params"]["subscription"] == 1 and message["params"]["seq"] == seen[-1]
        assert seen == list(range(seen[0], seen[0] + len(seen))) and len(seen) < 300
        assert stalled.result("ping") == "pong"
