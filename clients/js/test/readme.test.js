// The README's complete example runs as written against a real server, and prints what its
// comments say.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, rmSync, mkdtempSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tmpdir } from "node:os";
import { startServer } from "./support.js";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");

test("the README's complete example runs and prints what its comments say", async (t) => {
  const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## A complete example"));
  const code = /```js\n([\s\S]*?)```/.exec(section)[1];
  const server = await startServer(t);
  const runnable = code
    .replace(`from "docstore"`, `from ${JSON.stringify(pathToFileURL(join(PACKAGE, "src", "index.js")).href)}`)
    .replace(`port: 7878`, `port: ${server.port}`)
    .replace(/console\.log\(/g, "log(");
  const directory = mkdtempSync(join(tmpdir(), "docstore-readme-"));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const file = join(directory, "example.mjs");
  writeFileSync(file, `export async function run(log) {\n${runnable.replace(/^import .*$/m, "")}\n}\n${/^import .*$/m.exec(runnable)[0]}\n`);
  const lines = [];
  const { run } = await import(pathToFileURL(file).href);
  await run((...values) => lines.push(values));
  assert.match(lines[0][0], /^graph:\/\/.+\/Album\/2$/);
  assert.equal(lines[0][1], 1);
  assert.deepEqual(lines[1][0], ["So What", "Freddie Freeloader", "Blue in Green"]);
  assert.deepEqual(lines[2][0], [["Blue in Green", 12], ["So What", 7]]);
  assert.deepEqual(lines[3][0], ["So What"]);
  assert.equal(lines[4][0].length, 1);
  assert.equal(lines[4][0][0].expected, 2);
  assert.equal(lines[4][0][0].current, 3);
  assert.deepEqual(lines.at(-1), [0]);
});
