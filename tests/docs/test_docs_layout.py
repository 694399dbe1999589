"""The documentation's layout holds (issue 40): every command has its page and a row in the README,
every relative link in the README and docs/ resolves (file and heading), the README and
ARCHITECTURE.md stay short, experiment files are dated, and ARCHITECTURE.md's layer order names
every package of src/pipeperf once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeperf.cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"```.*?```", re.S)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = CODE.sub("", page.read_text())
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def links(page: Path) -> list[str]:
    return [m.group(1) for m in LINK.finditer(CODE.sub("", page.read_text()))]


def test_slug_matches_githubs_rule():
    assert slug("Kernel arguments (`profile`, `analyze`, `measure`)") == "kernel-arguments-profile-analyze-measure"
    assert slug("Many launches: `pipeperf analyze --batch`") == "many-launches-pipeperf-analyze---batch"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_its_page_and_readme_row(command):
    page = DOCS / "commands" / f"{command}.md"
    assert page.is_file(), f"no docs/commands/{command}.md"
    assert page.read_text().startswith(f"# `pipeperf {command}`"), page
    assert f"[`{command}`](docs/commands/{command}.md)" in README.read_text(), f"README lacks {command}'s row"


def test_every_command_page_is_a_command():
    pages = {p.stem for p in (DOCS / "commands").glob("*.md")}
    assert pages - set(COMMANDS) == set(), "pages for commands that do not exist"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    bad = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):          # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not bad, bad


def test_readme_and_architecture_stay_short():
    assert len(README.read_text().splitlines()) <= 200
    assert len((DOCS / "ARCHITECTURE.md").read_text().splitlines()) <= 250


def test_readme_keeps_ci_commands_first():
    """.ci/run runs the second `python3 -m pip install` line as INSTALL && TESTS."""
    lines = [x for x in README.read_text().splitlines() if x.startswith("python3 -m pip install")]
    assert len(lines) >= 2 and " && " in lines[1] and "pytest" in lines[1]
    assert "pipeperf analyze" in lines[0]


def test_experiment_files_are_dated():
    names = [p.name for p in (DOCS / "experiments").iterdir() if p.suffix == ".md"]
    assert names
    undated = [n for n in names if not re.fullmatch(r"\d{4}-\d{2}-\d{2}-[a-z0-9.-]+\.md", n)]
    assert not undated, undated
