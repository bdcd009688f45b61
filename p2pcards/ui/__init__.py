"""Layer 5: the front ends a person plays through. None decides a rule: each
reads a seat's events and view (:mod:`p2pcards.net.session_events`,
:mod:`p2pcards.net.session_snapshot`) and sends choices back.

- ``plain``: the line-based front end (one typed command at a time);
  ``tui``: the full-screen table (prompt_toolkit).
- ``text``: the table as text for any front end, with one module per game
  (``text_bluff``, ``text_topper``) and what both share (``text_common``);
  ``text_events``: events in words; ``text_summary``: what a deal or a hand
  came to; ``text_checks``: the cryptographic checks folded for the log;
  ``text_verify``: an offline check in words (``p2pcards verify``);
  ``text_end_box``: the end box in words, and the time left while it waits.
- ``replay_steps``: a saved table checked once, as the steps ``p2pcards replay`` moves
  through (its screens: ``tui.replay_screen``, ``web.replay``).
- ``evening_tally``: the matches this program played, table after table.
- ``console``: output that never fails on an encoding, and the ASCII look.
"""
