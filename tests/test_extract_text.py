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


def test_windows_1252(tmp_path: Path) -> None:
    cp = tmp_path / "letter.txt"
    cp.write_bytes("Dear Zoë, the “quote” costs €5 — thanks.".encode("cp1252"))
    got = extract(cp)
    assert got.text == "Dear Zoë, the “quote” costs €5 — thanks.", got.text
    assert got.metadata["encoding"] == "windows-1252"
    latin = tmp_path / "latin.log"
    latin.write_bytes("Le père Noël a apporté une crème brûlée à l'élève.".encode("latin-1"))
    got = extract(latin)
    assert got.text == "Le père Noël a apporté une crème brûlée à l'élève.", got.text


@pytest.mark.parametrize("text, encoding, want", [
    ("Zażółć gęślą jaźń. Pchnąć w tę łódź jeża lub ośm skrzyń fig. " * 3, "cp1250", "windows-1250"),
    ("Привет, как дела? Это русский текст в кодировке Windows-1251. " * 3, "cp1251", "windows-1251"),
    ("日本語のテキストです。これはシフトJISでエンコードされています。" * 3, "shift_jis", "cp932"),
])
def test_undeclared_legacy_encodings_through_charset_normalizer(tmp_path: Path, text: str, encoding: str,
                                                                want: str) -> None:
    path = tmp_path / "old note.txt"
    path.write_bytes(text.encode(encoding))
    got = extract(path)
    assert got.text == text, f"{encoding} read as {got.metadata['encoding']}: {got.text[:60]!r}"
    assert got.metadata["encoding"] == want, got.metadata


def test_mostly_ascii_with_stray_bytes_gets_replacement_characters_not_mojibake(tmp_path: Path) -> None:
    # what the README promises: a few invalid bytes become U+FFFD (cp1252 made "ÿþ" of them before)
    lines = ["The river survey counted mayfly nymphs at nine points along the brook."] * 20
    path = tmp_path / "survey notes.txt"
    path.write_bytes("\n".join(lines).encode() + b"\ngarbage \xff\xfe\x9d here\nThe end.\n")
    got = extract(path)
    assert "garbage \ufffd\ufffd\ufffd here" in got.text, got.text[-60:]
    assert got.metadata["encoding"] == "utf-8 (invalid bytes replaced)", got.metadata


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
    with pytest.raises(UnsupportedFormat, match=r"binary data .* \(despite its \.txt name\)$"):
        extract(path)


def test_binary_under_a_name_no_format_claims_is_not_said_to_be_despite_it(tmp_path: Path) -> None:
    """'song.wav holds binary data ... (despite its .wav name)' read as if a .wav promised text."""
    path = tmp_path / "song.wav"
    path.write_bytes(b"RIFF" + bytes(range(256)) * 40)
    with pytest.raises(UnsupportedFormat) as caught:
        extract(path)
    assert str(caught.value) == "song.wav holds binary data of no format lifededup reads"


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with pytest.raises(EmptyFile) as caught:
        extract(path)
    assert caught.value.status == "empty"


def test_a_file_of_whitespace_alone_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "blank.txt"
    path.write_bytes(b" \n\t\r\n\x0c  \n" * 100)
    with pytest.raises(EmptyFile) as caught:
        extract(path)
    assert caught.value.status == "empty"


def test_windows_line_ends_are_read_as_newlines_and_a_lone_cr_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "letter.txt"
    path.write_bytes(b"Dear Ann,\r\nthe roof leaks.\r\nA lone \r stays.\n")
    assert extract(path).text == "Dear Ann,\nthe roof leaks.\nA lone \r stays.\n"


def test_a_markdown_title_is_its_first_line_and_a_text_has_none(tmp_path: Path) -> None:
    body = "\n  \n# Moving house\r\n\r\nBoxes first.\n"
    (tmp_path / "plan.md").write_text(body, newline="")
    (tmp_path / "plan.txt").write_text(body, newline="")
    assert extract(tmp_path / "plan.md").title == "Moving house"
    assert not extract(tmp_path / "plan.txt").title


def test_a_text_whose_first_line_starts_with_a_dot_is_no_man_page(tmp_path: Path) -> None:
    """A file of no known name is asked whether it is roff: its first line that is neither blank nor a
    comment starts with a dot, and some line is a page header (.TH, .Dd, .Dt, .so) -- the first line,
    or one after it."""
    (tmp_path / "NOTES").write_text(".profile edits\n.bashrc too\n")
    (tmp_path / "PAGE").write_text('.\\" made by hand\n.de XX\n..\n.TH PAGE 1\n.SH NAME\npage \\- a page\n')
    (tmp_path / "LATE").write_text("text first\n.TH LATE 1\n")
    read = [extract(tmp_path / name).mime for name in ("NOTES", "PAGE", "LATE")]
    assert read == ["text/plain", "text/troff", "text/plain"], read


@pytest.mark.parametrize("name", ["README.Debian", "copyright", "AUTHORS", "TODO"])
def test_text_with_no_known_name_is_read_by_its_content(tmp_path: Path, name: str) -> None:
    """Debian's own documentation files, as they sit in /usr/share/doc (gzipped ones are read in test_archive)."""
    real = sorted(p for p in Path("/usr/share/doc").glob(f"*/{name}") if p.is_file() and p.stat().st_size > 200)
    if not real:
        pytest.skip(f"no /usr/share/doc/*/{name} on this machine")
    got = extract(real[0])
    assert got.kind == "text" and got.mime == "text/plain", (real[0], got.kind, got.mime)
    assert got.text.split()[:3] == real[0].read_text(errors="replace").split()[:3], real[0]


def test_text_under_an_unknown_suffix_is_text_and_binary_under_one_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "minutes.2019"
    notes.write_text("Minutes of the allotment meeting: the shed roof is to be mended in May.\n")
    assert "shed roof" in extract(notes).text
    blob = tmp_path / "photo.raw"
    blob.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(UnsupportedFormat, match="binary"):
        extract(blob)


def test_an_org_file_is_titled_by_its_title_keyword(tmp_path: Path) -> None:
    """Emacs Org mode's ``#+TITLE:`` is the title its export gives the page; an Org file was untitled."""
    (tmp_path / "garden.org").write_text("#+STARTUP: overview\n#+title:   Garden   plans 2021\n* Beds\n- tomatoes\n")
    (tmp_path / "untitled.org").write_text("* Beds\n- tomatoes\n")
    assert extract(tmp_path / "garden.org").title == "Garden plans 2021"
    assert extract(tmp_path / "untitled.org").title == ""
