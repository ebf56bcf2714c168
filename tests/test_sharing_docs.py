"""The README's "Sharing a store" section: its commands exist, the extra it
installs is declared, and the SQL it shows for a PostgreSQL store runs on one."""

from __future__ import annotations

import json
import re
import shlex
from importlib.metadata import metadata
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from readme_blocks import REPO, readme_section, sh_blocks

from lifededup.cli import main


def section() -> str:
    return readme_section("## Sharing a store")


def shell_lines() -> list[list[str]]:
    return [shlex.split(line.split("  #")[0]) for block in sh_blocks(section()) for line in block.splitlines() if line.strip()]


def test_every_lifededup_command_of_the_section_exists() -> None:
    commands = [words for words in shell_lines() if words[0] == "lifededup"]
    assert len(commands) >= 5, commands
    for args in commands:
        words = [a for a in args[1:3] if not a.startswith(("-", "~", "/", "'", '"')) and " " not in a
                 and "." not in a]
        result = CliRunner().invoke(main, [*words, "--help"])
        assert result.exit_code == 0 and "Example" in result.output, f"{' '.join(args)}: {result.output}"


def test_the_extra_it_installs_is_declared() -> None:
    [pip] = [words for words in shell_lines() if words[:2] == ["pip", "install"]]
    extra = re.fullmatch(r"lifededup\[(\w+)\]", pip[2])
    assert extra is not None, f"the section installs {pip[2]!r}, not lifededup[EXTRA]"
    declared = metadata("lifededup").get_all("Provides-Extra") or []
    assert extra.group(1) in declared, f"lifededup declares no extra {extra.group(1)!r}: {declared}"


def test_the_sql_it_shows_runs_on_postgresql(pg_url: str) -> None:
    """The spellings the backend table gives for `lifededup sql` on a server."""
    shown = " ".join(section().split())
    for spelling in ("WHERE is_representative", "document @@ websearch_to_tsquery('lifededup', 'river survey')"):
        assert spelling in shown, f"the section no longer shows {spelling!r}"
    index = CliRunner().invoke(main, ["index", "--db", pg_url, "-j", "1", str(REPO / "sample_corpus" / "Documents")])
    assert index.exit_code == 0, index.output
    queries = {
        "SELECT count(*) FROM fingerprints WHERE is_representative": None,
        "SELECT i.path FROM items_fts f JOIN items i ON i.id = f.rowid"
        " WHERE f.document @@ websearch_to_tsquery('lifededup', 'river survey')": "river-survey",
    }
    for sql, expect in queries.items():
        result = CliRunner().invoke(main, ["sql", "--db", pg_url, "--json", sql])
        assert result.exit_code == 0, f"{sql}: {result.output}"
        if expect is not None:
            assert expect in result.output, f"{sql} found no {expect!r}: {result.output}"


def test_the_read_only_role_it_sets_up_can_search_and_export_and_not_write(pg_url: str, postgres: Any,
                                                                           tmp_path: Path) -> None:
    """The section's grants for someone who only searches, run as it writes
    them: that role searches and exports (the README's copy on a USB stick:
    it ended "permission denied for sequence items_id_seq"), and a write is
    refused; the pg_hba.conf line it shows lets the role in."""
    text = " ".join(section().split())
    grants = re.findall(r"(?:GRANT|ALTER DEFAULT PRIVILEGES)[^;`]*TO reader;", text)
    assert len(grants) == 2, grants
    [hba] = re.findall(r"^host\s.*$", section(), flags=re.M)
    assert "reader" in hba.split()[2].split(","), f"the pg_hba.conf line shuts the reader out: {hba}"
    index = CliRunner().invoke(main, ["index", "--db", pg_url, "-j", "1", str(REPO / "sample_corpus" / "Letters")])
    assert index.exit_code == 0, index.output
    postgres.admin("DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'reader')"
                   " THEN CREATE ROLE reader LOGIN; END IF; END$$")
    import psycopg

    with psycopg.connect(pg_url.split("?")[0] if "?" not in pg_url else pg_url, autocommit=True) as conn:
        for grant in grants:
            conn.execute(grant)
    reader = pg_url.replace("postgresql://postgres@", "postgresql://reader@")
    assert reader != pg_url, pg_url
    found = CliRunner().invoke(main, ["search", "--db", reader, "--json", "letter"])
    assert found.exit_code == 0 and json.loads(found.output)["hits"], found.output
    copy = tmp_path / "usb.db"
    exported = CliRunner().invoke(main, ["export", "--db", reader, str(copy)])
    assert exported.exit_code == 0, exported.output
    counted = [CliRunner().invoke(main, ["sql", "--db", db, "SELECT count(*) AS n FROM items"]).output
               for db in (pg_url, str(copy))]
    assert counted[0] == counted[1], counted
    refused = CliRunner().invoke(main, ["folders", "add", "--db", reader, str(tmp_path)])
    assert refused.exit_code != 0 and "refused" in refused.output, refused.output
