"""A save load for the operations tests, and an independent replay of what it was answered.

``SaveLoad`` runs many clients, each on its own connection, saving at full speed on objects of its
own (an Artist and its Albums: inserts, title and country updates, deletes, so that inverse
relationships change too). Every acknowledged save is recorded with its ``seq``, the wall-clock
times it was sent and answered, what it asked for and what it was answered.

``Replay`` rebuilds, from those records alone, every object as the server must serve it after
any commit: its ID, entity, version and every value. It never reads the store, the journal or a
backup, so comparing a restored store with it checks backup and restore against the answers the
clients got, not against the code that wrote the files.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from support import RawConnection

#: An object as the replay and the canonical form hold it: entity, version, values.
Object = Dict[str, Any]


class SaveRecord:
    """One acknowledged save: what was asked, what was answered, and when."""

    __slots__ = ("seq", "sent", "answered", "kind", "target", "value", "answer")

    def __init__(self, seq: int, sent: float, answered: float, kind: str, target: str, value: Any, answer: Dict[str, Any]) -> None:
        self.seq = seq
        self.sent = sent          # time.time() just before the request was sent
        self.answered = answered  # time.time() just after its answer was read
        self.kind = kind          # "artist", "album", "title", "country" or "delete"
        self.target = target      # the temporary ID of an insert, else the ID changed
        self.value = value
        self.answer = answer


class SaveLoad:
    """``clients`` threads saving on ``host:port`` until :meth:`stop`."""

    def __init__(self, host: str, port: int, clients: int) -> None:
        self.host = host
        self.port = port
        self.clients = clients
        self.records: List[SaveRecord] = []
        self.failures: List[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(index,), daemon=True) for index in range(clients)]

    def start(self) -> "SaveLoad":
        for thread in self._threads:
            thread.start()
        return self

    def stop(self, timeout: float = 60) -> None:
        """Stops the clients after their save in flight is answered."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=timeout)
        alive = sum(thread.is_alive() for thread in self._threads)
        if alive:
            self.failures.append("%d clients did not stop within %.0f s" % (alive, timeout))

    @property
    def saves(self) -> int:
        with self._lock:
            return len(self.records)

    def _run(self, index: int) -> None:
        try:
            with RawConnection(self.host, self.port, timeout=60) as connection:
                self._save_until_stopped(connection, index)
        except Exception as error:  # reported by the test through `failures`
            with self._lock:
                self.failures.append("client %d: %r" % (index, error))

    def _save(self, connection: RawConnection, kind: str, target: str, value: Any, params: Dict[str, Any]) -> Dict[str, Any]:
        sent = time.time()
        answer = connection.result("save", params)
        answered = time.time()
        with self._lock:
            self.records.append(SaveRecord(answer["seq"], sent, answered, kind, target, value, answer))
        return answer

    def _save_until_stopped(self, connection: RawConnection, index: int) -> None:
        name = "artist %d" % index
        answer = self._save(connection, "artist", "a", name,
                            {"insert": [{"id": "a", "entity": "Artist", "values": {"name": name}}]})
        artist = answer["ids"]["a"]
        versions = dict(answer["versions"])
        albums: List[str] = []
        count = 0
        while not self._stop.is_set():
            count += 1
            step = count % 8
            if step == 3 and albums:
                album = albums[-1]
                title = "retitled %d-%d" % (index, count)
                answer = self._save(connection, "title", album, title,
                                    {"update": [{"id": album, "version": versions[album], "values": {"title": title}}]})
            elif step == 5 and len(albums) > 1:
                album = albums.pop(0)
                answer = self._save(connection, "delete", album, artist,
                                    {"delete": [{"id": album, "version": versions.pop(album)}]})
            elif step == 7:
                country = "C%d" % count
                answer = self._save(connection, "country", artist, country,
                                    {"update": [{"id": artist, "version": versions[artist], "values": {"country": country}}]})
            else:
                title = "album %d-%d" % (index, count)
                answer = self._save(connection, "album", "b", (title, artist),
                                    {"insert": [{"id": "b", "entity": "Album", "values": {"title": title, "artist": artist}}]})
                albums.append(answer["ids"]["b"])
            versions.update(answer["versions"])


class ReplayError(AssertionError):
    """The answers contradict each other (a version that did not go up by one, say)."""


class Replay:
    """The objects after each commit, rebuilt from the recorded answers only."""

    def __init__(self, records: List[SaveRecord]) -> None:
        # Saves of one group commit share a seq; they touch different clients' objects.
        self.records = sorted(records, key=lambda record: record.seq)
        self.sequences = sorted({record.seq for record in self.records})

    def objects(self, through: int) -> Dict[str, Object]:
        """Every object (by ID) after commit ``through``."""
        objects: Dict[str, Object] = {}
        for record in self.records:
            if record.seq > through:
                break
            self._apply(objects, record)
        return objects

    @staticmethod
    def _apply(objects: Dict[str, Object], record: SaveRecord) -> None:
        answer = record.answer
        before = {key: objects[key]["version"] for key in answer["versions"] if key in objects}
        if record.kind == "artist":
            objects[answer["ids"][record.target]] = {
                "entity": "Artist", "version": 0, "values": {"name": record.value, "country": None, "albums": []}}
        elif record.kind == "album":
            title, artist = record.value
            album = answer["ids"][record.target]
            objects[album] = {"entity": "Album", "version": 0, "values": {
                "title": title, "released": None, "price": None, "cover": None, "artist": artist, "songs": []}}
            objects[artist]["values"]["albums"].append(album)
        elif record.kind == "title":
            objects[record.target]["values"]["title"] = record.value
        elif record.kind == "country":
            objects[record.target]["values"]["country"] = record.value
        elif record.kind == "delete":
            del objects[record.target]
            objects[record.value]["values"]["albums"].remove(record.target)
        for key in answer.get("deleted", []):
            objects.pop(key, None)
        for key, version in answer["versions"].items():
            if key in before and version != before[key] + 1:
                raise ReplayError("seq %d: %s went from version %d to %d" % (record.seq, key, before[key], version))
            objects[key]["version"] = version


def canonical(objects: Dict[str, Object]) -> Dict[str, str]:
    """Each object's canonical text (ID → sorted-keys JSON of entity, version, values; to-many sorted)."""
    texts = {}
    for key, obj in objects.items():
        values = {name: sorted(value) if isinstance(value, list) else value for name, value in obj["values"].items()}
        texts[key] = json.dumps({"entity": obj["entity"], "version": obj["version"], "values": values}, sort_keys=True)
    return texts


def content_hash(objects: Dict[str, Object]) -> str:
    """A SHA-256 over every object's ID and canonical text, in ID order."""
    digest = hashlib.sha256()
    for key, text in sorted(canonical(objects).items()):
        digest.update(key.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\n")
    return digest.hexdigest()


def difference(found: Dict[str, Object], expected: Dict[str, Object], limit: int = 3) -> str:
    """What differs between two sets of objects, briefly, for a failure message."""
    left, right = canonical(found), canonical(expected)
    missing = sorted(set(right) - set(left))
    extra = sorted(set(left) - set(right))
    changed = sorted(key for key in set(left) & set(right) if left[key] != right[key])
    parts = ["%d objects found, %d expected" % (len(left), len(right))]
    if missing:
        parts.append("missing %d, e.g. %s" % (len(missing), [(key, right[key]) for key in missing[:limit]]))
    if extra:
        parts.append("unexpected %d, e.g. %s" % (len(extra), [(key, left[key]) for key in extra[:limit]]))
    if changed:
        parts.append("different %d, e.g. %s" % (len(changed), [(key, left[key], right[key]) for key in changed[:limit]]))
    return "; ".join(parts)


def objects_of_export(lines: List[str]) -> Tuple[Dict[str, Any], Dict[str, Object]]:
    """The header and the objects (by ID) of ``docserver export`` output lines."""
    header = json.loads(lines[0])
    objects = {}
    for line in lines[1:]:
        if line.strip():
            obj = json.loads(line)
            objects[obj["id"]] = {"entity": obj["entity"], "version": obj["version"], "values": obj["values"]}
    return header, objects


def objects_of_store(binary: Path, store: Path) -> Dict[str, Object]:
    """Every object of a store file, read with ``docserver export``."""
    export = subprocess.run([str(binary), "export", "--store", str(store)], capture_output=True, timeout=120)
    if export.returncode != 0:
        raise AssertionError("export of %s failed: %s" % (store, export.stderr.decode("utf-8", "replace")))
    return objects_of_export(export.stdout.decode("utf-8").splitlines())[1]


def objects_served(connection: RawConnection, entities: Tuple[str, ...] = ("Artist", "Album"), page: int = 2000) -> Tuple[int, Dict[str, Object]]:
    """The server's last commit and every object of ``entities`` as it serves them, fetched in
    pages: call it when nothing saves any more."""
    seq: Optional[int] = connection.result("hello", {"client": "operations test"})["seq"]
    objects: Dict[str, Object] = {}
    for entity in entities:
        offset = 0
        while True:
            found = connection.result("fetch", {"entity": entity, "limit": page, "offset": offset})["objects"]
            for obj in found:
                objects[obj["id"]] = {"entity": obj["entity"], "version": obj["version"], "values": obj["values"]}
            if len(found) < page:
                break
            offset += page
    return seq, objects
