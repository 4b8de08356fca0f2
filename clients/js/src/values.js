// Attribute values between JavaScript and the wire form (docs/PROTOCOL.md, "Object IDs and
// objects"; FILE_FORMAT.md, "Values"). Checked before sending, so that a wrong value is a
// ValueConversionError naming the attribute instead of a server round trip.

import { ValueConversionError, ProtocolError } from "./errors.js";

const INTEGER_RANGES = {
  int16: [-32768n, 32767n],
  int32: [-2147483648n, 2147483647n],
  int64: [-9223372036854775808n, 9223372036854775807n],
};
const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The attribute types of the model format. */
export const ATTRIBUTE_TYPES = Object.freeze(["int16", "int32", "int64", "double", "float", "decimal", "string", "bool", "date", "binary", "uuid", "uri"]);

/** The wire form of `value` for an attribute of type `type`; `what` names it in errors. */
export function toWire(type, value, what = type) {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "int16": case "int32": case "int64": return integerToWire(type, value, what);
    case "double": case "float":
      if (typeof value !== "number") throw wrong(what, "a number", value);
      if (Number.isNaN(value)) return "NaN";
      if (value === Infinity) return "Infinity";
      if (value === -Infinity) return "-Infinity";
      return value;
    case "decimal":
      if (typeof value === "string") {
        if (!DECIMAL_TEXT.test(value)) throw new ValueConversionError(`${what} takes a decimal number as a string like "9.99", not ${JSON.stringify(value)}`);
        return value;
      }
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "number" && Number.isSafeInteger(value)) return value;
      throw new ValueConversionError(`${what} is a decimal: pass a string ("9.99") or a bigint; a number with a fraction cannot hold most decimals exactly (got ${describe(value)})`);
    case "string": case "uri":
      if (typeof value !== "string") throw wrong(what, "a string", value);
      return value;
    case "bool":
      if (typeof value !== "boolean") throw wrong(what, "a boolean", value);
      return value;
    case "date":
      if (!(value instanceof Date)) throw wrong(what, "a Date", value);
      if (Number.isNaN(value.getTime())) throw new ValueConversionError(`${what} takes a valid Date, not an Invalid Date`);
      return value.toISOString();
    case "binary":
      if (!(value instanceof Uint8Array)) throw wrong(what, "a Uint8Array (or Buffer)", value);
      return bytesToBase64(value);
    case "uuid":
      if (typeof value !== "string" || !UUID_TEXT.test(value)) throw wrong(what, "a UUID string (8-4-4-4-12 hex digits)", value);
      return value;
    default:
      throw new ProtocolError(`the model names an attribute type this client does not know: ${type}`);
  }
}

/** The JavaScript value of a wire value of type `type`: numbers, strings (decimal, uuid,
 * uri), booleans, Date, Uint8Array, or null. */
export function fromWire(type, value) {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "double": case "float":
      if (value === "NaN") return NaN;
      if (value === "Infinity") return Infinity;
      if (value === "-Infinity") return -Infinity;
      return value;
    case "decimal": return typeof value === "number" ? String(value) : value;
    case "date": {
      const date = new Date(value);
      if (Number.isNaN(date.getTime())) throw new ProtocolError(`the server sent a date that cannot be read: ${JSON.stringify(value)}`);
      return date;
    }
    case "binary": return base64ToBytes(value);
    default: return value;
  }
}

function integerToWire(type, value, what) {
  let big;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw wrong(what, `a whole number (${type})`, value);
    if (!Number.isSafeInteger(value)) {
      throw new ValueConversionError(`${what}: ${value} is past 2^53 and not exact as a JavaScript number; pass a bigint`);
    }
    big = BigInt(value);
  } else if (typeof value === "bigint") {
    big = value;
  } else {
    throw wrong(what, `a whole number (${type})`, value);
  }
  const [low, high] = INTEGER_RANGES[type];
  if (big < low || big > high) throw new ValueConversionError(`${what}: ${big} is out of the range of ${type} (${low} to ${high})`);
  if (big < BigInt(Number.MIN_SAFE_INTEGER) || big > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ValueConversionError(`${what}: ${big} is past 2^53; this client sends integers as JSON numbers, exact only up to 2^53`);
  }
  return Number(big);
}

function wrong(what, expected, value) {
  return new ValueConversionError(`${what} takes ${expected}, not ${describe(value)}`);
}

/** A short description of a value and its type, for error messages. */
export function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Date) return "a Date";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  if (typeof value === "object") return `an object (${value.constructor?.name ?? "Object"})`;
  return `the ${typeof value} ${String(value)}`;
}

/** Base64 of bytes, in Node and in browsers. */
export function bytesToBase64(bytes) {
  if (typeof Buffer !== "undefined") return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Bytes of base64 text, in Node and in browsers. */
export function base64ToBytes(text) {
  if (typeof text !== "string") throw new ProtocolError(`the server sent binary data that is not a base64 string`);
  if (typeof Buffer !== "undefined") return new Uint8Array(Buffer.from(text, "base64"));
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The entity named in an object ID `graph://<store>/<Entity>/<reference>` (null when it is not one). */
export function entityOfID(id) {
  if (typeof id !== "string" || !id.startsWith("graph://")) return null;
  const parts = id.slice("graph://".length).split("/");
  return parts.length === 3 && parts[1].length > 0 ? parts[1] : null;
}
