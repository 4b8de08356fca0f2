"""Helpers for the tests that run the real ``docserver`` binary.

- :class:`ServerProcess` starts ``docserver serve --port 0`` on a store file, waits for its
  ``listening on HOST:PORT`` line and stops, kills or restarts it.
- :class:`RawConnection` is a blocking line client of the protocol (docs/PROTOCOL.md) on a
  plain socket, for sending exactly the bytes a test wants, bad ones included.

Every wait is bounded: sockets have timeouts, process waits have timeouts, so a test can fail
but never hang. Standard library only, Python 3.9+.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

#: Seconds to wait for ``listening on HOST:PORT`` after starting the server.
START_TIMEOUT = 30.0
#: Seconds to wait for the server to exit after SIGTERM before it is killed.
STOP_TIMEOUT = 10.0
#: Seconds a :class:`RawConnection` waits for one answer line by default.
SOCKET_TIMEOUT = 10.0

#: Environment variables of ``docserver serve`` that the tests always set themselves.
SERVER_ENVIRONMENT = (
    "DOCSERVER_HOST",
    "DOCSERVER_PORT",
    "DOCSERVER_AUTH_TOKEN",
    "DOCSERVER_MODEL",
    "DOCSERVER_STORE",
    "DOCSERVER_LOG_LEVEL",
)

_LISTENING = "listening on "


class ServerStartError(RuntimeError):
    """``docserver serve`` exited, or printed something unexpected, before it listened.

    ``returncode`` is its exit status (None when it was still running and had to be killed),
    ``stderr`` what it logged during this start.
    """

    def __init__(self, message: str, returncode: Optional[int], stderr: str) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


# Servers still running when the interpreter exits (a test run interrupted hard) are killed.
_running: "weakref.WeakSet[ServerProcess]" = weakref.WeakSet()


@atexit.register
def _kill_leftovers() -> None:
    for server in list(_running):
        server.kill()


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL it when the test process dies (Linux only)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except Exception:  # not Linux, or no prctl: atexit and the fixtures still stop it
        pass


def server_environment(extra: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """This process's environment without the ``DOCSERVER_*`` settings, plus ``extra``."""
    environment = {k: v for k, v in os.environ.items() if k not in SERVER_ENVIRONMENT}
    environment.update(extra or {})
    return environment


class ServerProcess:
    """A running ``docserver serve --port 0 --store STORE --log-level warning ...``.

    Started by the constructor, which returns once the server printed its
    ``listening on HOST:PORT`` line (or raises :class:`ServerStartError`, reporting its
    standard error). Standard error goes to :attr:`log_path` (read it with :attr:`log`).
    """

    def __init__(
        self,
        binary: Union[str, Path],
        store_path: Union[str, Path],
        *,
        model: Optional[Union[str, Path]] = None,
        token: Optional[str] = None,
        host: str = "127.0.0.1",
        extra_args: Sequence[str] = (),
        env: Optional[Mapping[str, str]] = None,
        log_path: Optional[Union[str, Path]] = None,
        start_timeout: float = START_TIMEOUT,
    ) -> None:
        self.binary = Path(binary)
        self.store_path = Path(store_path)
        self.model = None if model is None else Path(model)
        self.token = token
        self.requested_host = host
        self.extra_args = tuple(extra_args)
        self.env = dict(env or {})
        self.log_path = Path(log_path) if log_path is not None else self.store_path.with_name(
            self.store_path.name + ".server.log"
        )
        self.start_timeout = start_timeout
        self.host = ""
        self.port = 0
        self.process: Optional[subprocess.Popen] = None
        self._starts = 0
        self.start()

    # -- starting -------------------------------------------------------------------------

    def command(self) -> List[str]:
        """The command line that starts the server."""
        command = [
            str(self.binary), "serve",
            "--host", self.requested_host,
            "--port", "0",
            "--store", str(self.store_path),
            "--log-level", "warning",
        ]
        if self.model is not None:
            command += ["--model", str(self.model)]
        if self.token is not None:
            command += ["--auth-token", self.token]
        return command + list(self.extra_args)

    def start(self) -> "ServerProcess":
        """Starts the server (again) and waits for its listening line."""
        if self.is_running:
            raise RuntimeError("the server is already running")
        self._starts += 1
        stdout_path = self.log_path.with_name("%s.stdout-%d" % (self.log_path.name, self._starts))
        log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(stdout_path, "wb") as stdout, open(self.log_path, "ab") as stderr:
            self.process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                env=server_environment(self.env),
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
        _running.add(self)
        deadline = time.monotonic() + self.start_timeout
        line = b""
        while True:
            output = stdout_path.read_bytes()
            if b"\n" in output:
                line = output.split(b"\n", 1)[0]
                break
            if self.process.poll() is not None:
                # Exited; one more look, in case the line came just before the exit.
                output = stdout_path.read_bytes()
                if b"\n" in output:
                    line = output.split(b"\n", 1)[0]
                    break
                raise ServerStartError(
                    "docserver serve exited with status %d before listening; command: %s; stderr:\n%s"
                    % (self.process.returncode, " ".join(self.command()), self._log_since(log_start)),
                    self.process.returncode,
                    self._log_since(log_start),
                )
            if time.monotonic() > deadline:
                self.kill()
                raise ServerStartError(
                    "docserver serve did not print its listening line within %.0f s; stdout: %r; stderr:\n%s"
                    % (self.start_timeout, output, self._log_since(log_start)),
                    None,
                    self._log_since(log_start),
                )
            time.sleep(0.01)
        text = line.decode("utf-8", "replace").rstrip("\r")
        host, _, port = text[len(_LISTENING):].rpartition(":")
        if not text.startswith(_LISTENING) or not host or not port.isdigit() or int(port) == 0:
            self.kill()
            raise ServerStartError(
                "unexpected first line from docserver serve: %r; stderr:\n%s" % (text, self._log_since(log_start)),
                None,
                self._log_since(log_start),
            )
        self.host = host.strip("[]")
        self.port = int(port)
        return self

    def _log_since(self, offset: int) -> str:
        try:
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    # -- state ----------------------------------------------------------------------------

    @property
    def log(self) -> str:
        """Everything the server wrote on standard error so far (all starts)."""
        return self._log_since(0)

    @property
    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> Optional[int]:
        return None if self.process is None else self.process.pid

    @property
    def returncode(self) -> Optional[int]:
        return None if self.process is None else self.process.poll()

    # -- stopping -------------------------------------------------------------------------

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM, then wait; SIGKILL when it has not exited after ``timeout`` seconds.

        Returns the exit status (negative: killed by that signal). Stopping a stopped server
        returns its status again.
        """
        process = self.process
        if process is None:
            raise RuntimeError("the server was never started")
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=STOP_TIMEOUT)
        _running.discard(self)
        return process.returncode

    def kill(self) -> int:
        """SIGKILL, as a crash would; returns the exit status."""
        process = self.process
        if process is None:
            raise RuntimeError("the server was never started")
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)
        _running.discard(self)
        return process.returncode

    def restart(self) -> "ServerProcess":
        """Stops the server (SIGTERM) and starts it again on the same store.

        ``host`` and ``port`` name the new server afterwards.
        """
        self.stop()
        return self.start()

    # -- talking --------------------------------------------------------------------------

    def connect(self, timeout: float = SOCKET_TIMEOUT, hello: bool = True) -> "RawConnection":
        """A new :class:`RawConnection`; with a token, it sends ``hello`` with it first."""
        connection = RawConnection(self.host, self.port, timeout=timeout)
        if hello and self.token is not None:
            connection.result("hello", {"token": self.token})
        return connection

    def __repr__(self) -> str:
        return "<ServerProcess %s:%s store=%s pid=%s>" % (self.host, self.port, self.store_path, self.pid)


class RPCErrorResponse(Exception):
    """A JSON-RPC error answer, raised by :meth:`RawConnection.result`."""

    def __init__(self, response: Mapping[str, Any]) -> None:
        error = response.get("error") or {}
        super().__init__("%s: %s (data: %s)" % (error.get("code"), error.get("message"), error.get("data")))
        self.response = response
        self.code = error.get("code")
        self.message = error.get("message")
        self.data = error.get("data")


class RawConnection:
    """A blocking line client of the protocol, on a plain TCP socket.

    Every wait is bounded by ``timeout`` seconds (``socket.timeout`` otherwise).
    """

    def __init__(self, host: str, port: int, timeout: float = SOCKET_TIMEOUT) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self.sock: Optional[socket.socket] = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buffer = bytearray()
        self._eof = False
        self._next_id = 0

    # -- sending --------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Sends ``data`` as it is."""
        self._socket().sendall(data)

    def send_line(self, message: Union[bytes, str, Any]) -> None:
        """Sends one line: bytes and str as they are, anything else as compact JSON; plus ``\\n``."""
        self.send(encode_line(message) + b"\n")

    # -- reading --------------------------------------------------------------------------

    def read_line(self, timeout: Optional[float] = None) -> Optional[bytes]:
        """The next line without its ``\\n``, or None when the server closed the connection.

        A connection closed in the middle of a line raises ``ConnectionError``.
        """
        sock = self._socket()
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                return line
            if self._eof:
                if self._buffer:
                    rest = bytes(self._buffer)
                    self._buffer.clear()
                    raise ConnectionError("the connection closed in the middle of a line: %r" % rest[:200])
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout("no complete line within %.1f s (have %r)" % (
                    self.timeout if timeout is None else timeout, bytes(self._buffer[:200])))
            sock.settimeout(remaining)
            try:
                chunk = sock.recv(1 << 16)
            finally:
                sock.settimeout(self.timeout)
            if not chunk:
                self._eof = True
            else:
                self._buffer += chunk

    def read_message(self, timeout: Optional[float] = None) -> Any:
        """The next line, parsed as JSON; ``ConnectionError`` when the connection closed."""
        line = self.read_line(timeout)
        if line is None:
            raise ConnectionError("the server closed the connection instead of answering")
        return json.loads(line.decode("utf-8"))

    def read_until_closed(self, timeout: Optional[float] = None) -> bytes:
        """Everything the server still sends until it closes the connection.

        A reset counts as a close.
        """
        sock = self._socket()
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        data = bytes(self._buffer)
        self._buffer.clear()
        while not self._eof:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout("the server did not close the connection (got %r)" % data[:200])
            sock.settimeout(remaining)
            try:
                chunk = sock.recv(1 << 16)
            except ConnectionResetError:
                chunk = b""
            finally:
                sock.settimeout(self.timeout)
            if chunk:
                data += chunk
            else:
                self._eof = True
        return data

    def is_silent(self, seconds: float = 0.2) -> bool:
        """Whether nothing arrives (and the connection stays open) for ``seconds``."""
        if self._buffer or self._eof:
            return False
        sock = self._socket()
        sock.settimeout(seconds)
        try:
            chunk = sock.recv(1 << 16)
        except socket.timeout:
            return True
        finally:
            sock.settimeout(self.timeout)
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True
        return False

    # -- calls ----------------------------------------------------------------------------

    def request(self, method: str, params: Optional[Mapping[str, Any]] = None, id: Any = None) -> Dict[str, Any]:
        """The request object ``call`` would send (a fresh numeric id unless ``id`` is given)."""
        if id is None:
            self._next_id += 1
            id = self._next_id
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        return message

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None, id: Any = None) -> Dict[str, Any]:
        """Sends a request and returns the whole response object (result or error)."""
        message = self.request(method, params, id)
        self.send_line(message)
        response = self.read_message()
        if not isinstance(response, dict) or response.get("id") != message["id"]:
            raise AssertionError("answer to %r does not carry its id: %r" % (message, response))
        return response

    def result(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """The ``result`` of a call; :class:`RPCErrorResponse` for an error answer."""
        response = self.call(method, params)
        if "error" in response:
            raise RPCErrorResponse(response)
        return response["result"]

    # -- closing --------------------------------------------------------------------------

    def shutdown_write(self) -> None:
        """Half-closes the connection: the server sees the end of the stream."""
        self._socket().shutdown(socket.SHUT_WR)

    def reset(self) -> None:
        """Closes the connection with a TCP reset (SO_LINGER 0), as a crashing client might."""
        if self.sock is not None:
            import struct

            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close()

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None

    def _socket(self) -> socket.socket:
        if self.sock is None:
            raise ConnectionError("the connection is closed")
        return self.sock

    def __enter__(self) -> "RawConnection":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def encode_line(message: Union[bytes, str, Any]) -> bytes:
    """A message as the bytes of one line (without ``\\n``): bytes and str as they are,
    anything else as compact JSON (UTF-8, non-ASCII characters as themselves)."""
    if isinstance(message, (bytes, bytearray)):
        return bytes(message)
    if isinstance(message, str):
        return message.encode("utf-8")
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def file_bytes(path: Union[str, Path]) -> Optional[bytes]:
    """The bytes of a file, or None when it does not exist."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None


def load_json_strict(data: Union[bytes, str]) -> Any:
    """Parses JSON refusing a key given twice in one object (the store loader refuses it too)."""

    def pairs(items: Iterable[Any]) -> Dict[str, Any]:
        result: Dict[str, Any] = {}
        for key, value in items:
            if key in result:
                raise ValueError("key %r given twice" % key)
            result[key] = value
        return result

    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return json.loads(data, object_pairs_hook=pairs)
