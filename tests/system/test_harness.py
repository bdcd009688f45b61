"""The harness itself: a home given another ``p2pcards`` package runs that one, not this checkout's."""

from __future__ import annotations

from pathlib import Path

from .harness import REPO_ROOT, Home


def test_a_home_with_a_package_root_runs_the_package_found_there(tmp_path: Path) -> None:
    # A stand-in for an older revision's package: its command only says where it comes from.
    package = tmp_path / "reference" / "p2pcards"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("print('stand-in', __file__)\n")
    home = Home(tmp_path, "ref", package_root=package.parent)
    assert home.imported_package() == package.resolve()
    done = home.run("--version")
    assert done.returncode == 0 and done.stdout.startswith("stand-in"), done.stderr
    assert Home(tmp_path, "this").imported_package() == REPO_ROOT / "p2pcards"
