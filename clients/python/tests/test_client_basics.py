"""The client's connection: connect, hello, ping, model, auth, dropped connections, errors
raised as the documented exceptions."""

from __future__ import annotations

import socket
import threading
import uuid

import pytest

import docstore


def test_connect_says_hello_and_pings(server):
    with docstore.connect(server.host, server.port) as client:
        assert client.ping() > 0
        info = client.server_info
        assert info["server"] == "docserver"
        assert info["protocol"] == 1
        assert len(client.model_hash) == 64
        assert str(uuid.UUID(client.store_uuid)) == client.store_uuid


def test_model_describes_the_sample_model(server):
    with docstore.connect(server.host, server.port) as client:
        model = client.model()
        assert sorted(model) == ["Album", "Artist", "Song", "Tag"]
        songs = model["Album"].property("songs")
        assert songs.to_many and songs.ordered and songs.inverse == "album" and songs.delete_rule == "cascade"
        plays = model["Song"].property("plays")
        assert plays.type == "int64" and plays.default == 0
        with pytest.raises(docstore.ModelError, match="no property 'lyrics'"):
            model["Song"].property("lyrics")
        with pytest.raises(LookupError, match="no entity 'Band'"):
            model["Band"]


def test_connecting_to_a_closed_port_is_a_connection_error():
    port = free_port()
    with pytest.raises(docstore.ConnectionError, match=f"cannot connect to 127.0.0.1:{port}"):
        docstore.connect("127.0.0.1", port, timeout=2)
    with pytest.raises(ConnectionError):  # the built-in one catches it too
        docstore.connect("127.0.0.1", port, timeout=2)


def test_token_is_required_and_checked(start_server):
    server = start_server(token="s3cret")
    with docstore.connect(server.host, server.port, token="s3cret") as client:
        assert client.count("Song") == 0
    with pytest.raises(docstore.AuthError) as wrong:
        docstore.connect(server.host, server.port, token="guess")
    assert wrong.value.code == -32004
    with pytest.raises(docstore.AuthError):
        docstore.connect(server.host, server.port)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_server_restart_is_survived_by_reconnecting(start_server):
    server = start_server(extra_args=("--port", str(free_port())))  # the same port after restart
    client = docstore.connect(server.host, server.port)
    s = client.session()
    s.insert("Tag", label="before")
    s.save()
    server.stop()
    with pytest.raises(docstore.ConnectionError):
        client.count("Tag")
    server.restart()
    assert [tag.label for tag in client.fetch("Tag")] == ["before"]  # reconnected on its own
    client.close()
    assert client.count("Tag") == 1  # a call after close() opens a new connection


def test_dropped_connection_raises_and_the_next_call_reconnects(server):
    client = docstore.connect(server.host, server.port)
    client._connection._reader.socket.shutdown(socket.SHUT_RDWR)  # as if the network dropped it
    with pytest.raises(docstore.ConnectionError, match="during ping"):
        client.ping()
    assert client.ping() > 0


def test_server_errors_become_exceptions_with_code_and_data(server):
    with docstore.connect(server.host, server.port) as client:
        with pytest.raises(docstore.InvalidParamsError) as bad_predicate:
            client.fetch("Song", "title ==")
        error = bad_predicate.value
        assert error.code == -32602
        assert error.path == "params.predicate"
        assert error.position is not None
        with pytest.raises(docstore.ProtocolError) as unknown:
            client.call("explode")
        assert unknown.value.code == -32601 and unknown.value.data == {"method": "explode"}
        assert client.ping() > 0  # the connection is still usable


def test_a_client_is_shared_by_threads(server):
    with docstore.connect(server.host, server.port) as client:
        failures = []

        def work(n):
            try:
                for i in range(20):
                    s = client.session()
                    s.insert("Tag", label=f"t{n}-{i}")
                    s.save()
                    assert client.count("Tag", "label BEGINSWITH %@", f"t{n}-") == i + 1
            except Exception as error:  # noqa: BLE001 - reported below
                failures.append(error)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        assert client.count("Tag") == 80


def test_pipelined_requests_to_the_real_server_each_get_their_own_answer(server):
    with docstore.connect(server.host, server.port) as client:
        s = client.session()
        for n in range(10):
            s.insert("Tag", label=f"tag{n}")
        s.save()
        pending = [client.submit("fetch", {"entity": "Tag", "predicate": "label == %@", "arguments": [f"tag{n}"],
                                           "resultType": "count"}) for n in range(10)]
        pending += [client.submit("fetch", {"entity": "Tag", "predicate": "label BEGINSWITH %@",
                                            "arguments": ["tag"], "resultType": "count"})]
        assert [call.result() for call in reversed(pending)] == [{"count": 10}] + [{"count": 1}] * 10
        assert client.next_notification() is None, "the server sends no notifications yet"


def test_a_fetch_past_the_time_limit_raises_time_limit_error_and_the_client_goes_on(start_server):
    server = start_server(extra_args=("--request-time-limit", "0.05"))
    with docstore.connect(server.host, server.port) as client:
        s = client.session()
        for _ in range(20):
            s.insert("Song", title="a" * 100_000, plays=1)
        s.save()
        slow = "title MATCHES '" + ".*" * 40 + "b'"
        with pytest.raises(docstore.TimeLimitError) as caught:
            client.count("Song", slow)
        assert caught.value.code == -32007
        assert caught.value.data["entity"] == "Song"
        assert client.count("Song", "plays == 1") == 20


def test_hello_and_saves_tell_the_commit_number(server):
    with docstore.connect(server.host, server.port) as client:
        assert client.server_info["seq"] == 0
        assert client.seq == 0
        s = client.session()
        album = s.insert("Album", title="Kind of Blue")
        first = s.save()
        assert first.seq == 1 and first["seq"] == 1
        assert client.seq == 1
        album.title = "Sketches of Spain"
        assert s.save().seq == 2
        assert s.save().seq is None  # nothing to send: no commit
        assert client.seq == 2
    with docstore.connect(server.host, server.port) as other:
        assert other.seq == 2
