"""An online backup through Python, against the real server: ``client.backup`` while a thread
saves, then ``docserver restore`` gives exactly the tags the save answers up to the manifest's
``seq`` say (compared by a content hash)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
import time

import docstore

from support import RawConnection


def content_hash(tags):
    text = "\n".join("%s=%s" % pair for pair in sorted(tags.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tags_of_store(binary, store):
    export = subprocess.run([str(binary), "export", "--store", str(store)], capture_output=True, timeout=60, check=True)
    tags = {}
    for line in export.stdout.decode("utf-8").splitlines()[1:]:
        obj = json.loads(line)
        if obj["entity"] == "Tag":
            tags[obj["id"]] = obj["values"]["label"]
    return tags


def test_a_backup_taken_while_a_thread_saves_restores_what_was_answered_at_its_seq(server, docserver_binary, tmp_path):
    answers = {}          # seq -> (id, label)
    stop = threading.Event()
    failures = []

    def save_in_a_loop():
        try:
            with RawConnection(server.host, server.port) as connection:
                count = 0
                while not stop.is_set():
                    count += 1
                    label = "p-%d" % count
                    result = connection.result("save", {"insert": [{"id": "t", "entity": "Tag", "values": {"label": label}}]})
                    answers[result["seq"]] = (result["ids"]["t"], label)
        except Exception as error:  # reported by the test below
            failures.append(error)

    saver = threading.Thread(target=save_in_a_loop)
    saver.start()
    try:
        time.sleep(0.5)
        with docstore.connect(server.host, server.port, client_name="backup") as client:
            manifest = client.backup(str(tmp_path / "backup"))
        time.sleep(0.2)
    finally:
        stop.set()
        saver.join(timeout=30)
    assert not failures, failures
    seq = manifest["seq"]
    assert max(answers) > seq, "saves went on after the backup"
    assert [f["name"] for f in manifest["files"]] == ["snapshot.json", "records.journal"]
    on_disk = json.loads((tmp_path / "backup" / "manifest.json").read_text())
    assert on_disk["seq"] == seq and on_disk["files"] == manifest["files"]

    store = tmp_path / "restored" / "store.json"
    store.parent.mkdir()
    restore = subprocess.run([str(docserver_binary), "restore", "--from", str(tmp_path / "backup"), "--to", str(store)],
                             capture_output=True, timeout=60)
    assert restore.returncode == 0, restore.stderr
    expected = {tag_id: label for s, (tag_id, label) in answers.items() if s <= seq}
    assert content_hash(tags_of_store(docserver_binary, store)) == content_hash(expected)
