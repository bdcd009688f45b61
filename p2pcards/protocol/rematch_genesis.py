"""A rematch's genesis: the match before it names, and the seats it rotates. That
link chains an evening's matches.

A rematch's genesis carries ``after = {sid, final, seats}``: the previous
match's session id, the digest of its last message, and the identity keys
that sat at its seats 0..3. That one field makes the evening a hash chain
(every joiner who played the match before checks it against its own record,
and ``verify`` checks it offline), and it makes the seating verifiable
without any record: the player who sat at seat ``s`` sits at seat
``s + 1 mod 4`` now, so nobody, the host included, chooses a seat. A seat
whose previous player left goes to the newcomers, in the genesis's order.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.protocol.errors import MalformedMessage, ProtocolError
from p2pcards.protocol.schema import Bin, ListOf, Struct
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap, WireValue

AFTER_SHAPE = Struct({
    "sid": Bin(32),
    "final": Bin(32),
    "seats": ListOf(Bin(32), SEATS, SEATS),
})


class EveningRefused(ProtocolError):
    """A rematch refused: its link to the match before is not this peer's record of it."""

    rule = "evening.refused"

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"{detail} [{self.rule}]")


class NotTheMatchBefore(EveningRefused):
    """A genesis whose ``after`` names another match (session id or final digest)
    than the one this peer just finished, or names none when a rematch was awaited."""

    rule = "evening.after"


class WrongRotation(EveningRefused):
    """A genesis whose ``after.seats`` is not the seating of the match before: the
    seats it rotates are not the ones everybody sat at."""

    rule = "evening.rotation"


class UnfinishedBefore(EveningRefused):
    """A match given after one that did not end normally (a verdict ended it): only
    a match that reached its normal end (OVER) has a last message a rematch may
    name, so no match can follow this one (``verify`` of an evening)."""

    rule = "evening.unfinished"


class DroppedPlayer(EveningRefused):
    """A rematch's genesis without a player whose signed "again" this joiner holds
    (its own, or one the host's relay showed its end box): the host gave that
    player's seat to someone else. The joiner does not join; nobody is named (no
    verdict: nothing was written in the new session)."""

    rule = "evening.dropped"

    def __init__(self, detail: str, player: int, seat: int) -> None:
        #: The dropped player (join order of the match before) and the seat it
        #: would have had in the rematch (its seat there, rotated).
        self.player, self.seat = player, seat
        super().__init__(detail)


class KeptLeaver(EveningRefused):
    """A rematch's genesis that seats a player whose signed "leave" this joiner
    holds: a leave is final, so the host kept a player who chose to go."""

    rule = "evening.kept"

    def __init__(self, detail: str, player: int, seat: int) -> None:
        self.player, self.seat = player, seat
        super().__init__(detail)


@dataclass(frozen=True)
class After:
    """The previous match as a rematch's genesis names it."""

    session: bytes
    final: bytes
    #: Identity key of the player at each seat of the previous match.
    seats: tuple[bytes, ...]

    @classmethod
    def from_wire(cls, body: WireValue) -> After:
        """From a checked ``after`` map (see :data:`AFTER_SHAPE`)."""
        seats = tuple(body["seats"])
        if len(set(seats)) != SEATS:
            raise MalformedMessage("genesis after.seats lists the same identity twice")
        return cls(body["sid"], body["final"], seats)

    def to_wire(self) -> WireMap:
        return {"sid": self.session, "final": self.final, "seats": list(self.seats)}


def rotated_seats(after: After, player_keys: tuple[bytes, ...] | list[bytes]) -> tuple[int, ...]:
    """Entry ``s`` is the player (genesis index) at seat ``s`` of the rematch.

    The player at previous seat ``s`` moves to seat ``s + 1 mod 4``; a seat whose
    previous player is not at this table goes to the players not at the previous
    one, in genesis order, lowest seat first."""
    index = {key: i for i, key in enumerate(player_keys)}
    newcomers = iter(i for i, key in enumerate(player_keys) if key not in after.seats)
    seats: list[int] = [0] * SEATS
    for previous_seat, key in enumerate(after.seats):
        seat = (previous_seat + 1) % SEATS
        seats[seat] = index[key] if key in index else next(newcomers)
    return tuple(seats)


@dataclass(frozen=True)
class FinishedMatch:
    """This peer's own record of a match that ended (what a rematch must name)."""

    session: bytes
    final: bytes
    seats: tuple[bytes, ...]

    @property
    def after(self) -> After:
        """The ``after`` field a rematch of this match carries."""
        return After(self.session, self.final, self.seats)


@dataclass(frozen=True)
class Rematch:
    """What a host's relay needs to seat a rematch: its players' keys in the
    finished match's join order (a freed seat's new player in its leaver's
    place, the host first) and the ``after`` its genesis carries."""

    players: tuple[bytes, ...]
    after: After


def check_after(after: After | None, previous: FinishedMatch) -> None:
    """Refuse a rematch genesis whose link is not ``previous`` (this peer's record).

    Raises :class:`NotTheMatchBefore` for another session id or final digest (or
    none), :class:`WrongRotation` for another seating of that very match."""
    if after is None:
        raise NotTheMatchBefore(f"the genesis names no previous match, but this is the "
                                f"rematch of session {previous.session.hex()[:12]}")
    if after.session != previous.session:
        raise NotTheMatchBefore(f"the genesis follows session {after.session.hex()[:12]}, "
                                f"not {previous.session.hex()[:12]}, the match played here")
    if after.final != previous.final:
        raise NotTheMatchBefore(f"the genesis names final digest {after.final.hex()[:12]} of "
                                f"session {previous.session.hex()[:12]}, whose last message "
                                f"here has digest {previous.final.hex()[:12]}")
    if after.seats != previous.seats:
        raise WrongRotation(f"the genesis rotates a seating that session "
                            f"{previous.session.hex()[:12]} did not have")

