"""Excel 97-2003 ``.xls`` (xlrd), as the same text as its ``.xlsx`` would give."""

from __future__ import annotations

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
        sheets.append(f"{sheet.name}\n{rows_text(iter(sheet.row_values(r) for r in range(sheet.nrows)))}")
    return Extracted(text="\n\n".join(sheets), kind="spreadsheet", mime="application/vnd.ms-excel",
                     metadata={"sheets": str(len(sheets))})


def _is_xls(probe: Probe) -> bool:
    streams = probe.ole_streams()
    return "Workbook" in streams or "Book" in streams


FORMAT = Format(name="xls", kind="spreadsheet", extract=extract_xls, suffixes=(".xls",), magic=_is_xls,
                signed=True, opens_text=True)
