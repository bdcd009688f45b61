"""Lower layers never import upper ones (the layers of `p2pcards/__init__.py`'s docstring)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "p2pcards"

#: What each layer may import from the project, besides itself.
ALLOWED = {
    # The one exception root imports nothing; every layer may raise its subclasses.
    "errors": set(),
    # The one name for "anything from the wire" (msgpack, JSON): a type alias, no code.
    "wiremap": set(),
    "untrusted_text": {"errors"},
    "cards": {"errors", "wiremap"},
    "rules": {"cards", "errors", "wiremap"},
    "crypto": {"errors", "wiremap"},
    "protocol": {"cards", "rules", "crypto", "untrusted_text", "errors", "wiremap"},
    "net": {"cards", "rules", "crypto", "protocol", "untrusted_text", "errors", "wiremap"},
    # On top: bots decide from a seat's view only; the screens read events and views.
    "bots": {"cards", "rules", "errors", "wiremap"},
    "ui": {"cards", "rules", "protocol", "net", "untrusted_text", "errors", "wiremap"},
    # The application: tables put together, a seat's front end (a screen or a bot).
    "app": {"cards", "rules", "crypto", "protocol", "net", "bots", "ui", "untrusted_text", "errors",
            "wiremap"},
    # The evening: matches one after another, on the application's tables and front ends.
    "evening": {"app", "cards", "rules", "crypto", "protocol", "net", "bots", "ui", "untrusted_text",
                "errors", "wiremap"},
    # The command line's bodies, and its parser and dispatch: only ``__main__`` is above.
    "commands": {"evening", "app", "cards", "rules", "crypto", "protocol", "net", "bots", "ui",
                 "untrusted_text", "errors", "wiremap"},
    "cli": {"commands", "evening", "app", "cards", "rules", "crypto", "protocol", "net", "bots", "ui",
            "untrusted_text", "errors", "wiremap"},
}

def layer_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0].removesuffix(".py")


def project_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("p2pcards."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith("p2pcards."))
    return names


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if layer_of(p) in ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_imports_only_its_own_layer_and_those_below(path: Path) -> None:
    layer = layer_of(path)
    stray = project_imports(path) - ALLOWED[layer] - {layer}
    assert not stray, f"{path.relative_to(PACKAGE)} (layer {layer}) imports {sorted(stray)}"


def test_the_layer_check_sees_every_lower_layer() -> None:
    assert {layer_of(p) for p in MODULES} == set(ALLOWED)


def test_every_deliberate_exception_has_the_one_root() -> None:
    import importlib
    import pkgutil

    import p2pcards
    from p2pcards.errors import P2PCardsError

    loose = []
    for info in pkgutil.walk_packages(p2pcards.__path__, "p2pcards."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (isinstance(value, type) and issubclass(value, BaseException)
                    and value.__module__ == info.name and not issubclass(value, P2PCardsError)):
                loose.append(f"{info.name}.{name}")
    assert loose == []
