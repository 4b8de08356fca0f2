"""The crash test of the storage engine: the server SIGKILLed at random moments while 16
clients insert and update objects concurrently. After every kill the restarted server must
hold every acknowledged save with its acknowledged version and values, nothing half-applied,
and the store's directory must hold no leftover files.

``DOCSTORE_CRASH_KILLS`` sets the number of kills (default 8, which keeps the suite quick;
the engine's figure is measured with 1000). ``DOCSTORE_CRASH_SEED`` fixes the random moments.
A small ``--journal-checkpoint-bytes`` makes checkpoints frequent, so kills land in them too.
"""

from __future__ import annotations

import os
import random
import threading
import time
from typing import Dict, List, Tuple

import pytest

import docstore

KILLS = int(os.environ.get("DOCSTORE_CRASH_KILLS", "8"))
SEED = int(os.environ.get("DOCSTORE_CRASH_SEED", str(random.SystemRandom().randrange(1 << 30))))
CLIENTS = 16
# What a store directory may hold after a restart: the snapshot, its journal, its lock, and the
# history file its checkpoints keep (docs/FILE_FORMAT.md, The history file).
ALLOWED_FILES = {"store.json", "store.json-journal", "store.json.lock", "store.json-history"}


class Ledger:
    """What the clients were told: object URI -> (version, plays) of its last acknowledged save."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.acknowledged: Dict[str, Tuple[int, int]] = {}
        self.saves = 0

    def record(self, uri: str, version: int, plays: int) -> None:
        with self.lock:
            self.acknowledged[uri] = (version, plays)
            self.saves += 1


def run_client(host: str, port: int, name: str, ledger: Ledger, owned: List[str], stop: threading.Event,
               rng: random.Random) -> None:
    """Saves until the connection dies: inserts a Song, or updates one of its own Songs with
    ``plays`` = the version the update makes, so that values and versions can be checked together."""
    try:
        client = docstore.connect(host, port, timeout=10, client_name=name)
    except (docstore.ConnectionError, OSError):
        return
    n = 0
    with client:
        while not stop.is_set():
            n += 1
            try:
                if owned and rng.random() < 0.7:
                    uri = rng.choice(owned)
                    version, _ = ledger.acknowledged[uri]
                    result = client.call("save", {"update": [
                        {"id": uri, "version": version, "values": {"plays": version + 1}}]})
                    new_version = result["versions"][uri]
                    ledger.record(uri, new_version, version + 1)
                else:
                    result = client.call("save", {"insert": [
                        {"id": "t", "entity": "Song", "values": {"title": "%s-%d" % (name, n), "plays": 1}}]})
                    uri = result["ids"]["t"]
                    ledger.record(uri, result["versions"][uri], 1)
                    owned.append(uri)
            except (docstore.ConnectionError, OSError):
                return  # the server died: this save may or may not have been made durable


def check_store(server, ledger: Ledger, in_flight: Dict[str, int]) -> None:
    """Every acknowledged save is there with its version and values; an object may be one
    version ahead only when its client had a save in flight at the kill."""
    uris = sorted(ledger.acknowledged)
    with docstore.connect(server.host, server.port, timeout=30) as client:
        for start in range(0, len(uris), 200):
            batch = uris[start:start + 200]
            objects = client.call("get", {"ids": batch})["objects"]
            for uri, found in zip(batch, objects):
                version, plays = ledger.acknowledged[uri]
                assert found is not None, "acknowledged object %s is missing (seed %d)" % (uri, SEED)
                assert found["values"]["plays"] == found["version"], (
                    "object %s is half-applied: version %d with plays %r (seed %d)"
                    % (uri, found["version"], found["values"]["plays"], SEED))
                assert found["version"] in (version, version + 1), (
                    "object %s is at version %d, acknowledged %d (seed %d)" % (uri, found["version"], version, SEED))
                if found["version"] == version + 1:
                    in_flight[uri] = found["version"]
                    ledger.acknowledged[uri] = (found["version"], found["values"]["plays"])
                else:
                    assert found["values"]["plays"] == plays


@pytest.mark.deadline(0 if KILLS > 50 else 300)
def test_sigkill_at_random_moments_under_16_saving_clients_keeps_exactly_the_acknowledged_saves(start_server):
    rng = random.Random(SEED)
    server = start_server(extra_args=["--journal-checkpoint-bytes", "65536"])
    directory = server.store_path.parent
    ledger = Ledger()
    owned: List[List[str]] = [[] for _ in range(CLIENTS)]
    in_flight: Dict[str, int] = {}
    for kill in range(KILLS):
        stop = threading.Event()
        threads = [
            threading.Thread(target=run_client,
                             args=(server.host, server.port, "c%d" % i, ledger, owned[i], stop, random.Random(rng.random())))
            for i in range(CLIENTS)
        ]
        for thread in threads:
            thread.start()
        time.sleep(rng.uniform(0.05, 0.4))
        server.kill()
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
            assert not thread.is_alive(), "a client did not notice the killed server"
        server.start()
        leftovers = {entry.name for entry in directory.iterdir()} - ALLOWED_FILES
        assert not leftovers, "files left after kill %d: %s (seed %d)" % (kill, sorted(leftovers), SEED)
        check_store(server, ledger, in_flight)
    assert ledger.saves > KILLS, "too few saves were acknowledged to mean anything (seed %d)" % SEED
    print("crash test: %d kills, %d acknowledged saves, %d objects, %d saves in flight found applied (seed %d)"
          % (KILLS, ledger.saves, len(ledger.acknowledged), len(in_flight), SEED))
