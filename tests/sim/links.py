"""The simulated match's in-memory links: which are up, and what a frame on one meets.

Each player has a link to the host's relay (``("host", p)``) and, unless the
schedule leaves it without, a direct link to each other player
(``("direct", p, q)``, p < q). A frame on a link that is cut before it arrives
is lost: cutting or restoring a link moves its *epoch* on, and a frame arrives
only in the epoch it was sent in. Honest links behave like TCP: a frame never
arrives before the one sent before it on the same link (:meth:`Links.in_order`);
what the coalition's frames meet instead is ``adversary.py``'s.

:func:`joined` is the judge's question about the links: could two players reach
each other at a moment by a path of honest nodes and up links?
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION

from .schedule import PLAYERS

RELAY = "relay"
#: A node of the link graph: a player (its seat number is its index) or the relay.
Node = int | str
#: ("host", p), or ("direct", p, q) with p < q.
Link = tuple[Any, ...]
#: (start, end, link): the link is down from start to end.
Cut = tuple[float, float, Link]


def hello(name: str, have: int, sid: bytes, watch: int = 0) -> bytes:
    """The first frame on a link to the relay: who asks, from which position."""
    return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": name, "sid": sid,
                                   "have": have, "bot": 0, "watch": watch})


def every_link(no_direct: Collection[int]) -> set[Link]:
    """Every host link, and the direct links of the players that have them."""
    return {("host", p) for p in range(PLAYERS)} | {
        ("direct", p, q) for p in range(PLAYERS) for q in range(p + 1, PLAYERS)
        if p not in no_direct and q not in no_direct}


def link_of(src: Node, dst: Node) -> Link:
    """The link a frame from ``src`` to ``dst`` travels on."""
    if src == RELAY:
        return ("host", dst)
    if dst == RELAY:
        return ("host", src)
    assert isinstance(src, int) and isinstance(dst, int)
    return ("direct", min(src, dst), max(src, dst))


def ends(link: Link) -> tuple[Node, ...]:
    return (link[1], RELAY) if link[0] == "host" else (link[1], link[2])


class Links:
    """Which links are up now, each one's epoch, and the honest links' order."""

    def __init__(self, no_direct: Collection[int]) -> None:
        self.up: set[Link] = every_link(no_direct)
        self._epoch: dict[Link, int] = {}
        self._last: dict[tuple[Node, Node], float] = {}

    def epoch(self, link: Link) -> int:
        return self._epoch.get(link, 0)

    def cut(self, link: Link) -> bool:
        """Take ``link`` down (what is on it is lost); False if it was down."""
        if link not in self.up:
            return False
        self.up.discard(link)
        self._epoch[link] = self.epoch(link) + 1
        return True

    def restore(self, link: Link) -> bool:
        """Bring ``link`` up again; False if it was up."""
        if link in self.up:
            return False
        self.up.add(link)
        self._epoch[link] = self.epoch(link) + 1
        return True

    def carries(self, link: Link, epoch: int) -> bool:
        """Whether a frame sent on ``link`` in ``epoch`` is still on it (no cut since)."""
        return link in self.up and self.epoch(link) == epoch

    def direct_up(self, p: int, q: int) -> bool:
        return p != q and ("direct", min(p, q), max(p, q)) in self.up

    def direct(self, player: int) -> set[int]:
        """The players ``player`` has a direct link up to."""
        return {q for q in range(PLAYERS) if self.direct_up(player, q)}

    def in_order(self, src: Node, dst: Node, earliest: float) -> float:
        """When a frame from ``src`` to ``dst`` due at ``earliest`` arrives: never
        before the frame sent before it, as TCP delivers."""
        when = max(earliest, self._last.get((src, dst), 0.0))
        self._last[(src, dst)] = when
        return when


def joined(a: int, b: int, t: float, cuts: Iterable[Cut], no_direct: Collection[int],
           honest: Collection[int]) -> bool:
    """Whether a path of honest nodes and links up at ``t`` joined players ``a`` and
    ``b`` (the relay is a node when the host, player 0, is honest)."""
    down = {link for s, e, link in cuts if s <= t < e}
    nodes: set[Node] = set(honest) | ({RELAY} if 0 in honest else set())
    edges = [link for link in every_link(no_direct) - down
             if all(n in nodes for n in ends(link))]
    reached: set[Node] = {a}
    frontier: list[Node] = [a]
    while frontier:
        node = frontier.pop()
        for link in edges:
            here = ends(link)
            if node in here:
                for other in here:
                    if other not in reached:
                        reached.add(other)
                        frontier.append(other)
    return b in reached
