"""Read again the spreadsheets and the office documents saved as one XML file: dates read as dates, Flat
XML ODF, Word 2003 XML and Excel 2003 XML read as the documents they are.

Revision ID: 0046
Revises: 0045
Create Date: 2026-11-28

One document saved in every format LibreOffice writes (session 36,
``benchmarks/bench_office.py``) showed four readings that were not the
document's:

* an ``.xls`` gave a date cell as the days since 1900 (``45276`` for
  2023-12-16), and an ``.xlsx`` as ``2023-12-16 00:00:00``, where its
  ``.ods`` and the CSV it came from say ``2023-12-16``: a statement saved
  as ``.xls`` was not found by its dates, nor clustered with its ``.ods``;
* Flat XML ODF (``.fodt``, ``.fods``, ``.fodp``, ``.fodg``) was read as
  plain text, its markup and all (``lifededup.extract.flatodf``);
* Word 2003 XML (``<w:wordDocument>``) named ``.xml`` was read as plain
  text, and named ``.doc`` as a web page, its properties run into its first
  words (``lifededup.extract.wordml``);
* Excel 2003 XML (``<Workbook>``), what web applications give for "export
  to Excel", named ``.xml`` was read as plain text, and named ``.xls`` as a
  web page, each row's cells run together into one word
  (``lifededup.extract.spreadsheetml``).

The files holding a spreadsheet read (not an OpenDocument one, which read
its dates as shown), an item named ``.fodt``, ``.fods``, ``.fodp``,
``.fodg`` or ``.xml`` (compressed or not), or a ``.doc`` read as a web page,
are marked half written (``mtime`` NULL), as 0045 did, so that the next
``index`` or watcher rescan reads them again under the same item ids.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0046"
down_revision = "0045"
branch_labels = None
depends_on = None

_NAME = "lower(CASE WHEN p.part = '' THEN p.path ELSE p.part END)"
_XML = " OR ".join(f"{_NAME} LIKE '%{suffix}{packed}'" for suffix in (".fodt", ".fods", ".fodp", ".fodg", ".xml")
                   for packed in ("", ".gz", ".bz2", ".xz", ".lzma"))
_READ = (f"(p.kind = 'spreadsheet' AND p.status = 'ok' AND p.mime_type NOT LIKE 'application/vnd.oasis.%')"
         f" OR (p.mime_type = 'text/html' AND {_NAME} LIKE '%.doc') OR {_XML}")


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _READ)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
