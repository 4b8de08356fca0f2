// Commits as the feed and the history send them (docs/PROTOCOL.md, "Live changes").

import { ProtocolError } from "./errors.js";

/** One commit: `seq`, `author` (null when the saving client gave none), `timestamp` (ISO 8601),
 * `inserted` and `updated` ({id, entity, version, values} with values in wire form, or null
 * without values), `deleted` and `removed` (IDs; removed only on live queries). */
export class Change {
  constructor(params) {
    if (params === null || typeof params !== "object" || typeof params.seq !== "number") {
      throw new ProtocolError("a change record without a seq");
    }
    this.seq = params.seq;
    this.author = typeof params.author === "string" ? params.author : null;
    this.timestamp = typeof params.timestamp === "string" ? params.timestamp : null;
    this.subscription = typeof params.subscription === "number" ? params.subscription : null;
    this.inserted = objects(params.inserted);
    this.updated = objects(params.updated);
    this.deleted = Array.isArray(params.deleted) ? params.deleted : [];
    this.removed = Array.isArray(params.removed) ? params.removed : [];
  }
}

function objects(items) {
  if (!Array.isArray(items)) return [];
  return items.map((item) => ({ id: item.id, entity: item.entity, version: item.version, values: item.values ?? null }));
}

/** One page of the history: `changes`, `seq` (the next `since`) and `more`. */
export function changePage(result) {
  if (result === null || typeof result !== "object" || !Array.isArray(result.changes) || typeof result.seq !== "number") {
    throw new ProtocolError("the answer to changes has no changes list and seq");
  }
  return { changes: result.changes.map((record) => new Change(record)), seq: result.seq, more: result.more === true };
}
