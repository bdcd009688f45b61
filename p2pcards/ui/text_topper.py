"""Topper as text: the table one seat sees, the commands it may type, and their parsing.

Computed from a seat's view only (its own cards and the cards played), so
no other seat's unplayed card can appear. Once trump is named the hand is
sorted as it plays: trumps first, from the Big Jack down, the Little Jack
among them and not in its printed suit.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.cards import Card, Suit
from p2pcards.rules.errors import CardMismatch, NotYourCard, RuleError
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Phase, Play, TopperState, errors
from p2pcards.rules.topper.order import big_jack, effective_suit, little_jack, trick_power
from p2pcards.ui.text_common import (
    ALWAYS,
    CommandError,
    HandCard,
    card_text,
    clean,
    ending_words,
    explain_common,
    find_card,
    fit,
    other_commands,
    parse_count,
    parses,
    plural,
    require_turn,
    seat_name,
    tokens_of,
    viewing_seat,
    who,
    wrap,
)

_PASS = {"pass", "p"}
_BID = {"bid", "b"}
_TRUMP = {"trump", "t"}
_PLAY = {"play", "pl"}
_PHASE_WORDS = {Phase.BIDDING: "the bidding", Phase.TRUMP: "naming trump",
                Phase.PLAY: "the play of the cards"}


def suit_word(suit: Suit) -> str:
    return suit.name.lower()


def labelled_hand(view: TopperState, me: int) -> list[HandCard]:
    """``me``'s unplayed cards as they play, labelled 1, 2, ... in the order shown.

    Before trump: by suit, high to low. After: trumps first (Big Jack,
    Little Jack, A, K, Q, 10, 9), then the other suits.
    """
    trump = view.trump
    held = list(view.hand(me))

    def order(pair: tuple[int, object]) -> tuple[int, int, int]:
        slot, card = pair
        if card is None:
            return (9, 0, slot)
        suit = effective_suit(card, trump)  # type: ignore[arg-type]
        group = 0 if trump is not None and suit == trump else 1 + int(suit)
        return (group, -trick_power(card, trump, suit), slot)  # type: ignore[arg-type]

    held.sort(key=order)
    out = []
    for i, (slot, card) in enumerate(held):
        note = ""
        if trump is not None and card is not None:
            if card == big_jack(trump):
                note = "Big Jack"
            elif card == little_jack(trump):
                note = "Little Jack"
            elif effective_suit(card, trump) == trump:
                note = "trump"
        out.append(HandCard(i + 1, slot, card, note))
    return out


# --- rendering ------------------------------------------------------------------

def render(view: TopperState, names: Sequence[str], me: int | None,
           symbols: bool = False) -> str:
    """The Topper table as ``me`` sees it, in at most 80 columns."""
    cfg = view.config
    lines = [f"TOPPER - hand {view.hand_number} ({view.hands_scored} scored), "
             f"first to {cfg.target_score} wins. Dealer: {who(names, view.dealer, me)}."]
    lines.append(f"{'Seat':>4}  {'Player':<22} {'Score':>5}  {'Bid':>4}  {'Tricks':>6}  "
                 f"{'Cards':>5}  Notes")
    bids = dict(view.bids)
    sizes = view.hand_sizes
    for seat in range(cfg.seats):
        name = seat_name(names, seat) + (" (you)" if seat == me else "")
        bid = ("pass" if bids[seat] is None else str(bids[seat])) if seat in bids else "-"
        notes = []
        if view.bidder == seat and view.phase is not Phase.BIDDING:
            notes.append("bidder")
        voids = sorted(view.voids(seat))
        if voids:
            notes.append("no " + ", ".join(suit_word(s) for s in voids))
        if view.to_act == seat:
            notes.append("to act")
        lines.append(f"{seat:>4}  {name:<22} {view.scores[seat]:>5}  {bid:>4}  "
                     f"{view.tricks_taken[seat]:>6}  {sizes[seat]:>5}  {', '.join(notes)}".rstrip())
    lines.extend(_public_lines(view, names, me, symbols))
    if me is not None and 0 <= me < cfg.seats and view.phase is not Phase.MATCH_OVER:
        hand = labelled_hand(view, me)
        if hand:
            lines.append(f"Your hand ({plural(len(hand), 'card')}):")
            lines.extend(wrap([entry.text(symbols) for entry in hand]))
    lines.append(turn_line(view, names, me))
    return fit(lines)


def _public_lines(view: TopperState, names: Sequence[str], me: int | None,
                  symbols: bool) -> list[str]:
    lines = []
    trump = view.trump
    if view.bidder is not None and view.phase is not Phase.BIDDING:
        lines.append(f"Bidder: {who(names, view.bidder, me)}, bid {view.high_bid}.")
    elif view.high_bid:
        lines.append(f"Highest bid so far: {view.high_bid} by "
                     f"{who(names, view.bidder, me, start=False)}.")
    if trump is not None:
        lines.append(f"Trump: {suit_word(trump)} (Big Jack {card_text(big_jack(trump), symbols)}, "
                     f"Little Jack {card_text(little_jack(trump), symbols)}).")
    trick = view.current_trick
    done = view.tricks
    if trick:
        plays = ", ".join(f"{who(names, s, me, start=False)} {card_text(c, symbols)}"
                          for s, c in trick)
        lines.append(f"Trick {len(done) + 1} so far: {plays}.")
    if done:
        last = done[-1]
        plays = ", ".join(f"{who(names, s, me, start=False)} {card_text(c, symbols)}"
                          for s, c in last.plays)
        lines.append(f"Last trick ({last.trick + 1}): {plays}; won by "
                     f"{who(names, last.winner, me, start=False)}.")
    return lines


def turn_line(view: TopperState, names: Sequence[str], me: int | None) -> str:
    """Whose turn it is, in words."""
    outcome = view.outcome
    if outcome is not None:
        winners = " and ".join(who(names, s, me, start=False) for s in outcome.winners)
        return f"Match over: {ending_words(outcome.termination)}; won by {winners}."
    if view.phase is Phase.DEAL:
        deals = "deal" if view.dealer == me else "deals"
        return f"Waiting for the next deal; {who(names, view.dealer, me, start=False)} {deals}."
    seat = view.to_act
    if seat == me:
        if view.phase is Phase.BIDDING:
            high = view.high_bid
            return f"Your turn to bid ({'highest bid ' + str(high) if high else 'no bid yet'})."
        if view.phase is Phase.TRUMP:
            return "Your turn: you won the bidding, name trump."
        led = view.led_suit
        if led is None:
            return "Your turn to lead."
        return f"Your turn: follow {suit_word(led)} if you can."
    doing = {Phase.BIDDING: "to bid", Phase.TRUMP: "to name trump", Phase.PLAY: "to play"}
    return f"Waiting for {who(names, seat, me, start=False)} {doing.get(view.phase, 'to act')}."


# --- the commands of the moment -------------------------------------------------------

def options_help(view: TopperState, pauses: int = 0) -> str:
    """The commands the viewer may type now, with their syntax (``pauses``: the table's
    pauses left to the viewer, for ``away``)."""
    me = viewing_seat(view)
    if view.outcome is not None or view.to_act is None or view.to_act != me:
        return f"Nothing to choose now. Commands: {ALWAYS}."
    lines = ["Your choices:"]
    cfg = view.config
    if view.phase is Phase.BIDDING:
        low = max((view.high_bid or 0) + 1, cfg.min_bid)
        lines.append("  pass (p)          do not bid this hand")
        if low <= cfg.max_bid:
            span = str(low) if low == cfg.max_bid else f"{low} to {cfg.max_bid}"
            lines.append(f"  bid <n> (b <n>)   promise n tricks with your trump: n is {span}")
    elif view.phase is Phase.TRUMP:
        lines.append("  trump <suit> (t <suit>)   clubs, diamonds, hearts or spades "
                     "(c, d, h, s)")
    elif view.phase is Phase.PLAY:
        playable = _playable(view, me)
        lines.append("  play <card> (pl, or just the card)   by label or face, e.g. play 2, "
                     "play QH")
        lines.extend(wrap(["You can play:"] + [e.text() for e in playable], indent="      "))
    lines.extend(other_commands(pauses))
    return "\n".join(lines)


def _playable(view: TopperState, me: int) -> list[HandCard]:
    hand = labelled_hand(view, me)
    try:
        opts = view.options()
    except LookupError:
        return hand
    legal = set(opts.playable if opts is not None else ())
    return [entry for entry in hand if entry.slot in legal]


# --- parsing ----------------------------------------------------------------------------

def parse_command(text: str, view: TopperState) -> object:
    """The legal Topper action ``text`` asks for, or :class:`CommandError` saying what is wrong."""
    words = tokens_of(text)
    if not words:
        raise CommandError("type a command (help lists them)")
    me = viewing_seat(view)
    require_turn(view, me)
    word, rest = words[0], words[1:]
    phase = view.phase
    if word in _PASS:
        _only_in(phase, Phase.BIDDING, "pass")
        _no_more(rest, word)
        action: object = PassBid(me)
    elif word in _BID:
        _only_in(phase, Phase.BIDDING, "bid")
        if len(rest) != 1:
            raise CommandError("say how many tricks you bid, e.g. bid 3")
        action = Bid(me, parse_count(rest[0], "a bid"))
    elif word in _TRUMP or (phase is Phase.TRUMP and not rest and parses(Suit.parse, word)):
        _only_in(phase, Phase.TRUMP, "name trump")
        suit_words = rest if word in _TRUMP else [word]
        if len(suit_words) != 1:
            raise CommandError("name one suit, e.g. trump hearts (or t h)")
        action = NameTrump(me, _suit(suit_words[0]))
    elif word in _PLAY or (phase is Phase.PLAY and not rest and _is_card(word)):
        _only_in(phase, Phase.PLAY, "play a card")
        card_words = rest if word in _PLAY else [word]
        if len(card_words) != 1:
            raise CommandError("name one card to play, e.g. play 2 or play QH")
        entry = find_card(card_words[0], labelled_hand(view, me))
        if entry.card is None:
            raise CommandError("this table does not hold that card's face")
        action = Play(me, entry.slot, entry.card)
    else:
        raise CommandError(f"unknown command {word[:20]!r}: type help for the commands")
    _check(view, action)
    return action


def _only_in(phase: Phase, wanted: Phase, verb: str) -> None:
    if phase is not wanted:
        raise CommandError(f"you cannot {verb} now: this is {_PHASE_WORDS.get(phase, phase.value)}")


def _no_more(rest: Sequence[str], word: str) -> None:
    if rest:
        raise CommandError(f"{word!r} takes nothing after it (got {' '.join(rest)[:20]!r})")


def _is_card(word: str) -> bool:
    return (word.isascii() and word.isdigit()) or parses(Card.parse, word)


def _suit(word: str) -> Suit:
    try:
        return Suit.parse(word)
    except ValueError:
        raise CommandError(f"{clean(word, 12)!r} is not a suit: use clubs, diamonds, hearts "
                           f"or spades (c, d, h, s)") from None


def _check(view: TopperState, action: object) -> None:
    try:
        view.check(action)
    except RuleError as error:
        raise CommandError(explain(view, action, error)) from None


def explain(view: TopperState, action: object, error: RuleError) -> str:
    """A refusal of the referee as a sentence for the person who typed the action."""
    cfg = view.config
    if isinstance(error, errors.BidOutOfRange):
        return (f"a bid is {cfg.min_bid} to {cfg.max_bid} tricks, "
                f"not {getattr(action, 'tricks', '?')}")
    if isinstance(error, errors.BidNotHigher):
        return (f"bid {getattr(action, 'tricks', '?')} does not top the highest bid, "
                f"{view.high_bid} by seat {view.bidder}")
    if isinstance(error, errors.FollowSuit):
        me = viewing_seat(view)
        options = ", ".join(e.text() for e in _playable(view, me))
        return f"you must follow {suit_word(error.led)}: play one of {options}"
    if isinstance(error, errors.Renege):
        return (f"you showed you hold no {suit_word(error.suit)} in trick {error.trick + 1}; "
                f"playing one now would prove a renege")
    if isinstance(error, (NotYourCard, CardMismatch, errors.CardNotInDeck)):
        return "that card is not in your hand"
    if isinstance(error, errors.NotTheBidder):
        return f"only seat {view.bidder}, the highest bidder, names trump"
    return explain_common(view, error)


def rules_summary() -> str:
    """The rules of Topper in a few lines, for ``help``."""
    return "\n".join([
        "TOPPER: four players, 24 cards (9 to A), six each; every trick is a point.",
        "Bidding: one round from the dealer's left; pass or bid more tricks than the",
        "highest bid. The bidder names trump and leads. Trump ranks Big Jack (Jack of",
        "trump), Little Jack (other Jack of the same colour, a trump for every purpose),",
        "then A K Q 10 9. Follow the suit led if you can. Highest trump wins the trick,",
        "else the highest card of the suit led. A bidder short of his bid scores minus",
        "his bid. First to 21 at the end of a hand wins (ties: the bidder, else play on).",
    ])
