"""TLS and credentials for a connection (docs/SECURITY.md).

:class:`Security` bundles what a connection needs to reach a server that uses TLS or users:
an :class:`ssl.SSLContext` (verifying the server's certificate and host name by default),
and the ``user`` and ``secret`` (or ``token``) that ``hello`` sends. The secret is kept
out of ``repr`` and error messages.
"""

from __future__ import annotations

import socket
import ssl as _ssl
from typing import Any, Dict, Optional, Union


class Security:
    """How a connection authenticates and encrypts.

    - ``ssl``: ``True`` for a default context (the system's certificate authorities, host
      name checked, TLS 1.2 at least), an :class:`ssl.SSLContext` of your own (say one made
      with ``ssl.create_default_context(cafile="ca.pem")``), or ``None``/``False`` for
      plain TCP.
    - ``server_hostname``: the name the server's certificate must carry (default: the host
      connected to).
    - ``user`` and ``secret``: a user of the server's users file; ``token``: the server's
      ``--auth-token``.
    """

    def __init__(self, token: Optional[str] = None, user: Optional[str] = None, secret: Optional[str] = None,
                 ssl: Union[bool, _ssl.SSLContext, None] = None, server_hostname: Optional[str] = None) -> None:
        if (user is None) != (secret is None):
            raise ValueError("give user and secret together")
        self.token = token
        self.user = user
        self._secret = secret
        if ssl is True:
            ssl = _ssl.create_default_context()
        if isinstance(ssl, _ssl.SSLContext) and ssl.minimum_version < _ssl.TLSVersion.TLSv1_2:
            ssl.minimum_version = _ssl.TLSVersion.TLSv1_2
        self.ssl_context: Optional[_ssl.SSLContext] = ssl or None
        self.server_hostname = server_hostname

    @classmethod
    def of(cls, token: Union[str, "Security", None]) -> "Security":
        """A plain token (the old argument) or a :class:`Security` as it is."""
        return token if isinstance(token, Security) else cls(token=token)

    def wrap(self, sock: socket.socket, host: str) -> socket.socket:
        """The socket after the TLS handshake (or as it is without TLS)."""
        if self.ssl_context is None:
            return sock
        try:
            return self.ssl_context.wrap_socket(sock, server_hostname=self.server_hostname or host)
        except BaseException:
            sock.close()
            raise

    def hello_params(self, client_name: str) -> Dict[str, Any]:
        """The parameters of ``hello``."""
        params: Dict[str, Any] = {"client": client_name}
        if self.token is not None:
            params["token"] = self.token
        if self.user is not None:
            params["user"] = self.user
            params["secret"] = self._secret
        return params

    def __repr__(self) -> str:
        parts = []
        if self.user is not None:
            parts.append("user=%r secret=<hidden>" % self.user)
        if self.token is not None:
            parts.append("token=<hidden>")
        parts.append("tls" if self.ssl_context is not None else "plain")
        return "<docstore.Security %s>" % " ".join(parts)
