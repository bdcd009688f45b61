"""The front ends ask the game object which game they show: no type chains, no module names."""

import re
from pathlib import Path

import pytest

import p2pcards
from p2pcards.rules.games import GAMES, by_name
from p2pcards.ui import text
from p2pcards.ui.text_common import game_name
from p2pcards.ui.tui import keymap
from tests.support.typed import present

ROOT = Path(p2pcards.__file__).parent
FRONT_ENDS = sorted([*ROOT.joinpath("ui").rglob("*.py"),
                     ROOT / "cli.py", *ROOT.joinpath("app").rglob("*.py")])
#: Asking a value's type for its game: what game_of answers instead.
GUESSES = re.compile(r"isinstance\([^)]*\b(BluffState|TopperState|BluffOutcome|TopperOutcome)\b"
                     r"|__module__|hasattr\([^)]*\"(chips|scores|deals|hands)\"")


@pytest.mark.parametrize("path", FRONT_ENDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_front_end_guesses_the_game_from_a_type_or_a_module(path: Path) -> None:
    found = [f"{path.name}:{n}: {line.strip()}"
             for n, line in enumerate(path.read_text().splitlines(), 1) if GUESSES.search(line)]
    assert not found, "ask rules.games.game_of instead:\n" + "\n".join(found)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_its_text_and_its_keys(name: str) -> None:
    game = by_name(name)
    state = game.new(None, 0)
    state.deal(list(game.deck()))
    view = state.view(present(state.to_act))
    assert game_name(view) == name and game_name(state.outcome) is None
    assert text.render(view, ["A", "B", "C", "D"], view.viewer)
    assert text.options_help(view).startswith("Your choices")
    assert keymap.hints(view)
    assert keymap.picks_one_card(view) is (name == "topper")


def test_a_view_of_no_game_is_refused_in_words() -> None:
    with pytest.raises(text.UnknownGame):
        text.render(object(), [], None)  # type: ignore[arg-type]  # deliberately no game's view
    assert keymap.hints(object()) == []  # type: ignore[arg-type]  # deliberately no game's view
    assert keymap.playable(object()) is None  # type: ignore[arg-type]  # likewise
