"""The reference reader of journal records (store_file.read_journal, docs/FILE_FORMAT.md,
"Verifying a record from another language"): CRC-32C checksums, the strict schema, and the
line between a tear and damage. Pure Python: no server needed."""

from __future__ import annotations

import json
from typing import List

import pytest

from store_file import JOURNAL_HEADER, StoreFileError, apply_journal, crc32c, read_journal, seal_record

RECORDS = [
    '{"seq":1,"time":"2026-11-24T22:50:01.123Z","nextReference":3,"inserted":{"Item":[{"ref":2,"version":1,'
    '"values":{"name":"Lamp","owner":null}}],"Owner":[{"ref":1,"version":1,"values":{"name":"Ann","items":[]}}]},'
    '"updated":{},"deleted":[]}',
    '{"seq":2,"time":"2026-11-24T22:50:02.456Z","author":"ann","nextReference":3,"inserted":{},"updated":{"Item":'
    '[{"ref":2,"version":2,"values":{"name":"Lamp","owner":1}}],"Owner":[{"ref":1,"version":2,"values":{"name":"Ann",'
    '"items":[2]}}]},"deleted":[]}',
    '{"seq":3,"time":"2026-11-24T22:50:03.789Z","nextReference":3,"inserted":{},"updated":{"Owner":[{"ref":1,'
    '"version":3,"values":{"name":"Ann","items":[]}}]},"deleted":[{"entity":"Item","reference":2}]}',
]


def journal(records: List[str], version: int = 2, last_newline: bool = True) -> bytes:
    lines = [seal_record(r.encode()) if version == 2 else r.encode() for r in records]
    data = (JOURNAL_HEADER + b"\n" if version == 2 else b"") + b"\n".join(lines)
    return data + b"\n" if last_newline else data


def offset_of(data: bytes, index: int, version: int = 2) -> int:
    starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == 0x0A]
    return starts[index + (1 if version == 2 else 0)]


def test_the_check_value_of_123456789_is_e3069283() -> None:
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(bytes(32)) == 0x8A9136AA


def test_a_sealed_record_ends_with_its_checksum_over_the_bytes_before_it() -> None:
    sealed = seal_record(RECORDS[0].encode())
    head = RECORDS[0].encode()[:-1]
    assert sealed == head + b',"crc":"' + f"{crc32c(head):08x}".encode() + b'"}'
    assert json.loads(sealed)["crc"] == f"{crc32c(head):08x}"


@pytest.mark.parametrize("version", [1, 2])
def test_a_journal_of_either_version_reads_whole(version: int) -> None:
    records, torn, found = read_journal(journal(RECORDS, version))
    assert [r["seq"] for _, r in records] == [1, 2, 3] and torn == 0 and found == version


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("change, words", [
    (lambda r: r.replace('"inserted"', '"insertex"'), "unknown key 'insertex'"),
    (lambda r: '{"seq":2}', "lacks"),
    (lambda r: r.replace('"deleted":[]', '"deleted":[],"colour":"red"'), "unknown key 'colour'"),
    (lambda r: r.replace('"2026-11-24T22:50:02.456Z"', '"yesterday"'), '"time" must be a date'),
    (lambda r: r.replace(',"deleted":[]', ""), 'lacks "deleted"'),
    (lambda r: r.replace('"updated":{', '"updated":[{').replace('}]},"deleted"', '}]}],"deleted"'), "updated"),
])
def test_a_middle_record_that_breaks_the_schema_is_refused_with_its_offset(version: int, change, words: str) -> None:
    records = list(RECORDS)
    records[1] = change(records[1])
    data = journal(records, version)
    with pytest.raises(StoreFileError) as raised:
        read_journal(data)
    assert f"at byte {offset_of(data, 1, version)}:" in str(raised.value)
    assert words in str(raised.value)


def test_a_complete_last_line_with_one_flipped_byte_is_damage_not_a_tear() -> None:
    data = bytearray(journal(RECORDS))
    at = data.rindex(b'"Ann"') + 2
    data[at] ^= 0x01
    with pytest.raises(StoreFileError, match=f"at byte {offset_of(bytes(data), 2)}: .*changed after it was written"):
        read_journal(bytes(data))


@pytest.mark.parametrize("version", [1, 2])
def test_an_incomplete_last_line_is_still_a_tear(version: int) -> None:
    data = journal(RECORDS, version, last_newline=False)
    records, torn, _ = read_journal(data)
    assert [r["seq"] for _, r in records] == [1, 2]
    assert torn == len(data) - offset_of(data, 2, version)


def test_a_damaged_header_is_refused() -> None:
    data = journal(RECORDS).replace(b'"formatVersion":2', b'"formatVersion":3', 1)
    with pytest.raises(StoreFileError, match="at byte 0: the first line is not the header"):
        read_journal(data)


def test_apply_journal_refuses_damage_rather_than_dropping_a_commit() -> None:
    document = {"metadata": {"nextReference": 1}, "objects": {}}
    applied, torn = apply_journal(None, document, journal(RECORDS))
    assert torn == 0 and applied["metadata"]["commitSequence"] == 3
    broken = journal([RECORDS[0], RECORDS[1].replace('"inserted"', '"insertex"'), RECORDS[2]], version=1)
    with pytest.raises(StoreFileError):
        apply_journal(None, document, broken)
