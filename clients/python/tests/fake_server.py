"""A scripted stand-in for docserver, to test the client's framing and matching: it answers
``hello`` itself and hands every other request to a script, which answers when and how it
likes (out of order, with notifications between the answers, with wrong ids)."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any, Callable, Dict, List, Optional, Union

SOCKET_TIMEOUT = 10.0


class Peer:
    """One connection the fake server accepted."""

    def __init__(self, sock: socket.socket, number: int) -> None:
        self.socket = sock
        self.number = number
        self.requests: List[Dict[str, Any]] = []   # every request but hello, in arrival order
        self.held: List[Dict[str, Any]] = []       # requests the script keeps to answer later
        self._send_lock = threading.Lock()

    def send(self, message: Union[bytes, Dict[str, Any]]) -> None:
        """Writes one line: ``message`` as JSON, or bytes as they are (plus ``\\n``)."""
        data = message if isinstance(message, bytes) else json.dumps(message, separators=(",", ":")).encode("utf-8")
        with self._send_lock:
            self.socket.sendall(data + b"\n")

    def answer(self, request: Dict[str, Any], result: Any = None) -> None:
        """Answers ``request`` with ``result`` (default: the request's method name)."""
        self.send({"jsonrpc": "2.0", "id": request["id"], "result": request["method"] if result is None else result})

    def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification (no ``id``)."""
        message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)


Script = Callable[[Peer, Dict[str, Any]], None]


class FakeServer:
    """Listens on 127.0.0.1 on a free port; each accepted connection gets a :class:`Peer`
    and a thread that reads its lines and passes each request but ``hello`` to ``script``."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.peers: List[Peer] = []
        self.errors: List[BaseException] = []
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(8)
        self._listener.settimeout(0.2)
        self.host, self.port = self._listener.getsockname()[:2]
        self._stopping = threading.Event()
        self._threads: List[threading.Thread] = []
        self._start(self._accept)

    def _start(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            sock.settimeout(0.2)
            peer = Peer(sock, len(self.peers) + 1)
            self.peers.append(peer)
            self._start(self._serve, peer)

    def _serve(self, peer: Peer) -> None:
        buffer = b""
        try:
            while not self._stopping.is_set():
                try:
                    chunk = peer.socket.recv(65536)
                except socket.timeout:
                    continue
                if not chunk:
                    return
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    message = json.loads(line)
                    if message.get("method") == "hello":
                        peer.answer(message, {"server": "fake", "protocol": 1, "storeUUID": "", "modelHash": ""})
                        continue
                    peer.requests.append(message)
                    self.script(peer, message)
        except OSError:
            return
        except BaseException as error:  # reported by the test through .errors
            self.errors.append(error)
        finally:
            peer.socket.close()

    def peer(self, number: int = 1, timeout: float = SOCKET_TIMEOUT) -> Optional[Peer]:
        """The ``number``-th connection accepted (waiting for it up to ``timeout``)."""
        waited = threading.Event()
        for _ in range(int(timeout / 0.01)):
            if len(self.peers) >= number:
                return self.peers[number - 1]
            waited.wait(0.01)
        return None

    def close(self) -> None:
        self._stopping.set()
        self._listener.close()
        for thread in self._threads:
            thread.join(timeout=SOCKET_TIMEOUT)

    def __enter__(self) -> "FakeServer":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
