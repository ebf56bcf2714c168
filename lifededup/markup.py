"""reStructuredText's roles, which the reST reader leaves out of a text and a query leaves out likewise.

Its own module, of ``re`` alone: the search command imports it without the
extractors (``lifededup.extract`` takes 0.13 s to import), and the reader
without the store.
"""

from __future__ import annotations

import re

# ``:role:`text``` (``:py:meth:`` too) and ```text`:role:``: the text is shown, not the role.  No
# look-behind: a pattern that starts with its colon is sought as a literal (a look-behind before it made
# the substitution 25 times slower, 3 s over the two real archives' 31 MB of sources)
RST_ROLE = re.compile(r":[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*:(?=`)")
RST_ROLE_AFTER = re.compile(r"`:[A-Za-z][\w.+-]*:")


def without_roles(text: str) -> str:
    """``text`` without the reST roles around its interpreted text: ``:meth:`Flask.route``` -> ```Flask.route```."""
    return RST_ROLE_AFTER.sub("`", RST_ROLE.sub("", text))
