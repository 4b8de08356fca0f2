"""A subscription to live changes, on a connection of its own (``docs/PROTOCOL.md``,
``subscribe``): the commits it watches arrive as :class:`~docstore.Change` objects."""

from __future__ import annotations

import collections
import json
import logging
import socket
import threading
import time
from typing import Any, Callable, Deque, Dict, List, Optional, Union

from .arguments import argument_to_wire
from .changes import Change
from .connection import _Closed, _LineReader, _Timeout, _reason
from .security import Security
from .errors import ConnectionError, DocstoreError, ProtocolError, ResyncRequired, error_from_response

__all__ = ["Subscription", "subscription_params", "DEFAULT_KEEPALIVE"]

_log = logging.getLogger("docstore")

#: Seconds without traffic after which a subscription pings the server, so that an idle
#: subscription is not closed by the server's idle timeout.
DEFAULT_KEEPALIVE = 20.0


class Subscription:
    """A subscription to live changes on a connection of its own. Made by
    :meth:`docstore.Client.subscribe`; iterate it for :class:`Change` objects, in commit
    order::

        with client.subscribe("Song", "plays > %d", 10) as changes:
            for change in changes:
                print(change.seq, change.inserted, change.removed)

    Iterating waits for the next change (use :meth:`next` for a timeout). It ends after
    :meth:`close` (from any thread). It raises :class:`~docstore.ResyncRequired` when the
    server ended the subscription because it did not keep up, and
    :class:`~docstore.ConnectionError` when the connection dropped: every change up to
    :attr:`seq` was delivered, so ``client.subscribe(…, since=subscription.seq)`` resumes with
    no gap and no duplicate.

    With a callback (``subscribe(…, callback=fn)``) a thread of the subscription calls ``fn``
    with each change; :attr:`error` then holds the exception that ended it, if any, and
    ``on_error`` (when given) is called with it.
    """

    def __init__(self, host: str, port: int, token: Union[str, Security, None], timeout: Optional[float],
                 client_name: str, params: Dict[str, Any], keepalive: Optional[float] = DEFAULT_KEEPALIVE) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self.keepalive = keepalive
        self.params = dict(params)
        self.id: Optional[int] = None
        #: The last commit delivered (or, before the first change, the commit the
        #: subscription starts after): resume with ``since=seq``.
        self.seq: Optional[int] = None
        #: The exception that ended a callback subscription, if any.
        self.error: Optional[BaseException] = None
        self._lock = threading.Lock()
        self._closed = False
        self._ended = False
        self._ids = 0
        self._thread: Optional[threading.Thread] = None
        self._last_traffic = time.monotonic()
        self._waiting: Deque[Change] = collections.deque()
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock = Security.of(token).wrap(sock, host)
        except OSError as error:
            raise ConnectionError(f"cannot connect to {host}:{port}: {_reason(error)}") from error
        sock.settimeout(None)
        self._socket = sock
        self._reader = _LineReader(sock)
        try:
            hello: Dict[str, Any] = Security.of(token).hello_params(client_name)
            self.hello = self._call("hello", hello)
            answer = self._call("subscribe", self.params)
        except BaseException:
            self._close_socket()
            raise
        if not isinstance(answer, dict) or not isinstance(answer.get("subscription"), int) \
                or not isinstance(answer.get("seq"), int):
            self._close_socket()
            raise ProtocolError(f"the answer to subscribe has no subscription and seq: {str(answer)[:200]}")
        self.id = answer["subscription"]
        self.seq = answer["seq"]

    # -- reading -------------------------------------------------------------------------

    def __iter__(self) -> "Subscription":
        return self

    def __next__(self) -> Change:
        change = self.next(None)
        if change is None:
            raise StopIteration
        return change

    def next(self, timeout: Optional[float] = None) -> Optional[Change]:
        """The next change, waiting up to ``timeout`` seconds (``None``: until one comes).
        Returns ``None`` on a timeout and once the subscription is closed.

        Raises :class:`~docstore.ResyncRequired` (the server ended the subscription),
        :class:`~docstore.ConnectionError` (the connection dropped) or
        :class:`~docstore.ProtocolError`; after any of them the subscription is closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._waiting:
                change = self._waiting.popleft()
                self.seq = change.seq
                return change
            if self._closed or self._ended:
                return None
            message = self._read(deadline)
            if message is None:
                return None
            self._take(message)

    def _take(self, message: Dict[str, Any]) -> None:
        """Handles a message read after ``subscribe`` was answered."""
        if "id" in message:
            if "error" in message:  # a keepalive ping cannot fail; anything else is the server's word
                raise self._end(error_from_response(message["error"]))
            return  # the answer to a keepalive ping
        method = message.get("method")
        params = message.get("params")
        if method == "changes":
            change = Change.from_wire(params, "a changes notification")
            if change.subscription in (None, self.id):
                self._waiting.append(change)
        elif method == "resync":
            seq = params.get("seq") if isinstance(params, dict) else None
            reason = params.get("reason") if isinstance(params, dict) else None
            if isinstance(params, dict) and params.get("subscription") not in (None, self.id):
                return
            last = seq if isinstance(seq, int) else self.seq
            raise self._end(ResyncRequired(
                f"the server ended the subscription at seq {last}: {reason or 'it did not keep up'}; subscribe "
                f"again with since={last} to get the rest", last, reason if isinstance(reason, str) else None))
        # other notifications are not this subscription's

    def _read(self, deadline: Optional[float]) -> Optional[Dict[str, Any]]:
        """One message; ``None`` on the deadline or once closed."""
        while True:
            wait = deadline
            if self.keepalive is not None:
                due = self._last_traffic + self.keepalive
                wait = due if deadline is None else min(deadline, due)
            try:
                line = self._reader.read_line(wait)
            except _Timeout:
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                self._ping()
                continue
            except (_Closed, OSError) as error:
                if self._closed:
                    return None
                what = "was closed" if isinstance(error, _Closed) else f"failed: {_reason(error)}"
                raise self._end(ConnectionError(
                    f"the subscription's connection to {self.host}:{self.port} {what}; every change up to seq "
                    f"{self.seq} was delivered: subscribe again with since={self.seq}"))
            self._last_traffic = time.monotonic()
            try:
                message = json.loads(line)
            except ValueError as error:
                raise self._end(ProtocolError(f"{self.host}:{self.port} sent a line that is not JSON ({error})"))
            if not isinstance(message, dict):
                raise self._end(ProtocolError(f"{self.host}:{self.port} sent a message that is not an object"))
            return message

    def _call(self, method: str, params: Optional[Dict[str, Any]]) -> Any:
        """A request on the subscription's connection, before notifications can come."""
        request_id = self._send(method, params)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            try:
                line = self._reader.read_line(deadline)
            except _Timeout:
                raise ConnectionError(f"no answer to {method} from {self.host}:{self.port} within {self.timeout} s") \
                    from None
            except (_Closed, OSError):
                raise ConnectionError(f"{self.host}:{self.port} closed the connection during {method}") from None
            try:
                message = json.loads(line)
            except ValueError as error:
                raise ProtocolError(f"{self.host}:{self.port} sent a line that is not JSON ({error})") from None
            if not isinstance(message, dict) or message.get("id") != request_id:
                continue  # nothing else can come before the answer
            if "error" in message:
                raise error_from_response(message["error"])
            return message.get("result")

    def _send(self, method: str, params: Optional[Dict[str, Any]]) -> int:
        with self._lock:
            self._ids += 1
            request_id = self._ids
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8") + b"\n"
        try:
            self._socket.sendall(data)
        except OSError as error:
            raise ConnectionError(f"cannot send {method} to {self.host}:{self.port}: {_reason(error)}") from None
        self._last_traffic = time.monotonic()
        return request_id

    def _ping(self) -> None:
        try:
            self._send("ping", None)
        except ConnectionError:
            pass  # the read that follows reports the dropped connection

    def _end(self, error: DocstoreError) -> DocstoreError:
        self._ended = True
        self._close_socket()
        return error

    # -- callbacks -----------------------------------------------------------------------

    def _run(self, callback: Callable[[Change], None], on_error: Optional[Callable[[BaseException], None]]) -> None:
        try:
            for change in self:
                callback(change)
        except BaseException as error:  # noqa: B902 - handed to on_error, the thread ends
            if self._closed:
                return
            self.error = error
            self._ended = True
            self._close_socket()
            if on_error is not None:
                on_error(error)
            else:
                _log.error("subscription %s ended: %s", self.id, error)

    def _start(self, callback: Callable[[Change], None], on_error: Optional[Callable[[BaseException], None]]) -> None:
        self._thread = threading.Thread(target=self._run, args=(callback, on_error),
                                        name=f"docstore-subscription-{self.id}", daemon=True)
        self._thread.start()

    def join(self, timeout: Optional[float] = None) -> bool:
        """Waits for a callback subscription's thread to end; returns whether it did."""
        if self._thread is None:
            return True
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    # -- lifetime ------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """Whether changes can still come."""
        return not (self._closed or self._ended)

    def close(self) -> None:
        """Ends the subscription and closes its connection (from any thread): iterating
        stops, a callback thread ends after the call in progress."""
        self._closed = True
        self._close_socket()
        self.join(5.0)

    def _close_socket(self) -> None:
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes a thread reading it
        except OSError:
            pass
        try:
            self._socket.close()
        except OSError:
            pass

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "open" if self.is_open else "closed"
        return f"<docstore.Subscription {self.id} seq={self.seq} {state} {self.host}:{self.port}>"


def subscription_params(entity: Optional[str], predicate: Optional[str], arguments: List[Any],
                        since: Optional[int], include_values: bool) -> Dict[str, Any]:
    """The params of ``subscribe``."""
    if predicate is not None and entity is None:
        raise ValueError("a predicate needs an entity: subscribe(entity, predicate, …)")
    if arguments and predicate is None:
        raise ValueError("arguments were given without a predicate")
    params: Dict[str, Any] = {}
    if entity is not None:
        params["entity"] = entity
    if predicate is not None:
        params["predicate"] = predicate
    if arguments:
        params["arguments"] = [argument_to_wire(value) for value in arguments]
    if since is not None:
        params["since"] = since
    if not include_values:
        params["includeValues"] = False
    return params
