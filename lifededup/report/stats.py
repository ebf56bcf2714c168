"""``stats``: seeds/000 Table 2 and Table 1 for the user's own store, and the
paper's IDF experiment re-run on its texts without changing the store."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from lifededup.config import FingerprintParams
from lifededup.fingerprint.sources import fingerprint_sources
from lifededup.model import Fingerprint
from lifededup.normalize import DocFrequencies, words
from lifededup.report.counts import Counts, Member, Table1, table1, table2
from lifededup.report.apart import Fingerprinted, cluster_apart, cluster_store_apart
from lifededup.store import FEATURE_COLUMNS, METHODS, Method, Store

# {text}: the items' texts, read only for the IDF columns
_FINGERPRINTED = (
    "SELECT f.item_id, i.kind, f.sha1, c.cluster_id, " + ", ".join(f"f.{f}" for f in FEATURE_COLUMNS)
    + ", {text} FROM fingerprints f JOIN items i ON i.id = f.item_id JOIN clusters c ON c.item_id = f.item_id"
    " ORDER BY f.item_id"
)


@dataclass(frozen=True)
class Column:
    """One way of fingerprinting the store's texts, and what it finds."""

    label: str
    idf: float | None
    table2: dict[str, Counts]  # paper kind (and "total") -> counts, under the store's method
    table1: Table1

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "idf": self.idf, "table1": self.table1.to_dict(),
                "table2": {kind: c.to_dict() for kind, c in self.table2.items()}}


@dataclass(frozen=True)
class StatsReport:
    """The store's own fingerprints first, then one column per IDF filter."""

    location: str
    method: Method
    params: FingerprintParams
    columns: list[Column]

    def to_dict(self) -> dict[str, Any]:
        return {"store": self.location, "method": self.method, "params": self.params.to_dict(),
                "columns": [c.to_dict() for c in self.columns]}


@dataclass(frozen=True)
class _Read:
    """What the report reads of the store, in one statement."""

    members: list[Member]
    prints: list[Fingerprinted]  # SHA-1 and features: enough for transitive clustering
    stored: dict[int, int]  # item id -> its cluster, as the store keeps them
    texts: list[str]  # in the order of ``members``; empty unless asked for


def _read(store: Store, texts: bool) -> _Read:
    with store.transaction() as conn:
        rows = conn.exec_driver_sql(_FINGERPRINTED.format(text="i.text" if texts else "NULL")).all()
    return _Read(
        members=[Member(int(r[0]), str(r[1]), str(r[2])) for r in rows],
        # integers from both drivers (INTEGER, BIGINT): taken as they come
        prints=[Fingerprinted(int(r[0]), str(r[2]), None if r[4] is None else tuple(r[4:10])) for r in rows],
        stored={int(r[0]): int(r[3]) for r in rows},
        texts=[str(r[10] or "") for r in rows] if texts else [],
    )


def _label(idf: float | None) -> str:
    return "no IDF" if idf is None else f"IDF {idf:g}"


def _column(label: str, idf: float | None, members: list[Member], method: Method,
            clusters: dict[Method, dict[int, int]]) -> Column:
    return Column(label, idf, table2(members, clusters[method]),
                  table1(members, clusters["transitive"], clusters["conservative"]))


def _apart(store: Store, read: _Read, params: FingerprintParams, method: Method) -> dict[Method, dict[int, int]]:
    """The clustering the store does not keep, formed apart: transitive
    clusters from the fingerprints just read (they need neither sketches nor
    texts), conservative ones by the store's own rule from everything it reads."""
    if method == "conservative":
        return cluster_apart(read.prints, params, ["transitive"])
    return cluster_store_apart(store, ["conservative"])


def _text(text: str) -> list[tuple[None, str]]:
    return [(None, text)]


def _fingerprint_all(texts: list[str], params: FingerprintParams, frequencies: DocFrequencies) -> list[Fingerprint]:
    """Every text fingerprinted again, on every core, in order."""
    prints: list[Fingerprint] = []
    for _, found in fingerprint_sources(texts, _text, sizes=[len(t) for t in texts], params=params,
                                        doc_freq=frequencies):
        if found is None:  # _text gives every source its text
            raise RuntimeError("a text came back without a fingerprint")
        prints.append(found)
    return prints


def document_frequencies(texts: Sequence[str]) -> DocFrequencies:
    """In how many texts each word occurs: the collection statistics of the
    low-IDF filter (seeds/000 section 2.2 step 3)."""
    counts = Counter(chain.from_iterable(set(words(text)) for text in texts))
    return DocFrequencies(documents=len(texts), counts=counts)


def stats(store: Store, idf: Sequence[float] = ()) -> StatsReport:
    """Table 2 and Table 1 of the store; with ``idf`` thresholds, the same
    columns again for the texts fingerprinted through each low-IDF filter
    (seeds/000 section 4 tried 4.0 and 5.0) and clustered apart by the store's own rule:
    the user's store is only read."""
    params = store.params or FingerprintParams()
    method = store.cluster_method
    read = _read(store, texts=bool(idf))
    members = read.members
    clusters: dict[Method, dict[int, int]] = {method: read.stored, **_apart(store, read, params, method)}
    columns = [_column(_label(params.filters.idf), params.filters.idf, members, method, clusters)]
    if idf:
        frequencies = document_frequencies(read.texts)
        by_id = {m.item_id: t for m, t in zip(members, read.texts)}
        for threshold in idf:
            filtered = params.with_filters(idf=threshold)
            again = _fingerprint_all(read.texts, filtered, frequencies)
            prints = [Fingerprinted(m.item_id, f.sha1, f.features, f.sketch, f.words) for m, f in zip(members, again)]
            columns.append(_column(_label(threshold), threshold, members, method,
                                   cluster_apart(prints, filtered, METHODS, store.cluster_rule, by_id)))
    return StatsReport(str(store.location), method, params, columns)
