"""The documented examples still give the documented output (the cheap ones; the slow ones by
hand with ``python -m evaluation.doccheck docs/evaluation.md --all``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.doccheck import Example, check, examples

DOCS = Path(__file__).resolve().parent.parent / "docs"
CHEAP = [(p.name, ex) for p in sorted(DOCS.glob("*.md")) for ex in examples(p.read_text())]


def test_the_evaluation_page_has_checked_examples():
    kinds = [ex.kind for name, ex in CHEAP if name == "evaluation.md"]
    assert "cheap" in kinds and "slow" in kinds


@pytest.mark.parametrize(
    "name,example",
    [c for c in CHEAP if c[1].kind == "cheap"],
    ids=[f"{n}:{e.line}" for n, e in CHEAP if e.kind == "cheap"],
)
def test_cheap_documented_example_matches(name, example):
    diff = check(example, timeout=300)
    assert not diff, f"{name} line {example.line} differs:\n" + "\n".join(diff)


def test_a_changed_output_is_reported_and_measured_figures_are_ignored():
    same = Example("cheap", "printf 'a [1] 5.2\\nb\\n'", "a [1] 9.9\nb", r"(?<=\])\s+[0-9.]+$", 1)
    assert check(same) == []
    other = Example("cheap", "printf 'a\\nc\\n'", "a\nb", None, 1)
    assert any(line == "+c" for line in check(other))
    failing = Example("cheap", "exit 3", "", None, 1)
    assert check(failing)[0].startswith("exit status 3")
