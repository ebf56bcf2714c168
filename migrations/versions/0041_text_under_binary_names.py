"""Read again the files of text named as a binary format: a mail saved as .msg, a web page as .doc or .xls.

Revision ID: 0041
Revises: 0040
Create Date: 2026-11-28

A file of text under a binary format's name went to that format's reader,
which failed on it: dkimpy's RFC 822 messages named ``.msg`` were "corrupt:
cannot read rfc6376.msg: File name too long" or ``vanished`` (extract-msg
took their bytes for a path), a web application's "export to Excel" (an HTML
table named ``.xls``) "corrupt: Expected BOF record", a web page saved as
``.doc`` antiword's "is not a Word Document", and plain text named ``.rtf``
was read as RTF, its lines run together.  A message saved alone as ``.mbox``
(its headers first, no "From " line: dkimpy's ``message.mbox``) was "corrupt:
not an mbox mailbox"; it is now a mailbox of that message.

``lifededup.extract`` now reads text named ``.doc``, ``.xls``, ``.msg`` or
``.rtf`` as what it is (Word, Excel and mail programs open it), under the
kind its name says, and refuses text under another binary format's name (a
``.pdf`` or ``.docx`` holding a download's error page, a Git LFS placeholder)
as ``corrupt`` still, saying what the file holds.

The files holding an item -- alone or inside an archive or a mail -- named
as a binary format that failed as ``corrupt`` or ``vanished``, or named
``.rtf``, or a mailbox that failed as ``corrupt``, are marked half written (``mtime`` NULL), as 0033 did, so that the
next ``index`` or watcher rescan reads them again under the same item ids.  A
picture's name on text was offered to OCR (``no-text-layer``); such files are
not looked for among a store's pictures.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0041"
down_revision = "0040"
branch_labels = None
depends_on = None

_NAME = "lower(CASE WHEN p.part = '' THEN p.path ELSE p.part END)"
# the binary formats' names at 0041 (their readers' suffixes), pictures aside
_BINARY = (".bz2", ".doc", ".docm", ".docx", ".dotm", ".dotx", ".epub", ".gz", ".lzma", ".msg", ".odg", ".odp",
           ".ods", ".odt", ".otg", ".otp", ".ots", ".ott", ".oxps", ".pdf", ".pot", ".potm", ".potx", ".pps",
           ".ppsm", ".ppsx", ".ppt", ".pptm", ".pptx", ".rtf", ".tar", ".taz", ".tb2", ".tbz", ".tbz2", ".tgz",
           ".tlz", ".txz", ".tz2", ".xlam", ".xls", ".xlsb", ".xlsm", ".xlsx", ".xltm", ".xltx", ".xps", ".xz",
           ".zip")
_MISREAD = (f"(p.status IN ('corrupt', 'vanished') AND ("
            + " OR ".join(f"{_NAME} LIKE '%{suffix}'" for suffix in _BINARY)
            + f")) OR {_NAME} LIKE '%.rtf' OR (p.status = 'corrupt' AND (p.kind = 'mailbox' "
            f"OR {_NAME} LIKE '%.mbox' OR {_NAME} LIKE '%.mbx'))")


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _MISREAD)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
