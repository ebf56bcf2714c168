"""Excel 97-2003 ``.xls`` (xlrd), as the same text as its ``.xlsx`` would give."""

from __future__ import annotations

from datetime import time

from lifededup.extract.base import EncryptedFile, Extracted, Format, Probe, Source
from lifededup.extract.xlsx import rows_text


def extract_xls(source: Source) -> Extracted:
    import xlrd  # type: ignore[import-untyped]

    try:
        book = xlrd.open_workbook(file_contents=source.read_bytes(), on_demand=True)
    except xlrd.biffh.XLRDError as exc:
        if "encrypt" in str(exc).lower():
            raise EncryptedFile(f"the Excel workbook is encrypted: {exc}") from exc
        raise
    sheets = []
    for index in range(book.nsheets):
        sheet = book.sheet_by_index(index)
        rows = (tuple(_value(kind, value, book.datemode)
                      for kind, value in zip(sheet.row_types(r), sheet.row_values(r))) for r in range(sheet.nrows))
        sheets.append(f"{sheet.name}\n{rows_text(rows)}")
    return Extracted(text="\n\n".join(sheets), kind="spreadsheet", mime="application/vnd.ms-excel",
                     metadata={"sheets": str(len(sheets))})


def _value(kind: int, value: object, datemode: int) -> object:
    """A cell's value as openpyxl gives the same cell of an ``.xlsx``: a date a datetime (a time of day a time),
    where xlrd gives the number of days since 1900 -- a statement's dates were read as 45276 -- and a boolean
    True or False, where xlrd gives 1 or 0."""
    import xlrd

    if kind == xlrd.XL_CELL_BOOLEAN:
        return bool(value)
    if kind != xlrd.XL_CELL_DATE or not isinstance(value, float):
        return value
    try:
        if 0 <= value < 1:
            return time(*xlrd.xldate_as_tuple(value, datemode)[3:])
        return xlrd.xldate_as_datetime(value, datemode)
    except (xlrd.xldate.XLDateError, ValueError, OverflowError):
        return value


def _is_xls(probe: Probe) -> bool:
    streams = probe.ole_streams()
    return "Workbook" in streams or "Book" in streams


FORMAT = Format(name="xls", kind="spreadsheet", extract=extract_xls, suffixes=(".xls",), magic=_is_xls,
                signed=True, opens_text=True)
