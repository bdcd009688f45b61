"""The match from the seating on: the seats, the referee, the deck in flight, this seat's hand.

When the last key share opens, the joint draw fixes the seats and the first
seat. From then on each deal goes through SHUFFLE and SHARES (the deck in
flight, :mod:`~p2pcards.protocol.table_deck`) and PLAY (the game's actions,
:func:`~p2pcards.protocol.table_moves.play`) until a deal the referee closes
(a new deck: SHUFFLE again) or its outcome (OVER). :class:`Match` applies the
messages of those stages, says which stage and seat are due, and makes this
seat's own messages; like every step of the table, it checks a message whole
before it changes anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from p2pcards.cards import Card
from p2pcards.crypto.group import Point
from p2pcards.crypto.keys import KeyShare
from p2pcards.protocol.dealing import DeckDeal
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.events import (
    ClockPaused,
    HandReceived,
    HintTaken,
    MatchCompleted,
    SharesVerified,
    ShuffleVerified,
    TableEvent,
)
from p2pcards.protocol.table_deck import DeckInFlight, Rng
from p2pcards.protocol.table_errors import IllegalAction, NoPauseLeftHere, NotThisPeersTurn, Observing
from p2pcards.protocol.table_moves import check_away, check_hint, play
from p2pcards.protocol.table_records import AWAY, HINT, Genesis, Prepared, PreparedShares, Stage
from p2pcards.protocol.table_settings import PAUSE_SECONDS
from p2pcards.rules.contract import Engine
from p2pcards.rules.errors import RuleError
from p2pcards.rules.games import GameAction
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap


class Match:
    """What the table holds from the seating on: the seats and the first seat, fixed
    together when the last key share opens; the referee, the deck in flight, this
    seat's hand and the pauses and hints taken, which move on with each message."""

    def __init__(self, genesis: Genesis, joint_key: Point, player_at_seat: tuple[int, ...],
                 first_seat: int, decks: DeckInFlight, mine: tuple[int, KeyShare] | None,
                 check_all_shares: bool) -> None:
        """``mine``: this player's seat and key share (None: an observer);
        ``check_all_shares``: check every decryption share on arrival, not only
        those of this seat's cards."""
        self._game = genesis.game
        self._pauses, self._hints = genesis.pauses, genesis.hints
        self.joint_key = joint_key
        #: The player at each seat, as the joint draw chose.
        self.player_at_seat = player_at_seat
        #: The seat the draw chose to go first.
        self.first_seat = first_seat
        #: The referee: the game's state, changed in place by each action.
        self.engine: Engine = genesis.game.new_state(genesis.config, first_seat)
        self.decks = decks
        self._mine = mine
        self._check_all_shares = check_all_shares
        #: This player's cards of the current deal (none before its shares are in).
        self.hand: dict[int, Card] = {}
        #: Pauses (``away``) left to each player, and hints (``hint``) each took.
        self.pauses_left = [genesis.pauses] * SEATS
        self.hints_used = [0] * SEATS
        #: The player whose pause the last message took (None: no pause).
        self.paused: int | None = None
        #: Whether the last message was a hint (one per move).
        self._hinted = False

    @property
    def deal(self) -> DeckDeal:
        """The current deck."""
        return self.decks.deal

    @property
    def my_seat(self) -> int | None:
        """This player's seat (None: an observer)."""
        return None if self._mine is None else self._mine[0]

    def _own(self) -> tuple[int, KeyShare]:
        if self._mine is None:
            raise Observing("an observer has no seat or key share at this table")
        return self._mine

    @property
    def stage(self) -> Stage:
        """SHUFFLE, SHARES or PLAY for the current deal, or OVER once the referee
        has an outcome."""
        if self.engine.outcome is not None:
            return Stage.OVER
        deal = self.decks.deal
        if deal.shuffles_done < SEATS:
            return Stage.SHUFFLE
        return Stage.SHARES if deal.shares_done < SEATS else Stage.PLAY

    @property
    def writer_seat(self) -> int | None:
        """The one seat that may write next (None: the match is over)."""
        stage, deal = self.stage, self.decks.deal
        if stage is Stage.SHUFFLE:
            return deal.shuffles_done
        if stage is Stage.SHARES:
            return deal.shares_done
        return self.engine.to_act if stage is Stage.PLAY else None

    def seat_of(self, player: int) -> int:
        return self.player_at_seat.index(player)

    # -- the messages of a deal, as they arrive ----------------------------------

    def accept(self, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
        """Check and apply the next message of the match, of a type its stage allows
        (``trusted``: this peer's own, whose proofs it made itself); a failed check
        raises, changing nothing. A pause or a hint leaves the writer the writer."""
        if msg.type == HINT:  # a pause taken for this move stays taken
            events = self._hint(msg)
        else:
            events = self._away(msg) if msg.type == AWAY else self._step(msg, trusted)
            self.paused = msg.player if msg.type == AWAY else None
        self._hinted = msg.type == HINT
        return events

    def _step(self, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
        stage, seat = self.stage, self.seat_of(msg.player)
        if stage is Stage.SHUFFLE:
            self.decks.accept_shuffle(seat, msg.body, trusted)
            return [ShuffleVerified(seat, self.deal.number, own=trusted)]
        if stage is Stage.SHARES:
            return self._accept_shares(msg, seat, trusted)
        events = play(self._game, self.engine, self.decks, self.hand, msg, seat, trusted)
        if self.engine.outcome is not None:
            events.append(MatchCompleted(self.engine.outcome))
        elif self.engine.awaiting_deal:
            self.decks.next_deal()
        return events

    def _away(self, msg: SignedMessage) -> list[TableEvent]:
        left = self.pauses_left[msg.player]
        check_away(msg, left, self._pauses)
        self.pauses_left[msg.player] = left - 1
        return [ClockPaused(msg.player, left - 1, PAUSE_SECONDS)]

    def _hint(self, msg: SignedMessage) -> list[TableEvent]:
        check_hint(msg, self._hints, self._hinted)
        self.hints_used[msg.player] += 1
        return [HintTaken(msg.player, self.hints_used[msg.player])]

    def _accept_shares(self, msg: SignedMessage, seat: int, trusted: bool) -> list[TableEvent]:
        """A seat's decryption shares; once every seat's are in, this player reads
        its hand in private and the referee deals."""
        mine = self.my_seat
        count = self.decks.accept_shares(msg, seat, trusted,
                                         None if self._check_all_shares else mine)
        deal = self.deal
        events: list[TableEvent] = [SharesVerified(seat, deal.number, count, own=trusted)]
        if deal.shares_done < SEATS:
            return events
        faces: list[Card | None] = [None] * deal.size
        self.hand = {}
        if self._mine is not None:
            seat_, key = self._mine
            for slot, code in deal.private_hand(seat_, key).items():
                faces[slot] = self.hand[slot] = Card.from_code(code)
        self.engine.deal(faces)
        events.append(HandReceived(deal.number, tuple(sorted(self.hand.items()))))
        return events

    # -- this seat's own messages ------------------------------------------------

    def own_step(self, rng: Rng) -> tuple[str, WireMap] | None:
        """This seat's automatic message when it is due: its shuffle, its shares, or
        in play the reveal the rules leave no choice about; None when a decision is
        due (or nothing)."""
        seat, key = self._own()
        stage = self.stage
        if stage is Stage.SHUFFLE:
            return "shuffle", self.decks.shuffle_for(seat, rng)
        if stage is Stage.SHARES:
            return "shares", self.decks.shares_for(seat, key, rng)
        auto = self._game.automatic_message(self.engine, seat) if stage is Stage.PLAY else None
        if auto is None:
            return None
        mtype, slots = auto
        return mtype, {"shares": self.deal.make_reveal(seat, key, slots, rng)}

    def pause(self, player: int) -> tuple[str, WireMap]:
        """This player's ``away`` in its turn: refused with no pause left."""
        if self.pauses_left[player] <= 0:
            raise NoPauseLeftHere(f"no pause left (the table allows {self._pauses} per player)")
        return AWAY, {}

    @property
    def awaiting_decision(self) -> bool:
        """In play, a game decision (not an automatic step) is due from this seat."""
        seat = self.my_seat
        return (seat is not None and self.stage is Stage.PLAY
                and self._game.automatic_message(self.engine, seat) is None)

    def action_message(self, action: object, rng: Rng) -> tuple[str, WireMap]:
        """This seat's game action as a message (with the shares of the cards it
        reveals); an action for another seat, or one the referee refuses, raises."""
        seat, key = self._own()
        if getattr(action, "seat", None) != seat:
            raise NotThisPeersTurn(f"the action is for seat {getattr(action, 'seat', None)}, "
                                   f"this peer sits at seat {seat}")
        try:
            self.engine.check(action)
        except RuleError as error:
            raise IllegalAction(error) from None
        # check() admitted it, so it is one of this game's actions.
        mtype, body = self._game.encode(cast(GameAction, action))
        slots = self._game.reveal_slots(self.engine, mtype, body)
        if slots:
            body["shares"] = self.deal.make_reveal(seat, key, slots, rng)
        return mtype, body

    # -- work made ahead (see :mod:`~p2pcards.protocol.table_deck`) -------------------

    def next_shuffle_job(self) -> Callable[[], Prepared] | None:
        """Seat 0's first shuffle of the next deal, made during play."""
        if self.stage is not Stage.PLAY or self.my_seat != 0:
            return None
        return self.decks.next_shuffle_job()

    @property
    def shuffles_next(self) -> bool:
        """This seat shuffles right after the shuffle now due (made while that one is
        checked: :meth:`speculative_shuffle_job`)."""
        seat = self.my_seat
        return (seat is not None and self.stage is Stage.SHUFFLE
                and self.deal.shuffles_done + 1 == seat)

    def speculative_shuffle_job(self, body: WireMap, rng: Rng) -> Callable[[], Prepared] | None:
        """This seat's shuffle of the deck in ``body``, the shuffle just before its
        own, which has passed only the cheap checks."""
        seat = self.my_seat
        if not self.shuffles_next or seat is None:
            return None
        return self.decks.speculative_shuffle_job(seat, body, rng)

    @property
    def last_shuffle_due(self) -> bool:
        """The shuffle now due is the deal's last and this seat writes shares after it
        (made while that shuffle is checked: :meth:`speculative_shares_job`)."""
        return (self._mine is not None and self.stage is Stage.SHUFFLE
                and self.deal.shuffles_done == SEATS - 1)

    def speculative_shares_job(self, body: WireMap, rng: Rng) -> Callable[[], PreparedShares] | None:
        """This seat's shares of the deck in ``body``, the deal's last shuffle, which
        has passed only the cheap checks: each seat's shares then wait on its check of
        that shuffle and of the shares before them, not also on their making, which
        began after that check and competed with the others' checks for the cores."""
        if not self.last_shuffle_due or self._mine is None:
            return None
        seat, key = self._mine
        return self.decks.speculative_shares_job(seat, key, body, rng)

    def shares_job(self) -> Callable[[], PreparedShares] | None:
        """This seat's shares of the final deck, made while the seats before it
        write theirs."""
        if self.stage is not Stage.SHARES or self._mine is None:
            return None
        seat, key = self._mine
        return self.decks.shares_job(seat, key)
