#!/usr/bin/env python3
"""Times the Python client (clients/python, `docstore`) against a real docserver.

    python3 Benchmarks/scripts/python_client_bench.py [--objects N] [--docserver PATH]

Starts PATH (default .build/release/docserver: build it with
`swift build -c release --product docserver`) on a new store in a temporary directory, on
one free port, and prints for N songs (default 10,000) of the sample model:

- one save inserting N songs in one album (a session, then one `save`);
- a fetch of all N songs, reading one attribute of each;
- walking N faults (`session.object(id)` for the IDs from `fetch_ids`, then one attribute of each) with prefetch
  1, 100 and 1,000: round trips and time, which show what batched faulting saves;
- `get` of one object by ID, one request at a time: requests/s, p50 and p99;
- durable saves of one update each, one at a time: saves/s.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python" / "src"))

import docstore  # noqa: E402


def start_server(binary: Path, directory: str) -> "tuple[subprocess.Popen, int]":
    process = subprocess.Popen(
        [str(binary), "serve", "--port", "0", "--store", os.path.join(directory, "store.json"),
         "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        raise SystemExit(f"docserver did not start: {line!r}")
    return process, int(line.rsplit(":", 1)[1])


def counting(client: docstore.Client) -> "list[str]":
    calls: "list[str]" = []
    connection = client._connection
    original = connection.call

    def call(method, params=None):
        calls.append(method)
        return original(method, params)

    connection.call = call  # type: ignore[method-assign]
    return calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--docserver", type=Path, default=ROOT / ".build" / "release" / "docserver")
    options = parser.parse_args()
    if not options.docserver.is_file():
        raise SystemExit(f"{options.docserver} is missing: swift build -c release --product docserver")
    n = options.objects

    with tempfile.TemporaryDirectory() as directory:
        process, port = start_server(options.docserver, directory)
        try:
            client = docstore.connect("127.0.0.1", port)
            print(f"docstore {docstore.__version__}, Python {sys.version.split()[0]}, docserver {options.docserver}")

            s = client.session()
            start = time.perf_counter()
            album = s.insert("Album", title="Long")
            for index in range(n):
                s.insert("Song", title=f"track {index}", plays=index, album=album)
            built = time.perf_counter() - start
            s.save()
            total = time.perf_counter() - start
            size = os.path.getsize(os.path.join(directory, "store.json"))
            print(f"insert {n:,} songs in one save: {total:.3f} s ({built:.3f} s building the session), "
                  f"store file {size / 1e6:.1f} MB")

            start = time.perf_counter()
            songs = client.fetch("Song")
            plays = sum(song.plays for song in songs)
            seconds = time.perf_counter() - start
            assert len(songs) == n and plays == n * (n - 1) // 2
            print(f"fetch {n:,} songs and read one attribute of each: {seconds:.3f} s ({n / seconds:,.0f} objects/s)")

            ids = client.fetch_ids("Song")
            for prefetch in (1, 100, 1000):
                reader = client.session(prefetch=prefetch)
                calls = counting(client)
                start = time.perf_counter()
                faults = [reader.object(object_id) for object_id in ids]  # no round trip yet
                total_plays = sum(song.plays for song in faults)
                seconds = time.perf_counter() - start
                connection = client._connection
                del connection.call
                assert total_plays == plays
                print(f"walk {n:,} faults, prefetch {prefetch:>5}: {len(calls):>6,} round trips, {seconds:.3f} s")

            latencies = []
            for object_id in ids[:2000]:
                start = time.perf_counter()
                client.get(object_id)
                latencies.append(time.perf_counter() - start)
            latencies.sort()
            print(f"get 1 object by ID, one at a time ({len(latencies):,} requests, {n:,}-song store): "
                  f"{len(latencies) / sum(latencies):,.0f} req/s, p50 {statistics.median(latencies) * 1000:.2f} ms, "
                  f"p99 {latencies[int(len(latencies) * 0.99)] * 1000:.2f} ms")

            writer = client.session()
            song = writer.object(ids[0])
            count = 100
            start = time.perf_counter()
            for _ in range(count):
                song.plays += 1
                writer.save()
            seconds = time.perf_counter() - start
            print(f"durable saves of one update, one at a time ({count} saves, {size / 1e6:.1f} MB store): "
                  f"{count / seconds:,.0f} saves/s")
            client.close()
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
