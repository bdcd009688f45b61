"""Run the real ``p2pcards`` command as a player that lies in alerts.

    python tests/system/hostile_peer.py forge-deadline join --connect 127.0.0.1:PORT ...
    python tests/system/hostile_peer.py echo-notices join --connect 127.0.0.1:PORT ...
    python tests/system/hostile_peer.py direct-only join --connect 127.0.0.1:PORT ...
    python tests/system/hostile_peer.py fake-shuffles join --connect 127.0.0.1:PORT ...
    python tests/system/hostile_peer.py end-box-churn join --connect 127.0.0.1:PORT ...
    P2PCARDS_TEST_CHOOSE_WHEN=FILE python tests/system/hostile_peer.py late-again join ...

The player plays honestly (its own bot, its own saved table) but, right after
its first game action, signs an ``alert`` saying that the next writer missed
its deadline, seconds into that writer's turn (issue 10, finding 1). Every
honest process must take it as an unconfirmed report and play on. With
``echo-notices`` it instead hands every notice it receives back to the host
as a transcript message of the notice's signer (finding 2, against an honest
relay). With ``direct-only`` it never sends the host a message it signed,
only its direct peers (issue 20, finding 1). With ``fake-shuffles`` it sends
each of its shuffles first as 1000 copies with a broken signature on every
direct link (issue 20, finding 2). With ``end-box-churn`` (issue 37) it plays its
match honestly, then at the end box signs again, closes its end-box link and
connects and disconnects about twice a second (``CHURN`` times, from 127.0.0.2:
the admission limit of its own address), each time a ``presence`` frame to every
end box, then signs leave. With ``late-again`` it chooses again at the end box
only once the file named by ``P2PCARDS_TEST_CHOOSE_WHEN`` exists (the host waits
for it). Only for tests: it patches this process and nowhere else.
"""

from __future__ import annotations

import asyncio
import os
import runpy
import sys
from pathlib import Path
from typing import Any

from p2pcards.net import peer, seat_routing
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedMessage, seal_notice
from p2pcards.protocol.table_records import Stage
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


_original_on_alert = seat_routing.SeatRouting.alert


async def _on_alert_then_echo(self: Any, raw: bytes, source: Any) -> None:
    await _original_on_alert(self, raw, source)
    if await self.links.to_host(frames.encode("msg", raw)):
        print(f"echoed a notice as a message: {raw.hex()}", file=sys.stderr, flush=True)


_original_to_host = peer.PeerSession._to_host


def _own_message(self: Any, frame: bytes) -> bool:
    """Whether ``frame`` carries a transcript message this player signed (not the genesis)."""
    table = self.table
    if table is None or table.me_player is None:
        return False
    decoded = frames.decode(frame)
    if decoded.kind != "msg":
        return False
    msg = SignedMessage.parse(decoded.body)
    return msg.position > 0 and msg.player == table.me_player


async def _to_host_but_not_mine(self: Any, frame: bytes) -> bool:
    if _own_message(self, frame):
        print(f"withheld from the host: {frame.hex()[:16]}", file=sys.stderr, flush=True)
        return True  # as if it went out
    return await _original_to_host(self, frame)


async def _publish_after_fake_shuffles(self: Any, written: Any) -> None:
    msg = SignedMessage.parse(written.raw)
    if msg.type == "shuffle" and self.mesh is not None:
        # Copies of the real shuffle with a broken signature, on every direct link
        # first: each costs an honest peer a signature check, and nothing more.
        for n in range(FAKE_SHUFFLES):
            fake = bytearray(written.raw)
            fake[-1 - n % 32] ^= 1 + n // 32 % 255
            for player in self.mesh.linked():
                self.mesh.send(player, frames.encode("msg", bytes(fake)))
        table = self.table
        seat = table.my_seat
        # The next shuffler (the one that speculates on this deck), if a shuffle follows.
        following = (table.match.player_at_seat[seat + 1]
                     if seat + 1 < len(table.players) else None)
        linked = sorted(self.mesh.linked())
        print(f"sent {FAKE_SHUFFLES} fake shuffles at {msg.position} to {linked}, "
              f"next shuffler {following}", file=sys.stderr, flush=True)
        await asyncio.sleep(FAKE_LEAD)  # the fakes arrive well before the real one
    await _original_publish(self, written)


#: Broken copies of each of its shuffles the ``fake-shuffles`` player sends first
#: (each started a speculative shuffle before the cheap checks came first).
FAKE_SHUFFLES = 1000
#: Seconds between the fakes and the real shuffle (well within the liar's own deadline).
FAKE_LEAD = 1.0


#: Links the ``end-box-churn`` player opens and closes at the end box, and how often.
CHURN = 140
CHURN_EVERY = 0.5
#: Its own address on loopback: the admission limit is per address.
CHURN_FROM = "127.0.0.2"


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


async def _end_box_churn(args: Any, front: Any, identity: Any, host: str, port: int,
                         fingerprint: Any, result: Any, *rest: Any) -> Any:
    """Issue 37's player at the end box: again, the churn, then leave."""
    from p2pcards.net.connection import connect
    from p2pcards.net.errors import NetError
    from p2pcards.protocol.again import AGAIN, LEAVE, sign_choice
    from p2pcards.protocol.envelope import PROTOCOL_VERSION
    table = front.session.table
    finished = table.finished()
    me, have = table.me_player, table.next_position
    hello = frames.encode("hello", {"v": PROTOCOL_VERSION, "name": identity.name, "sid": finished.session,
                                    "have": have, "bot": 0})

    async def link(choice: str | None, stay: float = 0.0) -> None:
        connection = await connect(host, port, identity, fingerprint, timeout=10,
                                   local_host=CHURN_FROM)
        try:
            await connection.send(hello)
            await asyncio.wait_for(connection.recv(), 10)  # seated: presence changed
            if choice is not None:
                raw = sign_choice(identity, finished, me, choice).raw
                await connection.send(frames.encode("again", raw))
            if stay:
                await asyncio.sleep(stay)
        finally:
            connection.close()
    await link(AGAIN, stay=1.0)
    _say("signed again")
    loop = asyncio.get_running_loop()
    made = failed = 0
    for _ in range(CHURN):
        began = loop.time()
        try:
            await link(None, stay=CHURN_EVERY / 4)
            made += 1
        except (OSError, NetError, TimeoutError):
            failed += 1
        await asyncio.sleep(max(0.0, CHURN_EVERY - (loop.time() - began)))
    _say(f"churned {made} links ({failed} refused)")
    await link(LEAVE, stay=2.0)
    _say("signed leave")
    return result


async def _again_when_told(args: Any, front: Any, number: int) -> bool:
    """Choose again once the test's file exists (bounded: 600 s, then leave)."""
    marker = Path(os.environ["P2PCARDS_TEST_CHOOSE_WHEN"])
    for _ in range(6000):
        if marker.exists():
            _say("choosing again now")
            return True
        await asyncio.sleep(0.1)
    return False


def main() -> None:
    mode, *args = sys.argv[1:]
    if mode == "forge-deadline":
        peer.PeerSession._publish = _publish_then_lie  # type: ignore[method-assign]
    elif mode == "echo-notices":
        seat_routing.SeatRouting.alert = _on_alert_then_echo  # type: ignore[method-assign]
    elif mode == "direct-only":
        peer.PeerSession._to_host = _to_host_but_not_mine  # type: ignore[method-assign]
    elif mode == "fake-shuffles":
        peer.PeerSession._publish = _publish_after_fake_shuffles  # type: ignore[method-assign]
    elif mode == "end-box-churn":
        from p2pcards.evening import rematches
        rematches.join_evening = _end_box_churn  # type: ignore[assignment]
    elif mode == "late-again":
        from p2pcards.evening import rematches
        rematches.wants_again = _again_when_told
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    sys.argv = ["p2pcards", *args]
    runpy.run_module("p2pcards", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
