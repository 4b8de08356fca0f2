"""``docserver import`` parses every object ID of its input from the bytes (no cache of IDs by
their text since the import's speed-up, docs/OPERATIONS.md, Measured figures): the edges of that
parse, against the real binary. A reference is 1 to 2⁶³−1 in decimal digits (leading zeros
allowed), of the header's store, naming a concrete entity; every other spelling is reported with
its line, and nothing is written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import List

STORE = "9d5f4b8e-3a2c-4f1e-9b7d-6c5a4e3f2d1c"
MAX = "9223372036854775807"


def artist(reference: str, name: str = "x") -> str:
    return json.dumps({"id": "graph://%s/Artist/%s" % (STORE, reference), "entity": "Artist", "version": 1, "values": {"name": name}})


def run_import(binary: Path, tmp_path: Path, lines: List[str], store: str) -> subprocess.CompletedProcess:
    source = tmp_path / (store + ".ndjson")
    source.write_text("\n".join(lines) + "\n")
    return subprocess.run([str(binary), "import", "--quiet", "--store", str(tmp_path / (store + ".json")), "--from", str(source)],
                          capture_output=True, text=True, timeout=60)


def sample_header(binary: Path, tmp_path: Path) -> str:
    """The header of an export of a new sample-model store, its store UUID replaced by STORE."""
    store = tmp_path / "seed.json"
    process = subprocess.Popen([str(binary), "serve", "--port", "0", "--store", str(store), "--log-level", "warning"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        process.stdout.readline()
    finally:
        process.terminate()
        process.wait(timeout=30)
    export = subprocess.run([str(binary), "export", "--store", str(store)], capture_output=True, text=True, timeout=60)
    assert export.returncode == 0, export.stderr
    fields = json.loads(export.stdout.splitlines()[0])
    fields["storeUUID"] = STORE
    return json.dumps(fields)


def test_import_takes_references_from_1_to_2_63_minus_1_with_leading_zeros(docserver_binary: Path, tmp_path: Path) -> None:
    head = sample_header(docserver_binary, tmp_path)
    process = run_import(docserver_binary, tmp_path, [head, artist("1"), artist("007"), artist(MAX)], "good")
    assert process.returncode == 0, process.stderr
    export = subprocess.run([str(docserver_binary), "export", "--store", str(tmp_path / "good.json")], capture_output=True, text=True)
    ids = sorted(json.loads(line)["id"] for line in export.stdout.splitlines()[1:])
    assert ids == sorted("graph://%s/Artist/%s" % (STORE, ref) for ref in ("1", "7", MAX))


def test_import_reports_every_id_it_cannot_parse_with_its_line_and_writes_nothing(docserver_binary: Path, tmp_path: Path) -> None:
    head = sample_header(docserver_binary, tmp_path)
    bad = ["0", "99999999999999999999", "9223372036854775808", "5x", "", "-1"]
    lines = [head] + [artist(reference) for reference in bad]
    lines.append(json.dumps({"id": "graph://%s/Nope/5" % STORE, "entity": "Artist", "version": 1, "values": {"name": "n"}}))
    lines.append(json.dumps({"id": "graph://other-store/Artist/5", "entity": "Artist", "version": 1, "values": {"name": "o"}}))
    lines.append(json.dumps({"id": "graph://%s/Artist" % STORE, "entity": "Artist", "version": 1, "values": {"name": "s"}}))
    lines.append(json.dumps({"id": "graph://%s/Album/8" % STORE, "entity": "Album", "version": 1,
                             "values": {"title": "t", "artist": "graph://%s/Song/1" % STORE}}))
    process = run_import(docserver_binary, tmp_path, lines, "bad")
    assert process.returncode == 1, process.stderr
    shape = "is not an object ID graph://%s/<Entity>/<reference from 1 to %s>" % (STORE, MAX)
    expected = ["bad.ndjson: line %d: graph://%s/Artist/%s %s" % (index + 2, STORE, reference, shape) for index, reference in enumerate(bad)]
    expected += [
        "bad.ndjson: line 8: the ID graph://%s/Nope/5 names Nope, which is not a concrete entity of the model" % STORE,
        "bad.ndjson: line 9: the ID graph://other-store/Artist/5 is not of the exported store %s (the header's storeUUID)" % STORE,
        "bad.ndjson: line 10: graph://%s/Artist %s" % (STORE, shape),
        "bad.ndjson: line 11: property \"artist\": graph://%s/Song/1 is an Song, expected Artist" % STORE,
        "nothing imported: 10 bad line(s); %s is unchanged" % (tmp_path / "bad.json"),
    ]
    reported = [line.replace(str(tmp_path) + "/", "") if line.startswith(str(tmp_path)) else line for line in process.stderr.splitlines()]
    assert reported == expected, process.stderr
    assert not (tmp_path / "bad.json").exists()
