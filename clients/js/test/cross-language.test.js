// The JavaScript and Python clients on one server: a save made by one is seen by the other's
// subscriber. Runs python3 with the Python client of clients/python (standard library only).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { startServer, connectTo, REPO_ROOT } from "./support.js";

const PYTHON = process.env.PYTHON ?? "python3";

/** Runs a Python script with docstore importable; resolves with {lines, exited} helpers. */
function python(t, script, args) {
  const child = spawn(PYTHON, ["-c", script, ...args.map(String)], {
    env: { ...process.env, PYTHONPATH: join(REPO_ROOT, "clients", "python", "src") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.after(() => { if (child.exitCode === null) child.kill("SIGKILL"); });
  let stdout = "";
  let stderr = "";
  const waiters = [];
  child.stdout.on("data", (chunk) => {
    stdout += chunk.toString();
    for (const waiter of [...waiters]) waiter();
  });
  child.stderr.on("data", (chunk) => { stderr += chunk.toString(); });
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  const line = (index, timeout = 20000) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`python printed no line ${index} within ${timeout} ms; stdout: ${stdout}; stderr: ${stderr}`)), timeout);
    const check = () => {
      const lines = stdout.split("\n");
      if (lines.length > index + 1) {
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(check), 1);
        resolve(lines[index]);
      }
    };
    waiters.push(check);
    check();
    exited.then((code) => { if (stdout.split("\n").length <= index + 1) { clearTimeout(timer); reject(new Error(`python exited with ${code}; stderr: ${stderr}`)); } });
  });
  return { line, exited, stderr: () => stderr };
}

const PYTHON_SUBSCRIBER = `
import json, sys, docstore
client = docstore.connect(sys.argv[1], int(sys.argv[2]))
with client.subscribe("Tag") as feed:
    print("ready", flush=True)
    change = feed.next(20.0)
    print(json.dumps({"seq": change.seq, "author": change.author, "labels": [item.values["label"] for item in change.inserted]}), flush=True)
client.close()
`;

const PYTHON_WRITER = `
import json, sys, docstore
client = docstore.connect(sys.argv[1], int(sys.argv[2]), client_name="py-writer")
s = client.session()
tag = s.insert("Tag", label=sys.argv[3])
saved = s.save()
print(json.dumps({"seq": saved.seq, "id": str(tag.id)}), flush=True)
client.close()
`;

test("a JavaScript save is seen by a Python subscriber", async (t) => {
  const server = await startServer(t);
  const subscriber = python(t, PYTHON_SUBSCRIBER, [server.host, server.port]);
  assert.equal(await subscriber.line(0), "ready");
  const client = await connectTo(t, server, { clientName: "js-writer" });
  const session = await client.session();
  session.insert("Tag", { label: "from JavaScript" });
  const saved = await session.save();
  const seen = JSON.parse(await subscriber.line(1));
  assert.deepEqual(seen, { seq: saved.seq, author: "js-writer", labels: ["from JavaScript"] });
  assert.equal(await subscriber.exited, 0, subscriber.stderr());
});

test("a Python save is seen by a JavaScript subscriber", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const feed = await client.subscribe({ entity: "Tag" });
  t.after(() => feed.close());
  const writer = python(t, PYTHON_WRITER, [server.host, server.port, "from Python"]);
  const saved = JSON.parse(await writer.line(0));
  const change = await feed.next(20000);
  assert.ok(change !== null, "a change came");
  assert.equal(change.seq, saved.seq);
  assert.equal(change.author, "py-writer");
  assert.deepEqual(change.inserted.map((item) => [item.id, item.values.label]), [[saved.id, "from Python"]]);
  const tag = await client.get(saved.id);
  assert.equal(tag.label, "from Python");
  assert.equal(await writer.exited, 0, writer.stderr());
});
