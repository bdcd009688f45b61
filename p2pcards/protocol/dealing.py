"""One deck's life on the table: four proven shuffles, the private deal, reveals.

The deck starts as the game's cards in code order, unmasked. Seat 0 to 3 in
turn shuffle and re-mask it, each with a proof. Then every seat publishes,
for every slot it does not own, its decryption share with a Chaum–Pedersen
proof; an owner adds its own share in private and learns its cards. A card
is revealed to all when its owner publishes its own share with a proof.
Slot ``p`` of the final deck belongs to seat ``p % 4``.

Everything received is verified here before anything is stored, so a
rejected shuffle or share leaves the deal exactly as it was. One exception,
for speed: a player checks at once only the shares of its own cards (their
owner is the one who needs them and will blame a bad one); the other
shares are checked when their card is revealed, just before they are
combined, and an offline verifier checks them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from p2pcards.crypto import checks, elgamal, shares, shuffle
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.errors import CryptoError
from p2pcards.crypto.group import Point, deferring_validation, pending_points
from p2pcards.crypto.halves import both_halves
from p2pcards.crypto.hashing import digest32
from p2pcards.crypto.keys import KeyShare
from p2pcards.protocol.errors import BadProof, MalformedMessage
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireList, WireMap, WireValue

#: Runs one public check, raising CryptoError if it fails.
Checker = Callable[[checks.Check], None]
T = TypeVar("T")


class LateBadShare(BadProof):
    """A share found bad only when its card was revealed: its maker is to blame,
    not the owner revealing the card."""

    def __init__(self, seat: int, detail: str) -> None:
        self.seat = seat
        super().__init__(detail)


def owner_of(slot: int) -> int:
    return slot % SEATS


class DeckDeal:
    """The masked deck of one deal, the shares published so far, what this peer learnt."""

    def __init__(self, number: int, codes: Sequence[int], session: bytes, joint_key: Point,
                 seat_keys: Sequence[Point], checker: Checker | None = None) -> None:
        """``checker`` runs every public proof check (default: once per process,
        :func:`p2pcards.crypto.checks.verify`)."""
        self.number = number
        self.checker: Checker = checker or checks.verify
        self.codes = tuple(codes)
        self.session = session
        self.joint_key = joint_key
        self.seat_keys = tuple(seat_keys)
        self.card_map = elgamal.CardMap(self.codes)
        self.deck: list[elgamal.Ciphertext] = elgamal.initial_deck(self.codes)
        self.shuffles_done = 0
        self.shares_done = 0
        #: slot -> seat -> share, from the ``shares`` messages.
        self.public_shares: list[dict[int, shares.DecryptionShare]] = [{} for _ in self.codes]
        #: (slot, seat) pairs whose share proof has been checked (or that we made).
        self._checked: set[tuple[int, int]] = set()
        #: slot -> card code revealed to everyone.
        self.revealed: dict[int, int] = {}

    @property
    def size(self) -> int:
        return len(self.codes)

    def context(self, seat: int) -> ProofContext:
        return ProofContext(session=self.session, seat=seat, deck=self.number)

    def slots_of(self, seat: int) -> list[int]:
        return [p for p in range(self.size) if owner_of(p) == seat]

    # -- shuffles ---------------------------------------------------------

    def make_shuffle(self, seat: int, rng: Callable[[int], bytes] | None = None) -> WireMap:
        return shuffle_body(self.number, self.deck, self.joint_key, self.context(seat), rng)

    def accept_shuffle(self, seat: int, body: WireMap, trusted: bool = False) -> None:
        self._check_deck_number(body)
        cards = _list(body["cards"], "cards", self.size)

        def decode_and_check() -> list[elgamal.Ciphertext]:
            out = [elgamal.Ciphertext.from_wire(c) for c in cards]
            if not trusted:
                proof = shuffle.ShuffleProof.from_wire(body["proof"])
                self.checker(checks.shuffle_check(self.deck, out, proof, self.joint_key,
                                                  self.context(seat)))
            return out

        try:
            out = checked_as_multiplied(decode_and_check, trusted)
        except CryptoError as exc:
            raise BadProof(f"shuffle of deck {self.number} by seat {seat}: {exc}") from None
        self.deck = out
        self.shuffles_done += 1

    # -- the private deal -------------------------------------------------

    def make_shares(self, seat: int, key: KeyShare,
                    rng: Callable[[int], bytes] | None = None) -> WireMap:
        return shares_body(self.number, self.deck, key, self.context(seat), rng)

    def accept_shares(self, seat: int, body: WireMap, trusted: bool = False,
                      check_owner: int | None = None) -> int:
        """Store ``seat``'s shares; check the proofs of every share, or (with
        ``check_owner``) only of that seat's cards. Returns how many were checked."""
        self._check_deck_number(body)
        slots = [p for p in range(self.size) if owner_of(p) != seat]
        items = _list(body["shares"], "shares", len(slots))

        def checked_here(slot: int) -> bool:
            """Whether this peer checks (or, for its own message, trusts) ``slot``'s share."""
            return check_owner is None or owner_of(slot) == check_owner

        pairs = list(zip(slots, items, strict=False))
        verified = [i for i, (p, _) in enumerate(pairs) if not trusted and checked_here(p)]
        # Two halves with as many proofs each, at once on two cores (crypto.halves):
        # the next writer waits on this check. The first half's error is the one
        # raised when both have one, as the same check in one pass would.
        cut = verified[len(verified) // 2] if len(verified) >= 2 else len(pairs)
        parts: list[list[tuple[int, shares.DecryptionShare]]] = [[], []]

        def decode_and_check_part(part: int, start: int, stop: int) -> None:
            parsed = parts[part] = []
            for p, item in pairs[start:stop]:
                share = shares.DecryptionShare.from_wire(item, seat=seat)
                if not trusted and checked_here(p):
                    self._verify(seat, p, share)
                parsed.append((p, share))

        def decode_and_check() -> list[tuple[int, shares.DecryptionShare]]:
            if cut == len(pairs):  # fewer than two proofs to check: one pass
                decode_and_check_part(0, 0, cut)
            else:
                both_halves(lambda: decode_and_check_part(0, 0, cut),
                            lambda: decode_and_check_part(1, cut, len(pairs)))
            return parts[0] + parts[1]

        try:
            parsed = checked_as_multiplied(decode_and_check, trusted)
        except CryptoError as exc:
            raise BadProof(f"decryption share of seat {seat} for deck {self.number}: {exc}") from None
        for p, share in parsed:
            self.public_shares[p][seat] = share
        checked = [(p, seat) for p, _ in parsed if trusted or checked_here(p)]
        self._checked.update(checked)
        self.shares_done += 1
        return len(checked)

    def check_public_shares(self, slot: int) -> None:
        """Check the not yet checked shares of ``slot`` before they are combined;
        raises :class:`LateBadShare` naming the seat that made a bad one."""
        for seat, share in sorted(self.public_shares[slot].items()):
            if (slot, seat) in self._checked:
                continue
            try:
                self._verify(seat, slot, share)
            except CryptoError as exc:
                raise LateBadShare(seat, f"decryption share of seat {seat} for slot {slot} of "
                                         f"deck {self.number}: {exc}") from None
            self._checked.add((slot, seat))

    def _verify(self, seat: int, slot: int, share: shares.DecryptionShare) -> None:
        self.checker(checks.share_check(self.seat_keys[seat], self.deck[slot], share,
                                        self.context(seat), slot))

    def _share_points(self, slot: int) -> dict[int, Point]:
        return {seat: share.point for seat, share in self.public_shares[slot].items()}

    def private_hand(self, seat: int, key: KeyShare) -> dict[int, int]:
        """This peer's own cards: the three public shares plus its own, in private."""
        hand = {}
        for p in self.slots_of(seat):
            points = {**self._share_points(p), seat: shares.decryption_point(key, self.deck[p])}
            hand[p] = shares.recover_code(self.deck[p], points, self.card_map, slot=p)
        return hand

    # -- public reveals ---------------------------------------------------

    def make_reveal(self, seat: int, key: KeyShare, slots: Sequence[int],
                    rng: Callable[[int], bytes] | None = None) -> WireList:
        ctx = self.context(seat)
        return [shares.make_share(key, self.deck[p], ctx, p, rng).to_wire() for p in slots]

    def check_reveal(self, seat: int, slots: Sequence[int], items: Sequence[WireValue]) -> list[int]:
        """Verify an owner's shares for ``slots`` and return the faces, storing nothing."""
        if len(items) != len(slots):
            raise MalformedMessage(f"expected {len(slots)} shares, got {len(items)}")
        for p in slots:
            self.check_public_shares(p)

        def decode_and_check() -> list[int]:
            codes = []
            for p, item in zip(slots, items, strict=False):
                share = shares.DecryptionShare.from_wire(item, seat=seat)
                self._verify(seat, p, share)
                points = {**self._share_points(p), seat: share.point}
                codes.append(shares.recover_code(self.deck[p], points, self.card_map, slot=p))
            return codes

        try:
            return checked_as_multiplied(decode_and_check)
        except CryptoError as exc:
            raise BadProof(f"reveal by seat {seat} in deck {self.number}: {exc}") from None

    def record_reveal(self, slots: Sequence[int], codes: Sequence[int]) -> None:
        self.revealed.update(zip(slots, codes, strict=False))

    def _check_deck_number(self, body: WireMap) -> None:
        if body["deck"] != self.number:
            raise MalformedMessage(f"deck number {body['deck']} is not the current deck {self.number}")


def checked_as_multiplied(decode_and_check: Callable[[], T], trusted: bool = False) -> T:
    """``decode_and_check()`` with each received point validated by the check's own
    multiplications (:class:`~p2pcards.crypto.group.PendingPoints`: about half a
    multiplication saved per point); nothing it decoded is kept unless every
    point was accepted. On any failure it runs again with each point validated as
    it is decoded, so the error raised is the precise one (which point, which
    proof) a decoding that validates at once would raise. Inside a pass that
    defers validation already (an offline verifier's), that pass answers for
    the points. ``trusted``: this peer's own message, just made here from
    validated points by libsodium: its points are decoded without validation."""
    if pending_points() is not None:
        return decode_and_check()
    if trusted:
        with deferring_validation():
            return decode_and_check()
    with deferring_validation() as pending:
        try:
            result = decode_and_check()
            if pending.validate_rest():
                return result
        except CryptoError:
            pass
    return decode_and_check()


def shuffle_body(number: int, deck: Sequence[elgamal.Ciphertext], joint_key: Point,
                 ctx: ProofContext, rng: Callable[[int], bytes] | None = None) -> WireMap:
    """A ``shuffle`` message's body: ``deck`` permuted, re-masked and proven by ``ctx.seat``."""
    out, proof = shuffle.shuffle_and_prove(deck, joint_key, ctx, rng=rng)
    return {"deck": number, "cards": [c.to_wire() for c in out], "proof": proof.to_wire()}


def shares_body(number: int, deck: Sequence[elgamal.Ciphertext], key: KeyShare, ctx: ProofContext,
                rng: Callable[[int], bytes] | None = None) -> WireMap:
    """A ``shares`` message's body: ``ctx.seat``'s proven decryption shares of
    every slot of the final ``deck`` that another seat owns."""
    items = [shares.make_share(key, deck[p], ctx, p, rng).to_wire()
             for p in range(len(deck)) if owner_of(p) != ctx.seat]
    return {"deck": number, "shares": items}


def deck_key(deck: Sequence[elgamal.Ciphertext]) -> bytes:
    """A digest of a deck's exact ciphertexts: which input a prepared shuffle was made on."""
    return digest32(b"p2pcards/v1/local/deck-key", *(c.c1.to_bytes() + c.c2.to_bytes() for c in deck))


def _list(value: object, name: str, size: int) -> WireList:
    if not isinstance(value, list) or len(value) != size:
        got = len(value) if isinstance(value, list) else type(value).__name__
        raise MalformedMessage(f"body.{name}: expected a list of {size} items, got {got}")
    return value
