#!/usr/bin/env python3
"""The JSON store file (docs/FILE_FORMAT.md) from Python, written from that document and
docs/MODEL.md alone, to prove that those documents are enough: version hashes, the values'
file forms, a deterministic writer that saves the way the document asks (under the lock, to
a temporary file, fsync, rename, directory fsync), and a reader that checks everything the
document says of a store file. Standard library only, Python 3.9+.

Used by the Python client's tests (imported) and by the Swift store's interoperability tests
(Tests/JSONAtomicStoreTests/InteropTests.swift), which run it as a program:

    store_file.py write-sample MODEL STORE   write the sample graph below as a store file
    store_file.py dump MODEL STORE           check a store (its file and its journal,
                                             STORE-journal, if any) against the documents and
                                             print its graph in canonical form (JSON)
    store_file.py sample MODEL               print the sample graph in canonical form

The canonical form is {"Entity": {"ref": {"property": value}}} with values normalized so
that two graphs with the same content print the same: floats as repr strings, decimals,
dates and UUIDs in one spelling, to-many relationships sorted unless ordered.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import fcntl
import hashlib
import json
import math
import os
import re
import struct
import sys
import unicodedata
import uuid
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

FORMAT = "graphcore-json-store"
FORMAT_VERSION = 1
INT_RANGES = {"int16": 16, "int32": 32, "int64": 64}

DATE_PATTERN = re.compile(r"^(?:\d{4}|[+-]\d{6})-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
HASH_PATTERN = re.compile(r"^[0-9a-f]{64}$")
UUID_PATTERN = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

#: A graph as the reader returns it and the sample is written: {entity: {ref: {property: value}}},
#: attributes as Python values (Decimal, datetime, bytes, UUID, …), relationships as refs.
Graph = Dict[str, Dict[int, Dict[str, Any]]]


class StoreFileError(Exception):
    """A store file that does not follow docs/FILE_FORMAT.md."""


# -- the model ------------------------------------------------------------------------------


class Model:
    """A model file (docs/MODEL.md) resolved: each entity's properties, inherited ones first."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        self.file = model
        self.entities: Dict[str, Mapping[str, Any]] = {e["name"]: e for e in model["entities"]}

    @classmethod
    def load(cls, path: Union[str, Path]) -> "Model":
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def parent(self, name: str) -> Optional[str]:
        return self.entities[name].get("parent")

    def is_abstract(self, name: str) -> bool:
        return bool(self.entities[name].get("abstract", False))

    def ancestors_and_self(self, name: str) -> List[str]:
        """The root first, ``name`` last."""
        chain = [name]
        while self.parent(chain[0]) is not None:
            chain.insert(0, self.parent(chain[0]))  # type: ignore[arg-type]
        return chain

    def is_kind_of(self, name: str, ancestor: str) -> bool:
        return ancestor in self.ancestors_and_self(name)

    def properties(self, name: str) -> List[Dict[str, Any]]:
        """Every property of ``name`` in the model's order (MODEL.md, Inheritance): the
        parent's first, then the entity's own attributes, then its own relationships. Each is
        the model file's dictionary plus ``"kind"``: ``"attribute"`` or ``"relationship"``."""
        result: List[Dict[str, Any]] = []
        for entity in self.ancestors_and_self(name):
            description = self.entities[entity]
            for attribute in description.get("attributes", []):
                result.append(dict(attribute, kind="attribute"))
            for relationship in description.get("relationships", []):
                result.append(dict(relationship, kind="relationship"))
        return result

    def property(self, entity: str, key: str) -> Dict[str, Any]:
        for description in self.properties(entity):
            if description["name"] == key:
                return description
        raise KeyError("%s has no property %r" % (entity, key))

    # -- version hashes (MODEL.md, Version hashes) --

    def hash_text(self, name: str) -> str:
        lines = [
            "entity %s" % name,
            "parent %s" % (self.parent(name) or "-"),
            "abstract %s" % _flag(self.is_abstract(name)),
        ]
        for p in sorted(self.properties(name), key=lambda p: unicodedata.normalize("NFC", p["name"])):
            if p["kind"] == "attribute":
                lines.append("attribute %s %s optional=%s" % (p["name"], p["type"], _flag(p.get("optional", False))))
            else:
                lines.append(
                    "relationship %s -> %s inverse=%s toMany=%s ordered=%s"
                    % (p["name"], p["destination"], p.get("inverse") or "-",
                       _flag(p.get("toMany", False)), _flag(p.get("ordered", False)))
                )
        return "\n".join(lines)

    def entity_version_hash(self, name: str) -> str:
        return hashlib.sha256(self.hash_text(name).encode("utf-8")).hexdigest()

    def entity_version_hashes(self) -> Dict[str, str]:
        return {name: self.entity_version_hash(name) for name in sorted(self.entities)}

    def version_hash(self) -> str:
        text = ";".join("%s=%s" % (name, h) for name, h in sorted(self.entity_version_hashes().items()))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _flag(value: bool) -> str:
    return "true" if value else "false"


# -- values (FILE_FORMAT.md, Values) ------------------------------------------------------


def encode_attribute(type_: str, value: Any) -> Any:
    if value is None:
        return None
    if type_ in ("double", "float"):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if type_ == "decimal":
        return str(value)
    if type_ == "date":
        utc = value.astimezone(dt.timezone.utc)
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    if type_ == "binary":
        return base64.b64encode(value).decode("ascii")
    if type_ == "uuid":
        return str(value).lower()
    return value  # integers, strings, bools, URIs


def decode_attribute(type_: str, raw: Any, where: str) -> Any:
    def fail(expected: str) -> StoreFileError:
        return StoreFileError(f"{where}: expected {expected}, found {json.dumps(raw)}")

    if raw is None:
        return None
    if type_ in INT_RANGES:
        bits = INT_RANGES[type_]
        if type(raw) is not int or not -(1 << (bits - 1)) <= raw < (1 << (bits - 1)):
            raise fail(f"an {type_} (JSON integer)")
        return raw
    if type_ in ("double", "float"):
        special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
        if isinstance(raw, str) and raw in special:
            number = special[raw]
        elif type(raw) in (int, float):
            number = float(raw)
        else:
            raise fail(f"a {type_} (JSON number)")
        if type_ == "float" and math.isfinite(number):
            number = struct.unpack("f", struct.pack("f", number))[0]
        return number
    if type_ == "decimal":
        if type(raw) is int:
            return decimal.Decimal(raw)
        if not isinstance(raw, str):
            raise fail("a decimal (string)")
        try:
            return decimal.Decimal(raw)
        except decimal.InvalidOperation:
            raise fail("a decimal (string)") from None
    if type_ == "bool":
        if type(raw) is not bool:
            raise fail("a bool")
        return raw
    if not isinstance(raw, str):
        raise fail(f"a {type_} (string)")
    if type_ == "date":
        try:
            return dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            raise fail("an ISO 8601 date") from None
    if type_ == "binary":
        try:
            return base64.b64decode(raw, validate=True)
        except ValueError:
            raise fail("base64") from None
    if type_ == "uuid":
        try:
            return uuid.UUID(raw)
        except ValueError:
            raise fail("a UUID") from None
    return raw  # string, uri


def canonical_attribute(type_: str, value: Any) -> Any:
    if value is None:
        return None
    if type_ in ("double", "float"):
        if type_ == "float" and math.isfinite(value):
            value = struct.unpack("f", struct.pack("f", value))[0]
        return repr(value)
    if type_ == "decimal":
        return str(value.normalize()) if value.is_finite() else str(value)
    if type_ == "date":
        return encode_attribute("date", value)
    if type_ == "binary":
        return {"bytes": len(value), "sha256": hashlib.sha256(value).hexdigest()}
    if type_ == "uuid":
        return str(value)
    return value


# -- writing --------------------------------------------------------------------------------


def build_store(
    model: Model,
    objects: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    store_uuid: str,
    next_reference: Optional[int] = None,
    user_info: Optional[Mapping[str, str]] = None,
    commit_sequence: int = 0,
) -> Dict[str, Any]:
    """The store document, keys in the documented order (FILE_FORMAT.md, Deterministic output).

    ``objects`` maps concrete entity names to objects ``{"ref", "version", "values"}`` whose
    ``values`` are already in file form (FILE_FORMAT.md, Values; relationships as refs). A property left out is written ``null`` (``[]`` for a to-many);
    unordered to-many lists are sorted ascending. ``commit_sequence`` above 0 is written as
    ``commitSequence`` (the last journal commit the snapshot holds).
    """
    refs = [o["ref"] for group in objects.values() for o in group]
    if next_reference is None:
        next_reference = max(refs, default=0) + 1
    document_objects: Dict[str, List[Dict[str, Any]]] = {}
    for entity in sorted(objects, key=lambda name: name.encode("utf-8")):
        if not objects[entity]:
            continue
        properties = model.properties(entity)
        written = []
        for o in sorted(objects[entity], key=lambda o: o["ref"]):
            unknown = set(o["values"]) - {p["name"] for p in properties}
            if unknown:
                raise KeyError("%s has no properties %s" % (entity, sorted(unknown)))
            values: Dict[str, Any] = {}
            for p in properties:
                value = o["values"].get(p["name"])
                if p["kind"] == "relationship" and p.get("toMany", False):
                    value = list(value or [])
                    if not p.get("ordered", False):
                        value.sort()
                values[p["name"]] = value
            written.append({"ref": o["ref"], "version": o["version"], "values": values})
        document_objects[entity] = written
    metadata: Dict[str, Any] = {
        "storeType": "JSON",
        "storeUUID": store_uuid.lower(),
        "modelVersionHash": model.version_hash(),
        "entityVersionHashes": model.entity_version_hashes(),
        "nextReference": next_reference,
    }
    if commit_sequence > 0:
        metadata["commitSequence"] = commit_sequence
    metadata["userInfo"] = dict(sorted((user_info or {}).items()))
    return {"format": FORMAT, "formatVersion": FORMAT_VERSION, "metadata": metadata, "objects": document_objects}


def serialize(document: Mapping[str, Any]) -> bytes:
    """Compact JSON, non-ASCII characters as themselves, one ``\\n`` at the end."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n"


def write_store_file(path: Union[str, Path], document: Mapping[str, Any]) -> bytes:
    """Saves ``document`` as FILE_FORMAT.md asks another program to: under the lock
    (``<name>.lock``, 0600, holding our pid), into ``.<name>.tmp-<16 random hex digits>``
    created exclusively and never through a symlink, fsync, rename over the store file, fsync
    the directory. Returns the bytes written."""
    path = Path(path)
    data = serialize(document)
    lock_path = path.with_name(path.name + ".lock")
    lock = os.open(str(lock_path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(lock, 0)
        os.write(lock, str(os.getpid()).encode("ascii"))
        temporary = path.with_name(".%s.tmp-%s" % (path.name, os.urandom(8).hex()))
        descriptor = os.open(str(temporary), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.rename(str(temporary), str(path))
        directory = os.open(str(path.parent), os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
    return data


# -- reading --------------------------------------------------------------------------------


def objects_by_ref(document: Mapping[str, Any]) -> Dict[int, Tuple[str, Dict[str, Any]]]:
    """ref -> (entity, object) over the whole file."""
    result: Dict[int, Tuple[str, Dict[str, Any]]] = {}
    for entity, group in document["objects"].items():
        for o in group:
            if o["ref"] in result:
                raise ValueError("ref %d is used twice" % o["ref"])
            result[o["ref"]] = (entity, o)
    return result


def reference_of(object_id: str) -> Tuple[str, str, int]:
    """(storeUUID, entity, ref) of a ``graph://<storeUUID>/<Entity>/<ref>`` ID."""
    match = re.match(r"^graph://([^/]+)/([^/]+)/(\d+)$", object_id)
    if not match:
        raise ValueError("not a permanent object ID: %r" % object_id)
    return match.group(1), match.group(2), int(match.group(3))


def wire_to_file_values(model: Model, entity: str, values: Mapping[str, Any]) -> Dict[str, Any]:
    """An object's wire ``values`` (IDs for relationships) in file form (refs), same order."""
    result: Dict[str, Any] = {}
    for key, value in values.items():
        p = model.property(entity, key)
        if p["kind"] == "relationship":
            if p.get("toMany", False):
                value = [reference_of(v)[2] for v in value]
            elif value is not None:
                value = reference_of(value)[2]
        result[key] = value
    return result


def read_graph(model: Model, path: Union[str, Path]) -> Graph:
    """Loads a store file and checks everything FILE_FORMAT.md says of one (the format, the
    model's hashes, refs, property order, value forms, references and both sides of each
    relationship); returns its graph with decoded values. Raises :class:`StoreFileError`."""
    data = Path(path).read_bytes()
    nul = data.find(b"\x00")
    if nul >= 0:
        raise StoreFileError(f"{path}: NUL byte at offset {nul}")
    doc = json.loads(data.decode("utf-8"))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StoreFileError(f"{path}: not a store file")
    journal = Path(f"{path}-journal")
    if journal.exists():
        doc, _ = apply_journal(model, doc, journal.read_bytes(), journal)
    if doc.get("formatVersion") != FORMAT_VERSION:
        raise StoreFileError(f"{path}: format version {doc.get('formatVersion')!r} is not supported")
    metadata = doc["metadata"]
    hashes = model.entity_version_hashes()
    if metadata.get("entityVersionHashes") != hashes:
        stored = metadata.get("entityVersionHashes") or {}
        differing = sorted(n for n in set(stored) | set(hashes) if stored.get(n) != hashes.get(n))
        raise StoreFileError(f"{path} was written for a different model: {', '.join(differing)}")
    if metadata.get("modelVersionHash") != model.version_hash():
        raise StoreFileError(f"{path}: modelVersionHash does not match the model")

    graph: Graph = {}
    entity_of_ref: Dict[int, str] = {}
    for name, objects in doc["objects"].items():
        if name not in model.entities or model.is_abstract(name):
            raise StoreFileError(f"{path}: {name!r} is not a concrete entity of the model")
        graph[name] = {}
        last_ref = 0
        properties = model.properties(name)
        names = [p["name"] for p in properties]
        for obj in objects:
            ref = obj["ref"]
            if type(ref) is not int or ref < 1 or ref in entity_of_ref:
                raise StoreFileError(f"{path}: {name} {ref}: bad or duplicate reference")
            if ref <= last_ref:
                raise StoreFileError(f"{path}: {name}: objects not in ascending ref order at {ref}")
            last_ref = ref
            if type(obj["version"]) is not int or obj["version"] < 1:
                raise StoreFileError(f"{path}: {name} {ref}: bad version")
            entity_of_ref[ref] = name
            unknown = set(obj["values"]) - set(names)
            if unknown:
                raise StoreFileError(f"{path}: {name} {ref}: unknown properties {sorted(unknown)}")
            if list(obj["values"]) != names:
                raise StoreFileError(f"{path}: {name} {ref}: values not in property order")
            values: Dict[str, Any] = {}
            for p in properties:
                raw = obj["values"][p["name"]]
                where = f"{name} {ref}, property {p['name']!r}"
                if p["kind"] == "attribute":
                    values[p["name"]] = decode_attribute(p["type"], raw, where)
                    if values[p["name"]] is None and not p.get("optional", False):
                        raise StoreFileError(f"{where}: a value is required")
                elif p.get("toMany", False):
                    if not isinstance(raw, list) or not all(type(r) is int for r in raw):
                        raise StoreFileError(f"{where}: expected an array of references")
                    if not p.get("ordered", False) and raw != sorted(raw):
                        raise StoreFileError(f"{where}: unordered to-many not ascending")
                    values[p["name"]] = raw
                else:
                    if raw is not None and type(raw) is not int:
                        raise StoreFileError(f"{where}: expected a reference or null")
                    values[p["name"]] = raw
            graph[name][ref] = values
    if entity_of_ref and metadata["nextReference"] <= max(entity_of_ref):
        raise StoreFileError(f"{path}: nextReference {metadata['nextReference']} is not above every ref")

    # References point at objects of the destination entity, and both sides agree.
    for name, objects in graph.items():
        for ref, values in objects.items():
            for p in model.properties(name):
                if p["kind"] != "relationship":
                    continue
                targets = values[p["name"]] if p.get("toMany", False) else [values[p["name"]]]
                for target in (t for t in targets if t is not None):
                    where = f"{name} {ref}, property {p['name']!r}"
                    destination = entity_of_ref.get(target)
                    if destination is None:
                        raise StoreFileError(f"{where}: no object has reference {target}")
                    if not model.is_kind_of(destination, p["destination"]):
                        raise StoreFileError(f"{where}: reference {target} is a {destination}")
                    inverse = p.get("inverse")
                    if inverse:
                        back = graph[destination][target][inverse]
                        if ref not in (back if isinstance(back, list) else [back]):
                            raise StoreFileError(f"{where}: {destination} {target} does not point back")
    return graph


def read_live_store(path: Union[str, Path], model: Optional[Model] = None) -> Dict[str, Any]:
    """The document of a live store: the store file with the records of its journal
    (``<path>-journal``) applied, as a checkpoint would write it; a torn last record is left
    out. Without ``model``, references to objects the journal deleted are kept."""
    document = json.loads(Path(path).read_bytes().decode("utf-8"))
    journal = Path(f"{path}-journal")
    if journal.exists():
        document, _ = apply_journal(model, document, journal.read_bytes(), journal)
    return document


def store_bytes(path: Union[str, Path]) -> Tuple[Optional[bytes], Optional[bytes]]:
    """The bytes of a store file and of its journal (None for a file that does not exist):
    what changes when, and only when, the store saves."""
    def read(file: Path) -> Optional[bytes]:
        try:
            return file.read_bytes()
        except FileNotFoundError:
            return None
    return read(Path(path)), read(Path(f"{path}-journal"))


#: The first line of a version 2 journal or history file (docs/FILE_FORMAT.md, "Record
#: checksums and format versions"), without its newline.
JOURNAL_HEADER = b'{"format":"graphcore-json-journal","formatVersion":2}'
_CRC_OPENING, _CRC_CLOSING, _CRC_LENGTH = b',"crc":"', b'"}', 18
_RECORD_KEYS = ("seq", "time", "nextReference", "inserted", "updated", "deleted")


def _crc32c_table() -> List[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC32C_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli): reflected polynomial 0x82F63B78, initial value and final XOR
    0xFFFFFFFF; ``crc32c(b"123456789") == 0xE3069283``."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def seal_record(line: bytes) -> bytes:
    """A record line (compact JSON, no newline) with its checksum as its last key."""
    if not line.endswith(b"}"):
        raise ValueError("a record is a JSON object")
    head = line[:-1]
    return head + _CRC_OPENING + f"{crc32c(head):08x}".encode() + _CRC_CLOSING


def verify_checksum(line: bytes) -> Optional[str]:
    """None when the record ``line`` (no newline) ends with its valid checksum, else why not."""
    if len(line) <= _CRC_LENGTH:
        return "the record is too short to end with its checksum"
    head, tail = line[:-_CRC_LENGTH], line[-_CRC_LENGTH:]
    digits = tail[len(_CRC_OPENING):-len(_CRC_CLOSING)]
    if not (tail.startswith(_CRC_OPENING) and tail.endswith(_CRC_CLOSING)):
        return "the record does not end with its checksum"
    if re.fullmatch(rb"[0-9a-f]{8}", digits) is None:
        return "the record's checksum is not 8 lowercase hex digits"
    if int(digits, 16) != crc32c(head):
        return "the record's checksum does not match: the record was changed after it was written"
    return None


def _reject_duplicates(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    result: Dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice")
        result[key] = value
    return result


def check_record(record: Any, sealed: bool, model: Optional[Model] = None) -> Optional[str]:
    """None when ``record`` (a parsed journal line) meets the record schema of
    docs/FILE_FORMAT.md ("Records"), else what is wrong. With ``model``, entity names are
    checked too."""
    if not isinstance(record, dict):
        return "a record is a JSON object"
    keys = list(record)
    if not keys or keys[0] != "seq":
        return '"seq" must be the first key of a journal record'
    known = set(_RECORD_KEYS) | {"author"} | ({"crc"} if sealed else set())
    unknown = [k for k in keys if k not in known]
    if unknown:
        return f"unknown key {unknown[0]!r} in a journal record"
    missing = [k for k in _RECORD_KEYS + (("crc",) if sealed else ()) if k not in record]
    if missing:
        return "the record lacks " + ", ".join(f'"{k}"' for k in missing)
    for key in ("seq", "nextReference"):
        if type(record[key]) is not int or record[key] < 1:
            return f'"{key}" must be a positive integer'
    time = record["time"]
    try:
        if not isinstance(time, str):
            raise ValueError
        dt.datetime.fromisoformat(time.replace("Z", "+00:00"))
    except ValueError:
        return '"time" must be a date (ISO 8601)'
    if "author" in record and record["author"] is not None and not isinstance(record["author"], str):
        return '"author" must be a string'
    if sealed and not isinstance(record["crc"], str):
        return '"crc" must be a string'
    for key in ("inserted", "updated"):
        groups = record[key]
        if not isinstance(groups, dict):
            return f'"{key}" must be an object of objects by entity'
        for name, objs in groups.items():
            if model is not None and (name not in model.entities or model.is_abstract(name)):
                return f'"{key}" names {name!r}, not a concrete entity of the model'
            if not isinstance(objs, list):
                return f'"{key}": {name} must be an array of objects'
            for obj in objs:
                if (not isinstance(obj, dict) or set(obj) - {"ref", "version", "values"}
                        or type(obj.get("ref")) is not int or type(obj.get("version")) is not int
                        or not isinstance(obj.get("values", {}), dict)):
                    return f'"{key}": {name} holds an object that is not {{"ref","version","values"}}'
    deleted = record["deleted"]
    if not isinstance(deleted, list):
        return '"deleted" must be an array'
    for gone in deleted:
        if (not isinstance(gone, dict) or set(gone) != {"entity", "reference"} or not isinstance(gone["entity"], str)
                or type(gone["reference"]) is not int or gone["reference"] < 1):
            return 'a deleted object has exactly "entity" (a string) and "reference" (a positive integer)'
        if model is not None and gone["entity"] not in model.entities:
            return f"a deleted object names {gone['entity']!r}, not an entity of the model"
    return None


def read_journal(journal: bytes, path: Union[str, Path] = "journal",
                 model: Optional[Model] = None) -> Tuple[List[Tuple[int, Dict[str, Any]]], int, int]:
    """The verified records of a journal or history file (docs/FILE_FORMAT.md, "Verifying a
    record from another language"): ``([(offset, record), …], torn bytes, format version)``.

    A version 2 file begins with :data:`JOURNAL_HEADER` and every record must verify its
    CRC-32C; a version 1 file (no header) has no checksums. Every record must meet the
    schema. Only the bytes after the last newline are a tear; a complete line that fails a
    check raises StoreFileError naming its byte offset."""
    lines = journal.split(b"\n")
    tail = lines.pop()  # the bytes after the last newline: a torn record, if any
    version, offset, records = 1, 0, []
    if lines and lines[0].startswith(b'{"format":'):
        if lines[0] != JOURNAL_HEADER:
            raise StoreFileError(f"{path}: damaged journal at byte 0: the first line is not the header {JOURNAL_HEADER.decode()}")
        version, offset = 2, len(lines[0]) + 1
        lines = lines[1:]
    for line in lines:
        if version == 2:
            reason = verify_checksum(line)
            if reason is not None:
                raise StoreFileError(f"{path}: damaged journal at byte {offset}: {reason}")
        try:
            record = json.loads(line.decode("utf-8"), object_pairs_hook=_reject_duplicates)
        except ValueError as error:
            raise StoreFileError(f"{path}: damaged journal at byte {offset}: not a JSON record ({error})")
        reason = check_record(record, version == 2, model)
        if reason is not None:
            raise StoreFileError(f"{path}: damaged journal at byte {offset}: {reason}")
        records.append((offset, record))
        offset += len(line) + 1
    return records, len(tail), version


def apply_journal(model: Optional[Model], document: Dict[str, Any], journal: bytes,
                  path: Union[str, Path] = "journal") -> Tuple[Dict[str, Any], int]:
    """A live store is its snapshot plus its journal (docs/FILE_FORMAT.md, "The journal"):
    returns the snapshot ``document`` with the journal's records applied, as a checkpoint
    would write it, and the number of bytes of a torn last record that was left out.

    Records are read and verified by :func:`read_journal` (checksums, schema; only a last
    line without its ``\\n`` is torn); records at or below the snapshot's
    ``commitSequence`` are already in it; ``seq`` grows by 1; any damage raises
    StoreFileError."""
    metadata = dict(document["metadata"])
    base = metadata.get("commitSequence", 0)
    objects: Dict[str, Dict[int, Any]] = {name: {o["ref"]: o for o in objs} for name, objs in document["objects"].items()}
    entity_of = {ref: name for name, objs in objects.items() for ref in objs}
    deleted = set()
    records, torn, _ = read_journal(journal, path, model)
    expected = None
    for offset, record in records:
        seq = record["seq"]
        if type(seq) is not int or (expected is not None and seq != expected) or (expected is None and seq > base + 1):
            raise StoreFileError(f"{path}: record at byte {offset} has seq {seq!r}, expected {expected or base + 1}")
        expected = seq + 1
        if seq > base:
            for key in ("inserted", "updated"):
                for name, objs in record.get(key, {}).items():
                    for obj in objs:
                        ref = obj["ref"]
                        if (ref in entity_of) != (key == "updated") or entity_of.get(ref, name) != name:
                            raise StoreFileError(f"{path}: record {seq} {key} {name} {ref}, which is not possible here")
                        objects.setdefault(name, {})[ref] = obj
                        entity_of[ref] = name
            for gone in record.get("deleted", []):
                name, ref = gone["entity"], gone["reference"]
                if entity_of.get(ref) != name:
                    raise StoreFileError(f"{path}: record {seq} deletes {name} {ref}, which does not exist")
                del objects[name][ref]
                del entity_of[ref]
                deleted.add(ref)
            metadata["nextReference"] = max(metadata["nextReference"], record.get("nextReference", 1))
            metadata["commitSequence"] = seq
    # Links to objects the journal deleted are left out, as the snapshot writer does.
    for name, objs in (objects.items() if model is not None else ()):
        for obj in objs.values():
            for p in model.properties(name):
                value = obj["values"].get(p["name"])
                if p["kind"] != "relationship" or value is None:
                    continue
                if isinstance(value, list):
                    obj["values"][p["name"]] = [r for r in value if r not in deleted or r in entity_of]
                elif value in deleted and value not in entity_of:
                    obj["values"][p["name"]] = None
    result = dict(document)
    result["metadata"] = metadata
    result["objects"] = {name: [objs[ref] for ref in sorted(objs)] for name, objs in sorted(objects.items()) if objs}
    return result, torn


def canonical_graph(model: Model, graph: Graph) -> Dict[str, Any]:
    """``graph`` in canonical form (see the module's documentation), for comparing graphs."""
    result: Dict[str, Any] = {}
    for name in sorted(graph):
        result[name] = {}
        for ref in sorted(graph[name]):
            values = {}
            for p in model.properties(name):
                value = graph[name][ref][p["name"]]
                if p["kind"] == "attribute":
                    values[p["name"]] = canonical_attribute(p["type"], value)
                elif p.get("toMany", False) and not p.get("ordered", False):
                    values[p["name"]] = sorted(value)
                else:
                    values[p["name"]] = value
            result[name][str(ref)] = values
    return result


def file_objects(model: Model, graph: Graph, version: int = 1) -> Dict[str, List[Dict[str, Any]]]:
    """``graph`` (Python values) as the ``objects`` argument of :func:`build_store` (file forms)."""
    result: Dict[str, List[Dict[str, Any]]] = {}
    for name, objects in graph.items():
        result[name] = []
        for ref, values in objects.items():
            written = {}
            for p in model.properties(name):
                value = values.get(p["name"])
                written[p["name"]] = encode_attribute(p["type"], value) if p["kind"] == "attribute" else value
            result[name].append({"ref": ref, "version": version, "values": written})
    return result


# -- the interoperability sample (Tests/JSONAtomicStoreTests/Fixtures/interop/catalog.model.json) --

SAMPLE_UUID = "5d8f0c9e-2b7a-4c41-8e0f-7a6b5c4d3e2f"


def sample_graph() -> Graph:
    """Every attribute type at its edges, and every kind of relationship."""
    utc = dt.timezone.utc
    return {
        "Author": {
            1: {"name": "Ursula K. Le Guin", "books": [2, 3]},
            9: {"name": "Ünïcödé \"quoted\" \\ back\nslash\ttab 🎵 日本語", "books": []},
        },
        "Book": {
            2: {"name": "The Dispossessed", "pages": 32767, "words": -2147483648,
                "isbn": 9223372036854775807, "price": decimal.Decimal("12345678901234567890.123"),
                "rating": 0.1, "weight": 0.1, "published": dt.datetime(1974, 5, 1, 12, 30, 0, 250000, utc),
                "inPrint": True, "cover": bytes(range(256)) * 400, "uid": uuid.UUID("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
                "homepage": "https://example.com/books/dispossessed?lang=en&x=%20y",
                "author": 1, "chapters": [5, 4], "tags": [7, 8]},
            3: {"name": "", "pages": -32768, "words": 0, "isbn": -9223372036854775808,
                "price": decimal.Decimal("-0.5"), "rating": math.nan, "weight": -math.inf,
                "published": dt.datetime(1969, 12, 31, 23, 59, 59, 999000, utc), "inPrint": False,
                "cover": b"", "uid": uuid.UUID("00000000-0000-0000-0000-000000000000"), "homepage": None,
                "author": 1, "chapters": [], "tags": []},
            10: {"name": "Orphan", "pages": 1, "words": 1, "isbn": 1, "price": decimal.Decimal("0"),
                 "rating": 1e-300, "weight": None, "published": dt.datetime(2038, 1, 19, 3, 14, 8, 0, utc),
                 "inPrint": True, "cover": None, "uid": uuid.UUID("ffffffff-ffff-4fff-bfff-ffffffffffff"),
                 "homepage": "mailto:someone@example.com", "author": None, "chapters": [], "tags": [8]},
        },
        "Chapter": {
            4: {"title": "Anarres", "number": 2, "book": 2},
            5: {"title": "Urras", "number": 1, "book": 2},
        },
        "Magazine": {
            6: {"name": "Galaxy", "issue": 2147483647, "tags": [7]},
        },
        "Tag": {
            7: {"label": "sf", "items": [2, 6]},
            8: {"label": "classic", "items": [2, 10]},
        },
    }


def main(argv: List[str]) -> int:
    if len(argv) < 3 or argv[1] not in ("write-sample", "dump", "sample") or (argv[1] != "sample" and len(argv) < 4):
        print(__doc__, file=sys.stderr)
        return 2
    model = Model.load(argv[2])
    try:
        if argv[1] == "write-sample":
            document = build_store(model, file_objects(model, sample_graph()), store_uuid=SAMPLE_UUID,
                                   user_info={"writtenBy": "store_file.py"})
            write_store_file(argv[3], document)
        elif argv[1] == "sample":
            print(json.dumps(canonical_graph(model, sample_graph()), ensure_ascii=False, sort_keys=True))
        else:
            print(json.dumps(canonical_graph(model, read_graph(model, argv[3])), ensure_ascii=False, sort_keys=True))
    except StoreFileError as error:
        print(f"store_file.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
