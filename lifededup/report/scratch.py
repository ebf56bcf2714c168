"""Clustering fingerprints without touching the user's store: they are
copied into a throw-away store in a temporary folder, and that store's own
``recluster`` forms the clusters -- the very code that keeps the user's
clusters, so an experiment and the real store cannot disagree on how."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lifededup.config import FingerprintParams
from lifededup.store import FEATURE_COLUMNS, Method, open_store


@dataclass(frozen=True)
class Fingerprinted:
    """What clustering reads of an item: its SHA-1 and features."""

    item_id: int
    sha1: str
    features: tuple[int, ...] | None


_ITEM = "INSERT INTO items (id, path, indexed_at, status) VALUES (?, ?, '1970-01-01 00:00:00', 'ok')"
_FINGERPRINT = (f"INSERT INTO fingerprints (item_id, sha1, {', '.join(FEATURE_COLUMNS)}, words, shingles, "
                f"is_representative) VALUES (?, ?, {', '.join('?' * len(FEATURE_COLUMNS))}, 0, 0, 0)")


def _rows(items: Sequence[Fingerprinted]) -> Iterator[tuple[object, ...]]:
    blank = (None,) * len(FEATURE_COLUMNS)
    for item in items:
        yield (item.item_id, item.sha1, *(item.features or blank))


def cluster_apart(items: Sequence[Fingerprinted], params: FingerprintParams,
                  methods: Sequence[Method]) -> dict[Method, dict[int, int]]:
    """For each method, every item's cluster (named by its representative's
    item id), formed in item-id order as the store forms them."""
    with tempfile.TemporaryDirectory(prefix="lifededup-scratch-") as folder:
        with open_store(Path(folder) / "scratch.db") as scratch:
            scratch.set_params(params)
            with scratch.transaction() as conn:
                if not items:
                    return {method: {} for method in methods}
                # ids kept as they are, so "earliest" means the same here
                conn.exec_driver_sql(_ITEM, [(i.item_id, str(i.item_id)) for i in items])
                conn.exec_driver_sql(_FINGERPRINT, list(_rows(items)))
            found: dict[Method, dict[int, int]] = {}
            for method in methods:
                scratch.recluster(method)
                _, rows = scratch.execute("SELECT item_id, cluster_id FROM clusters")
                found[method] = {int(r[0]): int(r[1]) for r in rows}  # type: ignore[call-overload]
            return found
