"""Reruns the commands a document shows and diffs their output against the document.

A checked example in a Markdown file is an HTML comment, a ``bash`` block with one command
(lines may continue with ``\\``) and the block of its output, in that order::

    <!-- doccheck: cheap ignore=REGEX -->
    ```bash
    atelier tournament ...
    ```
    ```
    output as the docs show it
    ```

``cheap`` examples run in the default test run (``tests/test_doccheck.py``); ``slow`` ones by
hand: ``python -m evaluation.doccheck docs/evaluation.md --all``. Each command runs in a fresh
temporary directory with this interpreter's ``bin`` first on ``PATH`` and the source tree in
``$ATELIER_REPO``; its stdout is compared
line by line after every match of ``ignore`` (a regular expression for measured figures, such
as the ms/move column) is blanked in both texts.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

MARK = re.compile(
    r"<!-- doccheck: (?P<kind>cheap|slow)(?: ignore=(?P<ignore>\S+))? -->\n"
    r"```bash\n(?P<command>.*?)\n```\n+```[a-z]*\n(?P<output>.*?)\n```",
    re.S,
)


@dataclass(frozen=True)
class Example:
    kind: str
    command: str
    output: str
    ignore: str | None
    line: int


def examples(text: str) -> list[Example]:
    return [
        Example(
            m["kind"],
            m["command"].replace("\\\n", " "),
            m["output"],
            m["ignore"],
            text[: m.start()].count("\n") + 1,
        )
        for m in MARK.finditer(text)
    ]


def _mask(text: str, ignore: str | None) -> list[str]:
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    if ignore is None:
        return lines
    pattern = re.compile(ignore)
    return [pattern.sub("", line) for line in lines]


def check(example: Example, timeout: float = 900.0) -> list[str]:
    """The diff between the documented and the actual output (empty when they agree)."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    # The source tree, for examples that run a script of it (``$ATELIER_REPO/examples/...``).
    env.setdefault("ATELIER_REPO", str(Path(__file__).resolve().parent.parent))
    with tempfile.TemporaryDirectory() as where:
        run = subprocess.run(
            example.command,
            shell=True,
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    if run.returncode != 0:
        return [f"exit status {run.returncode}: {run.stderr.strip()[-500:]}"]
    want, got = _mask(example.output, example.ignore), _mask(run.stdout, example.ignore)
    return list(difflib.unified_diff(want, got, "documented", "actual", lineterm=""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--all", action="store_true", help="also the slow examples")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.files:
        for ex in examples(path.read_text()):
            if ex.kind == "slow" and not args.all:
                continue
            print(f"{path}:{ex.line}: {ex.command}", file=sys.stderr)
            diff = check(ex)
            if diff:
                failed += 1
                print("\n".join(diff))
    print(f"{failed} example(s) differ", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
