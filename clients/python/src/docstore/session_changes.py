"""How a :class:`~docstore.Session` takes other clients' commits: the rules of
:meth:`Session.merge`, and the subscription of a ``merge_changes=True`` session."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Deque, Dict, Optional

if TYPE_CHECKING:
    from .changes import Change
    from .objects import DocObject
    from .subscription import Subscription

__all__ = ["ChangeMerging"]

_log = logging.getLogger("docstore")


class ChangeMerging:
    """The part of :class:`~docstore.Session` that merges other clients' commits."""

    _objects: Dict[str, "DocObject"]
    _faults: Dict[str, "DocObject"]
    _pending: Deque["Change"]
    _subscription: Optional["Subscription"]

    def _forget(self, raw_id: str) -> None:
        """Takes a deleted object out of the session (``Session`` defines it)."""
        raise NotImplementedError

    def merge(self, change: "Change") -> None:
        """Makes the objects this session holds show what a commit (a :class:`~docstore.Change`
        of a subscription or of ``client.changes``) left in the store. Objects the session
        does not hold are not added; inserted objects are left alone. The rules, as a Swift
        context merging another context's save:

        - An object without unsaved changes takes the committed values and version (or,
          when the change carries no values, becomes a fault, re-read on next access). A
          change older than what the session holds (a lower version) is ignored, so merging
          the session's own saves, or merging twice, changes nothing.
        - An object with unsaved changes keeps them, on top of the committed values: reading
          a property it changed gives its own value, any other property the new committed
          one. It counts as read at the new version, so its next save does not conflict and
          sends only its own changes: for a property both changed, **this session's change
          wins**; the other client's changes to other properties are kept. (Without values,
          ``include_values=False``, it keeps the version it read: its next save raises
          :class:`~docstore.ConflictError`.) An object marked for deletion stays marked.
        - A deleted object leaves the session (its unsaved changes are dropped; reading it
          raises :class:`~docstore.ObjectDeletedError`).
        - An object that left a live query's result (``change.removed``) becomes a fault when
          it has no unsaved changes.
        """
        for object_id in change.deleted:
            if str(object_id) in self._objects:
                self._forget(str(object_id))
        for object_id in change.removed:
            obj = self._objects.get(str(object_id))
            if obj is not None and obj._loaded and not obj._gone and not obj._changes and not obj._deleted:
                self._refault(obj)
        for item in list(change.inserted) + list(change.updated):
            obj = self._objects.get(str(item.id))
            if obj is None or obj._gone or obj.is_inserted:
                continue
            held = obj._version
            if held is not None and item.version <= held and (obj._loaded or item.version < held):
                continue  # not newer than what the session holds
            if item.values is None:
                if not obj._changes and not obj._deleted and obj._loaded:
                    self._refault(obj)
                continue
            obj._values = item.values
            obj._version = item.version
            obj._loaded = True
            self._faults.pop(str(item.id), None)

    def sync(self) -> int:
        """Merges the changes a ``merge_changes=True`` session received so far (it does so
        by itself before each fetch, get, save and property read); returns how many."""
        return self._sync()

    def close(self) -> None:
        """Ends the subscription of a ``merge_changes=True`` session (nothing else to close)."""
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None

    def _sync(self) -> int:
        merged = 0
        while self._pending:
            self.merge(self._pending.popleft())
            merged += 1
        return merged

    def _feed_failed(self, error: BaseException) -> None:
        _log.error("a session stopped merging other clients' changes: %s", error)

    def _refault(self, obj: DocObject) -> None:
        obj._loaded = False
        obj._values = {}
        self._faults[str(obj._id)] = obj
