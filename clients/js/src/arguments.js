// Predicate arguments (docs/PROTOCOL.md, "Predicate arguments"): JSON values stand for
// themselves; a Date, bytes and objects become one-key objects; the one-key wire forms
// ({decimal: "9.99"}, {uuid: …}, {uri: …}, {date: …}, {binary: …}, {id: …}) pass through.

import { ValueConversionError } from "./errors.js";
import { DocObject } from "./objects.js";
import { bytesToBase64, describe } from "./values.js";

const TYPED = new Set(["date", "decimal", "uuid", "binary", "uri", "id"]);

/** The wire form of one predicate argument. */
export function argumentToWire(value) {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "string": case "boolean": return value;
    case "number":
      if (!Number.isFinite(value)) throw new ValueConversionError(`a predicate argument cannot be ${value}: JSON has no such number`);
      return value;
    case "bigint":
      if (value < BigInt(Number.MIN_SAFE_INTEGER) || value > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new ValueConversionError(`the predicate argument ${value} is past 2^53; this client sends integers as JSON numbers`);
      }
      return Number(value);
    default: break;
  }
  if (Array.isArray(value)) return value.map(argumentToWire);
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new ValueConversionError("a predicate argument cannot be an Invalid Date");
    return { date: value.toISOString() };
  }
  if (value instanceof Uint8Array) return { binary: bytesToBase64(value) };
  if (value instanceof DocObject) {
    if (value.id === null) throw new ValueConversionError(`${value._describe()} is not saved yet: it cannot be a predicate argument`);
    return { id: value.id };
  }
  if (typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 1 && TYPED.has(keys[0]) && typeof value[keys[0]] === "string") return { [keys[0]]: value[keys[0]] };
  }
  throw new ValueConversionError(`a predicate argument is a string, number, boolean, null, array, Date, Uint8Array, object of a session, or one of {decimal}, {uuid}, {uri}, {date}, {binary}, {id} with a string; not ${describe(value)}`);
}
