"""Layer 1: the referees of Bluff and Topper. Pure, deterministic, no I/O.

Both engines keep one contract, which the protocol layer, the bots and the
front ends rely on:

* ``State.new(config, first)`` starts a match; ``first`` is the first
  leader (Bluff) or first dealer (Topper), chosen outside by a joint draw.
* ``state.phase`` is a ``Phase`` enum member; ``state.to_act`` is the one
  seat whose action is awaited, or ``None`` while a deal is awaited or the
  match is over; ``state.awaiting_deal`` says a shuffle and deal must come.
* ``state.deal(faces)`` deals a fresh deck: ``faces[p]`` is the card at slot
  ``p`` of the shuffled deck or ``None`` where this engine does not know it;
  slot ``p`` goes to seat ``p % 4``. Cards are named by *slot* from then on,
  so an engine that does not know a face still referees every public rule.
* ``state.apply(action)`` either changes the state and returns a tuple of
  events (what happened, as data), or raises a :class:`RuleError` subclass
  naming the seat and the rule, leaving the state untouched.
* ``state.legal_actions()`` lists the actions of ``to_act`` (which must know
  its own hand); ``state.check(action)`` raises exactly what ``apply`` would.
* ``state.outcome`` is ``None`` until the match ends, then the result as data.
* ``state.view(seat)`` is a copy redacted to what ``seat`` may know: its own
  slots' faces and the faces the rules revealed; nothing else. A peer's
  referee is its own view, kept up to date by ``apply``. ``view.determinize
  (rng)`` draws a complete state consistent with everything the seat knows.
"""
