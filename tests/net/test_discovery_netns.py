"""Discovery across a simulated LAN: advertised in one namespace, found and dialled from another."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable

from tests.support.netns import SimulatedLan

ADVERTISE = textwrap.dedent(
    """
    import asyncio
    from p2pcards.net.connection import serve
    from p2pcards.net.discovery import TableAdvertiser
    from p2pcards.protocol.identity import Identity

    async def answer(conn):
        await conn.send(b"pong:" + await conn.recv())

    async def main():
        me = Identity.generate("host")
        server = await serve("0.0.0.0", 0, me, answer)
        advertiser = TableAdvertiser(table_name="Across the LAN", game="bluff", port=server.port,
                                     fingerprint=me.fingerprint, free_seats=3, version=1,
                                     public_key=me.public_key)
        await advertiser.start()
        print(me.fingerprint, server.port, flush=True)
        await asyncio.sleep(60)  # killed by the test; bounded if the test dies

    asyncio.run(main())
    """
)

BROWSE_AND_DIAL = textwrap.dedent(
    """
    import asyncio, json
    from p2pcards.net.connection import connect
    from p2pcards.net.discovery import browse_tables
    from p2pcards.protocol.identity import Identity

    async def main():
        for _ in range(5):
            mine = [t for t in await browse_tables(timeout=1.0) if t.fingerprint == FINGERPRINT]
            if mine:
                break
        table = mine[0]
        conn = await connect(table.host, table.port, Identity.generate("guest"),
                             expected_peer=table.fingerprint, timeout=5)
        await conn.send(b"ping")
        reply = await asyncio.wait_for(conn.recv(), 5)
        await conn.aclose()
        print(json.dumps({"name": table.name, "host": table.host, "port": table.port,
                          "free": table.free_seats, "reply": reply.decode()}))

    asyncio.run(main())
    """
)


def test_table_advertised_in_one_namespace_is_found_and_dialled_from_another(
    simulated_lan_factory: Callable[[int], SimulatedLan],
) -> None:
    lan = simulated_lan_factory(2)
    host = lan.spawn_python(0, ADVERTISE)
    ready = lan.read_line(host).split()
    assert len(ready) == 2, "the advertiser did not start"
    fingerprint, port = ready[0], int(ready[1])

    guest = lan.run_python(1, f"FINGERPRINT = {fingerprint!r}\n" + BROWSE_AND_DIAL, timeout=30)
    assert guest.returncode == 0, guest.stderr
    found = json.loads(guest.stdout)
    assert found == {"name": "Across the LAN", "host": lan.addresses[0], "port": port, "free": 3,
                     "reply": "pong:ping"}
