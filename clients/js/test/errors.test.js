import { test } from "node:test";
import assert from "node:assert/strict";
import { startServer, connectTo, insertSample } from "./support.js";
import {
  connect, errorFromResponse, DocstoreError, ProtocolError, InvalidParamsError, ConflictError, ValidationError,
  NotFoundError, AuthError, TooLargeError, StoreUnavailableError, TimeLimitError, ServerBusyError, HistoryExpired,
  NotCaughtUp, ConnectionError, TimeoutError,
} from "../src/index.js";

test("every error code of the protocol has its class", () => {
  const expected = [
    [-32700, ProtocolError], [-32600, ProtocolError], [-32601, ProtocolError], [-32602, InvalidParamsError],
    [-32001, ConflictError], [-32002, ValidationError], [-32003, NotFoundError], [-32004, AuthError],
    [-32005, TooLargeError], [-32006, StoreUnavailableError], [-32007, TimeLimitError], [-32008, ServerBusyError],
    [-32009, HistoryExpired], [-32010, NotCaughtUp],
  ];
  for (const [code, Kind] of expected) {
    const error = errorFromResponse({ code, message: "m", data: { x: 1 } });
    assert.equal(error.constructor, Kind, `code ${code}`);
    assert.ok(error instanceof DocstoreError);
    assert.equal(error.code, code);
    assert.equal(error.name, Kind.name);
  }
  assert.equal(errorFromResponse({ code: -1, message: "other" }).constructor, DocstoreError);
  assert.ok(errorFromResponse("nonsense") instanceof ProtocolError);
});

test("a save of an object changed since it was read is a ConflictError listing both versions", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { songs } = await insertSample(client);
  const mine = await client.session();
  const theirs = await client.session();
  const song = await mine.get(songs[0].id);
  const other = await theirs.get(songs[0].id);
  other.plays = 100;
  await theirs.save();
  song.plays = 0;
  const error = await mine.save().catch((e) => e);
  assert.ok(error instanceof ConflictError, String(error));
  assert.deepEqual(error.conflicts, [{ id: song.id, expected: 1, current: 2 }]);
  assert.ok(mine.hasChanges, "the session keeps its changes");
  await mine.refresh(song);
  song.plays = 0;
  await mine.save();
  assert.equal(song.version, 3);
});

test("a save that breaks the model's rules is a ValidationError naming the object and key", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const session = await client.session();
  const song = session.insert("Song", { plays: 1 });
  const error = await session.save().catch((e) => e);
  assert.ok(error instanceof ValidationError, String(error));
  assert.equal(error.failures[0].key, "title");
  assert.equal(error.failures[0].id, "new-1");
  assert.equal(await client.count("Song"), 0);
  song.title = "Now titled";
  await session.save();
  assert.equal(await client.count("Song"), 1);
});

test("deleting an artist that still has albums is refused (deny)", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { session, miles } = await insertSample(client);
  await miles.load();
  session.delete(miles);
  await assert.rejects(session.save(), ValidationError);
});

test("a relationship to an object that does not exist is a NotFoundError", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { kob } = await insertSample(client);
  const session = await client.session();
  const ghost = session.object(kob.id.replace(/\/\d+$/, "/999"));
  session.insert("Song", { title: "Lost", album: ghost });
  const error = await session.save().catch((e) => e);
  assert.ok(error instanceof NotFoundError, String(error));
  assert.deepEqual(error.ids, [ghost.id]);
});

test("a predicate that does not parse is an InvalidParamsError with its position", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const error = await client.fetch("Song", { predicate: "album.nme == 'x'" }).catch((e) => e);
  assert.ok(error instanceof InvalidParamsError, String(error));
  assert.equal(error.path, "params.predicate");
  assert.equal(error.position, 6);
  assert.ok(error.reason.length > 0);
});

test("an unknown method and an invalid request are ProtocolErrors and the connection stays usable", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const error = await client.call("explode", {}).catch((e) => e);
  assert.ok(error instanceof ProtocolError);
  assert.equal(error.code, -32601);
  const invalid = await client.call("ping", ["positional"]).catch((e) => e);
  assert.ok(invalid instanceof ProtocolError);
  assert.equal(invalid.code, -32600);
  assert.ok((await client.ping()) >= 0);
});

test("a read after a commit the server never made is NotCaughtUp", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { kob, result } = await insertSample(client);
  assert.equal((await client.get(kob.id, { after: result.seq })).title, "Kind of Blue");
  assert.equal(await client.count("Song", { after: result.seq }), 3);
  const error = await client.get(kob.id, { after: result.seq + 10 }).catch((e) => e);
  assert.ok(error instanceof NotCaughtUp, String(error));
  assert.equal(error.after, result.seq + 10);
  assert.equal(error.applied, result.seq);
});

test("history older than the server keeps is HistoryExpired with the oldest since", async (t) => {
  const server = await startServer(t, { args: ["--history-commits", "1"] });
  const client = await connectTo(t, server);
  for (const label of ["a", "b", "c"]) {
    const session = await client.session();
    session.insert("Tag", { label });
    await session.save();
  }
  const error = await client.changesPage(0).catch((e) => e);
  assert.ok(error instanceof HistoryExpired, String(error));
  assert.equal(typeof error.oldest, "number");
  await assert.rejects(client.subscribe({ since: 0 }), HistoryExpired);
});

test("with a token, hello carries it; a wrong or missing one is an AuthError", async (t) => {
  const server = await startServer(t, { token: "s3cret" });
  const client = await connectTo(t, server);
  assert.ok((await client.ping()) >= 0);
  await assert.rejects(connect({ host: server.host, port: server.port, token: "wrong" }), AuthError);
  await assert.rejects(connect({ host: server.host, port: server.port }), AuthError);
});

test("a request longer than the line limit is refused before sending, and by the server when the client's check is off", async (t) => {
  const server = await startServer(t, { args: ["--max-line-bytes", "1024"] });
  const careful = await connectTo(t, server, { maxLineBytes: 1024 });
  const session = await careful.session();
  session.insert("Tag", { label: "x".repeat(2000) });
  const local = await session.save().catch((e) => e);
  assert.ok(local instanceof TooLargeError, String(local));
  assert.equal(local.what, "line");
  assert.match(local.message, /not sent/);
  assert.ok((await careful.ping()) >= 0, "nothing was sent: the connection is fine");

  const blunt = await connectTo(t, server, { maxLineBytes: 0 });
  const other = await blunt.session();
  other.insert("Tag", { label: "x".repeat(2000) });
  const remote = await other.save().catch((e) => e);
  assert.ok(remote instanceof TooLargeError, String(remote));
  assert.equal(remote.what, "line");
  assert.equal(remote.limit, 1024);
  assert.ok((await blunt.ping()) >= 0, "the next call opens a new connection");
  assert.equal(await blunt.count("Tag"), 0);
});

test("an answer longer than maxMessageBytes closes the connection with TooLargeError", async (t) => {
  const server = await startServer(t);
  const writer = await connectTo(t, server);
  const session = await writer.session();
  session.insert("Tag", { label: "y".repeat(5000) });
  await session.save();
  const reader = await connectTo(t, server, { maxMessageBytes: 1000 });
  const error = await reader.fetch("Tag").catch((e) => e);
  assert.ok(error instanceof TooLargeError, String(error));
  assert.match(error.message, /maxMessageBytes/);
});

test("a server that stops answering is a TimeoutError; the next call reconnects", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server, { timeout: 300 });
  await client.ping();
  await server.pause();
  try {
    const error = await client.ping().catch((e) => e);
    assert.ok(error instanceof TimeoutError, String(error));
    assert.ok(error instanceof ConnectionError);
    assert.match(error.message, /within 300 ms/);
  } finally {
    server.signal("SIGCONT");
  }
  assert.ok((await client.ping()) >= 0);
});

test("a connection the server closes fails the call in flight with ConnectionError; no server is ConnectionError too", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server, { timeout: 5000 });
  await client.ping();
  server.signal("SIGSTOP");
  const pending = client.ping().catch((e) => e);
  await server.kill();
  const error = await pending;
  assert.ok(error instanceof ConnectionError, String(error));
  assert.match(error.message, /closed the connection|failed/);
  const refused = await client.ping().catch((e) => e);
  assert.ok(refused instanceof ConnectionError, String(refused));
  assert.match(refused.message, /could not connect/);
});

test("a server at its connection limit answers ServerBusyError", async (t) => {
  const server = await startServer(t, { args: ["--max-connections", "1"] });
  await connectTo(t, server);
  const error = await connect(server.options).catch((e) => e);
  assert.ok(error instanceof ServerBusyError, String(error));
  assert.equal(error.data.limit, 1);
});

test("a fetch past the server's request time limit is a TimeLimitError naming the entity and limit", async (t) => {
  const server = await startServer(t, { args: ["--request-time-limit", "0.001"] });
  const client = await connectTo(t, server);
  const session = await client.session();
  for (let i = 0; i < 3000; i++) session.insert("Tag", { label: `tag number ${i} with some text` });
  await session.save();
  const error = await client.count("Tag", { predicate: "label MATCHES %@", arguments: [".*n.*u.*m.*9.*9.*"] }).catch((e) => e);
  assert.ok(error instanceof TimeLimitError, String(error));
  assert.deepEqual(error.data, { entity: "Tag", limit: 0.001 });
  assert.ok((await client.ping()) >= 0, "the connection stays open");
});
