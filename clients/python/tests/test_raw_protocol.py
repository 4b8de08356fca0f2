"""Bad input on a raw socket (docs/PROTOCOL.md) never disturbs another client or the store.

Each test connects a second client and saves a few objects *before* the bad input; that client
keeps working (ping, a save, a fetch) while the bad connection is in its bad state and after
it ends, and the store file is byte for byte what it was until a save happens, then holds
exactly the saved objects. Covered: random binary garbage, invalid UTF-8, lines that are not
JSON, JSON that is not a request, a flood of garbage from a client that never reads, half a
line then a disconnect (close, reset, half-close), lines over ``--max-line-bytes`` (1024, and
the default 16 MiB), HTTP, unknown methods, invalid params, batches and notifications.
Error codes and ``data`` are checked as PROTOCOL.md, Errors, documents them.
"""

from __future__ import annotations

import json
import random
import socket
import threading
from typing import Any, Dict, List, Optional

import pytest

from store_file import objects_by_ref, read_live_store, reference_of, store_bytes
from support import RawConnection, ServerProcess, encode_line

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
CONFLICT, VALIDATION, NOT_FOUND, TOO_LARGE = -32001, -32002, -32003, -32005
DEFAULT_LIMIT = 16 * 1024 * 1024

SEED = {"insert": [
    {"id": "artist", "entity": "Artist", "values": {"name": "Miles Davis", "country": "US"}},
    {"id": "album", "entity": "Album", "values": {"title": "Kind of Blue", "artist": "artist",
                                                  "released": "1959-08-17T00:00:00Z", "price": "9.99"}},
    {"id": "s1", "entity": "Song", "values": {"title": "So What", "plays": 7, "album": "album"}},
    {"id": "s2", "entity": "Song", "values": {"title": "Blue in Green", "plays": 12, "album": "album"}},
]}


class Scene:
    """A server, a client connected (and holding saved objects) before any bad input, and
    what the store file must hold."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.other = server.connect()
        saved = self.other.result("save", SEED)
        self.ids: Dict[str, str] = dict(saved["ids"])
        self.expected = {reference_of(i)[2]: reference_of(i)[1] for i in self.ids.values()}
        self.snapshot = store_bytes(server.store_path)
        self.rounds = 0

    def connect(self) -> RawConnection:
        return self.server.connect()

    def other_works(self) -> None:
        """The other client answers a ping, saves a tag and fetches it back."""
        self.rounds += 1
        label = "round %d" % self.rounds
        assert self.other.result("ping") == "pong"
        saved = self.other.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": label}}]})
        tag = saved["ids"]["t"]
        fetched = self.other.result("fetch", {"entity": "Tag", "predicate": "label == %@", "arguments": [label]})
        assert fetched == {"objects": [{"id": tag, "entity": "Tag", "version": 1, "values": {"label": label, "songs": []}}]}
        songs = self.other.result("fetch", {"entity": "Song", "sort": [{"key": "plays"}], "resultType": "ids"})
        assert songs == {"ids": [self.ids["s1"], self.ids["s2"]]}
        self.expected[reference_of(tag)[2]] = "Tag"
        self.snapshot = store_bytes(self.server.store_path)

    def file_unchanged(self) -> None:
        assert store_bytes(self.server.store_path) == self.snapshot, "the store file or its journal changed without a save"

    def file_holds_exactly_the_saved_objects(self) -> None:
        document = read_live_store(self.server.store_path)
        assert {ref: entity for ref, (entity, _) in objects_by_ref(document).items()} == self.expected

    def finish(self) -> None:
        """The other client still works, the file holds what was saved, the server stops cleanly."""
        self.other_works()
        self.file_holds_exactly_the_saved_objects()
        self.other.close()
        assert self.server.stop() == 0
        self.file_holds_exactly_the_saved_objects()


@pytest.fixture
def scene(server: ServerProcess) -> Scene:
    return Scene(server)


def check_parse_error(answer: Dict[str, Any], line: bytes, first_bad: Optional[int] = None) -> None:
    """A parse error as PROTOCOL.md shows it; the offset within a character (3 bytes) of
    ``first_bad`` when given."""
    assert answer["jsonrpc"] == "2.0" and answer["id"] is None
    error = answer["error"]
    assert error["code"] == PARSE_ERROR and error["message"]
    data = error["data"]
    assert set(data) == {"offset", "line", "column", "reason"}, data
    assert 0 <= data["offset"] <= len(line) and data["line"] == 1 and data["column"] == data["offset"] + 1
    assert isinstance(data["reason"], str) and data["reason"]
    if first_bad is not None:
        assert first_bad <= data["offset"] <= min(first_bad + 3, len(line)), (line, data)


def garbage_line(generator: random.Random, size: int) -> bytes:
    """Random bytes without a newline that are not a blank line."""
    return b"\x01" + generator.randbytes(size).replace(b"\n", b"#")


# -- garbage --------------------------------------------------------------------------------


def test_random_binary_garbage_is_a_parse_error_and_the_connection_stays_usable(scene: Scene) -> None:
    generator = random.Random(6)
    with scene.connect() as bad:
        line = garbage_line(generator, 4096)
        bad.send(line + b"\n")
        check_parse_error(bad.read_message(), line, 0)   # a control character cannot start JSON
        scene.file_unchanged()
        scene.other_works()
        # Several garbage lines in one write, then a request: answered in order.
        lines = [garbage_line(generator, generator.randrange(1, 2000)) for _ in range(20)]
        bad.send(b"".join(line + b"\n" for line in lines) + b'{"jsonrpc":"2.0","id":"after","method":"ping"}\n')
        for line in lines:
            check_parse_error(bad.read_message(), line, 0)
        assert bad.read_message() == {"jsonrpc": "2.0", "id": "after", "result": "pong"}
        scene.file_unchanged()
        scene.other_works()
        # The connection that sent garbage saves and fetches like any other.
        saved = bad.result("save", {"insert": [{"id": "g", "entity": "Tag", "values": {"label": "from the bad one"}}]})
        scene.expected[reference_of(saved["ids"]["g"])[2]] = "Tag"
        assert bad.result("get", {"ids": [saved["ids"]["g"]]})["objects"][0]["version"] == 1
    scene.finish()


# Lines that are not UTF-8, and the first byte that makes them so.
NOT_UTF8 = [
    pytest.param(b'{"jsonrpc":"2.0","id":1,"method":"p\xffing"}', 35, id="0xFF in a string"),
    pytest.param(b"\xc3\x28", 0, id="a lead byte without its continuation"),
    pytest.param(b'["\xe2\x82', 2, id="a truncated character at the end"),
    pytest.param(b'["caf\xc3\xa9 \xe9t\xc3\xa9"]', 8, id="a Latin-1 byte among UTF-8 characters"),
    pytest.param(b'{"jsonrpc":"2.0","id":1,"method":"\xc0\xafping"}', 34, id="an overlong slash"),
    pytest.param(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\xed\xa0\x80"}}', 55,
                 id="an encoded surrogate"),
    pytest.param(b'["\xf4\x90\x80\x80"]', 2, id="a code point past U+10FFFF"),
]


@pytest.mark.parametrize("line, first_bad", NOT_UTF8)
def test_invalid_utf8_is_a_parse_error_saying_where(scene: Scene, line: bytes, first_bad: int) -> None:
    with scene.connect() as bad:
        bad.send(line + b"\n")
        check_parse_error(bad.read_message(), line, first_bad)
        scene.file_unchanged()
        scene.other_works()
        assert bad.result("ping") == "pong"
    scene.finish()


def test_a_line_that_is_not_json_is_answered_as_protocol_md_shows(scene: Scene) -> None:
    with scene.connect() as bad:
        # The example of PROTOCOL.md, byte for byte.
        bad.send_line('{"jsonrpc":"2.0","id":13,"method":"ping"')
        assert bad.read_line() == (
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid JSON at byte 40 (line 1, column 41): '
            b'premature EOF","data":{"offset":40,"line":1,"column":41,"reason":"premature EOF"}}}')
        for line, first_bad in [(b"hello, server", 0), (b"[1,2,x]", 5), (b'{"jsonrpc":"2.0",,"id":1}', 17),
                                (b'{"jsonrpc":"2.0","id":1,"method":"ping"}}', 40), (b"\x00", 0), (b"{", 1),
                                (b'{"jsonrpc":"2.0","id":1,"method":"ping"} // a comment', 41)]:
            bad.send(line + b"\n")
            check_parse_error(bad.read_message(), line, first_bad)
        deep = b"[" * 129 + b"]" * 129
        bad.send(deep + b"\n")
        answer = bad.read_message()
        assert answer["id"] is None and answer["error"]["code"] == PARSE_ERROR and answer["error"]["data"]["reason"]
        scene.file_unchanged()
        scene.other_works()
        assert bad.result("ping") == "pong"
    scene.finish()


def test_json_that_is_not_a_request_is_an_invalid_request(scene: Scene) -> None:
    cases = [  # (line, the id of the answer)
        ("42", None), ('"ping"', None), ("null", None), ("[]", None),
        ('{"id":1,"method":"ping"}', 1),
        ('{"jsonrpc":"1.0","id":2,"method":"ping"}', 2),
        ('{"jsonrpc":"2.0","id":3,"method":5}', 3),
        ('{"jsonrpc":"2.0","id":"four"}', "four"),
        ('{"jsonrpc":"2.0","id":{},"method":"ping"}', None),
        ('{"jsonrpc":"2.0","id":true,"method":"ping"}', None),
        ('{"jsonrpc":"2.0","id":7,"method":"ping","params":[]}', 7),
        ('{"jsonrpc":"2.0","id":8,"method":"ping","param":{}}', 8),
    ]
    with scene.connect() as bad:
        for line, id in cases:
            bad.send_line(line)
            answer = bad.read_message()
            assert list(answer) == ["jsonrpc", "id", "error"] and answer["id"] == id, (line, answer)
            assert answer["error"]["code"] == INVALID_REQUEST, (line, answer)
            assert set(answer["error"]["data"]) == {"reason"} and answer["error"]["data"]["reason"], (line, answer)
        scene.file_unchanged()
        scene.other_works()
        assert bad.result("ping") == "pong"
    scene.finish()


def test_a_client_flooding_garbage_without_reading_does_not_hold_up_another(scene: Scene) -> None:
    generator = random.Random(7)
    chunk = b"".join(garbage_line(generator, 100) + b"\n" for _ in range(10000))   # 1 MB, 10,000 answers
    with scene.connect() as bad:
        bad.sock.settimeout(0.5)  # type: ignore[union-attr]
        sent = 0
        try:
            # Until the server stops reading a client that reads none of its answers (its
            # buffers and the kernel's fill up): then a send waits, and times out.
            while sent < 64 * len(chunk):
                offset = sent % len(chunk)
                sent += bad.sock.send(chunk[offset:offset + 65536])  # type: ignore[union-attr]
        except socket.timeout:
            pass
        assert sent < 64 * len(chunk), "the server read 64 MB from a client that reads none of its answers"
        scene.file_unchanged()
        scene.other_works()
        # Reading the answers lets it go on: each line is still answered, in order.
        bad.sock.settimeout(10)  # type: ignore[union-attr]
        for _ in range(100):
            assert bad.read_message()["error"]["code"] == PARSE_ERROR
    scene.finish()


def test_a_connection_that_speaks_http_is_closed_without_an_answer(scene: Scene) -> None:
    with scene.connect() as bad:
        bad.send(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert bad.read_until_closed() == b""
    scene.file_unchanged()
    scene.finish()


# -- half a line ----------------------------------------------------------------------------

HALF_SAVE = b'{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"h","entity":"Tag","values":{"label":"half"}}]}'


@pytest.mark.parametrize("ending", ["close", "reset", "half-close"])
def test_half_a_line_then_a_disconnect_changes_nothing(scene: Scene, ending: str) -> None:
    bad = scene.connect()
    bad.send(b'{"jsonrpc":"2.0","id":0,"method":"ping"}\n' + HALF_SAVE)   # a save, all but its last brace and newline
    assert bad.read_message() == {"jsonrpc": "2.0", "id": 0, "result": "pong"}
    scene.other_works()   # while the half line waits on the server
    scene.file_unchanged()
    if ending == "close":
        bad.close()
    elif ending == "reset":
        bad.reset()
    else:
        bad.shutdown_write()
        assert bad.read_until_closed() == b"", "the half line is dropped, not answered"
        bad.close()
    scene.file_unchanged()
    scene.other_works()
    tags = scene.other.result("fetch", {"entity": "Tag", "predicate": "label == 'half'", "resultType": "count"})
    assert tags == {"count": 0}
    scene.finish()


def test_half_a_line_completed_later_is_one_request(scene: Scene) -> None:
    with scene.connect() as bad:
        bad.send(HALF_SAVE[:50])
        scene.other_works()
        bad.send(HALF_SAVE[50:])
        scene.other_works()
        assert bad.is_silent(0.2)
        bad.send(b"}\n")
        answer = bad.read_message()
        assert answer["id"] == 1 and "result" in answer, answer
        scene.expected[reference_of(answer["result"]["ids"]["h"])[2]] = "Tag"
    scene.finish()


# -- lines that are too long ----------------------------------------------------------------


def padded_ping(length: int, id: int = 1) -> bytes:
    """A ping request of exactly ``length`` bytes (spaces before its closing brace)."""
    ping = b'{"jsonrpc":"2.0","id":%d,"method":"ping"' % id
    return ping + b" " * (length - len(ping) - 1) + b"}"


def save_of_length(length: int, label: str = "too long") -> bytes:
    """A save of one tag, exactly ``length`` bytes long (spaces before its closing brace)."""
    line = encode_line({"jsonrpc": "2.0", "id": "big", "method": "save",
                        "params": {"insert": [{"id": "t", "entity": "Tag", "values": {"label": label}}]}})
    return line[:-1] + b" " * (length - len(line)) + b"}"


def check_too_large(answer: Dict[str, Any], limit: int) -> None:
    assert answer == {"jsonrpc": "2.0", "id": None,
                      "error": {"code": TOO_LARGE, "message": answer["error"]["message"], "data": {"limit": limit, "what": "line"}}}
    assert answer["error"]["message"]


def send_ignoring_close(connection: RawConnection, data: bytes) -> None:
    """Sends what the server still takes: it may close before the last bytes arrive."""
    try:
        connection.send(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def test_a_line_over_max_line_bytes_is_too_large_and_closes_only_that_connection(start_server: Any) -> None:
    scene = Scene(start_server(extra_args=["--max-line-bytes", "1024"]))
    with scene.connect() as bad:
        bad.send(padded_ping(1024) + b"\n")
        assert bad.read_message() == {"jsonrpc": "2.0", "id": 1, "result": "pong"}, "exactly the limit is fine"
        bad.send(padded_ping(1024, id=2) + b"\r\n")
        assert bad.read_message()["result"] == "pong", "the \\r is not counted"
        line = save_of_length(1025)
        bad.send(line[:1000])
        scene.other_works()   # while most of the line waits on the server
        send_ignoring_close(bad, line[1000:] + b"\n")
        check_too_large(bad.read_message(), 1024)
        assert bad.read_until_closed() == b"", "closed after the answer"
    scene.file_unchanged()
    with scene.connect() as growing:
        # Refused as soon as the limit is passed, before any newline arrives.
        send_ignoring_close(growing, b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * 100000)
        check_too_large(growing.read_message(), 1024)
        scene.other_works()
        assert growing.read_until_closed() == b""
    scene.finish()


@pytest.mark.deadline(120)
def test_a_line_over_the_default_16_mib_is_too_large_and_closes_only_that_connection(scene: Scene) -> None:
    line = save_of_length(DEFAULT_LIMIT + 1)
    with scene.connect() as bad:
        bad.send(line[: DEFAULT_LIMIT // 2])
        scene.other_works()   # while 8 MiB of the line wait on the server
        scene.file_unchanged()
        send_ignoring_close(bad, line[DEFAULT_LIMIT // 2:] + b"\n")
        check_too_large(bad.read_message(), DEFAULT_LIMIT)
        assert bad.read_until_closed() == b""
    scene.file_unchanged()
    assert scene.other.result("fetch", {"entity": "Tag", "predicate": "label == 'too long'", "resultType": "count"}) == {"count": 0}
    scene.finish()


# -- well-formed requests the server cannot carry out ---------------------------------------


def test_an_unknown_method_is_method_not_found(scene: Scene) -> None:
    with scene.connect() as bad:
        # The example of PROTOCOL.md, byte for byte.
        bad.send_line('{"jsonrpc":"2.0","id":14,"method":"delete","params":{"ids":[]}}')
        assert bad.read_line() == (b'{"jsonrpc":"2.0","id":14,"error":{"code":-32601,"message":"unknown method \'delete\' '
                                   b'(methods: hello, model, ping, fetch, get, save, subscribe, unsubscribe, changes, stats, slowlog, backup)","data":{"method":"delete"}}}')
        answer = bad.call("fetchAll", {"entity": "Song"}, id="string id")
        assert answer["id"] == "string id" and answer["error"]["code"] == METHOD_NOT_FOUND
        assert answer["error"]["data"] == {"method": "fetchAll"}
        assert bad.call("Ping")["error"]["data"] == {"method": "Ping"}, "method names are case-sensitive"
        for long in ["m" * 129, "m" * 300, "ключ🔑" * 40]:   # 4-byte UTF-8 characters among them
            assert bad.call(long)["error"]["data"]["method"] == long[:128], "the first 128 characters"
        bad.send_line({"jsonrpc": "2.0", "method": "nope"})   # a notification: no answer, not even an error
        assert bad.call("ping")["result"] == "pong"
        scene.file_unchanged()
        scene.other_works()
    scene.finish()


INVALID_PARAMS_CASES = [
    ("fetch", {}, "params.entity"),
    ("fetch", {"entity": "Nope"}, "params.entity"),
    ("fetch", {"entity": "Song", "sort": [{"key": "title"}, {"key": "plays", "ascending": "no"}]}, "params.sort[1].ascending"),
    ("fetch", {"entity": "Song", "limit": -1}, "params.limit"),
    ("fetch", {"entity": "Song", "colour": 1}, "params.colour"),
    ("get", {"ids": ["nope"]}, "params.ids[0]"),
    ("ping", {"x": 1}, "params.x"),
    ("save", {"insert": [{"id": "x", "entity": "Song", "values": {"title": "t", "plays": "many"}}]}, "params.insert[0].values.plays"),
    ("save", {"insert": [{"id": "x", "entity": "Album", "values": {"title": "t", "released": "yesterday"}}]}, "params.insert[0].values.released"),
    ("save", {"insert": [{"id": "x", "entity": "Album", "values": {"title": "t", "cover": "not base64!"}}]}, "params.insert[0].values.cover"),
    ("save", {"insert": [{"id": "x", "entity": "Song", "values": {"title": "t", "uid": "not-a-uuid"}}]}, "params.insert[0].values.uid"),
]


def test_invalid_params_name_the_path_and_change_nothing(scene: Scene) -> None:
    with scene.connect() as bad:
        for method, params, path in INVALID_PARAMS_CASES:
            answer = bad.call(method, params)
            assert answer["error"]["code"] == INVALID_PARAMS, (method, params, answer)
            assert answer["error"]["data"]["path"] == path, (method, params, answer)
            assert answer["error"]["data"]["reason"], answer
        scene.file_unchanged()
        scene.other_works()
        predicate = bad.call("fetch", {"entity": "Song", "predicate": "title ==== 1"})["error"]
        assert predicate["code"] == INVALID_PARAMS and predicate["data"]["path"] == "params.predicate"
        assert isinstance(predicate["data"]["position"], int) and 0 <= predicate["data"]["position"] <= len("title ==== 1")
        # The other save errors: validation, not found, conflict; each leaves the store alone.
        invalid = bad.call("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": "ok"}},
                                               {"id": "untitled", "entity": "Song", "values": {"plays": 1}}]})["error"]
        assert invalid["code"] == VALIDATION
        assert invalid["data"] == {"failures": [{"id": "untitled", "entity": "Song", "key": "title", "reason": invalid["data"]["failures"][0]["reason"]}]}
        missing = scene.ids["album"].rsplit("/", 1)[0] + "/999"
        not_found = bad.call("save", {"insert": [{"id": "s", "entity": "Song", "values": {"title": "x", "album": missing}}]})["error"]
        assert not_found["code"] == NOT_FOUND and not_found["data"] == {"ids": [missing]}
        stale = bad.call("save", {"update": [{"id": scene.ids["s1"], "version": 7, "values": {"plays": 0}}]})["error"]
        assert stale["code"] == CONFLICT and stale["data"] == {"conflicts": [{"id": scene.ids["s1"], "expected": 7, "current": 1}]}
        scene.file_unchanged()
        assert bad.result("ping") == "pong"
    scene.finish()


# -- batches and notifications --------------------------------------------------------------


def test_a_batch_is_answered_in_order_leaving_out_notifications(scene: Scene) -> None:
    with scene.connect() as bad:
        batch: List[Any] = [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            42,
            {"jsonrpc": "2.0", "id": 2, "method": "nope"},
            {"jsonrpc": "2.0", "method": "save", "params": {"insert": [{"id": "n", "entity": "Tag", "values": {"label": "by notification"}}]}},
            {"jsonrpc": "2.0", "id": 3, "method": "fetch", "params": {"entity": "Tag", "predicate": "label == 'by notification'", "resultType": "count"}},
            {"jsonrpc": "2.0", "id": 4, "method": "save", "params": {"insert": [{"id": "u", "entity": "Song", "values": {}}]}},
            {"jsonrpc": "2.0", "id": 5, "method": "fetch", "params": {"entity": "Nope"}},
        ]
        bad.send_line(batch)
        answers = bad.read_message()
        assert isinstance(answers, list) and [a["id"] for a in answers] == [1, None, 2, 3, 4, 5]
        assert answers[0]["result"] == "pong"
        assert answers[1]["error"]["code"] == INVALID_REQUEST
        assert answers[2]["error"] == {"code": METHOD_NOT_FOUND, "message": answers[2]["error"]["message"], "data": {"method": "nope"}}
        assert answers[3]["result"] == {"count": 1}, "a request sees the notification before it"
        assert answers[4]["error"]["code"] == VALIDATION
        assert answers[5]["error"]["code"] == INVALID_PARAMS and answers[5]["error"]["data"]["path"] == "params.entity"
        saved = scene.other.result("fetch", {"entity": "Tag", "predicate": "label == 'by notification'", "resultType": "ids"})["ids"]
        assert len(saved) == 1
        scene.expected[reference_of(saved[0])[2]] = "Tag"
        scene.file_holds_exactly_the_saved_objects()
        scene.other_works()

        bad.send_line([{"jsonrpc": "2.0", "method": "ping"}, {"jsonrpc": "2.0", "method": "nope"}])   # only notifications
        bad.send_line("[]")
        empty = bad.read_message()
        assert empty["id"] is None and empty["error"]["code"] == INVALID_REQUEST, "nothing for the batch of notifications"
        bad.send_line('[{"jsonrpc":"2.0","id":6,"method":"ping"},')   # a batch that is not JSON
        check_parse_error(bad.read_message(), b'[{"jsonrpc":"2.0","id":6,"method":"ping"},')
        scene.file_unchanged()
        scene.other_works()
        assert bad.result("ping") == "pong"
    scene.finish()


def test_notifications_are_carried_out_and_never_answered_even_when_they_fail(scene: Scene) -> None:
    with scene.connect() as bad:
        notifications = [
            {"jsonrpc": "2.0", "method": "ping"},
            {"jsonrpc": "2.0", "method": "nope"},
            {"jsonrpc": "2.0", "method": "fetch", "params": {"entity": "Nope"}},
            {"jsonrpc": "2.0", "method": "save", "params": {"insert": [{"id": "u", "entity": "Song", "values": {}}]}},
            {"jsonrpc": "2.0", "method": "save", "params": {"update": [{"id": scene.ids["s1"], "version": 9, "values": {"plays": 1}}]}},
            {"jsonrpc": "2.0", "method": "save", "params": {"insert": [{"id": "n", "entity": "Tag", "values": {"label": "quiet"}}]}},
        ]
        bad.send(b"".join(encode_line(n) + b"\n" for n in notifications))
        assert bad.is_silent(0.3)
        assert bad.call("fetch", {"entity": "Tag", "predicate": "label == 'quiet'", "resultType": "ids"}, id="next")["id"] == "next"
        quiet = scene.other.result("fetch", {"entity": "Tag", "predicate": "label == 'quiet'", "resultType": "ids"})["ids"]
        assert len(quiet) == 1, "the good save was carried out"
        scene.expected[reference_of(quiet[0])[2]] = "Tag"
        scene.file_holds_exactly_the_saved_objects()
        assert scene.other.result("get", {"ids": [scene.ids["s1"]]})["objects"][0]["version"] == 1, "the failed ones were not"
        scene.other_works()
    scene.finish()


def test_bad_input_from_many_connections_at_once_leaves_the_other_client_working(scene: Scene) -> None:
    generator = random.Random(8)
    payloads = [garbage_line(generator, 3000) + b"\n" for _ in range(8)]
    failures: List[BaseException] = []

    def misbehave(payload: bytes) -> None:
        try:
            with scene.connect() as bad:
                for _ in range(20):
                    bad.send(payload)
                    check_parse_error(bad.read_message(), payload[:-1], 0)
                bad.send(HALF_SAVE)
        except BaseException as error:  # reported by the main thread
            failures.append(error)

    threads = [threading.Thread(target=misbehave, args=(p,)) for p in payloads]
    for thread in threads:
        thread.start()
    scene.other_works()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads) and failures == []
    scene.finish()


def test_escaped_line_breaks_in_strings_do_not_split_a_message(scene: Scene) -> None:
    # JSON escapes a newline in a string; the answer is one line too, and nothing follows it.
    with scene.connect() as bad:
        saved = bad.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": "two\nlines\r\u2028"}}]})
        scene.expected[reference_of(saved["ids"]["t"])[2]] = "Tag"
        bad.send_line(bad.request("get", {"ids": [saved["ids"]["t"]]}))
        line = bad.read_line()
        assert line is not None and b"\n" not in line
        assert json.loads(line)["result"]["objects"][0]["values"]["label"] == "two\nlines\r\u2028"
        assert bad.is_silent(0.1)
    scene.finish()


# -- limits and resources (PROTOCOL.md, Limits) --------------------------------------------

SERVER_BUSY, UNAUTHORIZED = -32008, -32004


def test_a_batch_over_max_batch_requests_is_refused_whole_and_runs_nothing(start_server: Any) -> None:
    scene = Scene(start_server(extra_args=["--max-batch-requests", "2"]))
    with scene.connect() as client:
        save = {"jsonrpc": "2.0", "id": 3, "method": "save",
                "params": {"insert": [{"id": "t", "entity": "Tag", "values": {"label": "batched"}}]}}
        client.send_line([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, save])
        answer = client.read_message()
        assert answer["id"] is None
        assert answer["error"]["code"] == TOO_LARGE
        assert answer["error"]["data"] == {"limit": 2, "what": "batch"}
        assert client.result("fetch", {"entity": "Tag", "resultType": "count"}) == {"count": 0}
    scene.file_unchanged()
    scene.finish()


def test_an_answer_over_max_answer_bytes_is_too_large_and_a_page_of_it_is_not(start_server: Any) -> None:
    scene = Scene(start_server(extra_args=["--max-answer-bytes", "2048"]))
    with scene.connect() as client:
        client.result("save", {"insert": [{"id": "t%d" % i, "entity": "Tag", "values": {"label": "x" * 300}} for i in range(10)]})
        client.send_line({"jsonrpc": "2.0", "id": 7, "method": "fetch", "params": {"entity": "Tag"}})
        answer = client.read_message()
        assert answer["id"] == 7
        assert answer["error"]["code"] == TOO_LARGE
        assert answer["error"]["data"] == {"limit": 2048, "what": "answer"}
        assert len(client.result("fetch", {"entity": "Tag", "limit": 3})["objects"]) == 3
    scene.other_works()


def test_past_max_connections_a_new_connection_gets_server_busy_and_is_closed(start_server: Any) -> None:
    server = start_server(extra_args=["--max-connections", "1"])
    with server.connect() as first:
        assert first.result("ping") == "pong"
        with server.connect(hello=False) as refused:
            answer = refused.read_message()
            assert answer["id"] is None
            assert answer["error"]["code"] == SERVER_BUSY
            assert answer["error"]["data"] == {"limit": 1}
            assert refused.read_until_closed() == b""
        assert first.result("ping") == "pong"
    assert server.stop() == 0


@pytest.mark.parametrize("token", [42, True, ["s3cret"], {"token": "s3cret"}])
def test_a_token_that_is_not_a_string_is_unauthorized_and_closes_the_connection(start_server: Any, token: Any) -> None:
    server = start_server(token="s3cret")
    with server.connect(hello=False) as client:
        client.send_line({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"token": token}})
        answer = client.read_message()
        assert answer["error"]["code"] == UNAUTHORIZED
        assert answer["error"]["data"] == {"reason": "wrong token"}
        assert client.read_until_closed() == b""
    assert server.stop() == 0
