"""The ``games`` package's modules import one way: no cycles, however an import is written.

Every ``import`` counts, at module level, inside a function or under ``TYPE_CHECKING``: a lazy
import that hides a cycle is still a cycle for a reader. The core runs params -> engine ->
pieces -> definition -> infoset -> observation -> spiel (issue 20).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from a.b import c`` names ``a.b``)."""
    files = {module_name(p): p for p in (ROOT / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets.add(node.module)  # and ``from package import module``:
                targets.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {t for t in targets if t in files and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]], skip: set[str]) -> list[str] | None:
    """A cycle among the modules not in ``skip`` (package ``__init__`` files re-export)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node] - skip):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(set(graph) - skip):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_games_modules_import_without_cycles():
    graph = import_graph("games")
    packages = {name for name in graph if (ROOT / name.replace(".", "/") / "__init__.py").exists()}
    assert find_cycle(graph, packages) is None


def test_the_core_layers_run_one_way():
    graph = import_graph("games")
    layers = ["params", "engine", "pieces", "definition", "infoset", "observation", "spiel"]
    for i, layer in enumerate(layers):
        higher = {f"games.core.{name}" for name in layers[i + 1 :]}
        assert not graph[f"games.core.{layer}"] & higher, layer


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph, set()) == ["a", "b", "c", "a"]


def test_the_search_package_imports_one_way_and_its_pool_stands_alone():
    """``bots/ismcts/`` (issue 44): its parts import without cycles, the bot on top; the pool of
    worlds, shared with ``oos`` and the best responder, does not depend on the ISMCTS bot."""
    graph = import_graph("bots")
    parts = {name for name in graph if name.startswith("bots.ismcts.")}
    assert find_cycle({name: graph[name] & parts for name in parts}, set()) is None
    assert not any("bots.ismcts.bot" in graph[name] for name in parts)
    assert not {name for name in graph["bots.pool"] if name.startswith("bots.ismcts")}
