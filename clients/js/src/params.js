// Parameters of reads as the protocol writes them (docs/PROTOCOL.md, "fetch", "get"), and the
// checks of answers' shapes.

import { ProtocolError, ValueConversionError } from "./errors.js";
import { DocObject } from "./objects.js";
import { describe } from "./values.js";

export function sortKeys(sort) {
  if (sort === null || sort === undefined) return [];
  const items = Array.isArray(sort) ? sort : [sort];
  return items.map((item) => {
    if (typeof item === "string") {
      return item.startsWith("-") ? { key: item.slice(1), ascending: false } : { key: item.startsWith("+") ? item.slice(1) : item, ascending: true };
    }
    if (item !== null && typeof item === "object" && typeof item.key === "string") {
      const key = { key: item.key, ascending: item.ascending !== false };
      if (item.caseInsensitive === true) key.caseInsensitive = true;
      return key;
    }
    throw new ValueConversionError(`a sort key is a string ("title", "-plays") or {key, ascending, caseInsensitive}, not ${describe(item)}`);
  });
}

export function idOf(item) {
  if (item instanceof DocObject) {
    if (item.id === null) throw new ValueConversionError(`${item._describe()} is not saved yet and has no ID`);
    return item.id;
  }
  if (typeof item === "string") return item;
  throw new ValueConversionError(`expected an object ID (a string) or an object, got ${describe(item)}`);
}

export function list(result, key, method) {
  const items = result !== null && typeof result === "object" ? result[key] : undefined;
  if (!Array.isArray(items)) throw new ProtocolError(`the answer to ${method} has no ${key} list`);
  return items;
}

export function checkAfter(value) {
  if (!Number.isSafeInteger(value) || value < 0) throw new ValueConversionError(`after must be the seq of a commit (a whole number from 0), not ${describe(value)}`);
  return value;
}
