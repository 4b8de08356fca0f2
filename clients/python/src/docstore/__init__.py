"""docstore: the Python client of docserver, the JSON document store server.

Programs in any language share one object graph through docserver; this package is the
Python side. Connect, read, change in a session, save::

    import docstore

    with docstore.connect("127.0.0.1", 7878) as client:
        s = client.session()
        album = s.insert("Album", title="Kind of Blue")
        song = s.insert("Song", title="So What", album=album)
        s.save()                       # one atomic save; song.id is permanent now
        print(album.songs)             # the server kept the inverse: [<Song …>]

The protocol is ``docs/PROTOCOL.md`` in the project; this package uses only the standard
library.
"""

from .client import DEFAULT_PORT, Client, connect
from .security import Security
from .errors import (
    AuthError,
    Conflict,
    ConflictError,
    ConnectionError,
    DocstoreError,
    InvalidParamsError,
    ModelError,
    NotFoundError,
    HistoryExpired,
    NotCaughtUp,
    ForbiddenError,
    ObjectDeletedError,
    ProtocolError,
    ResyncRequired,
    ServerBusyError,
    StoreUnavailableError,
    TimeLimitError,
    TooLargeError,
    ValidationError,
    ValidationFailure,
    ValueConversionError,
)
from .changes import Change, ChangeBatch, ChangedObject
from .subscription import Subscription
from .connection import PendingCall
from .model import Attribute, Entity, Model, Relationship
from .notifications import Notification
from .objects import DocObject, RelatedList
from .session import SaveResult, Session, Sort
from .values import URI, ObjectID

__version__ = "0.7.0"

__all__ = [
    "Security",
    "connect",
    "Client",
    "DEFAULT_PORT",
    "PendingCall",
    "Notification",
    "Subscription",
    "Change",
    "ChangedObject",
    "ChangeBatch",
    "SaveResult",
    "Session",
    "Sort",
    "DocObject",
    "RelatedList",
    "ObjectID",
    "URI",
    "Model",
    "Entity",
    "Attribute",
    "Relationship",
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
    "TimeLimitError",
    "ServerBusyError",
    "ConnectionError",
    "ModelError",
    "ValueConversionError",
    "ObjectDeletedError",
    "HistoryExpired",
    "NotCaughtUp",
    "ForbiddenError",
    "ResyncRequired",
]
