"""Finding 6 of issue 20 as fixed schedules of the deterministic simulation: a
host that hands out no address and withholds one player's messages from another.

The simulation (``simulation.py``) starts every direct link up; here
:class:`AnnouncedLinks` starts them all down, as a table whose host hands out
no address does, and brings a pair's link up only when one of them hears the
other's signed announcement (a path beside the relay, as zeroconf is) and the
sans-IO :class:`~p2pcards.protocol.announce.AnnouncementBook` accepts it. The
hostile host (coalition {0}) never hands player 2 anything player 1 signed and
puts forged, foreign and stale announcements beside the genuine ones. With the
announcements the seating completes and nobody is named; without them player 2
is cut off from player 1 for good, cannot write, and the honest others name it
by their clocks: the judge finds property (a) broken (the harm finding 6 describes).
"""

from __future__ import annotations

from typing import Any

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.announce import (
    AnnouncementBook,
    AnnouncementIgnored,
    SignedAnnouncement,
    seal_announcement,
)
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import Identity

from .judge import judge
from .links import RELAY, Node
from .schedule import PLAYERS, SEATED, Schedule
from .simulation import Simulation

WRITER, VICTIM = 1, 2
SEEDS = range(40)


def _signer(frame: bytes) -> int | None:
    try:
        decoded = frames.decode(frame)
        return SignedMessage.parse(decoded.body).player if decoded.kind in ("msg", "alert") else None
    except ProtocolError:
        return None


class AnnouncedLinks(Simulation):
    """Direct links only through checked announcements; the host withholds
    ``WRITER``'s messages from ``VICTIM`` (see the module docstring).

    The judge still counts every direct link the schedule allows as a path: on a
    LAN the pair could always dial each other, so a host that hands out no
    address must not keep them apart (the announcements are how they learn to)."""

    def __init__(self, schedule: Schedule, *, announce: bool) -> None:
        super().__init__(schedule)
        for link in [link for link in self.links.up if link[0] == "direct"]:
            self.links.cut(link)  # no address from the host: nobody has dialled anyone
        for peer in self.peers:
            self.relink(peer)
        session = self.peers[0].table.session
        keys = [identity.public_key for identity in self.identities]
        self.books = {p: AnnouncementBook(session, keys, p) for p in range(PLAYERS)}
        self.linked_at: dict[tuple[Any, ...], float] = {}
        self.ignored: list[tuple[int, str]] = []
        listeners = [p for p in range(PLAYERS) if p not in schedule.no_direct]
        heard: list[tuple[int, bytes]] = []
        if announce:
            for p in listeners:
                raw = seal_announcement(self.identities[p], session=session, counter=1000 + p,
                                        addrs=[[f"10.0.0.{p + 1}", 40000 + p]]).raw
                heard += [(q, raw) for q in listeners if q != p]
        # What the hostile host (or anyone on the LAN) puts beside them.
        stranger = Identity.generate("stranger")
        stale = seal_announcement(self.identities[WRITER], session=session, counter=1,
                                  addrs=[["10.0.0.99", 1]]).raw
        forged = seal_announcement(self.identities[0], session=session, counter=5000,
                                   addrs=[["10.0.0.99", 1]])
        mischief = [
            forged.raw.replace(self.identities[0].public_key, keys[WRITER]),  # not its key
            seal_announcement(stranger, session=session, counter=1, addrs=[["10.0.0.99", 1]]).raw,
            seal_announcement(self.identities[WRITER], session=bytes(32), counter=9000,
                              addrs=[["10.0.0.99", 1]]).raw,
        ]
        for q in listeners:
            for raw in mischief:
                self.at(self.rng.uniform(0, 0.05), lambda q=q, raw=raw: self._heard(q, raw))  # type: ignore[misc]
        for q, raw in heard:
            when = self.rng.uniform(0.05, 0.3)
            self.at(when, lambda q=q, raw=raw: self._heard(q, raw))  # type: ignore[misc]
            if SignedAnnouncement.parse(raw).public_key == keys[WRITER]:
                # An older announcement of the writer's, replayed just after the genuine one.
                self.at(when + 0.01, lambda q=q: self._heard(q, stale))  # type: ignore[misc]

    def _heard(self, player: int, raw: bytes) -> None:
        """``player`` hears an announcement; if it checks out, it dials and links."""
        try:
            found = self.books[player].check(raw)
        except AnnouncementIgnored as ignored:
            self.ignored.append((player, ignored.rule))
            return
        if found is None:
            return
        link = ("direct", min(player, found.player), max(player, found.player))
        if link not in self.links.up:
            self.linked_at.setdefault(link, self.now)
            self.restore(link)

    def send(self, src: Node, dst: Node, frame: bytes) -> None:
        if src == RELAY and dst == VICTIM and _signer(frame) == WRITER:
            return  # the host never hands the victim anything the writer signed
        super().send(src, dst, frame)


def _schedule(seed: int) -> Schedule:
    return Schedule(seed=seed, coalition=frozenset({0}), no_direct=frozenset({0}), max_delay=0.05,
                    stop_at=SEATED)  # the seating: where the links first matter


@pytest.mark.parametrize("seed", SEEDS)
def test_a_host_that_hands_out_no_address_keeps_no_pair_apart(seed: int) -> None:
    sim = AnnouncedLinks(_schedule(seed), announce=True).run()
    outcome = judge(sim)
    assert not outcome.failures, outcome.failures
    honest = [p for p in sim.peers if p.honest]
    assert all(p.verdict is None and p.table.next_position >= SEATED for p in honest), \
        {p.player: (p.verdict, p.table.next_position) for p in honest}
    # The victim linked to the writer, or to the third player who echoes the writer.
    assert any(VICTIM in link[1:] for link in sim.linked_at), sim.linked_at  # type: ignore[attr-defined]
    rules = {rule for _, rule in sim.ignored}  # type: ignore[attr-defined]
    assert rules == {"announce.signature", "announce.unseated", "announce.session",
                     "announce.stale"}, rules


@pytest.mark.parametrize("seed", SEEDS[:5])
def test_without_announcements_the_same_host_gets_the_victim_named(seed: int) -> None:
    """The contrast: no announcement, no direct link; player 2 never gets player 1's
    messages, cannot write, and the honest others name it by their clocks: the judge
    finds property (a) broken, the harm finding 6 describes."""
    sim = AnnouncedLinks(_schedule(seed), announce=False).run()
    outcome = judge(sim)
    assert sim.linked_at == {}  # type: ignore[attr-defined]
    assert sim.peers[VICTIM].table.next_position < SEATED
    assert outcome.failures, "the contrast must show the harm"
    assert all(f.startswith("(a)") for f in outcome.failures), outcome.failures
    assert any(f"named honest player {VICTIM}" in f for f in outcome.failures), outcome.failures
