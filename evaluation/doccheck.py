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
temporary directory (``repo`` in the mark: in the source tree's root, for a command the
document says to run from there) with this interpreter's ``bin`` first on ``PATH``; with
``server`` in the mark, ``$S`` is the URL of an ``atelier serve`` started for the check (on a
free 127.0.0.1 port, with a temporary match database). Its stdout is compared line by line
after every match of ``ignore`` (a regular expression for measured figures, such as the
ms/move column) is blanked in both texts; ``...`` in a documented line stands for any text.

Every shell block of the docs (``bash``, ``sh``, ``shell``, ``console``, any block with a curl
command, and any unlabelled block whose lines start with a command such as ``atelier``) carries
a mark on the line above it: checked as above, or ``<!-- doccheck: illustrative: REASON -->``
for one that cannot run as part of a check (it installs, serves until stopped, needs a file
the reader has, or runs for minutes). ``python -m evaluation.doccheck --marks FILES`` lists the
shell blocks that have none; ``tests/test_doccheck.py`` fails on any.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

OPTIONS = r"(?P<options>(?: (?:server|repo))*)(?: ignore=(?P<ignore>\S+))?"
MARK = re.compile(
    r"<!-- doccheck: (?P<kind>cheap|slow)" + OPTIONS + r" -->\n"
    r"```bash\n(?P<command>.*?)\n```\n+```[a-z]*\n(?P<output>.*?)\n```",
    re.S,
)
# Any doccheck comment on a line of its own; what follows the kind is checked by ``problems``.
ANY_MARK = re.compile(r"^<!-- doccheck: (?P<kind>[a-z]+)(?P<rest>.*) -->$")
ILLUSTRATIVE = re.compile(r"^: \S.*$")
FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<lang>[^\s`]*)")
SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh"}
# An unlabelled block is a shell block when a line of it starts with one of these.
COMMANDS = re.compile(
    r"^(?:\$ )?(?:atelier|python3?|pip|curl|locust|apt-get|for|export|cd|[A-Z_]+=\S*)\b"
)


@dataclass(frozen=True)
class Example:
    kind: str
    command: str
    output: str
    ignore: str | None
    line: int
    server: bool = False
    repo: bool = False


@dataclass(frozen=True)
class Block:
    """A fenced code block: the line of its opening fence (1-based), its language, its text."""

    line: int
    lang: str
    body: str

    def is_shell(self) -> bool:
        if self.lang in SHELL_LANGS or re.search(r"(?m)^(?:.*[\s;|(])?curl\s", self.body):
            return True
        return self.lang == "" and any(
            COMMANDS.match(line.strip()) for line in self.body.splitlines()
        )


def examples(text: str) -> list[Example]:
    return [
        Example(
            m["kind"],
            m["command"].replace("\\\n", " "),
            m["output"],
            m["ignore"],
            text[: m.start()].count("\n") + 1,
            server="server" in m["options"].split(),
            repo="repo" in m["options"].split(),
        )
        for m in MARK.finditer(text)
    ]


def blocks(text: str) -> list[Block]:
    """Every fenced code block of a Markdown text, in order."""
    lines = text.split("\n")
    found, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence = opening["fence"]
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        found.append(Block(i + 1, opening["lang"].lower(), "\n".join(lines[i + 1 : end])))
        i = end + 1
    return found


def problems(text: str) -> list[tuple[int, str]]:
    """(line, what is wrong) for every shell block without a valid mark on the line above it,
    and for every mark that marks nothing it can check."""
    lines = text.split("\n")
    checked = {ex.line for ex in examples(text)}
    # The output block of a checked example is the documented output, not a command.
    outputs = {
        text[: m.start("output")].count("\n") for m in MARK.finditer(text)
    }  # 1-based line of the output block's opening fence
    found = []
    for block in blocks(text):
        if block.line in outputs:
            continue
        above = lines[block.line - 2] if block.line >= 2 else ""
        mark = ANY_MARK.match(above)
        if mark is None:
            if block.is_shell():
                found.append((block.line, "a shell block with no doccheck mark on the line above"))
            continue
        if mark["kind"] == "illustrative":
            if not ILLUSTRATIVE.match(mark["rest"]):
                found.append(
                    (
                        block.line - 1,
                        "an illustrative mark needs a reason: "
                        "<!-- doccheck: illustrative: REASON -->",
                    )
                )
        elif block.line - 1 not in checked:
            found.append(
                (
                    block.line - 1,
                    f"a doccheck mark ({above[5:-4].strip()}) that is "
                    "not cheap|slow [server] [repo] [ignore=REGEX] over a bash block "
                    "followed by its output block, nor illustrative: REASON",
                )
            )
    return found


def _mask(text: str, ignore: str | None) -> list[str]:
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    if ignore is None:
        return lines
    pattern = re.compile(ignore)
    return [pattern.sub("", line) for line in lines]


def _elide(want: list[str], got: list[str]) -> list[str]:
    """``got`` with each line that a documented line with ``...`` matches replaced by that
    documented line, so that the diff shows only real differences."""
    out = list(got)
    for i, (documented, actual) in enumerate(zip(want, got, strict=False)):
        if "..." in documented:
            pattern = ".*".join(re.escape(part) for part in documented.split("..."))
            if re.fullmatch(pattern, actual):
                out[i] = documented
    return out


def check(example: Example, timeout: float = 900.0, server_url: str | None = None) -> list[str]:
    """The diff between the documented and the actual output (empty when they agree)."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    # This very source tree, installed or not.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    if example.server:
        if server_url is None:
            return ["this example needs a running service (server_url)"]
        env["S"] = server_url
    with tempfile.TemporaryDirectory() as where:
        run = subprocess.run(
            example.command,
            shell=True,
            cwd=REPO if example.repo else where,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    if run.returncode != 0:
        return [f"exit status {run.returncode}: {run.stderr.strip()[-500:]}"]
    want, got = _mask(example.output, example.ignore), _mask(run.stdout, example.ignore)
    got = _elide(want, got)
    return list(difflib.unified_diff(want, got, "documented", "actual", lineterm=""))


@contextlib.contextmanager
def serving(log_path: str | None = None) -> Iterator[str]:
    """The URL of an ``atelier serve`` of this source tree on a free 127.0.0.1 port with a
    temporary match database, stopped on exit (``RuntimeError`` if it does not start); its
    log (the start-up line first) goes to ``log_path``."""
    from evaluation.bench import service as bench

    with tempfile.TemporaryDirectory() as where:
        port = bench.free_port()
        log = log_path or str(Path(where) / "serve.log")
        process = bench.start_server(port, str(Path(where) / "matches.sqlite3"), log_path=log)
        try:
            yield f"http://{bench.HOST}:{port}"
        finally:
            bench.stop_server(process)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--all", action="store_true", help="also the slow examples")
    parser.add_argument(
        "--marks", action="store_true", help="only list the shell blocks without a mark"
    )
    args = parser.parse_args(argv)
    if args.marks:
        found = [(p, line, why) for p in args.files for line, why in problems(p.read_text())]
        for path, line, why in found:
            print(f"{path}:{line}: {why}")
        return 1 if found else 0
    chosen = [
        (path, ex)
        for path in args.files
        for ex in examples(path.read_text())
        if ex.kind == "cheap" or args.all
    ]
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(serving()) if any(ex.server for _, ex in chosen) else None
        failed = 0
        for path, ex in chosen:
            print(f"{path}:{ex.line}: {ex.command}", file=sys.stderr)
            diff = check(ex, server_url=url)
            if diff:
                failed += 1
                print("\n".join(diff))
    print(f"{failed} example(s) differ", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
