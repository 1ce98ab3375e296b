"""Every strength table in the docs is what its command rebuilds from its stored games.

docs/bots.md's generated sections (``<!-- bench-strength NAME -->``) each show the `atelier
bench strength` command that produced them, and every game they count is in
docs/results/strength/. Rerunning each command with ``--stored-only`` plays nothing and must
give the section byte for byte: a table edited by hand, a games file trimmed or relabelled,
or a change to how the bench scores or words a row shows up here, not in a reader's
rerun hours later.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaluation.cli import main

REPO = Path(__file__).resolve().parent.parent
SECTION = re.compile(
    r"<!-- bench-strength (?P<name>[\w.-]+) -->\n(?P<body>.*?)\n<!-- /bench-strength (?P=name) -->",
    re.S,
)


def sections() -> list[tuple[str, str, str]]:
    """(document, section name, section text) for every generated strength table."""
    found = []
    for doc in sorted((REPO / "docs").glob("*.md")):
        for match in SECTION.finditer(doc.read_text()):
            found.append((f"docs/{doc.name}", match["name"], match["body"]))
    return found


SECTIONS = sections()


def test_the_docs_have_generated_strength_tables():
    assert len(SECTIONS) >= 50
    assert all(body.startswith("`atelier bench strength ") for _, _, body in SECTIONS)


def rebuild(doc: str, body: str, workdir: Path) -> str:
    """The section its own command writes, rebuilt from the stored games alone.

    The command runs in ``workdir``, where ``docs/results`` is the repository's and the
    document is empty, so its relative paths and its recorded command line are unchanged.
    """
    command = body.splitlines()[0].strip("`")
    args = shlex.split(command)
    assert args[:3] == ["atelier", "bench", "strength"], command
    assert "--games-file" in args, f"{command}: no games file to rebuild from"
    (workdir / "docs").mkdir()
    (workdir / "docs" / "results").symlink_to(REPO / "docs" / "results")
    target = workdir / doc
    target.write_text("")
    result = CliRunner().invoke(main, [*args[1:], "--stored-only"], catch_exceptions=False)
    assert result.exit_code == 0, f"{command}\n{result.output}"
    found = SECTION.search(target.read_text())
    assert found is not None, f"{command}: wrote no section into {doc}"
    return found["body"]


@pytest.mark.parametrize(
    "doc,name,body", SECTIONS, ids=[f"{doc}:{name}" for doc, name, _ in SECTIONS]
)
def test_a_strength_table_is_what_its_stored_games_give(doc, name, body, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rebuild(doc, body, tmp_path) == body


def test_a_table_whose_games_are_not_all_stored_is_refused_and_nothing_is_written(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    games = tmp_path / "g.jsonl"
    args = [
        "bench",
        "strength",
        "--game",
        "gallery_rush",
        "--players",
        "2",
        "--pairing",
        "heuristic-vs-random",
        "--games",
        "2",
        "--games-file",
        str(games),
    ]
    runner = CliRunner()
    assert runner.invoke(main, args).exit_code == 0
    stored = games.read_text()
    assert runner.invoke(main, [*args, "--stored-only"]).exit_code == 0

    more = runner.invoke(
        main, [*args[:-4], "--games", "4", "--games-file", str(games), "--stored-only"]
    )
    assert more.exit_code != 0
    assert "2 of 4 games are not in" in more.output and "--stored-only" in more.output
    assert games.read_text() == stored

    alone = runner.invoke(main, [*args[:-2], "--stored-only"])
    assert alone.exit_code == 2 and "--games-file" in alone.output


def test_every_stored_games_file_is_described():
    results = REPO / "docs" / "results" / "strength"
    readme = (results / "README.md").read_text()
    for path in sorted(results.glob("*.jsonl")):
        assert f"`{path.name}`" in readme, (
            f"{path.name} is not described in docs/results/strength/README.md"
        )
