"""An older revision's code as a contender in a benchmark: exported once, run in a subprocess.

``atelier bench ismcts --baseline REV`` and ``atelier bench engine --baseline REV`` compare
today's code with an older commit's in one interleaved run: the commit's tree is exported with
``git archive`` under the temporary directory, and a worker script of the bench (a file next to
this one) runs in a subprocess with that tree first on ``sys.path``, so everything the worker
imports (games, bots, the bench module's own measuring function) is the old code. Jobs and
answers are JSON lines on the worker's stdin and stdout; each job is one slice of measurement.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]


class BaselineError(RuntimeError):
    """The baseline revision cannot be exported or run (named in the message)."""


def export_revision(rev: str, repo: Path = REPO_ROOT) -> Path:
    """The tree of ``rev`` under the temporary directory (exported once per commit)."""
    try:
        sha = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--verify", f"{rev}^{{commit}}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as err:
        raise BaselineError(
            f"baseline revision {rev!r} is not a commit of the git checkout at {repo} "
            "(pass --no-baseline to measure without it)"
        ) from err
    target = Path(tempfile.gettempdir()) / f"atelier-baseline-{sha[:12]}-built"
    if not (target / "games").is_dir():
        partial = Path(tempfile.mkdtemp(prefix=f"atelier-baseline-{sha[:12]}-"))
        archive = subprocess.run(
            ["git", "-C", str(repo), "archive", "--format=tar", sha],
            capture_output=True,
            check=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(partial, filter="data")
        build_extensions(partial)
        with contextlib.suppress(OSError):  # another run exported it meanwhile
            partial.rename(target)
    return target


def tree_env() -> dict[str, str]:
    """The environment of a subprocess that runs one tree's code (a revision's export, or this
    checkout as one side of a comparison): this process's without ``PYTHONPATH``, so the tree
    that the subprocess puts first on ``sys.path`` is the only place it imports the project
    from; a ``PYTHONPATH`` naming this checkout (how the docs run a worktree) would otherwise
    let today's modules stand in for ones a baseline lacks. The one place that builds it:
    the extensions' build, ``BaselineProcess`` and the review bench's fresh processes."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def build_extensions(tree: Path) -> bool:
    """Builds an exported revision's compiled modules in place, as ``pip install -e .`` does
    at that revision (``git archive`` exports no build products): a baseline runs its own
    compiled code (an old revision's Modern Art ``_playout.pyx``, a newer one's compiled
    engines), not the pure-Python fallback. Without Cython or a compiler here it says so on
    stderr and the baseline runs pure Python. Whether the build succeeded."""
    if not (tree / "setup.py").is_file():
        return True  # a revision with nothing to compile
    done = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=tree,
        capture_output=True,
        text=True,
        env=tree_env(),
    )
    if done.returncode != 0:
        tail = " ".join(done.stderr.split()[-40:])
        print(
            f"note: the baseline's extensions did not build; it runs pure Python ({tail})",
            file=sys.stderr,
        )
    return done.returncode == 0


class BaselineProcess:
    """A worker script of the bench running on the code of revision ``rev`` (its export), or
    on the tree ``root`` when given (``atelier bench hint`` profiles this checkout's own code
    in a pure-Python worker); ``args`` follow the tree's path on the worker's command line."""

    def __init__(
        self, rev: str, worker: str, root: Path | None = None, args: tuple[str, ...] = ()
    ) -> None:
        self.rev = rev
        self.root = root if root is not None else export_revision(rev)
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name(worker)), str(self.root), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=tree_env(),
        )
        self.ready = self._read()

    def _read(self) -> dict[str, Any]:
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise BaselineError(f"the baseline at {self.rev} stopped (see its error above)")
        return json.loads(line)

    def ask(self, job: dict[str, Any]) -> dict[str, Any]:
        """Sends one job; returns the worker's answer."""
        self.proc.stdin.write(json.dumps(job) + "\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        return self._read()

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
