#!/usr/bin/env node
// Single-object saves per second from 50 concurrent sessions: the JavaScript client
// (clients/js) against the Python client (clients/python), on the same docserver binary in the
// same run (issue 42's target: JavaScript >= 0.8 x Python).
//
//   node Benchmarks/js/save_rate.mjs [--saves 10000] [--sessions 50] [--rounds 3] [--kinds js,js-shared,python] [--docserver PATH]
//
// PATH defaults to .build/release/docserver when it exists, else .build/debug/docserver; the
// build is printed. Each measurement gets a fresh server on a new store in a temporary directory
// (each save is durable: one journal append and fsync per group commit). Each round measures, in
// turn (the order alternating between rounds):
//   - js:        SESSIONS sessions, each on its own client (connection), one async task each;
//   - js-shared: SESSIONS sessions on one client, their saves pipelined on one connection;
//   - python:    SESSIONS sessions, each on its own client and thread (save_rate_python.py).
// Each session inserts one Tag and saves it, SAVES / SESSIONS times. Prints every measurement,
// the median rate of each, and the ratios to Python's median.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir, cpus, loadavg } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "../../clients/js/src/index.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && index + 1 < process.argv.length ? process.argv[index + 1] : fallback;
}

const SAVES = Number(option("saves", "10000"));
const SESSIONS = Number(option("sessions", "50"));
const ROUNDS = Number(option("rounds", "3"));
const KINDS = option("kinds", "js,js-shared,python").split(",");
const release = join(ROOT, ".build", "release", "docserver");
const BINARY = option("docserver", existsSync(release) ? release : join(ROOT, ".build", "debug", "docserver"));

async function startServer() {
  const directory = mkdtempSync(join(tmpdir(), "docstore-js-bench-"));
  const child = spawn(BINARY, ["serve", "--port", "0", "--store", join(directory, "store.json"), "--log-level", "warning", "--stop-when-stdin-closes"],
    { stdio: ["pipe", "pipe", "inherit"] });
  const line = await new Promise((resolveLine, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (output.includes("\n")) resolveLine(output.split("\n")[0]);
    });
    child.once("exit", (code) => reject(new Error(`docserver exited with ${code}`)));
  });
  const port = Number(line.trim().split(":").at(-1));
  return {
    port,
    async stop() {
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function split(total, parts) {
  return Array.from({ length: parts }, (_, index) => Math.floor(total / parts) + (index < total % parts ? 1 : 0));
}

async function runJS(port, shared) {
  const clients = shared
    ? [await connect({ port, clientName: "bench-js" })]
    : await Promise.all(Array.from({ length: SESSIONS }, () => connect({ port, clientName: "bench-js" })));
  const sessions = await Promise.all(Array.from({ length: SESSIONS }, (_, index) => clients[shared ? 0 : index].session()));
  const counts = split(SAVES, SESSIONS);
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await Promise.all(sessions.map(async (session, index) => {
    for (let number = 0; number < counts[index]; number++) {
      session.insert("Tag", { label: `js ${index} ${number}` });
      await session.save();
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  for (const client of clients) client.close();
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

function runPython(port) {
  const result = spawnSync("python3", [join(ROOT, "Benchmarks", "js", "save_rate_python.py"), "127.0.0.1", String(port), String(SAVES), String(SESSIONS)], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`the Python side failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1));
}

async function measure(kind) {
  const server = await startServer();
  try {
    return kind === "python" ? runPython(server.port) : await runJS(server.port, kind === "js-shared");
  } finally {
    await server.stop();
  }
}

const build = BINARY.includes(`${join(".build", "release")}`) ? "release" : BINARY.includes(join(".build", "debug")) ? "debug" : "given";
console.log(`docserver ${BINARY} (${build} build); Node ${process.version}; ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
console.log(`${SAVES} single-object saves (one Tag inserted and saved per save, durable) from ${SESSIONS} concurrent sessions, fresh server and store per measurement, ${ROUNDS} rounds`);
const kinds = KINDS;
const rates = Object.fromEntries(kinds.map((kind) => [kind, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? kinds : [...kinds].reverse();
  for (const kind of order) {
    const { seconds, cpuSeconds } = await measure(kind);
    const rate = SAVES / seconds;
    rates[kind].push(rate);
    console.log(`round ${round + 1} ${kind.padEnd(9)} ${seconds.toFixed(2)} s  ${rate.toFixed(0)} saves/s  client CPU ${(cpuSeconds / SAVES * 1e6).toFixed(0)} µs/save`);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const python = rates.python?.length ? median(rates.python) : NaN;
for (const kind of kinds) {
  console.log(`median ${kind.padEnd(9)} ${median(rates[kind]).toFixed(0)} saves/s  (${(median(rates[kind]) / python).toFixed(2)} x Python)`);
}
