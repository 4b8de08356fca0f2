// The page at `/` of the HTTP port: the copy embedded in the binary (Sources/DocumentServer/HTTP/
// PageFiles.swift, written by scripts/embed-page.py from web/ and clients/js/src) is served byte
// for byte as the project's files are (a stale copy fails here: run the script), and the page's script parses as a module. Its behaviour is tested
// in headless Chromium (Tests/Browser/page_test.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, startServer, freePort } from "./support.js";

/** Each served file: its path on the HTTP port, its file in the project and its content type. */
function pageFiles() {
  const types = { html: "text/html", js: "text/javascript", css: "text/css", svg: "image/svg+xml" };
  const files = [];
  for (const name of readdirSync(join(REPO_ROOT, "web")).sort()) {
    const suffix = name.split(".").at(-1);
    if (types[suffix] !== undefined) files.push({ route: name === "index.html" ? "/" : `/${name}`, file: join("web", name), type: types[suffix] });
  }
  for (const name of readdirSync(join(REPO_ROOT, "clients", "js", "src")).sort()) {
    if (name.endsWith(".js")) files.push({ route: `/docstore/${name}`, file: join("clients", "js", "src", name), type: types.js });
  }
  return files;
}

test("the page the binary serves is the files of web/ and clients/js/src, byte for byte", async (t) => {
  const httpPort = await freePort();
  await startServer(t, { args: ["--http-port", String(httpPort)] });
  const files = pageFiles();
  assert.ok(files.some((f) => f.route === "/") && files.some((f) => f.route === "/docstore/index.js"), JSON.stringify(files));
  for (const { route, file, type } of files) {
    const response = await fetch(`http://127.0.0.1:${httpPort}${route}`);
    assert.equal(response.status, 200, route);
    assert.ok(response.headers.get("content-type").startsWith(type), `${route}: ${response.headers.get("content-type")}`);
    const served = Buffer.from(await response.arrayBuffer());
    const expected = Buffer.from(readFileSync(join(REPO_ROOT, file), "utf8").replaceAll("\r\n", "\n"), "utf8");
    assert.ok(served.equals(expected), `${route} differs from ${file} (${served.length} bytes served, ${expected.length} in the file)`);
  }
});

test("the page's script is a module that node can parse", () => {
  const checked = spawnSync(process.execPath, ["--check", join(REPO_ROOT, "web", "page.js")], { encoding: "utf8" });
  assert.equal(checked.status, 0, checked.stderr);
});
