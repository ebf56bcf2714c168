"""Excel 2007+ ``.xlsx`` (openpyxl, read-only): each sheet's name, then its rows, cells space-separated."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import datetime, time

from lifededup.extract.base import Extracted, Format, Probe, Source, UnsupportedFormat, last_saved

# The main part's content type of an Excel add-in (.xlam), which openpyxl refuses ("File contains no valid
# workbook part"), though the part is a workbook's, as a .xlsm's is: read as one (docx.as_main_type)
_MAIN = "application/vnd.ms-excel.sheet.macroEnabled.main+xml"
_VARIANTS = ("application/vnd.ms-excel.addin.macroEnabled.main+xml",)


def _cell_text(value: object) -> str:
    # .xls stores every number as a float; show 59.0 as Excel does (59), so a
    # workbook saved as .xls and as .xlsx gives the same text
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    # a date cell is a datetime (openpyxl, the .xls and Excel 2003 XML readers): a day as the sheet shows it,
    # 2023-12-16, as the .ods reader and the CSV it was made from give it, not "2023-12-16 00:00:00"
    if isinstance(value, datetime) and value.time() == time() and value.tzinfo is None:
        return value.date().isoformat()
    return str(value)


def rows_text(rows: Iterator[tuple[object, ...]]) -> str:
    """A sheet's rows as lines of non-empty cells (shared with the .xls reader)."""
    lines = (" ".join(_cell_text(v) for v in row if v is not None and str(v).strip()) for row in rows)
    return "\n".join(ln for ln in lines if ln)


def extract_xlsx(source: Source) -> Extracted:
    from openpyxl import load_workbook  # type: ignore[import-untyped]

    from lifededup.extract.docx import as_main_type

    data = source.read_bytes()
    if _binary(data):
        raise UnsupportedFormat(f"{source.name} is an Excel binary workbook (.xlsb), which lifededup does not read "
                                "(saved as .xlsx, it is read)")
    # keep_links=False: the links to other workbooks are not read (their values are the cells'); one with no
    # relationships of its own -- a DDE link, oletools' dde-test.xlsx -- made openpyxl refuse the whole workbook
    book = load_workbook(io.BytesIO(as_main_type(data, _VARIANTS, _MAIN)), read_only=True, data_only=True,
                         keep_links=False)
    try:
        sheets = [f"{sheet.title}\n{rows_text(sheet.iter_rows(values_only=True))}" for sheet in book.worksheets]
        props = book.properties
        return Extracted(text="\n\n".join(sheets), title=(props.title or "").strip(), kind="spreadsheet",
                         mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                         doc_date=last_saved(props.created, props.modified), metadata={"sheets": str(len(sheets))})
    finally:
        book.close()


def _binary(data: bytes) -> bool:
    """Whether a workbook is Excel's binary one (``xl/workbook.bin``): openpyxl found "no valid workbook part",
    and such a file was ``corrupt``."""
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as package:
        names = set(package.namelist())
    return "xl/workbook.bin" in names and "xl/workbook.xml" not in names


def _is_xlsx(probe: Probe) -> bool:
    return any(n.startswith("xl/") for n in probe.zip_names())


FORMAT = Format(name="xlsx", kind="spreadsheet", extract=extract_xlsx, magic=_is_xlsx, zipped=True, signed=True,
                suffixes=(".xlsx", ".xlsm", ".xltx", ".xltm", ".xlam", ".xlsb"))
