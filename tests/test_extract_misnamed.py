"""Files whose name says one format and whose content is another: real fixtures renamed, and the text that
web applications and mail programs save under Office's and Outlook's names."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from lifededup.extract import ExtractionError, Extracted, extract

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path(__file__).parent.parent / "sample_corpus"
OLE_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")


def read(path: Path) -> Extracted | ExtractionError:
    try:
        return extract(path)
    except ExtractionError as error:
        return error


@pytest.fixture(scope="module")
def ppt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus's slides saved as PowerPoint 97-2003 by LibreOffice Impress."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice is not installed (libreoffice-impress-nogui)")
    out = tmp_path_factory.mktemp("ppt")
    subprocess.run([soffice, f"-env:UserInstallation=file://{out}/profile", "--headless", "--convert-to", "ppt",
                    "--outdir", str(out), str(CORPUS / "Documents/kitchen-quotes/kitchen-plan-slides.pptx")],
                   check=True, capture_output=True, timeout=120)
    return out / "kitchen-plan-slides.ppt"


@pytest.mark.parametrize("name", ["deck.ppt", "note.msg"])
def test_a_file_holding_another_files_path_is_never_that_file_read(tmp_path: Path, ppt: Path, name: str) -> None:
    """olefile and extract-msg, handed bytes, took fewer than 1,536 of them
    for the path of a file to open: a ``deck.ppt`` holding the path of
    another PowerPoint file was read as that file -- wherever it was, outside
    the folders given -- and one holding the path of nothing was "deleted or
    moved while it was read", which the next run forgets."""
    other = ppt if name.endswith(".ppt") else FIXTURES / "msg" / "plain_unsent.msg"
    target = tmp_path / "elsewhere" / other.name
    target.parent.mkdir()
    shutil.copyfile(other, target)
    theirs = extract(target)
    assert isinstance(theirs, Extracted) and theirs.text, theirs
    folder = tmp_path / "given"
    folder.mkdir()
    pointer = folder / name
    pointer.write_bytes(str(target).encode())
    got = read(pointer)
    assert not (isinstance(got, Extracted) and theirs.text in got.text), f"read {target} through {pointer}"
    nowhere = folder / f"nowhere{Path(name).suffix}"
    nowhere.write_bytes(str(tmp_path / "no such file").encode())
    assert not isinstance(read(nowhere).__cause__, FileNotFoundError), "the file was there all along"


@pytest.mark.parametrize("name", ["short.ppt", "short.msg", "short.doc", "short.xls"])
def test_a_short_file_with_the_ole2_signature_is_corrupt_not_vanished(tmp_path: Path, name: str) -> None:
    """Under 1,536 bytes olefile took the signature and what followed for a path, and the file was "deleted
    or moved while it was read"."""
    path = tmp_path / name
    path.write_bytes(OLE_MAGIC + b"\x00" * 500)
    got = read(path)
    assert isinstance(got, ExtractionError) and got.status == "corrupt", got
    assert not isinstance(got.__cause__, (FileNotFoundError, ValueError)), f"{got} (a path opened: {got.__cause__!r})"
