"""Every test (and script) that SECURITY.md, the protocol documents, README.md and
RULES.md cite exists.

A claim backed by a test that was renamed or removed is a claim nobody checks
any more: the documents name tests as ``tests/x/test_y.py``,
``tests/x/test_y.py::test_z``, a bare ``test_z`` (a test function, or a test
module by its name) or a folder ``tests/x/``, and scripts as ``scripts/x.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [REPO / "SECURITY.md", *sorted((REPO / "protocol").glob("*.md")),
             REPO / "README.md", REPO / "RULES.md"]

#: A cited path under tests/ or scripts/ (with an optional ``::function``), or a bare test name.
CITATION = re.compile(r"\b((?:tests|scripts)/[\w/.-]*\w/?)(?:::(\w+))?|\b(test_\w+)")


def _definitions() -> dict[str, set[str]]:
    """Every function and class defined in tests/, by name: the files defining it."""
    found: dict[str, set[str]] = {}
    for path in (REPO / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(node.name, set()).add(path.relative_to(REPO).as_posix())
    return found


DEFINED = _definitions()
MODULES = {path.stem for path in (REPO / "tests").rglob("test_*.py")}


def citations(document: Path) -> list[tuple[int, str, str | None, str | None]]:
    """(line, path or "", function or None, bare name or None) for each citation."""
    text = document.read_text(encoding="utf-8")
    out = []
    for match in CITATION.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        path, function, bare = match.groups()
        out.append((line, path or "", function, bare))
    return out


def missing(document: Path) -> list[str]:
    """What the document cites that the repository does not hold."""
    problems = []
    for line, path, function, bare in citations(document):
        where = f"{document.name}:{line}"
        if bare is not None:
            if bare not in DEFINED and bare not in MODULES:
                problems.append(f"{where}: no test function or module named {bare}")
        elif not (REPO / path).exists():
            problems.append(f"{where}: no file or folder {path}")
        elif function is not None and path not in DEFINED.get(function, set()):
            problems.append(f"{where}: {path} defines no {function}")
    return problems


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d.name)
def test_every_test_a_document_cites_exists(document: Path) -> None:
    assert missing(document) == []


def test_the_check_finds_a_citation_of_each_form_and_a_missing_one(tmp_path: Path) -> None:
    sample = tmp_path / "SAMPLE.md"
    sample.write_text(
        "See `tests/test_layers.py`, `tests/test_layers.py::test_the_layer_check_sees_every_"
        "lower_layer`, `test_every_deliberate_exception_has_the_one_root`, `test_layers`,\n"
        "`tests/sim/`, `scripts/gen_vectors.py`; and `test_no_such_test_anywhere`,\n"
        "`tests/test_layers.py::test_gone`, `tests/nowhere.py`.\n", encoding="utf-8")
    assert len(citations(sample)) == 9
    assert missing(sample) == [
        "SAMPLE.md:2: no test function or module named test_no_such_test_anywhere",
        "SAMPLE.md:3: tests/test_layers.py defines no test_gone",
        "SAMPLE.md:3: no file or folder tests/nowhere.py",
    ]
