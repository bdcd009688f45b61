"""What every peer could learn from every byte it received (issue 4).

A whole Bluff match with challenged and unchallenged discards, and a whole
Topper hand, are played over the host by four peer sessions while every
frame each peer receives is recorded (and every frame the host's relay
receives, for the host). Then, for each peer, from its recorded bytes alone
plus its own key share:

* combining any subset of the decryption shares it saw (and its own) gives
  a card point only for its own cards and for cards the rules revealed, and
  then exactly the right card;
* no card point, and no owner's share of a card that was never revealed,
  appears anywhere in those bytes; an owner's share of a revealed card
  appears only from its reveal on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pytest

from p2pcards.crypto.elgamal import Ciphertext, card_point
from p2pcards.crypto.group import Point
from p2pcards.crypto.shares import DecryptionShare, decryption_point
from p2pcards.net.connection import Connection
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.events import CardsRevealed, HandReceived
from p2pcards.protocol.table import Table
from tests.support.typed import present

from .harness import recording
from .netbench import NetTable

pytestmark = pytest.mark.asyncio

CARD_POINTS = {card_point(code).to_bytes(): code for code in range(52)}


@dataclass
class Deck:
    """One deal's public record, as a peer can rebuild it from what it received."""

    cards: list[Ciphertext] = field(default_factory=list)  # final ciphertexts, by slot
    shares: dict[int, dict[int, Point]] = field(default_factory=dict)  # slot -> {seat: point} (dealing)
    reveals: dict[int, tuple[Point, int, int]] = field(default_factory=dict)  # slot -> (owner's point, position, code)


def _messages_in(received: list[bytes]) -> list[SignedMessage]:
    found: dict[bytes, SignedMessage] = {}
    for data in received:
        frame = frames.decode(data)
        if frame.kind == "msg":
            msg = SignedMessage.parse(frame.body)
            found.setdefault(msg.digest, msg)
    return sorted(found.values(), key=lambda m: m.position)


def _rebuild(messages: list[SignedMessage]) -> tuple[Table, list[Deck]]:
    """Replay what was received as an observer; keep every deck's public record."""
    observer = Table(messages[0].raw)
    decks: list[Deck] = []
    for msg in messages[1:]:
        events = observer.receive(msg.raw)
        for event in events:
            if isinstance(event, HandReceived):
                deal = present(observer.deal)
                decks.append(Deck(
                    cards=list(deal.deck),
                    shares={slot: {seat: s.point for seat, s in by_seat.items()}
                            for slot, by_seat in enumerate(deal.public_shares)}))
            elif isinstance(event, CardsRevealed):
                items = msg.body["shares"]
                for (slot, card), item in zip(event.cards, items, strict=False):
                    point = DecryptionShare.from_wire(item).point
                    # A Bluff card shown honest goes back to its owner's hand and may
                    # be shown again: it has been public since its first reveal.
                    decks[-1].reveals.setdefault(slot, (point, msg.position, card.code))
    return observer, decks


def _no_subset_opens(ct: Ciphertext, shares: dict[int, Point], what: str) -> None:
    """No combination of ``shares`` (by seat) takes ``ct`` to a card point."""
    for size in range(len(shares) + 1):
        for subset in combinations(sorted(shares), size):
            guess = ct.c2
            for seat in subset:
                guess = guess - shares[seat]
            assert guess.to_bytes() not in CARD_POINTS, f"{what} with the shares of seats {subset}"


def _what_peer_learns(player: int, received: list[bytes], net: NetTable) -> None:
    session = net.seats[player].session
    mine = present(session.table)
    messages = _messages_in(received)
    # Its own messages it wrote itself; everything else must have been received.
    own = {SignedMessage.parse(raw).digest for raw in mine.transcript()
           if SignedMessage.parse(raw).player == player}
    held = {SignedMessage.parse(raw).digest for raw in mine.transcript()}
    assert held - own <= {m.digest for m in messages}
    observer, decks = _rebuild(_messages_in(received + [
        frames.encode("msg", raw) for raw in mine.transcript()]))
    seat = present(mine.my_seat)
    key = present(mine.secrets).key
    assert decks, "no deal was completed"
    everything = b"".join(received)

    for card_bytes in CARD_POINTS:
        assert card_bytes not in everything, f"player {player} received a card point"

    for deck_number, deck in enumerate(decks):
        for slot, ct in enumerate(deck.cards):
            owner = slot % 4
            available: dict[int, Point] = dict(deck.shares[slot])
            available[seat] = decryption_point(key, ct)
            revealed = deck.reveals.get(slot)
            if owner != seat:
                # Before (or without) the owner's reveal: no combination is a card.
                _no_subset_opens(ct, available, f"player {player} can open slot {slot} "
                                                f"of deck {deck_number}")
                # The owner's share itself never travels before the reveal.
                owner_share = decryption_point(
                    net.seats[net.table(0).player_at_seat[owner]].session.table.secrets.key, ct)
                if revealed is None:
                    assert owner_share.to_bytes() not in everything, (
                        f"player {player} received the owner's share of unrevealed slot {slot}")
                else:
                    assert owner_share == revealed[0]
                    before = b"".join(m.raw for m in messages if m.position < revealed[1])
                    assert owner_share.to_bytes() not in before
            if owner == seat or revealed is not None:
                full = dict(available)
                if revealed is not None:
                    full[owner] = revealed[0]
                assert len(full) == 4
                opened = ct.c2
                for point in full.values():
                    opened = opened - point
                code = CARD_POINTS[opened.to_bytes()]
                if owner == seat and deck_number == len(decks) - 1:
                    assert mine.hand[slot].code == code
                if revealed is not None:
                    assert revealed[2] == code


async def _played(game: str) -> NetTable:
    net = NetTable(game)
    await net.start()
    try:
        results = await net.results(timeout=90)
    finally:
        await net.close()
    rec = recording(game)
    for p in range(4):
        assert results[p].outcome == rec.outcome
    return net


async def test_bluff_match_with_challenges_reveals_no_hidden_card_to_any_peer() -> None:
    net = await _played("bluff")
    table = net.table(1)
    claims = table.engine.claims
    challenged = [c for c in claims if c.faces is not None]
    unchallenged = [c for c in claims if c.faces is None]
    assert challenged and unchallenged, "the match should have both kinds of discard"
    shown = {slot for claim in challenged for slot in claim.slots}
    hidden = [slot for claim in unchallenged for slot in claim.slots if slot not in shown]
    assert hidden
    for player in range(4):
        received = list(net.seats[player].received)
        if player == 0:  # the host also sees every frame its relay receives
            received += [data for _link, data in net.host_received]
        _what_peer_learns(player, received, net)
    # The check itself notices a leak: one owner's share of a hidden card, slipped in.
    slot = next(p for p in hidden if p % 4 != table.my_seat)
    owner = net.seats[table.player_at_seat[slot % 4]].session.table
    leak = decryption_point(owner.secrets.key, table.deal.deck[slot]).to_bytes()
    with pytest.raises(AssertionError, match="owner's share"):
        _what_peer_learns(1, list(net.seats[1].received) + [frames.encode("alert", leak)], net)
    # Every unchallenged discard stays face down for everyone but its owner
    # (unless the same card had been shown earlier and gone back to the hand).
    for slot in hidden:
        assert slot not in table.deal.revealed


async def test_topper_hand_reveals_each_card_only_when_it_is_played() -> None:
    net = await _played("topper")
    for player in range(4):
        received = list(net.seats[player].received)
        if player == 0:
            received += [data for _link, data in net.host_received]
        _what_peer_learns(player, received, net)


class _Recording:
    """A spectator's link that keeps every frame it receives."""

    def __init__(self, connection: Connection, received: list[bytes]) -> None:
        self.connection, self.received = connection, received

    async def recv(self) -> bytes:
        data = await self.connection.recv()
        self.received.append(data)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.connection, name)


def _what_a_spectator_learns(received: list[bytes], net: NetTable) -> None:
    """With no key share at all: no card point, no subset of the public shares
    opens a card, and no owner's share of a card before (or without) its reveal."""
    messages = _messages_in(received)
    observer, decks = _rebuild(messages)
    assert decks, "the spectator saw no deal"
    everything = b"".join(received)
    for card_bytes in CARD_POINTS:
        assert card_bytes not in everything, "the spectator received a card point"
    for deck_number, deck in enumerate(decks):
        for slot, ct in enumerate(deck.cards):
            owner = slot % 4
            revealed = deck.reveals.get(slot)
            public = {s: p for s, p in deck.shares[slot].items() if s != owner}
            _no_subset_opens(ct, public, f"a spectator can open slot {slot} of deck {deck_number}")
            owner_share = decryption_point(
                net.seats[net.table(0).player_at_seat[owner]].session.table.secrets.key, ct)
            if revealed is None:
                assert owner_share.to_bytes() not in everything, (
                    f"a spectator received the owner's share of unrevealed slot {slot}")
            else:
                before = b"".join(m.raw for m in messages if m.position < revealed[1])
                assert owner_share.to_bytes() not in before


async def test_a_spectator_learns_no_hidden_card_from_every_byte_it_received() -> None:
    import asyncio

    from p2pcards.net.watch import WatchSession
    from p2pcards.protocol.identity import Identity

    net = NetTable("bluff")
    await net.start()
    received: list[bytes] = []
    sam = Identity.generate("Sam")
    dial = net.host.local_connector(sam)

    async def recording_dial() -> Connection:
        return _Recording(await dial(), received)  # type: ignore[return-value]  # a Connection, by delegation

    try:
        watched = await asyncio.wait_for(WatchSession(sam, recording_dial).run(), 90)
        results = await net.results(timeout=90)
    finally:
        await net.close()
    assert watched.outcome == results[0].outcome
    _what_a_spectator_learns(received, net)
    # The check notices a leak: one owner's share of a hidden card, slipped in.
    table = net.table(1)
    hidden = next(s for s in range(52) if s not in table.deal.revealed)
    owner = net.seats[table.player_at_seat[hidden % 4]].session.table
    leak = decryption_point(owner.secrets.key, table.deal.deck[hidden]).to_bytes()
    with pytest.raises(AssertionError, match="owner's share"):
        _what_a_spectator_learns(received + [frames.encode("alert", leak)], net)
