"""Objects of a session: values by key or attribute, relationships that navigate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, MutableSequence, Optional, Union, overload

from .errors import ObjectDeletedError, ValueConversionError
from .model import Attribute, Entity, Relationship
from .values import ObjectID, from_wire, to_wire

if TYPE_CHECKING:
    from .session import Session

__all__ = ["DocObject", "RelatedList", "is_kind_of"]


class DocObject:
    """One object of the graph, as a :class:`~docstore.Session` holds it.

    Read and write properties by key (``song["title"]``) or as attributes
    (``song.title``); a property whose name clashes with a name below (``id``, ``entity``,
    ``version``, ``session``, ``keys``, …) is reached by key only. Attributes hold Python
    values (see :mod:`docstore.values`); a to-one relationship holds another ``DocObject``
    or ``None``; a to-many holds a :class:`RelatedList`. Related objects load on first
    access. A session holds one ``DocObject`` per ID, so ``is`` compares objects.

    Changes stay in the session until :meth:`Session.save`.
    """

    __slots__ = ("_session", "_entity", "_id", "_temporary_id", "_version", "_values",
                 "_changes", "_lists", "_loaded", "_deleted", "_gone")
    _session: "Session"
    _entity: Entity
    _id: Optional[ObjectID]
    _temporary_id: Optional[str]
    _version: Optional[int]
    _values: Dict[str, Any]
    _changes: Dict[str, Any]
    _lists: Dict[str, "tuple[Any, RelatedList]"]
    _loaded: bool
    _deleted: bool
    _gone: bool

    def __init__(self, session: "Session", entity: Entity, id: Optional[ObjectID],
                 temporary_id: Optional[str] = None) -> None:
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_entity", entity)
        object.__setattr__(self, "_id", id)
        object.__setattr__(self, "_temporary_id", temporary_id)
        object.__setattr__(self, "_version", None)
        object.__setattr__(self, "_values", {})      # committed values, wire form
        object.__setattr__(self, "_changes", {})     # unsaved values, Python form
        object.__setattr__(self, "_lists", {})       # to-many lists read, by key: (raw, list)
        object.__setattr__(self, "_loaded", temporary_id is not None)
        object.__setattr__(self, "_deleted", False)  # marked for deletion in the session
        object.__setattr__(self, "_gone", False)     # deleted in the store

    # -- identity and state -------------------------------------------------------------

    @property
    def id(self) -> Optional[ObjectID]:
        """The permanent ID, or ``None`` for an object inserted but not saved yet."""
        return self._id

    @property
    def entity(self) -> str:
        """The entity's name."""
        return self._entity.name

    @property
    def entity_description(self) -> Entity:
        """The entity, with its properties."""
        return self._entity

    @property
    def version(self) -> Optional[int]:
        """The version this session read (``None`` before the first save or load)."""
        if not self._loaded and self._temporary_id is None and not self._gone:
            self._session._load(self)
        return self._version

    @property
    def session(self) -> "Session":
        """The session this object belongs to."""
        return self._session

    @property
    def is_inserted(self) -> bool:
        """Inserted in the session and not saved yet."""
        return self._temporary_id is not None and self._id is None

    @property
    def is_deleted(self) -> bool:
        """Marked for deletion in the session, or deleted in the store."""
        return self._deleted or self._gone

    @property
    def is_fault(self) -> bool:
        """Whether the values are not loaded yet (reading one loads them)."""
        return not self._loaded

    @property
    def has_changes(self) -> bool:
        """Whether there are unsaved changes to this object's values."""
        return bool(self._changes)

    @property
    def changed_keys(self) -> List[str]:
        """The properties changed since the last save or load."""
        return list(self._changes)

    def keys(self) -> List[str]:
        """Every property name, in the model's order."""
        return list(self._entity.properties)

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` when the entity has no such property."""
        if key not in self._entity.properties:
            return default
        return self[key]

    def to_dict(self) -> Dict[str, Any]:
        """Every property as a Python value; relationships as IDs (``None`` for an object
        not saved yet)."""
        result: Dict[str, Any] = {}
        for key, prop in self._entity.properties.items():
            value = self[key]
            if isinstance(prop, Relationship):
                value = [item.id for item in value] if prop.to_many else (value.id if value is not None else None)
            result[key] = value
        return result

    # -- values ------------------------------------------------------------------------

    def __getitem__(self, key: str) -> Any:
        prop = self._entity.property(key)
        if self._session._pending:
            self._session._sync()
        if key in self._changes:
            return self._changes[key]
        self._require_values(key)
        raw = self._values.get(key)
        if isinstance(prop, Attribute):
            try:
                return from_wire(prop.type, raw)
            except ValueConversionError as error:
                raise ValueConversionError(f"{self._describe()}.{key}: {error}") from None
        if prop.to_many:
            # The same list for repeated reads, so that changes through any of them add up.
            cached = self._lists.get(key)
            if cached is not None and cached[0] is raw:
                return cached[1]
            items = RelatedList(self, prop, [self._session._object_for(item, prop.destination)
                                             for item in (raw or [])])
            self._lists[key] = (raw, items)
            return items
        return None if raw is None else self._session._object_for(raw, prop.destination)

    def __setitem__(self, key: str, value: Any) -> None:
        prop = self._entity.property(key)
        if self._gone or self._deleted:
            raise ObjectDeletedError(f"{self._describe()} is deleted; its {key} cannot be set")
        if not self._loaded:
            self._session._load(self)  # the version this change is based on
        if isinstance(prop, Attribute):
            try:
                to_wire(prop.type, value)
            except ValueConversionError as error:
                raise ValueConversionError(f"{self.entity}.{key}: {error}") from None
        elif prop.to_many:
            if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                raise ValueConversionError(f"{self.entity}.{key} is to-many: give a list of objects")
            items = list(value)
            for item in items:
                self._session._check_related(self, prop, item)
            value = RelatedList(self, prop, _unique(items))
        elif value is not None:
            self._session._check_related(self, prop, value)
        self._changes[key] = value
        self._session._did_change(self)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        entity = object.__getattribute__(self, "_entity")
        if name in entity.properties:
            return self[name]
        known = ", ".join(entity.properties)
        raise AttributeError(f"{entity.name} has no property {name!r} (its properties: {known})")

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if hasattr(type(self), name):
            raise AttributeError(f"{name!r} cannot be set as an attribute; write obj[{name!r}] = value")
        if name in self._entity.properties:
            self[name] = value
            return
        known = ", ".join(self._entity.properties)
        raise AttributeError(f"{self.entity} has no property {name!r} (its properties: {known})")

    def __dir__(self) -> Iterable[str]:
        return sorted(set(object.__dir__(self)) | set(self._entity.properties))

    def __repr__(self) -> str:
        state = ""
        if self._gone:
            state = " deleted"
        elif self._deleted:
            state = " deleting"
        elif self.is_inserted:
            state = " inserted"
        elif not self._loaded:
            state = " fault"
        version = f" v{self._version}" if self._version is not None else ""
        return f"<{self.entity} {self._id or self._temporary_id}{version}{state}>"

    # -- for the session ------------------------------------------------------------------

    def _describe(self) -> str:
        return f"{self.entity} {self._id or self._temporary_id}"

    def _require_values(self, key: str) -> None:
        if self._gone:
            raise ObjectDeletedError(f"{self._describe()} was deleted; its {key} cannot be read")
        if not self._loaded:
            self._session._load(self)

    def _to_many_changed(self, prop: Relationship, items: "RelatedList") -> None:
        if self._gone or self._deleted:
            raise ObjectDeletedError(f"{self._describe()} is deleted; its {prop.name} cannot change")
        if not self._loaded:
            self._session._load(self)
        self._lists.pop(prop.name, None)
        self._changes[prop.name] = items
        self._session._did_change(self)


class RelatedList(MutableSequence):  # type: ignore[type-arg]
    """The objects of a to-many relationship: a list without duplicates.

    Changing it (``append``, ``remove``, ``insert``, ``del``, slice assignment, ``clear``)
    changes the relationship, saved with the session; appending an object already there
    does nothing. For an unordered relationship the order means nothing (the server keeps
    them by reference)."""

    __slots__ = ("_owner", "_relationship", "_items")

    def __init__(self, owner: DocObject, relationship: Relationship, items: List[DocObject]) -> None:
        self._owner = owner
        self._relationship = relationship
        self._items = items

    @property
    def ids(self) -> List[Optional[ObjectID]]:
        """The objects' IDs, without loading them."""
        return [item.id for item in self._items]

    @overload
    def __getitem__(self, index: int) -> DocObject: ...

    @overload
    def __getitem__(self, index: slice) -> List[DocObject]: ...

    def __getitem__(self, index: Union[int, slice]) -> Any:
        return self._items[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        new = list(self._items)
        new[index] = value
        self._replace(new)

    def __delitem__(self, index: Any) -> None:
        new = list(self._items)
        del new[index]
        self._replace(new)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[DocObject]:
        return iter(list(self._items))

    def __contains__(self, value: object) -> bool:
        return any(item is value for item in self._items)

    def extend(self, values: Iterable[DocObject]) -> None:
        """Appends each of ``values`` that is not there yet, as one change."""
        new = list(self._items)
        for value in values:
            if not any(item is value for item in new):
                new.append(value)
        self._replace(new)

    def insert(self, index: int, value: DocObject) -> None:
        """Inserts ``value`` at ``index`` (nothing happens if it is already there)."""
        if value in self:
            return
        new = list(self._items)
        new.insert(index, value)
        self._replace(new)

    def remove(self, value: DocObject) -> None:
        """Removes ``value``; ``ValueError`` if it is not there."""
        for index, item in enumerate(self._items):
            if item is value:
                del self[index]
                return
        raise ValueError(f"{value!r} is not in {self._owner.entity}.{self._relationship.name}")

    def index(self, value: Any, start: int = 0, stop: Optional[int] = None) -> int:
        """The position of ``value``."""
        end = len(self._items) if stop is None else stop
        for position in range(start, min(end, len(self._items))):
            if self._items[position] is value:
                return position
        raise ValueError(f"{value!r} is not in {self._owner.entity}.{self._relationship.name}")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RelatedList):
            other = other._items
        if not isinstance(other, list) or len(other) != len(self._items):
            return False
        return all(a is b for a, b in zip(self._items, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._items)

    def _replace(self, new: List[DocObject]) -> None:
        for item in new:
            self._owner._session._check_related(self._owner, self._relationship, item)
        if len({id(item) for item in new}) != len(new):
            raise ValueError(f"{self._owner.entity}.{self._relationship.name} cannot hold an object twice")
        self._items = new
        self._owner._to_many_changed(self._relationship, self)


def _unique(items: List[DocObject]) -> List[DocObject]:
    seen = set()
    result = []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            result.append(item)
    return result


def is_kind_of(model_entities: Dict[str, Entity], entity: Entity, destination: str) -> bool:
    """Whether ``entity`` is ``destination`` or one of its sub-entities."""
    current: Optional[Entity] = entity
    while current is not None:
        if current.name == destination:
            return True
        current = model_entities.get(current.parent) if current.parent else None
    return False

