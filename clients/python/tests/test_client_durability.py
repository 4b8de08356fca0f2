"""Durability as a Python program sees it: the server killed with SIGKILL while clients save
leaves a store file that Python's json reads and that holds every save the clients were
told succeeded; the restarted server serves exactly that."""

from __future__ import annotations

import threading
import time

import docstore
from store_file import read_live_store


def test_kill_9_during_saves_keeps_every_acknowledged_save(start_server):
    server = start_server()
    acknowledged = []
    stop = threading.Event()

    def writer(name):
        client = docstore.connect(server.host, server.port, timeout=10)
        n = 0
        while not stop.is_set():
            s = client.session()
            s.insert("Tag", label=f"{name}-{n}")
            try:
                s.save()
            except docstore.ConnectionError:
                return  # this save may or may not be in the file; the ones before it are
            acknowledged.append(f"{name}-{n}")
            n += 1

    threads = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 20
    while len(acknowledged) < 40 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()
    stop.set()
    for thread in threads:
        thread.join(timeout=15)
    assert len(acknowledged) >= 40

    document = read_live_store(server.store_path)  # the snapshot and the journal's whole records
    labels = {tag["values"]["label"] for tag in document["objects"].get("Tag", [])}
    assert set(acknowledged) <= labels
    assert len(labels) <= len(acknowledged) + len(threads)  # at most one unacknowledged save per client

    server.start()
    with docstore.connect(server.host, server.port) as client:
        assert {tag.label for tag in client.fetch("Tag")} == labels
