"""Values cross the wire with their Python types: dates, decimals, binary, UUIDs, doubles
(NaN and infinities), 64-bit integers, Unicode; bad values are refused before sending."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal

import pytest

import docstore

UTC = dt.timezone.utc


def test_every_attribute_type_comes_back_with_its_python_type(server):
    released = dt.datetime(1959, 8, 17, 12, 30, 0, 250000, tzinfo=UTC)
    uid = uuid.UUID("6b3a0c2e-5d1f-4e8a-9c7b-1f2e3d4c5b6a")
    cover = bytes(range(256))
    with docstore.connect(server.host, server.port) as client:
        s = client.session()
        album = s.insert("Album", title="Kind of Blue ✓", released=released, price=Decimal("9.99"), cover=cover)
        s.insert("Song", title="So What", plays=2 ** 63 - 1, rating=4.25, uid=uid, album=album)
        s.save()

        fresh = client.session()
        [song] = fresh.fetch("Song")
        assert song.plays == 2 ** 63 - 1 and type(song.plays) is int
        assert song.rating == 4.25 and type(song.rating) is float
        assert song.uid == uid and isinstance(song.uid, uuid.UUID)
        assert song.title == "So What"
        album = song.album
        assert album.title == "Kind of Blue ✓"
        assert album.released == released and album.released.tzinfo is not None
        assert album.price == Decimal("9.99") and isinstance(album.price, Decimal)
        assert album.cover == cover and isinstance(album.cover, bytes)


def test_dates_keep_milliseconds_and_any_time_zone(server):
    paris = dt.timezone(dt.timedelta(hours=2))
    with docstore.connect(server.host, server.port) as client:
        s = client.session()
        album = s.insert("Album", title="A", released=dt.datetime(2024, 5, 1, 14, 30, 0, 123456, tzinfo=paris))
        s.save()
        assert client.get(album.id)[0].released == dt.datetime(2024, 5, 1, 12, 30, 0, 123000, tzinfo=UTC)


def test_special_doubles_and_defaults(server):
    with docstore.connect(server.host, server.port) as client:
        s = client.session()
        nan = s.insert("Song", title="nan", rating=float("nan"))
        inf = s.insert("Song", title="inf", rating=float("-inf"))
        assert nan.plays == 0  # the model's default, before saving
        s.save()
        read = client.session()
        assert math.isnan(read.get(nan.id)[0].rating)
        assert read.get(inf.id)[0].rating == float("-inf")
        assert read.get(nan.id)[0].plays == 0


def test_predicate_arguments_of_every_type(server):
    with docstore.connect(server.host, server.port) as client:
        s = client.session()
        uid = uuid.uuid4()
        kob = s.insert("Album", title="Kind of Blue", released=dt.datetime(1959, 8, 17, tzinfo=UTC), price=Decimal("9.99"))
        s.insert("Album", title="Bitches Brew", released=dt.datetime(1970, 3, 30, tzinfo=UTC), price=Decimal("12.50"))
        s.insert("Song", title="So What", uid=uid, album=kob, plays=7)
        s.insert("Song", title="Blue in Green", album=kob, plays=12)
        s.save()
        assert [a.title for a in client.fetch("Album", "released < %@", dt.datetime(1960, 1, 1, tzinfo=UTC))] == ["Kind of Blue"]
        assert [a.title for a in client.fetch("Album", "price > %@", Decimal("10"))] == ["Bitches Brew"]
        assert [x.title for x in client.fetch("Song", "uid == %@", uid)] == ["So What"]
        assert client.count("Song", "album == %@", kob) == 2
        assert client.count("Song", "album == %@", kob.id) == 2
        assert client.count("Song", "plays IN %@", [7, 12, 99]) == 2
        assert client.count("Song", "title IN %@", ("So What",)) == 1
        assert client.count("Song", "%K > %d", "plays", 10) == 1


def test_wrong_python_types_are_refused_before_sending(server):
    with docstore.connect(server.host, server.port) as client:
        s = client.session()
        song = s.insert("Song", title="x")
        with pytest.raises(docstore.ValueConversionError, match="Song.plays: expected an int"):
            song.plays = "seven"
        with pytest.raises(TypeError):
            song.plays = 1.5
        with pytest.raises(docstore.ValueConversionError, match="out of the range of int64"):
            song.plays = 2 ** 63
        with pytest.raises(docstore.ValueConversionError, match="naive datetime"):
            s.insert("Album", title="y", released=dt.datetime(2020, 1, 1))
        with pytest.raises(docstore.ValueConversionError, match="float cannot hold most decimals"):
            s.insert("Album", title="y", price=9.99)
        with pytest.raises(docstore.ValueConversionError, match="not a UUID"):
            song.uid = "not-a-uuid"
        with pytest.raises(docstore.ValueConversionError, match="holds Album objects, not Tag"):
            song.album = s.insert("Tag", label="t")
        with pytest.raises(AttributeError, match="no property 'lyrics'"):
            song.lyrics = "la la"
        with pytest.raises(docstore.ModelError, match="no property 'lyrics'"):
            song["lyrics"]
        with pytest.raises(docstore.ModelError, match="no entity 'Band'"):
            s.insert("Band", name="x")
        with pytest.raises(docstore.ValueConversionError, match="predicate argument cannot be a dict"):
            client.fetch("Song", "title == %@", {"a": 1})
        assert song.plays == 0 and song.title == "x"  # nothing of the refused values stuck


def test_numbers_and_dates_past_what_python_holds_are_conversion_errors_not_overflow():
    from docstore import values

    with pytest.raises(docstore.ValueConversionError, match="too large for a double"):
        values.double_to_wire(10**400)
    with pytest.raises(docstore.ValueConversionError, match="too large for a double"):
        values._double_from_wire(10**400)
    with pytest.raises(docstore.ValueConversionError, match="outside the years"):
        values.parse_date("9999-12-31T23:00:00.000-05:00")
    with pytest.raises(docstore.ValueConversionError, match="outside the years"):
        values.parse_date("0001-01-01T01:00:00.000+05:00")
    assert values.parse_date("9999-12-31T23:00:00.000+05:00").year == 9999
