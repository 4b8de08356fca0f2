// The page at `/` of the HTTP port: the copy embedded in the binary (Sources/DocumentServer/HTTP/
// PageFiles.swift, written by scripts/embed-page.py) is the project's web/ and clients/js/src, and
// the page's script parses as a module. Its behaviour is tested in headless Chromium
// (Tests/Browser/page_test.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./support.js";

test("the page embedded in the binary is the one in web/ and clients/js/src (scripts/embed-page.py --check)", () => {
  const checked = spawnSync("python3", [join(REPO_ROOT, "scripts", "embed-page.py"), "--check"], { encoding: "utf8" });
  assert.equal(checked.status, 0, checked.stderr);
});

test("the page's script is a module that node can parse", () => {
  const checked = spawnSync(process.execPath, ["--check", join(REPO_ROOT, "web", "page.js")], { encoding: "utf8" });
  assert.equal(checked.status, 0, checked.stderr);
});
