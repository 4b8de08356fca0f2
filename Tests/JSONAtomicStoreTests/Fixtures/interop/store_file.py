#!/usr/bin/env python3
"""Reads and writes GraphCore JSON store files with the standard library only.

Written from docs/FILE_FORMAT.md and docs/MODEL.md alone, to prove that those documents
are enough: the interoperability tests run it against the Swift store in both directions.

    store_file.py write-sample MODEL STORE   write the sample graph below as a store file
    store_file.py dump MODEL STORE           check a store file against the documents and
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
import struct
import sys
import unicodedata
import uuid
from typing import Any

FORMAT = "graphcore-json-store"
FORMAT_VERSION = 1
INT_RANGES = {"int16": 16, "int32": 32, "int64": 64}


class StoreFileError(Exception):
    """A store file that does not follow docs/FILE_FORMAT.md."""


# ---------------------------------------------------------------- the model (MODEL.md)

class Entity:
    def __init__(self, spec: dict[str, Any]):
        self.name: str = spec["name"]
        self.parent_name: str | None = spec.get("parent")
        self.abstract: bool = spec.get("abstract", False)
        self.own_attributes: list[dict[str, Any]] = spec.get("attributes", [])
        self.own_relationships: list[dict[str, Any]] = spec.get("relationships", [])
        self.parent: Entity | None = None

    def ancestry(self) -> list["Entity"]:
        chain, entity = [], self
        while entity is not None:
            chain.insert(0, entity)
            entity = entity.parent
        return chain

    def properties(self) -> list[tuple[str, dict[str, Any]]]:
        """(kind, spec) in property order: inherited first, attributes before relationships."""
        result = []
        for entity in self.ancestry():
            result += [("attribute", a) for a in entity.own_attributes]
            result += [("relationship", r) for r in entity.own_relationships]
        return result

    def is_kind_of(self, other: "Entity") -> bool:
        return other in self.ancestry()


def load_model(path: str) -> dict[str, Entity]:
    with open(path, encoding="utf-8") as f:
        entities = {e["name"]: Entity(e) for e in json.load(f)["entities"]}
    for entity in entities.values():
        entity.parent = entities.get(entity.parent_name) if entity.parent_name else None
    return entities


def entity_hash(entity: Entity) -> str:
    lines = [f"entity {entity.name}", f"parent {entity.parent_name or '-'}",
             f"abstract {'true' if entity.abstract else 'false'}"]
    props = sorted(entity.properties(), key=lambda p: unicodedata.normalize("NFC", p[1]["name"]))
    for kind, p in props:
        if kind == "attribute":
            lines.append(f"attribute {p['name']} {p['type']} optional={str(p.get('optional', False)).lower()}")
        else:
            lines.append(f"relationship {p['name']} -> {p['destination']} inverse={p.get('inverse') or '-'} "
                         f"toMany={str(p.get('toMany', False)).lower()} ordered={str(p.get('ordered', False)).lower()}")
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def model_hashes(model: dict[str, Entity]) -> tuple[str, dict[str, str]]:
    hashes = {name: entity_hash(e) for name, e in model.items()}
    joined = ";".join(f"{name}={hashes[name]}" for name in sorted(hashes))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest(), hashes


# ---------------------------------------------------------------- values (FILE_FORMAT.md#values)

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


# ---------------------------------------------------------------- reading

def read_store(model: dict[str, Entity], path: str) -> dict[str, dict[int, dict[str, Any]]]:
    """Loads and checks a store file; returns {entity: {ref: {property: decoded value}}}."""
    with open(path, "rb") as f:
        data = f.read()
    nul = data.find(b"\x00")
    if nul >= 0:
        raise StoreFileError(f"{path}: NUL byte at offset {nul}")
    doc = json.loads(data.decode("utf-8"))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StoreFileError(f"{path}: not a store file")
    if doc.get("formatVersion") != FORMAT_VERSION:
        raise StoreFileError(f"{path}: format version {doc.get('formatVersion')!r} is not supported")
    metadata = doc["metadata"]
    model_hash, hashes = model_hashes(model)
    if metadata.get("entityVersionHashes") != hashes:
        stored = metadata.get("entityVersionHashes") or {}
        differing = sorted(n for n in set(stored) | set(hashes) if stored.get(n) != hashes.get(n))
        raise StoreFileError(f"{path} was written for a different model: {', '.join(differing)}")
    if metadata.get("modelVersionHash") != model_hash:
        raise StoreFileError(f"{path}: modelVersionHash does not match the model")

    graph: dict[str, dict[int, dict[str, Any]]] = {}
    entity_of_ref: dict[int, Entity] = {}
    for name, objects in doc["objects"].items():
        entity = model.get(name)
        if entity is None or entity.abstract:
            raise StoreFileError(f"{path}: {name!r} is not a concrete entity of the model")
        graph[name] = {}
        last_ref = 0
        for obj in objects:
            ref = obj["ref"]
            if type(ref) is not int or ref < 1 or ref in entity_of_ref:
                raise StoreFileError(f"{path}: {name} {ref}: bad or duplicate reference")
            if ref <= last_ref:
                raise StoreFileError(f"{path}: {name}: objects not in ascending ref order at {ref}")
            last_ref = ref
            if type(obj["version"]) is not int or obj["version"] < 1:
                raise StoreFileError(f"{path}: {name} {ref}: bad version")
            entity_of_ref[ref] = entity
            properties = entity.properties()
            names = [p["name"] for _, p in properties]
            unknown = set(obj["values"]) - set(names)
            if unknown:
                raise StoreFileError(f"{path}: {name} {ref}: unknown properties {sorted(unknown)}")
            if list(obj["values"]) != names:
                raise StoreFileError(f"{path}: {name} {ref}: values not in property order")
            values: dict[str, Any] = {}
            for kind, p in properties:
                raw = obj["values"][p["name"]]
                where = f"{name} {ref}, property {p['name']!r}"
                if kind == "attribute":
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
            for kind, p in model[name].properties():
                if kind != "relationship":
                    continue
                targets = values[p["name"]] if p.get("toMany", False) else [values[p["name"]]]
                for target in (t for t in targets if t is not None):
                    where = f"{name} {ref}, property {p['name']!r}"
                    destination = entity_of_ref.get(target)
                    if destination is None:
                        raise StoreFileError(f"{where}: no object has reference {target}")
                    if not destination.is_kind_of(model[p["destination"]]):
                        raise StoreFileError(f"{where}: reference {target} is a {destination.name}")
                    inverse = p.get("inverse")
                    if inverse:
                        back = graph[destination.name][target][inverse]
                        if ref not in (back if isinstance(back, list) else [back]):
                            raise StoreFileError(f"{where}: {destination.name} {target} does not point back")
    return graph


def canonical_graph(model: dict[str, Entity], graph: dict[str, dict[int, dict[str, Any]]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name in sorted(graph):
        result[name] = {}
        for ref in sorted(graph[name]):
            values = {}
            for kind, p in model[name].properties():
                value = graph[name][ref][p["name"]]
                if kind == "attribute":
                    values[p["name"]] = canonical_attribute(p["type"], value)
                elif p.get("toMany", False) and not p.get("ordered", False):
                    values[p["name"]] = sorted(value)
                else:
                    values[p["name"]] = value
            result[name][str(ref)] = values
    return result


# ---------------------------------------------------------------- writing

def write_store(model: dict[str, Entity], path: str, graph: dict[str, dict[int, dict[str, Any]]],
                store_uuid: str) -> None:
    """Writes `graph` as FILE_FORMAT.md says: locked, to a temporary file, fsync, rename, fsync dir."""
    model_hash, hashes = model_hashes(model)
    refs = [ref for objects in graph.values() for ref in objects]
    objects_json: dict[str, list[dict[str, Any]]] = {}
    for name in sorted(graph, key=lambda n: n.encode("utf-8")):
        objects_json[name] = []
        for ref in sorted(graph[name]):
            values = {}
            for kind, p in model[name].properties():
                value = graph[name][ref].get(p["name"])
                if kind == "attribute":
                    values[p["name"]] = encode_attribute(p["type"], value)
                elif p.get("toMany", False):
                    values[p["name"]] = list(value or []) if p.get("ordered", False) else sorted(value or [])
                else:
                    values[p["name"]] = value
            objects_json[name].append({"ref": ref, "version": 1, "values": values})
    doc = {
        "format": FORMAT,
        "formatVersion": FORMAT_VERSION,
        "metadata": {
            "storeType": "JSON",
            "storeUUID": store_uuid,
            "modelVersionHash": model_hash,
            "entityVersionHashes": dict(sorted(hashes.items())),
            "nextReference": max(refs, default=0) + 1,
            "userInfo": {"writtenBy": "store_file.py"},
        },
        "objects": objects_json,
    }
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"
    directory = os.path.dirname(os.path.abspath(path))
    lock_fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    with open(lock_fd, "r+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # An unpredictable name, created exclusively, never through a symlink (FILE_FORMAT.md).
        temporary = os.path.join(directory, f".{os.path.basename(path)}.tmp-{os.urandom(8).hex()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with open(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.rename(temporary, path)
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def sample_graph() -> dict[str, dict[int, dict[str, Any]]]:
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


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] not in ("write-sample", "dump", "sample"):
        print(__doc__, file=sys.stderr)
        return 2
    model = load_model(argv[2])
    try:
        if argv[1] == "write-sample":
            write_store(model, argv[3], sample_graph(), "5d8f0c9e-2b7a-4c41-8e0f-7a6b5c4d3e2f")
        elif argv[1] == "sample":
            print(json.dumps(canonical_graph(model, sample_graph()), ensure_ascii=False, sort_keys=True))
        else:
            print(json.dumps(canonical_graph(model, read_store(model, argv[3])), ensure_ascii=False, sort_keys=True))
    except StoreFileError as error:
        print(f"store_file.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
