"""``docserver backup`` while 50 clients save at full speed, and ``docserver restore`` to its
``seq``, to 20 random commits and to points in time, against the real binary (docs/OPERATIONS.md,
Backup and restore).

What a restored store must hold comes from the clients' answers only (``operations_load.Replay``):
every acknowledged save's ``seq`` and answer, replayed. The replay is itself checked against the
server: after the load, every object the server serves (``fetch``) is what the replay of all the
answers gives. The restores are compared with it object by object (ID, entity, version and every
value) through a content hash.

The load and the backup run once for the module (``loaded``); each test restores from it.
``OPERATIONS_SEED`` chooses the random commits and times (printed on a failure).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from operations_load import Replay, SaveLoad, content_hash, difference, objects_of_store, objects_served
from support import RawConnection, ServerProcess

CLIENTS = 50
SEED = int(os.environ.get("OPERATIONS_SEED", "43"))
RESTORED = re.compile(r"restored at commit (\d+), (\d+) objects")


class Loaded:
    """The outcome of the load: the backup's directory and manifest, and the replay."""

    def __init__(self, binary: Path, directory: Path, manifest: Dict[str, Any], replay: Replay, load_window: Tuple[float, float]) -> None:
        self.binary = binary
        self.directory = directory
        self.manifest = manifest
        self.replay = replay
        self.load_window = load_window
        self._count = 0
        self._work = directory.parent

    def restore(self, *options: str) -> Tuple[subprocess.CompletedProcess, Path]:
        """``docserver restore --from BACKUP --to NEW [options]``: the finished process and NEW."""
        self._count += 1
        store = self._work / ("restored-%d" % self._count) / "store.json"
        store.parent.mkdir()
        process = subprocess.run([str(self.binary), "restore", "--from", str(self.directory), "--to", str(store), *options],
                                 capture_output=True, timeout=120, text=True)
        return process, store


#: The journal is cut (a checkpoint) past this many bytes; a record is about 300 bytes.
CHECKPOINT_BYTES = 120_000


def wait_for_a_checkpoint_and_commits_after_it(connection: RawConnection, load: SaveLoad, seconds: float) -> Dict[str, Any]:
    """Waits until the store has checkpointed at least once and holds a quarter of a checkpoint's
    journal after it (about 100 commits): the backup's base is then a late commit, with enough
    commits after it for the random restores. Returns the store's `stats` then."""
    deadline = time.time() + seconds
    while True:
        store = connection.result("stats")["store"]
        if store["checkpoints"] >= 1 and store["journalBytes"] >= CHECKPOINT_BYTES // 4:
            return store
        assert time.time() < deadline, "no checkpoint and commits after it within %.0f s: %r (%d saves)" % (seconds, store, load.saves)
        assert not load.failures, load.failures[:3]
        time.sleep(0.05)


@pytest.fixture(scope="module")
def loaded(docserver_binary: Path, tmp_path_factory: Any) -> Iterator[Loaded]:
    work = tmp_path_factory.mktemp("backup-under-load")
    # Small checkpoints: the snapshot is replaced and the journal cut while the clients save,
    # so that the backup's base is a late commit, not the empty store.
    server = ServerProcess(docserver_binary, work / "store.json", log_path=work / "server.log",
                           extra_args=("--journal-checkpoint-bytes", str(CHECKPOINT_BYTES)))
    try:
        load = SaveLoad(server.host, server.port, CLIENTS).start()
        started = time.time()
        with RawConnection(server.host, server.port, timeout=60) as watcher:
            wait_for_a_checkpoint_and_commits_after_it(watcher, load, 240)
        backup_directory = work / "backup"
        backup_started = time.time()
        backup = subprocess.run([str(docserver_binary), "backup", "--server", "%s:%d" % (server.host, server.port),
                                 "--to", str(backup_directory)], capture_output=True, timeout=120, text=True)
        backup_ended = time.time()
        assert backup.returncode == 0, backup.stderr
        manifest = json.loads((backup_directory / "manifest.json").read_text())
        # Saves go on after the backup: wait for answers of commits past its seq.
        deadline = time.time() + 60
        while not any(record.seq > manifest["seq"] + CLIENTS for record in list(load.records)) and time.time() < deadline:
            time.sleep(0.05)
        load.stop()
        ended = time.time()
        assert not load.failures, load.failures[:3]
        overlapping = [r for r in load.records if r.sent < backup_ended and r.answered > backup_started]
        assert len(overlapping) >= CLIENTS // 2, "the backup did not run while clients saved: %d saves overlap it" % len(overlapping)
        replay = Replay(load.records)
        assert replay.sequences[-1] > manifest["seq"], "saves went on after the backup"
        # The replay is what the server served: every object it serves now is the replay of all answers.
        with RawConnection(server.host, server.port, timeout=60) as connection:
            last, served = objects_served(connection)
        assert last == replay.sequences[-1]
        everything = replay.objects(last)
        assert content_hash(served) == content_hash(everything), difference(served, everything)
    finally:
        server.stop()
    print("load: %d saves by %d clients in %.1f s, commits 1 to %d; backup in %.2f s at %d, base %d"
          % (len(load.records), CLIENTS, ended - started, replay.sequences[-1], backup_ended - backup_started,
             manifest["seq"], manifest["baseSeq"]))
    yield Loaded(docserver_binary, backup_directory, manifest, replay, (started, ended))


@pytest.mark.deadline(600)
def test_a_backup_taken_while_50_clients_save_restores_to_exactly_the_objects_served_at_its_seq(loaded: Loaded) -> None:
    seq, base = loaded.manifest["seq"], loaded.manifest["baseSeq"]
    assert 0 < base < seq < loaded.replay.sequences[-1], "a checkpoint ran before the backup and saves went on after it"
    assert [entry["name"] for entry in loaded.manifest["files"]] == ["snapshot.json", "records.journal"]
    process, store = loaded.restore()
    assert process.returncode == 0, process.stderr
    assert RESTORED.search(process.stdout).group(1) == str(seq), process.stdout
    found, expected = objects_of_store(loaded.binary, store), loaded.replay.objects(seq)
    assert content_hash(found) == content_hash(expected), difference(found, expected)


@pytest.mark.deadline(600)
def test_restores_to_20_random_commits_equal_a_replay_of_the_answers(loaded: Loaded) -> None:
    seq, base = loaded.manifest["seq"], loaded.manifest["baseSeq"]
    chosen = random.Random(SEED).sample(range(base, seq + 1), min(20, seq - base + 1))
    assert len(chosen) == 20, "the backup reaches fewer than 20 commits: %d to %d" % (base, seq)
    for target in chosen:
        process, store = loaded.restore("--to-seq", str(target))
        assert process.returncode == 0, "seed %d, commit %d: %s" % (SEED, target, process.stderr)
        assert RESTORED.search(process.stdout).group(1) == str(target), process.stdout
        found, expected = objects_of_store(loaded.binary, store), loaded.replay.objects(target)
        assert content_hash(found) == content_hash(expected), "seed %d, commit %d: %s" % (SEED, target, difference(found, expected))


@pytest.mark.deadline(600)
def test_a_commit_the_backup_cannot_reach_is_refused_naming_the_oldest_and_newest_it_can(loaded: Loaded) -> None:
    seq, base = loaded.manifest["seq"], loaded.manifest["baseSeq"]
    reach = "this backup reaches commits %d (%s) to %d (%s)" % (base, loaded.manifest["baseTime"], seq, loaded.manifest["newestTime"])
    for beyond in (base - 1, 0, seq + 1):
        process, store = loaded.restore("--to-seq", str(beyond))
        assert process.returncode == 2, process.stderr
        assert process.stderr == "cannot restore: %s: cannot restore commit %d: %s\n" % (
            loaded.directory / "manifest.json", beyond, reach), process.stderr
        assert not store.exists()
    # A time before the base's commit: no commit of the backup was made at or before it.
    process, store = loaded.restore("--to-time", "2000-01-01T00:00:00Z")
    assert process.returncode == 2, process.stderr
    assert process.stderr == "cannot restore: %s: cannot restore to 2000-01-01T00:00:00.000Z: no commit of the backup " \
        "was made at or before it; %s\n" % (loaded.directory / "manifest.json", reach), process.stderr
    assert not store.exists()


def iso_milliseconds(moment: float) -> Tuple[str, float]:
    """``moment`` cut to whole milliseconds, as ISO 8601 text, and as seconds."""
    whole = int(moment * 1000) / 1000
    text = datetime.fromtimestamp(whole, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return text, whole


@pytest.mark.deadline(600)
def test_a_restore_to_a_time_under_load_holds_every_save_answered_before_it_and_none_sent_after(loaded: Loaded) -> None:
    # The commit times a record holds are the server's clock, the one this test reads: a save
    # answered at or before T was committed at or before it; one sent after T, after it.
    base_time = datetime.fromisoformat(loaded.manifest["baseTime"].replace("Z", "+00:00")).timestamp()
    newest_time = datetime.fromisoformat(loaded.manifest["newestTime"].replace("Z", "+00:00")).timestamp()
    assert base_time < newest_time
    chooser = random.Random(SEED + 1)
    for _ in range(8):
        text, moment = iso_milliseconds(chooser.uniform(base_time, newest_time))
        process, store = loaded.restore("--to-time", text)
        assert process.returncode == 0, "seed %d, %s: %s" % (SEED, text, process.stderr)
        restored = int(RESTORED.search(process.stdout).group(1))
        early = [r.seq for r in loaded.replay.records if r.answered <= moment and r.seq > restored]
        late = [r.seq for r in loaded.replay.records if r.sent >= moment + 0.001 and r.seq <= restored]
        assert not early, "seed %d, %s restored commit %d; saves answered before it: %s" % (SEED, text, restored, early[:5])
        assert not late, "seed %d, %s restored commit %d; saves sent after it: %s" % (SEED, text, restored, late[:5])
        found, expected = objects_of_store(loaded.binary, store), loaded.replay.objects(restored)
        assert content_hash(found) == content_hash(expected), "%s: %s" % (text, difference(found, expected))


@pytest.mark.deadline(120)
def test_a_restore_to_a_time_between_two_saves_holds_the_first_and_not_the_second(start_server: Any, docserver_binary: Path, tmp_path: Path) -> None:
    server = start_server()
    times: List[str] = []
    labels = ["first", "second", "third"]
    with RawConnection(server.host, server.port) as connection:
        for label in labels:
            connection.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": label}}]})
            time.sleep(0.15)
            times.append(iso_milliseconds(time.time())[0])
            time.sleep(0.15)
        connection.result("backup", {"to": str(tmp_path / "backup")})
    for count, moment in enumerate(times, start=1):
        for spelling in (moment, moment.replace("Z", "+00:00")):
            store = tmp_path / ("at-%d-%d.json" % (count, len(spelling)))
            process = subprocess.run([str(docserver_binary), "restore", "--from", str(tmp_path / "backup"), "--to", str(store),
                                      "--to-time", spelling], capture_output=True, timeout=60, text=True)
            assert process.returncode == 0, process.stderr
            assert "restored at commit %d, %d objects" % (count, count) in process.stdout, process.stdout
            found = objects_of_store(docserver_binary, store)
            assert sorted(obj["values"]["label"] for obj in found.values()) == sorted(labels[:count])
    refused = subprocess.run([str(docserver_binary), "restore", "--from", str(tmp_path / "backup"), "--to", str(tmp_path / "no.json"),
                              "--to-time", "yesterday"], capture_output=True, timeout=60, text=True)
    assert refused.returncode != 0 and "--to-time must be an ISO 8601 date and time" in refused.stderr, refused.stderr
