"""Read again the files whose text session 27's extractor fixes change.

Revision ID: 0033
Revises: 0032
Create Date: 2026-11-27

Session 27 read the test files pypdf, python-docx, python-pptx, odfpy,
icalendar, talon and mail-parser ship (``benchmarks/bench_odd.py``) and
mended what lifededup read wrong there:

- an iCalendar entry standing alone (no VCALENDAR around it) was "empty", or
  "unsupported" with a bad line; a calendar or vCard with one value vobject
  cannot read (a DURATION past timedelta, an RDATE of dates) was "corrupt";
- a PDF AES-256 encrypted with an empty owner password, which opens for
  anyone, was "encrypted"; an OCR layer's words were split ("Nort h Buon a");
  a form's typed values were not read;
- a PPTX's or DOCX's charts and SmartArt were not read (a deck of charts was "empty"); a DOCX
  table's merged cell was read in each row it spans, and two cells alike side
  by side once; an ODT caption in a frame ran into its paragraph
  ("HelpRight"); an ODT declaring an XML entity was recorded with a repr;
- a multipart mail whose boundary is opened but never closed was indexed as
  its part's headers and base64.

Marked half written (``mtime`` NULL), as 0020 and 0032 did, so the next
``index`` or watcher rescan reads them again under the same item ids: the
files holding a PDF, a DOCX, a PPTX or an OpenDocument text; those holding a
calendar, event, contact, address book, presentation or document that failed
as empty, unsupported, corrupt or encrypted (not a timeout, nor a scan
waiting for OCR); and those holding a mail whose text shows a part's
``Content-Transfer-Encoding:`` header.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None

_READ_OTHERWISE = (
    "p.mime_type = 'application/pdf'"
    " OR p.mime_type LIKE 'application/vnd.openxmlformats-officedocument.wordprocessingml%'"
    " OR p.mime_type LIKE 'application/vnd.openxmlformats-officedocument.presentationml%'"
    " OR p.mime_type LIKE 'application/vnd.oasis.opendocument.text%'"
    " OR (p.status IN ('empty', 'unsupported', 'corrupt', 'encrypted')"
    " AND p.kind IN ('calendar', 'event', 'contact', 'address book', 'presentation', 'document'))"
    " OR (p.kind = 'email' AND p.text LIKE '%Content-Transfer-Encoding:%')"
)


def upgrade() -> None:
    # one statement, as 0032: the file's whole-file row, for a part of it too (a mail's attachment, a zip's member)
    op.get_bind().execute(sa.text(
        "UPDATE items SET mtime = NULL WHERE part = '' AND EXISTS (SELECT 1 FROM items p"
        f" WHERE p.machine = items.machine AND p.path = items.path AND ({_READ_OTHERWISE}))"))


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
