#!/usr/bin/env python3
"""Resident memory of a docserver holding N Tags of the sample model against Redis holding N
values of the same bytes (issue "The save path": at most 1.2 x Redis for 1,000,000):

    python3 Benchmarks/scripts/memory_against_redis.py [--objects 1000000] [--docserver PATH]
        [--wire-cache-bytes N]

1. Writes an export of N Tags (`{"label":"tag n","songs":[]}`) and imports it into a new store
   (`docserver import`).
2. Starts `docserver serve` on it, reads every Tag's ID (`fetch`, resultType ids, in pages) and
   `get`s every object once (1,000 a request), so the server holds what a steady state holds (the
   objects and, up to `--wire-cache-bytes`, their wire forms); waits 12 s (jemalloc returns freed
   pages after its 10 s decay), then reads its resident memory (VmRSS).
3. Starts `redis-server` without persistence on a free port in the same temporary directory, SETs
   `tag:i` to the exact bytes of each object the server answered (redis-cli --pipe), and reads
   its resident memory. Installs nothing: redis-server and redis-cli must be there.

Prints both, their ratio, and (with $BENCH_FIGURES set) records the figure."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from operations_transfer import REPOSITORY, header_of_empty_store, record_figure, say  # noqa: E402


def resident_megabytes(pid: int) -> float:
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise SystemExit("no VmRSS for process %d" % pid)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_tags(header: Path, count: int, out: Path) -> None:
    first = json.loads(header.read_text().splitlines()[0])
    first["commitSequence"] = 0
    store = first["storeUUID"]
    with open(out, "w", encoding="utf-8") as lines:
        lines.write(json.dumps(first, separators=(",", ":")) + "\n")
        for n in range(1, count + 1):
            lines.write('{"id":"graph://%s/Tag/%d","entity":"Tag","version":1,"values":{"label":"tag %d","songs":[]}}\n' % (store, n, n))


class LineClient:
    def __init__(self, port: int):
        self.connection = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.reader = self.connection.makefile("rb")
        self.next_id = 0

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.connection.sendall((json.dumps(request) + "\n").encode())
        answer = json.loads(self.reader.readline())
        if "error" in answer:
            raise SystemExit("%s failed: %s" % (method, answer["error"]))
        return answer["result"]


def docserver_resident(binary: str, store: Path, wire_cache_bytes: int | None) -> tuple:
    """The server's resident memory after opening and after every object was sent once, and
    the objects' wire forms as it sent them."""
    command = [binary, "serve", "--port", "0", "--store", str(store), "--log-level", "warning"]
    if wire_cache_bytes is not None:
        command += ["--wire-cache-bytes", str(wire_cache_bytes)]
    server = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().decode().rsplit(":", 1)[1])
        opened = resident_megabytes(server.pid)
        client = LineClient(port)
        ids: list = []
        while True:
            page = client.call("fetch", {"entity": "Tag", "resultType": "ids", "limit": 100_000, "offset": len(ids)})["ids"]
            ids += page
            if len(page) < 100_000:
                break
        values = []
        for start in range(0, len(ids), 1000):
            for found in client.call("get", {"ids": ids[start:start + 1000]})["objects"]:
                values.append(json.dumps(found, separators=(",", ":"), ensure_ascii=False).encode())
        time.sleep(12)
        return opened, resident_megabytes(server.pid), values
    finally:
        server.terminate()
        server.wait(timeout=60)


def redis_resident(values: list, directory: Path) -> tuple:
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                              "--dir", str(directory)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout.strip() == b"PONG":
                break
            time.sleep(0.1)
        commands = bytearray()
        for index, value in enumerate(values):
            key = b"tag:%d" % index
            commands += b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(key), key, len(value), value)
        subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=bytes(commands), stdout=subprocess.DEVNULL, check=True)
        time.sleep(1)
        info = subprocess.run(["redis-cli", "-p", str(port), "info", "memory"], capture_output=True, text=True).stdout
        used = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
        return resident_megabytes(redis.pid), int(used["used_memory"]) / 1048576
    finally:
        subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True)
        redis.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=1_000_000)
    parser.add_argument("--docserver", default=str(REPOSITORY / ".build" / "release" / "docserver"))
    parser.add_argument("--wire-cache-bytes", type=int, help="passed to docserver serve (default: its own)")
    options = parser.parse_args()
    if not shutil.which("redis-server") or not shutil.which("redis-cli"):
        raise SystemExit("redis-server and redis-cli are needed (apt-get install -y redis-server)")
    work = Path(tempfile.mkdtemp(prefix="memory-against-redis-"))
    try:
        header = header_of_empty_store(options.docserver, work)
        export = work / "tags.ndjson"
        write_tags(header, options.objects, export)
        store = work / "tags.json"
        subprocess.run([options.docserver, "import", "--quiet", "--store", str(store), "--from", str(export)], check=True,
                       stdout=subprocess.DEVNULL)
        opened, served, values = docserver_resident(options.docserver, store, options.wire_cache_bytes)
        size = sum(len(value) for value in values) / max(len(values), 1)
        say("docserver: %s Tags, wire form %.1f bytes each on average; resident %.1f MB after opening, %.1f MB after every"
            " object was sent once" % (format(len(values), ","), size, opened, served))
        redis, used = redis_resident(values, work)
        say("redis-server: %s values of the same bytes; resident %.1f MB (used_memory %.1f MB)" % (format(len(values), ","), redis, used))
        cache = "" if options.wire_cache_bytes is None else ", --wire-cache-bytes %d" % options.wire_cache_bytes
        record_figure("resident memory of a server holding Tags against Redis", "%s Tags, %.0f bytes each%s" % (format(len(values), ","), size, cache),
                      "%.1f MB against %.1f MB = %.2f x Redis (after opening: %.1f MB); target ≤ 1.2 x" % (served, redis, served / redis, opened))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
