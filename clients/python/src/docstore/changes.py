"""Live changes: what each commit changed, pushed by a subscription or pulled by ``changes``.

The server numbers its commits 1, 2, … (``seq``). A :class:`~docstore.Subscription` (made by
:meth:`docstore.Client.subscribe`) receives one :class:`Change` per commit that touches what
it watches, in commit order, on a connection of its own; :meth:`docstore.Client.changes`
reads the same records on request. See ``docs/PROTOCOL.md`` (``subscribe``, ``changes``).
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

from .errors import ProtocolError
from .values import ObjectID

__all__ = ["Change", "ChangedObject", "ChangeBatch"]


class ChangedObject:
    """An object as a commit left it: :attr:`id`, :attr:`entity`, :attr:`version` and its
    :attr:`values` in wire form (``docs/PROTOCOL.md``, Values), or ``None`` when the
    subscription asked for no values (``include_values=False``)."""

    __slots__ = ("id", "entity", "version", "values")

    def __init__(self, id: ObjectID, entity: str, version: int, values: Optional[Dict[str, Any]]) -> None:
        self.id = id
        self.entity = entity
        self.version = version
        self.values = values

    @classmethod
    def from_wire(cls, item: Any, where: str) -> "ChangedObject":
        """Reads ``{"id","entity","version","values"?}``."""
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise ProtocolError(f"{where} is not an object with an id: {str(item)[:200]}")
        version = item.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ProtocolError(f"{where}.version is not an integer: {str(item)[:200]}")
        values = item.get("values")
        if values is not None and not isinstance(values, dict):
            raise ProtocolError(f"{where}.values is not an object: {str(item)[:200]}")
        entity = item.get("entity")
        object_id = ObjectID(item["id"])
        return cls(object_id, entity if isinstance(entity, str) else object_id.entity, version, values)

    def __repr__(self) -> str:
        return f"<ChangedObject {self.id} v{self.version}{'' if self.values is not None else ' (no values)'}>"


class Change:
    """What one commit changed, as far as a subscription (or ``changes``) watches it.

    - :attr:`seq`: the commit's number; :attr:`author`: the ``client`` name of the connection
      that saved (``None`` when it gave none); :attr:`timestamp`: when it was committed
      (ISO 8601 text, UTC).
    - :attr:`inserted`, :attr:`updated`: :class:`ChangedObject` lists. For a live query
      (a subscription with a predicate) ``inserted`` are the objects that entered the result
      (new, or changed so that they now match) and ``updated`` those that matched and still do.
    - :attr:`deleted`: IDs of watched objects the commit deleted; :attr:`removed` (live
      queries only): IDs of objects that still exist but no longer match.
    """

    __slots__ = ("subscription", "seq", "author", "timestamp", "inserted", "updated", "deleted", "removed")

    def __init__(self, seq: int, author: Optional[str] = None, timestamp: Optional[str] = None,
                 inserted: Optional[List[ChangedObject]] = None, updated: Optional[List[ChangedObject]] = None,
                 deleted: Optional[List[ObjectID]] = None, removed: Optional[List[ObjectID]] = None,
                 subscription: Optional[int] = None) -> None:
        self.seq = seq
        self.author = author
        self.timestamp = timestamp
        self.inserted = inserted or []
        self.updated = updated or []
        self.deleted = deleted or []
        self.removed = removed or []
        self.subscription = subscription

    @classmethod
    def from_wire(cls, params: Any, where: str = "a change") -> "Change":
        """Reads a ``changes`` notification's params, or a record of a ``changes`` answer."""
        if not isinstance(params, dict):
            raise ProtocolError(f"{where} is not an object: {str(params)[:200]}")
        seq = params.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise ProtocolError(f"{where} has no integer seq: {str(params)[:200]}")
        author = params.get("author")
        timestamp = params.get("timestamp")
        subscription = params.get("subscription")

        def objects(key: str) -> List[ChangedObject]:
            items = params.get(key) or []
            if not isinstance(items, list):
                raise ProtocolError(f"{where}.{key} is not a list")
            return [ChangedObject.from_wire(item, f"{where}.{key}[{index}]") for index, item in enumerate(items)]

        def ids(key: str) -> List[ObjectID]:
            items = params.get(key) or []
            if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
                raise ProtocolError(f"{where}.{key} is not a list of object IDs")
            return [ObjectID(item) for item in items]

        return cls(seq, author if isinstance(author, str) else None, timestamp if isinstance(timestamp, str) else None,
                   objects("inserted"), objects("updated"), ids("deleted"), ids("removed"),
                   subscription if isinstance(subscription, int) else None)

    @property
    def ids(self) -> List[ObjectID]:
        """Every object the change names: inserted, updated, deleted and removed."""
        return ([item.id for item in self.inserted] + [item.id for item in self.updated]
                + list(self.deleted) + list(self.removed))

    def __repr__(self) -> str:
        parts = [f"seq={self.seq}"]
        if self.author is not None:
            parts.append(f"author={self.author!r}")
        for key in ("inserted", "updated", "deleted", "removed"):
            items = getattr(self, key)
            if items:
                parts.append(f"{key}={len(items)}")
        return f"<Change {' '.join(parts)}>"


class ChangeBatch:
    """The answer to :meth:`docstore.Client.changes`: :attr:`changes` (a list of
    :class:`Change`, in commit order), :attr:`seq` (the last commit examined: pass it as the
    next ``since``) and :attr:`more` (whether more commits follow). Iterating it iterates
    :attr:`changes`."""

    __slots__ = ("changes", "seq", "more")

    def __init__(self, changes: List[Change], seq: int, more: bool) -> None:
        self.changes = changes
        self.seq = seq
        self.more = more

    @classmethod
    def from_wire(cls, result: Any) -> "ChangeBatch":
        """Reads ``{"changes": [records], "seq": Int, "more": Bool}``."""
        if not isinstance(result, dict) or not isinstance(result.get("changes"), list):
            raise ProtocolError(f"the answer to changes has no changes list: {str(result)[:200]}")
        seq = result.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise ProtocolError(f"the answer to changes has no integer seq: {str(result)[:200]}")
        changes = [Change.from_wire(item, f"changes[{index}]") for index, item in enumerate(result["changes"])]
        return cls(changes, seq, result.get("more") is True)

    def __iter__(self) -> Iterator[Change]:
        return iter(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __repr__(self) -> str:
        return f"<ChangeBatch {len(self.changes)} changes, seq={self.seq}, more={self.more}>"
