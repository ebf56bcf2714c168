"""`lifededup fingerprint` and `lifededup compare`: the JSON contracts the rest
of the project and its users rely on."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from lifededup.cli import main
from lifededup.config import FingerprintParams
from lifededup.extract import ExtractionError, Failure, extract, walk
from lifededup.fingerprint import fingerprint, fingerprint_many
from lifededup.fingerprint.sources import fingerprint_sources
from lifededup.normalize import DocFrequencies

SAMPLE_CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"

LETTERS = np.array(list("bcdfghjklmnpqrstvwxz"))


def prose(seed: int, count: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(LETTERS, size=int(n))) for n in rng.integers(4, 9, size=count)]


def write(path: Path, words: list[str]) -> Path:
    path.write_text(" ".join(words), encoding="utf-8")
    return path


def test_fingerprint_json_contract(tmp_path: Path) -> None:
    words = prose(1, 300)
    a = write(tmp_path / "a.txt", words)
    short = write(tmp_path / "note.txt", ["call", "mum"])
    result = CliRunner().invoke(main, ["fingerprint", "--json", str(a), str(short)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["path"] for line in lines] == [str(a), str(short)]
    first = lines[0]
    assert len(first["sha1"]) == 40 and first["words"] == 300 and first["shingles"] == 297
    assert len(first["features"]) == 6 and all(isinstance(f, int) for f in first["features"])
    assert all(-(2**63) <= f < 2**63 for f in first["features"]), "features fit SQLite's INTEGER"
    params = first["params"]
    assert (params["shingle_words"], params["features"], params["minima"], params["threshold"]) == (4, 6, 14, 2)
    assert lines[1]["features"] is None, "a two-word note is exact-only"


def test_compare_json_says_near_duplicate_for_a_revision(tmp_path: Path) -> None:
    words = prose(2, 1000)
    revised = list(words)
    revised[500] = "zzzzzz"
    a, b = write(tmp_path / "a.txt", words), write(tmp_path / "b.txt", revised)
    other = write(tmp_path / "c.txt", prose(3, 1000))
    near = json.loads(CliRunner().invoke(main, ["compare", "--json", str(a), str(b)]).output)
    assert near["near_duplicate"] and not near["exact"] and near["shared_features"] >= 2
    assert near["word_edit_distance"] == 0.001 and 0.99 < near["resemblance"] < 1
    far = json.loads(CliRunner().invoke(main, ["compare", "--json", str(a), str(other)]).output)
    assert not far["near_duplicate"] and far["shared_features"] == 0 and far["resemblance"] == 0


def test_compare_says_what_a_store_clustering_by_the_rule_does(tmp_path: Path) -> None:
    """A user checks a grouping with compare: its verdict follows the store's
    rule (verified:30 by default), where it said "different" for pairs that
    share fewer than 2 of the 6 features and that the store clusters (a
    user's archive: nginx.rst beside apache-httpd.rst, 26.5% apart, 0 of 6).
    Each pair of drafts further and further apart is indexed into a store of
    its own: compare's "clustered" is whether the store made one cluster."""
    from lifededup.index import IndexConfig, run
    from lifededup.store import open_store

    base = prose(11, 400)
    seen = set()
    for share in (0.001, 0.15, 0.25, 0.35, 0.6):  # one word changed, then every 7th, 4th, 3rd, other
        changed = list(base)
        for i in range(0, len(changed), max(1, round(1 / share))):
            changed[i] = f"other{i}"
        folder = tmp_path / f"pair{share}"
        folder.mkdir()
        a, b = write(folder / "a.txt", base), write(folder / "b.txt", changed)
        said = json.loads(CliRunner().invoke(main, ["compare", "--json", str(a), str(b)]).output)
        with open_store(folder / "store.db") as store:
            run(store, [folder], IndexConfig(workers=1))
            clusters = {r[0] for r in store.execute("SELECT cluster_id FROM clusters")[1]}
        assert said["rule"] == "verified:30" and said["clustered"] == (len(clusters) == 1), (share, said, clusters)
        by_features = json.loads(CliRunner().invoke(main, ["compare", "--json", "--rule", "features", str(a),
                                                          str(b)]).output)
        assert by_features["clustered"] == by_features["near_duplicate"], by_features
        seen.add((said["clustered"], by_features["clustered"]))
    assert (True, False) in seen, f"no pair the verified rule joins and the features rule does not: {seen}"
    assert (False, False) in seen and (True, True) in seen, seen
    text = CliRunner().invoke(main, ["compare", str(a), str(b)]).output
    assert text.startswith("different by verified:30"), text


def test_compare_says_a_table_of_numbers_is_clustered_as_the_store_clusters_it(tmp_path: Path) -> None:
    """A sheet of readings is sampled with its numbers (its few words repeat:
    ``site a site a``), which gives it features but no sketch; the store
    clusters a corrected copy by a shared feature, but compare said
    "different by verified:30" with 6 of 6 features and 0.2% of words apart,
    and dups said "estimated resemblance 0.00" of a sketch it has not."""
    from lifededup.index import IndexConfig, run
    from lifededup.store import open_store

    lines = ["date,site,reading,temperature"] + [f"2024-03-{d % 28 + 1:02},site a,{100 + d * 7 % 900},{d % 30}"
                                                 for d in range(80)]
    a, b = tmp_path / "readings.csv", tmp_path / "readings fixed.csv"
    a.write_text("\n".join(lines) + "\n")
    date, site, _, temperature = lines[10].split(",")
    lines[10] = f"{date},{site},555,{temperature}"  # one reading corrected
    b.write_text("\n".join(lines) + "\n")
    said = json.loads(CliRunner().invoke(main, ["compare", "--json", str(a), str(b)]).output)
    assert said["sampled"] and said["shared_features"] >= 2 and not said["exact"], said
    with open_store(tmp_path / "store.db") as store:
        run(store, [tmp_path], IndexConfig(workers=1))
        clusters = {r[0] for r in store.execute("SELECT cluster_id FROM clusters")[1]}
        sketched = store.execute("SELECT count(*) FROM fingerprints WHERE sketch IS NOT NULL")[1][0][0]
    assert len(clusters) == 1 and sketched == 0, (clusters, sketched)  # one cluster, of texts without sketches
    assert said["clustered"], said
    assert CliRunner().invoke(main, ["compare", str(a), str(b)]).output.startswith("near copy by verified:30")
    listed = CliRunner().invoke(main, ["dups", "--db", str(tmp_path / "store.db")]).output
    assert "% of words apart)" in listed and "resemblance" not in listed, listed


def test_compare_text_output_names_the_verdict(tmp_path: Path) -> None:
    words = prose(4, 200)
    a = write(tmp_path / "a.txt", words)
    b = tmp_path / "b.txt"
    b.write_text("\n\n".join(w.upper() for w in words), encoding="utf-8")
    result = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert result.exit_code == 0 and result.output.startswith("exact copy"), result.output


def test_compare_says_when_a_text_is_too_short_to_sample(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", ["call", "mum", "sunday", "party", "40th"])
    b = write(tmp_path / "b.txt", ["call", "mum", "sunday", "party"])
    result = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert result.output.startswith("different") and "too short to sample" in result.output, result.output
    data = json.loads(CliRunner().invoke(main, ["compare", "--json", str(a), str(b)]).output)
    assert data["sampled"] is False and data["near_duplicate"] is False


def test_unreadable_input_is_a_clear_error_and_the_rest_goes_on(tmp_path: Path) -> None:
    binary = tmp_path / "photo.txt"
    binary.write_bytes(bytes(range(256)) * 40)
    good = write(tmp_path / "good.txt", prose(5, 100))
    result = CliRunner().invoke(main, ["fingerprint", "--json", str(binary), str(good)])
    assert result.exit_code == 1, "a failed file makes the exit status non-zero"
    assert "photo.txt" in result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["path"] == str(good), "the good file is still printed"


def test_a_file_read_with_no_text_is_said_and_a_blank_one_is_empty(tmp_path: Path) -> None:
    """`fingerprint` of a web page of a title alone printed nothing and exited 0, as did a blank DOCX: a person
    could not tell a file read from one skipped."""
    import docx

    (tmp_path / "title.html").write_text("<html><head><title>Holiday pictures</title></head><body> </body></html>")
    shutil.copy(Path(docx.__file__).parent / "templates/default.docx", tmp_path / "blank.docx")
    said = CliRunner().invoke(main, ["fingerprint", str(tmp_path / "title.html")])
    assert said.exit_code == 0, said.output
    assert said.stdout.split("\n")[:2] == [f"{'(no text)':40}  {tmp_path / 'title.html'}",
                                           '  a web page titled "Holiday pictures", with no text: nothing to '
                                           'fingerprint'], said.stdout
    as_json = CliRunner().invoke(main, ["fingerprint", "--json", str(tmp_path / "title.html")])
    assert json.loads(as_json.stdout) == {"path": str(tmp_path / "title.html"), "title": "Holiday pictures",
                                          "kind": "web page", "sha1": None, "features": None, "words": 0,
                                          "shingles": 0}, as_json.stdout
    blank = CliRunner().invoke(main, ["fingerprint", str(tmp_path / "blank.docx")])
    assert blank.exit_code == 1 and blank.stdout == "", blank.output
    assert blank.stderr.strip().endswith("blank.docx is empty: a document with no text in it [empty]"), blank.stderr


def test_a_part_read_with_no_text_is_said_as_the_store_keeps_it(tmp_path: Path) -> None:
    """Inside an archive, a page of a title alone went unsaid (the archive was said only when nothing in it had
    text); the store keeps it as an item, found by its title.  An archive, having no text of its own, is not
    said while its parts are."""
    import zipfile

    archive = tmp_path / "pictures.zip"
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("p/title.html", "<html><head><title>Holiday pictures</title></head><body> </body></html>")
        written.writestr("p/note.txt", "The holiday pictures are on the blue disk in the drawer by the desk.\n")
    said = CliRunner().invoke(main, ["fingerprint", "--json", str(archive)])
    assert said.exit_code == 0, said.output
    rows = [json.loads(line) for line in said.stdout.splitlines()]
    assert [(row["path"], row["kind"], row["sha1"] is None) for row in rows] == [
        (f"{archive} [p/title.html]", "web page", True), (f"{archive} [p/note.txt]", "text", False)], rows
    assert rows[0]["title"] == "Holiday pictures" and rows[0]["words"] == 0, rows[0]


def test_help_teaches() -> None:
    for command in ("fingerprint", "compare"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert result.exit_code == 0, result.output
        assert "Example" in result.output and "near-duplicate" in result.output, f"{command} --help: {result.output}"


def test_installed_console_script_runs(tmp_path: Path) -> None:
    exe = shutil.which("lifededup")
    assert exe, "pip install . must put a lifededup command on PATH"
    a = write(tmp_path / "a.txt", prose(6, 50))
    out = subprocess.run([exe, "fingerprint", "--json", str(a)], capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["words"] == 50


def one_file_at_a_time(paths: list[Path]) -> tuple[list[str], list[str]]:
    """What `fingerprint --json` printed when it read and fingerprinted one
    file at a time in one process: stdout lines and stderr lines."""
    out, err = [], []
    for path in paths:
        try:
            root = extract(path)
        except ExtractionError as exc:
            err.append(f"lifededup: {path}: {exc} [{exc.status}]")
            continue
        for item in walk(root):
            label = f"{path} [{item.part}]" if item.part else str(path)
            if isinstance(item, Failure):
                err.append(f"lifededup: {label}: {item.reason} [{item.status}]")
            elif item.text.strip():
                found = fingerprint(item.text)
                out.append(json.dumps({"path": label, "title": item.title, "kind": item.kind, **found.to_dict()}))
    return out, err


def test_fingerprint_on_every_core_prints_what_one_file_at_a_time_did() -> None:
    # the whole sample corpus (3 MB: enough to start workers), its unreadable files and mailboxes included
    paths = sorted(p for p in SAMPLE_CORPUS.rglob("*") if p.is_file())
    done = subprocess.run([sys.executable, "-m", "lifededup", "fingerprint", "--json", *map(str, paths)],
                          capture_output=True, text=True, timeout=300)
    want_out, want_err = one_file_at_a_time(paths)
    assert want_err, "the sample corpus has unreadable files: they must show on stderr"
    assert done.returncode == 1, f"a file failed, so the exit status is 1, not {done.returncode}: {done.stderr}"
    got_out = done.stdout.splitlines()
    assert len(got_out) == len(want_out), f"{len(got_out)} JSON lines, want {len(want_out)}"
    for got, want in zip(got_out, want_out):
        assert got == want, f"fingerprint --json printed\n{got}\nwhere one file at a time printed\n{want}"
    assert done.stderr.splitlines() == want_err, done.stderr


def labelled_with_pid(path: Path) -> Iterator[tuple[tuple[str, int], str | None]]:
    text = path.read_text(encoding="utf-8")
    yield (path.name, os.getpid()), text
    if path.name.endswith("0.txt"):
        yield (path.name + " [no text]", os.getpid()), None


def test_fingerprint_sources_splits_the_work_and_keeps_the_order(tmp_path: Path) -> None:
    paths = [write(tmp_path / f"{n}.txt", prose(n, 200)) for n in range(40)]
    # sizes say 1 MB a file: reason enough for two workers
    found = list(fingerprint_sources(paths, labelled_with_pid, sizes=[1 << 20] * len(paths), workers=2))
    names = [label[0] for label, _ in found]
    want = [n for p in paths for n in ([p.name, p.name + " [no text]"] if p.name.endswith("0.txt") else [p.name])]
    assert names == want, f"labels came back out of order: {names}"
    fingerprints = [f for _, f in found]
    assert [f is None for f in fingerprints] == [n.endswith("[no text]") for n in names]
    assert [f for f in fingerprints if f is not None] == fingerprint_many([p.read_text() for p in paths])
    workers = {pid for (_, pid), _ in found}
    assert len(workers) == 2 and os.getpid() not in workers, f"ran in processes {workers}, not two workers"
    alone = list(fingerprint_sources(paths, labelled_with_pid, sizes=[1 << 20] * len(paths), workers=1))
    assert {pid for (_, pid), _ in alone} == {os.getpid()}, "workers=1 runs in this process"
    assert [f for _, f in alone] == fingerprints


def whole(text: str) -> list[tuple[None, str]]:
    return [(None, text)]


def test_fingerprint_sources_filters_low_idf_terms_in_its_workers_as_here() -> None:
    """stats --idf fingerprints every text again through the low-IDF filter on
    every core: the workers get the collection statistics once, and their
    fingerprints, sketches included, are those of one process."""
    texts = [" ".join(prose(n % 50, 300) + prose(1000 + n, 20)) for n in range(600)]  # 1.2 MB: workers start
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(text.split()))
    params = FingerprintParams().with_filters(idf=4.0)  # ln(600 / 12) < 4: the shared words go
    frequencies = DocFrequencies(documents=len(texts), counts=counts)
    found = [f for _, f in fingerprint_sources(texts, whole, sizes=[len(t) for t in texts], params=params,
                                               workers=2, doc_freq=frequencies)]
    want = fingerprint_many(texts, params, frequencies)
    assert found == want and [f and f.sketch for f in found] == [f.sketch for f in want], "workers differ"
    unfiltered = fingerprint_many(texts, FingerprintParams())
    assert sum(a.sha1 == b.sha1 and a.features != b.features for a, b in zip(want, unfiltered)) > 500, \
        "the filter changed almost nothing: the test shows nothing"


def test_a_name_that_is_not_utf8_is_shown_escaped_as_the_store_holds_it(tmp_path: Path) -> None:
    """``fingerprint --json`` and ``compare --json`` print a name with a byte
    that is not UTF-8 as the store does (``\\xNN``), not as a lone surrogate
    (``\\udcff``, which strict JSON readers refuse) nor as U+FFFD."""
    raw = os.fsencode(tmp_path) + b"/caf\xe9 notes.txt"
    with open(raw, "wb") as out:
        out.write(" ".join(prose(4, 200)).encode())
    name = os.fsdecode(raw)
    want = str(tmp_path) + "/caf\\xe9 notes.txt"
    printed = CliRunner().invoke(main, ["fingerprint", "--json", name])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.output)["path"] == want, printed.output
    assert "\\udc" not in printed.output, f"a lone surrogate in the JSON: {printed.output[:120]}"
    text = CliRunner().invoke(main, ["fingerprint", name])
    assert f"  {want}\n" in text.output, f"not the escaped name: {text.output!r}"
    compared = CliRunner().invoke(main, ["compare", "--json", name, name])
    assert compared.exit_code == 0 and json.loads(compared.output)["a"] == want, compared.output


def test_an_archive_member_named_in_latin1_is_shown_as_the_store_keeps_it(tmp_path: Path) -> None:
    """A tar member whose name is not UTF-8: `fingerprint --json` names the
    part as the indexer stores it (U+FFFD for the odd byte), not with a lone
    surrogate that strict JSON readers refuse."""
    import io
    import tarfile

    from lifededup.index import IndexConfig, run
    from lifededup.store import open_store

    data = " ".join(prose(5, 120)).encode()
    archive = tmp_path / "odd" / "letters.tar"
    archive.parent.mkdir()
    with tarfile.open(archive, "w", format=tarfile.GNU_FORMAT, encoding="latin-1") as tar:
        info = tarfile.TarInfo("caf\xe9.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with open_store(tmp_path / "s.db") as store:
        run(store, [archive.parent], IndexConfig(workers=1))
        _, rows = store.execute("SELECT part FROM items WHERE part != ''")
    [(stored,)] = rows
    printed = CliRunner().invoke(main, ["fingerprint", "--json", str(archive)])
    assert printed.exit_code == 0, printed.output
    assert "\\udc" not in printed.output, f"a lone surrogate in the JSON: {printed.output[:120]}"
    assert json.loads(printed.output)["path"] == f"{archive} [{stored}]", (printed.output[:120], stored)


def test_compare_takes_a_part_of_a_file_as_fingerprint_labels_it(tmp_path: Path) -> None:
    """`compare 'X.mbox [message 1]' B` said the file did not exist: a message or an attachment could
    only be compared inside its whole mailbox.  The label `fingerprint` prints names the part."""
    mail = SAMPLE_CORPUS / "Mail"
    labels = [line.split("  ", 1)[1] for line in CliRunner().invoke(
        main, ["fingerprint", str(mail / "archive-2024.mbox"), str(mail / "Kitchen" / "Fwd kitchen quotes.eml")]
    ).output.splitlines() if not line.startswith(" ")]
    attached = [label for label in labels if label.endswith("attachment 1: Kitchen quotes (final).docx]")]
    assert len(attached) == 2, labels  # the quotes, forwarded once on their own and kept in the archive
    said = json.loads(CliRunner().invoke(main, ["compare", "--json", *attached]).output)
    assert (said["a"], said["b"], said["exact"]) == (*attached, True), said
    # a message is its own text, as fingerprint and the store read it: not with its attachment's
    [forward] = [item for item in walk(extract(mail / "archive-2024.mbox")) if item.part == "message 8"]
    (tmp_path / "forward.txt").write_text(forward.text, encoding="utf-8")
    alone = json.loads(CliRunner().invoke(main, ["compare", "--json", f"{mail / 'archive-2024.mbox'} [message 8]",
                                                 str(tmp_path / "forward.txt")]).output)
    assert alone["exact"], alone
    apart = CliRunner().invoke(main, ["compare", labels[0], labels[1]])
    assert apart.exit_code == 0 and apart.output.startswith("different by verified:30"), apart.output
    # a part not there is said, with the command that lists the parts; a file whose name ends so is whole
    missing = CliRunner().invoke(main, ["compare", f"{mail / 'archive-2024.mbox'} [message 99]", labels[0]])
    assert missing.exit_code == 1 and "has no part 'message 99': `lifededup fingerprint " in missing.output, \
        missing.output
    odd = tmp_path / "notes [draft]"
    odd.write_text("a note about the boiler service in March and the plumber's visit", encoding="utf-8")
    whole = json.loads(CliRunner().invoke(main, ["compare", "--json", str(odd), str(odd)]).output)
    assert whole["a"] == str(odd) and whole["exact"], whole


def test_compare_of_whole_mails_compares_them_as_the_store_clusters_them(tmp_path: Path) -> None:
    """`compare` of a whole .eml read its attachments' text into it, where the store and `fingerprint` keep a
    mail's own text: two sendings of one letter with other attachments were "different", and clustered."""
    from email.message import EmailMessage

    letter = " ".join(prose(11, 160))
    for name, attached in (("first.eml", prose(12, 400)), ("again.eml", prose(13, 400))):
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = "ann@example.org", "bob@example.org", "The lease"
        message.set_content(letter)
        message.add_attachment(" ".join(attached).encode(), maintype="text", subtype="plain", filename="notes.txt")
        (tmp_path / name).write_bytes(bytes(message))
    said = json.loads(CliRunner().invoke(main, ["compare", "--json", str(tmp_path / "first.eml"),
                                                str(tmp_path / "again.eml")]).output)
    assert said["exact"] and said["clustered"], said
    # a container, of no text of its own, is still its parts' texts one after another
    mbox = SAMPLE_CORPUS / "Mail" / "archive-2024.mbox"
    whole = json.loads(CliRunner().invoke(main, ["compare", "--json", str(mbox), str(mbox)]).output)
    assert whole["exact"] and whole["sampled"], whole
