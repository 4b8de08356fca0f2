"""Live changes through Python, against the real server: a subscription as an iterator and
with a callback, live queries whose results objects enter and leave, resuming with ``since``
after the subscriber was killed (nothing missed, nothing twice), pulled ``changes``, and
sessions that merge other clients' commits."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import docstore

SOURCE = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture
def client(server):
    with docstore.connect(server.host, server.port, client_name="ann") as client:
        yield client


@pytest.fixture
def other(server):
    with docstore.connect(server.host, server.port, client_name="bob") as other:
        yield other


def add_song(client, title, plays=0):
    s = client.session()
    song = s.insert("Song", title=title, plays=plays)
    s.save()
    return song


def set_plays(client, song_id, plays):
    s = client.session()
    [song] = s.get(song_id)
    song.plays = plays
    return s.save().seq


def test_a_subscription_yields_each_commit_with_its_author_and_values_on_its_own_connection(client, other):
    with client.subscribe("Song") as feed:
        assert feed.id == 1 and feed.seq == client.seq
        song = add_song(other, "So What", 7)
        change = feed.next(timeout=10)
        assert change is not None
        assert change.seq == feed.seq and change.author == "bob" and change.timestamp.endswith("Z")
        assert [item.id for item in change.inserted] == [song.id]
        assert change.inserted[0].values["title"] == "So What" and change.inserted[0].version == 1
        assert change.updated == [] and change.deleted == [] and change.removed == []
        # The client's own connection answers as before while the subscription is open.
        assert client.count("Song") == 1
        set_plays(client, song.id, 8)
        change = next(feed)
        assert change.author == "ann" and [item.values["plays"] for item in change.updated] == [8]
        s = other.session()
        s.delete(s.get(song.id)[0])
        s.save()
        assert next(feed).deleted == [song.id]
    assert not feed.is_open
    assert feed.next(timeout=0) is None


def test_a_subscription_watches_its_entity_only_and_can_leave_out_values(client, other):
    with client.subscribe("Song", include_values=False) as feed:
        s = other.session()
        s.insert("Tag", label="modal")
        s.save()
        song = add_song(other, "Blue in Green")
        change = feed.next(timeout=10)
        assert [item.id for item in change.inserted] == [song.id], "the Tag commit touched nothing watched"
        assert change.inserted[0].values is None and change.inserted[0].version == 1


def test_a_callback_subscription_runs_on_a_thread_until_closed(client, other):
    seen = queue.Queue()
    feed = client.subscribe("Song", callback=seen.put)
    try:
        first = add_song(other, "So What")
        second = add_song(other, "Freddie Freeloader")
        changes = [seen.get(timeout=10), seen.get(timeout=10)]
        assert [change.inserted[0].id for change in changes] == [first.id, second.id]
        assert changes[0].seq < changes[1].seq
    finally:
        feed.close()
    assert feed.join(5)
    add_song(other, "Blue in Green")
    assert client.count("Song") == 3
    with pytest.raises(queue.Empty):
        seen.get(timeout=0.3)


def test_a_live_query_sees_objects_enter_and_leave_its_result(client, other):
    quiet = add_song(other, "Quiet", 3)
    with client.subscribe("Song", "plays > %d", 10) as feed:
        loud = add_song(other, "Loud", 20)
        entered = feed.next(timeout=10)
        assert [item.id for item in entered.inserted] == [loud.id] and entered.removed == []
        set_plays(other, quiet.id, 11)
        change = feed.next(timeout=10)
        assert [item.id for item in change.inserted] == [quiet.id], "an update that makes it match enters the result"
        set_plays(other, loud.id, 25)
        change = feed.next(timeout=10)
        assert [item.id for item in change.updated] == [loud.id] and change.inserted == []
        set_plays(other, quiet.id, 1)
        change = feed.next(timeout=10)
        assert change.removed == [quiet.id] and change.updated == [] and change.deleted == []
        set_plays(other, quiet.id, 2)  # changes an object outside the result: nothing comes
        s = other.session()
        s.delete(s.get(loud.id)[0])
        s.save()
        change = feed.next(timeout=10)
        assert change.deleted == [loud.id]


def test_arguments_need_a_predicate_and_a_predicate_an_entity(client):
    with pytest.raises(ValueError):
        client.subscribe(None, "plays > 1")
    with pytest.raises(ValueError):
        client.subscribe("Song", None, 1)
    with pytest.raises(docstore.InvalidParamsError):
        client.subscribe("Song", "plays >")


SUBSCRIBER = textwrap.dedent("""
    import json, sys
    import docstore
    host, port, since = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    client = docstore.connect(host, port)
    with client.subscribe("Song", since=since) as feed:
        print(json.dumps({"start": feed.seq}), flush=True)
        for change in feed:
            print(json.dumps({"seq": change.seq, "titles": [item.values["title"] for item in change.inserted]}), flush=True)
""")


def start_subscriber(server, since):
    env = dict(os.environ, PYTHONPATH=str(SOURCE))
    process = subprocess.Popen([sys.executable, "-c", SUBSCRIBER, server.host, str(server.port), json.dumps(since)],
                               stdout=subprocess.PIPE, text=True, env=env)
    start = json.loads(process.stdout.readline())
    return process, start["start"]


def test_a_subscriber_killed_and_resumed_with_since_misses_nothing_and_sees_nothing_twice_across_a_restart(server, other):
    process, start = start_subscriber(server, None)
    seen = []
    try:
        for index in range(5):
            add_song(other, f"before {index}")
        for _ in range(3):
            seen.append(json.loads(process.stdout.readline()))
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        process.stdout.close()
    # Saves go on while no subscriber runs, and across a restart of the server.
    for index in range(5):
        add_song(other, f"after {index}")
    server.restart()  # on another port
    restarted = docstore.connect(server.host, server.port, client_name="bob")
    for index in range(3):
        add_song(restarted, f"restarted {index}")
    last = seen[-1]["seq"]
    process, resumed_at = start_subscriber(server, last)
    try:
        assert resumed_at == last
        final = restarted.seq
        while seen[-1]["seq"] < final:
            seen.append(json.loads(process.stdout.readline()))
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        process.stdout.close()
        restarted.close()
    seqs = [item["seq"] for item in seen]
    assert seqs == sorted(set(seqs)), "no commit twice, in order"
    titles = [title for item in seen for title in item["titles"]]
    assert titles == ([f"before {index}" for index in range(5)] + [f"after {index}" for index in range(5)]
                      + [f"restarted {index}" for index in range(3)])
    assert seqs[0] == start + 1 and len(seqs) == 13


def test_resuming_with_since_works_across_a_server_restart(server, client, other):
    for index in range(3):
        add_song(other, f"kept {index}")
    since = client.changes(0).changes[0].seq
    other.close()
    client.close()
    server.restart()
    with docstore.connect(server.host, server.port) as again:
        with again.subscribe("Song", since=since) as feed:
            titles = [feed.next(timeout=10).inserted[0].values["title"] for _ in range(2)]
    assert titles == ["kept 1", "kept 2"]


def test_changes_are_pulled_in_pages(client, other):
    start = client.seq
    for index in range(5):
        add_song(other, f"song {index}")
    batch = client.changes(start, limit=2)
    assert [len(change.inserted) for change in batch] == [1, 1] and batch.more
    titles = [change.inserted[0].values["title"] for change in batch]
    while batch.more:
        batch = client.changes(batch.seq, limit=2)
        titles += [change.inserted[0].values["title"] for change in batch]
    assert titles == [f"song {index}" for index in range(5)]
    assert batch.seq == client.seq or batch.seq == other.seq
    assert client.changes(batch.seq).changes == []
    tags = client.changes(start, entity="Tag")
    assert tags.changes == [] and not tags.more
    bare = client.changes(start, limit=1, include_values=False)
    assert bare.changes[0].inserted[0].values is None


def test_a_since_above_the_latest_commit_is_refused(client):
    with pytest.raises(docstore.InvalidParamsError):
        client.subscribe(since=client.seq + 100)
    with pytest.raises(docstore.InvalidParamsError):
        client.changes(client.seq + 100)


def test_history_expired_is_its_own_error_with_the_oldest_since(start_server):
    try:
        server = start_server(extra_args=["--history-commits", "2"])
    except Exception as error:  # support.ServerStartError
        if "--history-commits" not in str(error):
            raise
        pytest.skip("this docserver has no --history-commits option")
    with docstore.connect(server.host, server.port) as client:
        for index in range(5):
            add_song(client, f"song {index}")
        with pytest.raises(docstore.HistoryExpired) as raised:
            client.changes(0)
        assert raised.value.code == -32009 and raised.value.oldest == 3
        with pytest.raises(docstore.HistoryExpired):
            client.subscribe(since=0)


def test_the_history_expired_answer_becomes_history_expired_with_its_oldest_since():
    error = docstore.errors.error_from_response(
        {"code": -32009, "message": "history expired", "data": {"since": 1, "oldest": 5}})
    assert isinstance(error, docstore.HistoryExpired) and error.oldest == 5 and error.code == -32009


def test_a_session_merges_another_clients_commits(client, other):
    song = add_song(other, "So What", 7)
    tag = other.session()
    kept = tag.insert("Tag", label="modal")
    tag.save()
    mine = client.session()
    [held, held_tag] = mine.get(song.id, kept.id)
    with client.subscribe() as feed:
        set_plays(other, song.id, 8)
        mine.merge(feed.next(timeout=10))
        assert held.plays == 8 and held.version == 2 and not held.has_changes
        # Unsaved changes stay on top; the object counts as read at the new version.
        held.title = "So What (mine)"
        s = other.session()
        [theirs] = s.get(song.id)
        theirs.title = "So What (theirs)"
        theirs.plays = 9
        s.save()
        mine.merge(feed.next(timeout=10))
        assert held.title == "So What (mine)" and held.plays == 9 and held.version == 3
        mine.save()  # no conflict: only the title is sent, and this session's wins
        assert other.get(song.id)[0].title == "So What (mine)" and other.get(song.id)[0].plays == 9
        own = feed.next(timeout=10)
        mine.merge(own)  # the session's own commit changes nothing
        assert held.title == "So What (mine)"
        # A deleted object leaves the session.
        s = other.session()
        s.delete(s.get(kept.id)[0])
        s.save()
        mine.merge(feed.next(timeout=10))
        assert held_tag.is_deleted
        with pytest.raises(docstore.ObjectDeletedError):
            held_tag.label


def test_a_merging_session_shows_other_clients_saves_by_itself(client, other):
    song = add_song(other, "So What", 7)
    with client.session(merge_changes=True) as mine:
        [held] = mine.get(song.id)
        seq = set_plays(other, song.id, 8)
        deadline = threading.Event()
        for _ in range(200):
            if held.plays == 8:
                break
            deadline.wait(0.05)
        assert held.plays == 8 and held.version == 2
        assert seq is not None


def test_a_subscription_ends_with_a_connection_error_that_says_where_to_resume(server, client, other):
    feed = client.subscribe("Song")
    add_song(other, "So What")
    change = feed.next(timeout=10)
    server.kill()
    with pytest.raises(docstore.ConnectionError) as raised:
        feed.next(timeout=10)
    assert f"since={change.seq}" in str(raised.value)
    assert not feed.is_open


def test_a_subscriber_that_does_not_keep_up_gets_resync_required_and_resumes_with_since(client, other):
    feed = client.subscribe("Song")
    start = feed.seq
    text = "x" * 100_000
    saved = []
    for index in range(120):  # 12 MB of notifications, past the server's 4 MiB buffer and the socket's
        saved.append(add_song(other, f"{index} {text}").id)
    delivered = []
    with pytest.raises(docstore.ResyncRequired) as raised:
        while True:
            change = feed.next(timeout=10)
            assert change is not None
            delivered.append(change.seq)
    assert raised.value.seq == (delivered[-1] if delivered else start)
    assert not feed.is_open
    with client.subscribe("Song", since=raised.value.seq) as again:
        rest = [again.next(timeout=10).seq for _ in range(len(saved) - len(delivered))]
    assert delivered + rest == list(range(start + 1, start + 1 + len(saved)))


def test_an_idle_subscription_outlives_the_servers_idle_timeout(start_server):
    server = start_server(extra_args=["--idle-timeout", "1"])
    with docstore.connect(server.host, server.port) as client:
        with client.subscribe("Song", keepalive=0.3) as feed:
            assert feed.next(timeout=2.5) is None and feed.is_open
            with docstore.connect(server.host, server.port) as writer:  # the client's own connection timed out
                song = add_song(writer, "So What")
            assert feed.next(timeout=10).inserted[0].id == song.id
