"""Layer 7: the evening, the same players' matches one after another at one address.

- ``rematches``: one evening, match after match: the match, its end box, each
  player's choice (again or leave), and the rematch on the same port;
- ``host_side``: the host's end box (the choices counted, the seats of players away
  freed, a freed seat filled) and the rematch's table;
- ``joiner_side``: a joiner's end box on its screen, and its seat at the rematch;
- ``standings``: the evening's matches, wins and totals, counted only from records
  that verify.

The evening's rules are sans-IO in the protocol (:mod:`p2pcards.protocol.again`,
``end_box``, ``end_box_host``, ``relay_end_box``, ``seat_fill``, ``rematch_genesis``,
``verify_rematches``), a joiner's links to the end box the network's
(:mod:`p2pcards.net.end_box_link`), and the end box in words the UI's
(:mod:`p2pcards.ui.text_end_box`, and the evening so far at one screen,
:mod:`p2pcards.ui.evening_tally`); here they meet a table and a screen.
"""
