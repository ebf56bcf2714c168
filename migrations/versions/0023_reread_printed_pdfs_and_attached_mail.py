"""Read again the PDFs a print driver titled and the mails that are one attached file.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-26

- Windows' print-to-PDF titles a document after the program and the file it
  printed: "Microsoft Word - Budget 2024.docx". The PDF reader now gives it
  its own title, "Budget 2024" (``extract.pdf.pdf_title``), which search lists
  beside the .docx of the same name; a PDF stored before keeps the printer's
  until it is read again. The files whose own item, or a part of it (a PDF
  attached to a mail, inside a zip), is a PDF titled so are read again.
- A mail of one part that is a file, not a body (a scanner's "Scan to
  e-mail" sends the PDF alone), was stored with no text and no part: the
  file's words were lost. It is now the mail's part. The files holding a
  mail with no text, no part and no failure are read again (every mailbox
  among them, whole: its messages keep their ids, see ``index/write.py``).

Each such file is marked half written (``mtime`` NULL), as 0017 and 0020
did: the next ``index`` or watcher rescan reads it again under the same item
ids. Both backends; the files are not read here.
"""

from __future__ import annotations

from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

# the titles extract.pdf._PRINTED_FROM takes apart, as LIKE patterns
_PRINTERS = [f"{office}{program} - %" for office in ("Microsoft ", "Microsoft Office ")
             for program in ("Word", "PowerPoint", "Excel", "Publisher")] + ["Word - %", "PowerPoint - %"]
_PRINTED = " OR ".join(f"p.title LIKE '{pattern}'" for pattern in _PRINTERS)


def upgrade() -> None:
    op.execute(
        "UPDATE items SET mtime = NULL WHERE part = '' AND EXISTS ("
        "SELECT 1 FROM items p WHERE p.machine = items.machine AND p.path = items.path "
        f"AND (p.mime_type = 'application/pdf' AND ({_PRINTED}) "
        "OR p.kind = 'email' AND p.status = 'ok' AND p.text IS NULL "
        "AND NOT EXISTS (SELECT 1 FROM items c WHERE c.parent_id = p.id)))"
    )


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
