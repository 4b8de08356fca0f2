// JSON-RPC 2.0 over a transport: requests matched to answers by id (pipelined), server
// notifications handed to a listener, a timeout per request, and the line limit checked
// before sending.

import { ConnectionError, ProtocolError, ServerBusyError, TimeoutError, TooLargeError, errorFromResponse, preview } from "./errors.js";

/** The server's default line limit (16 MiB); a longer request is refused before it is sent. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const encoder = new TextEncoder();

/** One open connection. `onNotification({method, params})` receives messages without an id;
 * `onClose(error)` is called once when it ends. */
export class Connection {
  constructor(transport, { timeout = 30000, maxLineBytes = DEFAULT_MAX_LINE_BYTES, onNotification = () => {}, onClose = () => {} } = {}) {
    this.transport = transport;
    this.timeout = timeout;
    this.maxLineBytes = maxLineBytes;
    this.onNotification = onNotification;
    this.onClose = onClose;
    this._nextID = 0;
    this._pending = new Map();
    this._closedBy = null;
    this._lastOrphan = null;
    transport.onmessage = (text) => this._receive(text);
    transport.onclose = (error) => this._closed(error);
  }

  /** Opens the transport and returns the connection. */
  static async open(transport, options) {
    const connection = new Connection(transport, options);
    await transport.open();
    return connection;
  }

  /** Whether requests can still be sent. */
  get isOpen() { return this._closedBy === null; }

  /** How many requests wait for their answers. */
  get inFlight() { return this._pending.size; }

  /** Sends a request and resolves with its result, or rejects with the error class of its code.
   * `timeout` (milliseconds, 0: none) overrides the connection's. */
  call(method, params, { timeout = this.timeout } = {}) {
    if (this._closedBy !== null) return Promise.reject(this._closedBy);
    const id = ++this._nextID;
    const message = params === undefined || params === null
      ? { jsonrpc: "2.0", id, method }
      : { jsonrpc: "2.0", id, method, params };
    let text;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(new ProtocolError(`the request cannot be written as JSON: ${error.message}`, { cause: error }));
    }
    if (this.maxLineBytes > 0 && text.length > this.maxLineBytes / 3) {
      const bytes = encoder.encode(text).length;
      if (bytes > this.maxLineBytes) {
        return Promise.reject(new TooLargeError(
          `the ${method} request is ${bytes} bytes, more than the line limit of ${this.maxLineBytes} bytes (maxLineBytes; the server's --max-line-bytes): it was not sent; send less at once`,
          { data: { what: "line", limit: this.maxLineBytes } }));
      }
    }
    return new Promise((resolve, reject) => {
      const entry = { method, resolve, reject, timer: null };
      if (timeout > 0) {
        entry.timer = setTimeout(() => {
          this._pending.delete(id);
          reject(new TimeoutError(`no answer to ${method} within ${timeout} ms; the connection was closed (the next call reconnects)`));
          this.close(new ConnectionError(`the connection was closed because a ${method} request timed out`));
        }, timeout);
      }
      this._pending.set(id, entry);
      try {
        this.transport.send(text);
      } catch (error) {
        this._settle(id);
        reject(error instanceof ConnectionError ? error : new ConnectionError(`could not send ${method}: ${error.message}`, { cause: error }));
      }
    });
  }

  /** Closes the connection; requests in flight reject with `error` (a ConnectionError by default). */
  close(error = null) {
    if (this._closedBy !== null) return;
    this._fail(error ?? new ConnectionError("the connection was closed by the client"));
    this.transport.close();
  }

  _receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return this.close(new ProtocolError(`the server sent a line that is not JSON: ${preview(text)}`));
    }
    if (Array.isArray(message) || message === null || typeof message !== "object") {
      return this.close(new ProtocolError(`the server sent a message that is not a JSON-RPC object: ${preview(message)}`));
    }
    if (!("id" in message)) {
      if (typeof message.method === "string") {
        try { this.onNotification({ method: message.method, params: message.params ?? null }); } catch { /* a listener's error is its own */ }
        return;
      }
      return this.close(new ProtocolError(`the server sent a message with neither id nor method: ${preview(message)}`));
    }
    if (message.id === null) {
      // The server could not read a request's id (a parse error, a line too long): it
      // answers the request(s) in flight.
      const error = "error" in message ? errorFromResponse(message.error) : new ProtocolError(`the server answered with id null: ${preview(message)}`);
      if (this._pending.size === 0) this._lastOrphan = error; // e.g. "server busy", then the server closes
      for (const id of [...this._pending.keys()]) this._settle(id).reject(error);
      // After these the server closes the connection: no request may be sent on it any more.
      if ((error instanceof TooLargeError && (error.what === "line" || error.what === "bufferedBytes")) || error instanceof ServerBusyError) {
        this.close(error);
      }
      return;
    }
    const entry = this._settle(message.id);
    if (entry === undefined) {
      return this.close(new ProtocolError(`the server answered a request this connection is not waiting for (id ${preview(message.id)}); the connection was closed`));
    }
    if ("error" in message) entry.reject(errorFromResponse(message.error));
    else if ("result" in message) entry.resolve(message.result);
    else entry.reject(new ProtocolError(`the answer to ${entry.method} has neither result nor error: ${preview(message)}`));
  }

  _settle(id) {
    const entry = this._pending.get(id);
    if (entry === undefined) return undefined;
    this._pending.delete(id);
    if (entry.timer !== null) clearTimeout(entry.timer);
    return entry;
  }

  _closed(error) {
    // An error the server sent with id null while nothing was in flight explains the close.
    this._fail(error === null ? new ConnectionError("the connection was closed by the client") : this._lastOrphan ?? error);
  }

  _fail(error) {
    if (this._closedBy !== null) return;
    this._closedBy = error;
    for (const id of [...this._pending.keys()]) this._settle(id).reject(error);
    try { this.onClose(error); } catch { /* ignored */ }
  }
}
