"""Attribute values between Python and the wire.

The wire forms are those of ``docs/PROTOCOL.md`` (Objects) and ``docs/FILE_FORMAT.md``
(Values). In Python:

==============================  ==========================================
model type                      Python type
==============================  ==========================================
``int16``, ``int32``, ``int64`` ``int`` (range-checked before sending)
``double``, ``float``           ``float`` (``nan`` and infinities included)
``decimal``                     ``decimal.Decimal``
``string``                      ``str``
``bool``                        ``bool``
``date``                        ``datetime.datetime``, aware, in UTC
``binary``                      ``bytes``
``uuid``                        ``uuid.UUID``
``uri``                         ``str``
==============================  ==========================================
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import decimal
import math
import re
import uuid
from typing import Any, Callable, Dict, Tuple

from .errors import ValueConversionError

__all__ = ["ObjectID", "URI", "to_wire", "from_wire", "format_date", "parse_date", "split_sort_key",
           "double_to_wire", "decimal_to_wire", "date_to_wire", "binary_to_wire"]


class ObjectID(str):
    """An object's permanent ID, ``graph://<storeUUID>/<Entity>/<reference>``.

    A ``str``; as a predicate argument it stands for the object (``album == %@``), where a
    plain string would be compared as text."""

    __slots__ = ()

    @property
    def entity(self) -> str:
        """The entity named in the ID."""
        parts = self.split("/")
        return parts[-2] if len(parts) >= 5 else ""

    def __repr__(self) -> str:
        return f"ObjectID({str.__repr__(self)})"


class URI(str):
    """A URI as a predicate argument for a ``uri`` attribute (``homepage == %@``)."""

    __slots__ = ()


_INTEGER_RANGES = {
    "int16": (-(2 ** 15), 2 ** 15 - 1),
    "int32": (-(2 ** 31), 2 ** 31 - 1),
    "int64": (-(2 ** 63), 2 ** 63 - 1),
}

_DATE = re.compile(
    r"(?P<year>[+-]\d{6}|\d{4})-(?P<month>\d\d)-(?P<day>\d\d)T(?P<hour>\d\d):(?P<minute>\d\d):"
    r"(?P<second>\d\d)(?:\.(?P<fraction>\d+))?(?P<zone>Z|[+-]\d\d:\d\d)\Z")


def format_date(value: _dt.datetime) -> str:
    """The wire form of an aware datetime: UTC, ``YYYY-MM-DDTHH:MM:SS.ffffffZ``.

    The server keeps milliseconds, so the value read back is rounded to them."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueConversionError(
            f"a naive datetime ({value.isoformat()}) has no time zone; "
            "give it one, e.g. datetime.now(timezone.utc) or value.replace(tzinfo=timezone.utc)")
    utc = value.astimezone(_dt.timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S") + f".{utc.microsecond:06d}Z"


def parse_date(text: str) -> _dt.datetime:
    """An aware UTC datetime from the wire form (any offset, any fraction length)."""
    match = _DATE.match(text)
    if match is None:
        raise ValueConversionError(f"{text!r} is not an ISO 8601 date with a time zone")
    year = int(match["year"])
    if not 1 <= year <= 9999:
        raise ValueConversionError(f"the date {text!r} is outside the years Python's datetime holds (1...9999)")
    fraction = (match["fraction"] or "0")[:6].ljust(6, "0")
    try:
        value = _dt.datetime(year, int(match["month"]), int(match["day"]), int(match["hour"]),
                             int(match["minute"]), int(match["second"]), int(fraction),
                             tzinfo=_dt.timezone.utc)
    except ValueError as error:
        raise ValueConversionError(f"the date {text!r} is not on the calendar: {error}") from None
    zone = match["zone"]
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        offset = _dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
        try:
            value -= sign * offset
        except OverflowError:
            raise ValueConversionError(f"the date {text!r} in UTC is outside the years Python's datetime holds (1...9999)") from None
    return value


def _integer_to_wire(type_name: str) -> Callable[[Any], Any]:
    low, high = _INTEGER_RANGES[type_name]

    def convert(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueConversionError(f"expected an int for {type_name}, got {type(value).__name__} {value!r}")
        if not low <= value <= high:
            raise ValueConversionError(f"{value} is out of the range of {type_name} ({low}...{high})")
        return value

    return convert


def double_to_wire(value: Any) -> Any:
    """The wire form of a ``double`` or ``float``: a number, or ``"NaN"``, ``"Infinity"``, ``"-Infinity"``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueConversionError(f"expected a float, got {type(value).__name__} {value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueConversionError(f"the integer {value} is too large for a double") from None
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return number


def decimal_to_wire(value: Any) -> Any:
    """The wire form of a ``decimal``: its text (``"NaN"`` included; infinities are refused)."""
    if isinstance(value, bool) or not isinstance(value, (decimal.Decimal, int)):
        raise ValueConversionError(
            f"expected a decimal.Decimal (or an int), got {type(value).__name__} {value!r}; "
            "a float cannot hold most decimals exactly, write Decimal('9.99')")
    number = decimal.Decimal(value)
    if number.is_nan():
        return "NaN"
    if number.is_infinite():
        raise ValueConversionError(f"a decimal cannot be infinite ({value!r})")
    return str(number)


def _string(value: Any) -> Any:
    """A ``str`` both ways."""
    if not isinstance(value, str):
        raise ValueConversionError(f"expected a str, got {type(value).__name__} {value!r}")
    return str(value)


def _bool(value: Any) -> Any:
    """A ``bool`` both ways."""
    if not isinstance(value, bool):
        raise ValueConversionError(f"expected a bool, got {type(value).__name__} {value!r}")
    return value


def date_to_wire(value: Any) -> Any:
    """The wire form of a ``date`` (a ``date`` alone is midnight UTC): see :func:`format_date`."""
    if isinstance(value, _dt.datetime):
        return format_date(value)
    if isinstance(value, _dt.date):
        return format_date(_dt.datetime(value.year, value.month, value.day, tzinfo=_dt.timezone.utc))
    raise ValueConversionError(f"expected a datetime.datetime, got {type(value).__name__} {value!r}")


def binary_to_wire(value: Any) -> Any:
    """The wire form of ``binary``: base64."""
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise ValueConversionError(f"expected bytes, got {type(value).__name__}")
    return base64.b64encode(bytes(value)).decode("ascii")


def _uuid_to_wire(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, str):
        return str(_uuid_from_wire(value))
    raise ValueConversionError(f"expected a uuid.UUID, got {type(value).__name__} {value!r}")


def _uri_to_wire(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueConversionError(f"expected a str holding a URI, got {type(value).__name__} {value!r}")
    if ":" not in value:
        raise ValueConversionError(f"{value!r} is not an absolute URI (it has no scheme)")
    return str(value)


_TO_WIRE: Dict[str, Callable[[Any], Any]] = {
    "int16": _integer_to_wire("int16"),
    "int32": _integer_to_wire("int32"),
    "int64": _integer_to_wire("int64"),
    "double": double_to_wire,
    "float": double_to_wire,
    "decimal": decimal_to_wire,
    "string": _string,
    "bool": _bool,
    "date": date_to_wire,
    "binary": binary_to_wire,
    "uuid": _uuid_to_wire,
    "uri": _uri_to_wire,
}


def _integer_from_wire(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueConversionError(f"expected an integer, got {value!r}")
    return value


def _double_from_wire(value: Any) -> Any:
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.lower().replace("infinity", "inf"))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueConversionError(f"expected a number, got {value!r}")
    try:
        return float(value)
    except OverflowError:
        raise ValueConversionError(f"the number {value} is too large for a double") from None


def _decimal_from_wire(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueConversionError(f"expected a decimal string, got {value!r}")
    try:
        return decimal.Decimal(value)
    except decimal.InvalidOperation:
        raise ValueConversionError(f"{value!r} is not a decimal") from None


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueConversionError(f"expected {what}, got {value!r}")
    return value


def _date_from_wire(value: Any) -> Any:
    return parse_date(_text(value, "a date string"))


def _binary_from_wire(value: Any) -> Any:
    _text(value, "a base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error as error:
        raise ValueConversionError(f"{value[:40]!r} is not base64: {error}") from None


def _uuid_from_wire(value: Any) -> Any:
    try:
        return uuid.UUID(_text(value, "a UUID string"))
    except ValueError:
        raise ValueConversionError(f"{value!r} is not a UUID") from None


_FROM_WIRE: Dict[str, Callable[[Any], Any]] = {
    "int16": _integer_from_wire,
    "int32": _integer_from_wire,
    "int64": _integer_from_wire,
    "double": _double_from_wire,
    "float": _double_from_wire,
    "decimal": _decimal_from_wire,
    "string": _string,
    "bool": _bool,
    "date": _date_from_wire,
    "binary": _binary_from_wire,
    "uuid": _uuid_from_wire,
    "uri": _string,
}


def to_wire(type_name: str, value: Any) -> Any:
    """The wire form of ``value`` for an attribute of ``type_name`` (``None`` stays ``None``)."""
    return _convert(_TO_WIRE, type_name, value)


def from_wire(type_name: str, value: Any) -> Any:
    """The Python value of the wire form ``value`` of an attribute of ``type_name``."""
    return _convert(_FROM_WIRE, type_name, value)


def _convert(table: Dict[str, Callable[[Any], Any]], type_name: str, value: Any) -> Any:
    if value is None:
        return None
    convert = table.get(type_name)
    if convert is None:
        raise ValueConversionError(f"unknown attribute type {type_name!r}")
    return convert(value)


def split_sort_key(key: str) -> Tuple[str, bool]:
    """``"-plays"`` → ``("plays", False)``; ``"title"`` → ``("title", True)``."""
    if key.startswith("-"):
        return key[1:], False
    if key.startswith("+"):
        return key[1:], True
    return key, True
