"""A date in a file's name (``2023-08-25.txt``, ``scan_20230825.pdf``): the
better guess of a document's date when its format records none -- journal
notes and scans are named by their day, while the mtime is the day the file
was last copied."""

from __future__ import annotations

import re
from datetime import date

# A year 1900-2099, month and day, with one separator (-, _ or .) used twice
# or none; no digit on either side, so longer numbers are not read as dates.
_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)([-_.]?)(0[1-9]|1[0-2])\2(0[1-9]|[12]\d|3[01])(?!\d)")


def date_in_name(name: str) -> date | None:
    """The first valid date written in ``name``, or None."""
    for match in _DATE.finditer(name):
        try:
            return date(int(match[1]), int(match[3]), int(match[4]))
        except ValueError:  # 2023-02-30
            continue
    return None
