"""Golden playthroughs (``tests/playthroughs/*.txt``, written by ``games.playthrough``).

A game's seeded random playthrough must read exactly as its file, unless the game's
``version`` was bumped: then the file is out of date and must be regenerated with
``python -m games.playthrough --regenerate``. Either way a change shows up here first.
"""

from __future__ import annotations

import pytest

import games
from games import playthrough

SETTINGS = list(playthrough.settings())


def test_every_game_and_setting_has_a_playthrough_file():
    stems = {stem for stem, _, _ in SETTINGS}
    files = {path.stem for path in playthrough.DIRECTORY.glob("*.txt")}
    assert files == stems
    assert {name for _, name, _ in SETTINGS} == set(games.DEFINITIONS)


@pytest.mark.parametrize(("stem", "name", "params"), SETTINGS, ids=[s[0] for s in SETTINGS])
def test_playthrough_is_unchanged_or_the_version_was_bumped(stem, name, params):
    recorded = (playthrough.DIRECTORY / f"{stem}.txt").read_text()
    version = games.definition(name).version
    assert playthrough.recorded_version(recorded) is not None
    if playthrough.recorded_version(recorded) != version:
        pytest.fail(
            f"{name} is now version {version} but {stem}.txt records version "
            f"{playthrough.recorded_version(recorded)}: run python -m games.playthrough "
            "--regenerate"
        )
    current = playthrough.playthrough(name, params)
    if current != recorded:
        old, new = recorded.splitlines(), current.splitlines()
        at = next(
            (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
            min(len(old), len(new)),
        )
        pytest.fail(
            f"{stem}.txt changed at line {at + 1} while {name} stays version {version}: "
            f"bump the game's version and run python -m games.playthrough --regenerate\n"
            f"  recorded: {old[at] if at < len(old) else '(end)'}\n"
            f"  now:      {new[at] if at < len(new) else '(end)'}"
        )


def test_regenerate_refuses_a_change_without_a_version_bump(tmp_path, monkeypatch):
    stem, name, params = SETTINGS[0]
    monkeypatch.setattr(playthrough, "DIRECTORY", tmp_path)
    text = playthrough.playthrough(name, params)
    (tmp_path / f"{stem}.txt").write_text(text.replace("seed: ", "seed: 1", 1))
    assert playthrough.main(["--check"]) == 1
    assert playthrough.main(["--regenerate"]) == 1  # refused: same version, different text
    assert (tmp_path / f"{stem}.txt").read_text() != text
    assert playthrough.main(["--regenerate", "--force"]) == 0
    assert (tmp_path / f"{stem}.txt").read_text() == text
