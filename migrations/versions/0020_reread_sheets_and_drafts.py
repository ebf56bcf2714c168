"""Read again the sheets of numbers left unsampled, and the files the extractors now read better.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26

- A spreadsheet, a statement or a log is mostly numbers, which the paper's
  filter drops before shingling: its few words repeat into fewer distinct
  shingles than a sample needs, and it was matched by SHA-1 alone (features
  NULL), so a sheet re-saved with one reading corrected was a document
  apart. Such a text is now sampled with its numbers kept. The files whose
  own item, or a part of it, has no features though it has at least 17
  words (the fewest the default sample of 14 shingles of 4 words needs) are
  read again; a text too short either way is read once more and stays
  unsampled.
- The extractors read more, and better, than the files' items say: a Word
  draft's tracked insertions, content controls and fields (and no longer an
  ODT draft's tracked deletions), an HTML table's cells as words apart
  (``fdiskPartition`` was one), PowerPoint tables and grouped shapes,
  OpenDocument sheets, presentations and drawings (read as zips of raw XML
  before), Safari web archives and PostScript (read as text), and mail: a
  newsletter's rules and ``>`` lines (a quote only in a reply), an HTML body
  behind an empty or stub plain part, each message of a MIME digest, a
  charset label read as browsers read it, Bcc among its people, a reply
  quoted without ``>``. The files holding a DOCX, an ODT, an HTML, MHTML or
  EPUB page, a presentation, a mail, a calendar, or an OpenDocument,
  web-archive, PostScript, macro-enabled or template Office file (by name),
  as the file or a part of it, are read again -- every mailbox among them,
  as 0015 did.
- Files that failed, or hold a part that failed, as 0017 did: short Word
  97-2003 files, macro-enabled and template Office files, single ``.bz2``
  and ``.xz`` files, calendars with their own time zones, mail with a NUL
  byte, now read.

Each such file is marked half written (``mtime`` NULL), as 0017 did: the
next ``index`` or watcher rescan reads it again under the same item ids.
Both backends; the files are not read here.
"""

from __future__ import annotations

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

_READ_BETTER = ("'application/vnd.openxmlformats-officedocument.wordprocessingml.document', "
                "'application/vnd.oasis.opendocument.text', 'text/html', 'multipart/related', "
                "'application/epub+zip'")
_KINDS = "'email', 'presentation', 'calendar', 'event'"
_NAMES = (".ods", ".odp", ".odg", ".ots", ".otp", ".otg", ".webarchive", ".ps", ".eps", ".docm", ".dotx", ".dotm",
          ".potx", ".potm", ".ppsm", ".pptm")
_BY_NAME = " OR ".join(f"lower(p.path) LIKE '%{suffix}'" for suffix in _NAMES)


def upgrade() -> None:
    op.execute(
        "UPDATE items SET mtime = NULL WHERE part = '' AND EXISTS ("
        "SELECT 1 FROM items p LEFT JOIN fingerprints f ON f.item_id = p.id WHERE p.machine = items.machine "
        f"AND p.path = items.path AND (f.f1 IS NULL AND f.words >= 17 OR p.mime_type IN ({_READ_BETTER}) "
        f"OR p.kind IN ({_KINDS}) OR p.status <> 'ok' OR {_BY_NAME}))"
    )


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
