"""Predicate arguments in their wire form (``docs/PROTOCOL.md``, Predicate arguments).

Apart from :mod:`docstore.values` because an argument may be an object: this module
imports both, and neither imports it.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import uuid
from typing import Any

from .errors import ValueConversionError
from .objects import DocObject
from .values import URI, ObjectID, binary_to_wire, date_to_wire, decimal_to_wire, double_to_wire

__all__ = ["argument_to_wire"]


def argument_to_wire(value: Any) -> Any:
    """A predicate argument in its wire form (PROTOCOL.md, Predicate arguments): values JSON
    has no type for become one-key objects (``{"date": …}``, ``{"decimal": …}``,
    ``{"uuid": …}``, ``{"binary": …}``, ``{"uri": …}``, ``{"id": …}``)."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return double_to_wire(value)
    if isinstance(value, ObjectID):
        return {"id": str(value)}
    if isinstance(value, URI):
        return {"uri": str(value)}
    if isinstance(value, str):
        return value
    if isinstance(value, DocObject):
        if value.id is None:
            raise ValueConversionError(
                f"{value!r} is not saved yet, so it has no ID the server knows; save it first")
        return {"id": str(value.id)}
    if isinstance(value, decimal.Decimal):
        return {"decimal": decimal_to_wire(value)}
    if isinstance(value, (_dt.datetime, _dt.date)):
        return {"date": date_to_wire(value)}
    if isinstance(value, uuid.UUID):
        return {"uuid": str(value)}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"binary": binary_to_wire(value)}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [argument_to_wire(item) for item in value]
    raise ValueConversionError(
        f"a predicate argument cannot be a {type(value).__name__} ({value!r}); use None, bool, int, "
        "float, str, Decimal, datetime, UUID, bytes, an object, an ObjectID, a URI or a list of these")
