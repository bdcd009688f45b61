"""The key set-up: every player's key share and draw nonce, committed, then opened.

A table's first two stages: each player in join order writes ``commit``
(commitments to its key share and its draw nonce), then ``open`` (the share,
a Schnorr proof of it bound to the session and the player, and the nonce).
:class:`KeySetup` holds what they wrote and says who writes next; it checks an
``open`` against its commitments and proof before it keeps anything, so a
message that fails a check changes nothing. Once every share is open it gives
the joint key, each seat's key share, and the joint draw the nonces make: the
seats and the first seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2pcards.crypto import checks, draw, keys
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.errors import CryptoError
from p2pcards.crypto.group import Point
from p2pcards.protocol.dealing import Checker
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import BadProof
from p2pcards.protocol.rematch_genesis import After, rotated_seats
from p2pcards.protocol.schema import validate
from p2pcards.protocol.table_records import COMMIT_SHAPE, OPEN_SHAPE, SessionSecrets
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap

DRAW_SEATS = b"seats"
DRAW_FIRST = b"first"


def key_context(session: bytes, player: int) -> ProofContext:
    """What a player's key share commitment and proof are bound to: the session
    and the player's index in join order (the seats are drawn only later)."""
    return ProofContext(session=session, seat=player, deck=0)


class KeySetup:
    """The commitments, key shares and draw nonces of one table's players."""

    def __init__(self, session: bytes, checker: Checker) -> None:
        """``checker`` runs the public proof checks (see :class:`~p2pcards.protocol.table.Table`)."""
        self._session = session
        self._checker = checker
        #: What each player committed to: (key share commitment, nonce commitment).
        self._commitments: dict[int, tuple[bytes, bytes]] = {}
        #: What each player opened: its key share, checked, and its nonce.
        self._publics: dict[int, Point] = {}
        self._nonces: dict[int, bytes] = {}

    @property
    def committing(self) -> bool:
        """Some player has not committed yet (the COMMIT stage; then OPEN)."""
        return len(self._commitments) < SEATS

    @property
    def writer(self) -> int | None:
        """The player who commits (or, once all have, opens) next, in join order;
        None once every share is open."""
        for given in (self._commitments, self._publics):
            if len(given) < SEATS:
                return next(p for p in range(SEATS) if p not in given)
        return None

    def accept(self, msg: SignedMessage, trusted: bool) -> Point | None:
        """A player's ``commit`` (its commitments, kept) or ``open``; the joint key
        once the last share is open, else None."""
        if msg.type == "commit":
            checked = validate(COMMIT_SHAPE, msg.body)
            self._commitments[msg.player] = (checked["key"], checked["draw"])
            return None
        return self._open(msg.player, msg.body, trusted)

    def _open(self, player: int, body: WireMap, trusted: bool) -> Point | None:
        """Check ``player``'s key share and nonce against its commitments and the
        share's proof (not for a ``trusted`` one: this peer's own), then keep them.
        A failed check raises :class:`BadProof` and keeps nothing."""
        checked = validate(OPEN_SHAPE, body)
        ctx = key_context(self._session, player)
        key_commitment, draw_commitment = self._commitments[player]
        try:
            public = Point.from_bytes(checked["key"])
            if keys.key_commitment(ctx, public) != key_commitment:
                raise BadProof("the key share does not match its commitment")
            if not draw.verify_commitment(ctx, checked["draw"], draw_commitment):
                raise BadProof("the draw nonce does not match its commitment")
            if not trusted:
                self._checker(checks.key_share_check(
                    public, keys.SchnorrProof.from_wire(checked["proof"]), ctx))
            publics = {**self._publics, player: public}
            joint = (keys.joint_public_key([publics[p] for p in range(SEATS)])
                     if len(publics) == SEATS else None)
        except CryptoError as exc:
            raise BadProof(f"key share: {exc}") from None
        self._publics[player] = public
        self._nonces[player] = checked["draw"]
        return joint

    def own_step(self, player: int, secrets: SessionSecrets,
                 rng: Callable[[int], bytes] | None) -> tuple[str, WireMap]:
        """This peer's ``commit`` (commitments to its key share and draw nonce) or,
        once every player has committed, its ``open`` (the share with its proof,
        and the nonce)."""
        ctx = key_context(self._session, player)
        if self.committing:
            return "commit", {"key": keys.key_commitment(ctx, secrets.key.public),
                              "draw": draw.commit(ctx, secrets.draw_nonce)}
        proof = keys.prove_key_share(secrets.key, ctx, rng=rng)
        return "open", {"key": secrets.key.public.to_bytes(), "proof": proof.to_wire(),
                        "draw": secrets.draw_nonce}

    def seat_keys(self, player_at_seat: Sequence[int]) -> list[Point]:
        """Each seat's key share, in seat order (once every share is open)."""
        return [self._publics[p] for p in player_at_seat]

    def seating(self, after: After | None, identities: Sequence[bytes]) -> tuple[tuple[int, ...], int]:
        """The joint draw, once every nonce is open: the player at each seat (a
        rematch's are the match before's, rotated: ``identities`` are the players'
        keys in join order) and the seat that goes first."""
        nonces = [self._nonces[p] for p in range(SEATS)]
        seats_seed = draw.draw_seed(self._session, DRAW_SEATS, nonces)
        first_seed = draw.draw_seed(self._session, DRAW_FIRST, nonces)
        player_at_seat = (tuple(draw.permutation(seats_seed, SEATS)) if after is None
                          else rotated_seats(after, list(identities)))
        return player_at_seat, draw.uniform_index(first_seed, SEATS)
