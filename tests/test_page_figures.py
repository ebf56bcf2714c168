"""An item's page and a cluster's (``show``, the web view) measure each
member against the representative and the item against texts in other
clusters: the representative cut once, only the figures shown computed, the
distance elsewhere cut off past its bound -- and every figure the one
``compare`` gives the two texts, on drafts of a manual longer than
``distance.HINTED_WORDS`` (whose blocks moved) and the sample corpus's real
drafts, in a store on each backend.  A results test: the old page called
``compare`` for each pair."""

from __future__ import annotations

import functools
import random
import shutil
from pathlib import Path

import numpy as np
from manual_formats import chapters

from lifededup.fingerprint.compare import Comparison
from lifededup.fingerprint.compare import compare as compared
from lifededup.fingerprint.distance import HINTED_WORDS
from lifededup.index import IndexConfig, run
from lifededup.store import Store, open_store
from lifededup.store.queries import NEAR_ELSEWHERE, explain, near_elsewhere

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"


def manual(seed: int) -> list[str]:
    """The words of a manual of 130 chapters, about 24,000 words."""
    words = " ".join(f"{heading}. {text}" for heading, text in chapters(seed, count=130, words=180)).split()
    assert len(words) > HINTED_WORDS, f"{len(words)} words: not a long text"
    return words


def drafted(words: list[str], rng: random.Random, moved: int, edited: float) -> str:
    """``words`` with ``moved`` chapters' worth of blocks moved elsewhere and a share of words replaced."""
    out = list(words)
    for _ in range(moved):
        at = rng.randrange(len(out) - 200)
        block = out[at:at + 190]
        del out[at:at + 190]
        there = rng.randrange(len(out))
        out[there:there] = block
    for _ in range(int(edited * len(out))):
        out[rng.randrange(len(out))] = rng.choice(("amended", "revised", "replaced", "struck", "inserted"))
    return " ".join(out)


def archive(folder: Path) -> None:
    """A manual and its drafts: three near it (two with chapters moved), one
    40% away (a cluster of its own, near enough to be listed beside it), and
    the sample corpus's garden club reports, real drafts of each other."""
    rng = random.Random(26)
    words = manual(5)
    folder.mkdir()
    texts = {"manual.txt": " ".join(words), "moved.txt": drafted(words, rng, 6, 0.01),
             "edited.txt": drafted(words, rng, 0, 0.08), "both.txt": drafted(words, rng, 3, 0.12),
             "far.txt": drafted(words, rng, 8, 0.40)}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    shutil.copytree(CORPUS / "Documents/garden-club-report", folder / "garden-club-report")


@functools.cache  # the truth of one pair of texts, made once: the same drafts are in the store of each backend
def compare(a: str, b: str) -> Comparison:
    return compared(a, b)


def text_of(store: Store, item_id: int) -> str:
    return str(store.execute("SELECT text FROM items WHERE id = :i", {"i": item_id})[1][0][0])


def test_a_pages_figures_are_compares_for_each_member_and_each_text_elsewhere(store_url: str, tmp_path: Path) -> None:
    archive(tmp_path / "archive")
    with open_store(store_url) as store:
        run(store, [tmp_path / "archive"], IndexConfig(workers=1))
        _, rows = store.execute("SELECT item_id FROM clusters ORDER BY item_id")
        moves_counted = listed = 0
        for (item_id,) in rows:
            page = explain(store, int(item_id), elsewhere=True)
            assert page.cluster_id is not None
            rep_text = text_of(store, page.cluster_id)
            for reason in page.reasons:
                if reason.exact:
                    assert (reason.resemblance, reason.word_edit_distance) == (1.0, 0.0), reason
                    continue
                said = compare(rep_text, text_of(store, reason.item.id))
                assert (reason.resemblance, reason.word_edit_distance) == (said.resemblance,
                                                                          said.word_edit_distance), (
                    f"item {item_id}'s page says {reason} of member {reason.item.id}; compare says {said}")
                moves_counted += said.word_edit_distance < said.plain_word_edit_distance
            item_text = text_of(store, int(item_id))
            for near in page.elsewhere:
                said = compare(item_text, text_of(store, near.item.id))
                assert (near.shared_features, near.resemblance, near.word_edit_distance) == (
                    said.shared_features, said.resemblance, said.word_edit_distance), (
                    f"item {item_id}'s page says {near} of {near.item.id} elsewhere; compare says {said}")
                assert near.word_edit_distance <= NEAR_ELSEWHERE, near
                # its cluster's nearest member (the others measured only as far as they might be nearer)
                _, members = store.execute("SELECT item_id FROM clusters WHERE cluster_id = :c", {"c": near.cluster_id})
                farther = {int(m): compare(item_text, text_of(store, int(m))).word_edit_distance for (m,) in members}
                assert min(farther.values()) == near.word_edit_distance, (near, farther)
                # the bound is the figure's, to the last bit: a text at it listed, none just under it
                at = near_elsewhere(store, int(item_id), within=near.word_edit_distance)
                under = near_elsewhere(store, int(item_id), within=float(np.nextafter(near.word_edit_distance, 0.0)))
                assert near in at and near.cluster_id not in {n.cluster_id for n in under}, (near, at, under)
                listed += 1
    assert moves_counted >= 2 and listed >= 2, (
        f"the drafts did not make the pages this test is about: {moves_counted} members whose moved blocks "
        f"made their distance, {listed} texts listed elsewhere")
