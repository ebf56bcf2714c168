"""Plain text, Markdown, CSV and logs: encodings detected, invalid bytes never a crash, binary refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from lifededup.extract import EmptyFile, UnsupportedFormat, extract

SENTENCE = "Crème brûlée für Zoë: naïve café owners in Kraków ordered €20 of jalapeños."


@pytest.mark.parametrize("encoding, prefix, want", [
    ("utf-8", b"", "utf-8"),
    ("utf-8", b"\xef\xbb\xbf", "utf-8"),
    ("utf-16-le", b"\xff\xfe", "utf-16-le"),
    ("utf-16-be", b"\xfe\xff", "utf-16-be"),
])
def test_unicode_encodings_round_trip(tmp_path: Path, encoding: str, prefix: bytes, want: str) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes(prefix + SENTENCE.encode(encoding))
    got = extract(path)
    assert got.text == SENTENCE, f"{encoding}: got {got.text!r}"
    assert got.metadata["encoding"] == want, f"encoding detected as {got.metadata['encoding']}"
    assert got.kind == "text"


def test_windows_1252_and_latin_1(tmp_path: Path) -> None:
    cp = tmp_path / "letter.txt"
    cp.write_bytes("Dear Zoë, the “quote” costs €5 — thanks.".encode("cp1252"))
    got = extract(cp)
    assert got.text == "Dear Zoë, the “quote” costs €5 — thanks.", got.text
    assert got.metadata["encoding"] == "windows-1252"
    latin = tmp_path / "latin.log"
    latin.write_bytes("caf\xe9 \x81 na\xefve".encode("latin-1"))
    got = extract(latin)
    assert got.text == "caf\xe9 \x81 na\xefve" and got.metadata["encoding"] == "latin-1", got


def test_invalid_utf8_is_replaced_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "broken.md"
    path.write_bytes("# Título\n\nSome ünïcode and a bad byte \xff here".encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    got = extract(path)
    assert "\ufffd" in got.text and "ünïcode" in got.text, got.text
    assert got.title == "Título", f"Markdown title: {got.title!r}"
    assert got.metadata["encoding"] == "utf-8 (invalid bytes replaced)"


def test_csv_and_log_are_text(tmp_path: Path) -> None:
    csv = tmp_path / "budget.csv"
    csv.write_text("item,cost\nroof,420\nseeds,12\n")
    got = extract(csv)
    assert got.mime == "text/csv" and "roof,420" in got.text, got


def test_binary_named_txt_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(UnsupportedFormat, match="binary"):
        extract(path)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with pytest.raises(EmptyFile) as caught:
        extract(path)
    assert caught.value.status == "empty"
