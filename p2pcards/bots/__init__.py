"""Layer 5: the bots. A bot is given one seat's view, never the full state,
and answers with an action; it imports only the cards, the rules and the
error root (``tests/test_layers.py``).

- ``base``: what a bot is, and the local full-information match loop the
  arena and the rules tests play; ``registry``: every bot by game, kind and
  level (the one place the arena, the tables and the command line ask), with
  their names alone in ``kinds`` (what the command line's parser reads);
  ``agent``: a bot as a table agent, reseeded per decision so that a restart
  chooses the same; ``pace``: its think time at a table with people.
- Bluff: ``bluff`` (random, heuristic), ``bluff_counter`` (every decision from
  the table's count), ``bluff_search`` (every option weighed in chips,
  opponents learned); what they share: ``bluff_belief`` (the count one seat
  can make), ``bluff_record`` (the deal's rounds, passes and stakes),
  ``bluff_model`` (each opponent's bluffs and calls), ``bluff_reply`` (the
  chance a claim is called).
- Topper: ``topper`` (random, heuristic), ``topper_counter`` (counting, the
  benchmark a search must beat), ``topper_search`` (Information Set MCTS
  over imagined deals) with ``topper_playout`` (its fast play-out).
- ``coach``: what the ``normal`` search bot would do in a seat's place, and why;
  ``coach_bluff``: its words at a Bluff table.
"""
