import { test } from "node:test";
import assert from "node:assert/strict";
import { startServer, connectTo, insertSample } from "./support.js";
import { Change, ConnectionError, ResyncRequired } from "../src/index.js";

async function saveTag(client, label) {
  const session = await client.session();
  const tag = session.insert("Tag", { label });
  const result = await session.save();
  return { tag, result };
}

test("subscribe is an async iterator of commits, with author, values and seq", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server, { clientName: "writer" });
  const feed = await client.subscribe({ entity: "Tag" });
  t.after(() => feed.close());
  assert.equal(feed.seq, 0);
  const { tag } = await saveTag(client, "modal");
  await saveTag(client, "cool");
  const seen = [];
  for await (const change of feed) {
    assert.ok(change instanceof Change);
    seen.push(change);
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen.map((change) => change.seq), [1, 2]);
  assert.equal(seen[0].author, "writer");
  assert.equal(seen[0].inserted[0].id, tag.id);
  assert.equal(seen[0].inserted[0].values.label, "modal");
  assert.equal(feed.seq, 2);
  assert.ok(!feed.isOpen, "break closes it");
});

test("a live query reports objects entering, staying in and leaving its result", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  await insertSample(client);
  const feed = await client.subscribe({ entity: "Song", predicate: "plays > %d", arguments: [10] });
  t.after(() => feed.close());
  const session = await client.session();
  const [soWhat] = await session.fetch("Song", { predicate: "title == %@", arguments: ["So What"] });
  soWhat.plays = 20;
  await session.save();
  const entered = await feed.next(5000);
  assert.deepEqual(entered.inserted.map((item) => item.values.title), ["So What"]);
  soWhat.plays = 1;
  await session.save();
  const left = await feed.next(5000);
  assert.deepEqual(left.removed, [soWhat.id]);
  assert.equal(await feed.next(200), null, "next(timeout) answers null when nothing came");
});

test("subscribe with since replays the history first, then live commits, without values when asked", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  await saveTag(client, "one");
  const { result } = await saveTag(client, "two");
  const feed = await client.subscribe({ since: 0, includeValues: false });
  t.after(() => feed.close());
  await saveTag(client, "three");
  const seqs = [];
  for await (const change of feed) {
    seqs.push(change.seq);
    assert.equal(change.inserted[0].values, null);
    if (seqs.length === 3) break;
  }
  assert.deepEqual(seqs, [1, 2, result.seq + 1]);
});

test("changes pulls the history page by page as an async iterator", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  for (let i = 0; i < 5; i++) await saveTag(client, `tag ${i}`);
  const page = await client.changesPage(0, { limit: 2 });
  assert.deepEqual(page.changes.map((change) => change.seq), [1, 2]);
  assert.equal(page.seq, 2);
  assert.equal(page.more, true);
  const all = [];
  for await (const change of client.changes(1, { limit: 2, entity: "Tag" })) all.push(change.seq);
  assert.deepEqual(all, [2, 3, 4, 5]);
});

test("a subscription whose server goes away ends with ConnectionError", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const feed = await client.subscribe();
  t.after(() => feed.close());
  await server.kill();
  await assert.rejects(feed.next(5000), ConnectionError);
});

test("notifications on the client's own connection reach its listeners", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const notes = [];
  const stop = client.onNotification((note) => notes.push(note));
  const answer = await client.call("subscribe", { entity: "Tag" });
  assert.equal(typeof answer.subscription, "number");
  await saveTag(client, "heard");
  await client.ping();
  for (let i = 0; i < 50 && notes.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(notes[0].method, "changes");
  assert.equal(notes[0].params.inserted[0].values.label, "heard");
  stop();
});

test("a subscriber that does not read stops reading its connection; the server ends it with ResyncRequired after the changes delivered", async (t) => {
  const server = await startServer(t, { args: ["--subscription-buffer-bytes", "1024"] });
  const client = await connectTo(t, server);
  const feed = await client.subscribe({ entity: "Tag", buffer: 2 });
  t.after(() => feed.close());
  const label = "z".repeat(20000);
  for (let i = 0; i < 300; i++) await saveTag(client, `${i} ${label}`);
  const seqs = [];
  const error = await (async () => {
    for (;;) {
      const change = await feed.next(5000);
      if (change === null) return null; // no resync came: the client kept reading
      seqs.push(change.seq);
    }
  })().catch((e) => e);
  assert.ok(error instanceof ResyncRequired, String(error));
  assert.ok(seqs.length >= 2 && seqs.length < 300, `${seqs.length} changes came before the resync`);
  assert.deepEqual(seqs, seqs.map((_, index) => index + 1), "in order, none missing");
  assert.equal(error.seq, seqs.at(-1));
  assert.equal(feed.seq, error.seq);
  const resumed = await client.subscribe({ entity: "Tag", since: error.seq });
  t.after(() => resumed.close());
  assert.equal((await resumed.next(5000)).seq, error.seq + 1);
});
