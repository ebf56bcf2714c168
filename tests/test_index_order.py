"""Outcomes are written in the order the files were found, whatever order
the workers finish them in (item ids, and so representatives, do not depend
on timing), with a bounded number of finished files held back."""

from __future__ import annotations

from pathlib import Path

from lifededup.extract import Extracted, Outcome
from lifededup.index.order import in_scan_order


def outcome(path: str, part: str = "", final: bool = True) -> Outcome:
    return Outcome(Path(path), part, Extracted(text=f"{path} {part}"), final)


def names(outcomes: list[Outcome]) -> list[str]:
    return [f"{o.path}{'#' + o.part if o.part else ''}" for o in outcomes]


def test_files_finished_out_of_order_come_out_in_scan_order() -> None:
    arrived = [outcome("c"), outcome("a", final=False), outcome("b"), outcome("a", "1", final=False),
               outcome("a", "2"), outcome("d")]
    got = names(list(in_scan_order(arrived, ["a", "b", "c", "d"])))
    assert got == ["a", "a#1", "a#2", "b", "c", "d"], got


def test_a_file_that_holds_up_too_many_lets_them_pass() -> None:
    arrived = [outcome("a", final=False)] + [outcome(f"f{i}") for i in range(5)] + [outcome("a", "1")]
    got = names(list(in_scan_order(arrived, ["a"] + [f"f{i}" for i in range(5)], window=2)))
    assert sorted(got) == sorted(["a", "a#1"] + [f"f{i}" for i in range(5)]), f"nothing lost: {got}"
    assert got[0] == "a" and got.index("f0") < got.index("a#1"), f"the window overflowed, so f0.. passed: {got}"


def test_held_text_is_bounded_too() -> None:
    arrived = [outcome("a", final=False), outcome("f0"), outcome("f1"), outcome("a", "1")]
    got = names(list(in_scan_order(arrived, ["a", "f0", "f1"], window=100, budget=5)))
    assert got == ["a", "f0", "f1", "a#1"], f"past the text budget, finished files pass: {got}"
