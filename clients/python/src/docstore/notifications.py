"""Messages the server sends on its own: JSON-RPC notifications (no ``id``).

Reserved for server-pushed notifications (the live changes to come); the server sends none
yet. A connection hands every notification it reads to a :class:`NotificationStream`: the
callbacks registered with :meth:`NotificationStream.subscribe` are called with it, and it is
kept in a bounded buffer that :meth:`docstore.Client.next_notification` reads from.
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import Any, Callable, Deque, List, Mapping, Optional

__all__ = ["Notification", "NotificationStream", "DEFAULT_NOTIFICATION_BUFFER"]

#: How many unread notifications a connection keeps; past it, the oldest are dropped.
DEFAULT_NOTIFICATION_BUFFER = 1000

_log = logging.getLogger("docstore")


class Notification:
    """One notification from the server: a ``method`` naming what happened and its
    ``params`` (``None`` when the message has none)."""

    __slots__ = ("method", "params")

    def __init__(self, method: str, params: Any = None) -> None:
        self.method = method
        self.params = params

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Optional["Notification"]:
        """The notification a decoded message is, or ``None`` when it is not one
        (``{"jsonrpc": "2.0", "method": …}`` without an ``id`` member)."""
        method = message.get("method")
        if "id" in message or message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            return None
        return cls(method, message.get("params"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Notification):
            return NotImplemented
        return (self.method, self.params) == (other.method, other.params)

    def __repr__(self) -> str:
        return f"Notification({self.method!r}, {self.params!r})"


Callback = Callable[[Notification], None]


class NotificationStream:
    """Where a connection's notifications go: to every subscribed callback, and into a
    buffer of at most ``capacity`` unread ones (the oldest are dropped past it, counted in
    :attr:`dropped`). Thread-safe."""

    def __init__(self, capacity: int = DEFAULT_NOTIFICATION_BUFFER) -> None:
        if capacity < 1:
            raise ValueError(f"a notification buffer holds at least 1 notification, not {capacity}")
        self._lock = threading.Lock()
        self._buffer: Deque[Notification] = collections.deque()
        self._capacity = capacity
        self._callbacks: List[Callback] = []
        self.dropped = 0

    def subscribe(self, callback: Callback) -> Callable[[], None]:
        """Calls ``callback`` with every notification from now on, in the order they came: on
        a thread of the client, when its call (or :meth:`docstore.Client.next_notification`)
        is over and it holds no lock, so a callback may call the server. It should return
        quickly; an exception it raises is logged (logger ``docstore``) and ignored. Returns a
        function that unsubscribes it."""
        with self._lock:
            self._callbacks.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return unsubscribe

    def publish(self, notification: Notification) -> None:
        """Buffers ``notification`` and calls the callbacks with it."""
        self._store(notification)
        self._call_back(notification)

    def _store(self, notification: Notification) -> None:
        with self._lock:
            if len(self._buffer) >= self._capacity:
                self._buffer.popleft()
                self.dropped += 1
            self._buffer.append(notification)

    def _call_back(self, notification: Notification) -> None:
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback(notification)
            except Exception:  # a subscriber's bug must not break the call that read the message
                _log.exception("a notification callback failed on %r", notification)

    def pop(self) -> Optional[Notification]:
        """The oldest unread notification, or ``None`` when there is none."""
        with self._lock:
            return self._buffer.popleft() if self._buffer else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._buffer)
