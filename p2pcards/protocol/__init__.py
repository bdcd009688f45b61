"""Layer 3: the protocol as sans-IO state machines. Messages and ``now`` go in, what
to send and what happened come out; no socket, thread or clock (the network's
drivers, :mod:`p2pcards.net`, and the seeded simulation run the same rules).
Every module here, by what it is about:

The wire
- ``wire``: strict msgpack; ``schema``: shapes checked field by field;
  ``frames``: the frames of a link; ``catalogue``: every frame and message as data.
- ``envelope``: signed transcript messages and notices; ``identity``: a peer's keys.
- ``errors``: the error vocabulary and whose fault each is.

The table
- ``table``: one match, lobby to last trick, with each part's state and rules in
  ``table_chain`` (the transcript), ``table_keys`` (the key set-up), ``table_match``
  and ``table_deck`` (the match, the deck in flight), ``table_ahead`` (the work
  made while the players think), ``table_moves`` (the messages of play),
  ``table_alerts`` (reports that may move blame), ``table_member`` (this peer's
  own key); ``table_records``, ``table_errors``, ``table_settings``: its records,
  refusals and genesis settings.
- ``dealing``: one deck's shuffles, deal and reveals; ``game_wire``: each game's
  referee on the wire; ``events``: what the table tells its front end.
- ``verdict``: how a broken table ends; ``evidence``: a saved verdict checked.
- ``session``: the rules of blame (clock, paths, echo, sync), with its outputs
  in ``session_outputs``; ``away``: a host back after its table ended.
- ``talk``: table talk, signed beside the game.

The host
- ``lobby``: who sits before the start, and the genesis; ``limits``: spectators.
- ``relay``: the host's switchboard, with ``relay_chain`` (what it stores),
  ``relay_links`` (what it knows of a link), ``relay_outputs`` and
  ``relay_end_box``; ``announce``: where players listen for direct links.

The evening (PROTOCOL.md §14)
- ``again``: the end box's signed choice; ``end_box``, ``end_box_host``: a
  joiner's and the host's end box as rules; ``seat_fill``: a freed seat and its
  newcomer; ``rematch_genesis``: the match a rematch names and its seats.

Offline
- ``verify``: a saved table checked as a third party would; ``verify_rematches``:
  an evening's matches, each the rematch of the one before; ``file_shapes``: the
  files a table leaves on disk.
"""
