"""The evening coalition's moves (``tests/sim/evening.py``): on its members' links, the
choices it signs (equivocated, replayed from other matches, forged for honest seats,
flooded about other ends), its churn at the end box and its late leave, a leave some
end boxes never hear, and a hostile host's writes straight to the end boxes."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from p2pcards.protocol import frames, wire
from p2pcards.protocol.again import AGAIN, AGAIN_TAG, LEAVE, Choice, sign_choice
from p2pcards.protocol.end_box import EndBox
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import FinishedMatch

from .clock import Clock

if TYPE_CHECKING:
    from .evening import EveningPlan

#: Choices a flooding member signs about other ends of the session.
FLOOD = 8
#: Links a churning member opens and closes (about twice a second, as in issue 37).
CHURN = 125
CHURN_EVERY = 0.5
#: Seconds the host lingers before its finished table closes (its last frames go).
LINGER = 2.0


def _forged_choice(signer: Identity, finished: FinishedMatch, player: int, choice: str) -> bytes:
    """A choice for ``player``'s seat signed with another key (``sign_choice``'s
    payload, the wrong signature)."""
    genuine = Choice.parse(sign_choice(signer, finished, player, choice).raw)
    return wire.pack([genuine.payload, signer.sign(AGAIN_TAG + genuine.payload)])


class Coalition(Clock):
    """The coalition's side of an :class:`~tests.sim.evening.Evening` (a mixin on the
    evening's clock: the evening's links and end boxes are the evening's own)."""

    plan: EveningPlan
    identities: list[Identity]
    finished: FinishedMatch
    honest: list[int]
    boxes: dict[int, EndBox]
    box_link: dict[int, int | None]
    blackout: dict[int, float]

    def connect(self, player: int) -> int | None:
        raise NotImplementedError

    def cut(self, number: int) -> None:
        raise NotImplementedError

    def send_to_host(self, number: int, frame: bytes) -> None:
        raise NotImplementedError

    def _to_link(self, number: int, frame: bytes) -> None:
        raise NotImplementedError

    def _choose(self, player: int) -> None:
        raise NotImplementedError

    def _member_frames(self, player: int) -> list[bytes]:
        """What a coalition member sends on its end-box link at once, in order."""
        identity, plan = self.identities[player], self.plan
        own = sign_choice(identity, self.finished, player, plan.choices[player]).raw
        other = LEAVE if plan.choices[player] == AGAIN else AGAIN
        out: list[bytes] = []
        if "flood" in plan.attacks:
            for n in range(FLOOD):
                end = FinishedMatch(self.finished.session, hashlib.sha256(b"end %d" % n).digest(),
                                    self.finished.seats)
                out.append(sign_choice(identity, end, player, AGAIN).raw)
        for victim in self.honest if player != 0 else ():  # a host writes them itself
            if "replay" in plan.attacks:
                out += self._replays(victim)
            if "forge" in plan.attacks:
                out.append(_forged_choice(identity, self.finished, victim, LEAVE))
        out.append(own)
        if "equivocate" in plan.attacks:
            out.append(sign_choice(identity, self.finished, player, other).raw)
        return out

    def _replays(self, victim: int) -> list[bytes]:
        """Choices ``victim`` (honest) signed in other matches: another session, and
        another end of this one: each the other way from its choice here."""
        other = LEAVE if self.plan.choices[victim] == AGAIN else AGAIN
        before = FinishedMatch(hashlib.sha256(b"the match before").digest(),
                               hashlib.sha256(b"its end").digest(), self.finished.seats)
        fork = FinishedMatch(self.finished.session, hashlib.sha256(b"another end").digest(),
                             self.finished.seats)
        identity = self.identities[victim]
        return [sign_choice(identity, before, victim, other).raw,
                sign_choice(identity, fork, victim, other).raw]

    def _member(self, player: int, start: float) -> None:
        """A coalition member's end box: its frames, then its churn and its late leave."""
        def begin() -> None:
            number = self.connect(player)
            if number is None:
                return
            for frame in self._member_frames(player):
                self.send_to_host(number, frames.encode("again", frame))
            if "churn" in self.plan.attacks or "late_leave" in self.plan.attacks:
                self.at(self.now + 0.5, lambda: self.cut(number))
                self.at(self.now + 1.0, lambda: self._churn(player, CHURN))
        self.at(start, begin)

    def _churn(self, player: int, left: int) -> None:
        if left <= 0 or "churn" not in self.plan.attacks:
            if "late_leave" in self.plan.attacks:
                if self.plan.partial is not None:
                    self._black_out(self.plan.partial)
                number = self.connect(player)
                if number is not None:
                    leave = sign_choice(self.identities[player], self.finished, player, LEAVE).raw
                    self.send_to_host(number, frames.encode("again", leave))
            return
        number = self.connect(player)
        if number is None:
            return
        self.at(self.now + CHURN_EVERY / 2, lambda: self.cut(number))
        self.at(self.now + CHURN_EVERY, lambda: self._churn(player, left - 1))

    def _black_out(self, chooser: int) -> None:
        """Every honest end box but ``chooser``'s loses its link now and cannot dial
        again until the finished table is gone; ``chooser`` chooses a moment later (the
        late leave reaches its end box only)."""
        for player in sorted(self.boxes):
            if player == chooser:
                continue
            self.blackout[player] = self.now + LINGER + 5.0
            number = self.box_link.get(player)
            if number is not None:
                self.cut(number)
        if chooser in self.boxes:
            self.at(self.now + 0.3, lambda: self._choose(chooser))

    def _hostile_writes(self) -> None:
        """A hostile host writes replays and forgeries straight to the end boxes."""
        for victim in self.honest:
            for raw in [*self._replays(victim),
                        _forged_choice(self.identities[0], self.finished, victim, LEAVE)]:
                for number in self.box_link.values():
                    if number is not None:
                        self._to_link(number, frames.encode("again", raw))
