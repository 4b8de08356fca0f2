"""A unit of work: objects read from the server, changed in Python, saved atomically."""

from __future__ import annotations

import collections
from typing import (TYPE_CHECKING, Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, TypeVar,
                    Union)

from .errors import ModelError, ObjectDeletedError, ProtocolError, ValueConversionError
from .model import Attribute, Model, Relationship
from .objects import DocObject, is_kind_of
from .session_changes import ChangeMerging
from .arguments import argument_to_wire
from .values import ObjectID, split_sort_key, to_wire

if TYPE_CHECKING:
    from .changes import Change
    from .client import Client
    from .subscription import Subscription

__all__ = ["SaveResult", "Session", "Sort", "SortSpec"]

_Item = TypeVar("_Item")


class SaveResult(Dict[str, Any]):
    """The server's result of a ``save``, as a dict (``ids``, ``versions``, ``deleted``,
    ``updated``, ``seq``), with :attr:`seq` read out."""

    @property
    def seq(self) -> Optional[int]:
        """The number of the commit that made the save durable (commits are numbered 1, 2,
        …); None for a save that sent nothing, or from a server that does not number them."""
        value = self.get("seq")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class Sort:
    """A sort key: ``Sort("title", case_insensitive=True)``, ``Sort("plays", ascending=False)``.

    A plain string does for most: ``"title"``, ``"-plays"`` (descending), ``"album.title"``."""

    __slots__ = ("key", "ascending", "case_insensitive")

    def __init__(self, key: str, ascending: bool = True, case_insensitive: bool = False) -> None:
        self.key = key
        self.ascending = ascending
        self.case_insensitive = case_insensitive

    def to_wire(self) -> Dict[str, Any]:
        """The wire form, ``{"key": …, "ascending": …, "caseInsensitive": …}``."""
        return {"key": self.key, "ascending": self.ascending, "caseInsensitive": self.case_insensitive}

    def __repr__(self) -> str:
        return f"Sort({self.key!r}, ascending={self.ascending}, case_insensitive={self.case_insensitive})"


SortSpec = Union[str, Sort, Sequence[Union[str, Sort]], None]


class Session(ChangeMerging):
    """A unit of work on the server's object graph, like a Core Data context.

    Objects fetched or inserted through a session belong to it; it holds one object per ID.
    Changes (setting values, :meth:`insert`, :meth:`delete`) are kept in Python until
    :meth:`save` sends them as one atomic ``save``: all of them are applied, or none.
    Used as a context manager, the session saves when the block ends normally and forgets
    its changes when it raises.

    The server keeps inverse relationships and applies delete rules when it saves; objects
    such a save changed are re-read on their next access, so ``album.songs`` holds a song
    whose ``album`` was set once the save is done.

    A session is not thread-safe: use one per thread (they may share a client).

    Other clients' saves reach a session through :meth:`merge` (with the changes of a
    subscription), or by themselves with ``client.session(merge_changes=True)``; see
    :meth:`merge` for what happens to objects with unsaved changes."""

    def __init__(self, client: "Client", prefetch: int = 100, merge_changes: bool = False) -> None:
        if prefetch < 1:
            raise ValueError("prefetch must be at least 1")
        self._client = client
        self._model: Model = client.model()
        self._prefetch = prefetch
        self._objects: Dict[str, DocObject] = {}
        self._faults: Dict[str, DocObject] = {}
        self._inserted: Dict[int, DocObject] = {}
        self._updated: Dict[int, DocObject] = {}
        self._deleted: Dict[int, DocObject] = {}
        self._next_temporary = 0
        self._pending: Deque["Change"] = collections.deque()
        self._subscription: Optional["Subscription"] = None
        if merge_changes:
            self._subscription = client.subscribe(callback=self._pending.append, on_error=self._feed_failed)

    @property
    def client(self) -> "Client":
        """The client this session talks through."""
        return self._client

    @property
    def model(self) -> Model:
        """The server's model."""
        return self._model

    # -- reading -------------------------------------------------------------------------

    def fetch(self, entity: str, predicate: Optional[str] = None, *arguments: Any, sort: SortSpec = None,
              limit: Optional[int] = None, offset: Optional[int] = None,
              include_subentities: bool = True, after: Optional[int] = None) -> List[DocObject]:
        """The objects of ``entity`` that match ``predicate`` (NSPredicate format,
        ``docs/PREDICATES.md``) with ``arguments`` for its ``%@``/``%d``/``%K`` in order,
        sorted by ``sort`` (``"title"``, ``"-plays"``, a :class:`Sort`, or a list of them),
        at most ``limit`` of them after skipping ``offset``.

        ``after``: the ``seq`` of a save's answer (``SaveResult.seq``), from any server on the
        same store: the answer holds that commit (a server behind waits for it, or raises
        :class:`NotCaughtUp`). Needed only to read on one server what was saved through another.

        Objects already in the session with unsaved changes keep their changes (and the
        version they were read at)."""
        self._sync()
        params = self._fetch_params(entity, predicate, arguments, sort, limit, offset, include_subentities, after)
        result = self._client.call("fetch", params)
        return [self._register(item) for item in _list(result, "objects", "fetch")]

    def fetch_ids(self, entity: str, predicate: Optional[str] = None, *arguments: Any, sort: SortSpec = None,
                  limit: Optional[int] = None, offset: Optional[int] = None,
                  include_subentities: bool = True, after: Optional[int] = None) -> List[ObjectID]:
        """Like :meth:`fetch`, but only the IDs (nothing is loaded)."""
        params = self._fetch_params(entity, predicate, arguments, sort, limit, offset, include_subentities, after)
        params["resultType"] = "ids"
        return [ObjectID(item) for item in _list(self._client.call("fetch", params), "ids", "fetch")]

    def fetch_stream(self, entity: str, predicate: Optional[str] = None, *arguments: Any, sort: SortSpec = None,
                     limit: Optional[int] = None, offset: Optional[int] = None,
                     include_subentities: bool = True, after: Optional[int] = None) -> Iterator[DocObject]:
        """Like :meth:`fetch`, but yields the objects as the server finds them: its answer
        comes in parts (``docs/PROTOCOL.md``, Streamed answers), so it may be far larger than
        the server's ``--max-answer-bytes`` and the first objects come before the last are
        found. The same objects in the same order as :meth:`fetch`, each registered in the
        session as :meth:`fetch` does::

            for song in session.fetch_stream("Song", "plays > %d", 10, sort="title"):
                ...

        The arguments are checked at once; the request is sent when the iteration starts.
        The client's timeout counts per part, not for the whole answer. When the answer ends
        with an error (an object too large for one line: :class:`~docstore.TooLargeError`),
        it is raised after the objects of the parts before it, which are void: the answer is
        the error. Stopping early (``break``, or closing the iterator) drops the rest of the
        answer as it arrives, and the client goes on.

        The server answers the client's later requests after the stream's last line: a call
        made on the same client before the iteration ends (loading a fault, say) waits for
        it, and the parts read meanwhile are kept in memory."""
        params = self._fetch_params(entity, predicate, arguments, sort, limit, offset, include_subentities, after)
        return self._stream(params, "objects", self._register)

    def fetch_ids_stream(self, entity: str, predicate: Optional[str] = None, *arguments: Any,
                         sort: SortSpec = None, limit: Optional[int] = None, offset: Optional[int] = None,
                         include_subentities: bool = True, after: Optional[int] = None) -> Iterator[ObjectID]:
        """Like :meth:`fetch_stream`, but only the IDs (nothing is loaded)."""
        params = self._fetch_params(entity, predicate, arguments, sort, limit, offset, include_subentities, after)
        params["resultType"] = "ids"
        return self._stream(params, "ids", ObjectID)

    def count(self, entity: str, predicate: Optional[str] = None, *arguments: Any,
              include_subentities: bool = True, after: Optional[int] = None) -> int:
        """How many objects of ``entity`` match ``predicate`` (all of them without one);
        ``after`` as for :meth:`fetch`."""
        params = self._fetch_params(entity, predicate, arguments, None, None, None, include_subentities, after)
        params["resultType"] = "count"
        result = self._client.call("fetch", params)
        count = result.get("count") if isinstance(result, dict) else None
        if not isinstance(count, int):
            raise ProtocolError(f"the answer to a count has no count: {result!r}")
        return count

    def get(self, *ids: Union[str, DocObject], after: Optional[int] = None) -> List[Optional[DocObject]]:
        """The objects with these IDs, read now, in order; ``None`` where there is none;
        ``after`` as for :meth:`fetch`."""
        self._sync()
        wanted = [_id_of(item) for item in ids]
        if not wanted:
            return []
        params: Dict[str, Any] = {"ids": wanted}
        if after is not None:
            params["after"] = _after(after)
        result = self._client.call("get", params)
        objects = _list(result, "objects", "get")
        if len(objects) != len(wanted):
            raise ProtocolError(f"get asked for {len(wanted)} objects and the answer holds {len(objects)}")
        found: List[Optional[DocObject]] = []
        for requested, item in zip(wanted, objects):
            if item is None:
                self._forget(requested)
                found.append(None)
            else:
                found.append(self._register(item))
        return found

    def object(self, id: Union[str, DocObject]) -> DocObject:
        """The object with this ID, without a round trip: a fault whose values load on
        first access (:class:`~docstore.ObjectDeletedError` then, if it does not exist)."""
        if isinstance(id, DocObject):
            if id.session is not self:
                return self.object(_id_of(id))
            return id
        object_id = ObjectID(id)
        return self._object_for(object_id, None)

    # -- changing ------------------------------------------------------------------------

    def insert(self, entity: str, **values: Any) -> DocObject:
        """A new object of ``entity`` with ``values``; the rest start at the model's
        defaults. It gets its permanent ID when the session is saved."""
        description = self._model.entity(entity)
        if description.abstract:
            raise ModelError(f"{entity} is abstract: insert one of its sub-entities")
        self._next_temporary += 1
        obj = DocObject(self, description, None, temporary_id=f"new-{self._next_temporary}")
        for prop in description.properties.values():
            if isinstance(prop, Attribute):
                obj._values[prop.name] = to_wire(prop.type, prop.default)
            else:
                obj._values[prop.name] = [] if prop.to_many else None
        for key, value in values.items():
            obj[key] = value  # refuses a bad value before the object joins the session
        self._inserted[id(obj)] = obj
        return obj

    def delete(self, obj: DocObject) -> None:
        """Marks ``obj`` for deletion when the session is saved. The entity's delete rules
        are applied by the server then (``cascade`` deletes related objects, ``deny``
        refuses the save while related objects remain)."""
        self._check_mine(obj)
        if obj._gone:
            raise ObjectDeletedError(f"{obj._describe()} is already deleted")
        if id(obj) in self._inserted:
            del self._inserted[id(obj)]
            obj._deleted = True
            return
        if not obj._loaded:
            self._load(obj)  # the version the deletion is based on
        obj._deleted = True
        self._updated.pop(id(obj), None)
        self._deleted[id(obj)] = obj

    @property
    def has_changes(self) -> bool:
        """Whether :meth:`save` has anything to send."""
        return bool(self._inserted or self._deleted or any(o._changes for o in self._updated.values()))

    @property
    def inserted(self) -> List[DocObject]:
        """Objects inserted and not saved yet."""
        return list(self._inserted.values())

    @property
    def updated(self) -> List[DocObject]:
        """Objects with unsaved changes (not inserted ones)."""
        return [obj for obj in self._updated.values() if obj._changes]

    @property
    def deleted(self) -> List[DocObject]:
        """Objects marked for deletion."""
        return list(self._deleted.values())

    def save(self) -> SaveResult:
        """Sends every change as one atomic ``save`` and returns the server's result.

        Inserted objects get their permanent IDs, every saved object its new version;
        objects the server changed too (inverses, delete rules) are re-read on their next
        access, and deleted ones leave the session. On an error nothing was saved and the
        session keeps its changes: :class:`~docstore.ConflictError` (re-read with
        :meth:`refresh` and redo the change), :class:`~docstore.ValidationError`,
        :class:`~docstore.NotFoundError`, :class:`~docstore.ConnectionError` (the save may
        or may not have been applied; :meth:`refresh` tells)."""
        self._sync()
        if not self.has_changes:
            return SaveResult({"ids": {}, "versions": {}, "deleted": [], "updated": []})
        params: Dict[str, Any] = {}
        inserts = [{"id": obj._temporary_id, "entity": obj.entity, "values": self._wire_changes(obj)}
                   for obj in self._inserted.values()]
        updates = [{"id": str(obj._id), "version": obj._version, "values": self._wire_changes(obj)}
                   for obj in self._updated.values() if obj._changes]
        deletes = [{"id": str(obj._id), "version": obj._version} for obj in self._deleted.values()]
        if inserts:
            params["insert"] = inserts
        if updates:
            params["update"] = updates
        if deletes:
            params["delete"] = deletes
        result = self._client.call("save", params)
        if not isinstance(result, dict):
            raise ProtocolError(f"the answer to save is not an object: {result!r}")
        self._apply_save(result)
        saved = SaveResult(result)
        self._client._saw_seq(saved.seq)
        return saved

    def rollback(self) -> None:
        """Forgets every unsaved change: inserted objects leave the session, changed ones
        get their read values back, deletions are undone."""
        for obj in self._inserted.values():
            obj._gone = True
        for obj in list(self._updated.values()) + list(self._deleted.values()):
            obj._changes.clear()
            obj._deleted = False
        self._inserted.clear()
        self._updated.clear()
        self._deleted.clear()

    def refresh(self, *objects: Union[DocObject, str]) -> None:
        """Forgets the unsaved changes of these objects (of every object when none are
        named) and re-reads them from the server now, in one ``get``. Objects deleted in the
        store meanwhile become deleted here too."""
        targets: List[DocObject] = []
        for item in (objects or tuple(self._objects.values())):
            obj = item if isinstance(item, DocObject) else self._objects.get(str(item))
            if obj is None:
                obj = self.object(str(item))
            self._check_mine(obj)
            if obj.is_inserted:
                continue
            obj._changes.clear()
            obj._deleted = False
            self._updated.pop(id(obj), None)
            self._deleted.pop(id(obj), None)
            obj._loaded = False
            targets.append(obj)
        for start in range(0, len(targets), 1000):
            self._load_batch(targets[start:start + 1000])

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        try:
            if kind is None:
                self.save()
            else:
                self.rollback()
        finally:
            self.close()

    def __repr__(self) -> str:
        return (f"<Session {len(self._objects)} objects, {len(self._inserted)} inserted, "
                f"{len(self.updated)} changed, {len(self._deleted)} deleted>")

    # -- for objects ---------------------------------------------------------------------

    def _object_for(self, raw_id: Any, destination: Optional[str]) -> DocObject:
        if not isinstance(raw_id, str):
            raise ProtocolError(f"expected an object ID, got {raw_id!r}")
        existing = self._objects.get(raw_id)
        if existing is not None:
            return existing
        object_id = ObjectID(raw_id)
        entity_name = object_id.entity
        if entity_name not in self._model:
            if destination is None:
                raise ModelError(f"{raw_id!r} is not an object ID of this model "
                                 f"(entities: {', '.join(sorted(self._model))})")
            entity_name = destination
        obj = DocObject(self, self._model.entity(entity_name), object_id)
        self._objects[raw_id] = obj
        self._faults[raw_id] = obj
        return obj

    def _load(self, obj: DocObject) -> None:
        """Fires a fault: loads ``obj`` together with other faults of the session (up to
        ``prefetch`` in one ``get``), so walking a relationship costs few round trips."""
        batch = [obj]
        for other in self._faults.values():
            if len(batch) >= self._prefetch:
                break
            if other is not obj:
                batch.append(other)
        self._load_batch(batch)
        if obj._gone:
            raise ObjectDeletedError(f"{obj._describe()} does not exist (deleted, or never saved)")

    def _load_batch(self, batch: List[DocObject]) -> None:
        ids = [str(obj._id) for obj in batch]
        result = self._client.call("get", {"ids": ids})
        objects = _list(result, "objects", "get")
        if len(objects) != len(ids):
            raise ProtocolError(f"get asked for {len(ids)} objects and the answer holds {len(objects)}")
        for obj, item in zip(batch, objects):
            if item is None:
                self._forget(str(obj._id))
            else:
                self._register(item)

    def _did_change(self, obj: DocObject) -> None:
        if obj._id is not None:
            self._updated[id(obj)] = obj

    def _check_mine(self, obj: Any) -> None:
        if not isinstance(obj, DocObject):
            raise ValueConversionError(f"expected an object of this session, got {type(obj).__name__} {obj!r}")
        if obj.session is not self:
            raise ValueConversionError(
                f"{obj!r} belongs to another session; use session.object(obj) to get this session's")

    def _check_related(self, owner: DocObject, relationship: Relationship, value: Any) -> None:
        self._check_mine(value)
        if not is_kind_of(self._model.entities, value.entity_description, relationship.destination):
            raise ValueConversionError(
                f"{owner.entity}.{relationship.name} holds {relationship.destination} objects, not {value.entity}")
        if value._gone:
            raise ObjectDeletedError(f"{value._describe()} is deleted and cannot be related to")

    # -- internals -----------------------------------------------------------------------

    def _fetch_params(self, entity: str, predicate: Optional[str], arguments: Sequence[Any], sort: SortSpec,
                      limit: Optional[int], offset: Optional[int], include_subentities: bool,
                      after: Optional[int] = None) -> Dict[str, Any]:
        self._model.entity(entity)
        params: Dict[str, Any] = {"entity": entity}
        if predicate is not None:
            params["predicate"] = predicate
        if arguments:
            if predicate is None:
                raise ValueError("arguments were given without a predicate")
            params["arguments"] = [argument_to_wire(value) for value in arguments]
        sort_keys = _sort_keys(sort)
        if sort_keys:
            params["sort"] = sort_keys
        if limit is not None:
            params["limit"] = limit
        if offset is not None:
            params["offset"] = offset
        if not include_subentities:
            params["includeSubentities"] = False
        if after is not None:
            params["after"] = _after(after)
        return params

    def _stream(self, params: Dict[str, Any], key: str, convert: Callable[[Any], _Item]) -> Iterator[_Item]:
        """Sends a streamed ``fetch`` and yields each element of its ``key`` list
        (``objects`` or ``ids``) through ``convert``: the parts', then the last line's."""
        if key == "objects":
            self._sync()  # as fetch: the merged changes first, then what the fetch reads
        call = self._client.submit("fetch", params, stream=True)
        try:
            received = 0
            while True:
                part = call.next_part()
                if part is None:
                    break
                items = _list(part, key, "fetch")
                received += len(items)
                for item in items:
                    yield convert(item)
            result = call.result()
            items = _list(result, key, "fetch")
            count = result.get("count")
            if count != received + len(items):
                raise ProtocolError(f"a streamed fetch sent {received + len(items)} {key} and counted {count!r}")
            for item in items:
                yield convert(item)
        finally:
            call.abandon()  # stopped early: the rest is dropped as it arrives

    def _register(self, item: Any) -> DocObject:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not isinstance(item.get("values"), dict):
            raise ProtocolError(f"expected an object with id and values, got {item!r}")
        obj = self._object_for(item["id"], item.get("entity"))
        if obj._changes or obj._deleted:
            return obj  # unsaved changes stay, on top of the version they were read at
        obj._values = item["values"]
        obj._version = item.get("version")
        obj._loaded = True
        obj._gone = False
        self._faults.pop(item["id"], None)
        return obj

    def _forget(self, raw_id: str) -> None:
        obj = self._objects.pop(raw_id, None)
        self._faults.pop(raw_id, None)
        if obj is not None:
            obj._gone = True
            obj._loaded = True
            obj._changes.clear()
            self._updated.pop(id(obj), None)
            self._deleted.pop(id(obj), None)

    def _wire_changes(self, obj: DocObject) -> Dict[str, Any]:
        values: Dict[str, Any] = {}
        for key, value in obj._changes.items():
            prop = obj.entity_description.property(key)
            if isinstance(prop, Attribute):
                values[key] = to_wire(prop.type, value)
            elif prop.to_many:
                values[key] = [self._reference(item) for item in value]
            else:
                values[key] = None if value is None else self._reference(value)
        return values

    def _reference(self, obj: DocObject) -> str:
        if obj._id is not None:
            return str(obj._id)
        if id(obj) in self._inserted and obj._temporary_id is not None:
            return obj._temporary_id
        raise ValueConversionError(f"{obj!r} was inserted and then deleted or rolled back; it cannot be related to")

    def _apply_save(self, result: Dict[str, Any]) -> None:
        ids = result.get("ids") or {}
        versions = result.get("versions") or {}
        for obj in self._inserted.values():
            permanent = ids.get(obj._temporary_id)
            if not isinstance(permanent, str):
                raise ProtocolError(f"the save's answer has no ID for inserted {obj._temporary_id}")
            obj._id = ObjectID(permanent)
            self._objects[permanent] = obj
        for raw_id in result.get("deleted") or []:
            if isinstance(raw_id, str):
                self._forget(raw_id)
        for obj in list(self._inserted.values()) + list(self._updated.values()):
            obj._changes.clear()
        # Every saved object, and every other one the server changed, is re-read on its
        # next access: the server may have changed more than was sent (inverses, rules).
        for raw_id, version in versions.items():
            saved = self._objects.get(raw_id)
            if saved is not None and not saved._gone:
                saved._version = version
                saved._loaded = False
                saved._values = {}
                self._faults[raw_id] = saved
        for raw_id in result.get("updated") or []:
            changed = self._objects.get(raw_id) if isinstance(raw_id, str) else None
            if changed is not None and not changed._gone and changed._loaded:
                changed._loaded = False
                self._faults[raw_id] = changed
        self._inserted.clear()
        self._updated.clear()
        self._deleted.clear()


def _sort_keys(sort: SortSpec) -> List[Dict[str, Any]]:
    if sort is None:
        return []
    items: Iterable[Union[str, Sort]] = [sort] if isinstance(sort, (str, Sort)) else sort
    keys = []
    for item in items:
        if isinstance(item, Sort):
            keys.append(item.to_wire())
        elif isinstance(item, str):
            key, ascending = split_sort_key(item)
            keys.append({"key": key, "ascending": ascending})
        else:
            raise ValueConversionError(f"a sort key is a str ('title', '-plays') or a Sort, not {item!r}")
    return keys


def _id_of(item: Union[str, DocObject]) -> str:
    if isinstance(item, DocObject):
        if item.id is None:
            raise ValueConversionError(f"{item!r} is not saved yet and has no ID")
        return str(item.id)
    if isinstance(item, str):
        return str(item)
    raise ValueConversionError(f"expected an object ID (str) or an object, got {type(item).__name__} {item!r}")


def _list(result: Any, key: str, method: str) -> List[Any]:
    items = result.get(key) if isinstance(result, dict) else None
    if not isinstance(items, list):
        raise ProtocolError(f"the answer to {method} has no {key!r} list: {str(result)[:200]}")
    return items


def _after(value: Any) -> int:
    """``after``: the ``seq`` of a commit, an integer from 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"after must be the seq of a commit (an integer from 0), not {value!r}")
    return value
