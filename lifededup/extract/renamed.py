"""The titles readers give a file by its name, and what a rename makes of them.

A container is titled by its file's name, whatever it holds: a mailbox
(:mod:`mbox`), an archive (:mod:`archive`), a calendar or an address book
of several entries (:mod:`icalendar`, :mod:`vcard`; a file of one entry is
that entry, titled by it); so is a man page that is only a ``.so`` link to
another (:mod:`man`: its text ``see ls.1``).  Compressed, each is read under
its inner name, once per layer (:func:`compressed.inner_name`:
``backup.tar.gz`` is the archive ``backup.tar``).  Every other title comes
from the contents (a PDF's metadata, an HTML ``<title>``, a mail's subject,
a man page's NAME line) or is none, and a rename leaves it as it is.
"""

from __future__ import annotations

from lifededup.extract.compressed import inner_name
from lifededup.extract.isolate import as_stored

# The kinds of a whole file titled by its name (a calendar's one event is an "event", titled by its summary).
NAMED_KINDS = frozenset({"mailbox", "archive", "calendar", "address book"})
# A man page that is only a link to another: "see ls.1", one line (man.extract_man).
LINK_MIME = "text/troff"


def titled_by_name(kind: str, mime: str | None, text: str | None) -> bool:
    """Whether a whole file's item of this kind, MIME type and text has the title its reader gave it by its name."""
    is_link = mime == LINK_MIME and text is not None and text.startswith("see ") and len(text.split()) == 2
    return kind in NAMED_KINDS or is_link


def renamed_title(title: str, old: str, new: str) -> str | None:
    """The title a file read under the name ``old`` and titled ``title`` by
    it gets under the name ``new``, as stored; None when ``title`` is no
    name ``old`` gives, or when the names do not tell how many layers of
    compression there are (a gzipped tar once called ``backup``, now
    ``backup.tgz``: read again, it would be ``backup.tar``)."""
    olds, news = _inner_names(old), _inner_names(new)
    deepest = max(len(olds), len(news))
    # past the end of its list a name is its last (inner_name changes it no more)
    layers = [n for n in range(deepest) if as_stored(olds[min(n, len(olds) - 1)]) == title]
    titles = {as_stored(news[min(n, len(news) - 1)]) for n in layers}
    return titles.pop() if len(titles) == 1 else None


def _inner_names(name: str) -> list[str]:
    """``name``, then what each layer of compression its suffixes say would hold: ``a.tar.gz``, ``a.tar``."""
    names = [name]
    while (inner := inner_name(names[-1])) != names[-1]:
        names.append(inner)
    return names
