"""The exceptions the client raises.

Every error the server answers becomes a :class:`DocstoreError` subclass carrying the
server's ``code``, ``message`` and ``data`` (see ``docs/PROTOCOL.md``, Errors). Mistakes the
client can see before asking the server (an unknown property, a value of the wrong type)
are raised as the built-in ``KeyError``/``AttributeError``/``TypeError``/``ValueError``
families, through :class:`ModelError` and :class:`ValueConversionError`.
"""

from __future__ import annotations

import builtins
from typing import Any, List, Optional

__all__ = [
    "DocstoreError",
    "ProtocolError",
    "InvalidParamsError",
    "ConflictError",
    "Conflict",
    "ValidationError",
    "ValidationFailure",
    "NotFoundError",
    "AuthError",
    "TooLargeError",
    "StoreUnavailableError",
    "ConnectionError",
    "ModelError",
    "ValueConversionError",
    "ObjectDeletedError",
    "HistoryExpired",
    "ResyncRequired",
    "error_from_response",
]


class DocstoreError(Exception):
    """Base class of every error this package raises on purpose.

    ``code`` is the JSON-RPC error code (``None`` for errors raised by the client itself),
    ``message`` the server's sentence for people and ``data`` its machine-readable details.
    """

    def __init__(self, message: str, code: Optional[int] = None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data

    def __str__(self) -> str:
        if self.code is None:
            return self.message
        return f"{self.message} (code {self.code})"


class ProtocolError(DocstoreError):
    """The server could not make sense of a request: a parse error (-32700), an invalid
    request (-32600), an unknown method (-32601) or invalid parameters (-32602); or the
    server answered something this client cannot read."""


class InvalidParamsError(ProtocolError):
    """-32602: a parameter is missing or wrong: an unknown entity or key, a value of the
    wrong type, a predicate that does not parse. ``path`` names the parameter
    (``params.sort[0].key``), ``reason`` says what is wrong and, for a predicate,
    ``position`` is the character offset in it."""

    @property
    def path(self) -> Optional[str]:
        """The failing parameter, as the server names it."""
        path = _field(self.data, "path")
        return path if isinstance(path, str) else None

    @property
    def reason(self) -> Optional[str]:
        """What is wrong with the parameter."""
        reason = _field(self.data, "reason")
        return reason if isinstance(reason, str) else None

    @property
    def position(self) -> Optional[int]:
        """For a predicate that does not parse: the character offset of the problem."""
        position = _field(self.data, "position")
        return position if isinstance(position, int) else None


class Conflict:
    """One object of a :class:`ConflictError`: it was read at version ``expected`` but is
    now at ``current`` (``None`` when it was deleted meanwhile)."""

    __slots__ = ("id", "expected", "current")

    def __init__(self, id: str, expected: Optional[int], current: Optional[int]) -> None:
        self.id = id
        self.expected = expected
        self.current = current

    def __repr__(self) -> str:
        return f"Conflict(id={self.id!r}, expected={self.expected!r}, current={self.current!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Conflict) and (self.id, self.expected, self.current) == (
            other.id, other.expected, other.current)


class ConflictError(DocstoreError):
    """-32001: objects the save updates or deletes were changed (or deleted) by another
    save since they were read. Nothing was saved. ``conflicts`` lists each object with the
    version it was read at and its current one; re-read them (``Session.refresh``) and
    try again."""

    @property
    def conflicts(self) -> List[Conflict]:
        """Every conflicting object, with the expected and the current version."""
        items = _field(self.data, "conflicts") or []
        return [Conflict(str(item.get("id")), item.get("expected"), item.get("current"))
                for item in items if isinstance(item, dict)]

    @property
    def ids(self) -> List[str]:
        """The IDs of the conflicting objects."""
        return [conflict.id for conflict in self.conflicts]


class ValidationFailure:
    """One broken rule of a :class:`ValidationError`: ``key`` of the object ``id``
    (a temporary ID for an object being inserted) of ``entity``, and why."""

    __slots__ = ("id", "entity", "key", "reason")

    def __init__(self, id: Optional[str], entity: Optional[str], key: Optional[str],
                 reason: Optional[str]) -> None:
        self.id = id
        self.entity = entity
        self.key = key
        self.reason = reason

    def __repr__(self) -> str:
        return (f"ValidationFailure(id={self.id!r}, entity={self.entity!r}, key={self.key!r}, "
                f"reason={self.reason!r})")


class ValidationError(DocstoreError):
    """-32002: the save breaks the model's rules (a required value missing, too few or too
    many related objects, a ``deny`` delete rule). Nothing was saved."""

    @property
    def failures(self) -> List[ValidationFailure]:
        """Every broken rule, naming the object, the entity and the key."""
        items = _field(self.data, "failures") or []
        return [ValidationFailure(item.get("id"), item.get("entity"), item.get("key"),
                                  item.get("reason"))
                for item in items if isinstance(item, dict)]


class NotFoundError(DocstoreError):
    """-32003: a save names an object that does not exist (``ids``); or an object the
    client tried to load is gone. Nothing was saved."""

    @property
    def ids(self) -> List[str]:
        """The IDs that name no object."""
        return list(_field(self.data, "ids") or [])


class AuthError(DocstoreError):
    """-32004: the server needs a token and none, or a wrong one, was given."""


class TooLargeError(ProtocolError):
    """-32005: a limit of the server was passed (``data["what"]`` says which: ``line``,
    ``batch``, ``answer``, ``batchAnswer`` or ``bufferedBytes``). After ``line`` and
    ``bufferedBytes`` the server closed the connection (the next call reconnects); ask for
    less after ``answer``."""


class StoreUnavailableError(DocstoreError):
    """-32006: the server could not write its store (disk full, I/O error) or is shutting
    down. Nothing was saved."""


class TimeLimitError(DocstoreError):
    """-32007: the request ran past the server's time limit and was stopped; nothing was
    returned. Make the predicate cheaper or ask for less."""


class ServerBusyError(DocstoreError):
    """-32008: the server had its limit of connections open (or ran out of file
    descriptors) and closed this one; the next call connects again."""


class ConnectionError(DocstoreError, builtins.ConnectionError):
    """The connection failed: it could not be opened, it dropped, or no answer came in time.

    A request whose answer never arrived may or may not have been carried out; for a
    ``save``, re-read the objects to find out. The next call opens a new connection.
    Also an instance of the built-in ``ConnectionError``."""


class ModelError(DocstoreError, LookupError):
    """An entity or property that the server's model does not have (raised by the client
    before anything is sent). Also a ``LookupError``."""


class ValueConversionError(DocstoreError, TypeError):
    """A Python value that cannot stand for a property of the model's type, or a value from
    the server that does not have the type the model says. Also a ``TypeError``."""


class ObjectDeletedError(DocstoreError, LookupError):
    """The object was deleted (by this session's save, or by another client) and has no
    values any more."""


class HistoryExpired(DocstoreError):
    """-32009: a ``subscribe`` or ``changes`` asked for the commits after a ``since`` older
    than the history the server keeps. :attr:`oldest` is the oldest ``since`` still accepted.
    Changes were missed: fetch the objects again, then subscribe without ``since`` (or with
    the ``seq`` of :attr:`docstore.Client.seq` read before fetching)."""

    @property
    def oldest(self) -> Optional[int]:
        """The oldest ``since`` the server still accepts (``None`` when it did not say)."""
        value = _field(self.data, "oldest")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class NotCaughtUp(DocstoreError):
    """-32010: a read's ``after`` names a commit the server has not applied: another server's
    save it did not take within its wait (``--read-after-wait-ms``; try again), or a ``seq``
    no server on this store has made. :attr:`after` and :attr:`applied` say which commits.
    Nothing was read."""

    @property
    def after(self) -> Optional[int]:
        """The commit the read named."""
        value = _field(self.data, "after")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def applied(self) -> Optional[int]:
        """The last commit the server had applied."""
        value = _field(self.data, "applied")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class ForbiddenError(DocstoreError):
    """-32011: the user this client said ``hello`` as may not do this (docs/SECURITY.md):
    :attr:`operation` (``read``, ``insert``, ``update``, ``delete`` or a method's name) on
    :attr:`entity`, object :attr:`object_id`. Nothing was saved."""

    @property
    def operation(self) -> Optional[str]:
        """What was refused: ``read``, ``insert``, ``update``, ``delete`` or a method's name."""
        value = _field(self.data, "operation")
        return value if isinstance(value, str) else None

    @property
    def entity(self) -> Optional[str]:
        """The entity, when the refusal is about one."""
        value = _field(self.data, "entity")
        return value if isinstance(value, str) else None

    @property
    def object_id(self) -> Optional[str]:
        """The object (an insert's temporary ID), when the refusal is about one."""
        value = _field(self.data, "id")
        return value if isinstance(value, str) else None


class ResyncRequired(DocstoreError):
    """The server ended a subscription that did not keep up (its buffer of unsent changes
    was full; the ``resync`` notification). Every change up to :attr:`seq` was delivered;
    later ones were not. Subscribe again with ``since=seq`` (and read faster), or fetch
    again when that raises :class:`HistoryExpired`."""

    def __init__(self, message: str, seq: Optional[int] = None, reason: Optional[str] = None) -> None:
        super().__init__(message, None, {"seq": seq, "reason": reason})
        self.seq = seq
        self.reason = reason


_ERRORS_BY_CODE = {
    -32700: ProtocolError,
    -32600: ProtocolError,
    -32601: ProtocolError,
    -32602: InvalidParamsError,
    -32001: ConflictError,
    -32002: ValidationError,
    -32003: NotFoundError,
    -32004: AuthError,
    -32005: TooLargeError,
    -32006: StoreUnavailableError,
    -32007: TimeLimitError,
    -32008: ServerBusyError,
    -32009: HistoryExpired,
    -32010: NotCaughtUp,
    -32011: ForbiddenError,
}


def error_from_response(error: Any) -> DocstoreError:
    """The exception for a JSON-RPC ``error`` member."""
    if not isinstance(error, dict):
        return ProtocolError(f"the server answered an error that is not an object: {error!r}")
    code = error.get("code")
    message = error.get("message")
    if not isinstance(message, str):
        message = "the server reported an error without a message"
    cls = _ERRORS_BY_CODE.get(code, DocstoreError) if isinstance(code, int) else ProtocolError
    return cls(message, code if isinstance(code, int) else None, error.get("data"))


def _field(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, dict) else None
