"""The JSON store file (docs/FILE_FORMAT.md), from Python, written from that document and
docs/MODEL.md alone: version hashes, a deterministic writer that saves the way
the document asks (temporary file, fsync, rename, directory fsync, under the lock), and a
small validator for the JSON Schema keywords docs/store.schema.json uses.

Standard library only, Python 3.9+.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import unicodedata
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

FORMAT = "graphcore-json-store"
FORMAT_VERSION = 1

DATE_PATTERN = re.compile(r"^(?:\d{4}|[+-]\d{6})-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
HASH_PATTERN = re.compile(r"^[0-9a-f]{64}$")
UUID_PATTERN = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


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


# -- writing --------------------------------------------------------------------------------


def build_store(
    model: Model,
    objects: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    store_uuid: str,
    next_reference: Optional[int] = None,
    user_info: Optional[Mapping[str, str]] = None,
) -> Dict[str, Any]:
    """The store document, keys in the documented order (FILE_FORMAT.md, Deterministic output).

    ``objects`` maps concrete entity names to objects ``{"ref", "version", "values"}`` whose
    ``values`` are already in file form (FILE_FORMAT.md, Values; relationships as refs). A property left out is written ``null`` (``[]`` for a to-many);
    unordered to-many lists are sorted ascending.
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
    return {
        "format": FORMAT,
        "formatVersion": FORMAT_VERSION,
        "metadata": {
            "storeType": "JSON",
            "storeUUID": store_uuid.lower(),
            "modelVersionHash": model.version_hash(),
            "entityVersionHashes": model.entity_version_hashes(),
            "nextReference": next_reference,
            "userInfo": dict(sorted((user_info or {}).items())),
        },
        "objects": document_objects,
    }


def serialize(document: Mapping[str, Any]) -> bytes:
    """Compact JSON, non-ASCII characters as themselves, one ``\\n`` at the end."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n"


def write_store_file(path: Union[str, Path], document: Mapping[str, Any]) -> bytes:
    """Saves ``document`` as FILE_FORMAT.md asks another program to: under the lock
    (``<name>.lock``, holding our pid), into ``.<name>.tmp-<pid>``, fsync, rename over the
    store file, fsync the directory. Returns the bytes written."""
    path = Path(path)
    data = serialize(document)
    lock_path = path.with_name(path.name + ".lock")
    lock = os.open(str(lock_path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(lock, 0)
        os.write(lock, str(os.getpid()).encode("ascii"))
        temporary = path.with_name(".%s.tmp-%d" % (path.name, os.getpid()))
        descriptor = os.open(str(temporary), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
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


# -- JSON Schema, the keywords docs/store.schema.json uses --------------------------------

_ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_errors(instance: Any, schema: Mapping[str, Any], root: Optional[Mapping[str, Any]] = None,
                  path: str = "$") -> List[str]:
    """Where ``instance`` breaks ``schema``: a tiny validator for exactly the keywords
    store.schema.json uses (type, const, required, properties, additionalProperties,
    items, $ref to #/$defs, pattern, minimum, maximum, anyOf). Any other keyword is an error,
    so a schema that grows is noticed rather than half-checked."""
    root = schema if root is None else root
    errors: List[str] = []
    for keyword, argument in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        if keyword == "$ref":
            if not argument.startswith("#/$defs/"):
                errors.append("%s: unsupported $ref %s" % (path, argument))
                continue
            errors += schema_errors(instance, root["$defs"][argument[len("#/$defs/"):]], root, path)
        elif keyword == "type":
            if not _TYPES[argument](instance):
                errors.append("%s: %r is not of type %s" % (path, instance, argument))
        elif keyword == "const":
            if type(instance) is not type(argument) or instance != argument:
                errors.append("%s: %r is not %r" % (path, instance, argument))
        elif keyword == "required":
            if isinstance(instance, dict):
                errors += ["%s: %r is missing" % (path, key) for key in argument if key not in instance]
        elif keyword == "properties":
            if isinstance(instance, dict):
                for key, subschema in argument.items():
                    if key in instance:
                        errors += schema_errors(instance[key], subschema, root, "%s.%s" % (path, key))
        elif keyword == "additionalProperties":
            if isinstance(instance, dict):
                named = set(schema.get("properties", {}))
                for key, value in instance.items():
                    if key not in named:
                        if argument is False:
                            errors.append("%s: %r is not allowed" % (path, key))
                        elif argument is not True:
                            errors += schema_errors(value, argument, root, "%s.%s" % (path, key))
        elif keyword == "items":
            if isinstance(instance, list):
                for index, value in enumerate(instance):
                    errors += schema_errors(value, argument, root, "%s[%d]" % (path, index))
        elif keyword == "pattern":
            if isinstance(instance, str) and not re.search(argument, instance):
                errors.append("%s: %r does not match %s" % (path, instance, argument))
        elif keyword == "minimum":
            if _TYPES["number"](instance) and instance < argument:
                errors.append("%s: %r < %r" % (path, instance, argument))
        elif keyword == "maximum":
            if _TYPES["number"](instance) and instance > argument:
                errors.append("%s: %r > %r" % (path, instance, argument))
        elif keyword == "anyOf":
            if all(schema_errors(instance, option, root, path) for option in argument):
                errors.append("%s: %r matches none of anyOf" % (path, instance))
        else:
            errors.append("%s: the schema uses %r, which this validator does not know" % (path, keyword))
    return errors
