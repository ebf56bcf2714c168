"""Excel 2007+ ``.xlsx`` (openpyxl, read-only): each sheet's name, then its rows, cells space-separated."""

from __future__ import annotations

import io
from collections.abc import Iterator

from lifededup.extract.base import Extracted, Format, Probe, Source, last_saved


def _cell_text(value: object) -> str:
    # .xls stores every number as a float; show 59.0 as Excel does (59), so a
    # workbook saved as .xls and as .xlsx gives the same text
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def rows_text(rows: Iterator[tuple[object, ...]]) -> str:
    """A sheet's rows as lines of non-empty cells (shared with the .xls reader)."""
    lines = (" ".join(_cell_text(v) for v in row if v is not None and str(v).strip()) for row in rows)
    return "\n".join(ln for ln in lines if ln)


def extract_xlsx(source: Source) -> Extracted:
    from openpyxl import load_workbook  # type: ignore[import-untyped]

    book = load_workbook(io.BytesIO(source.read_bytes()), read_only=True, data_only=True)
    try:
        sheets = [f"{sheet.title}\n{rows_text(sheet.iter_rows(values_only=True))}" for sheet in book.worksheets]
        props = book.properties
        return Extracted(text="\n\n".join(sheets), title=(props.title or "").strip(), kind="spreadsheet",
                         mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                         doc_date=last_saved(props.created, props.modified), metadata={"sheets": str(len(sheets))})
    finally:
        book.close()


def _is_xlsx(probe: Probe) -> bool:
    return any(n.startswith("xl/") for n in probe.zip_names())


FORMAT = Format(name="xlsx", kind="spreadsheet", extract=extract_xlsx, suffixes=(".xlsx",), magic=_is_xlsx, zipped=True)
