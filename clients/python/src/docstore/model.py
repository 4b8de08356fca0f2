"""The server's model, as the client reads it from the ``model`` method (``docs/MODEL.md``)."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Union

from .errors import ModelError, ProtocolError, ValueConversionError
from .values import from_wire

__all__ = ["Model", "Entity", "Attribute", "Relationship"]


class Attribute:
    """An attribute: ``name``, ``type`` (``"int64"``, ``"date"``, …), ``optional`` and the
    ``default`` as a Python value (``None`` when there is none)."""

    __slots__ = ("name", "type", "optional", "default")
    is_relationship = False

    def __init__(self, name: str, type: str, optional: bool, default: Any) -> None:
        self.name = name
        self.type = type
        self.optional = optional
        self.default = default

    def __repr__(self) -> str:
        return f"Attribute({self.name!r}, {self.type!r}, optional={self.optional})"


class Relationship:
    """A relationship: ``name``, ``destination`` entity name, ``inverse`` name (or ``None``),
    ``to_many``, ``ordered``, ``delete_rule``, ``optional``, ``min_count``, ``max_count``."""

    __slots__ = ("name", "destination", "inverse", "to_many", "ordered", "delete_rule",
                 "optional", "min_count", "max_count")
    is_relationship = True

    def __init__(self, name: str, destination: str, inverse: Optional[str], to_many: bool,
                 ordered: bool, delete_rule: str, optional: bool, min_count: Optional[int],
                 max_count: Optional[int]) -> None:
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.to_many = to_many
        self.ordered = ordered
        self.delete_rule = delete_rule
        self.optional = optional
        self.min_count = min_count
        self.max_count = max_count

    def __repr__(self) -> str:
        kind = "to-many" if self.to_many else "to-one"
        return f"Relationship({self.name!r}, {kind} {self.destination!r}, inverse={self.inverse!r})"


Property = Union[Attribute, Relationship]


class Entity:
    """An entity: its ``name``, ``parent`` name, whether it is ``abstract``, and its
    ``properties`` (inherited ones first, in the model's order)."""

    def __init__(self, name: str, parent: Optional[str], abstract: bool,
                 properties: "Dict[str, Property]") -> None:
        self.name = name
        self.parent = parent
        self.abstract = abstract
        self.properties = properties

    @property
    def attributes(self) -> List[Attribute]:
        """The attributes, inherited ones first."""
        return [p for p in self.properties.values() if isinstance(p, Attribute)]

    @property
    def relationships(self) -> List[Relationship]:
        """The relationships, inherited ones first."""
        return [p for p in self.properties.values() if isinstance(p, Relationship)]

    def property(self, key: str) -> Property:
        """The property named ``key``; :class:`ModelError` names the keys there are."""
        found = self.properties.get(key)
        if found is None:
            known = ", ".join(self.properties) or "none"
            raise ModelError(f"{self.name} has no property {key!r} (its properties: {known})")
        return found

    def __repr__(self) -> str:
        return f"Entity({self.name!r}, {len(self.properties)} properties)"


class Model:
    """The server's model: entities by name (``model["Song"]``, ``"Song" in model``,
    iteration over entity names). ``raw`` is the model file as the server sent it."""

    def __init__(self, raw: Dict[str, Any]) -> None:
        self.raw = raw
        self.entities: Dict[str, Entity] = _read_entities(raw)

    def entity(self, name: str) -> Entity:
        """The entity named ``name``; :class:`ModelError` names the entities there are."""
        found = self.entities.get(name)
        if found is None:
            known = ", ".join(sorted(self.entities)) or "none"
            raise ModelError(f"the model has no entity {name!r} (its entities: {known})")
        return found

    def __getitem__(self, name: str) -> Entity:
        return self.entity(name)

    def __contains__(self, name: object) -> bool:
        return name in self.entities

    def __iter__(self) -> Iterator[str]:
        return iter(self.entities)

    def __len__(self) -> int:
        return len(self.entities)

    def __repr__(self) -> str:
        return f"Model({', '.join(sorted(self.entities))})"


def _read_entities(raw: Any) -> Dict[str, Entity]:
    if not isinstance(raw, dict) or not isinstance(raw.get("entities"), list):
        raise ProtocolError("the server's model has no 'entities' array")
    declared: Dict[str, Dict[str, Any]] = {}
    for item in raw["entities"]:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ProtocolError(f"the server's model holds an entity without a name: {item!r}")
        declared[item["name"]] = item
    entities: Dict[str, Entity] = {}

    def build(name: str, seen: List[str]) -> Entity:
        if name in entities:
            return entities[name]
        if name in seen:
            raise ProtocolError(f"the server's model has a cycle of parents: {' -> '.join(seen + [name])}")
        item = declared.get(name)
        if item is None:
            raise ProtocolError(f"the server's model names a parent entity {name!r} it does not define")
        properties: Dict[str, Property] = {}
        parent = item.get("parent")
        if isinstance(parent, str):
            properties.update(build(parent, seen + [name]).properties)
        for attribute in item.get("attributes") or []:
            properties[attribute["name"]] = _read_attribute(name, attribute)
        for relationship in item.get("relationships") or []:
            properties[relationship["name"]] = _read_relationship(relationship)
        entity = Entity(name, parent if isinstance(parent, str) else None,
                        bool(item.get("abstract", False)), properties)
        entities[name] = entity
        return entity

    for name in declared:
        build(name, [])
    return entities


def _read_attribute(entity: str, item: Dict[str, Any]) -> Attribute:
    type_name = item.get("type")
    if not isinstance(type_name, str):
        raise ProtocolError(f"{entity}.{item.get('name')} has no type in the server's model")
    try:
        default = from_wire(type_name, item.get("default"))
    except ValueConversionError as error:
        raise ProtocolError(f"the default of {entity}.{item.get('name')} cannot be read: {error}") from None
    return Attribute(item["name"], type_name, bool(item.get("optional", False)), default)


def _read_relationship(item: Dict[str, Any]) -> Relationship:
    to_many = bool(item.get("toMany", False))
    return Relationship(item["name"], item["destination"], item.get("inverse"), to_many,
                        bool(item.get("ordered", False)), item.get("deleteRule", "nullify"),
                        bool(item.get("optional", True)), item.get("minCount"), item.get("maxCount"))
