"""The client: a connection to a docserver, its model, and sessions."""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from .changes import Change, ChangeBatch
from .subscription import DEFAULT_KEEPALIVE, Subscription, subscription_params
from .connection import Connection, PendingCall
from .errors import ProtocolError
from .model import Model
from .notifications import DEFAULT_NOTIFICATION_BUFFER, Notification
from .objects import DocObject
from .session import Session, SortSpec
from .values import ObjectID
from .security import Security
import ssl as _ssl

__all__ = ["Client", "connect", "DEFAULT_PORT"]

DEFAULT_PORT = 7878


class Client:
    """A client of one docserver. Make one with :func:`connect`.

    The convenience readers (:meth:`fetch`, :meth:`get`) return objects of a new
    :class:`Session` each time; to change objects, or to share objects between reads, use
    one :meth:`session`. A client may be shared by threads (their requests are pipelined on
    its one connection, and each answer reaches the thread that asked); sessions may not.

    Live changes come through :meth:`subscribe` (on a connection of its own) and
    :meth:`changes`. Other messages the server sends on its own (JSON-RPC notifications) on
    this client's connection go to :meth:`on_notification` callbacks and to
    :meth:`next_notification`, which keeps up to ``notification_buffer`` unread ones (the
    oldest are dropped past it)."""

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, token: Optional[str] = None,
                 timeout: Optional[float] = 30.0, client_name: str = "docstore-python",
                 notification_buffer: int = DEFAULT_NOTIFICATION_BUFFER, *, user: Optional[str] = None,
                 secret: Optional[str] = None, ssl: Union[bool, _ssl.SSLContext, None] = None,
                 server_hostname: Optional[str] = None) -> None:
        security = Security(token=token, user=user, secret=secret, ssl=ssl, server_hostname=server_hostname)
        self._connection = Connection(host, port, security, timeout, client_name, notification_buffer)
        self._model: Optional[Model] = None
        self._seq = 0

    # -- the server ----------------------------------------------------------------------

    @property
    def host(self) -> str:
        """The server's host."""
        return self._connection.host

    @property
    def port(self) -> int:
        """The server's port."""
        return self._connection.port

    @property
    def server_info(self) -> Dict[str, Any]:
        """The server's answer to ``hello``: ``server``, ``version``, ``protocol``,
        ``storeUUID``, ``modelHash`` and ``seq`` (read on connecting)."""
        if not self._connection.hello:
            self.ping()
        return dict(self._connection.hello)

    @property
    def seq(self) -> int:
        """The number of the latest commit this client has seen: the server's in ``hello``
        (on connecting), or a later one a save of this client made. Commits are numbered 1,
        2, … ; 0 before the first (and from a server that does not number them)."""
        if not self._connection.hello:
            self.ping()
        hello = self._connection.hello.get("seq")
        if isinstance(hello, int) and not isinstance(hello, bool):
            return max(self._seq, hello)
        return self._seq

    def _saw_seq(self, seq: Optional[int]) -> None:
        """Remembers the number of a commit a save of this client made."""
        if seq is not None and seq > self._seq:
            self._seq = seq

    @property
    def store_uuid(self) -> str:
        """The UUID of the server's store (part of every object ID)."""
        return str(self.server_info.get("storeUUID", ""))

    @property
    def model_hash(self) -> str:
        """The version hash of the server's model: equal hashes, equal models."""
        return str(self.server_info.get("modelHash", ""))

    def ping(self) -> float:
        """Asks the server for ``pong``; returns the round trip in seconds."""
        start = time.perf_counter()
        answer = self._connection.call("ping")
        if answer != "pong":
            raise ProtocolError(f"ping was answered with {answer!r} instead of 'pong'")
        return time.perf_counter() - start

    def model(self, reload: bool = False) -> Model:
        """The server's model (read once, then kept; ``reload=True`` reads it again)."""
        if self._model is None or reload:
            self._model = Model(self._connection.call("model"))
        return self._model

    def stats(self) -> Dict[str, Any]:
        """The server's counters and sizes, by section (``server``, ``store``, ``clients``,
        ``requests``, ``slowlog``), as the ``stats`` method answers them (``docs/PROTOCOL.md``,
        Operations), like Redis' ``INFO``.

        >>> client.stats()["store"]["seq"]
        """
        answer = self._connection.call("stats")
        if not isinstance(answer, dict):
            raise ProtocolError(f"stats was answered with {answer!r} instead of an object")
        return answer

    def slowlog(self, reset: bool = False) -> Dict[str, Any]:
        """The requests slower than the server's ``--slow-request-ms`` (the last 128, oldest
        first): ``{"thresholdMilliseconds", "total", "entries"}``, each entry with ``id``,
        ``timestamp`` (ms since 1970), ``method``, ``entity``, ``predicate`` and
        ``milliseconds``. ``reset=True`` empties the log after reading it.
        """
        answer = self._connection.call("slowlog", {"reset": True} if reset else None)
        if not isinstance(answer, dict):
            raise ProtocolError(f"slowlog was answered with {answer!r} instead of an object")
        return answer

    def call(self, method: str, params: Optional[Dict[str, Any]] = None) -> Any:
        """Sends any request of the protocol (``docs/PROTOCOL.md``) and returns its raw
        result, for what the object API does not cover."""
        return self._connection.call(method, params)

    def submit(self, method: str, params: Optional[Dict[str, Any]] = None, *, stream: bool = False) -> PendingCall:
        """Sends a request like :meth:`call` without waiting for its answer: several requests
        can be in flight at once (pipelining), answered in any order.
        :meth:`PendingCall.result` waits for the answer and returns its result.

        >>> first, second = client.submit("ping"), client.submit("model")
        >>> second.result()["entities"], first.result()

        ``stream=True`` asks for the answer in parts (a ``fetch``: docs/PROTOCOL.md, Streamed
        answers): :meth:`PendingCall.next_part` returns each part, ``None`` after the last,
        then :meth:`PendingCall.result` the last line's result (:meth:`fetch_stream` does it
        for objects); :meth:`PendingCall.abandon` drops the rest.
        """
        return self._connection.submit(method, params, stream=stream)

    # -- notifications -------------------------------------------------------------------

    def on_notification(self, callback: Callable[[Notification], None]) -> Callable[[], None]:
        """Calls ``callback`` with every notification the server sends from now on (reserved
        for server-pushed notifications; the server sends none yet), in the order they came.
        It is called on a thread of the client once its call is over, outside every lock (it
        may call the server); an exception it raises is logged and ignored. Returns a function
        that unsubscribes it."""
        return self._connection.notifications.subscribe(callback)

    def next_notification(self, timeout: Optional[float] = 0.0) -> Optional[Notification]:
        """The oldest unread notification from the server, reading the connection for up to
        ``timeout`` seconds when none is waiting (``None``: until one comes); ``None`` when
        none came. Notifications read during calls wait here, at most ``notification_buffer``
        of them. Raises :class:`~docstore.ConnectionError` when the connection is not open."""
        return self._connection.next_notification(timeout)

    # -- live changes --------------------------------------------------------------------

    def subscribe(self, entity: Optional[str] = None, predicate: Optional[str] = None, *arguments: Any,
                  since: Optional[int] = None, include_values: bool = True,
                  callback: Optional[Callable[[Change], None]] = None,
                  on_error: Optional[Callable[[BaseException], None]] = None,
                  keepalive: Optional[float] = DEFAULT_KEEPALIVE) -> Subscription:
        """Subscribes to the commits that change objects of ``entity`` (and its
        sub-entities; every entity when ``None``), on a connection of its own: this client's
        connection is untouched. Returns a :class:`~docstore.Subscription` that yields one
        :class:`~docstore.Change` per such commit, in commit order::

            with client.subscribe("Song", "plays > %d", 10) as feed:
                for change in feed:
                    ...

        - ``predicate`` (with ``arguments`` for its ``%@``/``%d``/``%K``) makes a live query:
          ``change.inserted`` holds objects that entered the result, ``change.removed`` the
          IDs of those that left it (see :class:`~docstore.Change`). A change to a *related*
          object alone does not re-judge an object.
        - ``since``: first every commit after that number (from the server's history), then
          live ones, with no gap and no duplicate; :class:`~docstore.HistoryExpired` when the
          server no longer keeps them (fetch again). Without it the subscription starts after
          the latest commit (:attr:`Subscription.seq`).
        - ``include_values=False``: objects come without their values.
        - ``callback``: a thread of the subscription calls it with each change (in order);
          ``on_error`` is called with the exception that ends it (a dropped connection,
          :class:`~docstore.ResyncRequired`); the subscription is returned running; close it
          with :meth:`~docstore.Subscription.close`.
        - ``keepalive``: seconds without traffic after which the subscription pings the
          server (so that its idle timeout does not close it); ``None``: never.

        The subscription's connection says ``hello`` with this client's name, which the
        server records as the ``author`` of the commits this client's saves make."""
        params = subscription_params(entity, predicate, list(arguments), since, include_values)
        connection = self._connection
        subscription = Subscription(connection.host, connection.port, connection._token, connection.timeout,
                                    connection._client_name, params, keepalive)
        if callback is not None:
            subscription._start(callback, on_error)
        return subscription

    def changes(self, since: int, limit: Optional[int] = None, entity: Optional[str] = None,
                include_values: bool = True) -> ChangeBatch:
        """The commits after ``since`` (at most ``limit``, server default 100, at most 1000),
        of those touching ``entity`` when given, as a :class:`~docstore.ChangeBatch`: its
        ``changes``, ``seq`` (pass it as the next ``since``) and ``more`` (whether more
        follow). Raises :class:`~docstore.HistoryExpired` when the server no longer keeps
        the commits after ``since``.

        >>> batch = client.changes(since=0)
        >>> while True:
        ...     for change in batch: handle(change)
        ...     if not batch.more: break
        ...     batch = client.changes(since=batch.seq)
        """
        params: Dict[str, Any] = {"since": since}
        if limit is not None:
            params["limit"] = limit
        if entity is not None:
            params["entity"] = entity
        if not include_values:
            params["includeValues"] = False
        return ChangeBatch.from_wire(self._connection.call("changes", params))

    def backup(self, to: str) -> Dict[str, Any]:
        """Has the server copy its store, while saves go on, into the new directory ``to``
        (an absolute path on the server's machine), consistent at one commit; returns the
        manifest: ``seq`` (the commit the copy holds), ``baseSeq`` (the oldest commit it can
        restore), ``time``, ``directory`` and ``files`` (each ``name``, ``bytes``, ``crc32c``).
        ``docserver restore --from DIR --to STORE`` makes a store from it (docs/OPERATIONS.md)."""
        answer = self._connection.call("backup", {"to": to})
        if not isinstance(answer, dict):
            raise ProtocolError(f"backup was answered with {answer!r} instead of an object")
        return answer

    # -- objects -------------------------------------------------------------------------

    def session(self, prefetch: int = 100, merge_changes: bool = False) -> Session:
        """A new unit of work. Firing a fault loads up to ``prefetch`` other faults of the
        session in the same round trip. With ``merge_changes=True`` the session subscribes to
        every commit (on a connection of its own) and merges them as it is used, so that its
        objects show other clients' saves (:meth:`Session.merge` says how); close it (or use
        it as a context manager) to end the subscription."""
        return Session(self, prefetch=prefetch, merge_changes=merge_changes)

    def fetch(self, entity: str, predicate: Optional[str] = None, *arguments: Any, sort: SortSpec = None,
              limit: Optional[int] = None, offset: Optional[int] = None,
              include_subentities: bool = True, after: Optional[int] = None) -> List[DocObject]:
        """:meth:`Session.fetch` in a new session."""
        return self.session().fetch(entity, predicate, *arguments, sort=sort, limit=limit, offset=offset,
                                    include_subentities=include_subentities, after=after)

    def fetch_ids(self, entity: str, predicate: Optional[str] = None, *arguments: Any, sort: SortSpec = None,
                  limit: Optional[int] = None, offset: Optional[int] = None,
                  include_subentities: bool = True, after: Optional[int] = None) -> List[ObjectID]:
        """:meth:`Session.fetch_ids`: the IDs of the matching objects."""
        return self.session().fetch_ids(entity, predicate, *arguments, sort=sort, limit=limit, offset=offset,
                                        include_subentities=include_subentities, after=after)

    def fetch_stream(self, entity: str, predicate: Optional[str] = None, *arguments: Any, sort: SortSpec = None,
                     limit: Optional[int] = None, offset: Optional[int] = None,
                     include_subentities: bool = True, after: Optional[int] = None) -> Iterator[DocObject]:
        """:meth:`Session.fetch_stream` in a new session: the matching objects as the server
        finds them, in parts, however large the answer."""
        return self.session().fetch_stream(entity, predicate, *arguments, sort=sort, limit=limit, offset=offset,
                                           include_subentities=include_subentities, after=after)

    def fetch_ids_stream(self, entity: str, predicate: Optional[str] = None, *arguments: Any,
                         sort: SortSpec = None, limit: Optional[int] = None, offset: Optional[int] = None,
                         include_subentities: bool = True, after: Optional[int] = None) -> Iterator[ObjectID]:
        """:meth:`Session.fetch_ids_stream`: the IDs of the matching objects, in parts."""
        return self.session().fetch_ids_stream(entity, predicate, *arguments, sort=sort, limit=limit,
                                               offset=offset, include_subentities=include_subentities,
                                               after=after)

    def get(self, *ids: Union[str, DocObject], after: Optional[int] = None) -> List[Optional[DocObject]]:
        """:meth:`Session.get` in a new session: the objects, ``None`` for missing ones."""
        return self.session().get(*ids, after=after)

    def count(self, entity: str, predicate: Optional[str] = None, *arguments: Any,
              include_subentities: bool = True, after: Optional[int] = None) -> int:
        """How many objects of ``entity`` match ``predicate``."""
        return self.session().count(entity, predicate, *arguments, include_subentities=include_subentities, after=after)

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the connection. A later call would open a new one."""
        self._connection.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "connected" if self._connection.is_open else "not connected"
        return f"<docstore.Client {self.host}:{self.port} {state}>"


def connect(host: str = "127.0.0.1", port: int = DEFAULT_PORT, token: Optional[str] = None,
            timeout: Optional[float] = 30.0, client_name: str = "docstore-python",
            notification_buffer: int = DEFAULT_NOTIFICATION_BUFFER, *, user: Optional[str] = None,
            secret: Optional[str] = None, ssl: Union[bool, _ssl.SSLContext, None] = None,
            server_hostname: Optional[str] = None) -> Client:
    """Connects to a docserver and says ``hello`` (with ``token``, or ``user`` and
    ``secret``, when the server needs them; docs/SECURITY.md). ``ssl``: ``True`` or an
    :class:`ssl.SSLContext` for a server with TLS; the server's certificate and host name
    (``server_hostname``, default ``host``) are verified unless the context says otherwise. ``timeout`` is in seconds, for connecting and for each answer (``None``: wait
    forever). Raises :class:`~docstore.ConnectionError` when the server cannot be reached
    and :class:`~docstore.AuthError` when the token is refused.

    >>> with docstore.connect(port=7878) as client:
    ...     client.count("Song")
    """
    client = Client(host, port, token, timeout, client_name, notification_buffer,
                    user=user, secret=secret, ssl=ssl, server_hostname=server_hostname)
    client.ping()
    return client
