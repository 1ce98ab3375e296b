"""The documented examples still give the documented output (the cheap ones, those against a
running service included; the slow ones by hand with
``python -m evaluation.doccheck docs/evaluation.md --all``), and every shell example of the
docs is either checked or marked illustrative with a reason."""

from __future__ import annotations

import os
from collections.abc import Iterator

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


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    """One ``atelier serve`` for every example against a running service; skips locally (fails
    in CI) if it cannot start."""
    try:
        with serving() as url:
            yield url
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
    diff = check(example, timeout=120, server_url=service)
    assert not diff, f"{name} line {example.line} differs:\n" + "\n".join(diff)


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
