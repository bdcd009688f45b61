"""Bluff as text: the table one seat sees, the commands it may type, and their parsing.

Everything is computed from a seat's view (:class:`BluffState` redacted by
``view``), so a face appears here only if that view holds it: the seat's own
cards and discards a call revealed.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.cards import Rank
from p2pcards.rules.bluff import BluffState, Challenge, Claim, Discard, Pass, Phase, Reveal, errors
from p2pcards.rules.errors import NotYourCard, RuleError
from p2pcards.ui.text_common import (
    ALWAYS,
    CommandError,
    HandCard,
    card_text,
    cards_text,
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
_CALL = {"bluff", "bluff!", "challenge", "call", "c"}
_DISCARD = {"discard", "d"}
_REVEAL = {"reveal", "r"}
_RANK_WORDS = "2..10, J, Q, K or A"


def labelled_hand(view: BluffState, me: int) -> list[HandCard]:
    """``me``'s cards sorted by rank then suit, labelled 1, 2, ... in that order."""
    held = sorted(view.hand(me), key=lambda h: (h.face is None, h.face.code if h.face else 0,
                                                 h.slot))
    return [HandCard(i + 1, h.slot, h.face) for i, h in enumerate(held)]


# --- rendering ------------------------------------------------------------------

def render(view: BluffState, names: Sequence[str], me: int | None,
           symbols: bool = False) -> str:
    """The Bluff table as ``me`` sees it, in at most 80 columns."""
    lines = [_headline(view, names)]
    lines.append(f"{'Seat':>4}  {'Player':<22} {'Chips':>6}  {'Cards':>5}  Notes")
    for seat in range(4):
        lines.append(_seat_row(view, names, me, seat))
    lines.extend(_table_lines(view, names, me, symbols))
    if me is not None and 0 <= me < 4 and view.phase not in (Phase.DEAL, Phase.MATCH_OVER):
        hand = labelled_hand(view, me)
        if hand:
            lines.append(f"Your hand ({plural(len(hand), 'card')}):")
            lines.extend(wrap([entry.text(symbols) for entry in hand]))
        else:
            lines.append("Your hand is empty.")
    lines.append(turn_line(view, names, me))
    return fit(lines)


def _headline(view: BluffState, names: Sequence[str]) -> str:
    cfg = view.config
    cap = "no deal cap" if cfg.deal_cap is None else f"deal cap {cfg.deal_cap}"
    return (f"BLUFF - deal {view.deal_number}, {view.deals_won} won; table price "
            f"{cfg.table_price}, pass {cfg.pass_price}, {cap}.")


def _seat_row(view: BluffState, names: Sequence[str], me: int | None, seat: int) -> str:
    name = seat_name(names, seat) + (" (you)" if seat == me else "")
    notes = []
    if view.out[seat]:
        cards = "-"
        notes.append("out")
    else:
        cards = str(view.hand_sizes[seat]) if view.phase is not Phase.DEAL else "-"
    if view.discarder == seat and view.table_stake:
        notes.append(f"stake {view.table_stake} on the table")
    if view.to_act == seat:
        notes.append("to act")
    if view.phase is Phase.LEAD and view.leader == seat:
        notes.append("leads")
    return f"{seat:>4}  {name:<22} {view.stacks[seat]:>6}  {cards:>5}  {', '.join(notes)}".rstrip()


def _table_lines(view: BluffState, names: Sequence[str], me: int | None,
                 symbols: bool) -> list[str]:
    lines = []
    rank = view.named_rank.label if view.named_rank is not None else "none yet"
    stake = view.round_stake or "-"
    lines.append(f"Safe box: {view.safe_box}.  Stake on the table: {view.table_stake or 'none'}."
                 f"  Round stake: {stake}.")
    lines.append(f"Named rank: {rank}.  Pile: {plural(len(view.pile), 'card')} face down.")
    claim = view.last_claim
    if claim is not None:
        shown_honest = " Shown honest: it cannot be called again." if claim.revealed else ""
        lines.append(f"Last claim: {who(names, claim.seat, me)} discarded "
                     f"{plural(claim.count, 'card')} as {claim.rank.label}, stake "
                     f"{claim.stake}.{shown_honest}")
    shown = _last_revealed(view.claims)
    if shown is not None:
        verdict = "honest" if shown.honest else "a bluff"
        lines.append(f"Last call showed {who(names, shown.seat, me, start=False)}'s "
                     f"{plural(shown.count, 'card')} claimed as {shown.rank.label}: "
                     f"{cards_text(shown.faces or (), symbols)} ({verdict}).")
    return lines


def _last_revealed(claims: Sequence[Claim]) -> Claim | None:
    for claim in reversed(claims):
        if claim.revealed:
            return claim
    return None


def turn_line(view: BluffState, names: Sequence[str], me: int | None) -> str:
    """Whose turn it is, in words."""
    if view.outcome is not None:
        winners = " and ".join(who(names, s, me, start=False) for s in view.outcome.winners)
        return f"Match over: {ending_words(view.outcome.termination)}; won by {winners}."
    if view.phase is Phase.DEAL:
        leads = "lead" if view.leader == me else "leads"
        return (f"Waiting for the next deal; {who(names, view.leader, me, start=False)} "
                f"{leads} it.")
    seat = view.to_act
    if seat == me:
        if view.phase is Phase.REVEAL:
            return "Your discard was called: it must be revealed."
        return "Your turn: you lead this round." if view.phase is Phase.LEAD else "Your turn."
    doing = {Phase.LEAD: "to lead", Phase.RESPOND: "to act", Phase.REVEAL: "to reveal"}
    return f"Waiting for {who(names, seat, me, start=False)} {doing.get(view.phase, 'to act')}."


# --- the commands of the moment -----------------------------------------------------

def options_help(view: BluffState, pauses: int = 0) -> str:
    """The commands the viewer may type now, with their syntax (``pauses``: the table's
    pauses left to the viewer, for ``away``)."""
    me = viewing_seat(view)
    opts = view.options()
    if opts is None or opts.seat != me:
        return f"Nothing to choose now. Commands: {ALWAYS}."
    lines = ["Your choices:"]
    if opts.must_reveal:
        lines.append("  reveal (r)               show your called discard (the rules require it)")
    if opts.can_pass:
        lines.append(f"  pass (p)                 pay {view.config.pass_price} chips "
                     f"into the safe box")
    claim = view.last_claim
    if opts.can_challenge and claim is not None:
        lines.append(f"  challenge (c, bluff)     call \"Bluff!\": seat {claim.seat}'s "
                     f"{plural(claim.count, 'card')} claimed as {claim.rank.label}")
    if opts.can_discard:
        top = min(opts.max_discard, len(opts.hand))
        stake = _stake_range(opts.min_stake, opts.max_stake)
        if opts.must_lead:
            lines.append("  discard <cards> as <rank> [stake <n>]   (d)   e.g. d 1 2 as Q")
            lines.append(f"      {_up_to(top)}, any rank {_RANK_WORDS}, {stake}")
        else:
            lines.append(f"  discard <cards> [stake <n>]   (d)   e.g. d 1 2, claimed as "
                         f"{opts.rank.label}")  # type: ignore[union-attr]
            lines.append(f"      {_up_to(top)}, {stake}")
        lines.append("      cards by label (1 4 7) or face (QH 10D)")
    elif not opts.must_reveal and opts.hand:
        lines.append(f"  (no discard: you have {opts.max_stake} chips, the stake is at least "
                     f"{opts.min_stake})")
    lines.extend(other_commands(pauses))
    return "\n".join(lines)


def _stake_range(low: int, high: int) -> str:
    if low == high:
        return f"stake {low}"
    return f"stake {low} to {high} (default {low})"


# --- parsing --------------------------------------------------------------------------

def parse_command(text: str, view: BluffState) -> object:
    """The legal Bluff action ``text`` asks for, or :class:`CommandError` saying what is wrong."""
    words = tokens_of(text)
    if not words:
        raise CommandError("type a command (help lists them)")
    me = viewing_seat(view)
    require_turn(view, me)
    word, rest = words[0], words[1:]
    if view.phase is Phase.REVEAL:
        if word not in _REVEAL:
            raise CommandError("your discard was called: type reveal to show it")
        action: object = _reveal(view, me)
    elif word in _PASS:
        _no_more(rest, word)
        action = Pass(me)
    elif word in _CALL:
        _no_more(rest, word)
        action = Challenge(me)
    elif word in _DISCARD:
        action = _discard(view, me, rest)
    elif word in _REVEAL:
        raise CommandError("nothing of yours was called: there is nothing to reveal")
    else:
        raise CommandError(f"unknown command {word[:20]!r}: type help for the commands")
    _check(view, action)
    return action


def _no_more(rest: Sequence[str], word: str) -> None:
    if rest:
        raise CommandError(f"{word!r} takes nothing after it (got {' '.join(rest)[:20]!r})")


def _reveal(view: BluffState, me: int) -> Reveal:
    opts = view.options()
    faces = tuple(view.face(slot) for slot in (opts.reveal_slots if opts else ()))
    if not faces or any(face is None for face in faces):
        raise CommandError("this table does not hold the faces of your called discard")
    return Reveal(me, faces)  # type: ignore[arg-type]


def _discard(view: BluffState, me: int, words: Sequence[str]) -> Discard:
    """``<cards> [as <rank>] [stake <n>]``, in any order.

    ``as`` is also the Ace of spades: the rank clause is the last ``as``
    followed by a rank, and an ``as`` that cannot start one is that card.
    """
    hand = labelled_hand(view, me)
    rest, rank_word = _rank_clause(words)
    chosen, stake = _cards_and_stake(rest, hand)
    if not chosen and rank_word is not None and parses(lambda w: find_card(w, hand), "as"):
        # "d as 2": a discard needs cards, so "as" was the Ace of spades.
        rank_word = None
        chosen, stake = _cards_and_stake(words, hand)
    if not chosen:
        raise CommandError("name the cards to discard, e.g. d 1 2 as Q (labels from your hand)")
    rank = _rank(rank_word) if rank_word is not None else None
    if stake is None:
        stake = view.min_stake_for(me)
    return Discard(me, tuple(entry.slot for entry in chosen), stake, rank)


def _rank_clause(words: Sequence[str]) -> tuple[list[str], str | None]:
    for i in range(len(words) - 2, -1, -1):
        if words[i] == "as" and parses(Rank.parse, words[i + 1]):
            return list(words[:i]) + list(words[i + 2:]), words[i + 1]
    return list(words), None


def _cards_and_stake(words: Sequence[str],
                     hand: Sequence[HandCard]) -> tuple[list[HandCard], int | None]:
    chosen: list[HandCard] = []
    stake: int | None = None
    i = 0
    while i < len(words):
        word = words[i]
        if word == "as" and not parses(lambda w: find_card(w, hand), word):
            if i + 1 >= len(words):
                raise CommandError(f"'as' needs a rank after it ({_RANK_WORDS})")
            _rank(words[i + 1])  # raises: not a rank
            raise CommandError("name the rank once: ... as <rank>")
        if word in ("stake", "st", "s", "for"):
            if i + 1 >= len(words):
                raise CommandError("'stake' needs a number of chips after it")
            stake = parse_count(words[i + 1], "the stake")
            i += 2
            continue
        entry = find_card(word, hand)
        if entry in chosen:
            raise CommandError(f"card {entry.label} ({card_text(entry.card)}) is named twice")
        chosen.append(entry)
        i += 1
    return chosen, stake


def _rank(word: str) -> Rank:
    try:
        return Rank.parse(word)
    except ValueError:
        raise CommandError(f"{word[:12]!r} is not a rank: use {_RANK_WORDS}") from None


def _check(view: BluffState, action: object) -> None:
    try:
        view.check(action)
    except RuleError as error:
        raise CommandError(explain(view, action, error)) from None


def explain(view: BluffState, action: object, error: RuleError) -> str:
    """A refusal of the referee as a sentence for the person who typed the action."""
    seat = error.seat if error.seat is not None else viewing_seat(view)
    if isinstance(error, errors.StakeTooLow):
        low = view.min_stake_for(seat)
        return f"stake {getattr(action, 'stake', '?')} is below the minimum {low}"
    if isinstance(error, errors.StakeAboveStack):
        stack = view.stacks[seat]
        low = view.min_stake_for(seat)
        if low > stack:
            return (f"you have {stack} chips and the stake is at least {low}: "
                    f"you cannot discard; pass or challenge")
        return f"stake {getattr(action, 'stake', '?')} is more than your {stack} chips"
    if isinstance(error, errors.DiscardCount):
        count = len(getattr(action, "slots", ()))
        return f"discard {_up_to(view.config.max_discard)}, not {count}"
    if isinstance(error, errors.DuplicateSlots):
        return "a card is named twice"
    if isinstance(error, errors.RankRequired):
        return "you lead this round: name the rank you claim, e.g. d 1 2 as Q"
    if isinstance(error, errors.WrongRank):
        named = view.named_rank.label if view.named_rank else "?"
        return f"the rank of this round is {named}: claim {named} or leave out 'as'"
    if isinstance(error, errors.LeaderMustDiscard):
        return "you lead this round: you must discard (d <cards> as <rank>), not pass"
    if isinstance(error, errors.NothingToChallenge):
        return "there is no discard on the table to challenge"
    if isinstance(error, errors.AlreadyRevealed):
        return "that discard was already shown honest; it cannot be challenged again"
    if isinstance(error, NotYourCard):
        return "that card is not in your hand"
    return explain_common(view, error)


def rules_summary() -> str:
    """The rules of Bluff in a few lines, for ``help``."""
    return "\n".join([
        "BLUFF: get rid of all your cards by discarding them face down, claiming a rank.",
        "The leader names a rank, stakes chips and discards 1 to 4 cards 'of that rank'.",
        "Each next player passes (pays the pass price into the safe box), calls",
        "\"Bluff!\" on the last discard, or discards more cards of the same rank with at",
        "least the same stake. A caught bluffer loses his stake and takes the cards back;",
        "a wrong call costs the caller the stake. When all others pass, the last",
        "discarder leads anew. Empty your hand with an accepted discard to win the deal",
        "and the safe box. The last player with chips (or the most at the deal cap) wins.",
    ])


def _up_to(top: int) -> str:
    """``1 to 3 cards``, or ``1 card`` when one is all there is."""
    return "1 card" if top == 1 else f"1 to {top} cards"
