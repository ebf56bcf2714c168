"""Which files of a folder are indexed: junk and hidden files never, then the
folder's include and exclude patterns (shell globs, as in ``.gitignore``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type only: the store's folders module stands on SQLAlchemy
    from lifededup.store import WatchedFolder

# Files that are never documents: Finder/Explorer droppings, editors' swap
# and lock files, downloads in progress (paperless-ngx's consumer ignores the same).
JUNK_NAMES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini", "Icon\r", ".directory"})
JUNK_PATTERNS = (
    "~$*",           # Office's owner/lock file beside an open document
    ".~lock.*#",     # LibreOffice's lock file
    "*.swp", "*.swo", "*.swx", ".*.sw?",  # vim
    "*~", "#*#", ".#*",                   # emacs and others' backups and locks
    "*.part", "*.crdownload", "*.download", "*.partial", "*.tmp", "*.temp",
    # a mail server's own files in a Maildir: its folder mark, indexes and uid lists
    "maildirfolder", "dovecot.index*", "dovecot-uidlist", "dovecot-uidvalidity*", "dovecot-keywords",
    "dovecot.list.index*", "courierimapuiddb", "courierimapacl",
    # a mail program's own: Thunderbird's summary of each folder (a Mork database, text of hex numbers beside the
    # mailbox it sums up: it was read as a document)
    "*.msf",
)


def is_junk(name: str) -> bool:
    """A file no person saved on purpose (a lock, a swap file, a partial download)."""
    return name in JUNK_NAMES or any(fnmatchcase(name, p) for p in JUNK_PATTERNS)


def is_hidden(name: str) -> bool:
    return name.startswith(".")


# A web page saved whole ("Webpage, Complete": Firefox, Chrome, Edge, Internet Explorer) is NAME.html and,
# beside it, the folder of its pictures, stylesheets, scripts, fonts and frames: NAME_files, or as Windows
# names it in the browser's language (its "connected files": Explorer moves and deletes the two together).
PAGE_FOLDER_ENDINGS = ("_files", "-Dateien", "_archivos", "_arquivos", "_fichiers", "_file", "_bestanden", "_pliki",
                       "_soubory", "_tiedostot", "-filer", "_filer", "_elemei", "_dosyalar")
PAGE_ENDINGS = (".html", ".htm", ".xhtml", ".shtml")


def holds_page_parts(folder: str) -> bool:
    """Whether ``folder`` is the parts of a web page saved whole: named as such a folder, beside its page.
    They are the page's furniture -- its text is the page's, read from NAME.html -- and were read as
    documents of their own: a stylesheet and jQuery as text, each picture offered to OCR and counted failed,
    forty copies of each for a page saved forty times."""
    name = os.path.basename(folder)
    ending = next((e for e in PAGE_FOLDER_ENDINGS if name.endswith(e) and len(name) > len(e)), None)
    if ending is None:
        return False
    page = os.path.join(os.path.dirname(folder), name[:-len(ending)])
    return any(os.path.isfile(page + suffix) for suffix in PAGE_ENDINGS)


def page_parts_of(page: str) -> list[str]:
    """The folders of ``page``'s parts that are there beside it (``NAME_files`` beside ``NAME.html``)."""
    stem, suffix = os.path.splitext(page)
    if suffix.lower() not in PAGE_ENDINGS:
        return []
    return [stem + ending for ending in PAGE_FOLDER_ENDINGS if os.path.isdir(stem + ending)]


# A Maildir's own folders: a hidden folder holding them is a mail folder of
# Maildir++ (Dovecot's and Courier's `.Sent`, `.Archive.2019`), not a program's.
MAILDIR_FOLDERS = frozenset({"cur", "new", "tmp"})


@dataclass(frozen=True)
class FolderRules:
    """``include``: if given, only files matching one of these; ``exclude``:
    never files or folders matching one of these.  A pattern without ``/``
    matches a name at any depth; one with ``/`` matches the path relative to
    the watched folder."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    hidden: bool = False

    @classmethod
    def of(cls, folder: WatchedFolder) -> FolderRules:
        """A watched folder's patterns."""
        return cls(include=folder.include, exclude=folder.exclude)

    def admits_folder(self, relative: PurePath, *, maildir: bool = False) -> bool:
        """``maildir``: the folder holds a Maildir's cur/new/tmp (admitted though hidden)."""
        name = relative.name
        if not self.hidden and not maildir and is_hidden(name):
            return False
        return not _matches(relative, self.exclude)

    def admits_file(self, relative: PurePath) -> bool:
        name = relative.name
        if is_junk(name) or (not self.hidden and is_hidden(name)):
            return False
        if _matches(relative, self.exclude):
            return False
        return not self.include or _matches(relative, self.include)

    def admits_within(self, relative: PurePath, *, maildir: bool = False) -> bool:
        """A folder at this path, checking every folder on the way too ("." is
        the watched folder); ``maildir``: as :meth:`admits_folder`'s, of the folder itself."""
        if relative == PurePath("."):
            return True
        return self.admits_folder(relative, maildir=maildir) and self._on_the_way(relative)

    def admits(self, relative: PurePath) -> bool:
        """A file at this path, checking every folder on the way too."""
        return self._on_the_way(relative) and self.admits_file(relative)

    def _on_the_way(self, relative: PurePath) -> bool:
        """The folders above ``relative`` (a folder on the way to a Maildir's
        cur, new or tmp is a Maildir++ folder)."""
        parts = relative.parts
        return all(self.admits_folder(PurePath(*parts[: i + 1]), maildir=parts[i + 1] in MAILDIR_FOLDERS)
                   for i in range(len(parts) - 1))


def _matches(relative: PurePath, patterns: tuple[str, ...]) -> bool:
    posix = relative.as_posix()
    return any(fnmatchcase(posix if "/" in p else relative.name, p.rstrip("/")) for p in patterns)
