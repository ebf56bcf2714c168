"""Read again the workbooks and slide shows that failed as corrupt: an add-in, a show, a DDE link.

Revision ID: 0039
Revises: 0038
Create Date: 2026-11-28

Read on oletools' test files (session 33), each was ``corrupt``:

- a PowerPoint show (``.ppsx``, a deck that opens playing): python-pptx
  refused its main part's content type, as it did a template's;
- an Excel add-in (``.xlam``): openpyxl found "no valid workbook part";
- a workbook linking another through a link with no relationships part of its
  own (a DDE link: ``dde-test.xlsx``): openpyxl gave up on the whole workbook.

``lifededup.extract`` now reads all three; an Excel binary workbook (``.xlsb``)
is ``unsupported``, saying what it is, where it was ``corrupt``.

The files holding a spreadsheet or a presentation that failed as corrupt, or an
item so named (``.xlsx .xlsm .xltx .xltm .xlam .xlsb .ppsx``: a failure named
by a suffix no reader claimed was a ``document``) -- alone or inside an archive
or a mail -- are marked half written (``mtime`` NULL), as 0033 did, so that the
next ``index`` or watcher rescan reads them again under the same item ids.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None

_NAME = "lower(CASE WHEN p.part = '' THEN p.path ELSE p.part END)"
_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm", ".xlam", ".xlsb", ".ppsx")
_FAILED_WORKBOOK = (f"p.status = 'corrupt' AND (p.kind IN ('spreadsheet', 'presentation') OR "
                    + " OR ".join(f"{_NAME} LIKE '%{suffix}'" for suffix in _SUFFIXES) + ")")


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _FAILED_WORKBOOK)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
