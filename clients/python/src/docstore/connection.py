"""One TCP connection speaking the line protocol (``docs/PROTOCOL.md``, Transport).

Answers are matched to requests by ``id``, not by order: any number of requests may be in
flight (:meth:`Connection.submit`), and the server may answer them in any order. Messages
without an ``id`` are notifications and go to :attr:`Connection.notifications`. A request
sent with ``stream=True`` is answered by parts (lines with its ``id`` and ``part``) and then
one last line, its result or its error (``docs/PROTOCOL.md``, Streamed answers).

There is no background thread. A thread waiting for an answer reads the socket while no
other thread does, and hands every message it reads to its owner: an answer to the thread
waiting for it, a notification to the notification stream.
"""

from __future__ import annotations

import collections
import itertools
import json
import math
import select
import socket
import threading
import time
from typing import Any, Callable, Deque, Dict, List, Optional, Union

from .security import Security
from .errors import AuthError, ConnectionError, DocstoreError, ProtocolError, error_from_response
from .notifications import DEFAULT_NOTIFICATION_BUFFER, Notification, NotificationStream

__all__ = ["Connection", "PendingCall"]

_CHUNK = 65536

# The ``what`` of the -32005 errors after which the server keeps the connection open; after
# the others (``line``, ``bufferedBytes``: the rest of the line cannot be told apart from
# the next message) it closes it (docs/PROTOCOL.md, Limits).
_TOO_LARGE_KEEPS_CONNECTION = frozenset({"answer", "batch", "batchAnswer", "subscriptions"})


class PendingCall:
    """A request that was sent; :meth:`result` waits for its answer.

    Made by :meth:`docstore.Client.submit`, to have several requests in flight at once. A
    call submitted with ``stream=True`` is answered in parts: :meth:`next_part` returns each
    in turn, then :meth:`result` the last line's result."""

    __slots__ = ("id", "method", "deadline", "_connection", "_done", "_result", "_error", "_parts", "_abandoned")

    def __init__(self, connection: "Connection", request_id: int, method: str, deadline: Optional[float],
                 streamed: bool = False) -> None:
        self.id = request_id
        self.method = method
        self.deadline = deadline
        self._connection = connection
        self._done = False
        self._result: Any = None
        self._error: Optional[DocstoreError] = None
        # The parts read and not yet taken by next_part; None for an answer in one line.
        self._parts: Optional[Deque[Any]] = collections.deque() if streamed else None
        self._abandoned = False

    @property
    def done(self) -> bool:
        """Whether the answer (or the failure) is here: :meth:`result` will not wait."""
        return self._done

    @property
    def streamed(self) -> bool:
        """Whether the answer comes in parts (submitted with ``stream=True``): read them with
        :meth:`next_part`."""
        return self._parts is not None

    def result(self) -> Any:
        """Waits for the answer and returns its ``result``, or raises the server's error as a
        :class:`~docstore.DocstoreError` subclass (:class:`~docstore.ConnectionError` when the
        connection failed or no answer came within the client's timeout).

        For a streamed call, the last line's result: what came after the last part (read the
        parts with :meth:`next_part` first: parts not taken pile up in memory meanwhile)."""
        try:
            return self._connection._wait(self)
        finally:
            self._connection._call_back()

    def next_part(self) -> Optional[Any]:
        """For a streamed call: waits for the next part of the answer and returns it
        (``{"objects": [...]}`` or ``{"ids": [...]}`` for a ``fetch``), in the order sent;
        ``None`` once every part was taken and the last line came, whose result
        :meth:`result` then returns without waiting. When the last line is an error, raises
        it as :meth:`result` would: the parts taken before it are void.

        The client's timeout counts from each wait for the next line, not for the whole
        answer. Raises ``ValueError`` for a call not submitted with ``stream=True``."""
        if self._parts is None:
            raise ValueError(f"{self.method} (id {self.id}) was not submitted with stream=True: it has no parts")
        try:
            return self._connection._next_part(self)
        finally:
            self._connection._call_back()

    def abandon(self) -> None:
        """Gives up a streamed answer before its end: the parts not taken are dropped, and
        those still to come, with the last line, are read and dropped as they arrive (by the
        next call that reads the connection), which stays open for the other calls. Nothing
        to do for an answer already complete or in one line."""
        self._connection._abandon(self)

    def _finish(self, result: Any = None, error: Optional[DocstoreError] = None) -> None:
        self._result, self._error, self._done = result, error, True
        if error is not None and self._parts:
            self._parts.clear()  # an error as the last line voids the parts before it

    def _outcome(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._result

    def __repr__(self) -> str:
        state = "done" if self._done else "waiting"
        kind = " streamed" if self._parts is not None else ""
        return f"<docstore.PendingCall {self.method}{kind} id={self.id} {state}>"


class _Timeout(Exception):
    pass


class _Closed(Exception):
    pass


class _LineReader:
    """Reads ``\\n``-terminated lines from one socket with a deadline; what was read past a
    line stays buffered, so a timeout loses nothing."""

    def __init__(self, sock: socket.socket) -> None:
        self.socket = sock
        self._buffer = bytearray()
        self._scanned = 0
        self._poll = select.poll()
        self._poll.register(sock.fileno(), select.POLLIN)

    def read_line(self, deadline: Optional[float]) -> bytes:
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buffer)
            pending = getattr(self.socket, "pending", None)
            if pending is not None and pending() > 0:
                ready = True  # TLS: bytes already decrypted, which poll cannot see
            elif deadline is None:
                ready = bool(self._poll.poll())
            else:
                remaining = deadline - time.monotonic()
                ready = bool(self._poll.poll(max(0, math.ceil(remaining * 1000))))
            if not ready:
                raise _Timeout()
            chunk = self.socket.recv(_CHUNK)
            if not chunk:
                raise _Closed()
            self._buffer += chunk


class Connection:
    """A connection that sends JSON-RPC requests, one per line, and matches the answers to
    them by ``id``.

    Thread-safe: threads may call at the same time; their requests are pipelined on the one
    socket. The socket opens on the first call; after a dropped connection, a timeout or an
    answer that matches no request it is closed (every request waiting on it fails), and the
    next call opens a new one (and says ``hello`` again), so a long-lived client survives a
    server restart.

    ``notifications`` receives the messages the server sends without an ``id``: reserved for
    server-pushed notifications; the server sends none yet."""

    def __init__(self, host: str, port: int, token: Union[str, Security, None], timeout: Optional[float],
                 client_name: str, notification_buffer: int = DEFAULT_NOTIFICATION_BUFFER) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self._token = token  # a str, or a Security (TLS and credentials)
        self._security = Security.of(token)
        self._client_name = client_name
        self._ids = itertools.count(1)
        self._send_lock = threading.Lock()       # one writer at a time; held while opening
        self._state = threading.Condition()      # guards everything below
        self._reader: Optional[_LineReader] = None
        self._pending: Dict[int, PendingCall] = {}
        self._reading: Optional[socket.socket] = None   # the socket a thread reads now
        self._undelivered: List[Notification] = []    # read, not yet given to the callbacks
        self._delivering = False
        self.notifications = NotificationStream(notification_buffer)
        self.hello: Dict[str, Any] = {}

    @property
    def is_open(self) -> bool:
        """Whether a socket is open now."""
        return self._reader is not None

    # -- calls ---------------------------------------------------------------------------

    def call(self, method: str, params: Optional[Dict[str, Any]] = None) -> Any:
        """Sends one request and returns its ``result``, or raises the server's error as a
        :class:`~docstore.DocstoreError` subclass."""
        return self.submit(method, params).result()

    def submit(self, method: str, params: Optional[Dict[str, Any]] = None, *, stream: bool = False) -> PendingCall:
        """Sends one request without waiting for its answer (opening the connection first
        when needed); :meth:`PendingCall.result` waits for it.

        ``stream=True`` asks for the answer in parts (``"stream": true`` is added to
        ``params``; docs/PROTOCOL.md, Streamed answers): :meth:`PendingCall.next_part` returns
        them, then :meth:`PendingCall.result` the last line's result."""
        if stream:
            params = dict(params or {}, stream=True)
        with self._send_lock:
            self._open()
            return self._send(method, params, stream)

    def next_notification(self, timeout: Optional[float] = 0.0) -> Optional[Notification]:
        """The oldest unread notification; when there is none, reads the socket for one for
        up to ``timeout`` seconds (``None``: until one comes). Returns ``None`` when none
        came. Raises :class:`~docstore.ConnectionError` when the connection is not open or
        fails."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                notification = self.notifications.pop()
                if notification is not None:
                    return notification
                with self._state:
                    reader = self._reader
                    if reader is None:
                        raise ConnectionError(
                            f"not connected to {self.host}:{self.port}: notifications come on an open connection")
                    if self._reading is not None:
                        if not self._state.wait(_remaining(deadline)):
                            return self.notifications.pop()
                        continue
                    self._reading = reader.socket
                try:
                    line = reader.read_line(deadline)
                except _Timeout:
                    with self._state:
                        self._done_reading(reader)
                    return self.notifications.pop()
                except (_Closed, OSError) as error:
                    with self._state:
                        self._done_reading(reader)
                        self._fail(reader, lambda call: self._failure_during(call.method, error))
                    raise self._failure_during("the wait for a notification", error) from None
                with self._state:
                    self._done_reading(reader)
                    failure = self._handle(reader, line)
                if failure is not None:
                    raise failure
        finally:
            self._call_back()

    def close(self) -> None:
        """Closes the socket (the next call opens a new one). Calls still waiting for an
        answer fail with :class:`~docstore.ConnectionError`."""
        with self._state:
            reader = self._reader
            if reader is not None:
                self._fail(reader, lambda call: ConnectionError(
                    f"the connection to {self.host}:{self.port} was closed before the answer to "
                    f"{call.method} came; {_maybe_applied(call.method)}"))

    # -- opening and sending (holding _send_lock) ----------------------------------------

    def _open(self) -> None:
        if self._reader is not None:
            return
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock = self._security.wrap(sock, self.host)
        except OSError as error:
            raise ConnectionError(f"cannot connect to {self.host}:{self.port}: {_reason(error)}") from error
        with self._state:
            self._reader = _LineReader(sock)
        params = self._security.hello_params(self._client_name)
        try:
            self.hello = self._wait(self._send("hello", params))
        except DocstoreError:
            self.close()
            raise

    def _send(self, method: str, params: Optional[Dict[str, Any]], streamed: bool = False) -> PendingCall:
        request_id = next(self._ids)
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            line = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as error:
            raise ProtocolError(f"the {method} request cannot be written as JSON: {error}") from None
        call = PendingCall(self, request_id, method, self._deadline(), streamed)
        with self._state:
            reader = self._reader
            if reader is None:
                raise ConnectionError(f"not connected to {self.host}:{self.port}")
            self._pending[request_id] = call
        try:
            reader.socket.sendall(line.encode("utf-8") + b"\n")
        except OSError as error:
            with self._state:
                self._fail(reader, lambda pending: self._failure_during(pending.method, error))
        return call

    # -- waiting and reading -------------------------------------------------------------

    def _wait(self, call: PendingCall) -> Any:
        """Waits for ``call``'s answer, reading the socket while no other thread does."""
        if call._parts is not None:
            call.deadline = self._deadline()  # a stream's timeout counts per line
        self._await(call, lambda: call.done)
        return call._outcome()

    def _next_part(self, call: PendingCall) -> Optional[Any]:
        """Waits for the next part of a streamed call's answer, or for its last line
        (``None``; its error is raised)."""
        call.deadline = self._deadline()  # the timeout counts per line, not for the stream
        self._await(call, lambda: call.done or bool(call._parts))
        with self._state:
            if call._parts:
                return call._parts.popleft()
        if call._error is not None:
            raise call._error
        return None

    def _await(self, call: PendingCall, ready: Callable[[], bool]) -> None:
        """Returns once ``ready()`` (``call``'s answer, or a part of it, is here), reading
        the socket while no other thread does."""
        while True:
            with self._state:
                while not ready() and self._reading is not None:
                    if not self._state.wait(_remaining(call.deadline)) and not ready() and _expired(call.deadline):
                        self._time_out(call)
                if ready():
                    return
                reader = self._reader
                if reader is None:  # cannot happen: dropping a socket fails its calls
                    raise ConnectionError(f"not connected to {self.host}:{self.port}")
                self._reading = reader.socket
            try:
                line = reader.read_line(call.deadline)
            except _Timeout:
                with self._state:
                    self._done_reading(reader)
                    if not ready() and _expired(call.deadline):
                        self._time_out(call)
                continue
            except (_Closed, OSError) as error:
                with self._state:
                    self._done_reading(reader)
                    self._fail(reader, lambda pending: self._failure_during(pending.method, error))
                continue
            with self._state:
                self._done_reading(reader)
                self._handle(reader, line)

    def _abandon(self, call: PendingCall) -> None:
        with self._state:
            call._abandoned = True
            if call._parts is not None:
                call._parts.clear()

    def _deadline(self) -> Optional[float]:
        """When an answer (or the next line of a streamed one) waited for from now is late."""
        return None if self.timeout is None else time.monotonic() + self.timeout

    def _done_reading(self, reader: _LineReader) -> None:
        self._reading = None
        self._state.notify_all()
        if self._reader is not reader:  # dropped while we read: closing was left to us
            reader.socket.close()

    def _time_out(self, call: PendingCall) -> None:
        reader = self._reader
        if reader is None:
            return
        self._fail(reader, lambda pending: ConnectionError(
            f"no answer to {pending.method} from {self.host}:{self.port} within {self.timeout} s; "
            f"{_maybe_applied(pending.method)}"))

    def _handle(self, reader: _LineReader, line: bytes) -> Optional[DocstoreError]:
        """Hands one line to its owner (holding ``_state``); returns the error that made the
        connection unusable, if any."""
        if self._reader is not reader:
            return None  # dropped while it was read: its calls have failed already
        try:
            message = json.loads(line)
        except ValueError as error:
            return self._break(reader, f"a line that is not JSON ({error}): {line[:200]!r}")
        if not isinstance(message, dict):
            return self._break(reader, f"a message that is not a JSON object: {line[:200]!r}")
        if "id" not in message:
            notification = Notification.from_message(message)
            if notification is None:
                return self._break(reader, f"a message without id that is not a notification: {line[:200]!r}")
            self.notifications._store(notification)
            self._undelivered.append(notification)
            return None
        request_id = message["id"]
        call: Optional[PendingCall] = None
        if request_id is None and "error" in message and len(self._pending) == 1:
            # -32700 and -32600 answer with id null: they answer the one request in flight.
            [call] = self._pending.values()
        elif type(request_id) is int:
            call = self._pending.get(request_id)
        if call is None:
            return self._break(reader, f"an answer whose id {request_id!r} matches no request waiting for one: "
                                       f"{line[:200]!r}")
        if "part" in message and "result" not in message and "error" not in message:
            return self._take_part(reader, call, message["part"], line)
        del self._pending[call.id]
        if "error" in message:
            failure = error_from_response(message["error"])
            call._finish(error=failure)
            if isinstance(failure, AuthError) or _closes_connection(failure):
                self._fail(reader, lambda pending: self._failure_during(pending.method, _Closed()))
        elif "result" in message:
            call._finish(result=message["result"])
        else:
            call._finish(error=ProtocolError(f"the answer to {call.method} has neither result nor error"))
        return None

    def _take_part(self, reader: _LineReader, call: PendingCall, part: Any, line: bytes) -> Optional[DocstoreError]:
        """Keeps one part of a streamed answer for its call (holding ``_state``), or drops
        it when the call was abandoned."""
        if call._parts is None:
            return self._break(reader, f"a part of the answer to {call.method}, which did not ask for a stream: "
                                       f"{line[:200]!r}")
        if not isinstance(part, dict):
            return self._break(reader, f"a part that is not a JSON object: {line[:200]!r}")
        if not call._abandoned:
            call._parts.append(part)
        # The server answers a connection's requests in order: the calls sent after the
        # stream are answered after its last line, however long it runs. Each line shows the
        # server at work, so every wait on the connection gets the timeout afresh.
        deadline = self._deadline()
        if deadline is not None:
            for pending in self._pending.values():
                if pending.deadline is not None and pending.deadline < deadline:
                    pending.deadline = deadline
        return None

    def _break(self, reader: _LineReader, what: str) -> ProtocolError:
        """The server sent something this client cannot place: the connection is unusable."""
        failure = ProtocolError(f"{self.host}:{self.port} sent {what}; the connection is closed and the next "
                                f"call reconnects")
        self._fail(reader, lambda call: ProtocolError(
            f"{failure.message} (while {call.method} waited for its answer; {_maybe_applied(call.method)})"))
        return failure

    def _fail(self, reader: _LineReader, error_for: Callable[[PendingCall], DocstoreError]) -> None:
        """Drops ``reader``'s socket (holding ``_state``) and fails every call waiting on it."""
        if self._reader is not reader:
            return
        self._reader = None
        pending, self._pending = self._pending, {}
        for call in pending.values():
            call._finish(error=error_for(call))
        try:
            reader.socket.shutdown(socket.SHUT_RDWR)  # wakes a thread reading it
        except OSError:
            pass
        if self._reading is not reader.socket:
            reader.socket.close()
        self._state.notify_all()

    def _failure_during(self, what: str, error: BaseException) -> ConnectionError:
        if isinstance(error, _Closed):
            return ConnectionError(f"{self.host}:{self.port} closed the connection during {what}; "
                                   f"{_maybe_applied(what)}")
        reason = _reason(error) if isinstance(error, OSError) else str(error)
        return ConnectionError(f"the connection to {self.host}:{self.port} failed during {what}: {reason}; "
                               f"{_maybe_applied(what)}")

    def _call_back(self) -> None:
        """Calls the notification callbacks with what was read, in order and outside every
        lock; one thread at a time does it, until nothing is left."""
        with self._state:
            if self._delivering or not self._undelivered:
                return
            self._delivering = True
        try:
            while True:
                with self._state:
                    if not self._undelivered:
                        return
                    batch, self._undelivered = self._undelivered, []
                for notification in batch:
                    self.notifications._call_back(notification)
        finally:
            with self._state:
                self._delivering = False


def _remaining(deadline: Optional[float]) -> Optional[float]:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _expired(deadline: Optional[float]) -> bool:
    # A deadline may move on while a thread waits: a part of a stream gives every wait on
    # the connection the timeout afresh.
    return deadline is not None and time.monotonic() >= deadline


def _closes_connection(failure: DocstoreError) -> bool:
    """Whether the server closes the connection after this error: a -32005 but for an
    answer too large (a fetch's, or an object too large for a streamed answer's line)."""
    if failure.code != -32005:
        return False
    what = failure.data.get("what") if isinstance(failure.data, dict) else None
    return what not in _TOO_LARGE_KEEPS_CONNECTION


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def _maybe_applied(method: str) -> str:
    if method == "save":
        return "the save may or may not have been applied: re-read the objects to know"
    return "the next call reconnects"
