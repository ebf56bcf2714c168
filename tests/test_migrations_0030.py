"""Revision 0030 on a populated store, both backends: a sheet of readings
with notes added was sampled without its numbers (its words alone made
enough shingles), a cluster apart from the sheet; 0030 marks its file to be
read again, and the next ``index`` samples it with its numbers, beside the
sheet. A sheet sampled with its numbers already, and prose, are not read
again."""

from __future__ import annotations

import random
from pathlib import Path

from store_samples import prose
from test_migrations import downgrade_to, read_again_at

from lifededup.fingerprint.engine import DEFAULT_PARAMS, _batch_minima, _features, _shingle_batch
from lifededup.index import IndexConfig, run
from lifededup.model import Fingerprint
from lifededup.store import open_store
from lifededup.store.records import ItemRecord


def _sampled_as_before(text: str) -> Fingerprint:
    """The fingerprint revision 0029's code made of a text its words alone
    sample: its numbers filtered, with a sketch."""
    import hashlib

    batch = _shingle_batch([text], DEFAULT_PARAMS, None)
    minima, complete = _batch_minima(batch, DEFAULT_PARAMS.minima)
    assert complete[0], "its words alone make a sample"
    return Fingerprint(sha1=hashlib.sha1(batch.streams[0]).hexdigest(), features=_features(minima[0]),
                       words=int(batch.words[0]), shingles=int(batch.counts[0]), params=DEFAULT_PARAMS,
                       sketch=minima[0].astype(">u8").tobytes())


def _clusters(store_url: str) -> dict[str, int]:
    with open_store(store_url, migrate=False, readonly=True) as store:
        _, rows = store.execute("SELECT i.path, c.cluster_id FROM items i JOIN clusters c ON c.item_id = i.id")
    return {Path(str(p)).name: int(str(c)) for p, c in rows}


def test_0030_reads_again_a_sheet_sampled_without_its_numbers(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "sheets"
    folder.mkdir()
    rng = random.Random(3)
    rows = ["date,site,reading,temperature"] + [f"2024-03-{d % 28 + 1:02},site a,{rng.randint(100, 999)},"
                                                f"{rng.randint(0, 30)}" for d in range(80)]
    (folder / "readings.csv").write_text("\n".join(rows) + "\n")
    (folder / "readings with notes.csv").write_text(
        "\n".join(rows) + "\nnotes: the March readings at site a were taken after the flood by the new volunteers "
        "from the school, so treat them with care until the calibration of the meter is checked again next spring "
        "by the county office\n")
    (folder / "letter.txt").write_text(prose(3))
    with open_store(store_url) as store:  # the rows written at head, then taken to 0029's state and revision
        run(store, [folder], IndexConfig(workers=1))
        _, [(item_id, text)] = store.execute("SELECT id, text FROM items WHERE path LIKE '%notes.csv'")
        notes = str(folder / "readings with notes.csv")
        _, [(size, mtime, raw)] = store.execute("SELECT size, mtime, raw_sha1 FROM items WHERE id = :i",
                                                {"i": item_id})
        # as 0029's code stored it: sampled without its numbers, so a cluster apart
        store.upsert_item(ItemRecord(notes, kind="text", mime_type="text/csv", size=size, mtime=mtime,
                                     raw_sha1=raw, text=str(text)), _sampled_as_before(str(text)))
    downgrade_to(store_url, "0029")
    before = _clusters(store_url)
    assert before["readings.csv"] != before["readings with notes.csv"], before

    with read_again_at(store_url, "0030", folder, {"readings.csv": False, "readings with notes.csv": True,
                                                    "letter.txt": False}):
        pass
    after = _clusters(store_url)
    assert after["readings.csv"] == after["readings with notes.csv"] != after["letter.txt"], after
