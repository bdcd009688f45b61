"""Layer 4: moving the table's opaque messages between peers on a LAN.

Thin asyncio drivers of the sans-IO machines in :mod:`p2pcards.protocol`;
every module here, by what it is about:

Links
- ``framing``: length-prefixed frames over a byte stream (sans-IO).
- ``link``: the signed key exchange and sealed frames (sans-IO).
- ``connection``: ``connect``/``serve`` and the ``Connection`` API; ``admission``:
  the strangers' budget a server keeps; ``stream_transport``: frames over TCP;
  ``memory``: the same connections over in-process queues, with faults.
- ``sockets``: the one dual-stack listening socket, addresses as people write them.
- ``addresses``: which of this machine's addresses to announce, show and dial,
  and the race between them.
- ``redial``: one bounded backoff; ``stopping``: stopping a task from a clean-up path.
- ``errors``: the exceptions all of these raise; ``failing``: a table part's
  failure kept and said in one sentence.

Finding each other
- ``discovery``: advertising and browsing tables with zeroconf; ``table_record``:
  what a table's DNS-SD record says, read back defensively; ``mdns``: one
  responder per link, hearing only that link.
- ``direct_discovery``: players announcing their direct-link listeners.
- ``mesh``: the direct links between a table's players, beside the host's star.

The host
- ``host``: listening, the relay, saving, advertising.

A player's session (``peer``: :class:`~p2pcards.net.peer.PeerSession`)
- ``host_link``: its link to the host; ``seat_links``: all its paths;
  ``inbox``: the one queue its table task reads; ``seat_routing``: which rule
  hears each thing that arrives.
- ``seat_writing``: what it signs; ``seat_record``: its record on disk;
  ``seat_talk``: table talk; ``ahead``: cryptography made ahead of its turn;
  ``same_bytes``: one check of a message the seats of one process all receive.
- ``seat_view``: what its front end and caller are told; ``session_events``:
  the events, decisions and results it hands them; ``session_snapshot``: what
  a front end may read of it.
- ``resume``: its table rebuilt from its journal, and its record told again.
- ``end_box_link``: a joiner's end box carried to the host.
- ``watch``: a spectator's session.

Saved state
- ``storage``: the identity key and saved tables in the platform's own folders
  (XDG on Linux).
- ``journal``: one table's saved transcript and state; ``filelock``: its lock
  (flock or msvcrt); ``saved_tables``: the folder layout, read back.

Import from the submodules; this package imports nothing so that using one
piece (say, framing) does not pull in zeroconf.
"""
