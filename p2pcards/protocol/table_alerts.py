"""Which reports may move blame: signed notices from outside the chain, and evidence.

A ``leave`` ends the table naming its signer; another peer's verdict is
advisory unless its evidence proves, against what this peer holds, a fault
this peer can check itself (then this peer ends the table with its own
verdict). Evidence for positions not reached yet is kept (bounded) and
checked again as the chain grows.

:class:`Alerts` owns what this rule remembers (the notices read here, the
evidence kept). It reads the transcript (:class:`~.table_chain.Chain`, whose
rules say what a message proves by where it falls) and says what it found as
a :class:`~.table_records.Fault` for the table to end with: it never changes
the table itself.
"""

from __future__ import annotations

from p2pcards.protocol.envelope import SignedMessage, SignedNotice
from p2pcards.protocol.errors import BrokenChain, MalformedMessage, PlayerLeft, RemoteProtocolError
from p2pcards.protocol.events import Reported
from p2pcards.protocol.table_chain import Chain
from p2pcards.protocol.table_deck import DeckInFlight
from p2pcards.protocol.table_records import Fault
from p2pcards.protocol.verdict import Verdict

#: Evidence messages kept from alerts about positions not reached yet (bounded:
#: only correctly signed ones count, and an honest table needs one or two).
MAX_PENDING_EVIDENCE = 16


class Alerts:
    """The notices this peer has read, and the evidence it keeps."""

    def __init__(self) -> None:
        self._seen: set[bytes] = set()
        #: Evidence of alerts about positions this peer had not reached when they
        #: came: judged again as each is reached (see :meth:`pending_proof`).
        self._pending: list[bytes] = []

    def read(self, notice: SignedNotice, chain: Chain, writer: int | None,
             decks: DeckInFlight | None) -> Fault | Reported | None:
        """Another player's notice, its signature checked, at a table in play
        (``writer``: who may write next; ``decks``: its deck in flight, once seated).

        Reports cannot move blame. A ``leave`` is its signer's own signed word:
        the fault that ends the table naming it. An alert whose evidence proves
        a fault that this peer can check itself (two messages by one player for
        one position; a message signed for a position another player wrote in
        this same history, or for the next position by a player who may not
        write it; a bad share in a ``shares`` message held here) is this peer's
        OWN provable fault naming the proven cheater. Anything else (a deadline,
        a fork, an unreachable host, any claim without checkable proof, a report
        naming this peer) is advisory: a :class:`Reported` event, no change of
        state, nobody named. None: a notice read before says nothing new.
        """
        if notice.digest in self._seen:
            return None
        if notice.type == "leave":
            _check_leave(notice, chain)
        self._seen.add(notice.digest)
        if notice.type == "leave":
            return Fault(PlayerLeft("left the table", player=notice.player,
                                    position=chain.next_position), (notice.raw,))
        reported = Verdict.from_wire(notice.body)
        proven = chain.proof_in(reported.evidence, writer)
        if proven is None and decks is not None:
            proven = decks.bad_share_in(reported.evidence)
        if proven is not None:
            return proven
        self._keep_pending(chain, reported.evidence)
        return Reported(reporter=notice.player, rule=reported.rule, players=reported.players,
                        position=reported.position, detail=reported.detail)

    def _keep_pending(self, chain: Chain, evidence: tuple[bytes, ...]) -> None:
        """Keep (a few) correctly signed evidence messages for positions this peer
        has not accepted yet: once it holds that position, another version by the
        same signer is an equivocation it can prove (a writer that sent one player
        a bad message and the others a good one is named by all, not only by the
        player who ended first)."""
        for raw in evidence:
            if len(self._pending) >= MAX_PENDING_EVIDENCE:
                return
            try:
                msg = SignedMessage.parse(raw)
            except RemoteProtocolError:
                continue
            if msg.position >= chain.next_position and chain.verifies(msg) and raw not in self._pending:
                self._pending.append(raw)

    def pending_proof(self, chain: Chain, writer: int | None) -> Fault | None:
        """Evidence kept from an alert that came before this peer reached its
        position, judged now that it has: the fault it proves (an equivocation, a
        message out of turn), or None."""
        n = chain.next_position
        reached = [raw for raw in self._pending if SignedMessage.parse(raw).position <= n]
        if not reached:
            return None
        proven = chain.proof_in(reached, writer)
        if proven is None:  # what is for the next position may still prove something later
            self._pending = [raw for raw in self._pending if SignedMessage.parse(raw).position >= n]
        return proven


def _check_leave(notice: SignedNotice, chain: Chain) -> None:
    """A leave is acted on only if ``verify`` would endorse the verdict it makes
    (PROTOCOL.md §8): an empty body, and dated in this history where this peer's
    record reaches (one dated later is the leaver being ahead: still its word)."""
    if notice.body != {}:
        raise MalformedMessage("a leave notice has a body (a leave's body is the empty map)",
                               position=notice.position)
    if not chain.dated_here(notice):
        raise BrokenChain(f"a leave notice dated at position {notice.position} of another "
                          f"history", position=notice.position)
