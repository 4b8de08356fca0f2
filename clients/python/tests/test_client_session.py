"""Sessions as a unit of work through Python: insert, fetch with predicates and sorting,
update, delete; relationships that navigate and fault in; inverses and delete rules applied
by the server and visible to Python; rollback and refresh."""

from __future__ import annotations

import pytest

import docstore


@pytest.fixture
def client(server):
    with docstore.connect(server.host, server.port) as client:
        yield client


def make_catalog(client):
    s = client.session()
    miles = s.insert("Artist", name="Miles Davis", country="US")
    kob = s.insert("Album", title="Kind of Blue", artist=miles)
    s.insert("Song", title="So What", plays=7, album=kob)
    s.insert("Song", title="Freddie Freeloader", plays=3, album=kob)
    s.insert("Song", title="Blue in Green", plays=12, album=kob)
    s.insert("Song", title="blue rondo", plays=5)
    s.save()
    return s, miles, kob


def test_insert_assigns_permanent_ids_and_versions(client):
    s = client.session()
    tag = s.insert("Tag", label="modal")
    assert tag.id is None and tag.is_inserted and s.has_changes
    result = s.save()
    assert isinstance(tag.id, docstore.ObjectID) and tag.id.startswith("graph://")
    assert tag.id.entity == "Tag"
    assert tag.version == 1 and not tag.is_inserted and not s.has_changes
    assert list(result["ids"].values()) == [tag.id]
    assert s.object(tag.id) is tag  # one object per ID in a session


def test_fetch_with_predicates_sort_limit_and_offset(client):
    make_catalog(client)
    titles = lambda objects: [o.title for o in objects]  # noqa: E731
    assert titles(client.fetch("Song", "plays >= %d", 5, sort="-plays")) == ["Blue in Green", "So What", "blue rondo"]
    assert titles(client.fetch("Song", "title BEGINSWITH[c] %@", "blue", sort="title")) == ["Blue in Green", "blue rondo"]
    assert titles(client.fetch("Song", "album.artist.name == %@", "Miles Davis", sort=["plays"])) == [
        "Freddie Freeloader", "So What", "Blue in Green"]
    assert titles(client.fetch("Song", sort=docstore.Sort("title", case_insensitive=True), limit=2, offset=1)) == [
        "blue rondo", "Freddie Freeloader"]
    assert titles(client.fetch("Song", "album == nil")) == ["blue rondo"]
    assert client.count("Song") == 4
    assert client.count("Album", "songs.@count == 3") == 1
    assert len(client.fetch_ids("Song", "plays < 10")) == 3


def test_update_sends_only_the_change_and_bumps_the_version(client):
    _, _, kob = make_catalog(client)
    s = client.session()
    [song] = s.fetch("Song", "title == %@", "So What")
    assert song.version == 1
    song.plays += 1
    song["rating"] = 4.5
    assert song.changed_keys == ["plays", "rating"] and s.updated == [song]
    s.save()
    assert song.version == 2
    again = client.get(song.id)[0]
    assert (again.plays, again.rating, again.version) == (8, 4.5, 2)
    assert again.album.id == kob.id  # untouched by the update


def test_relationships_navigate_and_fault_in(client):
    make_catalog(client)
    s = client.session()
    [album] = s.fetch("Album")
    songs = album.songs
    assert isinstance(songs, docstore.RelatedList) and len(songs) == 3
    assert all(song.is_fault for song in songs)
    assert songs[0].title == "So What"  # one get loads the faults together
    assert not any(song.is_fault for song in songs)
    assert [song.title for song in songs] == ["So What", "Freddie Freeloader", "Blue in Green"]  # ordered
    assert songs[0].album is album
    assert album.artist.name == "Miles Davis"
    assert album.artist.albums == [album]


def test_setting_a_relationship_updates_the_inverse_on_save(client):
    _, _, kob = make_catalog(client)
    s = client.session()
    [rondo] = s.fetch("Song", "title == 'blue rondo'")
    album = s.object(kob.id)
    assert rondo not in album.songs
    rondo.album = album
    s.save()
    assert rondo in album.songs  # the server kept the inverse; the album was re-read
    assert album.songs[-1] is rondo
    assert client.count("Song", "album.title == 'Kind of Blue'") == 4


def test_to_many_lists_change_like_lists(client):
    s = client.session()
    song = s.insert("Song", title="So What")
    modal, jazz, cool = (s.insert("Tag", label=label) for label in ("modal", "jazz", "cool"))
    song.tags.append(modal)
    song.tags.extend([jazz, cool])
    song.tags.append(modal)  # already there: nothing happens
    song.tags.remove(cool)
    s.save()
    assert sorted(tag.label for tag in song.tags) == ["jazz", "modal"]
    assert [s2.title for s2 in modal.songs] == ["So What"]  # inverse, from the server
    assert cool.songs == []
    song.tags = [cool]
    s.save()
    assert [tag.label for tag in song.tags] == ["cool"] and modal.songs == []


def test_delete_with_cascade_removes_the_songs(client):
    _, miles, kob = make_catalog(client)
    s = client.session()
    album = s.object(kob.id)
    songs = list(album.songs)
    artist = album.artist
    s.delete(album)
    assert album.is_deleted and s.deleted == [album]
    result = s.save()
    assert set(result["deleted"]) == {kob.id} | {song.id for song in songs}
    assert all(song.is_deleted for song in songs)
    with pytest.raises(docstore.ObjectDeletedError):
        songs[0].title
    assert artist.albums == []  # nullified by the inverse, and re-read
    assert client.count("Song") == 1
    assert client.get(kob.id) == [None]


def test_deny_rule_is_a_validation_error_and_nothing_is_saved(client):
    _, miles, _ = make_catalog(client)
    s = client.session()
    artist = s.object(miles.id)
    s.delete(artist)
    with pytest.raises(docstore.ValidationError) as refused:
        s.save()
    assert refused.value.code == -32002
    [failure] = refused.value.failures
    assert (failure.entity, failure.key) == ("Artist", "albums")
    assert s.has_changes  # the session keeps its changes
    s.rollback()
    assert not artist.is_deleted and not s.has_changes
    assert client.count("Artist") == 1


def test_a_missing_required_value_names_the_object(client):
    s = client.session()
    s.insert("Tag", label="ok")
    untitled = s.insert("Song", plays=1)
    with pytest.raises(docstore.ValidationError) as refused:
        s.save()
    assert [(f.id, f.key) for f in refused.value.failures] == [(untitled._temporary_id, "title")]
    untitled.title = "Now titled"
    s.save()
    assert client.count("Song") == 1 and client.count("Tag") == 1


def test_relating_to_an_object_deleted_elsewhere_is_not_found(client):
    _, _, kob = make_catalog(client)
    s = client.session()
    album = s.object(kob.id)
    album.title  # loaded, so the session does not know it is gone
    other = client.session()
    other.delete(other.object(kob.id))
    other.save()
    s.insert("Song", title="orphan", album=album)
    with pytest.raises(docstore.NotFoundError) as missing:
        s.save()
    assert missing.value.ids == [kob.id]


def test_rollback_and_refresh_forget_changes(client):
    s, _, kob = make_catalog(client)
    album = s.object(kob.id)
    album.title = "Changed"
    inserted = s.insert("Tag", label="gone")
    s.rollback()
    assert album.title == "Kind of Blue" and not s.has_changes and inserted.is_deleted
    album.title = "Changed again"
    s.refresh(album)
    assert album.title == "Kind of Blue" and album.version == 1


def test_a_with_block_saves_on_success_and_forgets_on_error(client):
    with client.session() as s:
        s.insert("Tag", label="kept")
    with pytest.raises(RuntimeError):
        with client.session() as s:
            s.insert("Tag", label="dropped")
            raise RuntimeError("changed my mind")
    assert [tag.label for tag in client.fetch("Tag")] == ["kept"]


def test_objects_of_another_session_are_refused(client):
    first, second = client.session(), client.session()
    album = first.insert("Album", title="A")
    with pytest.raises(docstore.ValueConversionError, match="another session"):
        second.insert("Song", title="x", album=album)
    first.save()
    song = second.insert("Song", title="x", album=second.object(album))
    second.save()
    assert song.album.id == album.id


def test_faulting_many_objects_takes_few_round_trips(client):
    s = client.session()
    album = s.insert("Album", title="Long")
    for n in range(250):
        s.insert("Song", title=f"track {n}", plays=n, album=album)
    s.save()
    calls = []
    reader = client.session(prefetch=100)
    original = client._connection.call

    def counting(method, params=None):
        calls.append(method)
        return original(method, params)

    client._connection.call = counting
    [album] = reader.fetch("Album")
    assert sum(song.plays for song in album.songs) == sum(range(250))
    assert calls == ["fetch", "get", "get", "get"]  # 250 faults in batches of 100


def test_changes_through_any_read_of_a_to_many_add_up(client):
    s = client.session()
    song = s.insert("Song", title="So What")
    s.save()
    first = song.tags
    song.tags.append(s.insert("Tag", label="a"))
    first.append(s.insert("Tag", label="b"))
    s.save()
    assert sorted(tag.label for tag in song.tags) == ["a", "b"]
    song.tags.clear()
    s.rollback()
    assert len(song.tags) == 2
