"""The simulated tables: four seeded players, and crypto that is computed once.

Every run seats the same four seeded identities at the same lobby settings
(:func:`seating`): the short Topper match (``target 1, deals 1``) or the short
Bluff match (:data:`BLUFF_CONFIG`), and each seat's randomness is seeded by the
position it writes (:func:`randomness`), so an undisturbed run writes the same
transcript every time.

*How the crypto stays affordable.* Every check is the real one (the table's own
shuffle, share and key-share checks), but it runs through :func:`memo_check`,
which remembers each check's result (pass or failure) by the check's key, a
hash of every byte it reads (``checks.Check.key``): a statement met again in
another schedule is not recomputed. The seeded tables' proofs are made once
per distinct input (:class:`_MemoDeal`: keyed on the deck, the key share and
the position's seed), since a seeded table makes the same shuffle of the same
deck whatever the delivery order. So a schedule pays only for the session
logic, signatures and what the coalition made new.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.crypto import checks
from p2pcards.crypto.errors import CryptoError
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol import game_wire
from p2pcards.protocol.dealing import DeckDeal, deck_key
from p2pcards.protocol.identity import Identity, Signer
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import SessionSecrets
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.topper import TopperConfig

from .schedule import DEADLINE, PLAYERS

#: The short Bluff match: one deal, two chips each, a chip a pass, at most two
#: cards a discard (the deck is always the 52 cards: Bluff has no smaller one).
BLUFF_CONFIG = BluffConfig(table_price=1, starting_chips=2, deal_cap=1, max_discard=2)


@dataclass(frozen=True)
class Seating:
    identities: list[Identity]
    game: str
    config: dict[str, int]
    nonce: bytes


_SEATING: dict[str, Seating] = {}


def seating(game: str = "topper") -> Seating:
    """The four seeded identities and the lobby's settings of ``game`` (the same every run)."""
    if game not in _SEATING:
        identities = [seeded_identity(20, f"p{i}", f"p{i}") for i in range(PLAYERS)]
        settings = (TopperConfig(target_score=1, deal_limit=1) if game == "topper"
                    else BLUFF_CONFIG)
        config = game_wire.by_name(game).config_to_wire(settings)
        nonce = SeededRng(b"sim genesis" if game == "topper" else f"sim {game}".encode())(32)
        _SEATING[game] = Seating(identities, game, config, nonce)
    return _SEATING[game]


def lobby(seat: Seating) -> Lobby:
    """The host's lobby for ``seat``, with the simulation's move time (:data:`DEADLINE`)."""
    return Lobby(seat.identities[0], seat.game, {**seat.config, "move_time": int(DEADLINE)},
                 "sim")


class _Rng(SeededRng):
    """A seeded byte source that says which seed it is (the proofs' memo key)."""

    def __init__(self, seed: bytes) -> None:
        super().__init__(seed)
        self.label = seed


def randomness(label: str) -> Callable[[int], Callable[[int], bytes]]:
    """The byte source of each position's message for the seat called ``label``."""
    return lambda position: _Rng(hashlib.sha256(f"sim/{label}/{position}".encode()).digest())


#: Results of the checks met so far (None: passed; else the error it raised).
_CHECKED: dict[bytes, CryptoError | None] = {}
#: Proofs made so far, by (kind, session, deck, seat, input, key share, seed).
_MADE: dict[tuple[Any, ...], Any] = {}
_MEMO_LIMIT = 200_000


def memo_check(check: checks.Check) -> None:
    """The real check, run once per distinct statement and proof (its key hashes
    every byte the check reads); a failure is remembered as well as a pass."""
    key = check.key
    if key not in _CHECKED:
        if len(_CHECKED) > _MEMO_LIMIT:
            _CHECKED.clear()
        try:
            check.run()
        except CryptoError as error:
            _CHECKED[key] = error
        else:
            _CHECKED[key] = None
    error = _CHECKED[key]  # type: ignore[misc]
    if error is not None:
        raise error.with_traceback(None)


def _made(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    if key not in _MADE:
        if len(_MADE) > _MEMO_LIMIT:
            _MADE.clear()
        _MADE[key] = make()
    return _MADE[key]


class _MemoDeal(DeckDeal):
    """A deck whose seeded proofs are made once per distinct input (module docstring)."""

    def _key(self, kind: str, seat: int, rng: Any, *more: Any) -> tuple[Any, ...] | None:
        if not isinstance(rng, _Rng):
            return None
        return (kind, self.session, self.number, seat, deck_key(self.deck),
                self.joint_key.to_bytes(), rng.label, *more)

    def make_shuffle(self, seat: int, rng: Callable[[int], bytes] | None = None) -> dict[str, Any]:
        key = self._key("shuffle", seat, rng)
        make = super().make_shuffle
        return dict(make(seat, rng) if key is None else _made(key, lambda: make(seat, rng)))

    def make_shares(self, seat: int, key: Any, rng: Callable[[int], bytes] | None = None
                    ) -> dict[str, Any]:
        memo = self._key("shares", seat, rng, key.public.to_bytes())
        make = super().make_shares
        return dict(make(seat, key, rng) if memo is None
                    else _made(memo, lambda: make(seat, key, rng)))

    def make_reveal(self, seat: int, key: Any, slots: Any,
                    rng: Callable[[int], bytes] | None = None) -> list[Any]:
        memo = self._key("reveal", seat, rng, key.public.to_bytes(), tuple(slots))
        make = super().make_reveal
        return list(make(seat, key, slots, rng) if memo is None
                    else _made(memo, lambda: make(seat, key, slots, rng)))


class SimTable(Table):
    """A table whose decks are :class:`_MemoDeal`, whose checks are :func:`memo_check`."""

    def __init__(self, genesis_raw: bytes, me: Signer | None = None,
                 secrets: SessionSecrets | None = None,
                 randomness: Callable[[int], Callable[[int], bytes]] | None = None) -> None:
        super().__init__(genesis_raw, me, secrets, randomness=randomness, checker=memo_check,
                         deal_type=_MemoDeal)
