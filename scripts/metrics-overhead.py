#!/usr/bin/env python3
"""A rough A/B of the metrics' cost: the same docserver binary without and with --http-port
(swift-metrics' no-op handlers vs swift-prometheus'), pipelined one-object gets (best of 5
rounds of 20,000) and 300 sequential durable saves, twice each, alternated.

Usage: scripts/metrics-overhead.py PATH/TO/docserver
Not the release ServerBenchmarks: a quick look on any build (debug builds exaggerate it).
"""
import socket, subprocess, sys, time, json, os, tempfile
binary = sys.argv[1]
def run(extra, rounds=5, n=20000):
    d = tempfile.mkdtemp()
    p = subprocess.Popen([binary, "serve", "--port", "0", "--store", d + "/s.json", "--log-level", "warning"] + extra,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    port = int(p.stdout.readline().decode().rsplit(":", 1)[1])
    s = socket.create_connection(("127.0.0.1", port)); f = s.makefile("rwb")
    f.write(b'{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"a","entity":"Tag","values":{"label":"x"}}]}}\n'); f.flush()
    oid = json.loads(f.readline())["result"]["ids"]["a"]
    line = ('{"jsonrpc":"2.0","id":2,"method":"get","params":{"ids":["%s"]}}\n' % oid).encode()
    best = []
    for r in range(rounds):
        t = time.perf_counter()
        for chunk in range(n // 500):
            s.sendall(line * 500)
            got = 0
            while got < 500:
                got += 1; f.readline()
        best.append(n / (time.perf_counter() - t))
        # saves: 300 sequential durable saves
    t = time.perf_counter()
    for i in range(300):
        f.write(b'{"jsonrpc":"2.0","id":3,"method":"save","params":{"insert":[{"id":"a","entity":"Tag","values":{"label":"y"}}]}}\n'); f.flush(); f.readline()
    saves = 300 / (time.perf_counter() - t)
    p.terminate(); p.wait()
    return max(best), saves
for i in range(2):
    off = run([]); on = run(["--http-port", "0"])
    print("off get/s %.0f saves/s %.0f | on get/s %.0f saves/s %.0f" % (off[0], off[1], on[0], on[1]), flush=True)
