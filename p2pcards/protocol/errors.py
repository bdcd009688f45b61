"""The protocol's error vocabulary, and whose fault each error is.

Two families, as in h11: :class:`LocalProtocolError` means *this* peer (its
user or its code) asked for something the protocol forbids, and nothing was
sent; :class:`RemoteProtocolError` means a message from outside broke a rule.
A remote error carries ``rule`` (a stable identifier that goes into verdicts),
``player`` (the index of the player blamed, or ``None`` when no one can be
blamed, e.g. a forged signature) and ``position`` (the transcript position).
"""

from __future__ import annotations

from typing import ClassVar

from p2pcards.errors import P2PCardsError


class ProtocolError(P2PCardsError):
    """Base of every protocol error."""

    rule: ClassVar[str] = "protocol"


class LocalProtocolError(ProtocolError):
    """This peer tried to do something the protocol does not allow now."""

    rule = "local"


class SeatPlayedElsewhere(LocalProtocolError):
    """A message signed by this peer's own key that this peer did not write nor
    save: another process (a second ``join`` after a crash, a copied identity)
    is playing this seat. The table stops at once and names nobody; going on
    would make this seat sign a second version of a position (equivocation).
    A local error in h11's sense: the fault is on this side (this person's own
    software), never another peer's. ``position`` is the message's position."""

    rule = "seat.elsewhere"

    def __init__(self, detail: str, *, position: int) -> None:
        self.detail = detail
        self.position = position
        super().__init__(f"position {position}: {detail} [{self.rule}]")


class RemoteProtocolError(ProtocolError):
    """A received message broke a rule of the protocol."""

    rule = "remote"

    def __init__(self, detail: str, *, player: int | None = None,
                 position: int | None = None) -> None:
        self.detail = detail
        self.player = player
        self.position = position
        where = "" if position is None else f" at position {position}"
        who = "" if player is None else f"player {player}"
        super().__init__(f"{who}{where}: {detail} [{self.rule}]".lstrip(": "))


class MalformedWire(RemoteProtocolError):
    """Bytes that are not one well-formed msgpack object within the limits."""

    rule = "wire.malformed"


class MalformedMessage(RemoteProtocolError):
    """A decoded message of the wrong shape: a missing, extra or ill-typed field."""

    rule = "message.malformed"


class BadSignature(RemoteProtocolError):
    """A signature that does not verify under the key of the player it names.

    Nobody can be blamed: anyone can produce such bytes. The message is dropped.
    """

    rule = "message.signature"


class WrongSession(RemoteProtocolError):
    """A message signed for another table (a replay from another session)."""

    rule = "message.session"


class BrokenChain(RemoteProtocolError):
    """A message whose ``prev`` is not the hash of this peer's last message:
    its writer saw another history (a fork by the relaying host, or a lie)."""

    rule = "chain.fork"


class OutOfTurn(RemoteProtocolError):
    """A signed message from a player who may not write at that position."""

    rule = "turn"


class Equivocation(RemoteProtocolError):
    """Two different signed messages from one player for one position."""

    rule = "chain.equivocation"


class BadProof(RemoteProtocolError):
    """A cryptographic proof, share, key or point that does not check."""

    rule = "crypto"


class RuleViolation(RemoteProtocolError):
    """A well-formed, signed, in-turn message whose action the game rules forbid."""

    rule = "rules"

    def __init__(self, detail: str, *, game_rule: str, player: int | None = None,
                 position: int | None = None) -> None:
        self.game_rule = game_rule
        super().__init__(detail, player=player, position=position)


class NoPauseLeft(RemoteProtocolError):
    """A player wrote ``away`` with none of the table's pauses left to him."""

    rule = "table.away"


class HintNotAllowed(RemoteProtocolError):
    """A player wrote ``hint`` where the table allows none: its genesis does not
    allow hints, or the message before it is already a ``hint`` (one per move)."""

    rule = "table.hint"


class DeadlineMissed(RemoteProtocolError):
    """The player expected to write did not do so before the deadline."""

    rule = "deadline"


class PlayerLeft(RemoteProtocolError):
    """A player announced, with a signed notice, that it leaves the table."""

    rule = "left"


class RematchUnopened(RemoteProtocolError):
    """A rematch whose writer due had written nothing in it when its time ran out: it
    never opened the rematch (it may have refused the genesis, as the signed choices
    its end box holds told it to: PROTOCOL.md §14). The rematch ends naming nobody."""

    rule = "evening.unopened"


class VerdictRefused(ProtocolError):
    """A saved verdict that its evidence does not support: ``verify`` refuses it.

    Not a fault of any message in the chain (so not remote): the verdict file
    beside a transcript claims what its evidence does not show. ``rule`` says
    which check failed; the message says what is wrong and whom it concerns."""

    rule = "verdict.refused"


class EvidenceMissing(VerdictRefused):
    """A verdict whose rule rests on signed evidence carries none (or the wrong count)."""

    rule = "verdict.evidence.missing"


class EvidenceNotBreaking(VerdictRefused):
    """Evidence that, fed after the transcript, breaks no rule or another rule,
    or blames other players, or another position, than the verdict names."""

    rule = "verdict.evidence.unproven"


class LeaveNotProven(VerdictRefused):
    """A ``left`` verdict whose evidence is not the named player's own leave
    notice: not a notice, signed in the message domain or by another key, for
    another session or history, malformed, or naming someone other than its signer."""

    rule = "verdict.leave"


class DeadlineInconsistent(VerdictRefused):
    """A ``deadline`` verdict that cannot be this peer's clock at this transcript:
    evidence attached, not one player, not the writer due (nor the host), or a
    position other than the transcript's end."""

    rule = "verdict.deadline"


class UnopenedInconsistent(VerdictRefused):
    """An ``evening.unopened`` verdict that cannot be this transcript's: not a rematch
    (no ``after``), a player named or evidence attached, a position other than the
    transcript's end, or a writer due there that wrote a message in it already."""

    rule = "verdict.unopened"


class VerdictAfterEnd(VerdictRefused):
    """A verdict saved with a transcript whose match ended normally."""

    rule = "verdict.after-end"
