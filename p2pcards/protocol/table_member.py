"""This peer as one of the table's players, and the one rule of its key.

Only one process may sign with a player's key at a table: two would sign two
versions of a position, an equivocation that names that player. So
:class:`Member` signs this peer's messages and notices, and when one signed
with its key arrives that this process did not make, another process plays
the seat: this one stops, signing nothing more and naming nobody.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from p2pcards.protocol.envelope import (
    KeptMessage,
    SignedMessage,
    SignedNotice,
    seal,
    seal_notice,
)
from p2pcards.protocol.errors import SeatPlayedElsewhere
from p2pcards.protocol.identity import Signer
from p2pcards.protocol.table_errors import TableClosed
from p2pcards.protocol.table_records import SessionSecrets
from p2pcards.wiremap import WireMap


class Member:
    """This peer as a player: its identity, player index and secrets (an observer
    has none)."""

    def __init__(self, identity: Signer, player: int, secrets: SessionSecrets) -> None:
        self.identity = identity
        self.player = player
        self.secrets = secrets
        #: Set once a message or notice signed with this key arrived that this
        #: process did not make (see the module's docstring).
        self.elsewhere: SeatPlayedElsewhere | None = None
        #: Digests of the notices this peer signed (a leave, its alert).
        self._notices: set[bytes] = set()

    def seal(self, mtype: str, body: WireMap, *, session: bytes, position: int,
             prev: bytes) -> SignedMessage:
        """This peer's transcript message for ``position``."""
        self._check_signing()
        return seal(self.identity, session=session, position=position, prev=prev,
                    player=self.player, type=mtype, body=body)

    def seal_notice(self, kind: str, body: WireMap, *, session: bytes, position: int,
                    prev: bytes) -> SignedNotice:
        """This peer's notice (a ``leave``, an ``alert``), dated at ``position``."""
        self._check_signing()
        notice = seal_notice(self.identity, session=session, position=position, prev=prev,
                             player=self.player, type=kind, body=body)
        self._notices.add(notice.digest)
        return notice

    def _check_signing(self) -> None:
        if self.elsewhere is not None:
            raise TableClosed("another process is playing this seat: this one signs nothing")

    def check_own(self, msg: SignedMessage, held: Sequence[KeptMessage]) -> None:
        """A message signed with this key must be one this process wrote, coming
        back (held at its position); otherwise this one stops (raises
        :class:`SeatPlayedElsewhere`)."""
        if msg.position < len(held) and held[msg.position].digest == msg.digest:
            return
        self._stop(f"a {msg.type!r} message for position {msg.position} is signed with its "
                   f"key, and this process neither wrote nor saved it", msg.position)

    def check_own_notice(self, notice: SignedNotice) -> None:
        """Likewise for a notice signed with this key: one this process signed."""
        if notice.digest not in self._notices:
            self._stop(f"a {notice.type!r} notice is signed with its key, and this process "
                       f"did not sign it", notice.position)

    def _stop(self, what: str, position: int) -> NoReturn:
        self.elsewhere = SeatPlayedElsewhere(
            f"another process is playing this seat: {what}; this one stops, signing "
            f"nothing and naming nobody", position=position)
        raise self.elsewhere
