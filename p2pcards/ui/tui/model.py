"""What the full-screen table knows, kept up to date from events and this seat's own view.

The screen draws from this model only. The model is fed by ``apply(event)``
(events hold only what this peer may know) and by snapshots of this seat's
own view taken between the session's steps, never while a worker thread
is changing the table; so drawing never touches the live table and can run
at any moment on the event loop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from p2pcards.net import session_events as peer
from p2pcards.net.session_events import SessionEvent
from p2pcards.protocol import events as proto
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import fingerprint
from p2pcards.protocol.table_settings import HINTS, MOVE_TIME
from p2pcards.protocol.talk import TalkLine
from p2pcards.rules import bluff as bluff
from p2pcards.rules.contract import Engine, MatchEnded, Outcome
from p2pcards.rules.games import UnknownGame, game_of
from p2pcards.rules.seats import SEATS
from p2pcards.rules.topper import events as topper
from p2pcards.ui.text import describe, turn_line
from p2pcards.ui.text_checks import CHECKS, CheckFolder
from p2pcards.ui.text_common import clean
from p2pcards.ui.text_summary import History, Summary

#: The ``link`` of a screen replaying a saved table (it has no link at all).
REPLAY = "replay"
#: Lines kept in the log (older ones are dropped).
LOG_LIMIT = 1000


@dataclass(frozen=True)
class SeatInfo:
    """A player as the table shows him: name, key fingerprint, whether a bot plays."""

    name: str
    fingerprint: str
    bot: bool = False


@dataclass(frozen=True)
class LogLine:
    """One line of the log; ``kind`` picks its colour.

    Kinds: event, crypto, result, verdict, warn, info, talk (a player's chat line).
    """

    text: str
    kind: str = "event"


@dataclass(frozen=True)
class Ending:
    """How the table ended, for the closing dialog: a match result or a verdict."""

    title: str
    text: str
    kind: str
    """``result`` (a match played out), ``verdict`` (a table ended early), ``closed``."""


@dataclass(frozen=True)
class LastMove:
    """The latest game action: who made it (seat) and what it was, in words."""

    seat: int
    text: str


_CRYPTO = (proto.Committed, proto.KeyShareVerified, proto.ShuffleVerified,
           proto.SharesVerified, proto.CardsRevealed, proto.HandReceived)
_RESULTS = (bluff.DealWon, topper.HandScored, topper.ThrownIn, topper.TieContinues)
_GAME_ENDS = MatchEnded


class ScreenModel:
    """The table as this seat's screen shows it."""

    def __init__(self) -> None:
        self.game: str | None = None
        self.table_name = ""
        self.lobby: tuple[SeatInfo, ...] = ()
        """Players in join order (player index), from the host's lobby list."""
        self.players: tuple[SeatInfo, ...] = ()
        """Players by player index, from the table itself once it started."""
        self.seating: tuple[int, ...] | None = None
        self.me: int | None = None
        #: This seat's player index (join order), once the table started.
        self.me_player: int | None = None
        self.view: Engine | None = None
        #: No seat of its own (a spectator, a replay of the public view): no hand, no "you".
        self.observer = False
        self.link = "connecting"
        #: How each other player's messages reach this one, by player index
        #: ("direct", "via host", or "host" for the host's own seat); empty when
        #: this seat makes no direct links (it is in the host's process).
        self.paths: dict[int, str] = {}
        #: Other players not reachable now, by player index: (monotonic time they
        #: dropped, the usual window to come back). Advisory (see peer.Presence).
        self.dropped: dict[int, tuple[float, float]] = {}
        #: The latest accepted game action, for the board's highlight.
        self.last_move: LastMove | None = None
        self.waiting_player: int | None = None
        self.deadline: float | None = None
        #: The table clock, seconds per move: 0 is none (anyone can stall the table
        #: for ever, and the title says so), None not known yet.
        self.clock: int | None = None
        #: Whether the host allowed hints, and the hints each player (join order) took.
        self.hints = False
        self.coached: dict[int, int] = {}
        self.progress: str | None = None
        self.result_line: str | None = None
        self.ending: Ending | None = None
        self.outcome: Outcome | None = None
        #: The evening so far (``p2pcards play``, table after table), for the end box.
        self.evening: list[str] = []
        self.log: list[LogLine] = []
        """The log people read: each cryptographic stage folded into one line."""
        self.details: list[LogLine] = []
        """The same log with every single check (``v`` shows it instead)."""
        self.show_details = False
        self._checks = CheckFolder()
        #: The last deal's (hand's) result, until the player has read it.
        self.summary: Summary | None = None
        self.history = History()
        self._committed = 0
        self._keys_verified = 0
        self._shuffled: dict[int, int] = {}
        self._shared: dict[int, int] = {}

    # -- who is where ------------------------------------------------------------

    def path_of_seat(self, seat: int) -> str | None:
        """How the player at ``seat`` reaches this one (None: not known or not tracked)."""
        if not self.paths or self.seating is None or not 0 <= seat < len(self.seating):
            return None
        return self.paths.get(self.seating[seat])

    def reconnecting_left(self, seat: int, now: float) -> int | None:
        """Whole seconds of the usual window left to the player at ``seat``, who
        dropped (None: connected as far as this seat knows)."""
        if self.seating is None or not 0 <= seat < len(self.seating):
            return None
        dropped = self.dropped.get(self.seating[seat])
        if dropped is None or self.ending is not None:
            return None
        since, window = dropped
        return max(0, int(since + window - now + 0.999))

    def seat_info(self, seat: int) -> SeatInfo | None:
        """The player at ``seat`` once the seats are drawn, else None."""
        if self.seating is None or not 0 <= seat < len(self.seating):
            return None
        player = self.seating[seat]
        known = self.players if player < len(self.players) else self.lobby
        if player < len(known):
            info = known[player]
            bot = self.lobby[player].bot if player < len(self.lobby) else info.bot
            return SeatInfo(info.name, info.fingerprint, bot)
        return None

    def coached_at(self, seat: int) -> int:
        """How many hints the player at ``seat`` took (0: none, or seats not drawn)."""
        if self.seating is None or not 0 <= seat < len(self.seating):
            return 0
        return self.coached.get(self.seating[seat], 0)

    def names(self) -> list[str]:
        """Display names by seat ([] before the seats are drawn)."""
        if self.seating is None:
            return []
        infos = [self.seat_info(seat) for seat in range(len(self.seating))]
        return [info.name if info else "" for info in infos]

    def seat_of_player(self, player: int | None) -> int | None:
        if player is None or self.seating is None or player not in self.seating:
            return None
        return self.seating.index(player)

    @property
    def waiting_seat(self) -> int | None:
        return self.seat_of_player(self.waiting_player)

    def seconds_left(self, now: float) -> int | None:
        """Whole seconds before the player being waited for is blamed, or None."""
        if self.deadline is None or self.ending is not None or math.isinf(self.deadline):
            return None
        return max(0, int(self.deadline - now + 0.999))

    def status_text(self, now: float) -> str:
        """What the status line says when there is no notice: how the table ended, whose
        turn it is (and that they are reconnecting), the set-up's progress, the lobby."""
        view = self.view
        if self.ending is not None:
            return self.ending.text
        if view is not None:
            text = turn_line(view, self.names(), self.me)
            to_act = view.to_act
            if to_act is not None and to_act != self.me and \
                    self.reconnecting_left(to_act, now) is not None:
                text += " They dropped and are reconnecting."
            return text
        if self.progress:
            return self.progress
        return "Waiting for the seats to fill…" if self.lobby else "Connecting to the table…"

    @property
    def seated(self) -> bool:
        return self.seating is not None

    @property
    def phase_word(self) -> str:
        """Where the table is: lobby, setup, play, over."""
        if self.ending is not None:
            return "over"
        if self.view is not None:
            return "play"
        if self.seating is not None or self._committed:
            return "setup"
        return "lobby"

    # -- updating -----------------------------------------------------------------

    def set_view(self, view: Engine) -> None:
        """Take this seat's latest view (a copy the screen may keep)."""
        try:
            game = game_of(view)
        except UnknownGame:
            return
        self.view = view
        self.game = game.name
        if view.viewer is not None:
            self.me = view.viewer
        self._summarise()

    def _summarise(self) -> None:
        """A scored deal's summary, once the view after it is known (its chips are)."""
        if not self.history.due:
            return
        summary = self.history.summary(self.names(), self.me, self.view, symbols=True)
        if self.outcome is None and self.ending is None:  # the end box says the last one
            self.summary = summary

    def set_players(self, players: Sequence[SeatInfo], me_player: int | None = None) -> None:
        self.players = tuple(players)
        self.me_player = me_player

    def note(self, text: str, kind: str = "info", *, folded: bool = True,
             detailed: bool = True) -> None:
        """Add one line (or several) to the log (``folded``) and its details (``detailed``)."""
        for log, wanted in ((self.log, folded), (self.details, detailed)):
            if not wanted:
                continue
            log.extend(LogLine(line, kind) for line in str(text).split("\n") if line)
            if len(log) > LOG_LIMIT:
                del log[:len(log) - LOG_LIMIT]


    def refused(self, text: str) -> tuple[str, str]:
        """A key or a choice that cannot act, on any screen: logged as a warning; the
        status line's message (nothing else changes)."""
        self.note(f"Not accepted: {text}", "warn")
        return ("error", f"Not accepted: {text}")
    def visible_log(self) -> list[LogLine]:
        """The log the screen shows now: folded, or every check while details are on."""
        return self.details if self.show_details else self.log

    def apply(self, event: SessionEvent) -> None:
        """Take in one event of the session, the table protocol or the referee."""
        self._track(event)
        self._log(event)

    def _track(self, event: SessionEvent) -> None:
        self.history.take(event)  # a deal's start comes as its own event, not an action's
        if isinstance(event, peer.LobbyUpdate):
            self.game = clean(event.game, 10) or self.game
            self.table_name = clean(event.table, 40)
            self.lobby = tuple(SeatInfo(clean(name, 32), fingerprint(pk), bool(bot))
                               for pk, name, bot in event.players)
            clock = event.config.get(MOVE_TIME)
            if isinstance(clock, int):
                self.clock = clock
            self.hints = event.config.get(HINTS) == 1
        elif isinstance(event, peer.LinkUp):
            self.link = "connected"
        elif isinstance(event, peer.LinkDown):
            self.link = "reconnecting"
        elif isinstance(event, peer.Waiting):
            self.waiting_player, self.deadline = event.player, event.deadline
        elif isinstance(event, peer.Paths):
            self.paths = dict(event.paths)
        elif isinstance(event, peer.Presence):
            for player, state in event.changed.items():
                if state == peer.CONNECTED:
                    self.dropped.pop(player, None)
                else:
                    self.dropped[player] = (time.monotonic(), event.window)
        elif isinstance(event, peer.Rejected):
            self.ending = Ending("REFUSED", f"The host refused this player: "
                                 f"{clean(event.reason, 160)}.", "closed")
        elif isinstance(event, proto.Committed):
            self._committed += 1
            self.progress = f"Setting up: {self._committed} of {SEATS} players committed…"
        elif isinstance(event, proto.KeyShareVerified):
            self._keys_verified += 1
            self.progress = f"Key proofs: {self._keys_verified} of {SEATS} verified…"
        elif isinstance(event, proto.PlayersSeated):
            self.seating = tuple(event.player_at_seat)
            self.progress = f"Shuffling: 0 of {SEATS} seats verified…"
        elif isinstance(event, proto.ShuffleVerified):
            if event.own:
                self.me = event.seat
            done = self._shuffled[event.deck] = self._shuffled.get(event.deck, 0) + 1
            self.progress = f"Shuffling: seat {done} of {SEATS} verified…"
        elif isinstance(event, proto.SharesVerified):
            if event.own:
                self.me = event.seat
            done = self._shared[event.deck] = self._shared.get(event.deck, 0) + 1
            self.progress = f"Dealing: shares of seat {done} of {SEATS} verified…"
        elif isinstance(event, proto.HandReceived):
            self.progress = None
            self.result_line = None
            self.last_move = None  # the last deal's last move is not this deal's
        elif isinstance(event, proto.ActionApplied):
            self._track_results(event.results)
        elif isinstance(event, proto.HintTaken):
            self.hints = True
            self.coached[event.player] = event.used
        elif isinstance(event, proto.MatchCompleted):
            self.progress = None
            self.outcome = event.outcome
            self.ending = Ending("MATCH OVER", self._describe(event) or "The match is over.",
                                 "result")
        elif isinstance(event, proto.TableEnded):
            self.progress = None
            self.ending = Ending("TABLE ENDED", self._describe(event) or "The table ended.",
                                 "verdict")

    def _track_results(self, results: Sequence[object]) -> None:
        for result in results:
            self.history.take(result)
            if isinstance(result, _RESULTS):
                self.result_line = self._describe(result)
                if not isinstance(result, topper.TieContinues):
                    self.progress = f"Shuffling: 0 of {SEATS} seats verified…"
            if isinstance(result, _GAME_ENDS):
                self.progress = None

    def _describe(self, event: object) -> str | None:
        known = self.players or self.lobby
        return describe(event, self.names(), self.me, self.seating,
                        players=[info.name for info in known], me_player=self.me_player,
                        symbols=True, game=self.game)

    def _log(self, event: SessionEvent) -> None:
        if isinstance(event, peer.Waiting):
            return
        if isinstance(event, proto.ActionApplied):
            said = []
            for result in event.results:
                if isinstance(result, _GAME_ENDS):
                    continue  # the protocol's own MatchEnded follows: said once
                line = self._describe(result)
                if line:
                    said.append(line)
                    self.note(line, "result" if isinstance(result, _RESULTS) else "event")
            if said:
                self.last_move = LastMove(event.seat, said[0])
            return
        line = self._describe(event)
        if not line:
            return
        if isinstance(event, CHECKS):
            # One line per check in the details; the log gets a line once a stage is done.
            self.note("✓ " + line, "crypto", folded=False)
            stage = self._checks.fold(event)
            if stage:
                self.note(stage, "crypto", detailed=False)
            return
        if isinstance(event, _CRYPTO):
            kind = "crypto"
        elif isinstance(event, proto.TableEnded):
            kind = "verdict"
        elif isinstance(event, proto.MatchCompleted):
            kind = "result"
        elif isinstance(event, (peer.LinkDown, peer.Rejected, peer.Degraded, ProtocolError,
                                proto.Reported)):
            kind = "warn"
        elif isinstance(event, TalkLine):
            kind = "talk"
        else:
            kind = "event"
        self.note(("✓ " if kind == "crypto" else "") + line, kind)
