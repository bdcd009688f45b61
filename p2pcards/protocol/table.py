"""The table: one sans-IO state machine for a whole match, lobby to last trick.

Bytes in (:meth:`Table.receive`), bytes out (:meth:`Table.outgoing`,
:meth:`Table.act`), events for the front end. No sockets, no clock, no
threads: the caller owns those, as with h11. Every peer, and an offline
verifier, runs this same machine over the same transcript.

At every position exactly one player may write (:attr:`Table.writer`):

========  =================================================================
stage     writer and message
========  =================================================================
COMMIT    players 0..3 in join order: ``commit`` (key share, draw nonce)
OPEN      players 0..3 in join order: ``open`` (key share + proof, nonce)
SHUFFLE   seats 0..3: ``shuffle`` (re-masked permuted deck + proof)
SHARES    seats 0..3: ``shares`` (decryption shares for others' slots)
PLAY      the seat the referee names: the game's action messages
OVER      nobody: the match ended
ENDED     nobody: a verdict ended the table
========  =================================================================

After OPEN the joint draw seats the players and names the first leader or
dealer; after each deal or hand that the referee closes, a new deck goes
through SHUFFLE and SHARES again.

Messages that nobody can be blamed for (undecodable bytes, a bad signature,
another session's message) raise and change nothing. A signed message that
breaks a rule ends the table with a :class:`Verdict` whose evidence is that
message: the state before it is kept intact.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

from p2pcards.cards import Card
from p2pcards.crypto import checks, draw
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.group import Point
from p2pcards.protocol import game_wire, table_alerts, table_jobs, table_moves, table_steps
from p2pcards.protocol.dealing import (
    Checker,
    DeckDeal,
    deck_key,
)
from p2pcards.protocol.envelope import (
    KeptMessage,
    SignedMessage,
    seal,
    seal_notice,
    session_id_of,
)
from p2pcards.protocol.errors import (
    BrokenChain,
    DeadlineMissed,
    LocalProtocolError,
    MalformedMessage,
    OutOfTurn,
    PlayerLeft,
    RematchUnopened,
    RemoteProtocolError,
    SeatPlayedElsewhere,
    WrongSession,
)
from p2pcards.protocol.evening import After, FinishedMatch, rotated_seats, unopened
from p2pcards.protocol.events import (
    TableEnded,
    TableEvent,
)
from p2pcards.protocol.identity import Signer
from p2pcards.protocol.lobby import GENESIS_SHAPE
from p2pcards.protocol.schema import validate
from p2pcards.protocol.table_errors import (
    Gap,
    HintsOffHere,
    IllegalAction,
    NoPauseLeftHere,
    NotAtThisTable,
    NotThisPeersTurn,
    Observing,
    StageNotReached,
    TableClosed,
)
from p2pcards.protocol.table_records import (
    AWAY,
    HINT,
    Match,
    Member,
    Player,
    Prepared,
    PreparedShares,
    SessionSecrets,
    Stage,
    Written,
)
from p2pcards.protocol.table_settings import (
    HINTS,
    MOVE_TIME,
    PAUSES,
    hints_of,
    move_time_of,
    pauses_of,
)
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.contract import Engine
from p2pcards.rules.errors import RuleError
from p2pcards.rules.games import GameAction
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap

DRAW_SEATS = b"seats"
DRAW_FIRST = b"first"


def _first_missing(given: Mapping[int, object]) -> int:
    """The first player (in join order) who has not yet given his part."""
    return next(p for p in range(SEATS) if p not in given)


class Table:
    """The state of one table as this peer (or an observer) knows it."""

    def __init__(self, genesis_raw: bytes, me: Signer | None = None,
                 secrets: SessionSecrets | None = None,
                 randomness: Callable[[int], Callable[[int], bytes]] | None = None,
                 check_all_shares: bool | None = None,
                 checker: Checker | None = None) -> None:
        """``randomness``, for tests and benchmarks only, gives the byte source
        used for the message at each position (default: the OS).
        ``check_all_shares`` checks every decryption share on arrival (default:
        only an observer does; a player checks its own cards' shares at once and
        the others' when their card is revealed). ``checker`` runs every public
        proof check (default: :func:`p2pcards.crypto.checks.verify`, which skips a
        check that already passed in this process)."""
        genesis = SignedMessage.parse(genesis_raw)
        if genesis.position != 0 or genesis.type != "genesis" or genesis.player != 0:
            raise MalformedMessage("the first message must be player 0's genesis at position 0")
        body = validate(GENESIS_SHAPE, genesis.body)
        self.players = tuple(Player(pk, name) for pk, name in body["players"])
        if len({p.public_key for p in self.players}) != SEATS:
            raise MalformedMessage("genesis lists the same identity twice")
        genesis.verify(self.players[0].public_key)
        self.game = game_wire.by_name(body["game"])
        game_config = dict(body["config"])
        #: Seconds each writer has for a message, the host's table setting (0: no limit).
        self.move_time = move_time_of(game_config.pop(MOVE_TIME, None))
        #: Pauses (``away``) left to each player, by player index.
        self.pauses = pauses_of(game_config.pop(PAUSES, None))
        self.pauses_left = [self.pauses] * SEATS
        #: The player whose pause the last accepted message took (None: no pause).
        self.paused: int | None = None
        #: Whether the host allowed hints (``hint``), and how many each player took.
        self.hints = hints_of(game_config.pop(HINTS, None))
        self.hints_used = [0] * SEATS
        self.config = self.game.config_from_wire(game_config)
        self.table_name: str = body["table"]
        #: The match before, for a rematch: its seats rotated are this match's seats.
        self.after: After | None = After.from_wire(body["after"]) if "after" in body else None
        self.session = session_id_of(genesis.payload)
        #: The chain as kept: raw bytes and headers, no parsed bodies (flat memory).
        self.messages: list[KeptMessage] = [KeptMessage(genesis)]
        self._randomness = randomness
        self.checker: Checker = checker or checks.verify

        #: This peer as a player (None: an observer); see :attr:`member`.
        self._member: Member | None = None
        if me is not None:
            keys_ = [p.public_key for p in self.players]
            if me.public_key not in keys_:
                raise NotAtThisTable(f"{me.fingerprint} is not a player of this table")
            player = keys_.index(me.public_key)
            self._member = Member(me, player, secrets or SessionSecrets.generate(self._rng()))

        self.check_all_shares = (me is None) if check_all_shares is None else check_all_shares
        self._shares_messages: dict[int, KeptMessage] = {}
        self._notices_seen: set[bytes] = set()
        #: Evidence of alerts about positions this peer had not reached when they
        #: came: judged again as each is reached (see :meth:`receive_alert`).
        self._pending_evidence: list[bytes] = []
        self.stage = Stage.COMMIT
        #: What each player wrote in COMMIT and OPEN, by player index.
        self._commitments: dict[int, tuple[bytes, bytes]] = {}
        self._key_publics: dict[int, Point] = {}
        self._nonces: dict[int, bytes] = {}
        #: Everything from the seating on (None before); see :attr:`match`.
        self._match: Match | None = None
        self.hand: dict[int, Card] = {}
        self.verdict: Verdict | None = None
        #: A shuffle made ahead: ((deck number, shuffle index, input deck key), body).
        #: Signed and sent only when that very shuffle of that very input falls due.
        self._prepared: Prepared | None = None
        #: This seat's shares made ahead, sent only at its turn on that very final deck.
        self._prepared_shares: PreparedShares | None = None
        #: Set once a message signed by this peer's own key arrived that it neither
        #: wrote nor saved: another process plays this seat, and this table stops
        #: (it receives and signs nothing more, and names nobody).
        self.elsewhere: SeatPlayedElsewhere | None = None
        #: Digests of the notices this peer signed itself (a leave, its alert).
        self._own_notices: set[bytes] = set()

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
    def me(self) -> Signer | None:
        return None if self._member is None else self._member.identity

    @property
    def me_player(self) -> int | None:
        return None if self._member is None else self._member.player

    @property
    def secrets(self) -> SessionSecrets | None:
        return None if self._member is None else self._member.secrets

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

    # -- who writes -----------------------------------------------------------

    @property
    def next_position(self) -> int:
        return len(self.messages)

    @property
    def head(self) -> bytes:
        return self.messages[-1].digest

    @property
    def my_seat(self) -> int | None:
        """This player's seat, or None (an observer, or before the seating)."""
        if self._member is None or self._match is None:
            return None
        return self._match.player_at_seat.index(self._member.player)

    @property
    def own_seat(self) -> int:
        """This player's seat; raises like :attr:`member` and :attr:`match`."""
        return self.match.player_at_seat.index(self.member.player)

    def seat_of(self, player: int) -> int:
        return self.match.player_at_seat.index(player)

    @property
    def writer(self) -> int | None:
        """The one player who may append the next message, or None."""
        if self.stage is Stage.COMMIT:
            return _first_missing(self._commitments)
        if self.stage is Stage.OPEN:
            return _first_missing(self._key_publics)
        if self.stage is Stage.SHUFFLE:
            return self.match.player_at_seat[self.match.deal.shuffles_done]
        if self.stage is Stage.SHARES:
            return self.match.player_at_seat[self.match.deal.shares_done]
        if self.stage is Stage.PLAY:
            seat = self.match.engine.to_act
            return None if seat is None else self.match.player_at_seat[seat]
        return None

    @property
    def my_turn(self) -> bool:
        return self.me_player is not None and self.writer == self.me_player

    @property
    def awaiting_my_action(self) -> bool:
        """It is this peer's turn and a game decision (not an automatic step) is due."""
        return (self.my_turn and self.stage is Stage.PLAY
                and self.game.automatic_message(self.match.engine, self.own_seat) is None)

    def view(self) -> Engine:
        """The referee's view for this peer's seat: what a bot or UI may see."""
        seat = self.my_seat
        if self._match is None or seat is None:
            raise LocalProtocolError("no seat view before the players are seated")
        return self._match.engine.view(seat)

    # -- receiving ----------------------------------------------------------

    def receive(self, raw: bytes, *, saved: bool = False) -> list[TableEvent]:
        """Check and apply one transcript message from another peer, or with
        ``saved`` from this peer's own record (a resume, a replay of its folder).

        Raises for bytes nobody can be blamed for; returns events otherwise,
        ending with :class:`TableEnded` when the message broke a rule. A message
        signed by this peer's own key that it neither wrote nor saved raises
        :class:`SeatPlayedElsewhere` and stops the table (see :attr:`elsewhere`);
        so does such a notice in :meth:`receive_alert`.
        """
        msg = SignedMessage.parse(raw)
        if msg.session != self.session:
            raise WrongSession("message signed for another session", position=msg.position)
        msg.verify(self.players[msg.player].public_key)
        if self.elsewhere is not None:
            raise TableClosed("another process is playing this seat: this table has stopped")
        n = self.next_position
        if not saved and self._member is not None and msg.player == self._member.player:
            if msg.position < n and self.messages[msg.position].digest == msg.digest:
                return []  # what this peer wrote itself, coming back
            self.elsewhere = SeatPlayedElsewhere(
                f"another process is playing this seat: a {msg.type!r} message for position "
                f"{msg.position} is signed with its key, and this process neither wrote nor "
                f"saved it; this one stops, signing nothing and naming nobody",
                position=msg.position)
            raise self.elsewhere
        if self.stage is Stage.ENDED:
            # The first verdict stands: nothing received later may replace it.
            raise TableClosed("the table has ended")
        if msg.position < n:
            return table_alerts.receive_earlier(self, msg)
        if msg.position > n:
            raise Gap(f"message for position {msg.position} while expecting {n}",
                      player=msg.player, position=msg.position)
        if msg.prev != self.head:
            # Its writer saw another message at n - 1 (an equivocation by that
            # message's writer, which the other version proves: ask for it) or
            # lies; this message alone cannot tell which, so it names nobody.
            raise BrokenChain(f"a {msg.type!r} message for position {n} names a predecessor "
                              f"other than the message held at position {n - 1}", position=n)
        writer = self.writer
        if msg.player != writer:
            who = "nobody" if writer is None else f"player {writer}"
            return self._end(OutOfTurn(
                f"wrote a {msg.type!r} message while {who} may write",
                player=msg.player, position=n), (msg.raw,))
        try:
            events = self._accept(msg, trusted=False)
        except RemoteProtocolError as error:
            earlier = error.position
            if error.player is not None and error.player != msg.player and earlier is not None:
                # A fault of an earlier message, found now (such an error names that
                # message's player and position): its own message is the evidence.
                return self._end(error, (self.messages[earlier].raw,))
            error.player, error.position = msg.player, n
            return self._end(error, (msg.raw,))
        return events + (table_alerts.pending_proof(self) or [])

    def receive_alert(self, raw: bytes) -> list[TableEvent]:
        """A signed notice outside the chain: a ``leave``, or another peer's verdict
        (the rules: :func:`~p2pcards.protocol.table_alerts.receive_alert`)."""
        return table_alerts.receive_alert(self, raw)

    # -- writing ------------------------------------------------------------

    def outgoing(self) -> Written | None:
        """This peer's next automatic message (a cryptographic step), if it is due
        (:func:`~p2pcards.protocol.table_steps.outgoing`)."""
        return table_steps.outgoing(self)

    def next_shuffle_job(self) -> Callable[[], Prepared] | None:
        """Work to do while the players think: the next deal's first shuffle
        (:func:`~p2pcards.protocol.table_jobs.next_shuffle_job`)."""
        return table_jobs.next_shuffle_job(self)

    def speculative_shuffle_job(self, raw: bytes) -> Callable[[], Prepared] | None:
        """This seat's shuffle of the deck in ``raw``, a shuffle not yet checked
        (:func:`~p2pcards.protocol.table_jobs.speculative_shuffle_job`)."""
        return table_jobs.speculative_shuffle_job(self, raw)

    def shares_job(self) -> Callable[[], PreparedShares] | None:
        """This seat's ``shares`` of the final deck, made while the seats before it
        write theirs (:func:`~p2pcards.protocol.table_jobs.shares_job`)."""
        return table_jobs.shares_job(self)

    def offer_shares(self, prepared: PreparedShares) -> None:
        """Keep shares made ahead until this seat's turn (see :meth:`shares_job`)."""
        self._prepared_shares = prepared

    def offer_shuffle(self, prepared: Prepared) -> None:
        """Keep a shuffle made ahead until it falls due (see the two jobs)."""
        self._prepared = prepared

    def _shuffle_due(self) -> tuple[int, int, bytes]:
        deal = self.match.deal
        return deal.number, deal.shuffles_done, deck_key(deal.deck)

    def act(self, action: object) -> Written:
        """Write this peer's game action; refused actions raise and send nothing."""
        if self.stage in (Stage.OVER, Stage.ENDED):
            raise TableClosed("the table is closed")
        if not self.awaiting_my_action:
            raise NotThisPeersTurn("it is not this peer's turn to choose an action")
        if getattr(action, "seat", None) != self.my_seat:
            raise NotThisPeersTurn(f"the action is for seat {getattr(action, 'seat', None)}, "
                                   f"this peer sits at seat {self.my_seat}")
        match = self.match
        try:
            match.engine.check(action)
        except RuleError as error:
            raise IllegalAction(error) from None
        # check() admitted it, so it is one of this game's actions.
        mtype, body = self.game.encode(cast(GameAction, action))
        slots = self.game.reveal_slots(match.engine, mtype, body)
        if slots:
            body["shares"] = match.deal.make_reveal(self.own_seat, self.member.secrets.key, slots,
                                                    self._rng())
        return self._write(mtype, body)

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

    def _signer(self) -> Member:
        """This peer as the signer of a new message or notice: never once another
        process plays its seat (two processes would sign two versions)."""
        if self.elsewhere is not None:
            raise TableClosed("another process is playing this seat: this one signs nothing")
        return self.member

    def _sign_notice(self, kind: str, body: WireMap) -> bytes:
        member = self._signer()
        notice = seal_notice(member.identity, session=self.session, position=self.next_position,
                             prev=self.head, player=member.player, type=kind, body=body)
        self._own_notices.add(notice.digest)
        return notice.raw

    def _write(self, mtype: str, body: WireMap) -> Written:
        member = self._signer()
        msg = seal(member.identity, session=self.session, position=self.next_position,
                   prev=self.head, player=member.player, type=mtype, body=body)
        return Written(msg.raw, self._accept(msg, trusted=True))

    # -- applying a message ----------------------------------------------------

    def _accept(self, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
        handler = {
            Stage.COMMIT: table_steps.on_commit, Stage.OPEN: table_steps.on_open,
            Stage.SHUFFLE: table_steps.on_shuffle, Stage.SHARES: table_steps.on_shares,
            Stage.PLAY: table_moves.on_play,
        }.get(self.stage)
        if handler is None:
            raise TableClosed("the table is closed")
        expected = (self.game.message_types | {AWAY, HINT} if self.stage is Stage.PLAY
                    else {self.stage.value})
        if msg.type not in expected:
            raise MalformedMessage(f"a {msg.type!r} message is not allowed in stage "
                                   f"{self.stage.value} (expected {sorted(expected)})")
        if msg.type == HINT:  # a pause taken for this move stays taken
            events = table_moves.on_hint(self, msg)
        else:
            events = table_moves.on_away(self, msg) if msg.type == AWAY else handler(self, msg, trusted)
            self.paused = msg.player if msg.type == AWAY else None
        self.messages.append(KeptMessage(msg))
        return events

    def take_pause(self) -> Written:
        """Write ``away``: this peer's player takes one of his pauses, in his turn."""
        if self.stage is not Stage.PLAY or not self.my_turn:
            raise NotThisPeersTurn("a pause is taken in one's own turn, in play")
        if self.pauses_left[self.member.player] <= 0:
            raise NoPauseLeftHere(f"no pause left (the table allows {self.pauses} "
                                  f"per player)")
        return self._write(AWAY, {})

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

    def _key_context(self, player: int) -> ProofContext:
        return ProofContext(session=self.session, seat=player, deck=0)

    def _seat_players(self, joint: Point) -> Match:
        """The joint draw, once every nonce is open: seats (a rematch's are the match
        before's, rotated), first seat, first deck."""
        nonces = [self._nonces[p] for p in range(SEATS)]
        seats_seed = draw.draw_seed(self.session, DRAW_SEATS, nonces)
        first_seed = draw.draw_seed(self.session, DRAW_FIRST, nonces)
        player_at_seat = (tuple(draw.permutation(seats_seed, SEATS)) if self.after is None
                          else rotated_seats(self.after, [p.public_key for p in self.players]))
        first = draw.uniform_index(first_seed, SEATS)
        engine = self.game.new_state(self.config, first)
        return Match(joint, player_at_seat, first, engine, self._new_deck(0, joint, player_at_seat))

    def _new_deck(self, number: int, joint: Point, player_at_seat: tuple[int, ...]) -> DeckDeal:
        seat_keys = [self._key_publics[p] for p in player_at_seat]
        return DeckDeal(number, self.game.deck_codes, self.session, joint, seat_keys, self.checker)

    # -- ending ---------------------------------------------------------------

    def _end(self, error: RemoteProtocolError, evidence: tuple[bytes, ...],
             players: tuple[int, ...] | None = None) -> list[TableEvent]:
        return self._end_with(Verdict.from_error(error, evidence, players))

    def restore_verdict(self, verdict: Verdict) -> None:
        """Mark a table rebuilt from a saved transcript as ended by its saved verdict."""
        self._end_with(verdict)

    def _end_with(self, verdict: Verdict) -> list[TableEvent]:
        self.verdict = verdict
        self.stage = Stage.ENDED
        return [TableEnded(verdict)]

    def declare_deadline_missed(self, player: int | None = None,
                                detail: str = "did not write before the deadline") -> list[TableEvent]:
        """The caller's clock says ``player`` (default: the writer) is too late:
        end the table naming it."""
        if self.stage in (Stage.OVER, Stage.ENDED):
            return []
        player = self.writer if player is None else player
        return self._end(DeadlineMissed(f"player {player} {detail}", player=player,
                                        position=self.next_position), ())

    def declare_unopened(self) -> list[TableEvent]:
        """The caller's clock ran out for a rematch's writer with nothing in it (see
        :func:`~p2pcards.protocol.evening.unopened`): it ends naming nobody (§14)."""
        if self.stage in (Stage.OVER, Stage.ENDED) or not unopened(self):
            return []
        return self._end(RematchUnopened(f"player {self.writer} wrote nothing in this rematch "
                                         f"(its end box may have refused the genesis)",
                                         position=self.next_position), (), players=())

    # -- persistence ------------------------------------------------------------

    def transcript(self) -> list[bytes]:
        return [m.raw for m in self.messages]

    def finished(self) -> FinishedMatch:
        """This peer's record of the match for a rematch to name (PROTOCOL.md §14):
        only a match that ended normally (OVER) can be followed."""
        if self.stage is not Stage.OVER or self._match is None:
            raise StageNotReached(f"only a match that ended normally has a rematch "
                                  f"(stage {self.stage.value})")
        keys_ = [p.public_key for p in self.players]
        return FinishedMatch(self.session, self.head,
                             tuple(keys_[p] for p in self._match.player_at_seat))
