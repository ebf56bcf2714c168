"""The word distance of two texts: how many words must change to make one
the other, as the paper checks near copies (seeds/000 section 3.1) -- with a
moved block of words counted as a few edits, not as every word it holds.

Plain word edit distance (Levenshtein over words: insertions, deletions and
substitutions) counts a paragraph moved from the end to the front as every
one of its words deleted and inserted again: a draft whose last quarter was
moved first is 50% apart from itself, and two paragraphs swapped in a letter
37% -- refused by the 30% rule, as different documents.  So the distance
here is the smaller of the plain one and an edit distance with block moves
(computed exactly, an NP-hard problem; this is an upper bound of it): the
runs of at least ``TILE_WORDS`` words the second text shares with the first
are found in one pass (greedy string tiling, as plagiarism detectors align
moved text), put back in the first text's order -- each run out of that
order one move, costing ``MOVE_COST`` edits -- and the words are then
compared as before.  Every move and edit counted is one that turns one text
into the other, so the distance never understates; where nothing moved it
is the plain distance.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, cast

from rapidfuzz.distance import Levenshtein

# A text's words: the words themselves, or (as the store's clustering keeps
# them) one hash a word -- any sequence whose equal items are equal words.
Words = Sequence[Hashable]


def hashed_words(words: Iterable[Hashable]) -> array[int]:
    """Words as their 64-bit hashes, side by side: 8 bytes a word where a
    str costs about 60, and rapidfuzz and the tiling read an array of numbers
    at once where a list of words is hashed at every pass.  Only compared
    within one process (a str's hash is seeded per process); equal words are
    equal, and a collision of two words is one in 2^64."""
    signed = array("q", map(hash, words))
    found = array("Q")
    found.frombytes(signed.tobytes())  # as unsigned: rapidfuzz takes no negative items
    return found


# The shortest run of words taken for a moved block: shorter common runs
# ("of the", a repeated phrase) are coincidences more than moves.
TILE_WORDS = 8
# What a move costs, in word edits: as much as retyping the shortest block
# taken for one.  A paragraph moved in a long document costs next to nothing
# (the last quarter of a 1,000-word text moved first: 0.8%), but short texts
# made of the same sentences in another order -- a diary's entries, a
# template's letters -- stay as far apart as their shuffling makes them
# (counted as one edit a move, two entries of five sentences, four of them
# shared, were 22% apart: near copies).
MOVE_COST = TILE_WORDS
# Moved blocks keep their shingles: a pair whose blocks moved resembles as
# its edits alone make it (the last quarter moved first: 0.99), while a pair
# too far apart by edits alone shares few shingles (30% of words edited
# through the text: about 0.14).  A clustering verifies thousands of refused
# candidates; only those resembling at least this much can be rescued by
# counting moves, the others are refused on the plain distance without
# counting their words.
MOVES_MIN_RESEMBLANCE = 0.25
# Above this many words, an edit distance is first sought in a narrow band
# around the diagonal, widened (doubled) until it holds the answer
# (rapidfuzz's score_hint, started at the words one text lacks of the other):
# two near-identical logs of 750,000 words, 1% of them changed, cost what
# their differences cost, seconds, not the square of their length, minutes
# (a watcher stalled ten minutes on fifty of them).  Far-apart pairs cost up
# to twice as much; below this length the plain band costs little either way.
HINTED_WORDS = 20_000


def bag_distance(left: Words, right: Words) -> int:
    """A lower bound of the word distance, moves or not: the words of one
    text the other lacks (as multisets), the larger side.  An edit removes at
    most one word of either side's surplus, and a move none."""
    left, right = middles(left, right)  # the words both share at either end are no one's surplus
    numbers = _numbers(left, right, min(len(left), len(right)))
    if numbers is None:
        extra = sum((Counter(left) - Counter(right)).values())  # counted in C; positive counts alone
    else:
        extra = _surplus(*numbers)
    return max(extra, extra - (len(left) - len(right)))


def _surplus(left: Any, right: Any) -> int:
    """How many of ``left``'s words ``right`` lacks, as multisets, by numpy:
    each side's distinct words counted once sorted, where a ``Counter`` of
    each hashed every word in Python (30 ms a pair of manuals, against 13)."""
    import numpy as np

    words_left, counts_left = np.unique(left, return_counts=True)
    words_right, counts_right = np.unique(right, return_counts=True)
    at = np.searchsorted(words_right, words_left).clip(max=words_right.size - 1)
    theirs = np.where(words_right[at] == words_left, counts_right[at], 0)
    return int(np.maximum(counts_left - theirs, 0).sum())


def middles(left: Words, right: Words) -> tuple[Words, Words]:
    """``left`` and ``right`` without the words they share at their start
    and at their end: the plain Levenshtein distance of two texts is that of
    their middles (an edit path never gains by touching a common prefix or
    suffix), and so is ``bag_distance`` (the same words taken from both
    sides).  rapidfuzz cuts them itself only for a cutoff under 4; two
    editions of a changelog sharing an 18,353-word tail paid it at every
    band.  Not for the tiling: it reads the whole texts (a block may have
    moved from the shared part)."""
    most = min(len(left), len(right))
    start = _common_start(left, right, most)
    end = _common_end(left, right, most - start)
    if not start and not end:
        return left, right
    return left[start:len(left) - end], right[start:len(right) - end]


def _common_start(left: Words, right: Words, most: int) -> int:
    """How many words, at most ``most``, ``left`` and ``right`` start alike."""
    numbers = _numbers(left, right, most)
    if numbers is not None:
        return _same_words(numbers[0], 0, numbers[1], 0, most)
    same = 0
    while same < most and left[same] == right[same]:
        same += 1
    return same


def _common_end(left: Words, right: Words, most: int) -> int:
    """How many words, at most ``most``, ``left`` and ``right`` end alike."""
    numbers = _numbers(left, right, most)
    if numbers is not None:
        return _same_words(numbers[0][::-1], 0, numbers[1][::-1], 0, most)
    same, last_left, last_right = 0, len(left) - 1, len(right) - 1
    while same < most and left[last_left - same] == right[last_right - same]:
        same += 1
    return same


def _numbers(left: Words, right: Words, most: int) -> tuple[Any, Any] | None:
    """Both texts as numpy arrays read in place, when they are the store's
    (``array('Q')``) and long enough to pay numpy's fixed cost; else None."""
    if most < KEYED_WORDS or not all(isinstance(w, array) and w.typecode == "Q" for w in (left, right)):
        return None
    import numpy as np

    return (np.frombuffer(cast("array[int]", left), dtype=np.uint64),
            np.frombuffer(cast("array[int]", right), dtype=np.uint64))


def _levenshtein(left: Words, right: Words, cutoff: int | None, floor: int, hinted: bool = False) -> int:
    """rapidfuzz's word Levenshtein, cut off past ``cutoff``; on long texts
    sought from ``floor`` (a lower bound of it) up (``HINTED_WORDS``); of
    the pair's ``middles``, the same distance (sought in bands as the whole
    texts' length says: two 53,000-word changelogs 3,507 words apart have
    middles of 15,939 and 19,299 words, whose distance unhinted under a 16,000-word cutoff
    cost four times the banded search)."""
    hinted = hinted or max(len(left), len(right)) >= HINTED_WORDS  # ``hinted``: the caller's pair is long
    left, right = middles(left, right)
    if not hinted:
        return int(Levenshtein.distance(left, right, score_cutoff=cutoff))
    return int(Levenshtein.distance(left, right, score_cutoff=cutoff, score_hint=max(floor, 64)))


def word_distance(left: Words, right: Words, allowed: int | None = None, *, moves: bool = True,
                  floor: int | None = None) -> int | None:
    """The edits (a moved block ``MOVE_COST`` of them) that turn ``left`` into ``right``, or
    None when more than ``allowed``: the plain Levenshtein distance over
    words, or the distance with the shared blocks back in order where that
    is smaller -- only possible where the plain distance is well over the
    words one text lacks of the other (``bag_distance``): a block of
    ``TILE_WORDS`` moved costs the plain distance twice its words, but no
    word is lacking.  Given ``allowed``, moves are counted only for a pair
    the plain distance puts over it: one within it keeps its plain distance
    (an upper bound of the other, and the decision is the same).
    ``moves=False``: the plain distance alone (the caller knows no block can
    have moved: ``MOVES_MIN_RESEMBLANCE``).  ``floor``: ``bag_distance``,
    when the caller has it."""
    if floor is None and max(len(left), len(right)) >= HINTED_WORDS:
        floor = bag_distance(left, right)
    plain = _levenshtein(left, right, allowed, floor or 0)
    return _with_moves(left, right, plain, allowed, moves, floor)


def word_distances(left: Words, right: Words) -> tuple[int, int]:
    """The plain distance and the one with moves counted (``word_distance``),
    the plain one computed once (``compare`` shows both)."""
    floor = bag_distance(left, right)
    plain = _levenshtein(left, right, None, floor)
    return plain, _with_moves(left, right, plain, None, True, floor) or 0


def moved_distance(left: Words, right: Words, allowed: int | None = None) -> int | None:
    """The distance with moves counted, the very figure ``word_distances``
    gives as its second, or None when it is more than ``allowed``.  Unlike
    ``word_distance``'s bound, a pair the plain distance puts within
    ``allowed`` has its moves counted all the same (a page shows the
    figure, not only the decision); a pair past it costs what finding that
    out costs: the bag bound, then the edit distances cut off past ``allowed``."""
    floor = bag_distance(left, right)
    if allowed is not None and floor > allowed:
        return None
    if max(len(left), len(right)) >= HINTED_WORDS:
        return _banded_moves(left, right, floor, allowed)
    plain = _levenshtein(left, right, allowed, floor)
    if allowed is not None and plain > allowed:  # cut off: over it, unless moves bring it back within
        return _with_moves(left, right, plain, allowed, True, floor)
    return _with_moves(left, right, plain, None, True, floor)


def _banded_moves(left: Words, right: Words, floor: int, allowed: int | None) -> int | None:
    """``moved_distance`` of a long pair: its plain and reordered distances
    sought together, each in a band doubled from ``floor`` (rapidfuzz's
    ``score_hint``, ``HINTED_WORDS``); the figure is the least of them,
    whichever is found first.  Where blocks moved, the plain distance is the
    far one -- two editions of a 75,000-word manual 11,716 words apart
    plainly, 3,585 with their 113 moved blocks counted -- and was sought
    whole, its widest band the pair's dearest pass, before the reordered
    text showed it was not needed.  A band that holds the plain distance
    ends the search as for any pair (``_with_moves``)."""
    most = max(len(left), len(right))  # no distance is more than the longer text
    most = most if allowed is None else min(allowed, most)
    band, best = max(floor, 64), most + 1
    reordered: list[tuple[Words, Words, int]] = []  # each way, once the band is wide enough for a move
    plain_left, plain_right = middles(left, right)  # cut once: sought band by band
    sought = [floor - 1, floor - 1]  # each reordered text's distance is known to be over this
    while True:
        band = min(band, most)
        cap = min(band, best - 1)
        plain = int(Levenshtein.distance(plain_left, plain_right, score_cutoff=cap, score_hint=cap))
        if plain <= cap and not reordered:  # within ``allowed`` too: its moves counted all the same
            return _with_moves(left, right, plain, None, True, floor)
        if plain <= cap:  # the reordered texts made already: each sought as far as it may beat the plain one
            best = plain
            for way, (one, ordered, cost) in enumerate(reordered):
                cutoff = best - 1 - cost
                if cost and cutoff > sought[way]:
                    best = min(best, _levenshtein(one, ordered, cutoff, floor, hinted=True) + cost)
            return best
        if not reordered and band >= floor + MOVE_COST:
            reordered = [_in_order_cost(one, other) for one, other in ((left, right), (right, left))]
        for way, (one, ordered, cost) in enumerate(reordered):
            cutoff = min(band, best - 1 - cost)
            if cost and cutoff > sought[way]:  # a wider band than last time, and one that may beat the best
                found = int(Levenshtein.distance(one, ordered, score_cutoff=cutoff, score_hint=cutoff))
                if found <= cutoff:  # past it, rapidfuzz says only that it is
                    best, cutoff = found + cost, most + 1  # found: not sought again
                sought[way] = cutoff
        if best <= band or band == most:
            # the plain distance is over the band (or the best), each reordered text's distance over the
            # band (or the best less its moves): the least is found, or none is within ``allowed``
            return best if best <= most else None
        band *= 2


def _in_order_cost(one: Words, other: Words) -> tuple[Words, Words, int]:
    """``one`` and ``other`` in ``one``'s order (``in_order``), cut to their
    ``middles`` (sought band by band), and what the moves cost."""
    ordered, moved = in_order(one, other)
    return *middles(one, ordered), moved * MOVE_COST


def _with_moves(left: Words, right: Words, plain: int, allowed: int | None, moves: bool,
                floor: int | None = None) -> int | None:
    """``word_distance`` given the plain distance (``allowed + 1`` when it was cut off over ``allowed``)."""
    if not moves or plain <= MOVE_COST or (allowed is not None and plain <= allowed):
        # no move costs less; or, bounded, the pair is within the bound as it stands: the plain
        # distance is its measure (a clustering verifies a hundred thousand pairs, most of them
        # here, and counting their words would cost five times their edit distance)
        return None if allowed is not None and plain > allowed else plain
    if floor is None:
        floor = bag_distance(left, right)
    best = plain
    if plain - floor >= TILE_WORDS and (allowed is None or floor <= allowed):
        # the greedy tiling finds other blocks walking one text than the other: both ways, the
        # smaller counts, so that a pair's distance does not depend on which of them came first
        for one, other in ((left, right), (right, left)):
            # only a distance that beats the best so far is sought: a log's repeated lines may tile far out
            # of order, and the reordered text's full distance cost a tester's compare half a minute
            limit = best - 1 if allowed is None else min(allowed, best - 1)
            if floor + MOVE_COST > limit:
                break  # a move costs MOVE_COST, and the words still lack floor edits: none can beat it
            ordered, moved = in_order(one, other)
            cost = moved * MOVE_COST
            # the reordered text holds the same words: its distance is at least floor too (two manuals
            # whose blocks tile out of order cost their distance cut off past the best, for nothing)
            if moved and floor + cost <= limit:
                best = min(best, _levenshtein(one, ordered, limit - cost, floor) + cost)
    return None if allowed is not None and best > allowed else best


def in_order(left: Words, right: Words) -> tuple[Words, int]:
    """``right`` with its blocks shared with ``left`` put back in ``left``'s
    order (the words between two blocks travel with the block before them),
    and how many blocks moved: those off the longest run already in order.
    The words come back in ``right``'s own type (a list, the store's
    ``array('Q')``): rapidfuzz compares a list and an array of the same
    numbers as different words."""
    tiles = _tiles(left, right)
    if len(tiles) < 2:
        return right, 0
    # each block and the words after it, up to the next block; the words
    # before the first block stay first
    starts = [j for j, _, _ in tiles] + [len(right)]
    segments = [(-1, 0, starts[0])] + [(i, j, starts[n + 1]) for n, (j, i, _) in enumerate(tiles)]
    segments.sort(key=lambda segment: segment[0])  # stable: equal positions keep their order
    ordered: Any = right[:0]
    for _, start, end in segments:
        # in place for a list or an array: ``ordered + piece`` copied the text so far at every
        # block, the square of a manual's length (a third of a 75,000-word pair's time)
        ordered += right[start:end]
    return ordered, len(tiles) - _longest_increasing([i for _, i, _ in tiles])


def _tiles(left: Words, right: Words) -> list[tuple[int, int, int]]:
    """Maximal runs of at least ``TILE_WORDS`` words that ``right`` shares
    with ``left``, as (start in right, start in left, length), in right's
    order, found greedily in one pass over ``right``: at each position the
    run starting there, preferring the place in ``left`` that follows the
    last run (a text mostly in order stays in order)."""
    if len(left) < TILE_WORDS or len(right) < TILE_WORDS:
        return []
    if max(len(left), len(right)) > KEYED_WORDS:
        return _keyed_tiles(left, right)
    return _word_tiles(left, right)


# Texts longer than this many words have their runs looked up by numpy, all
# at once: a tuple of words built, hashed and looked up in Python at every
# place took a quarter of a second on a 75,000-word manual and its PDF
# (``verify`` 11 s on an archive of six manuals in three formats).  Shorter
# ones word by word: numpy's fixed cost (some thirty array operations, 0.1
# ms) is more than a short pair's whole tiling, and the store measures such
# pairs by the thousand.
KEYED_WORDS = 500


def _word_tiles(left: Words, right: Words) -> list[tuple[int, int, int]]:
    """``_tiles`` of a short pair: each run looked up by its words."""
    k = TILE_WORDS
    starts: dict[tuple[Hashable, ...], list[int]] = {}
    for i in range(len(left) - k + 1):
        starts.setdefault(tuple(left[i:i + k]), []).append(i)
    tiles: list[tuple[int, int, int]] = []
    expected = 0  # where in left the next run would continue the last
    j = 0
    while j <= len(right) - k:
        found = starts.get(tuple(right[j:j + k]))
        if found is None:
            j += 1
            continue
        after = bisect_left(found, expected)
        i = found[after] if after < len(found) and found[after] == expected else found[0]
        length = k
        while i + length < len(left) and j + length < len(right) and left[i + length] == right[j + length]:
            length += 1
        tiles.append((j, i, length))
        expected = i + length
        j += length
    return tiles


def _keyed_tiles(left: Words, right: Words) -> list[tuple[int, int, int]]:
    """``_tiles`` of a long pair: each run looked up by a 64-bit key of its
    words, all at once (numpy), so that the pass visits only the places
    where a shared run starts, not every word."""
    import numpy as np  # not on a search's path: distance is measured when a cluster is formed or shown

    k = TILE_WORDS
    words_left, words_right = _word_keys(left), _word_keys(right)
    runs_left, runs_right = _run_keys(words_left, k), _run_keys(words_right, k)
    keys, first = np.unique(runs_left, return_index=True)  # each key's first place in left
    at = np.searchsorted(keys, runs_right).clip(max=keys.size - 1)
    first_in_left = first[at]
    starts = np.flatnonzero(keys[at] == runs_right)  # the places in right where a run of left's begins
    tiles: list[tuple[int, int, int]] = []
    expected = 0
    j = 0
    while True:
        n = int(np.searchsorted(starts, j))
        if n == starts.size:
            return tiles
        j = int(starts[n])
        follows = expected < runs_left.size and runs_left[expected] == runs_right[j]
        i = expected if follows else int(first_in_left[j])
        if not np.array_equal(words_left[i:i + k], words_right[j:j + k]):
            j += 1  # two runs of one key (one in 2^64): not a shared run
            continue
        length = k + _same_words(words_left, i + k, words_right, j + k)
        tiles.append((j, i, length))
        expected = i + length
        j += length


# The multiplier of the keys of runs of words: 2^64 over the golden ratio,
# odd (splitmix64's step, Steele et al. 2014). The words' keys are mixed
# first, so they look random even where the words are small integers, and
# two different runs share a key about one time in 2^64.
_MIX = 0x9E3779B97F4A7C15


def _word_keys(words: Words) -> Any:
    """Each word as a 64-bit number, equal words equal: the store's words
    (an ``array('Q')`` of their hashes) taken as they are, any others by
    ``hash()`` (per process, as the store's word cache: two words alike one
    time in 2^64); then mixed (splitmix64's finalizer), so that small
    numbers spread over the 64 bits."""
    import numpy as np

    if isinstance(words, array) and words.typecode == "Q":
        found = np.frombuffer(words, dtype=np.uint64).copy()
    else:
        found = np.fromiter(map(hash, words), dtype=np.int64, count=len(words)).view(np.uint64)
    found ^= found >> np.uint64(30)
    found *= np.uint64(0xBF58476D1CE4E5B9)
    found ^= found >> np.uint64(27)
    found *= np.uint64(0x94D049BB133111EB)
    found ^= found >> np.uint64(31)
    return found


def _run_keys(words: Any, k: int) -> Any:
    """The key of the run of ``k`` words at each place a run fits: a
    polynomial in ``_MIX`` over their keys, modulo 2^64 (numpy wraps)."""
    import numpy as np

    places = words.size - k + 1
    keys = words[:places].copy()
    for t in range(1, k):
        keys *= np.uint64(_MIX)
        keys += words[t:t + places]
    return keys


def _same_words(left: Any, i: int, right: Any, j: int, most: int | None = None) -> int:
    """How many words (at most ``most``) from ``left[i]`` and ``right[j]`` on are the same, in
    growing slices (a run is most often short, a manual's up to thousands)."""
    import numpy as np

    same, step = 0, 64
    most = min(left.size - i, right.size - j) if most is None else most
    while True:
        n = min(step, most - same)
        if n <= 0:
            return same
        equal = left[i + same:i + same + n] == right[j + same:j + same + n]
        if not equal.all():
            return same + int(np.argmin(equal))
        same += n
        step *= 2


def _longest_increasing(values: list[int]) -> int:
    """The length of the longest strictly increasing subsequence (patience sorting)."""
    tails: list[int] = []
    for value in values:
        at = bisect_left(tails, value)
        if at == len(tails):
            tails.append(value)
        else:
            tails[at] = value
    return len(tails)
