"""``store_file.py`` as the Swift interoperability tests run it: a program that writes the
sample graph of Tests/JSONAtomicStoreTests/Fixtures/interop/catalog.model.json, and checks
and dumps a store file in canonical form."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, List

from store_file import SAMPLE_UUID, read_journal

TESTS = Path(__file__).resolve().parent
SCRIPT = TESTS / "store_file.py"
MODEL = TESTS.parents[2] / "Tests" / "JSONAtomicStoreTests" / "Fixtures" / "interop" / "catalog.model.json"


def run(*arguments: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=60)


def test_the_sample_written_by_the_program_dumps_as_the_sample(tmp_path: Path) -> None:
    store = tmp_path / "catalog.json"
    assert run("write-sample", str(MODEL), str(store)).returncode == 0
    dumped, sample = run("dump", str(MODEL), str(store)), run("sample", str(MODEL))
    assert dumped.returncode == 0, dumped.stderr
    assert json.loads(dumped.stdout) == json.loads(sample.stdout)
    assert json.loads(sample.stdout)["Book"]["3"]["rating"] == "nan"


def test_dump_refuses_a_file_whose_relationship_sides_disagree(tmp_path: Path) -> None:
    store = tmp_path / "catalog.json"
    assert run("write-sample", str(MODEL), str(store)).returncode == 0
    document = json.loads(store.read_text(encoding="utf-8"))
    chapter = next(o for o in document["objects"]["Chapter"] if o["ref"] == 4)
    chapter["values"]["book"] = None
    store.write_text(json.dumps(document), encoding="utf-8")
    dumped = run("dump", str(MODEL), str(store))
    assert dumped.returncode == 1
    assert "Book 2, property 'chapters': Chapter 4 does not point back" in dumped.stderr


def test_the_sample_written_by_the_program_is_served_by_docserver(start_server: Any, tmp_path: Path) -> None:
    store = tmp_path / "catalog.json"
    assert run("write-sample", str(MODEL), str(store)).returncode == 0
    server = start_server(store, model=MODEL)
    with server.connect() as c:
        assert c.result("hello")["storeUUID"] == SAMPLE_UUID
        counts: List[int] = [c.result("fetch", {"entity": entity, "resultType": "count"})["count"]
                             for entity in ("Author", "Book", "Chapter", "Magazine", "Tag", "Item")]
        assert counts == [2, 3, 2, 1, 2, 4]


def test_a_live_store_with_a_journal_reads_in_python_as_the_server_serves_it(start_server: Any, tmp_path: Path) -> None:
    """The server's saves go to the journal (docs/FILE_FORMAT.md, "The journal"); the snapshot
    plus the journal, read while the server runs, hold what the server serves."""
    store = tmp_path / "catalog.json"
    assert run("write-sample", str(MODEL), str(store)).returncode == 0
    snapshot = store.read_bytes()
    server = start_server(store, model=MODEL)
    with server.connect() as c:
        c.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": "live"}}]})
        (tag,) = c.result("fetch", {"entity": "Tag", "predicate": "label == %@", "arguments": ["sf"]})["objects"]
        c.result("save", {"update": [{"id": tag["id"], "version": tag["version"], "values": {"label": "science fiction"}}]})
        (chapter,) = c.result("fetch", {"entity": "Chapter", "predicate": "title == %@", "arguments": ["Anarres"]})["objects"]
        c.result("save", {"delete": [{"id": chapter["id"], "version": chapter["version"]}]})
        served = {entity: c.result("fetch", {"entity": entity, "resultType": "count"})["count"]
                  for entity in ("Author", "Book", "Chapter", "Magazine", "Tag")}
        assert store.read_bytes() == snapshot, "a save appends to the journal, the snapshot stays"
        journal = (tmp_path / "catalog.json-journal").read_bytes()
        records, torn, version = read_journal(journal)
        assert journal.endswith(b"\n") and torn == 0 and version == 2
        assert [record["seq"] for _, record in records] == [1, 2, 3]
        dumped = run("dump", str(MODEL), str(store))
        assert dumped.returncode == 0, dumped.stderr
        graph = json.loads(dumped.stdout)
    assert {entity: len(graph.get(entity, {})) for entity in served} == served
    labels = sorted(values["label"] for values in graph["Tag"].values())
    assert labels == ["classic", "live", "science fiction"]
    assert all(values["title"] != "Anarres" for values in graph["Chapter"].values())
    assert graph["Book"]["2"]["chapters"] == [5], "the book lost its deleted chapter (4) by the inverse"
