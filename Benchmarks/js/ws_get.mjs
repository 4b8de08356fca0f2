// `get` of one object over a WebSocket (`/rpc` on the HTTP port) against over TCP, from the
// JavaScript client (clients/js), N connections each with one request in flight at a time, in the
// same run on one server (issue 42's target: WebSocket >= 0.7 x TCP with 50 connections).
//
//   node --experimental-websocket Benchmarks/js/ws_get.mjs [--connections 50] [--seconds 5] [--rounds 2]
//
// DOCSERVER_BINARY: the server to measure (default .build/release/docserver). It prints the
// build it used; rounds alternate TCP and WebSocket so that both see the same machine load.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

if (typeof globalThis.WebSocket !== "function") {
  // Node 20 has a WebSocket class only with this flag: run again with it.
  const child = spawnSync(process.execPath, ["--experimental-websocket", fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(child.status ?? 1);
}

const { connect } = await import(join(ROOT, "clients", "js", "src", "index.js"));
const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};
const CONNECTIONS = option("connections", 50);
const SECONDS = option("seconds", 5);
const ROUNDS = option("rounds", 2);
const OBJECTS = 1000;
const BINARY = process.env.DOCSERVER_BINARY ?? join(ROOT, ".build", "release", "docserver");
if (!existsSync(BINARY)) {
  console.error(`no docserver at ${BINARY}: build it (swift build -c release --product docserver) or set DOCSERVER_BINARY`);
  process.exit(2);
}

async function freePort() {
  return new Promise((resolvePort) => {
    const probe = createServer().listen(0, "127.0.0.1", () => { const { port } = probe.address(); probe.close(() => resolvePort(port)); });
  });
}

const directory = mkdtempSync(join(tmpdir(), "ws-get-"));
const httpPort = await freePort();
const server = spawn(BINARY, ["serve", "--host", "127.0.0.1", "--port", "0", "--http-port", String(httpPort), "--store", join(directory, "store.json"),
  "--log-level", "warning", "--stop-when-stdin-closes"], { stdio: ["pipe", "pipe", "inherit"] });
const port = await new Promise((resolvePort, reject) => {
  let output = "";
  server.stdout.on("data", (chunk) => {
    output += chunk;
    const match = /^listening on .+:(\d+)$/m.exec(output);
    if (match) resolvePort(Number(match[1]));
  });
  server.once("exit", (code) => reject(new Error(`docserver exited (${code})`)));
});

/** The server process's CPU time so far, in microseconds (Linux: /proc/PID/stat). */
function serverCPU() {
  try {
    const stat = readFileSync(`/proc/${server.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 1e6 / 100;  // utime + stime, in clock ticks of 10 ms
  } catch {
    return 0;
  }
}

try {
  const seeding = await connect({ host: "127.0.0.1", port });
  const session = await seeding.session();
  for (let index = 0; index < OBJECTS; index++) session.insert("Song", { title: `Song ${index}`, plays: index });
  await session.save();
  const ids = await seeding.fetchIds("Song");
  seeding.close();

  async function measure(kind) {
    const options = kind === "tcp" ? { host: "127.0.0.1", port } : { url: `ws://127.0.0.1:${httpPort}/rpc` };
    const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(options)));
    for (const client of clients) await client.call("get", { ids: [ids[0]] });  // warm
    let done = 0;
    const cpuBefore = process.cpuUsage();
    const serverBefore = serverCPU();
    const deadline = performance.now() + SECONDS * 1000;
    await Promise.all(clients.map(async (client, index) => {
      let next = index;
      while (performance.now() < deadline) {
        await client.call("get", { ids: [ids[next % ids.length]] });
        next += CONNECTIONS;
        done += 1;
      }
    }));
    const rate = done / SECONDS;
    const cpu = process.cpuUsage(cpuBefore);
    const clientMicros = (cpu.user + cpu.system) / Math.max(1, done);
    const serverMicros = (serverCPU() - serverBefore) / Math.max(1, done);
    for (const client of clients) client.close();
    return { rate, clientMicros, serverMicros };
  }

  const rates = { tcp: [], ws: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of ["tcp", "ws"]) {
      const { rate, clientMicros, serverMicros } = await measure(kind);
      rates[kind].push(rate);
      console.log(`round ${round + 1}: ${kind === "tcp" ? "TCP      " : "WebSocket"} ${Math.round(rate).toLocaleString("en")} gets/s (${CONNECTIONS} connections, ${SECONDS} s, one object of ${OBJECTS} Songs per get); CPU per get: client ${clientMicros.toFixed(0)} µs, server ${serverMicros.toFixed(0)} µs`);
    }
  }
  const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
  const ratio = mean(rates.ws) / mean(rates.tcp);
  console.log(`get over WebSocket / over TCP: ${ratio.toFixed(2)} x (target >= 0.7); node ${process.version}; server ${BINARY}`);
} finally {
  server.stdin.end();
  await new Promise((resolveExit) => server.once("exit", resolveExit));
  rmSync(directory, { recursive: true, force: true });
}
