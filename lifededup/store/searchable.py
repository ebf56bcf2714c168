"""The text the search index reads where it differs from the stored text:
Chinese, Japanese and Korean characters apart (revision 0022).

Those scripts write a sentence without spaces, which FTS5's unicode61
tokenizer and PostgreSQL's parser read as one word (``私は東京に住んでいます``),
so a word inside it (``東京``) was never found.  With no dictionary to cut
words by, each character is made a word of its own -- ``APART`` between it
and any letter or digit beside it -- and a query's word is searched as the
phrase of its characters (``search/syntax.py``: ``"東 京"``), as many SQLite
users do.  Lucene's CJKAnalyzer indexes overlapping bigrams instead; on 1,939
real Japanese and Chinese man pages (8.1 M characters) bigrams answered a
two-character word 4x sooner (0.17 against 0.77 ms for a common one) but made
a 39% larger index, missed a single character wherever it ends a run (1,080
items of 40 characters' matches) and a word wrapped across a line
(``ファ\\nイル``: 36 items), and cannot be shown back as the text it was made
of: a text with a separator no one sees keeps every snippet the original.

``APART`` is U+0001: a separator to both FTS5 (not a letter, digit or
private-use character) and PostgreSQL's parser (ASCII, so in any locale;
U+200B is a letter there under C.UTF-8), which no extracted text shows,
and which snippets drop (``search/snippet.py``).
"""

from __future__ import annotations

import re

APART = "\x01"

# The scripts written without spaces between words, and Hangul, whose
# particles join the word before them (서울에: in Seoul), as Lucene's
# CJKAnalyzer takes them: Hiragana and Katakana (U+3040-30FF, with ー),
# their phonetic extension (U+31F0-31FF), Bopomofo (U+3100-312F), Hangul
# compatibility jamo (U+3130-318F), the iteration and closing marks 々 〆 〇
# (U+3005-3007), CJK ideographs and extension A (U+3400-4DBF, U+4E00-9FFF),
# Hangul syllables and jamo (U+AC00-D7AF, U+1100-11FF), compatibility
# ideographs (U+F900-FAFF), half-width Katakana (U+FF66-FF9F) and the
# ideographs of the supplementary planes (U+20000-3FFFF).
CJK_CHARS = ("\u1100-\u11ff\u3005-\u3007\u3040-\u30ff\u3100-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
             "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff")
CJK = re.compile(f"[{CJK_CHARS}]")
# between a CJK character and a letter or digit on either side of it
_BETWEEN = re.compile(f"(?<=[{CJK_CHARS}])(?=\\w)|(?<=\\w)(?=[{CJK_CHARS}])")


def apart(text: str | None) -> str | None:
    """``text`` with its CJK characters apart (``APART`` between each and a
    letter or digit next to it); None when it has none: the index reads the
    text itself."""
    if text is None or CJK.search(text) is None:
        return None
    return _BETWEEN.sub(APART, text)


def together(text: str) -> str:
    """A text made by :func:`apart` (or a part of one) as it was."""
    return text.replace(APART, "")


# ASCII's punctuation, each mark of which FTS5's tokenizer reads as a space,
# and a PostgreSQL store's documents too (revision 0028, whose function holds
# its own copy): a class of byte ranges, which Python and PostgreSQL read
# alike, in any locale.
PUNCTUATION = r"[!-/:-@\[-`{-~]"
MARKS = re.compile(PUNCTUATION)

# The text search configuration a PostgreSQL store's documents are made with
# (revision 0029: the simple one's, which lower-cases words and stems none,
# with each word read without its accents first, as FTS5 reads it); a query
# and a headline must read words with the same one, or they miss what the
# documents hold.
TS_CONFIG = "lifededup"


def pg_spaced(text: str) -> str:
    """The SQL of ``text`` (an SQL expression) with its punctuation as
    spaces, one for one, as a PostgreSQL store's documents read it."""
    return f"regexp_replace({text}, '{PUNCTUATION}', ' ', 'g')"


def pg_document(row: str = "") -> str:
    """The SQL of an item's search words on PostgreSQL, as its trigger makes
    them (revision 0022): ``row`` the items' alias and a dot, or nothing."""
    read = ", ".join(f"coalesce({row}{c}_apart, {row}{c})" for c in ("title", "text", "people"))
    return f"items_fts_document({read})"


# the text an item's pieces are made of (revision 0027), as its trigger reads it
PG_PIECES_BODY = "coalesce(i.text_apart, i.text)"


def pg_pieces_of(document: str = "f.document") -> str:
    """The SQL of an item's pieces on PostgreSQL (revision 0027: ``piece``,
    ``words``, ``text_at``), as its trigger makes them: its search row's ``document`` and
    the text of the items aliased ``i``; no rows for a text whose document
    lost no places."""
    return f"items_fts_pieces_of({document}, {PG_PIECES_BODY})"


def pg_fill_pieces(where: str = "") -> str:
    """The SQL that writes the pieces of the items whose search row is in
    ``items_fts`` (aliased ``f``, the items ``i``; ``where``: which of them),
    as the trigger writes them: for a bulk load that wrote ``items_fts`` with
    the trigger off, which writes none."""
    return ("INSERT INTO items_fts_pieces (rowid, piece, document, text_at) SELECT f.rowid, p.piece, p.words, p.text_at "
            f"FROM items_fts f JOIN items i ON i.id = f.rowid CROSS JOIN LATERAL {pg_pieces_of()} AS p"
            + (f" WHERE {where}" if where else ""))
