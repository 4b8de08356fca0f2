"""TLS on the line protocol against the real binary (docs/SECURITY.md, TLS): a verifying
client, plaintext and TLS 1.1 refused, a wrong host name refused by the client, client
certificates, reload on SIGHUP, and the protected mode."""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

import docstore
from security_support import Certificates, tls_line_exchange
from support import ServerStartError

pytestmark = pytest.mark.deadline(120)

HELLO = {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"client": "tls-test"}}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


@pytest.fixture
def certificates(tmp_path: Path) -> Certificates:
    return Certificates(tmp_path)


def test_a_verifying_python_client_talks_to_the_server_over_tls(start_server, certificates):
    server = start_server(extra_args=certificates.tls_args())
    answers = tls_line_exchange(server.port, certificates.client_context(), [HELLO, PING])
    assert answers[1]["result"] == "pong"
    with docstore.connect(port=server.port, host="127.0.0.1", ssl=certificates.client_context(),
                          server_hostname="localhost") as client:
        assert client.count("Song") == 0


def test_plaintext_to_the_tls_port_gets_no_answer_and_the_connection_closes(start_server, certificates):
    server = start_server(extra_args=certificates.tls_args())
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        received = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            received += chunk
    assert b"pong" not in received and b"jsonrpc" not in received


def _s_client(port: int, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port, *options],
                          input=b"", stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)


def test_tls_1_1_and_1_0_are_refused_and_1_2_and_1_3_accepted(start_server, certificates):
    server = start_server(extra_args=certificates.tls_args())
    for version in ("-tls1_1", "-tls1"):
        # SECLEVEL=0 lets this openssl offer the old version: the refusal must be the server's.
        result = _s_client(server.port, version, "-cipher", "DEFAULT@SECLEVEL=0")
        output = result.stdout.decode("utf-8", "replace")
        assert result.returncode != 0, output
        # The server's answer: a protocol_version alert, no cipher agreed.
        assert "alert protocol version" in output and "Cipher is (NONE)" in output, output
    for version, name in (("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")):
        result = _s_client(server.port, version, "-CAfile", str(certificates.ca), "-verify_return_error")
        output = result.stdout.decode("utf-8", "replace")
        assert result.returncode == 0, output
        assert name in output


def test_a_certificate_for_another_host_name_is_refused_by_the_client(start_server, certificates):
    server = start_server(extra_args=certificates.tls_args())
    with pytest.raises(ssl.SSLCertVerificationError):
        tls_line_exchange(server.port, certificates.client_context(), [HELLO], hostname="db.example.org")
    with pytest.raises(docstore.ConnectionError):
        docstore.connect(port=server.port, host="127.0.0.1", ssl=certificates.client_context(), server_hostname="db.example.org")
    # A certificate of an authority the client does not trust: refused too (verification is the default).
    other = Certificates(certificates.directory, prefix="b")
    with pytest.raises(docstore.ConnectionError):
        docstore.connect(port=server.port, host="127.0.0.1", ssl=other.client_context(), server_hostname="localhost")


def test_with_a_client_ca_a_client_without_a_certificate_is_refused(start_server, certificates):
    server = start_server(extra_args=certificates.tls_args(client_ca=True))
    with pytest.raises((ssl.SSLError, ConnectionError, OSError)):
        tls_line_exchange(server.port, certificates.client_context(), [HELLO, PING])
    answers = tls_line_exchange(server.port, certificates.client_context(with_certificate=True), [HELLO, PING])
    assert answers[1]["result"] == "pong"


def test_sighup_reloads_the_certificate_and_a_bad_file_keeps_the_old_one(start_server, certificates, tmp_path):
    cert, key = tmp_path / "live.pem", tmp_path / "live.key"
    cert.write_bytes(certificates.cert.read_bytes())
    key.write_bytes(certificates.key.read_bytes())
    server = start_server(extra_args=["--tls-cert", str(cert), "--tls-key", str(key)])
    assert tls_line_exchange(server.port, certificates.client_context(), [HELLO, PING])[1]["result"] == "pong"
    # A bad certificate file: the old certificate stays in use.
    cert.write_text("not a certificate\n")
    os.kill(server.pid, signal.SIGHUP)
    time.sleep(0.5)
    assert tls_line_exchange(server.port, certificates.client_context(), [HELLO, PING])[1]["result"] == "pong"
    # A new certificate of another authority: new connections use it.
    other = Certificates(tmp_path, prefix="b")
    cert.write_bytes(other.cert.read_bytes())
    key.write_bytes(other.key.read_bytes())
    os.kill(server.pid, signal.SIGHUP)
    deadline = time.monotonic() + 10
    while True:
        try:
            answers = tls_line_exchange(server.port, other.client_context(), [HELLO, PING])
            break
        except ssl.SSLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    assert answers[1]["result"] == "pong"
    with pytest.raises(ssl.SSLCertVerificationError):
        tls_line_exchange(server.port, certificates.client_context(), [HELLO])
    assert "kept the old TLS certificate and key" in server.log


def test_listening_beyond_loopback_without_tls_or_users_needs_insecure(start_server, certificates):
    with pytest.raises(ServerStartError) as refused:
        start_server(host="0.0.0.0")
    assert "--insecure" in refused.value.stderr
    server = start_server(host="0.0.0.0", extra_args=["--insecure"])
    assert "without TLS and without users (--insecure)" in server.log
    server.stop()
    # With TLS alone it starts.
    start_server(host="0.0.0.0", extra_args=certificates.tls_args())
