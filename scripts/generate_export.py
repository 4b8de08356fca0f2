#!/usr/bin/env python3
"""Writes an export (docs/OPERATIONS.md, "Export and import") of the sample model with N objects
to standard output, for timing `docserver import` and `docserver export`:

    python3 scripts/generate_export.py HEADER_LINE_FILE 1000000 > big.ndjson

HEADER_LINE_FILE holds the header line of any export of the sample model (its hashes); the
objects are 1 % artists, 10 % albums (each of an artist), the rest songs (each on an album),
with both sides of every relationship filled as a store holds them."""
import json
import sys


def main():
    header = json.loads(open(sys.argv[1], encoding="utf-8").readline())
    total = int(sys.argv[2])
    uuid = header["storeUUID"]
    header["commitSequence"] = 0
    out = sys.stdout
    out.write(json.dumps(header, separators=(",", ":")) + "\n")
    artists = max(1, total // 100)
    albums = max(1, total // 10)
    songs = max(0, total - artists - albums)
    # References: artists 1..A, albums A+1..A+B, songs after.
    def rid(entity, ref):
        return "graph://%s/%s/%d" % (uuid, entity, ref)
    album_of_song = lambda s: artists + 1 + (s % albums)
    songs_by_album = [[] for _ in range(albums)]
    first_song = artists + albums + 1
    for s in range(songs):
        songs_by_album[s % albums].append(first_song + s)
    for b in range(albums):
        ref = artists + 1 + b
        artist = 1 + (b % artists)
        out.write(json.dumps({"id": rid("Album", ref), "entity": "Album", "version": 1, "values": {
            "title": "Album %d" % b, "released": "1971-06-22T00:00:00.000Z", "price": "9.99", "cover": None,
            "artist": rid("Artist", artist), "songs": [rid("Song", s) for s in songs_by_album[b]]}},
            separators=(",", ":"), ensure_ascii=False) + "\n")
    for a in range(artists):
        ref = 1 + a
        out.write(json.dumps({"id": rid("Artist", ref), "entity": "Artist", "version": 1, "values": {
            "name": "Artist %d" % a, "country": "US",
            "albums": [rid("Album", artists + 1 + b) for b in range(a, albums, artists)]}},
            separators=(",", ":"), ensure_ascii=False) + "\n")
    for s in range(songs):
        ref = first_song + s
        out.write(json.dumps({"id": rid("Song", ref), "entity": "Song", "version": 1, "values": {
            "title": "Song number %d, a title of some length" % s, "plays": s % 1000, "rating": (s % 50) / 10.0,
            "uid": None, "album": rid("Album", album_of_song(s)), "tags": []}},
            separators=(",", ":"), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
