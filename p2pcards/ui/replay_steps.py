"""A saved table, checked once and then stepped through: the model behind ``p2pcards replay``.

:func:`replay` runs the transcript through the same :class:`~p2pcards.protocol.table.Table`
an offline verifier uses, so every signature, proof and rule is checked; it
keeps, after each message, the events that message gave and the view then
(an observer's public view, or the saved player's own view when the folder
holds his secrets). Stepping back and forth is then just moving an index:
nothing is checked twice and nothing is recomputed.

The views and events are those a live table gives: without the player's
secrets no hidden card is in them (an observer's referee is dealt only
backs); with them, only that player's own cards are added.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2pcards.errors import P2PCardsError
from p2pcards.net.journal import NoTranscript, read_saved_transcript
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import DeadlineMissed, PlayerLeft, ProtocolError, VerdictRefused
from p2pcards.protocol.events import (
    ActionApplied,
    ClockPaused,
    HandReceived,
    HintTaken,
    MatchCompleted,
    PlayersSeated,
    TableEnded,
    TableEvent,
)
from p2pcards.protocol.evidence import check_verdict
from p2pcards.protocol.identity import fingerprint
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import SessionSecrets, Stage
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import not_in_chain, same_verdict
from p2pcards.rules.contract import Engine, Outcome
from p2pcards.ui.plain import PlainPrinter
from p2pcards.ui.text import describe
from p2pcards.ui.text_common import plural


class ReplayError(P2PCardsError):
    """A saved table that cannot be replayed; the message says where and why.

    ``position`` is the transcript position of the faulty message (None: the
    file or folder itself)."""

    def __init__(self, problem: str, position: int | None = None) -> None:
        super().__init__(problem)
        self.position = position


class SecretsMismatch(ReplayError):
    """The folder's saved secrets are not those of the player it names at this table."""


class SeatReader:
    """Stands in for a player's identity when his table is replayed from his saved
    secrets: the table needs only his public key to find his seat, and a
    replay never writes, so nothing is ever signed."""

    def __init__(self, public_key: bytes, name: str = "player") -> None:
        self.public_key = public_key
        self.name = name

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, message: bytes) -> bytes:
        raise ReplayError("a replay never writes to the transcript")

    def __repr__(self) -> str:
        return f"SeatReader(fingerprint={self.fingerprint})"


@dataclass(frozen=True)
class Saved:
    """What a saved table holds for a replay: the chain, and what its folder adds."""

    messages: list[bytes]
    verdict: Verdict | None = None
    secrets: SessionSecrets | None = field(default=None, repr=False)
    player: int | None = None
    """The player (join order) whose folder this is, when it holds his secrets."""
    bots: tuple[bool, ...] = ()


def load_saved(path: Path) -> Saved:
    """Read a transcript file, or a saved table's folder (its transcript, verdict and,
    when it is a player's own folder, that player's secrets), as ``verify`` takes it."""
    path = Path(path)
    try:
        journal, _transcript, messages = read_saved_transcript(path)
    except NoTranscript as missing:
        raise ReplayError(str(missing)) from None
    try:
        verdict = journal.saved_verdict()
    except (ProtocolError, ValueError, TypeError) as error:
        raise ReplayError(f"{journal.verdict_path} is not a saved verdict: {error}") from None
    secrets, player = None, None
    bots: tuple[bool, ...] = ()
    if path.is_dir() and journal.exists():
        try:
            meta = journal.read_meta()
        except (OSError, ValueError, ProtocolError) as error:
            raise ReplayError(f"{journal.meta_path} cannot be read: {error}") from None
        raw_bots = meta.get("bots")
        if isinstance(raw_bots, list):
            bots = tuple(bool(b) for b in raw_bots)
        if "secrets" in meta and isinstance(meta.get("player"), int):
            try:
                secrets = SessionSecrets.from_wire(meta["secrets"])
            except ProtocolError as error:
                raise ReplayError(f"{journal.meta_path}: the saved secrets are unusable "
                                  f"({error})") from None
            player = meta["player"]
    return Saved(messages, verdict, secrets, player, bots)


@dataclass(frozen=True)
class Step:
    """The table just after one transcript message (or after the saved verdict)."""

    index: int
    position: int
    """The transcript position of the message (the saved verdict: one past the last)."""
    events: tuple[TableEvent, ...]
    view: Engine | None
    """The referee's view then: public, or the saved player's own; None before play."""
    deal: int
    """Decks dealt so far, this message's included (0 before the first deal)."""

    @property
    def is_move(self) -> bool:
        """A step worth stopping at: the seats drawn, a deal, a game move, a pause, a
        hint, the end."""
        return any(isinstance(e, (PlayersSeated, HandReceived, ActionApplied, ClockPaused,
                                  HintTaken, MatchCompleted, TableEnded)) for e in self.events)


@dataclass(frozen=True)
class PlayerInfo:
    """A player as the genesis lists him (join order), and whether a bot played him."""

    name: str
    fingerprint: str
    bot: bool = False


@dataclass
class Replay:
    """A whole saved table, step by step (built by :func:`replay`)."""

    game: str
    table: str
    players: tuple[PlayerInfo, ...]
    steps: list[Step]
    seating: tuple[int, ...] | None = None
    me_player: int | None = None
    """The player whose own cards the views hold (None: public views only)."""
    me_seat: int | None = None
    outcome: Outcome | None = None
    verdict: Verdict | None = None
    moves: list[int] = field(default_factory=list)
    """Indices of the steps worth stopping at (see :attr:`Step.is_move`), first the genesis."""
    deal_starts: list[int] = field(default_factory=list)
    """Index of the step that dealt each deck, in order (deal 1 first)."""
    seated_at: int | None = None
    """Index of the step that drew the seats."""
    messages: int = 0
    """Signed messages checked, the genesis included (as ``p2pcards verify`` counts them):
    not the steps, which add one for a verdict saved outside the chain."""

    @property
    def deals(self) -> int:
        return len(self.deal_starts)

    def move_of(self, index: int) -> int:
        """The number of the last move at or before step ``index`` (0: the genesis)."""
        count = 0
        for number, step in enumerate(self.moves):
            if step <= index:
                count = number
        return count

    def next_move(self, index: int) -> int:
        """The step of the next move after step ``index`` (the last step at the end)."""
        return next((i for i in self.moves if i > index), self.moves[-1])

    def previous_move(self, index: int) -> int:
        """The step of the move before step ``index`` (the genesis at the start)."""
        return next((i for i in reversed(self.moves) if i < index), 0)

    def deal_start(self, number: int) -> int:
        """The step that dealt deal ``number`` (1-based); raises IndexError if there is none."""
        if not 1 <= number <= len(self.deal_starts):
            raise IndexError(f"no deal {number}: this table dealt "
                             f"{len(self.deal_starts)} (1 to {len(self.deal_starts)})")
        return self.deal_starts[number - 1]

    def next_deal(self, index: int) -> int:
        """The start of the deal after the one at step ``index`` (the end after the last)."""
        return next((i for i in self.deal_starts if i > index), len(self.steps) - 1)

    def previous_deal(self, index: int) -> int:
        """The start of the deal at step ``index`` if past it, else of the deal before."""
        return next((i for i in reversed(self.deal_starts) if i < index), 0)

    def names_at(self, index: int) -> list[str]:
        """Display names by seat at step ``index`` ([] before the seats are drawn)."""
        if self.seating is None or self.seated_at is None or index < self.seated_at:
            return []
        return [self.players[p].name for p in self.seating]


def replay(messages: Sequence[bytes], *, verdict: Verdict | None = None,
           secrets: SessionSecrets | None = None, player: int | None = None,
           bots: Sequence[bool] = (),
           progress: Callable[[int, int], None] | None = None) -> Replay:
    """Check ``messages`` (genesis first) as an observer, or as ``player`` with his saved
    ``secrets`` (his own cards are then known); keep every step.

    Raises :class:`ReplayError` naming the first message that is not a valid
    continuation, in the words ``p2pcards verify`` uses."""
    if not messages:
        raise ReplayError("the transcript is empty")
    try:
        table = _table(messages, secrets, player)
    except ProtocolError as error:
        raise ReplayError(f"genesis: {error}", 0) from None
    if secrets is not None and player is not None:
        _check_secrets(messages, secrets, player)
    players = tuple(PlayerInfo(p.name, fingerprint(p.public_key),
                               bool(bots[i]) if i < len(bots) else False)
                    for i, p in enumerate(table.players))
    out = Replay(table.game.name, table.table_name, players, [],
                 me_player=table.me_player)
    out.steps.append(Step(0, 0, (), None, 0))
    out.messages = 1
    deal = 0
    for position, raw in enumerate(messages[1:], start=1):
        misplaced = not_in_chain(raw, position)
        if misplaced is not None:
            raise ReplayError(f"message {position}: {misplaced}", position)
        try:
            events = table.receive(raw, saved=True)  # a saved record: its own seat's too
        except ProtocolError as error:
            raise ReplayError(f"message {position}: {error}", position) from None
        if table.stage is Stage.ENDED and not same_verdict(table.verdict, verdict):
            rule = table.verdict.rule if table.verdict is not None else "?"
            raise ReplayError(f"message {position} breaks the rules: {rule}", position)
        if table.stage is not Stage.ENDED:
            out.messages += 1  # the message a saved verdict blames is not counted as checked
        deal += sum(isinstance(e, HandReceived) for e in events)
        out.steps.append(Step(position, position, tuple(events), _view(table), deal))
        if progress is not None:
            progress(position + 1, len(messages))
        if table.stage is Stage.ENDED:
            break  # the saved verdict blames this very message: the record ends here
    if table.stage not in (Stage.OVER, Stage.ENDED) and verdict is not None:
        if verdict.rule in (DeadlineMissed.rule, PlayerLeft.rule):
            try:  # as verify judges them (these checks change nothing)
                check_verdict(table, verdict)
            except VerdictRefused as refused:
                raise ReplayError(f"the saved verdict is refused: {refused}", len(messages)) from None
        table.restore_verdict(verdict)  # ended outside the chain (a clock, a leave): as saved
        out.steps.append(Step(len(out.steps), len(messages), (TableEnded(verdict),),
                              _view(table), deal))
    out.seating = table.player_at_seat
    out.me_seat = table.my_seat
    out.outcome = table.match.engine.outcome if table.stage is Stage.OVER else None
    out.verdict = table.verdict
    out.moves = [0] + [s.index for s in out.steps[1:] if s.is_move]
    if out.moves[-1] != len(out.steps) - 1:
        out.moves.append(len(out.steps) - 1)  # a table saved mid-deal: its last message
    out.seated_at = next((s.index for s in out.steps
                          if any(isinstance(e, PlayersSeated) for e in s.events)), None)
    out.deal_starts = [s.index for s in out.steps
                       if any(isinstance(e, HandReceived) for e in s.events)]
    return out


def replay_saved(saved: Saved, *, own_hand: bool = True,
                 progress: Callable[[int, int], None] | None = None) -> Replay:
    """:func:`replay` of what :func:`load_saved` read (``own_hand``: use its secrets, if any)."""
    mine = own_hand and saved.secrets is not None
    return replay(saved.messages, verdict=saved.verdict, bots=saved.bots, progress=progress,
                  secrets=saved.secrets if mine else None, player=saved.player if mine else None)


def _table(messages: Sequence[bytes], secrets: SessionSecrets | None,
           player: int | None) -> Table:
    if secrets is None or player is None:
        return Table(messages[0])
    genesis = Table(messages[0])  # raises for a bad genesis before any seat is looked up
    if not 0 <= player < len(genesis.players):
        raise SecretsMismatch(f"the saved player {player} is not at this table", 0)
    reader = SeatReader(genesis.players[player].public_key, genesis.players[player].name)
    # Every share is checked, as an observer does, though this player's cards are known.
    return Table(messages[0], reader, secrets, check_all_shares=True)


def _check_secrets(messages: Sequence[bytes], secrets: SessionSecrets, player: int) -> None:
    """The saved key share must be the one the player opened in the transcript, or his
    hand would decrypt to nonsense."""
    for position, raw in enumerate(messages[1:], start=1):
        try:
            msg = SignedMessage.parse(raw)
        except ProtocolError:
            return  # the replay names this message's fault
        if msg.type == "open" and msg.player == player:
            if msg.body.get("key") != secrets.key.public.to_bytes():
                raise SecretsMismatch(f"the saved secrets are not those player {player} "
                                      f"opened at message {position}", position)
            return


def _view(table: Table) -> Engine | None:
    """The view after a message: the saved player's own, else the observer's public one."""
    if table.engine is None:
        return None
    if table.my_seat is not None:
        return table.view()
    return table.engine.copy()  # an observer's referee was dealt only backs


def heading(record: Replay) -> str:
    """One line naming the table, its game and players, and whose hand (if any) is shown."""
    names = ", ".join(p.name + (" (bot)" if p.bot else "") for p in record.players)
    whose = ("public view" if record.me_player is None
             else f"with {record.players[record.me_player].name}'s own hand")
    return (f"Replay of table {record.table!r} ({record.game}): {names}; "
            f"{plural(record.messages, 'signed message')} checked, "
            f"{plural(record.deals, 'deal')}; {whose}.")


def print_plain(record: Replay, write: Callable[[str], None], *, symbols: bool = False,
                verbose: bool = False) -> None:
    """Every event of the table in order, in the words a live table's plain mode
    uses, a one-line summary per deal, then the outcome."""
    for _index, line in plain_lines(record, symbols=symbols, verbose=verbose):
        write(line)


def plain_lines(record: Replay, *, symbols: bool = False,
                verbose: bool = False) -> Iterator[tuple[int, str]]:
    """The lines of :func:`print_plain`, each with the step it belongs to."""
    current = [0]
    out: list[str] = []

    def seat() -> int | None:
        return record.me_seat if record.names_at(current[0]) else None

    printer = PlainPrinter(
        out.append, lambda: record.names_at(current[0]), me_provider=seat,
        players_provider=lambda: ([p.name for p in record.players], record.me_player),
        view_provider=lambda: record.steps[current[0]].view,
        symbols=symbols, verbose=verbose, one_line_summaries=True, game=record.game)
    yield 0, heading(record)
    for step in record.steps:
        current[0] = step.index
        for event in step.events:
            printer.on_event(event)
        for text in out:
            yield from ((step.index, line) for line in text.split("\n"))
        out.clear()
    yield len(record.steps) - 1, outcome_line(record)


def outcome_line(record: Replay) -> str:
    """How the saved table ended: the match's winners, a verdict, or still in play."""
    names = record.names_at(len(record.steps) - 1)
    if record.outcome is not None:
        winners = [names[s] if s < len(names) else f"Seat {s}" for s in record.outcome.winners]
        return f"Outcome: the match is over; {' and '.join(winners)} won."
    if record.verdict is not None:
        said = describe(TableEnded(record.verdict), names, record.me_seat, record.seating,
                        players=[p.name for p in record.players], me_player=record.me_player)
        return f"Outcome: no winner. {said}" if said else "Outcome: no winner: the table ended."
    return "Outcome: none yet; the saved table was still in play."
