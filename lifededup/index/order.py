"""Outcomes in the order the files were found, whatever order the workers
finish them in, so that item ids -- and with them which item of a cluster is
its earliest, its representative (conservative clustering) -- do not depend
on which worker was quicker: indexing the same folder twice gives the same
store.  A file that holds up many finished ones (a large mailbox) lets them
go out of order past ``window`` files or ``budget`` characters of text held,
so memory stays bounded."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence

from lifededup.extract import Outcome

# Finished files, and characters of their text, held back behind a slow one, at most.
WINDOW = 512
BUDGET = 64 << 20


def in_scan_order(outcomes: Iterable[Outcome], paths: Sequence[str], window: int = WINDOW,
                  budget: int = BUDGET) -> Iterator[Outcome]:
    rank = {path: i for i, path in enumerate(paths)}
    size = 0                          # characters of text held
    head = 0                          # the earliest file not yet fully passed on
    held: dict[int, list[Outcome]] = {}
    finished: set[int] = set()        # held files whose last outcome came
    passed: set[int] = set()          # files passed on out of order (the window overflowed)
    for outcome in outcomes:
        r = rank[str(outcome.path)]
        if r == head or r in passed:
            yield outcome
            if r == head and outcome.final:
                head += 1
                if held:
                    head = yield from _release(head, held, finished, passed)
                    size = _text_size(held)
            continue
        held.setdefault(r, []).append(outcome)
        size += len(getattr(outcome.result, "text", ""))
        if outcome.final:
            finished.add(r)
        if len(finished) > window or size > budget:   # give up on order for these rather than hold more
            for late in sorted(finished):
                yield from held.pop(late)
                passed.add(late)
            finished.clear()
            size = _text_size(held)
    for r in sorted(held):           # the input ended early (stopped): what is left, in order
        yield from held[r]


def _text_size(held: dict[int, list[Outcome]]) -> int:
    return sum(len(getattr(o.result, "text", "")) for kept in held.values() for o in kept)


def _release(head: int, held: dict[int, list[Outcome]], finished: set[int], passed: set[int]
             ) -> Generator[Outcome, None, int]:
    """Pass on the held files from ``head`` on; return the new head."""
    while True:
        if head in passed:
            head += 1
            continue
        if head not in held:
            return head
        yield from held.pop(head)
        if head not in finished:
            return head               # its remaining outcomes stream straight through
        finished.discard(head)
        head += 1
