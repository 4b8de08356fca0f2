// `docserver codegen --lang typescript`: the declarations it writes for the sample model and the
// Xcode fixtures compile with tsc --strict, and type a use of the client.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { BINARY, REPO_ROOT } from "./support.js";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLIENT = join(PACKAGE, "src", "index.js");
const FIXTURES = join(REPO_ROOT, "..", "shared", "fixtures", "xcdatamodel");
const hasTsc = spawnSync("tsc", ["--version"], { encoding: "utf8" }).status === 0;
const skipTsc = hasTsc ? false : "tsc is missing (apt-get install node-typescript; scripts/test.sh installs it)";

function codegen(args) {
  return spawnSync(BINARY, ["codegen", ...args], { encoding: "utf8" });
}

function compile(directory, files) {
  writeFileSync(join(directory, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "es2022", moduleResolution: "node", lib: ["es2022", "dom"], types: [] },
    files,
  }));
  return spawnSync("tsc", ["-p", join(directory, "tsconfig.json")], { encoding: "utf8" });
}

function temporary(t) {
  const directory = mkdtempSync(join(tmpdir(), "docstore-codegen-"));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

test("codegen writes an interface per entity of the sample model with typed attributes and relationships", () => {
  const result = codegen(["--lang", "typescript"]);
  assert.equal(result.status, 0, result.stderr);
  const text = result.stdout;
  assert.match(text, /import type \{ DocObject \} from "docstore";/);
  assert.match(text, /export interface Song extends DocObject \{/);
  assert.match(text, /  title: string;/);
  assert.match(text, /  plays: number;/);
  assert.match(text, /  rating: number \| null;/);
  assert.match(text, /  album: Album \| null;/);
  assert.match(text, /  tags: Tag\[\];/);
  assert.match(text, /  released: Date \| null;/);
  assert.match(text, /  price: string \| null;/);
  assert.match(text, /  cover: Uint8Array \| null;/);
  assert.match(text, /export type SongValues = \{/);
  assert.match(text, /export interface Entities \{\n  Album: Album;\n  Artist: Artist;\n  Song: Song;\n  Tag: Tag;\n\}/);
});

test("the generated TypeScript for the sample model compiles with tsc --strict and types a use of the client", { skip: skipTsc }, (t) => {
  const directory = temporary(t);
  const result = codegen(["--lang", "typescript", "--import-from", CLIENT, "--output", join(directory, "model.ts")]);
  assert.equal(result.status, 0, result.stderr);
  writeFileSync(join(directory, "use.ts"), [
    `import { connect } from ${JSON.stringify(CLIENT)};`,
    `import type { Song, Album, SongValues, EntityName } from "./model";`,
    "async function use(): Promise<void> {",
    "  const client = await connect();",
    "  const s = await client.session();",
    "  const values: SongValues = { title: \"So What\", plays: 7n };",
    "  const song = s.insert(\"Song\", values) as Song;",
    "  const title: string = song.title;",
    "  const album: Album | null = song.album;",
    "  const names: string[] = album === null ? [] : album.songs.map((other: Song) => other.title);",
    "  const entity: EntityName = \"Tag\";",
    "  console.log(title, names, entity);",
    "}",
    "void use;",
  ].join("\n"));
  const compiled = compile(directory, ["model.ts", "use.ts"]);
  assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);

  writeFileSync(join(directory, "wrong.ts"), [
    `import type { Song } from "./model";`,
    "declare const song: Song;",
    "const plays: string = song.plays;",
    "const entity: import(\"./model\").EntityName = \"Planet\";",
    "console.log(plays, entity);",
  ].join("\n"));
  const refused = compile(directory, ["model.ts", "wrong.ts"]);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stdout, /Type 'number' is not assignable to type 'string'/);
  assert.match(refused.stdout, /"Planet"/);
});

test("the generated TypeScript for every Xcode model fixture compiles with tsc --strict", { skip: skipTsc }, (t) => {
  const directory = temporary(t);
  const models = readdirSync(FIXTURES).filter((name) => name.endsWith(".contents.xml"));
  assert.ok(models.length >= 5, `fixtures in ${FIXTURES}`);
  const files = [];
  for (const [index, name] of models.entries()) {
    const file = `model${index}.ts`;
    const result = codegen(["--lang", "typescript", "--model", join(FIXTURES, name), "--import-from", CLIENT, "--output", join(directory, file)]);
    assert.equal(result.status, 0, `${name}: ${result.stderr}`);
    assert.match(readFileSync(join(directory, file), "utf8"), /export interface Entities \{/);
    files.push(file);
  }
  const compiled = compile(directory, files);
  assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
});

test("codegen refuses an unknown language (64) and a missing model (2)", () => {
  assert.equal(codegen(["--lang", "cobol"]).status, 64);
  const missing = codegen(["--lang", "typescript", "--model", join(tmpdir(), "no-such-model.json")]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot generate/);
});

const hasMypy = spawnSync("python3", ["-m", "mypy", "--version"], { encoding: "utf8" }).status === 0;
const skipMypy = hasMypy ? false : "mypy is missing (python3 -m pip install mypy; scripts/test.sh installs it)";

function mypy(directory, files) {
  return spawnSync("python3", ["-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental", ...files], {
    cwd: directory, encoding: "utf8",
    env: { ...process.env, MYPYPATH: join(REPO_ROOT, "clients", "python", "src") },
  });
}

test("the generated Python for the sample model passes mypy --strict and types a use of the Python client", { skip: skipMypy }, (t) => {
  const directory = temporary(t);
  const result = codegen(["--lang", "python", "--output", join(directory, "model.py")]);
  assert.equal(result.status, 0, result.stderr);
  const text = readFileSync(join(directory, "model.py"), "utf8");
  assert.match(text, /class Song\(Protocol\):\n    """Entity Song."""\n    title: str\n    plays: int\n    rating: Optional\[float\]\n    uid: Optional\[uuid.UUID\]\n    album: Optional\[Album\]\n    tags: MutableSequence\[Tag\]/);
  assert.match(text, /ENTITIES = \("Album", "Artist", "Song", "Tag"\)/);
  writeFileSync(join(directory, "use.py"), [
    "from typing import Optional, cast",
    "import docstore",
    "from model import Album, Song",
    "",
    "def use(client: docstore.Client) -> int:",
    "    s = client.session()",
    "    song = cast(Song, s.insert(\"Song\", title=\"So What\", plays=7))",
    "    album: Optional[Album] = song.album",
    "    labels = [tag.label for tag in song.tags]",
    "    return song.plays + len(labels) + (0 if album is None else len(album.songs))",
    "",
  ].join("\n"));
  const checked = mypy(directory, ["model.py", "use.py"]);
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  writeFileSync(join(directory, "wrong.py"), "from model import Song\n\ndef wrong(song: Song) -> str:\n    return song.plays\n");
  const refused = mypy(directory, ["model.py", "wrong.py"]);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stdout, /Incompatible return value type \(got "int", expected "str"\)/);
});

test("the generated Python for every Xcode model fixture passes mypy --strict and imports", { skip: skipMypy }, (t) => {
  const directory = temporary(t);
  const models = readdirSync(FIXTURES).filter((name) => name.endsWith(".contents.xml"));
  const files = [];
  for (const [index, name] of models.entries()) {
    const file = `model${index}.py`;
    const result = codegen(["--lang", "python", "--model", join(FIXTURES, name), "--output", join(directory, file)]);
    assert.equal(result.status, 0, `${name}: ${result.stderr}`);
    files.push(file);
  }
  const checked = mypy(directory, files);
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  const imported = spawnSync("python3", ["-c", files.map((file) => `import ${file.replace(".py", "")}`).join("; ")], { cwd: directory, encoding: "utf8" });
  assert.equal(imported.status, 0, imported.stderr);
});
