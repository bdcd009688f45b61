"""Work a seat may do ahead while the others think: shuffles and shares made early.

Each function returns a job (a callable touching no table state, to run in a
worker thread) or None when nothing is gained or it would not be safe; the
table keeps the result (:meth:`Table.offer_shuffle`, :meth:`Table.offer_shares`)
and signs it only when it falls due on that very deck. Apart from the state
machine because none of it decides anything: it only saves time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from p2pcards.crypto import elgamal
from p2pcards.crypto.context import ProofContext
from p2pcards.protocol.dealing import DeckDeal, deck_key, shares_body, shuffle_body
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.schema import validate
from p2pcards.protocol.table_records import SHUFFLE_SHAPE, Prepared, PreparedShares, Stage

if TYPE_CHECKING:
    from p2pcards.protocol.table import Table


def next_shuffle_job(table: Table) -> Callable[[], Prepared] | None:
    """Work to do while the players think: the next deal's first shuffle.

    Its input is the game's unmasked deck in code order and its statement
    binds only the session, seat 0, the next deck number and the joint key,
    all known during the current deal; so seat 0 may compute it early (in a
    worker thread: the job touches no table state). :meth:`Table.offer_shuffle`
    keeps the result; it is signed and sent only when that shuffle falls due.
    None for other seats, outside play, when one is prepared already, or with
    seeded randomness (its bytes depend on the position, unknown so early)."""
    if table._randomness is not None or table.stage is not Stage.PLAY or table.my_seat != 0:
        return None
    match = table.match
    if table._prepared is not None and table._prepared[0][0] > match.deal.number:
        return None
    number, joint = match.deal.number + 1, match.joint_key
    deck = DeckDeal(number, table.game.deck_codes, table.session, joint, ()).deck
    ctx = ProofContext(session=table.session, seat=0, deck=number)
    return lambda: ((number, 0, deck_key(deck)), shuffle_body(number, deck, joint, ctx))


def speculative_shuffle_job(table: Table, raw: bytes) -> Callable[[], Prepared] | None:
    """This seat's shuffle of the deck in ``raw``, a shuffle not yet checked
    whose acceptance would make this seat the next shuffler: run it while
    :meth:`Table.receive` checks ``raw`` (the two are independent). None unless
    ``raw`` passes every cheap check: this session, the next position, the
    head as ``prev``, the current writer's signature. The result is
    used only if that check passes and the table's deck is then exactly the
    one it was made on (:meth:`Table.offer_shuffle`); otherwise it is dropped,
    never sent. The randomness is the position's own, as without it."""
    if table.stage is not Stage.SHUFFLE or table.my_seat is None:
        return None
    match = table.match
    index = match.deal.shuffles_done + 1
    if index != table.my_seat:
        return None
    try:
        # The cheap checks first (parse, session, position, prev, writer, then
        # the writer's signature): a frame anyone can forge starts no work.
        msg = SignedMessage.parse(raw)
        if (msg.type != "shuffle" or msg.session != table.session
                or msg.position != table.next_position or msg.prev != table.head
                or msg.player != table.writer):
            return None
        msg.verify(table.players[msg.player].public_key)
        body = validate(SHUFFLE_SHAPE, msg.body)
    except ProtocolError:
        return None
    number, joint = match.deal.number, match.joint_key
    if body["deck"] != number:
        return None
    ctx = ProofContext(session=table.session, seat=index, deck=number)
    rng = None if table._randomness is None else table._randomness(msg.position + 1)

    def job() -> Prepared:
        deck = [elgamal.Ciphertext.from_wire(c) for c in body["cards"]]
        return (number, index, deck_key(deck)), shuffle_body(number, deck, joint, ctx, rng)
    return job


def shares_job(table: Table) -> Callable[[], PreparedShares] | None:
    """This seat's ``shares`` of the final deck, to make while the seats
    before it write theirs: its input is the last shuffle's output, already
    checked (the table is in the shares stage only once every shuffle
    passed). :meth:`Table.offer_shares` keeps the result; it is signed and sent
    only at this seat's turn, on that very deck. None when nothing is
    gained (its turn has come, or it has no seat), when one is made
    already, or with seeded randomness (its bytes depend on the position)."""
    if table._randomness is not None or table.stage is not Stage.SHARES or table.my_seat is None:
        return None
    deal, seat = table.match.deal, table.own_seat
    if deal.shares_done >= seat:
        return None
    number, deck = deal.number, list(deal.deck)
    if table._prepared_shares is not None and table._prepared_shares[0][0] == number:
        return None
    key, ctx = table.member.secrets.key, deal.context(seat)
    return lambda: ((number, deck_key(deck)), shares_body(number, deck, key, ctx))
