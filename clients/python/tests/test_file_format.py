"""The store file across languages (docs/FILE_FORMAT.md, docs/store.schema.json, docs/MODEL.md).

- A file the server wrote after saves over the socket, read with Python's ``json``: its
  structure, the documented order of every key, the written forms of every value type,
  references matching the IDs the server returned, inverses on both sides, ``nextReference``,
  the version hashes (computed here from the model as MODEL.md describes), deterministic
  output, and exactly the saved objects with their versions. Validated against
  store.schema.json with the ``jsonschema`` package (a test-only dependency), and read by
  ``store_file.py``'s checking reader.
- Files written from scratch by Python (``store_file.py``, from the documents alone) for the
  sample model and for a model with inheritance, self-inverse and inverse-less relationships
  and every attribute type: the server serves them (fetch with predicates and sorting, the
  right types, relationships and versions), saves into them writing what the Python writer
  would write, and still serves everything after a restart. A file using the leniency the
  document allows (any key order, whitespace, missing keys, a low ``nextReference``, other
  date offsets, integers for decimals and doubles, escaped surrogate pairs) is read and
  rewritten in the canonical form. The lock file keeps a Python writer and the server apart.
- Damaged or foreign files (truncated, another format or version, another model, wrong
  values, sides that disagree, dangling references): the server refuses to start, names the
  problem (the byte offset for a truncated file), and leaves the file as it was.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

import pytest

try:
    import jsonschema
except ImportError as missing:
    raise ImportError("the store file tests check docs/store.schema.json with the jsonschema package: "
                      "python3 -m pip install jsonschema (scripts/test.sh installs it)") from missing

from store_file import (
    apply_journal,
    read_journal,
    DATE_PATTERN,
    HASH_PATTERN,
    UUID_PATTERN,
    Model,
    build_store,
    objects_by_ref,
    read_graph,
    reference_of,
    serialize,
    wire_to_file_values,
    write_store_file,
)
from support import RawConnection, ServerProcess, ServerStartError, file_bytes, load_json_strict

REPO_ROOT = Path(__file__).resolve().parents[3]
SCHEMA_PATH = REPO_ROOT / "docs" / "store.schema.json"
SAMPLE_MODEL_PATH = REPO_ROOT / "Sources" / "docserver" / "Resources" / "sample.model.json"

COVER = bytes(range(256))  # every byte value: base64 with '+', '/' and padding
SONG_UID = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"  # sent in upper case, stored in lower case


# -- helpers --------------------------------------------------------------------------------


def read_store(path: Path, model: Optional[Model] = None) -> Dict[str, Any]:
    """The store file parsed with ``json`` (a key given twice is an error); with ``model``,
    the live store: the snapshot with the records of its journal applied (FILE_FORMAT.md,
    "Reading a live store from another program")."""
    document = load_json_strict(path.read_bytes())
    journal = Path(f"{path}-journal")
    if model is not None and journal.exists():
        document, torn = apply_journal(model, document, journal.read_bytes(), journal)
        assert torn == 0, "a running server leaves no torn record"
    return document


def check_schema(document: Mapping[str, Any]) -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(document)


def object_id(store_uuid: str, entity: str, ref: int) -> str:
    return "graph://%s/%s/%d" % (store_uuid, entity, ref)


def file_to_wire(model: Model, document: Mapping[str, Any]) -> Dict[str, Dict[str, Any]]:
    """Every object of a store file as the server should send it, by ID."""
    store_uuid = document["metadata"]["storeUUID"]
    by_ref = objects_by_ref(document)
    result: Dict[str, Dict[str, Any]] = {}
    for ref, (entity, o) in by_ref.items():
        values: Dict[str, Any] = {}
        for key, value in o["values"].items():
            p = model.property(entity, key)
            if p["kind"] == "relationship":
                if p.get("toMany", False):
                    value = [object_id(store_uuid, by_ref[r][0], r) for r in value]
                elif value is not None:
                    value = object_id(store_uuid, by_ref[value][0], value)
            values[key] = value
        identifier = object_id(store_uuid, entity, ref)
        result[identifier] = {"id": identifier, "entity": entity, "version": o["version"], "values": values}
    return result


def fetch_everything(connection: RawConnection, model: Model) -> Dict[str, Dict[str, Any]]:
    """Every object the server holds, by ID (one fetch per concrete entity)."""
    result: Dict[str, Dict[str, Any]] = {}
    for name in model.entities:
        if model.is_abstract(name):
            continue
        answer = connection.result("fetch", {"entity": name, "includeSubentities": False})
        for o in answer["objects"]:
            result[o["id"]] = o
    return result


def wire_to_document_objects(model: Model, objects: Mapping[str, Mapping[str, Any]]) -> Dict[str, List[Dict[str, Any]]]:
    """Objects from the wire in the ``objects`` shape of a store file."""
    grouped: Dict[str, List[Dict[str, Any]]] = {}
    for identifier, o in objects.items():
        ref = reference_of(identifier)[2]
        grouped.setdefault(o["entity"], []).append(
            {"ref": ref, "version": o["version"], "values": wire_to_file_values(model, o["entity"], o["values"])}
        )
    return grouped


def check_inverses(model: Model, document: Mapping[str, Any]) -> None:
    """Both sides of every relationship with an inverse agree; every ref exists and has the
    destination's entity (or a sub-entity)."""
    by_ref = objects_by_ref(document)
    for ref, (entity, o) in by_ref.items():
        for p in model.properties(entity):
            if p["kind"] != "relationship":
                continue
            value = o["values"][p["name"]]
            targets = value if p.get("toMany", False) else ([] if value is None else [value])
            for target in targets:
                assert target in by_ref, "%s %d.%s names ref %d, which is not in the file" % (entity, ref, p["name"], target)
                target_entity, target_object = by_ref[target]
                assert model.is_kind_of(target_entity, p["destination"]), (entity, ref, p["name"], target_entity)
                inverse = p.get("inverse")
                if inverse is None:
                    continue
                back = target_object["values"][inverse]
                back_refs = back if isinstance(back, list) else [back]
                assert ref in back_refs, "%s %d.%s lists %d, whose %s is %r" % (entity, ref, p["name"], target, inverse, back)


def check_written_forms(model: Model, document: Mapping[str, Any]) -> None:
    """Every value in the form FILE_FORMAT.md, Values, gives for its type."""
    for entity, group in document["objects"].items():
        assert not model.is_abstract(entity), "an abstract entity with objects: %s" % entity
        names = [p["name"] for p in model.properties(entity)]
        refs = [o["ref"] for o in group]
        assert refs == sorted(refs) and len(set(refs)) == len(refs), "%s: objects not by ascending ref" % entity
        for o in group:
            assert list(o) == ["ref", "version", "values"], o
            assert list(o["values"]) == names, "%s %d: values not every property in the model's order" % (entity, o["ref"])
            for p in model.properties(entity):
                value = o["values"][p["name"]]
                where = "%s %d.%s = %r" % (entity, o["ref"], p["name"], value)
                if p["kind"] == "relationship":
                    if p.get("toMany", False):
                        assert isinstance(value, list) and all(type(r) is int for r in value), where
                        if not p.get("ordered", False):
                            assert value == sorted(value), where + " (unordered to-many: ascending)"
                    else:
                        assert value is None or type(value) is int, where
                    continue
                if value is None:
                    assert p.get("optional", False), where + " (required, but null)"
                    continue
                kind = p["type"]
                if kind in ("int16", "int32", "int64"):
                    bits = {"int16": 16, "int32": 32, "int64": 64}[kind]
                    assert type(value) is int and -(2 ** (bits - 1)) <= value < 2 ** (bits - 1), where
                elif kind in ("double", "float"):
                    assert type(value) in (int, float) or value in ("NaN", "Infinity", "-Infinity"), where
                elif kind == "decimal":
                    assert isinstance(value, str) and re.match(r"^(NaN|[+-]?\d+(\.\d+)?([eE][+-]?\d+)?)$", value), where
                elif kind == "string":
                    assert isinstance(value, str), where
                elif kind == "bool":
                    assert isinstance(value, bool), where
                elif kind == "date":
                    assert isinstance(value, str) and DATE_PATTERN.match(value), where
                elif kind == "binary":
                    assert isinstance(value, str) and base64.b64encode(base64.b64decode(value, validate=True)).decode() == value, where
                elif kind == "uuid":
                    assert isinstance(value, str) and UUID_PATTERN.match(value), where
                elif kind == "uri":
                    assert isinstance(value, str) and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", value), where
                else:
                    raise AssertionError("unknown type " + where)


def check_store_document(model: Model, document: Mapping[str, Any], data: bytes, store_uuid: str) -> None:
    """Everything FILE_FORMAT.md says of any store file, for this model."""
    assert list(document) == ["format", "formatVersion", "metadata", "objects"]
    assert document["format"] == "graphcore-json-store"
    assert type(document["formatVersion"]) is int and document["formatVersion"] == 1
    metadata = document["metadata"]
    keys = ["storeType", "storeUUID", "modelVersionHash", "entityVersionHashes", "nextReference", "commitSequence", "userInfo"]
    assert list(metadata) == [key for key in keys if key in metadata], "in the documented order"
    assert set(keys) - set(metadata) <= {"commitSequence"}, "only commitSequence is optional"
    assert type(metadata.get("commitSequence", 0)) is int and metadata.get("commitSequence", 0) >= 0
    assert metadata["storeType"] == "JSON"
    assert metadata["storeUUID"] == store_uuid and UUID_PATTERN.match(store_uuid)
    assert HASH_PATTERN.match(metadata["modelVersionHash"])
    assert metadata["modelVersionHash"] == model.version_hash()
    assert list(metadata["entityVersionHashes"]) == sorted(model.entities), "every entity, sorted"
    assert metadata["entityVersionHashes"] == model.entity_version_hashes()
    assert isinstance(metadata["userInfo"], dict) and list(metadata["userInfo"]) == sorted(metadata["userInfo"])
    assert all(isinstance(v, str) for v in metadata["userInfo"].values())
    refs = list(objects_by_ref(document))  # also: no ref used twice in the whole store
    assert type(metadata["nextReference"]) is int and metadata["nextReference"] > max(refs, default=0)
    entities = list(document["objects"])
    assert entities == sorted(entities, key=lambda name: name.encode("utf-8"))
    assert all(name in model.entities for name in entities)
    check_written_forms(model, document)
    check_inverses(model, document)
    # Deterministic output: compact, non-ASCII as itself, one newline at the end.
    assert data == serialize(document), "not in the documented compact form"
    check_schema(document)


# -- a file written by the server -------------------------------------------------------------


def test_a_store_file_written_by_the_server_reads_as_documented(server: ServerProcess) -> None:
    with server.connect() as c:
        hello = c.result("hello", {"client": "test_file_format"})
        store_uuid = hello["storeUUID"]
        model = Model(c.result("model"))
        assert hello["modelHash"] == model.version_hash(), "MODEL.md's version hash, computed in Python"

        first = c.result("save", {"insert": [
            {"id": "artist", "entity": "Artist", "values": {"name": "Ahmad Jamal", "country": "US"}},
            {"id": "album", "entity": "Album", "values": {
                "title": "At the Pershing: Café ☕ 𝄞 \"live\"\\",
                "released": "1958-01-16T21:30:00.2506-05:00",   # another offset, four fraction digits
                "price": "12.345", "cover": base64.b64encode(COVER).decode("ascii"),
                "artist": "artist", "songs": ["s3", "s1", "s2"]}},
            {"id": "s1", "entity": "Song", "values": {"title": "But Not for Me", "plays": 2 ** 53 + 1,
                                                       "rating": 4.5, "uid": SONG_UID, "tags": ["t1", "t2"]}},
            {"id": "s2", "entity": "Song", "values": {"title": "Surrey with the Fringe on Top", "rating": 0.1, "tags": ["t1"]}},
            {"id": "s3", "entity": "Song", "values": {"title": "Poinciana", "plays": 7, "rating": 5}},
            {"id": "t1", "entity": "Tag", "values": {"label": "live"}},
            {"id": "t2", "entity": "Tag", "values": {"label": "trio"}},
            {"id": "gone", "entity": "Tag", "values": {"label": "deleted by the next save"}},
        ]})
        ids = first["ids"]
        assert set(ids) == {"artist", "album", "s1", "s2", "s3", "t1", "t2", "gone"}
        versions = dict(first["versions"])
        assert set(versions.values()) == {1}

        second = c.result("save", {
            "update": [
                {"id": ids["s2"], "version": 1, "values": {"plays": 3, "rating": 1e-300}},
                {"id": ids["album"], "version": 1, "values": {"price": 15}},   # a decimal sent as an integer
            ],
            "delete": [{"id": ids["gone"], "version": 1}],
        })
        assert second["deleted"] == [ids["gone"]]
        versions.update(second["versions"])
        del versions[ids["gone"]]
        del ids["gone"]
        assert versions[ids["s2"]] == 2 and versions[ids["album"]] == 2

        # The live store: the snapshot plus the journal the saves were appended to.
        document = read_store(server.store_path, model)
        journal = Path(f"{server.store_path}-journal").read_bytes()
        assert [record["seq"] for _, record in read_journal(journal, model=model)[0]] == [1, 2]
        data = journal   # records are written with the snapshot's value forms
        assert document["metadata"]["userInfo"] == {}
        assert set(read_graph(model, server.store_path)) == {"Album", "Artist", "Song", "Tag"}

        # Exactly the saved objects, with the versions the saves returned, under the refs of
        # the IDs the server returned.
        by_ref = objects_by_ref(document)
        expected = {reference_of(i)[2]: (reference_of(i)[1], versions[i]) for i in ids.values()}
        assert {ref: (entity, o["version"]) for ref, (entity, o) in by_ref.items()} == expected
        for identifier in ids.values():
            assert reference_of(identifier)[0] == store_uuid

        def ref(temporary: str) -> int:
            return reference_of(ids[temporary])[2]

        def values(temporary: str) -> Dict[str, Any]:
            return by_ref[ref(temporary)][1]["values"]

        # The written forms, literally.
        assert values("artist") == {"name": "Ahmad Jamal", "country": "US", "albums": [ref("album")]}
        assert values("album") == {
            "title": "At the Pershing: Café ☕ 𝄞 \"live\"\\",
            "released": "1958-01-17T02:30:00.251Z",
            "price": "15",
            "cover": base64.b64encode(COVER).decode("ascii"),
            "artist": ref("artist"),
            "songs": [ref("s3"), ref("s1"), ref("s2")],   # ordered: as the client gave them
        }
        assert values("s1") == {"title": "But Not for Me", "plays": 2 ** 53 + 1, "rating": 4.5,
                                "uid": SONG_UID.lower(), "album": ref("album"), "tags": sorted([ref("t1"), ref("t2")])}
        assert values("s2") == {"title": "Surrey with the Fringe on Top", "plays": 3, "rating": 1e-300,
                                "uid": None, "album": ref("album"), "tags": [ref("t1")]}
        assert values("s3") == {"title": "Poinciana", "plays": 7, "rating": 5.0, "uid": None,
                                "album": ref("album"), "tags": []}
        assert values("t1") == {"label": "live", "songs": sorted([ref("s1"), ref("s2")])}
        assert values("t2") == {"label": "trio", "songs": [ref("s1")]}
        assert "Café ☕ 𝄞".encode("utf-8") in data and b"\\u" not in data, "non-ASCII written as itself"
        assert b'"rating":5.0,' in data and b'"rating":1e-300,' in data

        # The file says what the server says, object for object.
        wire = c.result("get", {"ids": list(ids.values())})
        assert wire["missing"] == []
        assert {o["id"]: o for o in wire["objects"]} == file_to_wire(model, document)

        # nextReference is the ref of the next inserted object.
        next_reference = document["metadata"]["nextReference"]
        third = c.result("save", {"insert": [{"id": "t3", "entity": "Tag", "values": {"label": "new"}}]})
        assert reference_of(third["ids"]["t3"])[2] == next_reference
        assert read_store(server.store_path, model)["metadata"]["nextReference"] > next_reference

    # A clean stop writes the snapshot: everything FILE_FORMAT.md says of a store file.
    assert server.stop() == 0
    data = server.store_path.read_bytes()
    document = read_store(server.store_path)
    check_store_document(model, document, data, store_uuid)
    assert document["metadata"]["commitSequence"] == 3
    assert "Café ☕ 𝄞".encode("utf-8") in data and b"\\u" not in data, "non-ASCII written as itself"


def test_version_hashes_in_the_file_are_those_model_md_describes_for_a_model_with_inheritance(
        start_server: Any, tmp_path: Path) -> None:
    model_path = tmp_path / "catalog.model.json"
    model_path.write_text(json.dumps(CATALOG_MODEL), encoding="utf-8")
    server = start_server(model=model_path)
    model = Model(CATALOG_MODEL)
    document = read_store(server.store_path)   # written at start-up for a new store
    assert document["metadata"]["entityVersionHashes"] == model.entity_version_hashes()
    assert document["metadata"]["modelVersionHash"] == model.version_hash()
    with server.connect() as c:
        assert c.result("hello")["modelHash"] == model.version_hash()


# -- files written by Python ------------------------------------------------------------------

SAMPLE_UUID = "0f8e2d4c-6b1a-4c3e-9d7f-5a2b1c0e9f8d"


def sample_objects() -> Dict[str, List[Dict[str, Any]]]:
    """A small graph of the sample model in file form; versions vary, refs have gaps."""
    return {
        "Artist": [
            {"ref": 1, "version": 3, "values": {"name": "Nina Simone", "country": None, "albums": [2]}},
            {"ref": 7, "version": 1, "values": {"name": "Bill Evans", "country": "US", "albums": []}},
        ],
        "Album": [
            {"ref": 2, "version": 2, "values": {
                "title": "Little Girl Blue", "released": "1959-02-01T00:00:00.000Z", "price": "7.5",
                "cover": base64.b64encode(b"\x00\x01\x02\xff").decode("ascii"),
                "artist": 1, "songs": [5, 3, 4]}},
        ],
        "Song": [
            {"ref": 3, "version": 4, "values": {"title": "My Baby Just Cares for Me", "plays": 12, "rating": 4.5,
                                                "uid": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "album": 2, "tags": [6, 8]}},
            {"ref": 4, "version": 1, "values": {"title": "Mood Indigo", "plays": 0, "rating": None, "uid": None,
                                                "album": 2, "tags": [6]}},
            {"ref": 5, "version": 1, "values": {"title": "Central Park Blues", "plays": 3, "rating": 0.1,
                                                "uid": "00000000-0000-4000-8000-000000000001", "album": 2, "tags": []}},
        ],
        "Tag": [
            {"ref": 6, "version": 1, "values": {"label": "jazz", "songs": [3, 4]}},
            {"ref": 8, "version": 5, "values": {"label": "piano ♪", "songs": [3]}},
        ],
    }


def write_sample_store(path: Path) -> Tuple[Model, Dict[str, Any], bytes]:
    model = Model.load(SAMPLE_MODEL_PATH)
    document = build_store(model, sample_objects(), store_uuid=SAMPLE_UUID, next_reference=20,
                           user_info={"writer": "pytest", "note": "written by Python"})
    return model, document, write_store_file(path, document)


def test_a_store_file_written_by_python_is_served_saved_into_and_kept_across_a_restart(
        start_server: Any, tmp_path: Path) -> None:
    store = tmp_path / "python.json"
    model, document, written = write_sample_store(store)
    check_store_document(model, document, written, SAMPLE_UUID)
    server = start_server(store)
    expected = file_to_wire(model, document)

    def sid(entity: str, ref: int) -> str:
        return object_id(SAMPLE_UUID, entity, ref)

    with server.connect() as c:
        hello = c.result("hello")
        assert hello["storeUUID"] == SAMPLE_UUID
        assert hello["modelHash"] == model.version_hash()
        assert fetch_everything(c, model) == expected

        songs = c.result("fetch", {"entity": "Song", "predicate": "plays >= %d AND album.title BEGINSWITH[c] %@",
                                   "arguments": [1, "little"], "sort": [{"key": "plays", "ascending": False}]})
        assert songs["objects"] == [expected[sid("Song", 3)], expected[sid("Song", 5)]]
        song = songs["objects"][0]
        assert song["version"] == 4
        assert song["values"] == {"title": "My Baby Just Cares for Me", "plays": 12, "rating": 4.5,
                                  "uid": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "album": sid("Album", 2),
                                  "tags": [sid("Tag", 6), sid("Tag", 8)]}
        album = c.result("get", {"ids": [sid("Album", 2)]})["objects"][0]
        assert album["values"] == {"title": "Little Girl Blue", "released": "1959-02-01T00:00:00.000Z", "price": "7.5",
                                   "cover": "AAEC/w==", "artist": sid("Artist", 1),
                                   "songs": [sid("Song", 5), sid("Song", 3), sid("Song", 4)]}
        assert c.result("fetch", {"entity": "Album", "predicate": "released < %@",
                                  "arguments": [{"date": "1960-01-01T00:00:00Z"}], "resultType": "count"}) == {"count": 1}
        assert c.result("fetch", {"entity": "Album", "predicate": "price == %@",
                                  "arguments": [{"decimal": "7.50"}], "resultType": "ids"}) == {"ids": [sid("Album", 2)]}
        assert c.result("fetch", {"entity": "Song", "predicate": "uid == %@",
                                  "arguments": [{"uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}],
                                  "resultType": "ids"}) == {"ids": [sid("Song", 3)]}
        tagged = c.result("fetch", {"entity": "Song", "predicate": "ANY tags.label == %@", "arguments": ["jazz"],
                                    "sort": [{"key": "title"}], "resultType": "ids"})
        assert tagged == {"ids": [sid("Song", 4), sid("Song", 3)]}
        lonely = c.result("fetch", {"entity": "Artist", "predicate": "albums.@count == 0", "resultType": "ids"})
        assert lonely == {"ids": [sid("Artist", 7)]}
        by_label = c.result("fetch", {"entity": "Tag", "sort": [{"key": "label", "ascending": False}], "resultType": "ids"})
        assert by_label == {"ids": [sid("Tag", 8), sid("Tag", 6)]}

        # A save: a new song on the album and a tag, and an update with the version in the file.
        saved = c.result("save", {
            "insert": [{"id": "new", "entity": "Song", "values": {"title": "Plain Gold Ring", "album": sid("Album", 2),
                                                                  "tags": [sid("Tag", 8)]}}],
            "update": [{"id": sid("Song", 4), "version": 1, "values": {"plays": 1}}],
        })
        assert saved["ids"] == {"new": sid("Song", 20)}, "nextReference in the file gives the new ref"
        assert saved["versions"] == {sid("Song", 20): 1, sid("Song", 4): 2, sid("Album", 2): 3, sid("Tag", 8): 6}
        assert sorted(saved["updated"]) == sorted([sid("Album", 2), sid("Tag", 8)])
        conflict = c.call("save", {"update": [{"id": sid("Song", 3), "version": 3, "values": {"plays": 0}}]})
        assert conflict["error"]["code"] == -32001
        assert conflict["error"]["data"] == {"conflicts": [{"id": sid("Song", 3), "expected": 3, "current": 4}]}
        after_save = fetch_everything(c, model)
        assert after_save[sid("Album", 2)]["values"]["songs"] == [sid("Song", 5), sid("Song", 3), sid("Song", 4), sid("Song", 20)]

    # The server's file is what the Python writer writes for the same graph: same bytes. A
    # clean stop folds the journal into the snapshot (docs/FILE_FORMAT.md, "Checkpoints").
    assert server.stop() == 0
    assert Path(f"{store}-journal").read_bytes() == b""
    data = store.read_bytes()
    rewritten = read_store(store)
    check_store_document(model, rewritten, data, SAMPLE_UUID)
    assert rewritten["metadata"]["userInfo"] == {"note": "written by Python", "writer": "pytest"}
    assert file_to_wire(model, rewritten) == after_save
    python_form = build_store(model, wire_to_document_objects(model, after_save), store_uuid=SAMPLE_UUID,
                              next_reference=rewritten["metadata"]["nextReference"],
                              commit_sequence=rewritten["metadata"].get("commitSequence", 0),
                              user_info={"writer": "pytest", "note": "written by Python"})
    assert serialize(python_form) == data

    assert server.restart() is server
    assert store.read_bytes() == data, "a restart does not rewrite the file"
    with server.connect() as c:
        assert c.result("hello")["storeUUID"] == SAMPLE_UUID
        assert fetch_everything(c, model) == after_save


#: A model with what the sample model lacks: an abstract parent with two sub-entities, a
#: self-inverse to-many, a to-one without inverse, an ordered to-many to the abstract parent,
#: and every attribute type.
CATALOG_MODEL: Dict[str, Any] = {
    "entities": [
        {"name": "Shelf",
         "attributes": [{"name": "label", "type": "string"}],
         "relationships": [
             {"name": "items", "destination": "Item", "inverse": "shelf", "toMany": True, "ordered": True},
             {"name": "favourite", "destination": "Item"}]},
        {"name": "Item", "abstract": True,
         "attributes": [{"name": "name", "type": "string"}],
         "relationships": [
             {"name": "shelf", "destination": "Shelf", "inverse": "items"},
             {"name": "related", "destination": "Item", "inverse": "related", "toMany": True}]},
        {"name": "Book", "parent": "Item",
         "attributes": [
             {"name": "pages", "type": "int16"},
             {"name": "words", "type": "int32"},
             {"name": "isbn", "type": "int64"},
             {"name": "score", "type": "double", "optional": True},
             {"name": "weight", "type": "float", "optional": True},
             {"name": "price", "type": "decimal", "optional": True},
             {"name": "inPrint", "type": "bool", "default": True},
             {"name": "published", "type": "date", "optional": True},
             {"name": "cover", "type": "binary", "optional": True},
             {"name": "uid", "type": "uuid", "optional": True},
             {"name": "link", "type": "uri", "optional": True}]},
        {"name": "Record", "parent": "Item",
         "attributes": [{"name": "rpm", "type": "int16", "default": 33}]},
    ]
}

CATALOG_UUID = "5c0ffee0-1234-4abc-8def-0123456789ab"


def catalog_objects() -> Dict[str, List[Dict[str, Any]]]:
    return {
        "Shelf": [{"ref": 1, "version": 1, "values": {"label": "A", "items": [4, 2, 3], "favourite": 3}}],
        "Book": [
            {"ref": 2, "version": 2, "values": {
                "name": "Big", "shelf": 1, "related": [3], "pages": 32767, "words": -2147483648,
                "isbn": 9223372036854775807, "score": "NaN", "weight": 0.5, "price": "-0.5", "inPrint": False,
                "published": "+010000-01-01T00:00:00.000Z", "cover": "", "uid": "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d",
                "link": "mailto:someone@example.com"}},
            {"ref": 4, "version": 1, "values": {
                "name": "Small", "shelf": 1, "related": [], "pages": -32768, "words": 0, "isbn": -9223372036854775808,
                "score": "-Infinity", "weight": None, "price": "12.345", "inPrint": True,
                "published": "-000001-12-31T23:59:59.999Z", "cover": "AAEC/w==", "uid": None,
                "link": "https://example.com/a?b=c"}},
        ],
        "Record": [{"ref": 3, "version": 7, "values": {"name": "Blue", "shelf": 1, "related": [2], "rpm": 45}}],
    }


def test_a_python_written_file_of_a_model_with_inheritance_and_every_attribute_type_is_served(
        start_server: Any, tmp_path: Path) -> None:
    model_path = tmp_path / "catalog.model.json"
    model_path.write_text(json.dumps(CATALOG_MODEL), encoding="utf-8")
    model = Model(CATALOG_MODEL)
    store = tmp_path / "catalog.json"
    document = build_store(model, catalog_objects(), store_uuid=CATALOG_UUID)
    written = write_store_file(store, document)
    check_store_document(model, document, written, CATALOG_UUID)
    assert document["metadata"]["nextReference"] == 5
    server = start_server(store, model=model_path)
    expected = file_to_wire(model, document)

    def cid(entity: str, ref: int) -> str:
        return object_id(CATALOG_UUID, entity, ref)

    with server.connect() as c:
        assert c.result("hello")["modelHash"] == model.version_hash()
        assert fetch_everything(c, model) == expected
        # Fetching the abstract parent returns the sub-entities' objects, by entity name then ref.
        items = c.result("fetch", {"entity": "Item", "resultType": "ids"})
        assert items == {"ids": [cid("Book", 2), cid("Book", 4), cid("Record", 3)]}
        assert c.result("fetch", {"entity": "Item", "includeSubentities": False, "resultType": "count"}) == {"count": 0}
        by_name = c.result("fetch", {"entity": "Item", "predicate": "name ENDSWITH[c] %@", "arguments": ["L"],
                                     "sort": [{"key": "name", "ascending": False}]})
        assert [o["id"] for o in by_name["objects"]] == [cid("Book", 4)]
        assert c.result("fetch", {"entity": "Book", "predicate": "published > %@",
                                  "arguments": [{"date": "9999-12-31T00:00:00Z"}], "resultType": "ids"}) == {"ids": [cid("Book", 2)]}
        assert c.result("fetch", {"entity": "Book", "predicate": "price < %@",
                                  "arguments": [{"decimal": "0"}], "resultType": "ids"}) == {"ids": [cid("Book", 2)]}
        assert c.result("fetch", {"entity": "Book", "predicate": "isbn == %@",
                                  "arguments": [9223372036854775807], "resultType": "ids"}) == {"ids": [cid("Book", 2)]}
        assert c.result("fetch", {"entity": "Book", "predicate": "link == %@",
                                  "arguments": [{"uri": "mailto:someone@example.com"}], "resultType": "ids"}) == {"ids": [cid("Book", 2)]}
        assert c.result("fetch", {"entity": "Item", "predicate": "ANY related.name == %@", "arguments": ["Big"],
                                  "resultType": "ids"}) == {"ids": [cid("Record", 3)]}
        assert c.result("fetch", {"entity": "Book", "sort": [{"key": "pages"}], "resultType": "ids"}) == {
            "ids": [cid("Book", 4), cid("Book", 2)]}
        shelf = c.result("get", {"ids": [cid("Shelf", 1)]})["objects"][0]
        assert shelf["values"] == {"label": "A", "items": [cid("Book", 4), cid("Book", 2), cid("Record", 3)],
                                   "favourite": cid("Record", 3)}

        saved = c.result("save", {"insert": [{"id": "r", "entity": "Record", "values": {
            "name": "New", "shelf": cid("Shelf", 1), "related": [cid("Book", 4)]}}]})
        assert saved["ids"] == {"r": cid("Record", 5)}
        assert saved["versions"] == {cid("Record", 5): 1, cid("Shelf", 1): 2, cid("Book", 4): 2}
        after_save = fetch_everything(c, model)
        assert after_save[cid("Record", 5)]["values"] == {"name": "New", "shelf": cid("Shelf", 1),
                                                          "related": [cid("Book", 4)], "rpm": 33}
        assert after_save[cid("Shelf", 1)]["values"]["items"] == [cid("Book", 4), cid("Book", 2), cid("Record", 3), cid("Record", 5)]
        assert after_save[cid("Book", 4)]["values"]["related"] == [cid("Record", 5)]

    assert server.stop() == 0   # a clean stop checkpoints: the snapshot holds every save
    data = store.read_bytes()
    rewritten = read_store(store)
    check_store_document(model, rewritten, data, CATALOG_UUID)
    python_form = build_store(model, wire_to_document_objects(model, after_save), store_uuid=CATALOG_UUID,
                              next_reference=rewritten["metadata"]["nextReference"],
                              commit_sequence=rewritten["metadata"].get("commitSequence", 0))
    assert serialize(python_form) == data

    server.restart()
    with server.connect() as c:
        assert fetch_everything(c, model) == after_save


# -- files the server refuses -----------------------------------------------------------------


def _damage_truncate(text: str) -> str:
    return text[: len(text) // 2]


def _edit(change: Any) -> Any:
    def damage(text: str) -> str:
        document = json.loads(text)
        change(document)
        return serialize(document).decode("utf-8")
    return damage


def _song(document: Dict[str, Any], ref: int) -> Dict[str, Any]:
    return next(o for o in document["objects"]["Song"] if o["ref"] == ref)


DAMAGE = [
    # (name, damage, what the error must say)
    ("truncated", _damage_truncate, [r"invalid JSON at byte (\d+)"]),
    ("another format", _edit(lambda d: d.update(format="something-else")), [r"not a store file", r"something-else"]),
    ("format version 2", _edit(lambda d: d.update(formatVersion=2)), [r"format version 2 is not supported"]),
    ("another model", _edit(lambda d: d["metadata"]["entityVersionHashes"].update(Song="0" * 64)),
     [r"different model", r"Song"]),
    ("unknown entity", _edit(lambda d: d["objects"].update(Track=[])), [r"unknown entity \"Track\""]),
    ("wrong value type", _edit(lambda d: _song(d, 3)["values"].update(plays="12")), [r"Song 3", r"plays"]),
    ("unknown property", _edit(lambda d: _song(d, 3)["values"].update(colour="red")), [r"Song 3", r"colour"]),
    ("dangling reference", _edit(lambda d: _song(d, 4)["values"].update(tags=[6, 99])), [r"no object has reference 99"]),
    ("sides disagree", _edit(lambda d: _song(d, 5)["values"].update(album=None)), [r"Album 2|Song 5", r"songs|album"]),
    ("duplicate key", lambda text: text.replace('"plays":12,', '"plays":12,"plays":13,'), [r"byte \d+", r"the key \"plays\" appears twice"]),
    ("no storeUUID", _edit(lambda d: d["metadata"].pop("storeUUID")), [r"no \"storeUUID\""]),
    ("null to-many", _edit(lambda d: _song(d, 4)["values"].update(tags=None)), [r"Song 4", r"tags", r"found null"]),
]


@pytest.mark.parametrize("name, damage, says", DAMAGE, ids=[case[0] for case in DAMAGE])
def test_a_damaged_or_foreign_file_is_refused_naming_the_problem_and_left_unchanged(
        start_server: Any, tmp_path: Path, name: str, damage: Any, says: List[str]) -> None:
    store = tmp_path / "damaged.json"
    write_sample_store(store)
    damaged = damage(store.read_text(encoding="utf-8")).encode("utf-8")
    assert damaged != store.read_bytes()
    store.write_bytes(damaged)
    with pytest.raises(ServerStartError) as failure:
        start_server(store)
    assert failure.value.returncode not in (None, 0)
    for pattern in says:
        assert re.search(pattern, failure.value.stderr), "%s: %r not in %s" % (name, pattern, failure.value.stderr)
    if name == "truncated":
        offset = int(re.search(r"invalid JSON at byte (\d+)", failure.value.stderr).group(1))  # type: ignore[union-attr]
        assert len(damaged) - 3 <= offset <= len(damaged), "the offset is where the file ends"
    assert file_bytes(store) == damaged, "a refused file is left as it was"
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".damaged.json.tmp"))
    assert leftovers == []


def test_a_python_file_using_the_documented_leniency_is_read_and_rewritten_in_the_canonical_form(
        start_server: Any, tmp_path: Path) -> None:
    model = Model.load(SAMPLE_MODEL_PATH)
    canonical = build_store(model, sample_objects(), store_uuid=SAMPLE_UUID)
    loose: Dict[str, Any] = {
        "objects": {},   # keys in another order, an unknown top-level key, no userInfo
        "comment": "ignored by the loader, and not written back",
        "metadata": {"nextReference": 2,   # less than the largest ref: raised by the loader
                     "entityVersionHashes": canonical["metadata"]["entityVersionHashes"],
                     "storeUUID": SAMPLE_UUID, "storeType": "JSON",
                     "modelVersionHash": canonical["metadata"]["modelVersionHash"]},
        "formatVersion": 1,
        "format": "graphcore-json-store",
    }
    for entity in ["Tag", "Song", "Artist", "Album"]:
        loose["objects"][entity] = []
        for o in reversed(canonical["objects"][entity]):
            values = dict(reversed(list(o["values"].items())))
            loose["objects"][entity].append({"values": values, "version": o["version"], "ref": o["ref"]})
    song3 = next(o for o in loose["objects"]["Song"] if o["ref"] == 3)["values"]
    song3["uid"] = song3["uid"].upper()         # read in any case
    song3["rating"] = 4                         # an integer for a double
    song3["title"] = "My Baby Just Cares for Me \U0001d11e"   # escaped as a surrogate pair by json.dumps
    song4 = next(o for o in loose["objects"]["Song"] if o["ref"] == 4)["values"]
    del song4["plays"], song4["rating"], song4["uid"]   # missing: the default (0), or no value
    album = loose["objects"]["Album"][0]["values"]
    album["released"] = "1959-02-01T02:00:00.0004+02:00"   # another offset, a longer fraction
    album["price"] = 7                                      # an integer for a decimal
    del next(o for o in loose["objects"]["Artist"] if o["ref"] == 1)["values"]["country"]   # optional: no value
    store = tmp_path / "loose.json"
    text = json.dumps(loose, indent=2)   # whitespace between tokens, non-ASCII escaped
    assert "\\ud834\\udd1e" in text
    store.write_text(text, encoding="utf-8")

    server = start_server(store)

    def sid(entity: str, ref: int) -> str:
        return object_id(SAMPLE_UUID, entity, ref)

    with server.connect() as c:
        objects = fetch_everything(c, model)
        assert objects[sid("Song", 3)]["values"]["uid"] == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"
        assert objects[sid("Song", 3)]["values"]["rating"] == 4.0
        assert objects[sid("Song", 3)]["values"]["title"] == "My Baby Just Cares for Me \U0001d11e"
        assert objects[sid("Song", 4)]["values"] == {"title": "Mood Indigo", "plays": 0, "rating": None, "uid": None,
                                                     "album": sid("Album", 2), "tags": [sid("Tag", 6)]}
        assert objects[sid("Album", 2)]["values"]["released"] == "1959-02-01T00:00:00.000Z"
        assert objects[sid("Album", 2)]["values"]["price"] == "7"
        assert objects[sid("Album", 2)]["values"]["songs"] == [sid("Song", 5), sid("Song", 3), sid("Song", 4)]
        assert objects[sid("Artist", 1)]["values"]["country"] is None
        assert objects[sid("Artist", 7)]["values"]["country"] == "US"
        saved = c.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": "new"}}]})
        assert saved["ids"] == {"t": sid("Tag", 9)}, "nextReference raised to one past the largest ref"
        objects = fetch_everything(c, model)

    assert server.stop() == 0   # a clean stop checkpoints: the snapshot holds every save
    data = store.read_bytes()
    rewritten = read_store(store)
    check_store_document(model, rewritten, data, SAMPLE_UUID)
    assert "comment" not in rewritten and rewritten["metadata"]["userInfo"] == {}
    assert file_to_wire(model, rewritten) == objects
    assert "𝄞".encode("utf-8") in data


def test_the_lock_file_keeps_a_python_writer_and_the_server_apart(start_server: Any, tmp_path: Path) -> None:
    import fcntl
    import os

    store = tmp_path / "locked.json"
    write_sample_store(store)
    written = store.read_bytes()
    lock_path = tmp_path / "locked.json.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.write(str(os.getpid()))
        lock.flush()
        with pytest.raises(ServerStartError) as failure:
            start_server(store)
        assert "is in use by process %d" % os.getpid() in failure.value.stderr, failure.value.stderr
        assert store.read_bytes() == written
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    server = start_server(store)
    assert lock_path.read_text().strip() == str(server.pid), "the lock file holds the server's pid"
    with pytest.raises(BlockingIOError):   # Python, taking the lock as FILE_FORMAT.md asks, is kept out
        write_store_file(store, build_store(Model.load(SAMPLE_MODEL_PATH), {}, store_uuid=SAMPLE_UUID))
    assert store.read_bytes() == written
    with server.connect() as c:
        assert c.result("fetch", {"entity": "Song", "resultType": "count"}) == {"count": 3}
    assert server.stop() == 0
    write_store_file(store, build_store(Model.load(SAMPLE_MODEL_PATH), {}, store_uuid=SAMPLE_UUID))
    server.start()
    with server.connect() as c:
        assert c.result("fetch", {"entity": "Song", "resultType": "count"}) == {"count": 0}
