// The client over a WebSocket (`connect({ url })`, WebSocketTransport) against the real server's
// `GET /rpc` on its HTTP port. Node 20 has a WebSocket class only with --experimental-websocket
// (22 has it built in): without one in this process, the file runs itself again in a child
// node with that flag, so `node --test clients/js/test/` covers it either way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startServer, connectTo, insertSample, freePort } from "./support.js";
import { connect, AuthError, ConnectionError, InvalidParamsError } from "../src/index.js";

async function startWithHTTP(t, options = {}) {
  const httpPort = await freePort();
  const server = await startServer(t, { ...options, args: ["--http-port", String(httpPort), ...(options.args ?? [])] });
  return { server, url: `ws://127.0.0.1:${httpPort}/rpc` };
}

const hasWebSocket = typeof globalThis.WebSocket === "function";

if (!hasWebSocket && process.env.DOCSTORE_WS_CHILD === undefined) {
  const probe = spawnSync(process.execPath, ["--experimental-websocket", "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)"]);
  test("the WebSocket tests, in a node with --experimental-websocket", { skip: probe.status === 0 ? false : `this node (${process.version}) has no WebSocket class, even with --experimental-websocket` }, () => {
    const child = spawnSync(process.execPath, ["--experimental-websocket", "--test", fileURLToPath(import.meta.url)],
      { env: { ...process.env, DOCSTORE_WS_CHILD: "1" }, encoding: "utf8", timeout: 120000 });
    assert.equal(child.status, 0, `the WebSocket tests failed:\n${child.stdout}\n${child.stderr}`);
  });
} else {
  test("a session over a WebSocket saves, fetches with a predicate and keeps inverses like one over TCP", async (t) => {
    const { server, url } = await startWithHTTP(t);
    const client = await connect({ url, clientName: "js-ws" });
    t.after(() => client.close());
    assert.equal(client.serverInfo.server, "docserver");
    const { kob, result } = await insertSample(client);
    assert.equal(result.seq, 1);
    await kob.load();
    assert.deepEqual(kob.songs.map((song) => song.title), ["So What", "Freddie Freeloader", "Blue in Green"]);
    const popular = await client.fetch("Song", { predicate: "plays >= %d", arguments: [5], sort: "-plays" });
    assert.deepEqual(popular.map((song) => song.title), ["Blue in Green", "So What"]);
    assert.equal(await client.count("Song"), 3);
    // The same objects over TCP.
    const tcp = await connectTo(t, server);
    assert.equal(await tcp.count("Song", { predicate: "album.title == %@", arguments: ["Kind of Blue"] }), 3);
    assert.ok((await client.ping()) >= 0);
  });

  test("a subscription over a WebSocket sees a save made over TCP, and a predicate error keeps its position", async (t) => {
    const { server, url } = await startWithHTTP(t);
    const client = await connect({ url });
    t.after(() => client.close());
    const feed = await client.subscribe({ entity: "Tag" });
    t.after(() => feed.close());
    const tcp = await connectTo(t, server, { clientName: "js-tcp" });
    const session = await tcp.session();
    session.insert("Tag", { label: "modal" });
    await session.save();
    const change = await feed.next(5000);
    assert.ok(change !== null, "the change arrived within 5 s");
    assert.equal(change.author, "js-tcp");
    assert.deepEqual(change.inserted.map((item) => item.values.label), ["modal"]);
    await assert.rejects(client.fetch("Song", { predicate: "title ==" }), (error) => error instanceof InvalidParamsError && typeof error.position === "number");
  });

  test("over a WebSocket the token goes in hello: a wrong one is refused with AuthError", async (t) => {
    const { url } = await startWithHTTP(t, { token: "s3cret" });
    const client = await connect({ url, token: "s3cret" });
    t.after(() => client.close());
    assert.equal(await client.count("Song"), 0);
    await assert.rejects(connect({ url, token: "wrong" }), AuthError);
  });

  test("a WebSocket URL where nothing upgrades rejects with ConnectionError", async (t) => {
    const { url } = await startWithHTTP(t);
    await assert.rejects(connect({ url: url.replace("/rpc", "/healthz"), connectTimeout: 3000 }), ConnectionError);
  });
}
