"""``after`` on reads (docs/PROTOCOL.md, Reading after a save): a read that names a save's
``seq`` holds that commit. On a store only one server writes, every answered save is applied
already, so a ``seq`` beyond the last commit is one that was never made: ``NotCaughtUp`` at
once, naming both numbers, and the connection goes on."""

from __future__ import annotations

import time

import pytest

import docstore


def test_a_read_after_a_saves_seq_holds_the_save(server):
    with docstore.connect(server.host, server.port) as client:
        session = client.session()
        session.insert("Tag", label="first")
        saved = session.save()
        assert isinstance(saved.seq, int) and saved.seq > 0
        assert [tag["label"] for tag in client.fetch("Tag", after=saved.seq)] == ["first"]
        assert client.count("Tag", "label == %@", "first", after=saved.seq) == 1
        ids = client.fetch_ids("Tag", after=0)
        assert [obj["label"] for obj in client.get(*ids, after=saved.seq)] == ["first"]


def test_an_after_no_commit_has_reached_is_not_caught_up_at_once(server):
    with docstore.connect(server.host, server.port) as client:
        session = client.session()
        session.insert("Tag", label="only")
        saved = session.save()
        started = time.monotonic()
        with pytest.raises(docstore.NotCaughtUp) as raised:
            client.fetch("Tag", after=saved.seq + 5)
        assert time.monotonic() - started < 0.5, "a store only this server writes has nothing to wait for"
        assert raised.value.code == -32010
        assert raised.value.after == saved.seq + 5 and raised.value.applied == saved.seq
        assert "no such commit has been made" in str(raised.value)
        with pytest.raises(docstore.NotCaughtUp):
            client.get(*client.fetch_ids("Tag"), after=saved.seq + 1)
        assert client.count("Tag") == 1


@pytest.mark.parametrize("after", [-1, "3", 1.5, True, [1]])
def test_an_after_that_is_not_a_seq_is_refused_by_the_client_and_by_the_server(server, after):
    with docstore.connect(server.host, server.port) as client:
        with pytest.raises(ValueError, match="after must be the seq of a commit"):
            client.fetch("Tag", after=after)
        with pytest.raises(docstore.InvalidParamsError, match=r"params\.after: must be the seq of a commit"):
            client.call("get", {"ids": [], "after": after})
