"""A seat freed at the end box and its new occupant: who may take it, the host's
``fill`` frame that tells every end box who did, and a newcomer's check of the
rematch's genesis (PROTOCOL.md §14).

The fill frame is not signed. It travels only on links authenticated to the
host's key, it never enters a transcript and is never evidence: what binds is
the rematch's genesis, signed by the host, which every player checks (the
players of the match before against their own record, the newcomer against
the fill it was given). A signature would only let a host's lie be shown to
someone else, and the genesis already shows what the host did.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION, SignedMessage
from p2pcards.protocol.errors import BadSignature, MalformedMessage
from p2pcards.protocol.lobby import GENESIS_SHAPE
from p2pcards.protocol.rematch_genesis import (
    After,
    EveningRefused,
    FinishedMatch,
    NotTheMatchBefore,
    WrongRotation,
)
from p2pcards.protocol.schema import validate
from p2pcards.wiremap import WireMap, WireValue

#: A ``fill`` frame's body (its shape is checked when the frame is decoded).
FILL_SHAPE = frames.FRAME_SHAPES["fill"]


class SeatRefused(EveningRefused):
    """A newcomer refused a freed seat: none is free, the end box has closed, or
    its key is already at the table."""

    rule = "evening.seat"


class NotTheSeatTaken(EveningRefused):
    """A rematch's genesis that does not seat a newcomer as its host's fill said:
    another host, another place in the join order, or it names the newcomer as a
    player of the match before."""

    rule = "evening.newcomer"


@dataclass(frozen=True)
class Fill:
    """Who took a freed seat: the leaver's index ``player`` in the finished match's
    join order and the ``seat`` it sat at there, the new occupant's key and name,
    and whether it is one of the host's bots."""

    session: bytes
    final: bytes
    player: int
    seat: int
    public_key: bytes
    name: str
    bot: bool

    @classmethod
    def from_wire(cls, body: WireValue) -> Fill:
        """From a ``fill`` frame's body; raises MalformedMessage."""
        checked = validate(FILL_SHAPE, body, "fill")
        if checked["v"] != PROTOCOL_VERSION:
            raise MalformedMessage(f"a fill of protocol version {checked['v']}")
        return cls(checked["sid"], checked["final"], checked["from"], checked["seat"],
                   checked["key"], checked["name"], bool(checked["bot"]))

    def to_wire(self) -> WireMap:
        return {"v": PROTOCOL_VERSION, "sid": self.session, "final": self.final,
                "from": self.player, "seat": self.seat, "key": self.public_key,
                "name": self.name, "bot": int(self.bot)}

    def about(self, finished: FinishedMatch) -> bool:
        """Whether this fill is about ``finished`` (not another match's end box)."""
        return self.session == finished.session and self.final == finished.final


def fill_of(finished: FinishedMatch, player_keys: tuple[bytes, ...], player: int,
            public_key: bytes, name: str, bot: bool) -> Fill:
    """The fill of the seat player ``player`` freed (its seat from the finished seating)."""
    seat = finished.seats.index(player_keys[player])
    return Fill(finished.session, finished.final, player, seat, public_key, name, bot)


def check_newcomer(genesis_raw: bytes, host_key: bytes, mine: Fill) -> After:
    """A newcomer's check of the rematch's genesis before it signs anything.

    It has no record of the match before, so it checks what it can know: the
    genesis is signed by the host it dialed (``host_key``, the key its link
    proved) and names the match whose seat it was given (``after.sid`` and
    ``after.final`` as in its fill); it sits at its leaver's place in the join
    order and was no player of that match; the leaver's seat is not taken by a
    returning player; every other player of the genesis either sat in that match
    or is a newcomer, as many newcomers as seats whose player is gone (so the
    rotation gives every player a seat). Raises NotTheSeatTaken, NotTheMatchBefore,
    WrongRotation or BadSignature/MalformedMessage."""
    message = SignedMessage.parse(genesis_raw)
    body = validate(GENESIS_SHAPE, message.body)
    keys = [key for key, _name in body["players"]]
    if keys[0] != host_key:
        raise NotTheSeatTaken("the genesis is not the table of the host this seat was given at")
    try:
        message.verify(host_key)
    except BadSignature:
        raise NotTheSeatTaken("the genesis is not signed by the host this seat was given "
                              "at") from None
    if "after" not in body:
        raise NotTheMatchBefore("the genesis names no match before, but this seat was freed "
                                "at the end of one")
    after = After.from_wire(body["after"])
    if after.session != mine.session or after.final != mine.final:
        raise NotTheMatchBefore(f"the genesis follows session {after.session.hex()[:12]}, not "
                                f"{mine.session.hex()[:12]} whose seat was given here")
    if keys[mine.player] != mine.public_key:
        raise NotTheSeatTaken(f"the genesis does not put this newcomer at join place "
                              f"{mine.player}, its leaver's")
    if mine.public_key in after.seats:
        raise NotTheSeatTaken("the genesis names this newcomer as a player of the match before")
    if after.seats[mine.seat] in keys:
        raise WrongRotation(f"the player of seat {mine.seat}, whose seat was given here, "
                            f"is in the rematch")
    newcomers = sum(1 for key in keys if key not in after.seats)
    gone = sum(1 for key in after.seats if key not in keys)
    if newcomers != gone:
        raise WrongRotation(f"the genesis has {newcomers} newcomers for {gone} freed seats")
    return after
