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

A name decides more than a title where its suffix changes: which reader
reads a file whose content has no signature (``page.txt`` is text,
``page.html`` a web page), and what that reader makes of it (a ``.md``
file's first line is its title, a ``.csv`` is ``text/csv``, a failed
``.eml`` an ``email``).  Readers take from a name its suffix, at each layer
of compression the name tells, and whether it says a tar; besides that,
only the name itself, in a title by the name (:func:`renamed_title`) and in
what a failure says of the file.  :func:`read_alike` tells whether two
names leave a file read the same; :func:`read_alike_here`, whether they
leave this file read the same, where the names are two spellings of its
format's suffix (``.htm`` and ``.html``, ``.jpg`` and ``.jpeg``, ``.tgz``
and ``.tar.gz``: ``Format.spellings``).
"""

from __future__ import annotations

import functools
from pathlib import Path, PurePosixPath

from lifededup.extract.base import CONTAINER_KINDS, Source
from lifededup.extract.compressed import inner_name
from lifededup.extract.isolate import as_stored
from lifededup.extract.registry import formats, sniff

# A man page that is only a link to another: "see ls.1", one line (man.extract_man).
LINK_MIME = "text/troff"


def titled_by_name(kind: str, mime: str | None, text: str | None) -> bool:
    """Whether a whole file's item of this kind, MIME type and text has the title its reader gave it by its name."""
    is_link = mime == LINK_MIME and text is not None and text.startswith("see ") and len(text.split()) == 2
    # a container is titled by its name (a calendar's one event is an "event", titled by its summary)
    return kind in CONTAINER_KINDS or is_link


def renamed_title(title: str, old: str, new: str) -> str | None:
    """The title a file read under the name ``old`` and titled ``title`` by
    it gets under the name ``new``, as stored; None when ``title`` is no
    name ``old`` gives, or when the names do not tell how many layers of
    compression there are (a gzipped tar once called ``backup``, now
    ``backup.tgz``: read again, it would be ``backup.tar``).  Where the
    names' layers leave it open, they are counted as the format a spelling
    is of reads them (``photos.tbz2`` become ``photos.tar.bz2``: the archive
    reader reads either whole, one layer, titled by it)."""
    return (_layered_title(title, _inner_names(old), _inner_names(new))
            or _layered_title(title, _read_names(old), _read_names(new)))


def _layered_title(title: str, olds: list[str], news: list[str]) -> str | None:
    """The title at the layer of ``news`` that ``title`` is at in ``olds``; None if not one."""
    deepest = max(len(olds), len(news))
    # past the end of its list a name is its last (inner_name changes it no more)
    layers = [n for n in range(deepest) if as_stored(olds[min(n, len(olds) - 1)]) == title]
    titles = {as_stored(news[min(n, len(news) - 1)]) for n in layers}
    return titles.pop() if len(titles) == 1 else None


def read_alike(old: str, new: str) -> bool:
    """Whether a file read under the name ``old`` is read under ``new`` as
    it was, but for the name itself (a title by it, a failure's words):
    the same suffix, case aside, at each layer of compression, and a tar
    named at the same layers (``.tar.`` in ``x.tar.bz2``: the bzip2 data is
    the archive reader's).  Taken strictly, by the name alone: ``a.tgz`` and
    ``a.tar.gz`` are told alike from the file (:func:`read_alike_here`); a
    PDF named ``.bak`` and ``.pdf`` (its content says PDF) reads alike but is
    not said to -- a file renamed so is read again, which costs a read and
    gives what it gave."""
    return _suffixes(old) == _suffixes(new)


def read_alike_here(path: Path, old: str, new: str) -> bool:
    """Whether the file at ``path``, read under the name ``old``, is read
    under ``new`` as it was: :func:`read_alike`, or its names two spellings
    of one format's suffix (``Format.spellings``: ``page.htm`` become
    ``page.html``) and the file that format by its content and either name
    -- a binary file named ``.jpg`` is refused in words that quote its
    suffix, a bzip2 tar named ``.tgz`` is read as a compressed file and
    named ``.tar.gz`` as a tar: both are read again; so is gzip data named
    ``.tbz2`` then ``.tar.bz2``, which the compressed reader reads, not the
    archive reader whose spellings they are."""
    if read_alike(old, new):
        return True
    (old_as, old_by), (new_as, new_by) = _respelling(old), _respelling(new)
    if _suffixes(old_as) != _suffixes(new_as):
        return False
    read_by = _format_of(path, old)
    return read_by is not None and read_by == _format_of(path, new) and {old_by, new_by} <= {read_by, None}


@functools.cache
def _spellings() -> tuple[tuple[str, str, str], ...]:
    """(a name's ending, the ending it is a spelling of, their format) for every format's spellings, the longest
    first."""
    found = [(other, group[0], fmt.name) for fmt in formats().values() for group in fmt.spellings
             for other in group]
    return tuple(sorted(found, key=lambda spelling: -len(spelling[0])))


def _respelling(name: str) -> tuple[str, str | None]:
    """``name`` with its ending in the spelling its format reads it as (``page.htm``: ``page.html``), and that
    format; ``name`` and None for an ending that is no spelling."""
    for ending, first, fmt in _spellings():
        if name.lower().endswith(ending) and len(name) > len(ending):
            return name[:-len(ending)] + first, fmt
    return name, None


def _read_names(name: str) -> list[str]:
    """``name``, then the names inside it at each layer of compression as the format its ending is a spelling
    of reads them (:func:`_inner_names` of it respelled): ``x.tar.bz2`` is one layer, as ``x.tbz2`` is."""
    return [name, *_inner_names(_respelling(name)[0])[1:]]


def _format_of(path: Path, name: str) -> str | None:
    """The format the registry reads the file at ``path`` as, named ``name``; None if it refuses it."""
    try:
        return sniff(Source(name=name, path=path))
    except Exception:  # noqa: BLE001 -- refused, damaged or gone: the read says which
        return None


def _suffixes(name: str) -> list[tuple[str, bool]]:
    """What a reader takes from ``name`` at each layer of compression: its last suffix, and whether it says a tar."""
    return [(PurePosixPath(n).suffix.lower(), ".tar." in n.lower()) for n in _inner_names(name)]


def _inner_names(name: str) -> list[str]:
    """``name``, then what each layer of compression its suffixes say would hold: ``a.tar.gz``, ``a.tar``."""
    names = [name]
    while (inner := inner_name(names[-1])) != names[-1]:
        names.append(inner)
    return names
