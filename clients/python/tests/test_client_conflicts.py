"""Two Python clients editing the same objects: optimistic locking by version, a
ConflictError with the ids and versions, retry after re-reading."""

from __future__ import annotations

import pytest

import docstore


def test_second_writer_gets_a_conflict_then_retries(server):
    with docstore.connect(server.host, server.port) as alice, docstore.connect(server.host, server.port) as bob:
        setup = alice.session()
        song = setup.insert("Song", title="So What", plays=0)
        setup.save()

        a, b = alice.session(), bob.session()
        song_a, song_b = a.object(song.id), b.object(song.id)
        song_a.plays += 1
        song_b.plays += 10
        a.save()
        with pytest.raises(docstore.ConflictError) as conflict:
            b.save()
        error = conflict.value
        assert error.code == -32001
        assert error.conflicts == [docstore.Conflict(song.id, 1, 2)]
        assert error.ids == [song.id]
        assert "nothing was saved" in str(error)

        b.refresh(song_b)  # re-read, then redo the change
        assert (song_b.plays, song_b.version) == (1, 2)
        song_b.plays += 10
        b.save()
        assert song_b.version == 3
        assert alice.get(song.id)[0].plays == 11


def test_deleted_meanwhile_is_a_conflict_with_no_current_version(server):
    with docstore.connect(server.host, server.port) as alice, docstore.connect(server.host, server.port) as bob:
        setup = alice.session()
        tag = setup.insert("Tag", label="modal")
        setup.save()
        b = bob.session()
        tag_b = b.object(tag.id)
        tag_b.label = "Modal"
        setup.delete(tag)
        setup.save()
        with pytest.raises(docstore.ConflictError) as conflict:
            b.save()
        assert conflict.value.conflicts == [docstore.Conflict(tag.id, 1, None)]
        b.refresh(tag_b)
        assert tag_b.is_deleted


def test_a_failed_save_applies_nothing(server):
    with docstore.connect(server.host, server.port) as alice, docstore.connect(server.host, server.port) as bob:
        setup = alice.session()
        first = setup.insert("Song", title="one")
        second = setup.insert("Song", title="two")
        setup.save()
        b = bob.session()
        b.object(first.id).title = "ONE"
        b.object(second.id).title = "TWO"
        first.title = "uno"
        setup.save()
        with pytest.raises(docstore.ConflictError):
            b.save()
        assert sorted(song.title for song in alice.fetch("Song")) == ["two", "uno"]
