// Live changes on a connection of their own (docs/PROTOCOL.md, "Live changes"): an async
// iterator of Change, one per commit that touches what the subscription watches.

import { ConnectionError, ProtocolError, ResyncRequired } from "./errors.js";
import { Change } from "./changes.js";

/** A running subscription. Iterate it with `for await (const change of subscription)`; the
 * loop ends when it is closed, and throws ResyncRequired or ConnectionError when the server
 * ended it. `seq` is the last commit delivered: subscribe again with `since: seq` to resume. */
export class Subscription {
  constructor(client, params, { buffer = 1000 } = {}) {
    this.client = client;
    this.params = params;
    /** How many changes may wait unread before the connection stops reading (the server then
     * buffers them, up to its --subscription-buffer-bytes, and past it ends the subscription
     * with a resync). */
    this.buffer = buffer;
    this._paused = false;
    /** The subscription's number on its connection. */
    this.id = null;
    /** The last commit delivered (at first, the one it starts after). */
    this.seq = null;
    this._queue = [];
    this._waiters = [];
    this._error = null;
    this._closed = false;
    this._connection = null;
  }

  async _open() {
    this._connection = await this.client._openConnection({
      onNotification: (note) => this._take(note),
      onClose: (error) => this._end(error),
    });
    try {
      const answer = await this._connection.call("subscribe", this.params);
      if (answer === null || typeof answer !== "object" || typeof answer.subscription !== "number" || typeof answer.seq !== "number") {
        throw new ProtocolError("the answer to subscribe has no subscription and seq");
      }
      this.id = answer.subscription;
      if (this.seq === null) this.seq = answer.seq;
    } catch (error) {
      this._closed = true;
      this._connection.close();
      throw error;
    }
    return this;
  }

  /** Whether changes may still come. */
  get isOpen() { return !this._closed && this._error === null; }

  /** The next change; null when none came within `timeout` milliseconds (undefined: wait as
   * long as it takes) or when the subscription was closed. Throws the error that ended it. */
  async next(timeout) {
    const item = await this._nextItem(timeout);
    return item.done ? null : item.value;
  }

  /** Ends the subscription and its connection; an iteration in progress ends. */
  close() {
    if (this._closed) return;
    this._closed = true;
    if (this._connection !== null) this._connection.close();
    this._wake();
  }

  [Symbol.asyncIterator]() {
    return {
      next: () => this._nextItem(undefined),
      return: async () => { this.close(); return { done: true, value: undefined }; },
    };
  }

  _nextItem(timeout) {
    if (this._queue.length > 0) return Promise.resolve(this._deliver());
    if (this._closed) return Promise.resolve({ done: true, value: undefined });
    if (this._error !== null) return Promise.reject(this._error);
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, timer: null };
      if (timeout !== undefined && timeout !== null) {
        waiter.timer = setTimeout(() => {
          this._waiters = this._waiters.filter((other) => other !== waiter);
          resolve({ done: true, value: undefined });
        }, timeout);
      }
      this._waiters.push(waiter);
    });
  }

  _deliver() {
    const change = this._queue.shift();
    this.seq = change.seq;
    if (this._paused && this._queue.length <= this.buffer / 2) {
      this._paused = false;
      this._connection?.transport.resume?.();
    }
    return { done: false, value: change };
  }

  _take(note) {
    if (this._closed || this._error !== null) return;
    if (note.method === "changes") {
      // One subscription per connection: its notifications may be read before its answer is handled.
      try { this._queue.push(new Change(note.params)); } catch (error) { this._end(error); return; }
      if (!this._paused && this._queue.length >= this.buffer) {
        this._paused = true;
        this._connection?.transport.pause?.();
      }
    } else if (note.method === "resync") {
      const params = note.params ?? {};
      const seq = typeof params.seq === "number" ? params.seq : this.seq;
      const reason = typeof params.reason === "string" ? params.reason : null;
      this._end(new ResyncRequired(
        `the server ended the subscription at seq ${seq}: ${reason ?? "it did not keep up"}; subscribe again with since: ${seq}`,
        { seq, reason }));
      this._connection?.close();
    }
    this._wake();
  }

  _end(error) {
    if (this._closed || this._error !== null) return;
    this._error = error instanceof Error ? error : new ConnectionError("the subscription's connection was closed");
    this._wake();
  }

  _wake() {
    while (this._waiters.length > 0) {
      if (this._queue.length === 0 && !this._closed && this._error === null) return;
      const waiter = this._waiters.shift();
      if (waiter.timer !== null) clearTimeout(waiter.timer);
      if (this._queue.length > 0) waiter.resolve(this._deliver());
      else if (this._closed) waiter.resolve({ done: true, value: undefined });
      else waiter.reject(this._error);
    }
  }
}
