"""Layer 1: the referees of Bluff and Topper. Pure, deterministic, no I/O.

Both engines keep one contract, written as a type in :mod:`.contract`
(``Engine``), which the protocol layer, the bots and the front ends rely on:

* ``State.new(config, first)`` starts a match; ``first`` is the first
  leader (Bluff) or first dealer (Topper), chosen outside by a joint draw.
  ``State.position(config, first=, hands=, standings=, deals=, ...)``
  builds a match partway through from chosen facts, for tests and analysis.
* ``state.phase`` is a ``Phase`` enum member; ``state.to_act`` is the one
  seat whose action is awaited, or ``None`` while a deal is awaited or the
  match is over; ``state.awaiting_deal`` says a shuffle and deal must come.
* ``state.deal(faces)`` deals a fresh deck: ``faces[p]`` is the card at slot
  ``p`` of the shuffled deck or ``None`` where this engine does not know it;
  slot ``p`` goes to seat ``p % 4``; a seat's view keeps only its own faces.
  Cards are named by *slot* from then on, so an engine that does not know a
  face still referees every public rule. ``faces_for_hands(hands, deck)``
  writes a scripted deal.
* ``state.apply(action)`` either changes the state and returns a tuple of
  events (what happened, as data), or raises a :class:`RuleError` subclass
  naming the seat and the rule, leaving the state untouched;
  ``state.check(action)`` raises exactly what ``apply`` would.
* ``state.legal_actions()`` yields the actions of ``to_act`` lazily (which
  must know its own hand); ``state.options()`` summarises them;
  ``state.forced_action()`` is the action the rules leave no choice about.
* ``state.hand(seat)`` is that seat's cards as ``Held(slot, face)`` pairs;
  ``state.hand_sizes`` counts every seat's; ``state.public()`` is what every
  seat knows, as one named record.
* ``state.outcome`` is ``None`` until the match ends, then an ``Outcome``
  (``termination``, ``winners``, ``standings``).
* ``state.view(seat)`` is a copy redacted to what ``seat`` may know: its own
  slots' faces and the faces the rules revealed; nothing else. A peer's
  referee is its own view, kept up to date by ``apply``. ``view.determinize
  (rng)`` draws a complete state consistent with everything the seat knows.

Where to read:

* :mod:`.contract` — the ``Engine`` protocol, the unions of both games'
  types it returns (``GameAction``, ``GameEvent``, ...), and, named again for
  its readers, what both games share.
* :mod:`.shared` — what both games share, below them: ``Held``,
  ``Termination``, ``Outcome``, ``HandDealt``, ``MatchEnded``,
  ``faces_for_hands``.
* :mod:`.games` — one ``Game`` object per game naming its engine, config,
  phases, actions, events, options, public record and outcome;
  ``game_of(thing)`` and ``by_name(name)`` answer which game.
* :mod:`.errors` — the refusals both games raise; each game's
  ``errors`` module adds its own.
* :mod:`.referee` — the read-only facts every state inherits.
* :mod:`.seats` — how many sit at a table (``SEATS``), for every layer.
* :mod:`.bluff` and :mod:`.topper` — the two games, one package each, laid
  out alike: ``model`` (config, phases, records), ``actions``, ``events``
  (and the outcome), ``errors``, ``facts`` (a state's fields, read-only),
  ``engine`` (the state class and its moves); Topper adds ``order`` (card
  order) and ``determinize``. Each package's ``__init__`` exports the
  game's vocabulary (``__all__``).
"""
