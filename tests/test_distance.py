"""The word distance with moves (``fingerprint.distance``): a draft whose
paragraphs were moved is as close as its words say, on a real document of
sample_corpus/ and through a real store's clustering."""

from __future__ import annotations

import random
from array import array
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from lifededup.extract import extract
from lifededup.fingerprint.compare import word_edit_distance
from lifededup.fingerprint import distance
from lifededup.fingerprint.distance import (
    HINTED_WORDS, MOVE_COST, TILE_WORDS, bag_distance, in_order, moved_distance, word_distance, word_distances,
)
from lifededup.index import IndexConfig, run
from lifededup.normalize import word_stream
from lifededup.store import open_store
from lifededup.store.similarity import DEFAULT_MAX_WORD_DISTANCE, bounded_word_distance

REPORT = Path(__file__).resolve().parent.parent / "sample_corpus/Documents/garden-club-report/garden-club-report-v3.docx"


def paragraphs() -> list[str]:
    found = extract(REPORT).text.split("\n\n")
    assert len(found) >= 12, f"the report has {len(found)} paragraphs"
    return found


def words(text: str) -> list[str]:
    return word_stream(text).split()


def test_a_moved_quarter_and_swapped_paragraphs_cost_a_move_each() -> None:
    """The last quarter moved to the front was 50% apart in plain word edit
    distance (every word deleted and inserted again), two paragraphs
    swapped 37%: both were refused by the 30% rule, as different documents."""
    parts = paragraphs()
    original = words("\n\n".join(parts))
    quarter = len(parts) * 3 // 4
    moved = words("\n\n".join(parts[quarter:] + parts[:quarter]))
    swapped_parts = list(parts)
    swapped_parts[3], swapped_parts[9] = swapped_parts[9], swapped_parts[3]
    swapped = words("\n\n".join(swapped_parts))
    for name, other, most_moves in (("a quarter moved", moved, 1), ("two paragraphs swapped", swapped, 2)):
        plain = Levenshtein.distance(original, other)
        assert plain > DEFAULT_MAX_WORD_DISTANCE * len(original) * 0.5, f"{name}: plainly {plain} edits"
        found = word_distance(original, other)
        assert found is not None and MOVE_COST <= found <= most_moves * MOVE_COST, f"{name}: {found} edits with moves"
        # bounded, as a clustering verifies it: admitted, at most the plain distance (moves are counted
        # only where that is over the bound)
        bounded = bounded_word_distance(original, other, DEFAULT_MAX_WORD_DISTANCE)
        assert bounded is not None and found / len(original) <= bounded <= plain / len(original), (name, bounded)
        assert word_edit_distance(" ".join(original), " ".join(other)) == found / len(original)
        # what it counts is a way from one text to the other: the same words, put back in order
        ordered, moves = in_order(original, other)
        assert Counter(ordered) == Counter(other), name
        assert Levenshtein.distance(original, ordered) + moves * MOVE_COST == found, name


def test_short_texts_of_the_same_sentences_shuffled_stay_apart() -> None:
    """Two diary entries of sample_corpus/, five sentences each, four of
    them the same in another order: a move counted as one edit made them
    22% apart, near copies; a move costs as much as retyping a short block."""
    journal = REPORT.parents[2] / "Journal/2023"
    february, april = (words(extract(journal / name).text) for name in ("2023-02-03.txt", "2023-04-10.txt"))
    assert bounded_word_distance(february, april, DEFAULT_MAX_WORD_DISTANCE) is None


def test_without_moves_it_is_the_plain_distance_and_never_below_the_bag_bound() -> None:
    parts = paragraphs()
    original = words("\n\n".join(parts))
    edited = words("\n\n".join(p.replace("the", "a").replace("garden", "allotment") for p in parts))
    plain = Levenshtein.distance(original, edited)
    assert word_distance(original, edited) == plain and bag_distance(original, edited) <= plain
    assert word_distance(original, edited, allowed=plain - 1) is None
    assert word_distance(original, list(original)) == 0


def test_a_pairs_distance_does_not_depend_on_which_text_comes_first() -> None:
    """The greedy tiling walks one text: two Debian copyright files measured
    31.0% one way and 28.1% the other, so the store admitted a member that
    verify then measured over the 30% bound. The report's paragraphs,
    cut into blocks, shuffled and edited, measure the same both ways, bounded
    or not."""
    import random

    report = words(" ".join(paragraphs()))
    shuffled = random.Random(13)
    for _ in range(150):
        start = shuffled.randrange(len(report) - 140)
        left = report[start : start + shuffled.randrange(60, 140)]
        cuts = sorted(shuffled.sample(range(1, len(left)), 3))
        blocks = [left[a:b] for a, b in zip([0, *cuts], [*cuts, len(left)])]
        shuffled.shuffle(blocks)
        right = [w for block in blocks for w in block]
        for _ in range(shuffled.randrange(8)):
            right[shuffled.randrange(len(right))] = shuffled.choice(report)
        there, back = word_distance(left, right), word_distance(right, left)
        assert there == back, (there, back, left, right)
        if there:  # bounded just below it, both ways refuse the pair
            assert word_distance(left, right, there - 1) is None and word_distance(right, left, there - 1) is None


def test_moved_distance_is_word_distances_figure_or_none_past_its_bound() -> None:
    """What a page shows (``moved_distance``: a long pair's plain and
    reordered distances sought together, band by band) is the figure
    ``word_distances`` counts moves into, on a manual longer than
    ``HINTED_WORDS`` and on the report; bounded, that figure within the
    bound -- not the plain one, as ``word_distance``'s -- and None past it."""
    from manual_formats import chapters

    rng = random.Random(26)
    long_text = " ".join(text for _, text in chapters(5, count=130, words=180)).split()
    assert len(long_text) > HINTED_WORDS
    seen: Counter[tuple[str, bool]] = Counter()
    for base in (long_text, words("\n\n".join(paragraphs()))):
        for blocks, edited in ((0, 0.0), (0, 0.03), (3, 0.0), (5, 0.01), (12, 0.05), (2, 0.3), (15, 0.45)):
            other = list(base)
            for _ in range(blocks):
                size = rng.randrange(TILE_WORDS, len(base) // 8)
                at = rng.randrange(len(other) - size)
                block = other[at:at + size]
                del other[at:at + size]
                there = rng.randrange(len(other))
                other[there:there] = block
            for _ in range(int(edited * len(other))):
                other[rng.randrange(len(other))] = rng.choice(("amended", "struck", "inserted"))
            plain, moved = word_distances(base, other)
            assert moved_distance(base, other) == moved == moved_distance(other, base), (blocks, edited, plain, moved)
            for allowed in {0, moved - 1, moved, (moved + plain) // 2, plain}:
                got = moved_distance(base, other, max(allowed, 0))
                assert got == (moved if moved <= max(allowed, 0) else None), (blocks, edited, plain, moved, allowed)
            seen["long" if len(base) > HINTED_WORDS else "short", moved < plain] += 1
    assert seen["long", True] >= 3 and seen["long", False] >= 2, seen


def test_a_store_clusters_a_draft_whose_paragraphs_moved(tmp_path: Path) -> None:
    """Through the store's clustering, whose words are hashes in an
    ``array('Q')``: the reordered words must come back as one too (rapidfuzz
    takes a list and an array of the same numbers for different words)."""
    parts = paragraphs()
    folder = tmp_path / "drafts"
    folder.mkdir()
    (folder / "report.docx").write_bytes(REPORT.read_bytes())
    quarter = len(parts) * 3 // 4
    (folder / "report reordered.txt").write_text("\n\n".join(parts[quarter:] + parts[:quarter]), encoding="utf-8")
    with open_store(tmp_path / "store.db") as store:
        run(store, [folder], IndexConfig(workers=1))
        rows = store.execute("SELECT c.cluster_id, c.word_distance FROM clusters c ORDER BY c.item_id")[1]
    assert len({r[0] for r in rows}) == 1, f"a reordered draft is a cluster of its own: {rows}"
    assert max(float(r[1]) for r in rows) < 0.02, rows


def test_compare_says_when_moved_blocks_made_the_distance(tmp_path: Path) -> None:
    """A document with its paragraphs reordered showed a small distance and
    "shared features 0 of 6", with no word of why: compare gives the plain
    distance beside it."""
    import json

    from click.testing import CliRunner

    from lifededup.cli import main

    parts = paragraphs()
    quarter = len(parts) * 3 // 4
    (tmp_path / "a.txt").write_text("\n\n".join(parts), encoding="utf-8")
    (tmp_path / "b.txt").write_text("\n\n".join(parts[quarter:] + parts[:quarter]), encoding="utf-8")
    shown = CliRunner().invoke(main, ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]).output
    assert "blocks of words moved: each counted as 8 edits;" in shown and "counting every word moved" in shown, shown
    data = json.loads(CliRunner().invoke(main, ["compare", "--json", str(tmp_path / "a.txt"),
                                                 str(tmp_path / "b.txt")]).output)
    assert data["plain_word_edit_distance"] > 0.3 > data["word_edit_distance"] and data["clustered"], data



def greedy_tiles(left: list[object], right: list[object]) -> list[tuple[int, int, int]]:
    """The tiling as its docstring defines it, word by word: at each place of
    ``right`` the run of at least TILE_WORDS words found in ``left`` -- where
    the last run ended if it is there, else its first place -- grown as far
    as the words agree."""
    k = TILE_WORDS
    tiles: list[tuple[int, int, int]] = []
    expected = j = 0
    while j <= len(right) - k:
        places = [i for i in range(len(left) - k + 1) if left[i:i + k] == right[j:j + k]]
        if not places:
            j += 1
            continue
        i = expected if expected in places else places[0]
        length = k
        while i + length < len(left) and j + length < len(right) and left[i + length] == right[j + length]:
            length += 1
        tiles.append((j, i, length))
        expected, j = i + length, j + length
    return tiles


@given(st.data())
def test_the_runs_found_by_their_keys_are_the_greedy_tiling(data: st.DataObject) -> None:
    """The runs of a long pair are looked up by a 64-bit key of their words,
    all at once, a short pair's by their words: either way the runs of the
    word-by-word definition, for words that are small numbers (few words,
    repeated: runs that recur), strings, and the store's hashes in an
    ``array('Q')``."""
    vocabulary = data.draw(st.integers(2, 40))
    left = data.draw(st.lists(st.integers(0, vocabulary), max_size=90))
    right = list(left)
    for _ in range(data.draw(st.integers(0, 5))):
        if len(right) > 12 and data.draw(st.booleans()):  # a block moved
            start = data.draw(st.integers(0, len(right) - 10))
            end = data.draw(st.integers(start + 1, min(len(right), start + 40)))
            block, right[start:end] = right[start:end], []
            at = data.draw(st.integers(0, len(right)))
            right[at:at] = block
        elif right:  # a word changed
            right[data.draw(st.integers(0, len(right) - 1))] = data.draw(st.integers(0, vocabulary))
    want = greedy_tiles(list(left), right)
    for keyed_past in (distance.KEYED_WORDS, 0):  # short texts word by word, long ones by numpy's keys
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(distance, "KEYED_WORDS", keyed_past)
            for one, other in ((left, right), ([str(w) for w in left], [str(w) for w in right]),
                               (array("Q", left), array("Q", right))):
                assert distance._tiles(one, other) == want, (keyed_past, one, other)


def drafts_sharing_their_ends(rng: random.Random, base: list[str], pairs: int) -> list[tuple[list[str], list[str]]]:
    """Drafts of ``base`` changed in one stretch only, the rest a shared start
    and end: words edited there, a block moved within it or brought in from
    the shared part (so that the tiling, which reads the whole texts, finds
    blocks the middles alone lack), the stretch cut or doubled."""
    found = []
    for _ in range(pairs):
        other = list(base)
        start = rng.randrange(len(base) - 40)
        end = min(len(base), start + rng.randrange(20, max(21, len(base) // rng.choice((3, 10, 40)))))
        for _ in range(rng.randrange(3)):  # a block moved within the stretch
            size = rng.randrange(TILE_WORDS, max(TILE_WORDS + 1, (end - start) // 2))
            at = rng.randrange(start, max(start + 1, end - size))
            block = other[at:at + size]
            del other[at:at + size]
            there = rng.randrange(start, max(start + 1, end - size))
            other[there:there] = block
        if rng.random() < 0.4:  # a block of the shared start copied into the stretch
            at = rng.randrange(max(1, start - TILE_WORDS * 3))
            other[end:end] = base[at:at + TILE_WORDS * rng.randrange(1, 4)]
        for _ in range(int((end - start) * rng.choice((0.0, 0.02, 0.1, 0.4)))):
            other[rng.randrange(start, min(end, len(other)))] = rng.choice(("amended", "struck", "inserted"))
        if rng.random() < 0.2:
            other[start:end] = []
        found.append((base, other) if rng.random() < 0.5 else (other, base))
    return found


def figures(left: distance.Words, right: distance.Words) -> tuple[int, ...]:
    """Every figure a pair is measured by: bag bound, plain and moved distances, and the bounded ones."""
    plain, moved = word_distances(left, right)
    bounded = [word_distance(left, right, max(allowed, 0)) for allowed in (moved - 1, moved, plain - 1)]
    return (bag_distance(left, right), plain, moved, word_distance(left, right, moves=False) or 0,
            moved_distance(left, right) or 0, *(-1 if found is None else found for found in bounded))


def test_the_figures_of_drafts_sharing_their_ends_are_those_measured_before() -> None:
    """A pair is measured on its middles, the words both share at either end
    cut (the plain distance's known identity), the tiling still on the whole
    texts: a manual's drafts (longer than ``HINTED_WORDS``, measured band by
    band) and the report's measure what they measured before (the figures
    written here are those of 51416e7, every word compared)."""
    from manual_formats import chapters

    rng = random.Random(27)
    manual = " ".join(text for _, text in chapters(5, count=130, words=180)).split()
    report = words("\n\n".join(paragraphs()))
    pairs = [pair for base, count in ((manual, 6), (report, 12)) for pair in drafts_sharing_their_ends(rng, base, count)]
    assert [figures(left, right) for left, right in pairs] == PINNED_FIGURES
    # as the store's words (numpy cuts their ends): the same figures
    hashed = [figures(distance.hashed_words(left), distance.hashed_words(right)) for left, right in pairs]
    assert hashed == PINNED_FIGURES


# bag, plain, moved, plain (moves=False), moved_distance, word_distance within moved - 1, moved, plain - 1 (-1: None)
PINNED_FIGURES = [
    (120, 144, 144, 144, 144, -1, 144, -1),
    (15, 358, 48, 358, 48, -1, 48, 48),
    (284, 284, 284, 284, 284, -1, 284, -1),
    (0, 0, 0, 0, 0, 0, 0, 0),
    (0, 1514, 8, 1514, 8, -1, 8, 8),
    (0, 386, 16, 386, 16, -1, 16, 16),
    (0, 2, 2, 2, 2, -1, 2, -1),
    (6, 17, 17, 17, 17, -1, 17, -1),
    (24, 26, 26, 26, 26, -1, 26, -1),
    (19, 25, 25, 25, 25, -1, 25, -1),
    (26, 26, 26, 26, 26, -1, 26, -1),
    (8, 35, 24, 35, 24, -1, 24, 24),
    (4, 4, 4, 4, 4, -1, 4, -1),
    (112, 113, 113, 113, 113, -1, 113, -1),
    (0, 14, 14, 14, 14, -1, 14, -1),
    (7, 7, 7, 7, 7, -1, 7, -1),
    (104, 104, 104, 104, 104, -1, 104, -1),
    (8, 16, 16, 16, 16, -1, 16, -1),
]


@given(st.integers(0, 2**32), st.sampled_from([list, distance.hashed_words]))
def test_cut_ends_measure_as_whole_texts(seed: int, kind: object) -> None:
    """Any draft sharing its start and end with its text: the plain distance
    is rapidfuzz's of the whole texts, the moved one the least of it and of
    each way's whole text reordered (``in_order``) plus its moves, bounded as
    ``word_distance`` and ``moved_distance`` say."""
    rng = random.Random(seed)
    vocabulary = [f"w{n}" for n in range(rng.choice((5, 50, 5000)))]
    base = [rng.choice(vocabulary) for _ in range(rng.choice((60, 200, 900)))]
    for left, right in drafts_sharing_their_ends(rng, base, 2):
        one, other = kind(left), kind(right)  # type: ignore[operator]
        plain = Levenshtein.distance(one, other)
        moved = min([plain] + [Levenshtein.distance(a, ordered) + count * MOVE_COST
                               for a, b in ((one, other), (other, one))
                               for ordered, count in [in_order(a, b)] if count])
        assert word_distances(one, other) == (plain, moved)
        assert bag_distance(one, other) == bag_distance(list(left), list(right)) <= moved
        flipped = list(reversed(left))  # next to no shared ends: the store's words counted by numpy
        assert bag_distance(kind(flipped), other) == sum((Counter(flipped) - Counter(right)).values()) + max(  # type: ignore[operator]
            0, len(right) - len(flipped))
        for allowed in {0, moved - 1, moved, plain - 1, plain}:
            if allowed >= 0:
                assert moved_distance(one, other, allowed) == (moved if moved <= allowed else None)
                assert word_distance(one, other, allowed) == (
                    plain if plain <= allowed else moved if moved <= allowed else None)
