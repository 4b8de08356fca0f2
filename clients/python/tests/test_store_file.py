"""``store_file.py`` as the Swift interoperability tests run it: a program that writes the
sample graph of Tests/JSONAtomicStoreTests/Fixtures/interop/catalog.model.json, and checks
and dumps a store file in canonical form."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, List

from store_file import SAMPLE_UUID

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
