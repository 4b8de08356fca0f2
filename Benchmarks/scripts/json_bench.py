#!/usr/bin/env python3
"""Times Python's json.load and json.dump (+ fsync) on a store file, for JSONStoreBenchmarks.

    json_bench.py load FILE          json.load of FILE; prints {"seconds": s, "peakRSS": bytes}
    json_bench.py dump FILE OUTPUT   json.load FILE, then time json.dump to OUTPUT with fsync
    json_bench.py dumps FILE OUTPUT  the same with json.dumps (one string, Python's C encoder),
                                     then one write and fsync: Python's fastest standard way

Each command runs in its own process so that peak memory is that of the command alone.
"""

import json
import os
import resource
import sys
import time


def peak_rss() -> int:
    # ru_maxrss is in kilobytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[1] == "load":
        start = time.perf_counter()
        with open(argv[2], "rb") as f:
            document = json.load(f)
        seconds = time.perf_counter() - start
        count = sum(len(objects) for objects in document["objects"].values())
        print(json.dumps({"seconds": seconds, "peakRSS": peak_rss(), "objects": count}))
        return 0
    if len(argv) >= 4 and argv[1] in ("dump", "dumps"):
        with open(argv[2], "rb") as f:
            document = json.load(f)
        start = time.perf_counter()
        with open(argv[3], "w", encoding="utf-8") as f:
            if argv[1] == "dump":
                # json.dump streams through the pure-Python encoder.
                json.dump(document, f, ensure_ascii=False, separators=(",", ":"))
            else:
                f.write(json.dumps(document, ensure_ascii=False, separators=(",", ":")))
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        seconds = time.perf_counter() - start
        print(json.dumps({"seconds": seconds, "bytes": os.path.getsize(argv[3])}))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
