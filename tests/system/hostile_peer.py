"""Run the real ``p2pcards`` command as a player that lies in alerts.

    python tests/system/hostile_peer.py forge-deadline join --connect 127.0.0.1:PORT ...
    python tests/system/hostile_peer.py echo-notices join --connect 127.0.0.1:PORT ...

The player plays honestly (its own bot, its own saved table) but, right after
its first game action, signs an ``alert`` saying that the next writer missed
its deadline, seconds into that writer's turn (issue 10, finding 1). Every
honest process must take it as an unconfirmed report and play on. With
``echo-notices`` it instead hands every notice it receives back to the host
as a transcript message of the notice's signer (finding 2, against an honest
relay). Only for tests: it patches the session in this process and nowhere
else.
"""

from __future__ import annotations

import runpy
import sys
from typing import Any

from p2pcards.net import peer
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedMessage, seal_notice
from p2pcards.protocol.table import Stage
from p2pcards.protocol.verdict import Verdict

_original_publish = peer.PeerSession._publish
_forged: list[bytes] = []


async def _publish_then_lie(self: Any, written: Any) -> None:
    await _original_publish(self, written)
    table = self.table
    if _forged or table is None or table.stage is not Stage.PLAY:
        return
    if SignedMessage.parse(written.raw).type in ("commit", "open", "shuffle", "shares"):
        return
    writer = table.writer
    if writer is None or writer == table.me_player:
        return
    lie = Verdict("deadline", (writer,), table.next_position,
                  f"player {writer} did not write before the deadline")
    alert = seal_notice(self.identity, session=table.session, position=table.next_position,
                        prev=table.head, player=table.me_player, type="alert",
                        body=lie.to_wire()).raw
    _forged.append(alert)
    await self._send_notice(alert)  # to the host and on every direct link


_original_on_alert = peer.PeerSession._on_alert


async def _on_alert_then_echo(self: Any, raw: bytes, source: Any) -> None:
    await _original_on_alert(self, raw, source)
    if await self._to_host(frames.encode("msg", raw)):
        print(f"echoed a notice as a message: {raw.hex()}", file=sys.stderr, flush=True)


def main() -> None:
    mode, *args = sys.argv[1:]
    if mode == "forge-deadline":
        peer.PeerSession._publish = _publish_then_lie  # type: ignore[method-assign]
    elif mode == "echo-notices":
        peer.PeerSession._on_alert = _on_alert_then_echo  # type: ignore[method-assign]
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    sys.argv = ["p2pcards", *args]
    runpy.run_module("p2pcards", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
