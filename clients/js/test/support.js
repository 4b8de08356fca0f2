// Starts the real docserver binary for the tests: `docserver serve --port 0` on a fresh store
// in a temporary directory, waits for its "listening on HOST:PORT" line, and stops it when the
// test ends. The binary is $DOCSERVER_BINARY, else <repo>/.build/debug/docserver (this suite
// builds nothing; scripts/test.sh builds the server first). The server gets a pipe on its
// standard input and --stop-when-stdin-closes, so it stops with the test process however that ends.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { createServer as createNetServer } from "node:net";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const BINARY = process.env.DOCSERVER_BINARY ?? join(REPO_ROOT, ".build", "debug", "docserver");
const START_TIMEOUT = 30000;

/** A running server: `host`, `port`, `process`, `directory`, `storePath`; `stop()`, `kill()`, `signal(name)`. */
export class ServerProcess {
  constructor({ token = null, model = null, args = [], storePath = null } = {}) {
    this.token = token;
    this.model = model;
    this.args = args;
    this.directory = mkdtempSync(join(tmpdir(), "docstore-js-"));
    this.storePath = storePath ?? join(this.directory, "store.json");
    this.host = null;
    this.port = null;
    this.process = null;
    this.stderr = "";
  }

  async start() {
    if (!existsSync(BINARY)) {
      throw new Error(`the docserver binary is missing: ${BINARY}. Run ./scripts/test.sh (it builds the server first), or set DOCSERVER_BINARY`);
    }
    const command = ["serve", "--host", "127.0.0.1", "--port", "0", "--store", this.storePath, "--log-level", "warning", "--stop-when-stdin-closes"];
    if (this.model !== null) command.push("--model", this.model);
    if (this.token !== null) command.push("--auth-token", this.token);
    command.push(...this.args);
    const environment = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("DOCSERVER_")));
    this.process = spawn(BINARY, command, { stdio: ["pipe", "pipe", "pipe"], env: environment });
    this.process.stderr.on("data", (chunk) => { this.stderr += chunk.toString(); });
    const line = await new Promise((resolveLine, reject) => {
      let output = "";
      const timer = setTimeout(() => reject(new Error(`docserver did not listen within ${START_TIMEOUT} ms; stderr:\n${this.stderr}`)), START_TIMEOUT);
      this.process.stdout.on("data", (chunk) => {
        output += chunk.toString();
        const end = output.indexOf("\n");
        if (end >= 0) { clearTimeout(timer); resolveLine(output.slice(0, end)); }
      });
      this.process.once("exit", (code) => { clearTimeout(timer); reject(new Error(`docserver exited with status ${code} before listening; stderr:\n${this.stderr}`)); });
    });
    const match = /^listening on (.+):(\d+)$/.exec(line.trim());
    if (match === null) throw new Error(`unexpected first line from docserver: ${line}`);
    this.host = match[1].replace(/^\[|\]$/g, "");
    this.port = Number(match[2]);
    return this;
  }

  /** Options for connect() that reach this server. */
  get options() {
    return this.token === null ? { host: this.host, port: this.port } : { host: this.host, port: this.port, token: this.token };
  }

  get isRunning() { return this.process !== null && this.process.exitCode === null && this.process.signalCode === null; }

  signal(name) { this.process.kill(name); }

  /**
   * Stops the server (SIGSTOP) and waits until the kernel shows it stopped, so that nothing sent
   * afterwards is answered before it stops.
   */
  async pause() {
    this.process.kill("SIGSTOP");
    for (let tries = 0; tries < 200; tries++) {
      const stat = readFileSync(`/proc/${this.process.pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("T")) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`the server (pid ${this.process.pid}) did not stop within 1 s of SIGSTOP`);
  }

  /** SIGTERM, then SIGKILL after 10 s; resolves with the exit code. */
  async stop() {
    if (!this.isRunning) return this.process?.exitCode ?? null;
    const exited = new Promise((resolveExit) => this.process.once("exit", (code, signal) => resolveExit(code ?? signal)));
    this.process.kill("SIGCONT");
    this.process.kill("SIGTERM");
    const timer = setTimeout(() => this.process.kill("SIGKILL"), 10000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  async kill() {
    if (!this.isRunning) return;
    const exited = new Promise((resolveExit) => this.process.once("exit", resolveExit));
    this.process.kill("SIGKILL");
    await exited;
  }

  async dispose() {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/** Starts a server for one test and stops it when the test ends: `const server = await startServer(t, {…})`. */
export async function startServer(t, options) {
  const server = new ServerProcess(options);
  t.after(() => server.dispose());
  return server.start();
}

/** The sample model file, for tests that pass --model. */
export const SAMPLE_MODEL = join(REPO_ROOT, "Sources", "docserver", "Resources", "sample.model.json");

/** Reads a file of the repository. */
export function readRepoFile(path) { return readFileSync(join(REPO_ROOT, path), "utf8"); }

/** connect() to `server`, closed when the test ends. */
export async function connectTo(t, server, options = {}) {
  const { connect } = await import("../src/index.js");
  const client = await connect({ ...server.options, ...options });
  t.after(() => client.close());
  return client;
}

/** Kind of Blue with three songs, saved in one session; resolves with {session, miles, kob, songs, result}. */
export async function insertSample(client) {
  const session = await client.session();
  const miles = session.insert("Artist", { name: "Miles Davis", country: "US" });
  const kob = session.insert("Album", { title: "Kind of Blue", artist: miles, price: "9.99", released: new Date("1959-08-17T00:00:00Z") });
  const songs = [["So What", 7], ["Freddie Freeloader", 3], ["Blue in Green", 12]]
    .map(([title, plays]) => session.insert("Song", { title, plays, album: kob }));
  const result = await session.save();
  return { session, miles, kob, songs, result };
}

/** A port free now, for --http-port. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
