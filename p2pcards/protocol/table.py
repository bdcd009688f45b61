"""The table: one sans-IO state machine for a whole match, lobby to last trick.

Bytes in (:meth:`Table.receive`), bytes out (:meth:`Table.outgoing`,
:meth:`Table.act`), events for the front end. No sockets, no clock, no
threads: the caller owns those, as with h11. Every peer, and an offline
verifier, runs this same machine over the same transcript. At every position
exactly one player may write (:attr:`Table.writer`): players commit to and
open their key shares, the joint draw seats them, and each deal's deck is
shuffled by every seat, dealt by their decryption shares and played (the
stages: :class:`~.table_records.Stage`).

Messages that nobody can be blamed for (undecodable bytes, a bad signature,
another session's message) raise and change nothing. A signed message that
breaks a rule ends the table with a :class:`Verdict` whose evidence is that
message: the state before it is kept intact.

:class:`Table` keeps the stages, who writes and the verdict; the state of
each part lives with its rules, in an object that checks a message whole
before it changes anything: the transcript (:class:`~.table_chain.Chain`),
the key set-up (:class:`~.table_keys.KeySetup`), the match from the seating
on (:class:`~.table_match.Match`, its deck in flight a
:class:`~.table_deck.DeckInFlight`), the alerts (:class:`~.table_alerts.Alerts`)
and this peer's own key (:class:`~.table_member.Member`).
"""

from __future__ import annotations

from collections.abc import Callable

from p2pcards.cards import Card
from p2pcards.crypto import checks
from p2pcards.crypto.group import Point
from p2pcards.protocol.dealing import Checker, DeckDeal
from p2pcards.protocol.envelope import KeptMessage, SignedMessage
from p2pcards.protocol.errors import (
    DeadlineMissed,
    LocalProtocolError,
    MalformedMessage,
    PlayerLeft,
    RematchUnopened,
    RemoteProtocolError,
    SeatPlayedElsewhere,
)
from p2pcards.protocol.events import Committed, KeyShareVerified, PlayersSeated, TableEnded, TableEvent
from p2pcards.protocol.identity import Signer
from p2pcards.protocol.rematch_genesis import FinishedMatch
from p2pcards.protocol.table_ahead import Randomness, WorkAhead
from p2pcards.protocol.table_alerts import Alerts
from p2pcards.protocol.table_chain import Chain
from p2pcards.protocol.table_deck import DeckInFlight
from p2pcards.protocol.table_errors import (
    HintsOffHere,
    NotAtThisTable,
    NotThisPeersTurn,
    Observing,
    StageNotReached,
    TableClosed,
)
from p2pcards.protocol.table_keys import KeySetup
from p2pcards.protocol.table_match import Match
from p2pcards.protocol.table_member import Member
from p2pcards.protocol.table_records import (
    AWAY,
    HINT,
    Fault,
    Genesis,
    SessionSecrets,
    Stage,
    Written,
)
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.contract import Engine
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap


class Table:
    """The state of one table as this peer (or an observer) knows it."""

    def __init__(self, genesis_raw: bytes, me: Signer | None = None,
                 secrets: SessionSecrets | None = None,
                 randomness: Randomness | None = None,
                 check_all_shares: bool | None = None,
                 checker: Checker | None = None, deal_type: type[DeckDeal] = DeckDeal) -> None:
        """``randomness``, for tests and benchmarks only, gives the byte source for
        the message at each position (default: the OS). ``check_all_shares``
        checks every decryption share on arrival (default: only an observer does;
        a player checks its own cards' shares at once, the others' when their card
        is revealed). ``checker`` runs every public proof check (default:
        :func:`~p2pcards.crypto.checks.verify`, which skips one that passed in this
        process). ``deal_type`` makes each deck (the simulation's remembers proofs)."""
        genesis = Genesis.read(genesis_raw)
        self.players, self.game, self.config = genesis.players, genesis.game, genesis.config
        self.table_name, self.session = genesis.table_name, genesis.session
        #: The match before, for a rematch: its seats rotated are this match's seats.
        self.after = genesis.after
        #: Seconds each writer has for a message, the host's table setting (0: no limit).
        self.move_time = genesis.move_time
        #: Pauses (``away``) each player has; whether the host allowed hints (``hint``).
        self.pauses, self.hints = genesis.pauses, genesis.hints
        self._genesis = genesis
        self._chain = Chain(genesis)
        self._randomness = randomness
        self.checker: Checker = checker or checks.verify
        #: This peer as a player (None: an observer); see :attr:`member`.
        self._member: Member | None = None
        if me is not None:
            keys_ = [p.public_key for p in self.players]
            if me.public_key not in keys_:
                raise NotAtThisTable(f"{me.fingerprint} is not a player of this table")
            self._member = Member(me, keys_.index(me.public_key),
                                  secrets or SessionSecrets.generate(self._rng()))
        #: This peer's identity, player index and secrets (None: an observer).
        self.me = me
        self.me_player = None if self._member is None else self._member.player
        self.secrets = None if self._member is None else self._member.secrets
        self.check_all_shares = (me is None) if check_all_shares is None else check_all_shares
        self._deal_type = deal_type
        self._keys = KeySetup(self.session, self.checker)
        #: Everything from the seating on (None before); see :attr:`match`.
        self._match: Match | None = None
        self._alerts = Alerts()
        #: The shuffles and shares made before they fall due (:class:`WorkAhead`).
        self.ahead = WorkAhead(self._chain, randomness, lambda: self._match,
                               lambda: self.match, lambda: self.writer)
        self.verdict: Verdict | None = None

    # -- what a later stage creates ---------------------------------------------

    @property
    def member(self) -> Member:
        """This peer's identity, player index and secrets; raises :class:`Observing`
        for an observer."""
        if self._member is None:
            raise Observing("an observer has no player, seat or secrets at this table")
        return self._member

    @property
    def match(self) -> Match:
        """The seats, the referee and the current deck; raises :class:`StageNotReached`
        before every key share is open (the joint draw seats the players then)."""
        if self._match is None:
            raise StageNotReached(f"the players are not seated yet (stage {self.stage.value}): "
                                  f"they are once every key share is open")
        return self._match

    # Each of the following is None until its stage: for callers that ask
    # whether it has been reached; :attr:`member` and :attr:`match` raise instead.

    @property
    def elsewhere(self) -> SeatPlayedElsewhere | None:
        """Why this table stopped, if another process plays its seat (see :class:`Member`)."""
        return None if self._member is None else self._member.elsewhere

    @property
    def joint_key(self) -> Point | None:
        return None if self._match is None else self._match.joint_key

    @property
    def player_at_seat(self) -> tuple[int, ...] | None:
        return None if self._match is None else self._match.player_at_seat

    @property
    def first_seat(self) -> int | None:
        """The seat the draw chose to go first (with the seats)."""
        return None if self._match is None else self._match.first_seat

    @property
    def engine(self) -> Engine | None:
        """The referee (None before the players are seated)."""
        return None if self._match is None else self._match.engine

    @property
    def deal(self) -> DeckDeal | None:
        """The current deck (None before the players are seated)."""
        return None if self._match is None else self._match.deal

    @property
    def hand(self) -> dict[int, Card]:
        """This player's cards of the current deal, by slot (none yet: empty)."""
        return {} if self._match is None else self._match.hand

    @property
    def pauses_left(self) -> list[int]:
        """Pauses (``away``) left to each player, by player index."""
        return [self.pauses] * SEATS if self._match is None else self._match.pauses_left

    @property
    def paused(self) -> int | None:
        """The player whose pause the last accepted message took (None: no pause)."""
        return None if self._match is None else self._match.paused

    @property
    def hints_used(self) -> list[int]:
        """How many hints (``hint``) each player took, by player index."""
        return [0] * SEATS if self._match is None else self._match.hints_used

    # -- who writes -----------------------------------------------------------

    @property
    def stage(self) -> Stage:
        """Which message is due (:class:`Stage`)."""
        if self.verdict is not None:
            return Stage.ENDED
        if self._match is None:
            return Stage.COMMIT if self._keys.committing else Stage.OPEN
        return self._match.stage

    @property
    def messages(self) -> list[KeptMessage]:
        """The chain as kept: raw bytes and headers, no parsed bodies (flat memory)."""
        return self._chain.messages

    @property
    def next_position(self) -> int:
        return self._chain.next_position

    @property
    def head(self) -> bytes:
        return self._chain.head

    @property
    def my_seat(self) -> int | None:
        """This player's seat, or None (an observer, or before the seating)."""
        return None if self._match is None else self._match.my_seat

    @property
    def own_seat(self) -> int:
        """This player's seat; raises like :attr:`member` and :attr:`match`."""
        return self.match.player_at_seat.index(self.member.player)

    def seat_of(self, player: int) -> int:
        return self.match.seat_of(player)

    @property
    def writer(self) -> int | None:
        """The one player who may append the next message, or None."""
        if self.verdict is not None:
            return None
        if self._match is None:
            return self._keys.writer
        seat = self._match.writer_seat
        return None if seat is None else self._match.player_at_seat[seat]

    @property
    def my_turn(self) -> bool:
        return self.me_player is not None and self.writer == self.me_player

    @property
    def awaiting_my_action(self) -> bool:
        """It is this peer's turn and a game decision (not an automatic step) is due."""
        return self.my_turn and self._match is not None and self._match.awaiting_decision

    def view(self) -> Engine:
        """The referee's view for this peer's seat: what a bot or UI may see."""
        seat = self.my_seat
        if self._match is None or seat is None:
            raise LocalProtocolError("no seat view before the players are seated")
        return self._match.engine.view(seat)

    # -- receiving ----------------------------------------------------------

    def receive(self, raw: bytes, *, saved: bool = False,
                parsed: SignedMessage | None = None) -> list[TableEvent]:
        """Check and apply one transcript message from another peer, or with
        ``saved`` from this peer's own record (a resume, a replay of its folder).

        Raises for bytes nobody can be blamed for; returns events otherwise, ending
        with :class:`TableEnded` when the message broke a rule. One signed with this
        peer's own key that it neither wrote nor saved stops the table
        (:attr:`elsewhere`), as such a notice does in :meth:`receive_alert`.
        ``parsed``: ``SignedMessage.parse(raw)``, if the caller has it (a replay)."""
        msg = self._chain.signed(raw, parsed)
        if self._signed_here(msg.player) and not saved:
            self.member.check_own(msg, self.messages)
            return []  # what this peer wrote itself, coming back
        if self.stage is Stage.ENDED:
            # The first verdict stands: nothing received later may replace it.
            raise TableClosed("the table has ended")
        if msg.position < self.next_position:
            fault = self._chain.earlier_fault(msg, over=self.stage is Stage.OVER)
            return [] if fault is None else self._end(*fault)
        fault = self._chain.next_fault(msg, self.writer)
        if fault is not None:
            return self._end(*fault)
        try:
            events = self._accept(msg, trusted=False)
        except RemoteProtocolError as error:
            return self._end(*self._chain.fault_of(error, msg))
        proven = self._alerts.pending_proof(self._chain, self.writer)
        return events if proven is None else events + self._end(*proven)

    def receive_alert(self, raw: bytes) -> list[TableEvent]:
        """A signed notice outside the chain: a ``leave``, or another peer's verdict.
        Reports cannot move blame (:meth:`.table_alerts.Alerts.read`)."""
        notice = self._chain.signed_notice(raw)
        if self._signed_here(notice.player):
            self.member.check_own_notice(notice)
            return []  # what this peer signed itself, coming back
        if self.stage in (Stage.ENDED, Stage.OVER):
            # After the match's normal end none is read (a leave or a proof then
            # would put a verdict beside a finished match, which ``verify`` refuses).
            return []
        found = self._alerts.read(notice, self._chain, self.writer,
                                  None if self._match is None else self._match.decks)
        if isinstance(found, Fault):
            return self._end(*found)
        return [] if found is None else [found]

    def _signed_here(self, player: int) -> bool:
        """Whether what arrived is signed with this peer's own key; nothing is read
        once another process plays its seat."""
        if self.elsewhere is not None:
            raise TableClosed("another process is playing this seat: this table has stopped")
        return self._member is not None and player == self._member.player

    # -- writing ------------------------------------------------------------

    def outgoing(self) -> Written | None:
        """This peer's next automatic message (a cryptographic step), if it is due."""
        if not self.my_turn:
            return None
        member, rng = self.member, self._rng()
        step = (self._keys.own_step(member.player, member.secrets, rng) if self._match is None
                else self._match.own_step(rng))
        return None if step is None else self._write(*step)

    def act(self, action: object) -> Written:
        """Write this peer's game action; refused actions raise and send nothing."""
        if self.stage in (Stage.OVER, Stage.ENDED):
            raise TableClosed("the table is closed")
        if not self.awaiting_my_action:
            raise NotThisPeersTurn("it is not this peer's turn to choose an action")
        return self._write(*self.match.action_message(action, self._rng()))

    def take_pause(self) -> Written:
        """Write ``away``: this peer's player takes one of his pauses, in his turn."""
        if self.stage is not Stage.PLAY or not self.my_turn:
            raise NotThisPeersTurn("a pause is taken in one's own turn, in play")
        return self._write(*self.match.pause(self.member.player))

    @property
    def hint_taken(self) -> bool:
        """Whether this move's hint is already on the transcript (asked again, the
        coach repeats itself: nothing is written)."""
        return self.stage is Stage.PLAY and self.messages[-1].type == HINT

    def take_hint(self) -> Written | None:
        """Write ``hint`` before this peer's player sees the coach's advice, in his
        turn at a table that allows hints; None when this move's hint is written."""
        if not self.hints:
            raise HintsOffHere("the host did not allow hints at this table: a hint "
                               "would be a breach the others name you for")
        if self.stage is not Stage.PLAY or not self.my_turn:
            raise NotThisPeersTurn("a hint is asked in one's own turn, in play")
        if self.hint_taken:
            return None
        return self._write(HINT, {})

    def leave(self) -> bytes:
        """A signed notice that this peer leaves; the table ends for it at once.

        Raises :class:`TableClosed` once the match is OVER: it ended normally, and
        a leave then is the end box's signed choice (``again.sign_choice``), never
        a notice that would end this table (and its record) as a leave."""
        if self._member is None:
            raise Observing("an observer has no seat to leave")
        if self.stage is Stage.OVER:
            raise TableClosed("the match is over: leaving now is the end box's choice, "
                              "not a notice")
        raw = self._sign_notice("leave", {})
        if self.stage is not Stage.ENDED:
            self._end(PlayerLeft("left the table", player=self._member.player,
                                 position=self.next_position), (raw,))
        return raw

    def alert(self) -> bytes | None:
        """This peer's verdict as a signed notice for the others, once ended."""
        if self.verdict is None or self._member is None:
            return None
        return self._sign_notice("alert", self.verdict.to_wire())

    def _rng(self) -> Callable[[int], bytes] | None:
        return None if self._randomness is None else self._randomness(self.next_position)

    def _sign_notice(self, kind: str, body: WireMap) -> bytes:
        return self.member.seal_notice(kind, body, session=self.session,
                                       position=self.next_position, prev=self.head).raw

    def _write(self, mtype: str, body: WireMap) -> Written:
        msg = self.member.seal(mtype, body, session=self.session, position=self.next_position,
                               prev=self.head)
        return Written(msg.raw, self._accept(msg, trusted=True))

    # -- applying a message ----------------------------------------------------

    def _accept(self, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
        """Check ``msg`` at the next position and apply it (``trusted``: this peer's
        own, whose proofs it made itself). Each step checks everything before it
        changes anything: a failed check raises and leaves the table as it was."""
        stage = self.stage
        if stage in (Stage.OVER, Stage.ENDED):
            raise TableClosed("the table is closed")
        expected = (self.game.message_types | {AWAY, HINT} if stage is Stage.PLAY
                    else {stage.value})
        if msg.type not in expected:
            raise MalformedMessage(f"a {msg.type!r} message is not allowed in stage "
                                   f"{stage.value} (expected {sorted(expected)})")
        events = self._on_key(msg, trusted) if self._match is None else self._match.accept(msg, trusted)
        self._chain.append(msg)
        return events

    def _on_key(self, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
        """A ``commit`` or an ``open``; the last ``open`` seats the players."""
        joint = self._keys.accept(msg, trusted)
        events: list[TableEvent] = [Committed(msg.player) if msg.type == "commit"
                                    else KeyShareVerified(msg.player)]
        if joint is not None:
            match = self._match = self._seat_players(joint)
            events.append(PlayersSeated(match.player_at_seat, match.first_seat))
        return events

    def _seat_players(self, joint: Point) -> Match:
        """The joint draw, once every nonce is open: seats, first seat, first deck."""
        seats, first = self._keys.seating(self.after, [p.public_key for p in self.players])
        decks = DeckInFlight(self.game.deck_codes, self.session, joint, self._keys.seat_keys(seats),
                             self.checker, self._deal_type)
        member = self._member
        mine = None if member is None else (seats.index(member.player), member.secrets.key)
        return Match(self._genesis, joint, seats, first, decks, mine, self.check_all_shares)

    # -- ending ---------------------------------------------------------------

    def _end(self, error: RemoteProtocolError, evidence: tuple[bytes, ...]) -> list[TableEvent]:
        """End the table with a verdict on ``error``, shown by ``evidence``: the stage
        is ENDED from now on, and the first verdict stands."""
        self.verdict = Verdict.from_error(error, evidence)
        return [TableEnded(self.verdict)]

    def restore_verdict(self, verdict: Verdict) -> None:
        """Mark a table rebuilt from a saved transcript as ended by its saved verdict."""
        self.verdict = verdict

    def declare_deadline_missed(self, player: int | None = None,
                                detail: str = "did not write before the deadline") -> list[TableEvent]:
        """The caller's clock says ``player`` (default: the writer) is too late:
        end the table naming it."""
        if self.stage in (Stage.OVER, Stage.ENDED):
            return []
        player = self.writer if player is None else player
        return self._end(DeadlineMissed(f"player {player} {detail}", player=player,
                                        position=self.next_position), ())

    @property
    def unopened(self) -> bool:
        """A rematch whose writer due has written nothing in it yet: a player that
        refused the genesis (or never came) looks the same to everyone else, so a
        rematch's clock names no such writer (PROTOCOL.md §14, ``evening.unopened``)."""
        writer = self.writer
        return self.after is not None and writer is not None and \
            not any(m.player == writer for m in self.messages)

    def declare_unopened(self) -> list[TableEvent]:
        """The caller's clock ran out for an :attr:`unopened` rematch's writer: it ends
        naming nobody (§14)."""
        if self.stage in (Stage.OVER, Stage.ENDED) or not self.unopened:
            return []
        return self._end(RematchUnopened(f"player {self.writer} wrote nothing in this rematch "
                                         f"(its end box may have refused the genesis)",
                                         position=self.next_position), ())

    # -- persistence ------------------------------------------------------------

    def transcript(self) -> list[bytes]:
        return [m.raw for m in self._chain.messages]

    def finished(self) -> FinishedMatch:
        """This peer's record of the match for a rematch to name (PROTOCOL.md §14):
        only a match that ended normally (OVER) can be followed."""
        if self.stage is not Stage.OVER or self._match is None:
            raise StageNotReached(f"only a match that ended normally has a rematch "
                                  f"(stage {self.stage.value})")
        keys_ = [p.public_key for p in self.players]
        return FinishedMatch(self.session, self.head, tuple(keys_[p] for p in self._match.player_at_seat))
