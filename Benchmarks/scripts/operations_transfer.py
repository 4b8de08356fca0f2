#!/usr/bin/env python3
"""Export and import of a large store with the release docserver (issue 43's targets: export of
1,000,000 objects at 100 MB/s or more, import at 50 MB/s or more), and the round trip's identity.

    python3 Benchmarks/scripts/operations_transfer.py [--objects 1000000] [--runs 2] [--docserver PATH]

1. Writes an export of the sample model with N objects (scripts/generate_export.py: 1 % artists,
   10 % albums, the rest songs, every relationship filled on both sides).
2. `docserver import --quiet --from FILE` into a new store, `--runs` times (a new store each time):
   MB/s of the NDJSON file read.
3. `docserver export --to FILE` of that store, `--runs` times: MB/s of NDJSON written; the export
   must be byte-identical to the generated file.
4. Round trip: the export imported into another new store; a server on each store answers a
   `fetch` of every entity (pages of 10,000 objects, by entity name then reference) and the two
   answers must be identical byte for byte, page by page (the same store UUID, so the same IDs).

Times are wall-clock of the whole command (process start, model load, file read and written,
`fsync`s). Figures go to $BENCH_FIGURES as the Swift benchmarks' `recordFigure` writes them.
The machine is shared: read the figures as ranges, and run again when the load average is high.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
ENTITIES = ("Album", "Artist", "Song", "Tag")


def say(text: str = "") -> None:
    print(text, flush=True)


def record_figure(name: str, data: str, result: str) -> None:
    """What BenchmarkSupport's recordFigure does: print, and append a line to $BENCH_FIGURES."""
    say("figure: %s [%s]: %s" % (name, data, result))
    path = os.environ.get("BENCH_FIGURES")
    if not path:
        return
    command = " ".join(Path(argument).name if index == 0 or argument.startswith("/") else argument
                       for index, argument in enumerate(sys.argv))
    entry = {"name": name, "data": data, "result": result, "date": datetime.date.today().isoformat(), "command": command}
    with open(path, "a", encoding="utf-8") as figures:
        figures.write(json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":")).replace("/", "\\/") + "\n")


def timed(command: list) -> tuple:
    """Runs `command`: its wall-clock seconds and its CPU seconds (user + system, all threads)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit("%s failed (%d): %s" % (" ".join(command), process.returncode, process.stderr.decode()[-2000:]))
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def header_of_empty_store(binary: str, work: Path) -> Path:
    """The header line of an export of the sample model: a server makes a store with one save."""
    store = work / "seed.json"
    server = subprocess.Popen([binary, "serve", "--port", "0", "--store", str(store), "--log-level", "warning"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdout is not None
    port = int(server.stdout.readline().decode().rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(b'{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"x"}}]}}\n')
        connection.makefile("rb").readline()
    server.terminate()
    server.wait(timeout=30)
    export = subprocess.run([binary, "export", "--store", str(store)], capture_output=True, check=True)
    header = work / "header.ndjson"
    header.write_bytes(export.stdout.split(b"\n", 1)[0] + b"\n")
    return header


class Server:
    """`docserver serve` on a store, with one line connection."""

    def __init__(self, binary: str, store: Path) -> None:
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--store", str(store), "--log-level", "warning"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.process.stdout is not None
        port = int(self.process.stdout.readline().decode().rsplit(":", 1)[1])
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=300)
        self.lines = self.socket.makefile("rb")

    def answer(self, method: str, params: dict) -> bytes:
        """The raw result of one request (the bytes after `"result":`, without the envelope)."""
        self.socket.sendall(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode() + b"\n")
        line = self.lines.readline()
        start = line.find(b'"result":')
        if start < 0:
            raise SystemExit("%s answered %s" % (method, line[:500]))
        return line[start:]

    def stop(self) -> None:
        self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=60)


def fetch_digests(binary: str, store: Path, page: int = 10_000) -> dict:
    """Per entity: the number of objects and a SHA-256 over the raw answers of a paged fetch of all of them."""
    server = Server(binary, store)
    digests = {}
    try:
        for entity in ENTITIES:
            digest, count, offset = hashlib.sha256(), 0, 0
            while True:
                raw = server.answer("fetch", {"entity": entity, "limit": page, "offset": offset})
                digest.update(raw)
                found = raw.count(b'"entity":"%s"' % entity.encode())
                count += found
                if found < page:
                    break
                offset += page
            digests[entity] = (count, digest.hexdigest())
    finally:
        server.stop()
    return digests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--objects", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--docserver", default=str(REPOSITORY / ".build" / "release" / "docserver"))
    parser.add_argument("--from-file", help="an export to use instead of generating one (of the sample model)")
    options = parser.parse_args()
    binary = options.docserver
    if not os.access(binary, os.X_OK):
        raise SystemExit("no docserver at %s: swift build -c release --product docserver, or --docserver PATH" % binary)
    work = Path(tempfile.mkdtemp(prefix="operations-transfer-"))
    try:
        load = " ".join(open("/proc/loadavg").read().split()[:3])
        say("operations_transfer: %s objects, %d runs, %s, load average %s, %s"
            % (format(options.objects, ","), options.runs, binary, load, datetime.datetime.now().isoformat(timespec="seconds")))
        source = work / "big.ndjson"
        started = time.perf_counter()
        if options.from_file:
            source = Path(options.from_file)
            options.objects = sum(1 for _ in open(source, "rb")) - 1
        else:
            header = header_of_empty_store(binary, work)
            with open(source, "wb") as out:
                subprocess.run([sys.executable, str(REPOSITORY / "scripts" / "generate_export.py"), str(header), str(options.objects)],
                               stdout=out, check=True)
        megabytes = source.stat().st_size / 1e6
        say("%s %s (%.1f MB) in %.1f s" % ("counted" if options.from_file else "generated", source.name, megabytes, time.perf_counter() - started))
        data = "%s objects, %.0f MB of NDJSON" % (format(options.objects, ","), megabytes)

        imports, exports = [], []
        store = work / "imported.json"
        for run in range(options.runs):
            for path in work.glob("imported.json*"):
                path.unlink()
            seconds, cpu = timed([binary, "import", "--quiet", "--store", str(store), "--from", str(source)])
            imports.append((seconds, cpu))
            say("import, run %d: %.2f s = %.1f MB/s; CPU %.2f s (%.1f MB per CPU second)" % (run + 1, seconds, megabytes / seconds, cpu, megabytes / cpu))
        out = work / "exported.ndjson"
        for run in range(options.runs):
            if out.exists():
                out.unlink()
            seconds, cpu = timed([binary, "export", "--store", str(store), "--to", str(out)])
            exports.append((seconds, cpu))
            say("export, run %d: %.2f s = %.1f MB/s; CPU %.2f s (%.1f MB per CPU second)" % (run + 1, seconds, megabytes / seconds, cpu, megabytes / cpu))
        identical = subprocess.run(["cmp", "-s", str(source), str(out)]).returncode == 0
        say("export byte-identical to the imported file: %s" % ("yes" if identical else "NO"))

        again = work / "round-trip.json"
        timed([binary, "import", "--quiet", "--store", str(again), "--from", str(out)])
        started = time.perf_counter()
        first, second = fetch_digests(binary, store), fetch_digests(binary, again)
        say("fetch of every entity on both stores: %.1f s" % (time.perf_counter() - started))
        for entity in ENTITIES:
            say("  %s: %d objects, %s / %d objects, %s" % (entity, first[entity][0], first[entity][1][:16], second[entity][0], second[entity][1][:16]))
        same = first == second and sum(count for count, _ in first.values()) == options.objects
        say("round trip: every entity's fetch identical: %s" % ("yes" if same else "NO"))

        (best_import, import_cpu), (best_export, export_cpu) = min(imports), min(exports)
        record_figure("`docserver import` (NDJSON, release)", data,
                      "%.1f MB/s (%.2f s, best of %d; %.2f s CPU; load average %s at the start); target ≥ 50 MB/s%s"
                      % (megabytes / best_import, best_import, len(imports), import_cpu, load, "" if megabytes / best_import >= 50 else ": MISSED"))
        record_figure("`docserver export` (NDJSON, release)", data,
                      "%.1f MB/s (%.2f s, best of %d; %.2f s CPU; load average %s at the start); target ≥ 100 MB/s%s"
                      % (megabytes / best_export, best_export, len(exports), export_cpu, load, "" if megabytes / best_export >= 100 else ": MISSED"))
        record_figure("export → import → export round trip", data,
                      "byte-identical export: %s; `fetch` of every entity identical: %s" % ("yes" if identical else "NO", "yes" if same else "NO"))
        if not (identical and same):
            raise SystemExit(1)
    finally:
        shutil.rmtree(str(work), ignore_errors=True)


if __name__ == "__main__":
    main()
