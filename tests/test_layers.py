"""The packages import one way: no cycles, however an import is written, and only downwards.

The layers, lowest first: ``games`` (rules, information sets), ``bots`` (which play them),
``server`` (the hint and match service) and ``evaluation`` (the ``atelier`` command line,
benchmarks, tournaments, reviews; its ``serve`` command and the docs check use the service). A
module imports only its own layer and those below it (docs/architecture.md, "Layers").

Every ``import`` counts: at module level, inside a function or under ``TYPE_CHECKING``, and a
module named as a string to ``importlib.import_module`` (the command line's lazy commands, the
``server`` package's lazy names). A lazy import is allowed (the command line starts faster for
it) but a lazy import that hides a cycle is still a cycle for a reader, and one against the
layer order still ties a lower layer to a higher one. Within ``games.core`` the modules run
params -> engine -> pieces -> definition -> infoset -> observation -> spiel (issue 20).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("games", "bots", "server", "evaluation")  # lowest first
# Edges the checks accept, each with the reason it cannot be avoided: none today.
ALLOWED: dict[tuple[str, str], str] = {}
MODULE_STRING = re.compile(r"^([a-z_][a-z0-9_.]*)(:[A-Za-z_]\w*)?$")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules(packages: tuple[str, ...] = LAYERS) -> dict[str, Path]:
    return {module_name(p): p for package in packages for p in (ROOT / package).rglob("*.py")}


def imported(tree: ast.AST, known: set[str] | dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``tree`` imports, anywhere in it.

    ``from a.b import c`` names ``a.b.c`` when that is a module (importing a submodule runs its
    package's ``__init__`` but depends on nothing in it), else ``a.b``. In a module that calls
    ``importlib.import_module``, a string constant naming a module (``"a.b"``, ``"a.b:attr"``)
    counts as an import of it.
    """
    targets: set[str] = set()
    dynamic = False
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{alias.name}" for alias in node.names}
            modules = subs & set(known)
            targets |= modules
            if len(modules) < len(subs):
                targets.add(node.module)
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Attribute) and node.attr == "import_module":
            dynamic = True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = MODULE_STRING.match(node.value)
            if match:
                strings.add(match.group(1))
    if dynamic:
        targets |= strings
    return {t for t in targets if t in known}


def import_graph(packages: tuple[str, ...] = LAYERS) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports (see ``imported``)."""
    files = all_modules(packages)
    return {
        name: imported(ast.parse(path.read_text()), files) - {name} for name, path in files.items()
    }


def find_cycle(graph: dict[str, set[str]], skip: set[str] = frozenset()) -> list[str] | None:
    """A cycle among the modules not in ``skip``, as a path that ends where it starts."""
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


def layer_of(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every import of a higher layer than the importing module's own (not allow-listed)."""
    return sorted(
        (source, target)
        for source, targets in graph.items()
        for target in targets
        if layer_of(target) > layer_of(source) and (source, target) not in ALLOWED
    )


def test_no_module_cycle_in_any_package_lazy_imports_included():
    graph = import_graph()
    pruned = {n: {t for t in ts if (n, t) not in ALLOWED} for n, ts in graph.items()}
    assert find_cycle(pruned) is None


def test_every_import_respects_the_layer_order():
    assert upward_imports(import_graph()) == []


def test_the_graph_sees_every_package_and_the_lazy_imports():
    graph = import_graph()
    assert {name.split(".")[0] for name in graph} == set(LAYERS)
    # An import inside a function (``server.pool`` starts its workers on ``server.tasks``) ...
    assert "server.tasks" in graph["server.pool"]
    # ... and one named as a string (the command line's lazy ``atelier serve``).
    assert "server.commands" in graph["evaluation.cli"]


def test_imports_inside_functions_count():
    tree = ast.parse("def f():\n    from b import x\n    import c\n")
    assert imported(tree, {"b", "c", "d"}) == {"b", "c"}
    lazy = ast.parse('import importlib\nT = {"x": "b.c:thing"}\nimportlib.import_module("d")\n')
    assert imported(lazy, {"b.c", "d", "e"}) == {"b.c", "d"}


def test_a_lazy_import_against_the_layer_order_is_found():
    assert upward_imports({"games.core.engine": {"bots.protocol"}, "bots.protocol": set()}) == [
        ("games.core.engine", "bots.protocol")
    ]


def test_the_core_layers_run_one_way():
    graph = import_graph(("games",))
    layers = ["params", "engine", "pieces", "definition", "infoset", "observation", "spiel"]
    for i, layer in enumerate(layers):
        higher = {f"games.core.{name}" for name in layers[i + 1 :]}
        assert not graph[f"games.core.{layer}"] & higher, layer


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]


def test_the_search_package_imports_one_way_and_its_pool_stands_alone():
    """``bots/ismcts/`` (issue 44): its parts import without cycles, the bot on top; the pool of
    worlds, shared with ``oos`` and the best responder, does not depend on the ISMCTS bot."""
    graph = import_graph(("bots",))
    parts = {name for name in graph if name.startswith("bots.ismcts.")}
    assert find_cycle({name: graph[name] & parts for name in parts}, set()) is None
    assert not any("bots.ismcts.bot" in graph[name] for name in parts)
    assert not {name for name in graph["bots.pool"] if name.startswith("bots.ismcts")}


def test_the_bot_protocol_reads_no_heuristics():
    """``bots.protocol`` is what every bot builds on; the facts it needs about a game's
    information structure (``public_history``, ``hidden_in_tail``) are the game definition's,
    not the heuristics' (issue 44.5)."""
    graph = import_graph()
    assert {t for t in graph["bots.protocol"] if t.startswith("bots.heuristics")} == set()


# --- tests import helpers from support modules, never from another test module (issue 44) ----
TEST_MODULE = re.compile(r"^(tests\.)?test_\w*")
# Imports of a test module the check accepts, each with its reason.
ALLOWED_TEST_IMPORTS = {
    ("test_modern_art_rules.py", "tests.test_conformance"): "the slow full-game test runs the "
    "conformance suite itself (its test functions, by run_game_checks) on the full Modern Art",
}


def imported_test_modules(tree: ast.AST) -> list[str]:
    """The test modules an AST imports (``tests.test_x``, ``test_x``, ``from tests import
    test_x``, ``from .test_x import ...``), at any depth: a shared helper or fixture belongs
    in a support module or tests/conftest.py, so that running or editing one test module never
    runs or breaks another's setup."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if TEST_MODULE.match(a.name)]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if TEST_MODULE.match(module):
                found.append(module)
            elif module == "tests" or (node.level and not module):
                found += [f"{module}.{a.name}" for a in node.names if a.name.startswith("test_")]
    return found


def test_no_test_module_imports_another_test_module():
    offenders = {
        path.name: names
        for path in sorted((ROOT / "tests").glob("*.py"))
        if (
            names := [
                name
                for name in imported_test_modules(ast.parse(path.read_text(), str(path)))
                if (path.name, name) not in ALLOWED_TEST_IMPORTS
            ]
        )
    }
    assert offenders == {}, f"move what they share into a support module: {offenders}"


def test_the_test_module_scan_sees_every_way_of_importing_one():
    source = """
import tests.test_client as tc
from tests.test_reliability import KEYS
from tests import support, test_review
from .test_luck import FEW
from test_play_e2e import browser
def later():
    from tests.test_review import another_world
import tests.support, testing_tools
from tests.live_server import start_server
"""
    assert sorted(imported_test_modules(ast.parse(source))) == [
        "test_luck",
        "test_play_e2e",
        "tests.test_client",
        "tests.test_reliability",
        "tests.test_review",
        "tests.test_review",
    ]
