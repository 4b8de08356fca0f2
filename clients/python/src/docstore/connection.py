"""One TCP connection speaking the line protocol (``docs/PROTOCOL.md``, Transport)."""

from __future__ import annotations

import itertools
import json
import socket
import threading
from typing import Any, Dict, Optional

from .errors import AuthError, ConnectionError, DocstoreError, ProtocolError, error_from_response

__all__ = ["Connection"]


class Connection:
    """A connection that sends one JSON-RPC request per line and reads its answer.

    Thread-safe: calls from several threads take turns. The socket opens on the first call;
    after a dropped connection or a timeout it is closed, and the next call opens a new one
    (and says ``hello`` again), so a long-lived client survives a server restart."""

    def __init__(self, host: str, port: int, token: Optional[str], timeout: Optional[float],
                 client_name: str) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self._token = token
        self._client_name = client_name
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._socket: Optional[socket.socket] = None
        self._reader: Any = None
        self.hello: Dict[str, Any] = {}

    @property
    def is_open(self) -> bool:
        """Whether a socket is open now."""
        return self._socket is not None

    def call(self, method: str, params: Optional[Dict[str, Any]] = None) -> Any:
        """Sends one request and returns its ``result``, or raises the server's error as a
        :class:`~docstore.DocstoreError` subclass."""
        with self._lock:
            self._open()
            return self._exchange(method, params)

    def close(self) -> None:
        """Closes the socket (the next call opens a new one)."""
        with self._lock:
            self._drop()

    def _open(self) -> None:
        if self._socket is not None:
            return
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as error:
            raise ConnectionError(f"cannot connect to {self.host}:{self.port}: {_reason(error)}") from error
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._socket = sock
        self._reader = sock.makefile("rb")
        params: Dict[str, Any] = {"client": self._client_name}
        if self._token is not None:
            params["token"] = self._token
        try:
            self.hello = self._exchange("hello", params)
        except DocstoreError:
            self._drop()
            raise

    def _exchange(self, method: str, params: Optional[Dict[str, Any]]) -> Any:
        request_id = next(self._ids)
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            line = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as error:
            raise ProtocolError(f"the {method} request cannot be written as JSON: {error}") from None
        sock = self._socket
        if sock is None:
            raise ConnectionError(f"not connected to {self.host}:{self.port}")
        try:
            sock.sendall(line.encode("utf-8") + b"\n")
            answer = self._reader.readline()
        except socket.timeout:
            self._drop()
            raise ConnectionError(
                f"no answer to {method} from {self.host}:{self.port} within {self.timeout} s; "
                f"{_maybe_applied(method)}") from None
        except OSError as error:
            self._drop()
            raise ConnectionError(
                f"the connection to {self.host}:{self.port} failed during {method}: {_reason(error)}; "
                f"{_maybe_applied(method)}") from error
        if not answer.endswith(b"\n"):
            self._drop()
            raise ConnectionError(
                f"{self.host}:{self.port} closed the connection during {method}; {_maybe_applied(method)}")
        try:
            response = json.loads(answer)
        except ValueError as error:
            self._drop()
            raise ProtocolError(f"the answer to {method} is not JSON: {error}") from None
        if not isinstance(response, dict) or response.get("id") != request_id:
            self._drop()
            raise ProtocolError(f"the answer to {method} (id {request_id}) is not its response: {answer[:200]!r}")
        if "error" in response:
            failure = error_from_response(response["error"])
            if isinstance(failure, AuthError) or failure.code == -32005:
                self._drop()  # the server closes the connection after these
            raise failure
        if "result" not in response:
            raise ProtocolError(f"the answer to {method} has neither result nor error")
        return response["result"]

    def _drop(self) -> None:
        sock, reader = self._socket, self._reader
        self._socket = None
        self._reader = None
        for closeable in (reader, sock):
            if closeable is not None:
                try:
                    closeable.close()
                except OSError:
                    pass


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def _maybe_applied(method: str) -> str:
    if method == "save":
        return "the save may or may not have been applied: re-read the objects to know"
    return "the next call reconnects"
