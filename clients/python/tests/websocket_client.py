"""A small WebSocket client (RFC 6455) with the standard library, for the tests of ``/rpc`` on the
HTTP port: the handshake, masked text frames out, frames in (fragments joined; pings answered).
Not a general client: enough to check what the server sends, byte for byte."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import struct
from typing import Any, Dict, Optional, Tuple

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class HandshakeRefused(Exception):
    """The server answered the upgrade with another status: ``status`` and ``body``."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__("the upgrade was refused: %d %s" % (status, body))
        self.status = status
        self.body = body


class Closed(Exception):
    """The server sent a close frame (``code``) or closed the connection (``code`` None)."""

    def __init__(self, code: Optional[int]) -> None:
        super().__init__("closed with code %s" % code)
        self.code = code


class WebSocket:
    def __init__(self, port: int, path: str = "/rpc", origin: Optional[str] = None,
                 host: str = "127.0.0.1", timeout: float = 10.0, source: Optional[str] = None) -> None:
        # `source`: the local address to connect from (127.0.0.2, say: another client address on loopback).
        self.sock = socket.create_connection((host, port), timeout=timeout,
                                             source_address=(source, 0) if source is not None else None)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = ["GET %s HTTP/1.1" % path, "Host: %s:%d" % (host, port), "Upgrade: websocket",
                 "Connection: Upgrade", "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13"]
        if origin is not None:
            lines.append("Origin: " + origin)
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buffer = b""
        head = self._read_until(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ")[1])
        headers = {k.strip().lower(): v.strip() for k, v in (h.split(":", 1) for h in header_lines if ":" in h)}
        if status != 101:
            length = int(headers.get("content-length", "0"))
            body = self._read_exactly(length).decode("utf-8", "replace")
            self.sock.close()
            raise HandshakeRefused(status, body)
        expected = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        assert headers.get("sec-websocket-accept") == expected, headers

    # -- bytes --------------------------------------------------------------------------------

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise Closed(None)
        self.buffer += chunk

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def _read_exactly(self, count: int) -> bytes:
        while len(self.buffer) < count:
            self._fill()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    # -- frames -------------------------------------------------------------------------------

    def send_frame(self, opcode: int, payload: bytes, fin: bool = True) -> None:
        header = bytes([(0x80 if fin else 0) | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", length)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send_text(self, text: str) -> None:
        self.send_frame(0x1, text.encode("utf-8"))

    def send(self, message: Dict[str, Any]) -> None:
        self.send_text(json.dumps(message))

    def read_frame(self) -> Tuple[int, bytes]:
        first, second = self._read_exactly(2)
        length = second & 0x7F
        assert second & 0x80 == 0, "a server's frames are not masked"
        if length == 126:
            (length,) = struct.unpack(">H", self._read_exactly(2))
        elif length == 127:
            (length,) = struct.unpack(">Q", self._read_exactly(8))
        return first, self._read_exactly(length)

    def receive_text(self) -> str:
        """The next text message; pings answered; a close frame raises :class:`Closed`."""
        parts = b""
        while True:
            first, payload = self.read_frame()
            opcode = first & 0x0F
            if opcode == 0x9:
                self.send_frame(0xA, payload)
                continue
            if opcode == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                raise Closed(code)
            if opcode == 0xA:
                continue
            assert opcode in (0x0, 0x1), "a text frame, not opcode %d" % opcode
            parts += payload
            if first & 0x80:
                return parts.decode("utf-8")

    def receive(self) -> Any:
        return json.loads(self.receive_text())

    def call(self, method: str, params: Optional[Dict[str, Any]] = None, id: int = 1) -> Any:
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.receive()

    def close(self) -> None:
        try:
            self.send_frame(0x8, struct.pack(">H", 1000))
        except OSError:
            pass
        self.sock.close()
