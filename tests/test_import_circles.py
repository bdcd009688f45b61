"""No import circles inside the package: modules that import each other in a loop.

A circle makes two modules one idea split across files (neither can be read,
tested or replaced without the other) and its import order fragile. Every
import counts: at the top, in a function, or under ``TYPE_CHECKING`` (a type
that needs the other module is still a dependency on it). ``from a import b``
is an arrow to the module ``a.b`` where there is one, else to ``a``; a
package's ``__init__`` is a module like any other, and importing a submodule
draws no arrow to its package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "p2pcards"

#: Circles allowed to stand (none since issue 35). Should one ever be listed while
#: it is being opened, it must leave the list once opened (the test below fails
#: on a stale entry); any circle not listed fails.
KNOWN_CIRCLES: set[frozenset[str]] = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path) -> Iterator[str]:
    """The package's modules that the module ``name`` at ``path`` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    yield f"{base}.{alias.name}"
                elif base in MODULES:
                    yield base


GRAPH = {name: set(imported(name, path)) - {name} for name, path in MODULES.items()}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's
    algorithm, iterative: no recursion limit to meet)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def describe(circle: frozenset[str]) -> str:
    arrows = [f"{a} -> {b}" for a in sorted(circle) for b in sorted(GRAPH[a] & circle)]
    return "; ".join(arrows)


def test_no_module_imports_itself_back_in_a_circle() -> None:
    new = [describe(c) for c in circles(GRAPH) if c not in KNOWN_CIRCLES]
    assert new == [], "import circles: " + " | ".join(new)


def test_each_known_circle_is_still_there_or_leaves_the_list() -> None:
    opened = [sorted(c) for c in KNOWN_CIRCLES if c not in circles(GRAPH)]
    assert opened == [], f"no longer circles (remove them from KNOWN_CIRCLES): {opened}"


def test_the_circle_finder_finds_a_circle_and_what_hangs_off_it() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert circles(graph) == [frozenset({"a", "b", "c"})]


def test_the_import_reader_sees_imports_under_type_checking_and_in_functions() -> None:
    assert "p2pcards.protocol.table_settings" in GRAPH["p2pcards.commands.options"]  # in a function only
    assert "p2pcards.net.watch" in GRAPH["p2pcards.app.front"]  # under TYPE_CHECKING only
    # ``from p2pcards.rules import bluff`` is an arrow to the package's face,
    # ``from p2pcards.protocol.table import Table`` one to that module.
    assert "p2pcards.rules.bluff" in GRAPH["p2pcards.rules.contract"]
    assert "p2pcards.protocol.table" in GRAPH["p2pcards.protocol.verify"]
