"""The documented examples still give the documented output (the cheap ones, those against a
running service included; the slow ones by hand with
``python -m evaluation.doccheck docs/evaluation.md --all``), and every shell example of the
docs is either checked or marked illustrative with a reason."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaluation.doccheck import REPO, Example, check, examples, problems, serving

DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
CHEAP = [
    (str(p.relative_to(REPO)), ex)
    for p in DOCS
    for ex in examples(p.read_text())
    if ex.kind == "cheap"
]
REQUIRED = os.environ.get("ATELIER_REQUIRE_SERVER_TESTS") == "1"


@dataclass(frozen=True)
class Served:
    url: str
    log: Path


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> Iterator[Served]:
    """One ``atelier serve`` for every example against a running service; skips locally (fails
    in CI) if it cannot start."""
    log = tmp_path_factory.mktemp("doccheck") / "serve.log"
    try:
        with serving(str(log)) as url:
            yield Served(url, log)
    except (RuntimeError, OSError) as err:
        if REQUIRED:
            pytest.fail(f"atelier serve did not start: {err}")
        pytest.skip(f"atelier serve did not start here: {err}")


def test_the_evaluation_page_has_checked_examples():
    kinds = [ex.kind for ex in examples((REPO / "docs" / "evaluation.md").read_text())]
    assert "cheap" in kinds and "slow" in kinds


def test_every_shell_example_is_checked_or_marked_illustrative():
    unmarked = [
        f"{p.relative_to(REPO)}:{line}: {why}"
        for p in DOCS
        for line, why in problems(p.read_text())
    ]
    assert not unmarked, "\n".join(unmarked)


@pytest.mark.parametrize(
    "name,example",
    [c for c in CHEAP if not c[1].server],
    ids=[f"{n}:{e.line}" for n, e in CHEAP if not e.server],
)
def test_cheap_documented_example_matches(name, example):
    diff = check(example, timeout=300)
    assert not diff, f"{name} line {example.line} differs:\n" + "\n".join(diff)


@pytest.mark.parametrize(
    "name,example",
    [c for c in CHEAP if c[1].server],
    ids=[f"{n}:{e.line}" for n, e in CHEAP if e.server],
)
def test_documented_request_to_a_running_service_matches(name, example, service):
    diff = check(example, timeout=120, server_url=service.url)
    assert not diff, f"{name} line {example.line} differs:\n" + "\n".join(diff)


def test_the_documented_start_up_line_is_what_serve_prints(service):
    """api.md's comment under ``atelier serve`` is its start-up line, up to the port, the
    number of search workers (one per core) and the database's path."""
    api = (REPO / "docs" / "api.md").read_text()
    documented = re.search(r"^# (atelier serve: .*)$", api, re.M)[1]
    printed = service.log.read_text().splitlines()[0]

    def general(line: str) -> str:
        line = re.sub(r":[0-9]+/docs", ":PORT/docs", line)
        line = re.sub(r"\(\d+ search workers", "(N search workers", line)
        return re.sub(r"matches in [^,)]+", "matches in PATH", line)

    assert general(documented) == general(printed)


def test_every_install_and_serve_line_is_the_readme_one():
    readme = re.search(
        r"^.*pip install -e \. && atelier serve$", (REPO / "README.md").read_text(), re.M
    )[0]
    for path in DOCS:
        for line in path.read_text().splitlines():
            if "pip install" in line and "atelier serve" in line and not line.startswith("#"):
                assert line == readme, f"{path.relative_to(REPO)}: {line!r} differs from README's"


def test_a_changed_output_is_reported_and_measured_figures_are_ignored():
    same = Example("cheap", "printf 'a [1] 5.2\\nb\\n'", "a [1] 9.9\nb", r"(?<=\])\s+[0-9.]+$", 1)
    assert check(same) == []
    other = Example("cheap", "printf 'a\\nc\\n'", "a\nb", None, 1)
    assert any(line == "+c" for line in check(other))
    failing = Example("cheap", "exit 3", "", None, 1)
    assert check(failing)[0].startswith("exit status 3")


def test_an_ellipsis_in_the_documented_output_stands_for_any_text():
    elided = Example("cheap", 'printf \'{"a": 1, "b": 2}\\n\'', '{"a": ..., "b": 2}', None, 1)
    assert check(elided) == []
    wrong = Example("cheap", 'printf \'{"a": 1, "b": 3}\\n\'', '{"a": ..., "b": 2}', None, 1)
    assert '+{"a": 1, "b": 3}' in check(wrong)


def test_a_repo_example_runs_in_the_source_tree_and_a_server_one_gets_its_url():
    here = Example("cheap", "ls pyproject.toml", "pyproject.toml", None, 1, repo=True)
    assert check(here) == []
    served = Example("cheap", "echo $S", "http://127.0.0.1:1", None, 1, server=True)
    assert check(served, server_url="http://127.0.0.1:1") == []
    assert check(served) == ["this example needs a running service (server_url)"]


UNMARKED = """Intro.

```sh
curl -s $S/v1/games
```

<!-- doccheck: illustrative: installs packages -->
```bash
pip install -e .
```

```
atelier tournament gallery_rush --deals 1
```

```json
{"no": "command"}
```

<!-- doccheck: illustrative -->
```bash
atelier serve
```

<!-- doccheck: cheap -->
```bash
atelier serve
```
"""


def test_unmarked_shell_blocks_and_bad_marks_are_named_by_line():
    assert [line for line, _ in problems(UNMARKED)] == [3, 12, 20, 25]
    why = dict(problems(UNMARKED))
    assert "no doccheck mark" in why[3] and "no doccheck mark" in why[12]
    assert "needs a reason" in why[20] and "cheap" in why[25]


def test_the_output_of_a_checked_example_is_not_a_shell_block():
    text = "<!-- doccheck: cheap -->\n```bash\necho curl -s x\n```\n```\ncurl -s x\n```\n"
    assert problems(text) == []
