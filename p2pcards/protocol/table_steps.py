"""The cryptographic steps of a table, each as it arrives and this peer's own next one.

``commit`` and ``open`` (every player's key share and draw nonce, committed
then opened and proved), then for each deal four ``shuffle`` messages and four
``shares`` messages; each function checks one such message against the
:class:`~p2pcards.protocol.table.Table` it is applied to and moves the table's
stage on. A check that fails raises the rule it breaks (the table ends with a
verdict naming the writer); nothing is changed before every check passed.
:func:`outgoing` writes this peer's own step when it is due.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2pcards.cards import Card
from p2pcards.crypto import checks, draw, keys
from p2pcards.crypto.errors import CryptoError
from p2pcards.crypto.group import Point
from p2pcards.protocol.dealing import deck_key
from p2pcards.protocol.envelope import KeptMessage, SignedMessage
from p2pcards.protocol.errors import BadProof
from p2pcards.protocol.events import (
    Committed,
    HandReceived,
    KeyShareVerified,
    PlayersSeated,
    SharesVerified,
    ShuffleVerified,
    TableEvent,
)
from p2pcards.protocol.schema import validate
from p2pcards.protocol.table_records import (
    COMMIT_SHAPE,
    OPEN_SHAPE,
    SHARES_SHAPE,
    SHUFFLE_SHAPE,
    Stage,
    Written,
)
from p2pcards.rules.seats import SEATS

if TYPE_CHECKING:
    from p2pcards.protocol.table import Table


def on_commit(table: Table, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
    """A player's commitments to his key share and draw nonce (opened in the next stage)."""
    body = validate(COMMIT_SHAPE, msg.body)
    table._commitments[msg.player] = (body["key"], body["draw"])
    if len(table._commitments) == SEATS:
        table.stage = Stage.OPEN
    return [Committed(msg.player)]


def on_open(table: Table, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
    """A key share and nonce opened: they must match their commitments and the share's proof;
    the last one seats the players (:meth:`Table._seat_players`)."""
    body = validate(OPEN_SHAPE, msg.body)
    player = msg.player
    ctx = table._key_context(player)
    key_commitment, draw_commitment = table._commitments[player]
    try:
        public = Point.from_bytes(body["key"])
        if keys.key_commitment(ctx, public) != key_commitment:
            raise BadProof("the key share does not match its commitment")
        if not draw.verify_commitment(ctx, body["draw"], draw_commitment):
            raise BadProof("the draw nonce does not match its commitment")
        if not trusted:
            table.checker(checks.key_share_check(
                public, keys.SchnorrProof.from_wire(body["proof"]), ctx))
        publics = {**table._key_publics, player: public}
        joint = (keys.joint_public_key([publics[p] for p in range(SEATS)])
                 if len(publics) == SEATS else None)
    except CryptoError as exc:
        raise BadProof(f"key share: {exc}") from None
    table._key_publics[player] = public
    table._nonces[player] = body["draw"]
    events: list[TableEvent] = [KeyShareVerified(player)]
    if joint is not None:
        match = table._match = table._seat_players(joint)
        events.append(PlayersSeated(match.player_at_seat, match.first_seat))
        table.stage = Stage.SHUFFLE
    return events


def on_shuffle(table: Table, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
    """A seat's shuffle of the current deck, its proof checked (unless ``trusted``: this peer's own)."""
    body = validate(SHUFFLE_SHAPE, msg.body)
    seat = table.seat_of(msg.player)
    deal = table.match.deal
    deal.accept_shuffle(seat, body, trusted)
    if deal.shuffles_done == SEATS:
        table.stage = Stage.SHARES
    return [ShuffleVerified(seat, deal.number, own=trusted)]


def on_shares(table: Table, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
    """A seat's decryption shares; once every seat's are in, this peer's hand is read and play starts."""
    body = validate(SHARES_SHAPE, msg.body)
    seat = table.seat_of(msg.player)
    match, mine = table.match, table.my_seat
    deal = match.deal
    count = deal.accept_shares(seat, body, trusted, None if table.check_all_shares else mine)
    table._shares_messages[seat] = KeptMessage(msg)
    events: list[TableEvent] = [SharesVerified(seat, deal.number, count, own=trusted)]
    if deal.shares_done < SEATS:
        return events
    faces: list[Card | None] = [None] * deal.size
    table.hand = {}
    if mine is not None:
        for slot, code in deal.private_hand(mine, table.member.secrets.key).items():
            faces[slot] = table.hand[slot] = Card.from_code(code)
    match.engine.deal(faces)
    table.stage = Stage.PLAY
    events.append(HandReceived(deal.number, tuple(sorted(table.hand.items()))))
    return events


def outgoing(table: Table) -> Written | None:
    """This peer's next automatic message (a cryptographic step), if it is due."""
    if not table.my_turn:
        return None
    secrets = table.member.secrets
    if table.stage is Stage.COMMIT:
        ctx = table._key_context(table.member.player)
        return table._write("commit", {"key": keys.key_commitment(ctx, secrets.key.public),
                                      "draw": draw.commit(ctx, secrets.draw_nonce)})
    if table.stage is Stage.OPEN:
        ctx = table._key_context(table.member.player)
        return table._write("open", {
            "key": secrets.key.public.to_bytes(),
            "proof": keys.prove_key_share(secrets.key, ctx, rng=table._rng()).to_wire(),
            "draw": secrets.draw_nonce})
    deal, seat = table.match.deal, table.own_seat
    if table.stage is Stage.SHUFFLE:
        prepared = table._prepared
        if prepared is not None and prepared[0] == table._shuffle_due():
            table._prepared = None
            return table._write("shuffle", prepared[1])
        return table._write("shuffle", deal.make_shuffle(seat, rng=table._rng()))
    if table.stage is Stage.SHARES:
        ready, table._prepared_shares = table._prepared_shares, None
        if ready is not None and ready[0] == (deal.number, deck_key(deal.deck)):
            return table._write("shares", ready[1])
        return table._write("shares", deal.make_shares(seat, secrets.key, table._rng()))
    if table.stage is Stage.PLAY:
        auto = table.game.automatic_message(table.match.engine, seat)
        if auto is not None:
            mtype, slots = auto
            return table._write(mtype, {"shares": deal.make_reveal(
                seat, secrets.key, slots, table._rng())})
    return None
