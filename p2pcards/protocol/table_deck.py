"""The deck in flight: each deal's shuffles and shares, and the work made ahead for them.

For every deal, seats 0..3 in turn write ``shuffle``, then ``shares``.
:class:`DeckInFlight` checks each against the current
:class:`~p2pcards.protocol.dealing.DeckDeal` (which keeps nothing before every
check passed), keeps the ``shares`` messages (the evidence against the maker
of a share found bad only later, when its card is revealed or another peer
reports it), and starts the next deck when the referee asks for a deal.

It also keeps the work a seat may do while the others think: the next deal's
first shuffle, a shuffle of a deck still being checked, its shares of the
final deck. Each is made by a job (a callable touching no state, to run in a
worker thread), offered back, and signed only when it falls due on that very
deck; one made on any other deck is dropped, never sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, cast

from p2pcards.crypto import elgamal
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.group import Point, deferring_validation
from p2pcards.crypto.keys import KeyShare
from p2pcards.protocol.dealing import (
    Checker,
    DeckDeal,
    LateBadShare,
    deck_key,
    shares_body,
    shuffle_body,
)
from p2pcards.protocol.envelope import KeptMessage, SignedMessage
from p2pcards.protocol.errors import BadProof, ProtocolError, RemoteProtocolError
from p2pcards.protocol.schema import validate
from p2pcards.protocol.table_records import (
    SHARES_SHAPE,
    SHUFFLE_SHAPE,
    Fault,
    Prepared,
    PreparedShares,
)
from p2pcards.wiremap import WireList, WireMap, WireValue

Rng = Callable[[int], bytes] | None
#: What a speculative job makes (a shuffle or shares).
Made = TypeVar("Made")


class DeckInFlight:
    """The current deck of a match, the shares messages that made it, and the
    shuffle and shares this seat made ahead."""

    def __init__(self, codes: Sequence[int], session: bytes, joint_key: Point,
                 seat_keys: Sequence[Point], checker: Checker,
                 deal_type: type[DeckDeal] = DeckDeal) -> None:
        """The first deck (number 0) of a match whose seats have these key shares;
        ``deal_type`` makes each deck (see :class:`~p2pcards.protocol.table.Table`)."""
        self._codes = tuple(codes)
        self._session = session
        self._joint_key = joint_key
        self._seat_keys = tuple(seat_keys)
        self._checker = checker
        self._deal_type = deal_type
        self._deal = self._new_deal(0)
        #: Each seat's latest ``shares`` message (of the current deck once it has written it).
        self._shares_messages: dict[int, KeptMessage] = {}
        #: A shuffle made ahead: ((deck number, shuffle index, input deck key), body).
        self._shuffle_ahead: Prepared | None = None
        #: This seat's shares made ahead: ((deck number, final deck key), body).
        self._shares_ahead: PreparedShares | None = None

    def _new_deal(self, number: int) -> DeckDeal:
        return self._deal_type(number, self._codes, self._session, self._joint_key,
                               self._seat_keys, self._checker)

    @property
    def deal(self) -> DeckDeal:
        """The current deck."""
        return self._deal

    def next_deal(self) -> None:
        """The referee closed a deal: the next deck, unshuffled, is the current one."""
        self._deal = self._new_deal(self._deal.number + 1)

    # -- the deal's messages, as they arrive -------------------------------------

    def accept_shuffle(self, seat: int, body: WireMap, trusted: bool) -> None:
        """Check and apply ``seat``'s shuffle (its proof unless ``trusted``: this
        peer's own)."""
        self._deal.accept_shuffle(seat, validate(SHUFFLE_SHAPE, body), trusted)

    def accept_shares(self, msg: SignedMessage, seat: int, trusted: bool,
                      check_owner: int | None) -> int:
        """Check and keep ``seat``'s decryption shares (every proof, or with
        ``check_owner`` only those of that seat's cards); how many were checked."""
        count = self._deal.accept_shares(seat, validate(SHARES_SHAPE, msg.body), trusted,
                                         check_owner)
        self._shares_messages[seat] = KeptMessage(msg)
        return count

    def check_reveal(self, seat: int, slots: Sequence[int], items: Sequence[WireValue]) -> list[int]:
        """The faces of ``slots`` an owner's shares reveal, every share checked,
        storing nothing. A share of another seat found bad now raises
        :class:`BadProof` naming its maker at its ``shares`` message."""
        try:
            return self._deal.check_reveal(seat, slots, items)
        except LateBadShare as late:
            raise self._maker_of(late).error from None

    def record_reveal(self, slots: Sequence[int], codes: Sequence[int]) -> None:
        self._deal.record_reveal(slots, codes)

    def bad_share_in(self, evidence: tuple[bytes, ...]) -> Fault | None:
        """A reporter's evidence may be a ``shares`` message held here, accepted after
        checking only this seat's cards' shares: then every share of the deck is
        checked now, so that the maker of a bad one is blamed here too, not the
        reporter. The fault found, or None."""
        held_here = {m.digest for m in self._shares_messages.values()}
        for raw in evidence:
            try:
                if SignedMessage.parse(raw).digest not in held_here:
                    continue
            except RemoteProtocolError:
                continue
            try:
                for slot in range(self._deal.size):
                    self._deal.check_public_shares(slot)
            except LateBadShare as late:
                return self._maker_of(late)
            return None
        return None

    def _maker_of(self, late: LateBadShare) -> Fault:
        maker = self._shares_messages[late.seat]
        return Fault(BadProof(late.detail, player=maker.player, position=maker.position),
                     (maker.raw,))

    # -- this seat's own messages --------------------------------------------------

    def shuffle_for(self, seat: int, rng: Rng) -> WireMap:
        """``seat``'s shuffle of the current deck: the one made ahead if it was made
        for exactly this shuffle of exactly this deck, else one made now."""
        ahead, deal = self._shuffle_ahead, self._deal
        if ahead is not None and ahead[0] == (deal.number, deal.shuffles_done, deck_key(deal.deck)):
            self._shuffle_ahead = None
            return ahead[1]
        return deal.make_shuffle(seat, rng=rng)

    def shares_for(self, seat: int, key: KeyShare, rng: Rng) -> WireMap:
        """``seat``'s shares of the final deck: those made ahead on exactly this
        deck, else made now."""
        ahead, self._shares_ahead = self._shares_ahead, None
        deal = self._deal
        if ahead is not None and ahead[0] == (deal.number, deck_key(deal.deck)):
            return ahead[1]
        return deal.make_shares(seat, key, rng)

    # -- work made ahead ------------------------------------------------------------

    @property
    def shuffle_ahead(self) -> Prepared | None:
        """The shuffle kept until it falls due (None: none)."""
        return self._shuffle_ahead

    @property
    def shares_ahead(self) -> PreparedShares | None:
        """The shares kept until this seat's turn (None: none)."""
        return self._shares_ahead

    def offer_shuffle(self, prepared: Prepared) -> None:
        """Keep a shuffle made ahead until it falls due (:meth:`shuffle_for`)."""
        self._shuffle_ahead = prepared

    def offer_shares(self, prepared: PreparedShares) -> None:
        """Keep shares made ahead until this seat's turn (:meth:`shares_for`)."""
        self._shares_ahead = prepared

    def next_shuffle_job(self) -> Callable[[], Prepared] | None:
        """The next deal's first shuffle (seat 0's). Its input is the game's unmasked
        deck in code order and its statement binds only the session, seat 0, the
        next deck number and the joint key, all known during this deal. None when
        one is made already."""
        number = self._deal.number + 1
        if self._shuffle_ahead is not None and self._shuffle_ahead[0][0] >= number:
            return None
        deck, joint = elgamal.initial_deck(self._codes), self._joint_key
        ctx = ProofContext(session=self._session, seat=0, deck=number)
        return lambda: ((number, 0, deck_key(deck)), shuffle_body(number, deck, joint, ctx))

    def speculative_shuffle_job(self, index: int, body: WireMap,
                                rng: Rng) -> Callable[[], Prepared] | None:
        """Shuffle ``index`` of the deck in ``body``, the shuffle before it, which
        passed only the cheap checks so far. None unless ``body`` is a shuffle of
        the current deck."""
        number, joint, ctx = self._deal.number, self._joint_key, self._deal.context(index)
        return self._on_candidate(body, lambda deck: (
            (number, index, deck_key(deck)), shuffle_body(number, deck, joint, ctx, rng)))

    def speculative_shares_job(self, seat: int, key: KeyShare, body: WireMap,
                               rng: Rng) -> Callable[[], PreparedShares] | None:
        """``seat``'s shares of the deck in ``body``, the deal's last shuffle, which
        passed only the cheap checks so far. None unless ``body`` is a shuffle of
        the current deck."""
        number, ctx = self._deal.number, self._deal.context(seat)
        return self._on_candidate(body, lambda deck: (
            (number, deck_key(deck)), shares_body(number, deck, key, ctx, rng)))

    def _on_candidate(self, body: WireMap,
                      make: Callable[[list[elgamal.Ciphertext]], Made]) -> Callable[[], Made] | None:
        """A job making ``make(deck)`` from the deck of ``body``, a shuffle of the
        current deck not yet checked (None: not one).

        The job decodes that deck without validating its points: what it makes is
        sent only once that shuffle passed its check, every point validated, and
        only if its exact bytes (``deck_key``) are the deck the table then holds."""
        try:
            checked = validate(SHUFFLE_SHAPE, body)
        except ProtocolError:
            return None
        if checked["deck"] != self._deal.number:
            return None
        cards = cast(WireList, checked["cards"])

        def job() -> Made:
            with deferring_validation():
                return make([elgamal.Ciphertext.from_wire(c) for c in cards])
        return job

    def shares_job(self, seat: int, key: KeyShare) -> Callable[[], PreparedShares] | None:
        """``seat``'s shares of the final deck, made while the seats before it write
        theirs (every shuffle passed its check already). None once its turn has
        come, or when they are made already."""
        deal = self._deal
        if deal.shares_done >= seat:
            return None
        number, deck = deal.number, list(deal.deck)
        if self._shares_ahead is not None and self._shares_ahead[0][0] == number:
            return None
        ctx = deal.context(seat)
        return lambda: ((number, deck_key(deck)), shares_body(number, deck, key, ctx))
