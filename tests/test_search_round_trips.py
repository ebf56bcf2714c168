"""A PostgreSQL search page's statements that go together go in one round
trip, as one query of the simple protocol (``results._pipelined``), their
parameters bound by psycopg on this side: the bound's decision (four
statements) and the page's settings with its first read.  What went on the
wire is read from libpq's own trace of the connection, on the real server."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
import pytest
from corpus_store import CorpusStore

from lifededup.search import results, search
from lifededup.store import open_reader
from lifededup.store.dialect import PgDriver


def traced(conn: psycopg.Connection[object], trace: Path, run: object) -> list[tuple[str, str]]:
    """The messages the client sent (F) while ``run()`` ran: (type, text) each."""
    with trace.open("w") as out:
        conn.pgconn.trace(out.fileno())
        try:
            run()  # type: ignore[operator]
        finally:
            conn.pgconn.untrace()
    sent = []
    for message in re.split(r"\n(?=\d{4}-\d\d-\d\d )", trace.read_text()):
        fields = message.split("\t", 4)
        if len(fields) == 5 and fields[1] == "F":
            sent.append((fields[3], fields[4]))
    return sent


def test_statements_sent_at_once_are_one_query_with_their_values_quoted(pg_url: str, tmp_path: Path) -> None:
    got: list[list[object]] = []
    with psycopg.connect(pg_url) as conn:
        sent = traced(conn, tmp_path / "trace", lambda: got.extend(results._pipelined(PgDriver(conn), [
            ("SELECT :said || '%'", {"said": "it's \\ 100%'; DROP TABLE x; --"}),
            ("SELECT 100 % 7", {}),  # a % of a statement without parameters is the operator
            ("SELECT :said = :said, :n + 1", {"said": "it's \\ 100%'; DROP TABLE x; --", "n": 41}),
        ])))
    assert got == [[("it's \\ 100%'; DROP TABLE x; --%",)], [(2,)], [(True, 42)]], got
    queries = [text for kind, text in sent if kind == "Query" and "BEGIN" not in text]
    assert len(queries) == 1 and not [kind for kind, _ in sent if kind in ("Parse", "Bind", "Execute")], sent


def test_statements_sent_at_once_may_not_give_one_parameter_two_values(pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn, pytest.raises(ValueError, match="two values"):
        results._pipelined(PgDriver(conn), [("SELECT :n", {"n": 1}), ("SELECT :n", {"n": 2})])


def test_a_search_pages_decision_and_first_read_each_go_in_one_round_trip(pg_corpus: CorpusStore,
                                                                          tmp_path: Path) -> None:
    with open_reader(pg_corpus.db) as reader:
        found: list[object] = []
        sent = traced(reader._conn, tmp_path / "trace",  # type: ignore[union-attr]
                      lambda: found.append(search(reader, "lighthouse", limit=5)))
    assert found and found[0].hits, "the sample's lighthouse is found"  # type: ignore[attr-defined]
    queries = [text for kind, text in sent if kind == "Query"]
    decision = [q for q in queries if "EXPLAIN" in q]
    assert len(decision) == 1 and decision[0].count("EXPLAIN") == 2 and "reltuples" in decision[0], queries
    first_read = [q for q in queries if "set_config" in q]
    assert len(first_read) == 1 and "MATERIALIZED" in first_read[0], queries
    assert not [text for kind, text in sent if kind == "Parse" and ("EXPLAIN" in text or "set_config" in text)]


def test_a_rare_words_items_and_copies_go_in_one_round_trip(pg_corpus: CorpusStore, tmp_path: Path) -> None:
    """Where the page read every match, the copies its rows hide are known
    before the rows' items are: the two statements go at once."""
    with open_reader(pg_corpus.db) as reader:
        found: list[object] = []
        sent = traced(reader._conn, tmp_path / "trace",  # type: ignore[union-attr]
                      lambda: found.append(search(reader, "lighthouse", limit=5)))
    hits = found[0].hits  # type: ignore[attr-defined]
    hiding = [h for h in hits if h.hidden]
    assert hiding and all(len(h.copies) == h.hidden for h in hiding), hits  # the sample's copies are shown
    queries = [text for kind, text in sent if kind == "Query"]
    together = [q for q in queries if "ts_headline" in q]
    assert len(together) == 1 and "FROM clusters c JOIN items i" in together[0], queries
    assert not [text for kind, text in sent if kind == "Parse" and "FROM clusters c JOIN items i" in text], sent
