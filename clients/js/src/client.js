// The client: one connection (opened again after it drops), `hello` with the token, the
// model, and the reads and sessions on top of it.

import { Connection, DEFAULT_MAX_LINE_BYTES } from "./connection.js";
import { ProtocolError, ValueConversionError } from "./errors.js";
import { Model } from "./model.js";
import { Session } from "./session.js";
import { Subscription } from "./subscription.js";
import { changePage } from "./changes.js";
import { argumentToWire } from "./arguments.js";
import { TcpTransport, WebSocketTransport, DEFAULT_MAX_MESSAGE_BYTES } from "./transport.js";

/** Opens a connection, says `hello`, and resolves with the Client. */
export async function connect(options = {}) {
  const client = new Client(options);
  await client.open();
  return client;
}

/** A client of one docserver. Calls may run concurrently: they are pipelined on the one
 * connection and matched to their answers by id. */
export class Client {
  /** Options: `host` and `port` (TCP, default 127.0.0.1:7878), or `url` (a WebSocket,
   * `ws://host:port/rpc`), or `transport` (a function returning a new transport); `token`;
   * `clientName` (the author of this client's commits); `timeout` per request in ms (0: none);
   * `maxLineBytes` (the server's line limit, checked before sending); `maxMessageBytes` (the
   * longest answer accepted); `connectTimeout` in ms. */
  constructor({
    host = "127.0.0.1", port = 7878, url = null, transport = null, token = null, clientName = "docstore-js",
    timeout = 30000, maxLineBytes = DEFAULT_MAX_LINE_BYTES, maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES, connectTimeout = 10000,
  } = {}) {
    if (transport !== null && typeof transport !== "function") throw new ValueConversionError("transport must be a function that returns a new transport");
    this._makeTransport = transport ?? (url !== null
      ? () => new WebSocketTransport({ url, connectTimeout })
      : () => new TcpTransport({ host, port, maxMessageBytes, connectTimeout }));
    this.token = token;
    this.clientName = clientName;
    this.timeout = timeout;
    this.maxLineBytes = maxLineBytes;
    /** The server's `hello` answer on the latest connection. */
    this.serverInfo = null;
    /** The latest commit this client has seen: the server's on connecting, or a later save's. */
    this.seq = 0;
    this._connection = null;
    this._opening = null;
    this._model = null;
    this._listeners = new Set();
  }

  /** The store's UUID, from `hello`. */
  get storeUUID() { return this.serverInfo?.storeUUID ?? null; }
  /** The model's version hash, from `hello`. */
  get modelHash() { return this.serverInfo?.modelHash ?? null; }

  /** Opens the connection now (calls open it when needed). */
  async open() {
    await this._current();
    return this;
  }

  /** Closes the connection; a later call opens a new one. */
  close() {
    const connection = this._connection;
    this._connection = null;
    if (connection !== null) connection.close();
  }

  /** Any request of the protocol, raw: resolves with its result. */
  async call(method, params, options) {
    const connection = await this._current();
    return connection.call(method, params, options);
  }

  /** Round trip of a `ping`, in milliseconds. */
  async ping() {
    const start = performance.now();
    const answer = await this.call("ping");
    if (answer !== "pong") throw new ProtocolError(`ping was answered with ${JSON.stringify(answer)}, not "pong"`);
    return performance.now() - start;
  }

  /** The server's model (read once per client). */
  async model() {
    if (this._model === null) this._model = new Model(await this.call("model"));
    return this._model;
  }

  /** A new unit of work. `prefetch`: how many faults one load reads at most together;
   * `mergeChanges: true`: the session subscribes to every commit and merges each as it
   * arrives (`session.merge`); `session.close()` ends that subscription. */
  async session({ prefetch = 100, mergeChanges = false } = {}) {
    const session = new Session(this, await this.model(), { prefetch });
    if (mergeChanges) {
      const feed = await this.subscribe();
      session._feed = feed;
      (async () => { for await (const change of feed) session.merge(change); })()
        .catch((error) => { session.mergeError = error; });
    }
    return session;
  }

  /** The matching objects, in a new session (options as for Session.fetch). */
  async fetch(entity, options) { return (await this.session()).fetch(entity, options); }
  /** The IDs of the matching objects. */
  async fetchIds(entity, options) { return (await this.session()).fetchIds(entity, options); }
  /** How many objects match. */
  async count(entity, options) { return (await this.session()).count(entity, options); }
  /** Objects by ID, in a new session (null for missing ones). */
  async get(ids, options) { return (await this.session()).get(ids, options); }

  /** Live changes on a connection of their own. Options: `entity`, `predicate`, `arguments`
   * (a live query), `since` (resume after that commit), `includeValues` (default true),
   * `buffer`: how many unread changes the client holds before it stops reading (default 1000). */
  async subscribe({ entity = null, predicate = null, arguments: args = [], since = null, includeValues = true, buffer = 1000 } = {}) {
    if (predicate !== null && entity === null) throw new ValueConversionError("a predicate needs an entity: subscribe({entity, predicate})");
    const params = {};
    if (entity !== null) params.entity = entity;
    if (predicate !== null) params.predicate = predicate;
    if (args.length > 0) params.arguments = args.map(argumentToWire);
    if (since !== null) params.since = since;
    if (!includeValues) params.includeValues = false;
    return new Subscription(this, params, { buffer })._open();
  }

  /** One page of the history after `since`: `{changes, seq, more}`. */
  async changesPage(since, { limit = null, entity = null, includeValues = true } = {}) {
    const params = { since };
    if (limit !== null) params.limit = limit;
    if (entity !== null) params.entity = entity;
    if (!includeValues) params.includeValues = false;
    return changePage(await this.call("changes", params));
  }

  /** The commits after `since`, pulled page by page: `for await (const change of client.changes(0))`. */
  changes(since, options = {}) {
    const client = this;
    return {
      async *[Symbol.asyncIterator]() {
        let next = since;
        for (;;) {
          const page = await client.changesPage(next, options);
          yield* page.changes;
          next = page.seq;
          if (!page.more) return;
        }
      },
    };
  }

  /** Calls `listener({method, params})` for each server notification on this client's
   * connection; returns a function that removes it. */
  onNotification(listener) {
    this._listeners.add(listener);
    return () => { this._listeners.delete(listener); };
  }

  _sawSeq(seq) {
    if (typeof seq === "number" && seq > this.seq) this.seq = seq;
  }

  async _current() {
    if (this._connection !== null && this._connection.isOpen) return this._connection;
    if (this._opening === null) {
      this._opening = this._openConnection({
        onNotification: (note) => { for (const listener of this._listeners) { try { listener(note); } catch { /* the listener's */ } } },
      }).then((connection) => {
        this._connection = connection;
        return connection;
      }).finally(() => { this._opening = null; });
    }
    return this._opening;
  }

  /** A new connection that has said hello (used by subscriptions too). */
  async _openConnection({ onNotification, onClose } = {}) {
    const transport = this._makeTransport();
    const connection = await Connection.open(transport, { timeout: this.timeout, maxLineBytes: this.maxLineBytes, onNotification, onClose });
    const params = { client: this.clientName };
    if (this.token !== null) params.token = this.token;
    let info;
    try {
      info = await connection.call("hello", params);
    } catch (error) {
      connection.close();
      throw error;
    }
    if (info === null || typeof info !== "object") {
      connection.close();
      throw new ProtocolError("the answer to hello is not an object");
    }
    this.serverInfo = info;
    this._sawSeq(info.seq);
    return connection;
  }
}

