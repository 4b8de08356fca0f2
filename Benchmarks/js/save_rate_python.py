#!/usr/bin/env python3
"""The Python side of Benchmarks/js/save_rate.mjs: SAVES single-object saves from SESSIONS
concurrent sessions (one thread and one connection each; each save inserts one Tag and saves
it), against a running docserver. Prints one JSON line: {"saves", "sessions", "seconds",
"cpuSeconds"} (this process's CPU time during the saves).

    python3 Benchmarks/js/save_rate_python.py HOST PORT [SAVES] [SESSIONS]
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "src"))

import docstore  # noqa: E402


def main() -> int:
    host, port = sys.argv[1], int(sys.argv[2])
    saves = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
    sessions = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    clients = [docstore.connect(host, port, client_name="bench-python") for _ in range(sessions)]
    per_session = [saves // sessions + (1 if index < saves % sessions else 0) for index in range(sessions)]
    sessions_ = [client.session() for client in clients]
    barrier = threading.Barrier(sessions + 1)
    errors: "list[BaseException]" = []

    def work(index: int) -> None:
        session = sessions_[index]
        barrier.wait()
        try:
            for number in range(per_session[index]):
                session.insert("Tag", label=f"py {index} {number}")
                session.save()
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(index,)) for index in range(sessions)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    cpu_start = time.process_time()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    for client in clients:
        client.close()
    if errors:
        raise SystemExit(f"{len(errors)} sessions failed; the first: {errors[0]!r}")
    print(json.dumps({"saves": saves, "sessions": sessions, "seconds": seconds, "cpuSeconds": cpu}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
