"""Helpers for the security tests (docs/SECURITY.md): certificates made with ``openssl``,
users files written here with an independent PBKDF2 (``hashlib``), a model with owners,
and an independent evaluation of the row rules the tests use.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import ssl
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

#: Few iterations: the tests make many hellos; the format allows 1,000 at least.
TEST_ITERATIONS = 1000

#: A model with owners: Note (owner, team, level, title) and Memo (owner, public, text).
SECURITY_MODEL = {
    "entities": [
        {"name": "Note", "attributes": [
            {"name": "owner", "type": "string"}, {"name": "team", "type": "string", "optional": True},
            {"name": "level", "type": "int64", "default": 0}, {"name": "title", "type": "string", "optional": True}]},
        {"name": "Memo", "attributes": [
            {"name": "owner", "type": "string"}, {"name": "public", "type": "bool", "default": False},
            {"name": "text", "type": "string", "optional": True}]},
    ]
}


def write_model(directory: Path) -> Path:
    path = directory / "security.model.json"
    path.write_text(json.dumps(SECURITY_MODEL))
    return path


def secret_hash(secret: str, iterations: int = TEST_ITERATIONS, salt: Optional[bytes] = None) -> str:
    """The users file's hash of ``secret``, computed here without the server's code."""
    salt = salt if salt is not None else os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode("utf-8"), salt, iterations, 32)
    return "pbkdf2-sha256$%d$%s$%s" % (iterations, base64.b64encode(salt).decode(), base64.b64encode(digest).decode())


def user_entry(name: str, secret: str, roles: Sequence[str] = (), grants: Sequence[Dict[str, Any]] = ()) -> Dict[str, Any]:
    return {"name": name, "secret": secret_hash(secret), "roles": list(roles), "grants": list(grants)}


def write_users(path: Path, users: Iterable[Dict[str, Any]], mode: int = 0o600) -> Path:
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(json.dumps({"users": list(users)}))
    os.chmod(temporary, mode)
    os.replace(temporary, path)
    return path


# -- certificates --------------------------------------------------------------------------


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=str(cwd), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)


class Certificates:
    """A certificate authority and a server certificate for localhost and 127.0.0.1 (and a
    client certificate), all made with ``openssl`` in ``directory`` under ``prefix``."""

    def __init__(self, directory: Path, prefix: str = "a", hostnames: Sequence[str] = ("localhost",)) -> None:
        self.directory = directory
        d = directory
        self.ca = d / (prefix + "-ca.pem")
        self.ca_key = d / (prefix + "-ca.key")
        self.cert = d / (prefix + "-server.pem")
        self.key = d / (prefix + "-server.key")
        self.client_cert = d / (prefix + "-client.pem")
        self.client_key = d / (prefix + "-client.key")
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=docserver test CA " + prefix,
                 "-keyout", self.ca_key.name, "-out", self.ca.name, cwd=d)
        names = ",".join(["DNS:" + name for name in hostnames] + ["IP:127.0.0.1"])
        (d / (prefix + "-ext.cnf")).write_text("subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n" % names)
        for leaf, key, subject in ((self.cert, self.key, "/CN=localhost"), (self.client_cert, self.client_key, "/CN=client")):
            csr = leaf.with_suffix(".csr")
            _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", key.name, "-out", csr.name, cwd=d)
            _openssl("x509", "-req", "-in", csr.name, "-CA", self.ca.name, "-CAkey", self.ca_key.name, "-CAcreateserial",
                     "-days", "2", "-extfile", prefix + "-ext.cnf", "-out", leaf.name, cwd=d)
        for key in (self.key, self.client_key, self.ca_key):
            os.chmod(key, 0o600)

    def tls_args(self, client_ca: bool = False) -> List[str]:
        args = ["--tls-cert", str(self.cert), "--tls-key", str(self.key)]
        return args + (["--tls-client-ca", str(self.ca)] if client_ca else [])

    def client_context(self, with_certificate: bool = False) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.ca))
        if with_certificate:
            context.load_cert_chain(str(self.client_cert), str(self.client_key))
        return context


def tls_line_exchange(port: int, context: ssl.SSLContext, lines: Sequence[Any], hostname: str = "localhost",
                      timeout: float = 10.0) -> List[Any]:
    """Sends JSON lines over TLS, returns the answers (one per line)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as raw:
        with context.wrap_socket(raw, server_hostname=hostname) as sock:
            answers = []
            buffer = b""
            for line in lines:
                sock.sendall(json.dumps(line).encode() + b"\n")
                while b"\n" not in buffer:
                    chunk = sock.recv(65536)
                    if not chunk:
                        raise ConnectionError("closed")
                    buffer += chunk
                answer, buffer = buffer.split(b"\n", 1)
                answers.append(json.loads(answer))
            return answers
