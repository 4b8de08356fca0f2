// `docserver codegen --lang swift`: the structs it writes for the sample model and every Xcode
// fixture compile against the Swift client (DocumentClient) as built here: `swiftc -typecheck`
// with the build's modules (the folder of $DOCSERVER_BINARY, else .build/debug), and type a use
// of the client; a use with a wrong type is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BINARY, REPO_ROOT } from "./support.js";

const FIXTURES = join(REPO_ROOT, "..", "shared", "fixtures", "xcdatamodel");
const BUILD = dirname(BINARY);
const MODULES = join(BUILD, "Modules");
const hasSwiftc = spawnSync("swiftc", ["--version"], { encoding: "utf8" }).status === 0;
const skip = !hasSwiftc ? "swiftc is missing"
  : !existsSync(join(MODULES, "DocumentClient.swiftmodule")) ? `DocumentClient is not built in ${BUILD} (swift build first)` : false;

/** The module maps of the build's C modules: SwiftPM writes one per C target as `<Target>.build/module.modulemap`
 * (a Swift target's is under `include/`, and is not needed), and CYajl, a system library, has its own. */
function moduleMapFlags() {
  const maps = [];
  for (const entry of readdirSync(BUILD)) {
    const map = join(BUILD, entry, "module.modulemap");
    if (entry.endsWith(".build") && existsSync(map)) maps.push(map);
  }
  // C targets with a module map of their own (swift-atomics' shims, BoringSSL, …), in the checkouts.
  const covered = new Set(maps.map((map) => dirname(map).split("/").pop().replace(/\.build$/, "")));
  const checkouts = join(REPO_ROOT, ".build", "checkouts");
  for (const checkout of existsSync(checkouts) ? readdirSync(checkouts) : []) {
    const sources = join(checkouts, checkout, "Sources");
    for (const target of existsSync(sources) ? readdirSync(sources) : []) {
      const map = join(sources, target, "include", "module.modulemap");
      if (!covered.has(target) && existsSync(map)) maps.push(map);
    }
  }
  maps.push(join(REPO_ROOT, "Sources", "CYajl", "module.modulemap"));
  return maps.flatMap((map) => ["-Xcc", `-fmodule-map-file=${map}`, "-Xcc", `-I${dirname(map)}`]);
}

function typecheck(directory, files) {
  return spawnSync("swiftc", ["-typecheck", "-swift-version", "6", "-I", MODULES, ...moduleMapFlags(), ...files.map((file) => join(directory, file))],
    { encoding: "utf8", timeout: 600000 });
}

function codegen(args) {
  return spawnSync(BINARY, ["codegen", "--lang", "swift", ...args], { encoding: "utf8" });
}

function temporary(t) {
  const directory = mkdtempSync(join(tmpdir(), "docstore-codegen-swift-"));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

test("codegen --lang swift writes a struct per entity of the sample model with typed properties", () => {
  const result = codegen([]);
  assert.equal(result.status, 0, result.stderr);
  for (const entity of ["Artist", "Album", "Song", "Tag"]) assert.match(result.stdout, new RegExp(`public struct ${entity}: Swift.Sendable`));
  assert.match(result.stdout, /public var title: Swift\.String\n/);
  assert.match(result.stdout, /public var rating: Swift\.Double\?\n/);
  assert.match(result.stdout, /public var album: GraphCore\.ObjectID\?\n/);
  assert.match(result.stdout, /public var songs: \[GraphCore\.ObjectID\]\n/);
});

test("the generated Swift for the sample model compiles against DocumentClient and types a use of it", { skip, timeout: 900000 }, (t) => {
  const directory = temporary(t);
  const result = codegen(["--output", join(directory, "Model.swift")]);
  assert.equal(result.status, 0, result.stderr);
  writeFileSync(join(directory, "Use.swift"), `import DocumentClient
import Foundation
import GraphCore

func use(_ client: DocumentClient, model: ObjectModel) async throws {
    let predicate = try Predicate(format: "plays > %d", 3)
    let songs: [Song] = try await Song.fetch(client, model: model, predicate: predicate)
    guard let song = songs.first else { return }
    let title: String = song.title
    let plays: Int64 = song.plays
    let rating: Double? = song.rating
    let album: ObjectID? = song.album
    let tags: [ObjectID] = song.tags
    let values: [String: Value] = song.values
    let price: Decimal? = try await Album.fetch(client, model: model).first?.price
    _ = (title, plays, rating, album, tags, values, price)
}
`);
  const checked = typecheck(directory, ["Model.swift", "Use.swift"]);
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  writeFileSync(join(directory, "Wrong.swift"), `import DocumentClient
import GraphCore

func wrong(_ song: Song) { let plays: String = song.plays; _ = plays }
`);
  const refused = typecheck(directory, ["Model.swift", "Wrong.swift"]);
  assert.notEqual(refused.status, 0, "a use with a wrong type must not compile");
  assert.match(refused.stderr, /cannot convert value of type 'Int64'|Int64/);
});

test("the generated Swift for every Xcode model fixture compiles against DocumentClient", { skip, timeout: 900000 }, (t) => {
  const models = readdirSync(FIXTURES).filter((name) => name.endsWith(".contents.xml"));
  assert.ok(models.length > 0, `no fixtures in ${FIXTURES}`);
  for (const [index, name] of models.entries()) {
    // Each in a folder of its own: two models may name the same entity.
    const directory = temporary(t);
    const result = codegen(["--model", join(FIXTURES, name), "--output", join(directory, `Model${index}.swift`)]);
    assert.equal(result.status, 0, `${name}: ${result.stderr}`);
    const checked = typecheck(directory, [`Model${index}.swift`]);
    assert.equal(checked.status, 0, `${name}:\n${checked.stdout}${checked.stderr}`);
  }
});
