"""The house's one rule of layout (STYLE.md): data flows one way --
extract -> normalize -> fingerprint -> store -> search / reports -- and a stage
imports only the stages to its left (plus the shared config and model types).
The indexer and the watcher assemble the pipeline, so they may import every
stage; nothing but the CLI imports the CLI."""

from __future__ import annotations

import ast
from pathlib import Path

import lifededup

PACKAGE = Path(lifededup.__file__).parent
SHARED = {"config", "model"}
# what each stage may import besides itself and SHARED
ALLOWED = {
    "extract": set(),
    "normalize": set(),
    "fingerprint": {"normalize"},
    "store": {"normalize", "fingerprint"},
    "detect": {"normalize", "fingerprint", "store"},
    "eval": {"extract", "normalize", "fingerprint", "store", "detect"},
    "index": {"extract", "normalize", "fingerprint", "store", "detect"},
    "watch": {"extract", "normalize", "fingerprint", "store", "detect", "index"},
    "search": {"normalize", "fingerprint", "store", "detect"},
    "report": {"normalize", "fingerprint", "store", "detect"},
    # the web view sits with the CLI at the top of the flow: nothing imports it but the CLI
    "web": {"extract", "normalize", "fingerprint", "store", "detect", "index", "watch", "search", "report"},
}


def imported_stages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "lifededup" and len(parts) > 1:
                found.add(parts[1])
    return found


def test_every_stage_imports_only_stages_to_its_left() -> None:
    problems = []
    for stage, allowed in ALLOWED.items():
        for source in sorted((PACKAGE / stage).rglob("*.py")):
            bad = imported_stages(source) - allowed - SHARED - {stage}
            if bad:
                problems.append(f"{source.relative_to(PACKAGE)} imports {sorted(bad)}")
    assert not problems, "layering broken:\n" + "\n".join(problems)


def test_every_package_is_a_known_stage() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    unknown = packages - set(ALLOWED) - {"cli", "migrations"}
    assert not unknown, f"new packages {sorted(unknown)}: add them to ALLOWED in their place in the flow"
