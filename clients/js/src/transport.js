// Transports carry the protocol's messages, one JSON text per message, without knowing
// JSON-RPC: TcpTransport (Node, node:net, one message per line) and WebSocketTransport
// (browsers, one message per text frame). A transport calls `onmessage(text)` for each
// message received and `onclose(error)` once when it is closed (error null when closed by
// `close()`); the Connection above it sets both before `open()`.

import { ConnectionError, TooLargeError } from "./errors.js";

/** The longest answer line the TCP transport accepts by default: the server's answer limit
 * for a batch (64 MiB) plus room for the envelope. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024 + 4096;

const NEWLINE = 0x0a;

/** The protocol over TCP (Node >= 20): newline-delimited messages on one socket. */
export class TcpTransport {
  /** `host`, `port`; `maxMessageBytes`: an answer line longer than this ends the connection with
   * TooLargeError; `connectTimeout` in milliseconds. */
  constructor({ host = "127.0.0.1", port = 7878, maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES, connectTimeout = 10000 } = {}) {
    this.host = host;
    this.port = port;
    this.maxMessageBytes = maxMessageBytes;
    this.connectTimeout = connectTimeout;
    this.onmessage = () => {};
    this.onclose = () => {};
    this._socket = null;
    this._chunks = [];
    this._buffered = 0;
    this._closed = false;
  }

  /** A description for error messages. */
  get address() { return `${this.host}:${this.port}`; }

  /** Connects; rejects with ConnectionError when nothing listens there. */
  async open() {
    const net = await import("node:net");
    await new Promise((resolve, reject) => {
      const socket = net.createConnection({ host: this.host, port: this.port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new ConnectionError(`could not connect to docserver at ${this.address} within ${this.connectTimeout} ms`));
      }, this.connectTimeout);
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        this._attach(socket);
        resolve();
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(new ConnectionError(`could not connect to docserver at ${this.address}: ${error.message}`, { cause: error }));
      });
    });
  }

  /** Sends one message (without its newline). */
  send(text) {
    if (this._socket === null || this._closed) {
      throw new ConnectionError(`the connection to ${this.address} is closed`);
    }
    this._socket.write(text + "\n");
  }

  /** Closes the socket; `onclose(null)` follows. */
  close() {
    this._finish(null);
  }

  /** Stops reading (the server then sees its answers unread: flow control). */
  pause() { this._socket?.pause(); }

  /** Reads again after pause(). */
  resume() { this._socket?.resume(); }

  _attach(socket) {
    this._socket = socket;
    socket.on("data", (chunk) => this._receive(chunk));
    socket.on("error", (error) => {
      this._finish(new ConnectionError(`the connection to docserver at ${this.address} failed: ${error.message}`, { cause: error }));
    });
    socket.on("close", () => {
      this._finish(new ConnectionError(`docserver at ${this.address} closed the connection`));
    });
  }

  _receive(chunk) {
    let start = 0;
    while (!this._closed) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end < 0) break;
      let line;
      if (this._chunks.length === 0) {
        if (end - start > this.maxMessageBytes) return this._tooLong();
        line = chunk.toString("utf8", start, end);
      } else {
        this._chunks.push(chunk.subarray(start, end));
        this._buffered += end - start;
        if (this._buffered > this.maxMessageBytes) return this._tooLong();
        line = Buffer.concat(this._chunks, this._buffered).toString("utf8");
        this._chunks = [];
        this._buffered = 0;
      }
      start = end + 1;
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line.length > 0) this.onmessage(line);
    }
    if (this._closed || start >= chunk.length) return;
    this._chunks.push(chunk.subarray(start));
    this._buffered += chunk.length - start;
    if (this._buffered > this.maxMessageBytes) this._tooLong();
  }

  _tooLong() {
    this._finish(new TooLargeError(
      `docserver at ${this.address} sent a line longer than ${this.maxMessageBytes} bytes (the client's maxMessageBytes); the connection was closed`,
      { data: { what: "line", limit: this.maxMessageBytes } }));
  }

  _finish(error) {
    if (this._closed) return;
    this._closed = true;
    this._chunks = [];
    if (this._socket !== null) this._socket.destroy();
    this.onclose(error);
  }
}

/** The protocol over a WebSocket (browsers, or Node with a global WebSocket): one message per
 * text frame, to a server's `GET /rpc` route. `url` is e.g. `ws://127.0.0.1:8080/rpc`. */
export class WebSocketTransport {
  /** `url`; `WebSocket`: the constructor to use (default: the global one); `connectTimeout` in milliseconds. */
  constructor({ url, WebSocket: Socket = globalThis.WebSocket, connectTimeout = 10000 } = {}) {
    if (typeof url !== "string") throw new ConnectionError("WebSocketTransport needs a url, e.g. ws://127.0.0.1:8080/rpc");
    if (typeof Socket !== "function") {
      throw new ConnectionError("no WebSocket class here: pass one as { WebSocket } (Node 20 has none built in; use TcpTransport)");
    }
    this.url = url;
    this.connectTimeout = connectTimeout;
    this._Socket = Socket;
    this._socket = null;
    this._closed = false;
    this.onmessage = () => {};
    this.onclose = () => {};
  }

  get address() { return this.url; }

  async open() {
    await new Promise((resolve, reject) => {
      const socket = new this._Socket(this.url);
      let opened = false;
      const timer = setTimeout(() => {
        socket.close();
        reject(new ConnectionError(`could not open a WebSocket to ${this.url} within ${this.connectTimeout} ms`));
      }, this.connectTimeout);
      socket.onopen = () => {
        opened = true;
        clearTimeout(timer);
        this._socket = socket;
        resolve();
      };
      socket.onerror = () => {
        if (!opened) {
          clearTimeout(timer);
          reject(new ConnectionError(`could not open a WebSocket to ${this.url}`));
        }
      };
      socket.onclose = (event) => {
        if (!opened) {
          clearTimeout(timer);
          reject(new ConnectionError(`the WebSocket to ${this.url} closed before it opened (code ${event.code})`));
          return;
        }
        this._finish(new ConnectionError(`the WebSocket to ${this.url} was closed (code ${event.code}${event.reason ? `: ${event.reason}` : ""})`));
      };
      socket.onmessage = (event) => {
        if (typeof event.data === "string") {
          this.onmessage(event.data);
        } else {
          this._finish(new ConnectionError(`the WebSocket to ${this.url} carried a binary frame; the protocol sends text frames only`));
        }
      };
    });
  }

  send(text) {
    if (this._socket === null || this._closed) throw new ConnectionError(`the WebSocket to ${this.url} is closed`);
    this._socket.send(text);
  }

  close() { this._finish(null); }

  /** A WebSocket cannot stop reading: messages go on arriving (the subscription's queue grows). */
  pause() {}

  resume() {}

  _finish(error) {
    if (this._closed) return;
    this._closed = true;
    if (this._socket !== null) this._socket.close();
    this.onclose(error);
  }
}
