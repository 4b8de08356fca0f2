import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as docstore from "../src/index.js";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");

test("every export of the module is declared in index.d.ts, and every declared value is exported", () => {
  const types = readFileSync(join(PACKAGE, "src", "index.d.ts"), "utf8");
  const declared = new Set([...types.matchAll(/^export declare (?:class|function|const) (\w+)/gm)].map((match) => match[1]));
  const exported = new Set(Object.keys(docstore));
  assert.deepEqual([...exported].filter((name) => !declared.has(name)).sort(), [], "exported but not declared");
  assert.deepEqual([...declared].filter((name) => !exported.has(name)).sort(), [], "declared but not exported");
});

test("the package's entry points name files that exist", () => {
  const manifest = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
  assert.equal(manifest.type, "module");
  assert.deepEqual(manifest.dependencies ?? {}, {});
  for (const file of [manifest.main, manifest.types, manifest.exports["."].default, manifest.exports["."].types]) {
    assert.doesNotThrow(() => readFileSync(join(PACKAGE, file)), file);
  }
});
