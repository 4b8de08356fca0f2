// Every error the client raises on purpose: one class per error code of docs/PROTOCOL.md,
// plus the client's own (connection, timeout, model, value, fault).

/** Base class of every error of this package. `code` and `data` are the server's, when it answered. */
export class DocstoreError extends Error {
  constructor(message, { code = null, data = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }
}

/** The server could not read a request (-32700 parse error, -32600 invalid request,
 * -32601 method not found), or its answer made no sense to the client. */
export class ProtocolError extends DocstoreError {}

/** -32602: a parameter is wrong, e.g. a predicate that does not parse. */
export class InvalidParamsError extends ProtocolError {
  /** Where the wrong value is, e.g. `params.predicate`. */
  get path() { return field(this.data, "path", "string"); }
  /** What is wrong with it. */
  get reason() { return field(this.data, "reason", "string"); }
  /** For a predicate error about one place: the character offset in the predicate. */
  get position() { return field(this.data, "position", "number"); }
}

/** -32001: objects changed or were deleted since they were read; nothing was saved. */
export class ConflictError extends DocstoreError {
  /** `[{id, expected, current}]`; `current` is null when the object was deleted. */
  get conflicts() {
    const list = this.data && Array.isArray(this.data.conflicts) ? this.data.conflicts : [];
    return list.map((c) => ({ id: c.id, expected: c.expected ?? null, current: c.current ?? null }));
  }
  /** The IDs of the conflicting objects. */
  get ids() { return this.conflicts.map((c) => c.id); }
}

/** -32002: the save breaks the model's rules; nothing was saved. */
export class ValidationError extends DocstoreError {
  /** `[{id, entity, key, reason}]`; an inserted object is named by its temporary ID. */
  get failures() {
    const list = this.data && Array.isArray(this.data.failures) ? this.data.failures : [];
    return list.map((f) => ({ id: f.id ?? null, entity: f.entity ?? null, key: f.key ?? null, reason: f.reason ?? null }));
  }
}

/** -32003: a relationship names an object that does not exist, or `unsubscribe` of no open subscription. */
export class NotFoundError extends DocstoreError {
  get ids() { return this.data && Array.isArray(this.data.ids) ? this.data.ids : []; }
}

/** -32004: no `hello` with the server's token yet, or a wrong token. */
export class AuthError extends DocstoreError {}

/** -32005: a limit was passed (`data.what`: line, batch, answer, batchAnswer, bufferedBytes, subscriptions). */
export class TooLargeError extends ProtocolError {
  get what() { return field(this.data, "what", "string"); }
  get limit() { return field(this.data, "limit", "number"); }
}

/** -32006: the store could not be written, or the server is shutting down; nothing was saved. */
export class StoreUnavailableError extends DocstoreError {}

/** -32007: a fetch ran past the server's request time limit; nothing was returned. */
export class TimeLimitError extends DocstoreError {}

/** -32008: the server has too many connections; connect again later. */
export class ServerBusyError extends DocstoreError {}

/** -32009: `since` is older than the history the server keeps: fetch again, then subscribe. */
export class HistoryExpired extends DocstoreError {
  get since() { return field(this.data, "since", "number"); }
  get oldest() { return field(this.data, "oldest", "number"); }
}

/** -32010: `after` names a commit the server has not applied; nothing was read. */
export class NotCaughtUp extends DocstoreError {
  get after() { return field(this.data, "after", "number"); }
  get applied() { return field(this.data, "applied", "number"); }
}

/** No server, a dropped connection, or a closed client. A request in flight may or may not
 * have been carried out (re-read what you were changing). */
export class ConnectionError extends DocstoreError {}

/** No answer within the request's timeout; the connection was closed (the next call reconnects). */
export class TimeoutError extends ConnectionError {}

/** The server ended a subscription that did not keep up; `seq` is the last commit delivered:
 * subscribe again with `since: seq`. */
export class ResyncRequired extends DocstoreError {
  constructor(message, { seq = null, reason = null } = {}) {
    super(message, { data: { seq, reason } });
    this.seq = seq;
    this.reason = reason;
  }
}

/** An unknown entity or property, caught before sending. */
export class ModelError extends DocstoreError {}

/** A value of the wrong type for its attribute or relationship, caught before sending. */
export class ValueConversionError extends DocstoreError {}

/** Reading or changing an object that is deleted (or does not exist). */
export class ObjectDeletedError extends DocstoreError {}

/** Reading a value of an object that is not loaded yet: `await obj.load()` first. */
export class FaultError extends DocstoreError {}

const BY_CODE = new Map([
  [-32700, ProtocolError],
  [-32600, ProtocolError],
  [-32601, ProtocolError],
  [-32602, InvalidParamsError],
  [-32001, ConflictError],
  [-32002, ValidationError],
  [-32003, NotFoundError],
  [-32004, AuthError],
  [-32005, TooLargeError],
  [-32006, StoreUnavailableError],
  [-32007, TimeLimitError],
  [-32008, ServerBusyError],
  [-32009, HistoryExpired],
  [-32010, NotCaughtUp],
]);

/** The error class for a JSON-RPC error code (DocstoreError for a code it does not know). */
export function errorClassFor(code) {
  return BY_CODE.get(code) ?? DocstoreError;
}

/** The error for the `error` member of a response. */
export function errorFromResponse(error) {
  if (error === null || typeof error !== "object" || typeof error.code !== "number") {
    return new ProtocolError(`the server answered with an error that is not a JSON-RPC error object: ${preview(error)}`);
  }
  const Kind = errorClassFor(error.code);
  const message = typeof error.message === "string" ? error.message : `error ${error.code}`;
  return new Kind(message, { code: error.code, data: error.data ?? null });
}

/** At most 200 characters of a value, for messages. */
export function preview(value) {
  let text;
  try { text = JSON.stringify(value); } catch { text = String(value); }
  if (text === undefined) text = String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function field(data, key, type) {
  return data !== null && typeof data === "object" && typeof data[key] === type ? data[key] : null;
}
