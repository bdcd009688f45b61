"""Lower layers never import upper ones (design.md, "Layers")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "p2pcards"

#: What each layer may import from the project, besides itself.
ALLOWED = {
    "untrusted_text": set(),
    "cards": set(),
    "rules": {"cards"},
    "crypto": set(),
    "protocol": {"cards", "rules", "crypto", "untrusted_text"},
    "net": {"cards", "rules", "crypto", "protocol", "untrusted_text"},
    # On top: bots decide from a seat's view only; the screens read events and views.
    "bots": {"cards", "rules"},
    "ui": {"cards", "rules", "protocol", "net", "untrusted_text"},
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
