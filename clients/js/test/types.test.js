import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const hasTsc = spawnSync("tsc", ["--version"], { encoding: "utf8" }).status === 0;

function tsc(args) {
  return spawnSync("tsc", args, { cwd: PACKAGE, encoding: "utf8" });
}

test("the .d.ts files and a typed use of the client compile with tsc --noEmit --strict", { skip: hasTsc ? false : "tsc is missing (apt-get install node-typescript; scripts/test.sh installs it)" }, () => {
  const result = tsc(["-p", "tsconfig.json"]);
  assert.equal(result.status, 0, result.stdout + result.stderr);
});

test("tsc --strict refuses a wrong use of the client's types", { skip: hasTsc ? false : "tsc is missing" }, () => {
  const directory = mkdtempSync(join(tmpdir(), "docstore-types-"));
  try {
    const file = join(directory, "wrong.ts");
    writeFileSync(file, [
      `import { connect, ConflictError } from ${JSON.stringify(join(PACKAGE, "src", "index.js"))};`,
      "async function wrong(): Promise<void> {",
      "  const client = await connect({ prot: 7878 });",
      "  const count: string = await client.count(\"Song\");",
      "  const error = new ConflictError(\"x\");",
      "  const id: number = error.conflicts[0].id;",
      "  console.log(count, id);",
      "}",
      "void wrong;",
    ].join("\n"));
    writeFileSync(join(directory, "tsconfig.json"), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "es2022", moduleResolution: "node", lib: ["es2022", "dom"], types: [] },
      files: [file],
    }));
    const result = tsc(["-p", join(directory, "tsconfig.json")]);
    assert.notEqual(result.status, 0);
    assert.match(result.stdout, /'prot' does not exist/);
    assert.match(result.stdout, /Type 'number' is not assignable to type 'string'/);
    assert.match(result.stdout, /Type 'string' is not assignable to type 'number'/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
